//! The page's side of the heap worker (`worker::heap`): started when the open file turns out to
//! be a `.gcdump` heap snapshot, it reads the snapshot once and answers the Heap tab's requests
//! (`protocol::heap`); the answers go into `AppState::heap`. One request is in flight at a time,
//! the others wait in order; a second snapshot to compare with waits until the first is read.

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, ErrorEvent, MessageEvent, Worker};

use super::worker_client::{decode_envelope, spawn_worker};
use crate::protocol::heap::{HeapAnswer, HeapRequest, HeapStage};
use crate::protocol::{ToUi, MODE_HEAP, MSG_BLOB, MSG_MODE, MSG_REQUEST};
use crate::state::heap::Level;
use crate::state::AppState;

struct Job {
    worker: Worker,
    ready: bool,
    in_flight: bool,
    /// Requests not sent yet, in order, each with the file it reads (`Open`, `Compare`).
    waiting: Vec<(HeapRequest, Option<Blob>)>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

thread_local! {
    static JOB: RefCell<Option<Job>> = const { RefCell::new(None) };
    /// A snapshot to compare with that came before the first was known to be one.
    static PENDING_B: RefCell<Option<(String, Blob)>> = const { RefCell::new(None) };
}

/// Stops the heap worker (another file is opened) and forgets its answers.
pub fn forget(app: AppState) {
    if let Some(job) = JOB.with(|j| j.borrow_mut().take()) {
        job.worker.set_onmessage(None);
        job.worker.set_onerror(None);
        job.worker.terminate();
    }
    app.heap.clear();
}

/// Whether a heap snapshot is open (the Heap tab is shown).
pub fn is_open(app: AppState) -> bool {
    app.heap.open.with_untracked(|o| o.is_some())
}

/// Reads `blob` (named `name`) as the heap snapshot to show.
pub fn open(app: AppState, name: String, blob: Blob) {
    forget(app);
    app.heap.open.set(Some(name.clone()));
    app.heap.opened_at.set(js_sys::Date::now());
    app.heap.shown_ms.set([None; 3]);
    if let Err(e) = start(app) {
        app.heap.error.set(Some(e));
        return;
    }
    push(HeapRequest::Open { file_name: name }, Some(blob));
    if let Some((name, blob)) = PENDING_B.with(|p| p.borrow_mut().take()) {
        compare(app, name, blob);
    }
}

/// Reads `blob` as the snapshot to compare the open one with ("B").
pub fn compare(app: AppState, name: String, blob: Blob) {
    if JOB.with(|j| j.borrow().is_none()) {
        PENDING_B.with(|p| *p.borrow_mut() = Some((name, blob)));
        return;
    }
    app.heap.clear_diff();
    app.heap.diff_loading.set(Some(name.clone()));
    push(HeapRequest::Compare { file_name: name }, Some(blob));
}

/// Ends the comparison.
pub fn leave_compare(app: AppState) {
    PENDING_B.with(|p| p.borrow_mut().take());
    app.heap.clear_diff();
}

/// Asks for the children of dominator-tree node `node` (once).
pub fn children(app: AppState, node: u32) {
    if app.heap.levels.with_untracked(|l| l.contains_key(&node)) {
        return;
    }
    let req = HeapRequest::Children { node };
    let asked = JOB.with(|j| {
        j.borrow()
            .as_ref()
            .is_some_and(|job| job.waiting.iter().any(|(r, _)| *r == req))
    });
    if !asked {
        push(req, None);
    }
}

/// Asks for the paths of `type_name`'s instances (a newer ask replaces one not sent yet).
pub fn paths(type_name: String) {
    JOB.with(|j| {
        if let Some(job) = j.borrow_mut().as_mut() {
            job.waiting
                .retain(|(r, _)| !matches!(r, HeapRequest::Paths { .. }));
        }
    });
    push(HeapRequest::Paths { type_name }, None);
}

fn push(req: HeapRequest, blob: Option<Blob>) {
    JOB.with(|j| {
        if let Some(job) = j.borrow_mut().as_mut() {
            job.waiting.push((req, blob));
            send_waiting(job);
        }
    });
}

fn send_waiting(job: &mut Job) {
    if !job.ready || job.in_flight || job.waiting.is_empty() {
        return;
    }
    let (req, blob) = job.waiting.remove(0);
    let Ok(bytes) = crate::protocol::wire::encode(&req) else {
        return;
    };
    let msg = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&msg, &MSG_MODE.into(), &MODE_HEAP.into());
    let _ = js_sys::Reflect::set(
        &msg,
        &MSG_REQUEST.into(),
        &js_sys::Uint8Array::from(&bytes[..]),
    );
    if let Some(blob) = blob {
        let _ = js_sys::Reflect::set(&msg, &MSG_BLOB.into(), &blob);
    }
    job.in_flight = job.worker.post_message(&msg).is_ok();
}

