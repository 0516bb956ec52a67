//! A part worker: a worker the page starts for a decoding worker (see [`super::parts`]) to decode
//! tasks of the file on its own, talking to it over a `MessagePort` the page gave both. Each task
//! comes with the file (a `Blob`, which a message passes by reference);
//! the worker reads the task's bytes itself (`Blob.slice`), decodes them
//! (`gcscope_core::parts::decode`) and posts the result back as two transferred buffers: the
//! records, with the allocation ticks' digests and type names, and the payloads the GC model reads
//! (`wire::output_to_bytes_for_model`: a small part of the task's bytes). Nothing is shared between
//! workers, and no file bytes pass through the decoding worker.

use std::cell::RefCell;
use std::sync::Arc;

use gcscope_core::nettrace::part::PartContext;
use gcscope_core::parts::{self, wire, FilterFn, Task};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, DedicatedWorkerGlobalScope, MessageEvent, MessagePort};

use super::chunks::{byob_reader, js_err, reader_read, release, stream_reader};
use crate::protocol::{
    ENV_TYPE, FILTER_GC, MSG_BLOB, MSG_FILTER, MSG_PORT, MSG_QUIT, MSG_SPARE, MSG_TASK, PART_ERROR,
    PART_INDEX, PART_PAYLOADS, PART_PAYLOADS_LEN, PART_RECORDS, PART_RECORDS_LEN,
};

/// Buffers kept for reuse: two a task, for the most tasks a part worker holds at once and one
/// more.
const MAX_SPARE: usize = 10;

thread_local! {
    /// The context of the last task that carried one: the next tasks without their own use it.
    static CONTEXT: RefCell<Option<Arc<PartContext>>> = const { RefCell::new(None) };
    /// Buffers the decoding worker sent back (see [`on_spare`]).
    static SPARE: RefCell<Vec<js_sys::ArrayBuffer>> = const { RefCell::new(Vec::new()) };
    /// Whether this browser has BYOB readers of Blob streams (asked of an empty Blob, once).
    static BYOB: std::cell::OnceCell<bool> = const { std::cell::OnceCell::new() };
}

/// Serves the decoding worker at the other end of the port in `data` (`{ mode: "part", port }`,
/// from the page): its tasks and spare buffers come over it, and the results go back over it. The
/// port says "ready" first, so the decoding worker gives tasks only to part workers that run.
pub(super) fn serve(scope: &DedicatedWorkerGlobalScope, data: &JsValue) {
    let Some(port) = js_sys::Reflect::get(data, &JsValue::from_str(MSG_PORT))
        .ok()
        .and_then(|p| p.dyn_into::<MessagePort>().ok())
    else {
        return;
    };
    let (p, scope) = (port.clone(), scope.clone());
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |m: MessageEvent| {
        let data = m.data();
        let has = |k: &str| js_sys::Reflect::has(&data, &JsValue::from_str(k)).unwrap_or(false);
        if has(MSG_QUIT) {
            // The decoding worker needs this one no more: its memory goes back now.
            scope.close();
        } else if has(MSG_SPARE) {
            on_spare(&data);
        } else {
            on_task(&p, &data);
        }
    });
    port.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // It serves this port until it is closed.
    on_message.forget();
    let ready = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&ready, &JsValue::from_str(ENV_TYPE), &"ready".into());
    let _ = port.post_message(&ready);
}

/// Handles one task message. The task is read at once, in message order (a task without a
/// context relies on the one before it); its bytes are read and decoded when the read is done, so
/// the next task's read is in flight while this one decodes.
fn on_task(port: &MessagePort, data: &JsValue) {
    let get = |k: &str| js_sys::Reflect::get(data, &JsValue::from_str(k)).ok();
    let task = get(MSG_TASK)
        .and_then(|t| t.dyn_into::<js_sys::ArrayBuffer>().ok())
        .map(|b| js_sys::Uint8Array::new(&b).to_vec());
    let blob = get(MSG_BLOB).and_then(|b| b.dyn_into::<Blob>().ok());
    let filter: Option<FilterFn> = get(MSG_FILTER)
        .and_then(|f| f.as_string())
        .filter(|f| f == FILTER_GC)
        .map(|_| gcscope_core::gc::interest as FilterFn);
    let (Some(task), Some(blob)) = (task, blob) else {
        post_error(port, -1.0, "a part task without its file");
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
            post_error(port, -1.0, &format!("a part task that cannot be read: {e}"));
            return;
        }
    };
    let port = port.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let index = task.index as f64;
        let (buffer, bytes) = match read_task(&blob, &task).await {
            Ok(b) => b,
            Err(e) => {
                post_error(&port, index, &e);
                return;
            }
        };
        // The merging worker feeds the GC model and insights: most allocation ticks go without
        // payloads of their own (their digests stand for them), so the payload bytes sent are a
        // small part of the task's.
        let output = parts::decode(&task, bytes, filter);
        let (records, payloads) = wire::output_to_bytes_for_model(output);
        // The task's bytes as read are not sent: their buffer is read into again.
        keep_spare(buffer);
        let envelope = js_sys::Object::new();
        let (records, records_len) = (into_spare(&records), records.len());
        let (payloads, payloads_len) = (into_spare(&payloads), payloads.len());
        let set = |k: &str, v: &JsValue| {
            let _ = js_sys::Reflect::set(&envelope, &JsValue::from_str(k), v);
        };
        set(PART_INDEX, &JsValue::from_f64(index));
        set(PART_RECORDS, &records);
        set(PART_PAYLOADS, &payloads);
        set(PART_PAYLOADS_LEN, &JsValue::from_f64(payloads_len as f64));
        set(PART_RECORDS_LEN, &JsValue::from_f64(records_len as f64));
        let transfer = js_sys::Array::of2(&records, &payloads);
        if let Err(e) = port.post_message_with_transferable(&envelope, &transfer) {
            post_error(&port, index, &js_err(e));
        }
    });
}

