//! A part worker: a worker the decoding worker starts (see [`super::parts`]) to decode tasks of the
//! file on its own. Each task comes with its bytes (transferred buffers, which the decoding worker
//! read once); the worker decodes them (`gcscope_core::parts::decode`) and posts the result back
//! as two transferred buffers. Nothing is shared between workers.

use std::cell::RefCell;
use std::sync::Arc;

use gcscope_core::nettrace::part::PartContext;
use gcscope_core::parts::{self, wire, FilterFn};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

use super::chunks::js_err;
use super::feed::TaskBytes;
use crate::protocol::{
    FILTER_GC, MSG_FILTER, MSG_PIECES, MSG_TASK, PART_ERROR, PART_INDEX, PART_PAYLOADS,
    PART_PIECES, PART_RECORDS,
};

thread_local! {
    /// The context of the last task that carried one: the next tasks without their own use it.
    static CONTEXT: RefCell<Option<Arc<PartContext>>> = const { RefCell::new(None) };
}

/// Handles one task message (in message order: a task without a context relies on the one before
/// it).
pub(super) fn on_task(scope: &DedicatedWorkerGlobalScope, data: &JsValue) {
    let get = |k: &str| js_sys::Reflect::get(data, &JsValue::from_str(k)).ok();
    let task = get(MSG_TASK)
        .and_then(|t| t.dyn_into::<js_sys::ArrayBuffer>().ok())
        .map(|b| js_sys::Uint8Array::new(&b).to_vec());
    let pieces = get(MSG_PIECES).and_then(|p| p.dyn_into::<js_sys::Array>().ok());
    let filter: Option<FilterFn> = get(MSG_FILTER)
        .and_then(|f| f.as_string())
        .filter(|f| f == FILTER_GC)
        .map(|_| gcscope_core::gc::interest as FilterFn);
    let (Some(task), Some(pieces)) = (task, pieces) else {
        post_error(scope, -1.0, "a part task without its bytes");
        return;
    };
    let last = CONTEXT.with(|c| c.borrow().clone());
    let task = match wire::task_from_bytes(&task, last.as_ref()) {
        Ok((task, own)) => {
            if own {
                CONTEXT.with(|c| *c.borrow_mut() = task.context.clone());
            }
            task
        }
        Err(e) => {
            post_error(
                scope,
                -1.0,
                &format!("a part task that cannot be read: {e}"),
            );
            return;
        }
    };
    let index = task.index as f64;
    let bytes = match task_bytes(&task, &pieces) {
        Ok(b) => b,
        Err(e) => {
            post_error(scope, index, &e);
            return;
        }
    };
    let output = parts::decode(&task, bytes, filter);
    // An EventPipe part's payloads are the task's bytes: the pieces go back as they came
    // (transferred, not copied out of wasm memory); an ETL part's are its own.
    let (records, payloads) = wire::output_to_bytes(output);
    let envelope = js_sys::Object::new();
    let records = js_sys::Uint8Array::from(&records[..]).buffer();
    let transfer = js_sys::Array::of1(&records);
    let set = |k: &str, v: &JsValue| {
        let _ = js_sys::Reflect::set(&envelope, &JsValue::from_str(k), v);
    };
    set(PART_INDEX, &JsValue::from_f64(index));
    set(PART_RECORDS, &records);
    if task.format == parts::Format::EventPipe {
        for p in pieces.iter() {
            if let Some(b) = p.dyn_ref::<js_sys::Array>().map(|p| p.get(0)) {
                if !transfer.includes(&b, 0) {
                    transfer.push(&b);
                }
            }
        }
        set(PART_PIECES, &pieces);
    } else {
        let payloads = js_sys::Uint8Array::from(&payloads[..]).buffer();
        transfer.push(&payloads);
        set(PART_PAYLOADS, &payloads);
    }
    if let Err(e) = scope.post_message_with_transfer(&envelope, &transfer) {
        post_error(scope, index, &js_err(e));
    }
}

/// The task's bytes, from its pieces (`[buffer, offset, length]`, in order).
fn task_bytes(task: &parts::Task, pieces: &js_sys::Array) -> Result<Vec<u8>, String> {
    let mut bytes = TaskBytes::from_js(pieces)?.to_vec();
    // Shorter (the file ended): the part stops where its bytes end.
    bytes.truncate(task.len as usize);
    Ok(bytes)
}

fn post_error(scope: &DedicatedWorkerGlobalScope, index: f64, message: &str) {
    let envelope = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&envelope, &PART_INDEX.into(), &JsValue::from_f64(index));
    let _ = js_sys::Reflect::set(&envelope, &PART_ERROR.into(), &JsValue::from_str(message));
    let _ = scope.post_message(&envelope);
}
