//! The page's side of the worker protocol: one decoding worker per [`Slot`] (the trace, and the
//! trace it is compared with, each in its own worker). Starting a new decode in a slot terminates
//! that slot's previous worker, which is also how "cancel" works and how a crashed (panicked)
//! worker is replaced: the page itself never runs the decoder, so it cannot be taken down by it.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, ErrorEvent, MessageEvent, Url, Worker};

use crate::protocol::{ToUi, ENV_BYTES, MSG_BLOB, MSG_ENTRY, MSG_KEEP_BYTES, MSG_PID};

struct Job {
    worker: Worker,
    /// Decoding, or showing a process: a request now would interleave with its messages.
    busy: bool,
    // Kept alive as long as the worker: the browser calls them.
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

/// Which trace a worker decodes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Slot {
    /// The trace the views show.
    Main,
    /// The second trace of a comparison ("B").
    Compare,
}

impl Slot {
    fn index(self) -> usize {
        match self {
            Slot::Main => 0,
            Slot::Compare => 1,
        }
    }
}

thread_local! {
    static CURRENT: RefCell<[Option<Job>; 2]> = const { RefCell::new([None, None]) };
}

/// Messages the UI receives about the current job.
pub enum JobEvent {
    Message(ToUi),
    /// The worker died (wasm trap, out of memory, failed to load).
    Crashed(String),
}

/// Absolute URL of a file of ours, resolved against the page's base so any sub-path works.
fn asset_url(name: &str) -> Result<String, JsValue> {
    let base = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.base_uri().ok().flatten())
        .ok_or_else(|| JsValue::from_str("no document base URI"))?;
    Ok(Url::new_with_base(name, &base)?.href())
}

/// Trunk builds the worker as a classic (no-modules) script that defines `wasm_bindgen`; a tiny
/// bootstrap loads it and the wasm from our own origin (one options object: a bare URL is
/// wasm-bindgen's deprecated form, and every engine logged a warning for it).
fn spawn_worker() -> Result<Worker, JsValue> {
    let js = asset_url("worker.js")?;
    let wasm = asset_url("worker_bg.wasm")?;
    // A wasm that fails to compile rejects a promise inside the worker, which fires no `error`
    // event on our side: report it as a message so the page never waits forever.
    let boot = format!(
        "importScripts({js:?}); wasm_bindgen({{ module_or_path: {wasm:?} }}).catch(function (e) {{ \
         postMessage({{ boot_failed: String(e) }}); }});"
    );
    let parts = js_sys::Array::of1(&JsValue::from_str(&boot));
    let opts = BlobPropertyBag::new();
    opts.set_type("text/javascript");
    let blob = Blob::new_with_str_sequence_and_options(&parts, &opts)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    let worker = Worker::new(&url);
    Url::revoke_object_url(&url)?;
    worker
}

/// `blob` as a File called `name` (the bytes are not copied): the worker names the trace after its
/// File, and a Blob fetched from an address has no name.
pub fn named(blob: Blob, name: &str) -> Blob {
    web_sys::File::new_with_blob_sequence(&js_sys::Array::of1(&blob), name).map_or(blob, Into::into)
}

