//! The part workers as the merging worker sees them (see [`super::parts`]): the ports it talks to
//! them over, what their messages leave for the merge (ready, results, failures), and the tasks
//! and spare buffers it sends them.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use gcscope_core::nettrace::part::PartContext;
use gcscope_core::parts::{wire, FilterFn, Task};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, MessageEvent, MessagePort};

use super::chunks::release;
use super::feed::Waker;
use crate::protocol::{
    ENV_TYPE, FILTER_GC, MODE_PART, MSG_BLOB, MSG_FILTER, MSG_MODE, MSG_QUIT, MSG_SPARE, MSG_TASK,
    PART_ERROR, PART_INDEX, PART_PAYLOADS, PART_PAYLOADS_LEN, PART_RECORDS, PART_RECORDS_LEN,
};

/// Tasks a part worker holds at once (it reads them all at once and decodes each as its read
/// ends).
pub(super) const PER_WORKER: u32 = 4;

/// A part's result: its records and its payloads, each the first bytes of a buffer.
pub(super) struct PartResult {
    pub records: js_sys::ArrayBuffer,
    pub records_len: u32,
    pub payloads: js_sys::ArrayBuffer,
    pub payloads_len: u32,
}

/// What the part workers' messages leave for the merge.
#[derive(Default)]
struct Shared {
    /// Results by task index: the output's two buffers (records, payloads), or why there is none.
    results: BTreeMap<u64, Result<PartResult, String>>,
    ready: Vec<bool>,
    dead: Vec<bool>,
    busy: Vec<u32>,
}

struct PartWorker {
    port: MessagePort,
    /// The context this worker was sent last (a task with the same one is sent without it).
    context: Option<Arc<PartContext>>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
}

/// The part workers, each the other end of a `MessagePort`. The page starts them, not this worker:
/// in Firefox, a worker creating workers can hang inside the `Worker` constructor, for good, made
/// one at a time or all at once, before any read of the file or during one; none is seen to hang
/// when the page makes them
/// (docs/performance-log/journal.md, "The part workers started by the page: a hang in Firefox").
pub(super) struct Pool {
    shared: Rc<RefCell<Shared>>,
    workers: Vec<PartWorker>,
}

