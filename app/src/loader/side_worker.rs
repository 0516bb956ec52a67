//! A side worker: a worker of its own, beside the decoding ones (`worker_client`), that answers
//! one tab's requests about the open file: the Stacks tab's call trees ([`super::stacks`]) and the
//! Heap tab's snapshot ([`super::heap`]). Both talk to theirs the same way, which lives here: one
//! request in flight at a time, the others waiting in order; each posted with the worker's mode,
//! its own file where it has one, and the worker's file with the first request sent.

use std::cell::RefCell;
use std::rc::Rc;

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, ErrorEvent, MessageEvent, Worker};

use super::worker_client::{decode_envelope, spawn_worker};
use crate::protocol::{ToUi, MODE_HEAP, MODE_STACKS, MSG_BLOB, MSG_MODE, MSG_REQUEST};

/// Which side worker: its mode in the protocol and its name in messages.
#[derive(Clone, Copy)]
pub enum Side {
    Stacks,
    Heap,
}

impl Side {
    fn mode(self) -> &'static str {
        match self {
            Side::Stacks => MODE_STACKS,
            Side::Heap => MODE_HEAP,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Side::Stacks => "stacks",
            Side::Heap => "heap",
        }
    }
}

struct Queue<R> {
    worker: Worker,
    side: Side,
    ready: bool,
    in_flight: bool,
    /// Sent with the first request, whichever it is.
    file: Option<Blob>,
    /// Requests not sent yet, in order, each with a file of its own where it has one.
    waiting: Vec<(R, Option<Blob>)>,
}

/// A started side worker. Dropping it leaves the worker running: [`SideWorker::stop`] ends it.
pub struct SideWorker<R> {
    queue: Rc<RefCell<Queue<R>>>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

impl<R: Serialize + 'static> SideWorker<R> {
    /// Starts the worker. `file` goes with the first request. `ends_request` tells whether an
    /// answer is the last one to its request (a heap summary comes in stages). `on_reply` gets
    /// every answer, or a message saying why none could be read; `on_stopped` gets the engine's
    /// message when the worker dies.
    pub fn start(
        side: Side,
        file: Option<Blob>,
        ends_request: fn(&ToUi) -> bool,
        on_reply: impl Fn(Result<ToUi, String>) + 'static,
        on_stopped: impl Fn(String) + 'static,
    ) -> Result<Self, String> {
        let worker = spawn_worker()
            .map_err(|e| format!("cannot start the {} worker: {e:?}", side.name()))?;
        let queue = Rc::new(RefCell::new(Queue {
            worker: worker.clone(),
            side,
            ready: false,
            in_flight: false,
            file,
            waiting: Vec::new(),
        }));
        let q = queue.clone();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |msg: MessageEvent| {
            let data = msg.data();
            if let Ok(reason) = js_sys::Reflect::get(&data, &JsValue::from_str("boot_failed")) {
                if let Some(reason) = reason.as_string() {
                    on_reply(Err(format!(
                        "the {} worker could not start: {reason}",
                        side.name()
                    )));
                    return;
                }
            }
            let reply = decode_envelope(&data);
            {
                let mut q = q.borrow_mut();
                match &reply {
                    Ok(ToUi::Ready) => q.ready = true,
                    Ok(a) if !ends_request(a) => {}
                    _ => q.in_flight = false,
                }
                q.send_next();
            }
            on_reply(
                reply.map_err(|e| format!("bad message from the {} worker: {e}", side.name())),
            );
        });
        let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |e: ErrorEvent| {
            e.prevent_default();
            on_stopped(e.message());
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(SideWorker {
            queue,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Queues `req` (with its own file, if any) and sends it when the worker is free.
    pub fn push(&self, req: R, file: Option<Blob>) {
        let mut q = self.queue.borrow_mut();
        q.waiting.push((req, file));
        q.send_next();
    }

    /// The requests not sent yet, to drop or look for one.
    pub fn waiting<T>(&self, f: impl FnOnce(&mut Vec<(R, Option<Blob>)>) -> T) -> T {
        f(&mut self.queue.borrow_mut().waiting)
    }

    /// Ends the worker; its answers still on their way are dropped.
    pub fn stop(self) {
        let q = self.queue.borrow();
        q.worker.set_onmessage(None);
        q.worker.set_onerror(None);
        q.worker.terminate();
    }
}

impl<R: Serialize> Queue<R> {
    fn send_next(&mut self) {
        if !self.ready || self.in_flight || self.waiting.is_empty() {
            return;
        }
        let (req, own) = self.waiting.remove(0);
        let Ok(bytes) = crate::protocol::wire::encode(&req) else {
            return;
        };
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &MSG_MODE.into(), &self.side.mode().into());
        let _ = js_sys::Reflect::set(
            &msg,
            &MSG_REQUEST.into(),
            &js_sys::Uint8Array::from(&bytes[..]),
        );
        // A request has the worker's file or a file of its own, never both (heap has no
        // worker's file; stacks' requests have none of their own).
        if let Some(blob) = own.or_else(|| self.file.take()) {
            let _ = js_sys::Reflect::set(&msg, &MSG_BLOB.into(), &blob);
        }
        self.in_flight = self.worker.post_message(&msg).is_ok();
    }
}