fn start(app: AppState) -> Result<(), String> {
    let worker = spawn_worker().map_err(|e| format!("cannot start the heap worker: {e:?}"))?;
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |msg: MessageEvent| {
        let data = msg.data();
        if let Ok(reason) = js_sys::Reflect::get(&data, &JsValue::from_str("boot_failed")) {
            if let Some(reason) = reason.as_string() {
                app.heap
                    .error
                    .set(Some(format!("the heap worker could not start: {reason}")));
                return;
            }
        }
        let reply = decode_envelope(&data);
        JOB.with(|j| {
            if let Some(job) = j.borrow_mut().as_mut() {
                match &reply {
                    Ok(ToUi::Ready) => job.ready = true,
                    // An early stage of a summary: the rest of the answer is still to come.
                    Ok(ToUi::Heap(a)) if is_early(a) => {}
                    _ => job.in_flight = false,
                }
                send_waiting(job);
            }
        });
        match reply {
            Ok(ToUi::Heap(a)) => on_answer(app, *a),
            Ok(_) => {}
            Err(e) => app
                .heap
                .error
                .set(Some(format!("bad message from the heap worker: {e}"))),
        }
    });
    let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |e: ErrorEvent| {
        e.prevent_default();
        app.heap.error.set(Some(format!(
            "the heap worker stopped ({}); a snapshot this large may not fit in the page's memory",
            e.message()
        )));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    JOB.with(|j| {
        *j.borrow_mut() = Some(Job {
            worker,
            ready: false,
            in_flight: false,
            waiting: Vec::new(),
            _on_message: on_message,
            _on_error: on_error,
        })
    });
    Ok(())
}

/// Whether `a` is a summary's earlier stage, with more of it to come for the same request.
pub fn is_early(a: &HeapAnswer) -> bool {
    matches!(a, HeapAnswer::Summary(s) if s.stage != HeapStage::Complete)
}

fn on_answer(app: AppState, a: HeapAnswer) {
    let h = app.heap;
    match a {
        HeapAnswer::Summary(s) => {
            let ms = js_sys::Date::now() - h.opened_at.get_untracked();
            h.shown_ms.update(|t| t[s.stage as usize] = Some(ms));
            h.summary.set(Some(Arc::new(*s)));
        }
        HeapAnswer::Children { node, nodes, more } => h.levels.update(|l| {
            l.insert(node, Arc::new(Level { nodes, more }));
        }),
        HeapAnswer::Paths(p) => h.paths.set(Some(Arc::new(*p))),
        HeapAnswer::Diff(d) => {
            // An answer for a comparison already left is dropped.
            if h.diff_loading.get_untracked().is_some() {
                h.diff_loading.set(None);
                h.diff.set(Some(Arc::new(*d)));
            }
        }
        HeapAnswer::Failed { request, error } => match request {
            HeapRequest::Open { .. } => h.error.set(Some(error)),
            HeapRequest::Compare { .. } => {
                h.diff_loading.set(None);
                h.diff_error.set(Some(error));
            }
            HeapRequest::Children { .. } | HeapRequest::Paths { .. } => {
                web_sys::console::warn_1(&format!("heap worker: {error}").into())
            }
        },
    }
}