impl Pool {
    /// Listens to the part workers at the other ends of `ports`. They say when they are ready;
    /// one that never does (it failed to start: the page sees that) is given no task, and one
    /// that stops answering is given up when the merge stalls (`parts::STALL_MS`).
    pub(super) fn start(ports: Vec<MessagePort>, waker: Waker) -> Pool {
        let n = ports.len();
        let shared = Rc::new(RefCell::new(Shared {
            ready: vec![false; n],
            dead: vec![false; n],
            busy: vec![0; n],
            ..Default::default()
        }));
        let workers = ports
            .into_iter()
            .enumerate()
            .map(|(i, port)| {
                let (s, w) = (shared.clone(), waker.clone());
                let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |m: MessageEvent| {
                    on_part_message(&s, i, &m.data());
                    w.wake();
                });
                port.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
                PartWorker {
                    port,
                    context: None,
                    _on_message: on_message,
                }
            })
            .collect();
        Pool { shared, workers }
    }

    /// How many part workers there are.
    pub(super) fn len(&self) -> usize {
        self.workers.len()
    }

    /// A ready part worker with room for a task (the least busy).
    pub(super) fn idle(&self) -> Option<usize> {
        let s = self.shared.borrow();
        (0..self.workers.len())
            .filter(|&i| s.ready[i] && !s.dead[i] && s.busy[i] < PER_WORKER)
            .min_by_key(|&i| s.busy[i])
    }

    /// Sends `task` to part worker `i`, with the file it reads the task's bytes from (false if it
    /// cannot be sent).
    pub(super) fn send(
        &mut self,
        i: usize,
        task: &Task,
        blob: &Blob,
        filter: Option<FilterFn>,
    ) -> bool {
        let Some(w) = self.workers.get_mut(i) else {
            return false;
        };
        let changed = match (&w.context, &task.context) {
            (Some(a), Some(b)) => !Arc::ptr_eq(a, b),
            (None, Some(_)) => true,
            _ => false,
        };
        let encoded = wire::task_to_bytes(task, changed);
        let buffer = js_sys::Uint8Array::from(&encoded[..]).buffer();
        let msg = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| {
            let _ = js_sys::Reflect::set(&msg, &JsValue::from_str(k), v);
        };
        set(MSG_MODE, &JsValue::from_str(MODE_PART));
        set(MSG_TASK, &buffer);
        set(MSG_BLOB, blob);
        if filter.is_some() {
            set(MSG_FILTER, &JsValue::from_str(FILTER_GC));
        }
        let transfer = js_sys::Array::of1(&buffer);
        if w.port
            .post_message_with_transferable(&msg, &transfer)
            .is_err()
        {
            return false;
        }
        if changed {
            w.context = task.context.clone();
        }
        self.shared.borrow_mut().busy[i] += 1;
        true
    }

    /// The result of task `index`, if it came.
    pub(super) fn take(&mut self, index: u64) -> Option<Result<PartResult, String>> {
        self.shared.borrow_mut().results.remove(&index)
    }

    /// Sends a result's payload buffer back to part worker `i`, which reads its next task into it
    /// (a buffer detached instead, where it cannot be sent). The same few buffers go round: in
    /// Chromium, buffers that a worker receives and detaches are freed only when the collector
    /// runs, so a new buffer per task grows the tab with the file
    /// (docs/performance-log/journal.md, "Several workers in the tab, again").
    pub(super) fn give_back(&self, i: usize, buffer: &js_sys::ArrayBuffer) {
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(
            &msg,
            &JsValue::from_str(MSG_MODE),
            &JsValue::from_str(MODE_PART),
        );
        let _ = js_sys::Reflect::set(&msg, &JsValue::from_str(MSG_SPARE), buffer);
        let sent = self.workers.get(i).is_some_and(|w| {
            w.port
                .post_message_with_transferable(&msg, &js_sys::Array::of1(buffer))
                .is_ok()
        });
        if !sent {
            release(buffer);
        }
    }

    /// Each part worker's state, for a message: ready, dead, tasks held, results waiting.
    pub(super) fn state(&self) -> String {
        let s = self.shared.borrow();
        format!(
            "ready {:?}, dead {:?}, busy {:?}, results for {:?}",
            s.ready,
            s.dead,
            s.busy,
            s.results.keys().collect::<Vec<_>>()
        )
    }

    /// Counts every part worker as failed.
    pub(super) fn give_up(&self) {
        let mut s = self.shared.borrow_mut();
        s.dead.iter_mut().for_each(|d| *d = true);
    }

    pub(super) fn dead(&self, i: usize) -> bool {
        self.shared.borrow().dead.get(i).copied().unwrap_or(true)
    }

    /// Whether every part worker failed (or none could start).
    pub(super) fn all_dead(&self) -> bool {
        let s = self.shared.borrow();
        s.dead.iter().all(|&d| d)
    }

    /// Whether task `index`'s result came.
    pub(super) fn has_result(&self, index: u64) -> bool {
        self.shared.borrow().results.contains_key(&index)
    }

    /// Tells every part worker to close, and stops listening.
    pub(super) fn stop(&mut self) {
        let quit = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&quit, &JsValue::from_str(MSG_MODE), &MODE_PART.into());
        let _ = js_sys::Reflect::set(&quit, &JsValue::from_str(MSG_QUIT), &JsValue::TRUE);
        for w in self.workers.drain(..) {
            let _ = w.port.post_message(&quit);
            w.port.set_onmessage(None);
            w.port.close();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A part worker's message: it is ready, or a task's result (see [`super::part`]).
fn on_part_message(shared: &Rc<RefCell<Shared>>, i: usize, data: &JsValue) {
    let get = |k: &str| js_sys::Reflect::get(data, &JsValue::from_str(k)).ok();
    {
        let mut s = shared.borrow_mut();
        if get(ENV_TYPE).and_then(|t| t.as_string()).as_deref() == Some("ready") {
            s.ready[i] = true;
        } else if let Some(index) = get(PART_INDEX).and_then(|x| x.as_f64()) {
            s.busy[i] = s.busy[i].saturating_sub(1);
            let result = match get(PART_ERROR).and_then(|e| e.as_string()) {
                Some(e) => Err(e),
                None => match (
                    get(PART_RECORDS).and_then(|b| b.dyn_into().ok()),
                    get(PART_PAYLOADS).and_then(|b| b.dyn_into().ok()),
                ) {
                    (Some(records), Some(payloads)) => {
                        let len = |k: &str| {
                            get(k)
                                .and_then(|n| n.as_f64())
                                .map_or(u32::MAX, |n| n as u32)
                        };
                        Ok(PartResult {
                            records,
                            records_len: len(PART_RECORDS_LEN),
                            payloads,
                            payloads_len: len(PART_PAYLOADS_LEN),
                        })
                    }
                    _ => Err("a part result without its bytes".to_string()),
                },
            };
            if index >= 0.0 {
                s.results.insert(index as u64, result);
            } else {
                // A task the worker could not even read: it is of no use any more.
                s.dead[i] = true;
            }
        }
    }
}