/// The file's `task.offset..task.offset + task.len` (shorter where the file is: the part stops
/// where its bytes end): the browser's buffer holding them (at its start; it may be longer), and
/// the bytes copied into wasm memory. Through a BYOB reader of the slice's stream into a buffer the
/// decoding worker sent back ([`SPARE`]) where the browser has one, so the same few buffers go
/// round; else the slice's `arrayBuffer()`.
pub(super) async fn read_task(
    blob: &Blob,
    task: &Task,
) -> Result<(js_sys::ArrayBuffer, Vec<u8>), String> {
    let (from, to) = (task.offset as f64, (task.offset + task.len) as f64);
    let failed = |e: JsValue| format!("cannot read bytes {from}..{to} of the file: {}", js_err(e));
    let slice = blob.slice_with_f64_and_f64(from, to).map_err(js_err)?;
    let len = slice.size() as usize;
    let byob =
        BYOB.with(|b| *b.get_or_init(|| Blob::new().ok().and_then(|e| byob_reader(&e)).is_some()));
    let reader = if byob {
        stream_reader(&slice, Some("byob"))
    } else {
        None
    };
    let Some(reader) = reader else {
        let buffer: js_sys::ArrayBuffer = JsFuture::from(slice.array_buffer())
            .await
            .and_then(|b| b.dyn_into())
            .map_err(failed)?;
        let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
        return Ok((buffer, bytes));
    };
    let mut buffer = spare(len);
    let mut at = 0usize;
    while at < len {
        let view = js_sys::Uint8Array::new_with_byte_offset_and_length(
            &buffer,
            at as u32,
            (len - at) as u32,
        );
        let r = reader_read(&reader, Some(&view))?.await.map_err(failed)?;
        let get = |k: &str| js_sys::Reflect::get(&r, &JsValue::from_str(k)).map_err(failed);
        // At the end the view handed back (if any) holds no bytes.
        let Ok(value) = get("value")?.dyn_into::<js_sys::Uint8Array>() else {
            break;
        };
        buffer = value.buffer();
        let n = value.length() as usize;
        if get("done")?.as_bool().unwrap_or(true) || n == 0 {
            break;
        }
        at += n;
    }
    // Read to its length, not to its end: closed now, or the browser keeps what it read ahead for
    // it until the collector runs, and in Chromium the tab grows by that with every task
    // (docs/performance-log/journal.md, "Several workers in the tab, again").
    cancel(&reader);
    // Copied into a new Vec without zeroing it first (`to_vec`).
    let bytes = js_sys::Uint8Array::new_with_byte_offset_and_length(&buffer, 0, at as u32).to_vec();
    Ok((buffer, bytes))
}

/// `reader.cancel()`: closes its stream (what it returns is not waited for).
fn cancel(reader: &JsValue) {
    let f = js_sys::Reflect::get(reader, &JsValue::from_str("cancel"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(f) = f {
        let _ = f.call0(reader);
    }
}

/// A buffer of at least `len` bytes: one sent back, else a new one.
fn spare(len: usize) -> js_sys::ArrayBuffer {
    SPARE
        .with(|s| {
            let mut s = s.borrow_mut();
            let i = s.iter().position(|b| b.byte_length() as usize >= len)?;
            Some(s.swap_remove(i))
        })
        // Rounded up, so that the next tasks' (which differ by a block or so) fit.
        .unwrap_or_else(|| js_sys::ArrayBuffer::new((((len >> 20) + 1) << 20) as u32))
}

/// `bytes` copied into the start of a [`spare`] buffer.
fn into_spare(bytes: &[u8]) -> js_sys::ArrayBuffer {
    let b = spare(bytes.len());
    js_sys::Uint8Array::new_with_byte_offset_and_length(&b, 0, bytes.len() as u32).copy_from(bytes);
    b
}

/// A buffer the decoding worker is done with, for [`read_task`] to read into again.
fn on_spare(data: &JsValue) {
    if let Some(b) = js_sys::Reflect::get(data, &JsValue::from_str(MSG_SPARE))
        .ok()
        .and_then(|b| b.dyn_into::<js_sys::ArrayBuffer>().ok())
    {
        keep_spare(b);
    }
}

/// Keeps `b` for [`spare`] (at most [`MAX_SPARE`] of them; the others are let go of).
fn keep_spare(b: js_sys::ArrayBuffer) {
    SPARE.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < MAX_SPARE {
            s.push(b);
        } else {
            release(&b);
        }
    });
}

fn post_error(port: &MessagePort, index: f64, message: &str) {
    let envelope = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&envelope, &PART_INDEX.into(), &JsValue::from_f64(index));
    let _ = js_sys::Reflect::set(&envelope, &PART_ERROR.into(), &JsValue::from_str(message));
    let _ = port.post_message(&envelope);
}
