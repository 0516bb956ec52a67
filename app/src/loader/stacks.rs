//! The page's side of the stacks worker (`worker::stacks`): started the first time the Stacks tab
//! asks for a call tree, it reads the open file once and answers each selection; its answers go
//! into `AppState::stacks` and `AppState::stacks_export`. One request is in flight at a time:
//! asked while one is, the newest tree request waits (older ones are dropped), and exports wait in
//! turn.

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, ErrorEvent, MessageEvent, Worker};

use super::worker_client::{decode_envelope, spawn_worker};
use crate::protocol::stacks::{Heap, StackEvent, StackTree, StacksRequest};
use crate::protocol::{ToUi, MODE_STACKS, MSG_BLOB, MSG_MODE, MSG_REQUEST};
use crate::state::AppState;

struct Job {
    worker: Worker,
    /// The file, until it is sent with the first request.
    blob: Option<Blob>,
    ready: bool,
    in_flight: bool,
    /// Requests not sent yet, in order: at most one tree (the newest), and the exports asked for.
    waiting: Vec<StacksRequest>,
    /// The last tree asked for (a request for it again is dropped).
    last: Option<StacksRequest>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

thread_local! {
    static JOB: RefCell<Option<Job>> = const { RefCell::new(None) };
}

/// The call tree the address bar asks for (`?sevent=`, `?sheap=`, `?stype=`, `?sorder=`, the
/// time range): the Stacks tab's, and the one the findings' stacks come with.
pub fn request_of(v: &crate::state::view_state::ViewState) -> StacksRequest {
    StacksRequest {
        event: v
            .stacks_event
            .as_deref()
            .and_then(StackEvent::from_key)
            .unwrap_or_default(),
        heap: v
            .stacks_heap
            .as_deref()
            .and_then(Heap::from_key)
            .unwrap_or_default(),
        type_name: v.stacks_type.clone(),
        from_ms: v.filter.t0,
        to_ms: v.filter.t1,
        bottom_up: v.stacks_up,
        export: None,
        trigger: None,
        callers: None,
    }
}

/// Asks for the findings' stacks, which come with every call tree: the tree the address bar
/// asks for, unless one is there or asked for already.
pub fn request_findings(app: AppState) {
    if app.stacks.with_untracked(|t| t.is_some()) || !app.has_data() {
        return;
    }
    let req = app.vs.with_untracked(request_of);
    request(app, req);
}

/// Stops the stacks worker (a new file is opened) and forgets its answers.
pub fn forget(app: AppState) {
    if let Some(job) = JOB.with(|j| j.borrow_mut().take()) {
        job.worker.set_onmessage(None);
        job.worker.set_onerror(None);
        job.worker.terminate();
    }
    app.stacks.set(None);
    app.stacks_export.set(None);
    app.trigger_stack.set(None);
    app.callers.set(None);
}

/// Asks for `req`'s call tree (or export) of the open file.
pub fn request(app: AppState, req: StacksRequest) {
    let started = JOB.with(|j| j.borrow().is_some());
    if !started {
        let Some(blob) = super::current_blob() else {
            return;
        };
        if let Err(e) = start(app, blob) {
            app.stacks.set(Some(Arc::new(StackTree {
                error: Some(e),
                request: req,
                ..Default::default()
            })));
            return;
        }
    }
    JOB.with(|j| {
        if let Some(job) = j.borrow_mut().as_mut() {
            // Exports, trigger stacks and callers wait in turn; of the trees only the newest.
            let tree = |r: &StacksRequest| {
                r.export.is_none() && r.trigger.is_none() && r.callers.is_none()
            };
            if tree(&req) {
                if job.last.as_ref() == Some(&req) {
                    return;
                }
                job.last = Some(req.clone());
                job.waiting.retain(|w| !tree(w));
            }
            job.waiting.push(req);
            send_waiting(job);
        }
    });
}

fn send_waiting(job: &mut Job) {
    if !job.ready || job.in_flight {
        return;
    }
    if job.waiting.is_empty() {
        return;
    }
    let req = job.waiting.remove(0);
    let Ok(bytes) = crate::protocol::wire::encode(&req) else {
        return;
    };
    let msg = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&msg, &MSG_MODE.into(), &MODE_STACKS.into());
    let _ = js_sys::Reflect::set(
        &msg,
        &MSG_REQUEST.into(),
        &js_sys::Uint8Array::from(&bytes[..]),
    );
    if let Some(blob) = job.blob.take() {
        let _ = js_sys::Reflect::set(&msg, &MSG_BLOB.into(), &blob);
    }
    job.in_flight = job.worker.post_message(&msg).is_ok();
}

fn start(app: AppState, blob: Blob) -> Result<(), String> {
    let worker = spawn_worker().map_err(|e| format!("cannot start the stacks worker: {e:?}"))?;
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |msg: MessageEvent| {
        let data = msg.data();
        if let Ok(reason) = js_sys::Reflect::get(&data, &JsValue::from_str("boot_failed")) {
            if let Some(reason) = reason.as_string() {
                failed(app, format!("the stacks worker could not start: {reason}"));
                return;
            }
        }
        let reply = decode_envelope(&data);
        JOB.with(|j| {
            if let Some(job) = j.borrow_mut().as_mut() {
                match &reply {
                    Ok(ToUi::Ready) => job.ready = true,
                    _ => job.in_flight = false,
                }
                send_waiting(job);
            }
        });
        match reply {
            Ok(ToUi::StackTree(t)) => app.stacks.set(Some(Arc::new(*t))),
            Ok(ToUi::StacksExport(e)) => app.stacks_export.set(Some(Arc::new(*e))),
            Ok(ToUi::TriggerStack(t)) => app.trigger_stack.set(Some(Arc::new(*t))),
            Ok(ToUi::Callers(c)) => app.callers.set(Some(Arc::new(*c))),
            Ok(_) => {}
            Err(e) => failed(app, format!("bad message from the stacks worker: {e}")),
        }
    });
    let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |e: ErrorEvent| {
        e.prevent_default();
        failed(app, format!("the stacks worker stopped: {}", e.message()));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    JOB.with(|j| {
        *j.borrow_mut() = Some(Job {
            worker,
            blob: Some(blob),
            ready: false,
            in_flight: false,
            waiting: Vec::new(),
            last: None,
            _on_message: on_message,
            _on_error: on_error,
        })
    });
    Ok(())
}

fn failed(app: AppState, e: String) {
    app.stacks.set(Some(Arc::new(StackTree {
        error: Some(e),
        ..Default::default()
    })));
}
