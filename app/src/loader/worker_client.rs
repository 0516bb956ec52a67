//! The page's side of the worker protocol: one decoding worker per [`Slot`] (the trace, and the
//! trace it is compared with, each in its own worker). Starting a new decode in a slot terminates
//! that slot's previous worker, which is also how "cancel" works and how a crashed (panicked)
//! worker is replaced: the page itself never runs the decoder, so it cannot be taken down by it.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, ErrorEvent, MessageChannel, MessageEvent, Url, Worker};

use crate::protocol::{
    ToUi, ENV_BYTES, MODE_PART, MSG_BLOB, MSG_ENTRY, MSG_KEEP_BYTES, MSG_MODE, MSG_PID, MSG_PORT,
    MSG_PORTS, MSG_WORKERS,
};

/// A part worker, and its handler of the first message it sends the page (see [`part_workers`]).
type PartWorker = (Worker, Closure<dyn Fn(MessageEvent)>);

struct Job {
    worker: Worker,
    /// The part workers started for it (see [`part_workers`]), until it is done.
    parts: Vec<PartWorker>,
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

/// Most workers a file is decoded on: past ~8 the merge, which one worker does, is the limit
/// (docs/performance-log/journal.md, "Several workers in the tab", has the projection).
const MAX_WORKERS: u32 = 8;

thread_local! {
    /// The page's `?workers=N`, read when it loads (the address is rewritten after).
    static ASKED_WORKERS: std::cell::Cell<Option<u32>> = const { std::cell::Cell::new(None) };
}

/// Reads `?workers=N` (benchmarks, tests: how many workers decode a file) from the address the
/// page was opened at; call it before the app rewrites the address.
pub fn remember_asked_workers() {
    let asked = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|q| {
            form_urlencoded::parse(q.trim_start_matches('?').as_bytes())
                .find(|(k, _)| k == "workers")
                .and_then(|(_, v)| v.parse::<u32>().ok())
        });
    ASKED_WORKERS.with(|a| a.set(asked));
}

/// How many workers decode a file (the decoding worker included): the page's `?workers=N` if given
/// (see [`remember_asked_workers`]), else one. One by default, whatever the cores: the merging
/// worker's own work (the merge into time order, the GC model) is most of what one worker does
/// alone, so more workers gain little where cores are spare and lose where they are not, with
/// more memory in either case (docs/performance-log/journal.md, "Several workers in the tab,
/// again"). `tests/e2e/parallel.test.mjs` checks that more workers show exactly what one shows.
pub fn decoding_workers() -> u32 {
    ASKED_WORKERS
        .with(|a| a.get())
        .map_or(1, |n| n.clamp(1, MAX_WORKERS))
}

/// Trunk builds the worker as a classic (no-modules) script that defines `wasm_bindgen`; a tiny
/// bootstrap loads it and the wasm from our own origin (one options object: a bare URL is
/// wasm-bindgen's deprecated form, and every engine logged a warning for it).
pub(super) fn spawn_worker() -> Result<Worker, JsValue> {
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
    let (parts, ports) = part_workers(decoding_workers().saturating_sub(1));
    let ports = std::cell::RefCell::new(Some(ports));
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
                let ports = ports.borrow_mut().take().unwrap_or_default();
                let workers = ports.length() + 1;
                let _ =
                    js_sys::Reflect::set(&request, &MSG_WORKERS.into(), &(workers as f64).into());
                let _ = js_sys::Reflect::set(&request, &MSG_PORTS.into(), &ports);
                if let Err(e) = w.post_message_with_transfer(&request, &ports) {
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
            parts,
            busy: true,
            _on_message: on_message,
            _on_error: on_error,
        })
    });
    Ok(())
}

/// A message's bytes (see `protocol`), decoded straight from the transferred buffer.
pub(super) fn decode_envelope(data: &JsValue) -> Result<ToUi, String> {
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
/// processes, to show one of them at once ([`show_process`]). Its part workers go (showing a
/// process reads what the worker kept, on it alone).
pub fn idle(slot: Slot) {
    CURRENT.with(|c| {
        if let Some(job) = c.borrow_mut()[slot.index()].as_mut() {
            job.busy = false;
            stop_parts(&mut job.parts);
        }
    });
}

/// Starts `n` part workers for a decoding worker, and returns them and the ports (to transfer to
/// the decoding worker) it talks to them over: each, once it says it is ready, is sent the other
/// end of its port. The page starts them, not the decoding worker (see `worker::parts::Pool`: in
/// Firefox, a worker that created workers hung now and then in the `Worker` constructor). A part
/// worker that cannot start is left out: the decoding worker reads its share itself.
fn part_workers(n: u32) -> (Vec<PartWorker>, js_sys::Array) {
    let (mut parts, ports) = (Vec::new(), js_sys::Array::new());
    for _ in 0..n {
        let (Ok(worker), Ok(channel)) = (spawn_worker(), MessageChannel::new()) else {
            break;
        };
        let theirs = channel.port2();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |m: MessageEvent| {
            // Its first message: ready (or its wasm failed to start: then it gets no port, and
            // the decoding worker never hears from it).
            let target = m.target().and_then(|t| t.dyn_into::<Worker>().ok());
            let Some(target) = target else { return };
            target.set_onmessage(None);
            if js_sys::Reflect::has(&m.data(), &JsValue::from_str("boot_failed")).unwrap_or(true) {
                return;
            }
            let msg = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&msg, &MSG_MODE.into(), &MODE_PART.into());
            let _ = js_sys::Reflect::set(&msg, &MSG_PORT.into(), &theirs);
            let _ = target.post_message_with_transfer(&msg, &js_sys::Array::of1(&theirs));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ports.push(&channel.port1());
        parts.push((worker, on_message));
    }
    (parts, ports)
}

fn stop_parts(parts: &mut Vec<PartWorker>) {
    for (w, _) in parts.drain(..) {
        w.set_onmessage(None);
        w.terminate();
    }
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
    if let Some(mut job) = CURRENT.with(|c| c.borrow_mut()[slot.index()].take()) {
        stop_parts(&mut job.parts);
        job.worker.set_onmessage(None);
        job.worker.set_onerror(None);
        job.worker.terminate();
    }
}