/// Starts decoding `blob` in a fresh worker for `slot`; `on_event` gets every message until the
/// job ends or another job replaces it in that slot.
/// `entry` picks a trace inside a .zip that holds several (0 = the first); `pid` the process of
/// a machine-wide trace to show (`?pid=`); `keep_bytes` (tests) what the worker may keep of the
/// other processes.
pub fn start(
    slot: Slot,
    blob: Blob,
    entry: usize,
    pid: Option<u32>,
    keep_bytes: Option<f64>,
    on_event: impl Fn(JobEvent) + 'static,
) -> Result<(), String> {
    cancel(slot);
    let worker = spawn_worker().map_err(|e| format!("cannot start the decoding worker: {e:?}"))?;
    let on_event = std::rc::Rc::new(on_event);
    let w = worker.clone();
    let cb = on_event.clone();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |msg: MessageEvent| {
        let data = msg.data();
        if let Ok(reason) = js_sys::Reflect::get(&data, &JsValue::from_str("boot_failed")) {
            if let Some(reason) = reason.as_string() {
                cb(JobEvent::Crashed(format!(
                    "the decoder could not start: {reason}"
                )));
                return;
            }
        }
        match decode_envelope(&data) {
            Ok(ToUi::Ready) => {
                // Only now is the worker listening; earlier messages would be dropped.
                let request = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&request, &MSG_BLOB.into(), &blob);
                let _ = js_sys::Reflect::set(&request, &MSG_ENTRY.into(), &(entry as f64).into());
                if let Some(pid) = pid {
                    let _ = js_sys::Reflect::set(&request, &MSG_PID.into(), &(pid as f64).into());
                }
                if let Some(k) = keep_bytes {
                    let _ = js_sys::Reflect::set(&request, &MSG_KEEP_BYTES.into(), &k.into());
                }
                if let Err(e) = w.post_message(&request) {
                    cb(JobEvent::Crashed(format!(
                        "cannot send the file to the worker: {e:?}"
                    )));
                }
            }
            Ok(m) => cb(JobEvent::Message(m)),
            Err(e) => cb(JobEvent::Crashed(format!(
                "bad message from the worker: {e}"
            ))),
        }
    });
    let cb = on_event;
    let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |e: ErrorEvent| {
        e.prevent_default();
        cb(JobEvent::Crashed(e.message()));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    CURRENT.with(|c| {
        c.borrow_mut()[slot.index()] = Some(Job {
            worker,
            busy: true,
            _on_message: on_message,
            _on_error: on_error,
        })
    });
    Ok(())
}

/// A message's bytes (see `protocol`), decoded straight from the transferred buffer.
fn decode_envelope(data: &JsValue) -> Result<ToUi, String> {
    let bytes = js_sys::Reflect::get(data, &JsValue::from_str(ENV_BYTES))
        .ok()
        .and_then(|b| b.dyn_into::<js_sys::ArrayBuffer>().ok())
        .ok_or("a message without its bytes")?;
    // The decoder reads it a window at a time (`protocol::wire`).
    ToUi::decode_from(JsBytes {
        all: js_sys::Uint8Array::new(&bytes),
        at: 0,
    })
}

/// Reads a JS byte array from the start, copying only what each read asks for.
struct JsBytes {
    all: js_sys::Uint8Array,
    at: u32,
}

impl std::io::Read for JsBytes {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (self.all.length() - self.at).min(buf.len() as u32);
        self.all
            .subarray(self.at, self.at + n)
            .copy_to(&mut buf[..n as usize]);
        self.at += n;
        Ok(n as usize)
    }
}

/// The slot's job sent its `Done` but its worker stays: it keeps a machine-wide trace's other
/// processes, to show one of them at once ([`show_process`]).
pub fn idle(slot: Slot) {
    CURRENT.with(|c| {
        if let Some(job) = c.borrow_mut()[slot.index()].as_mut() {
            job.busy = false;
        }
    });
}

/// Asks the slot's idle worker to show process `pid` of its trace (its messages come to the job's
/// callback as a decode's do). False when there is none: start a job for it instead.
pub fn show_process(slot: Slot, pid: u32) -> bool {
    CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        let Some(job) = c[slot.index()].as_mut().filter(|j| !j.busy) else {
            return false;
        };
        let request = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&request, &MSG_PID.into(), &(pid as f64).into());
        job.busy = job.worker.post_message(&request).is_ok();
        job.busy
    })
}

/// Stops the slot's current job, if any. Its callbacks are never called again.
pub fn cancel(slot: Slot) {
    if let Some(job) = CURRENT.with(|c| c.borrow_mut()[slot.index()].take()) {
        job.worker.set_onmessage(None);
        job.worker.set_onerror(None);
        job.worker.terminate();
    }
}
