//! Worker side of the protocol (runs inside the Web Worker, see `bin/worker.rs`).

use gcscope_core::event::TraceInfo;
use gcscope_core::gc::ModelBuilder;
use gcscope_core::reader::TraceReader;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, DedicatedWorkerGlobalScope, File, MessageEvent};

use crate::protocol::{Progress, ToUi, MSG_BLOB, MSG_ENTRY};

/// Bytes read per `Blob.slice`: large enough to amortise the JS call, small enough to bound memory.
const CHUNK: f64 = 4.0 * 1024.0 * 1024.0;
/// The first chunks are smaller so the first GC rows reach the table quickly.
const FIRST_CHUNK: f64 = 512.0 * 1024.0;
/// Minimum interval between progress messages.
const PROGRESS_EVERY_MS: f64 = 100.0;
/// Minimum interval between batches of settled GC rows after the first (which goes out at once):
/// every batch makes the page rebuild its tables, which competes with decoding for the CPU.
const ROWS_EVERY_MS: f64 = 1000.0;

pub fn run_worker() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    let onmessage = Closure::<dyn Fn(MessageEvent)>::new(move |msg: MessageEvent| {
        let reply = reply.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let result = match request(msg.data()) {
                Some((blob, entry)) => decode_blob(&reply, &blob, entry).await,
                None => Err("the worker expects a Blob or File".to_string()),
            };
            if let Err(message) = result {
                let analysis = crate::protocol::Analysis {
                    error: Some(message),
                    ..Default::default()
                };
                post(&reply, &ToUi::Done(Box::new(analysis)));
            }
        });
    });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
    post(&scope, &ToUi::Ready);
}

/// A bare `Blob` (entry 0) or `{ blob, entry }` (see `protocol::MSG_BLOB`).
fn request(data: JsValue) -> Option<(Blob, usize)> {
    if let Some(blob) = data.dyn_ref::<Blob>() {
        return Some((blob.clone(), 0));
    }
    let blob = js_sys::Reflect::get(&data, &JsValue::from_str(MSG_BLOB)).ok()?;
    let entry = js_sys::Reflect::get(&data, &JsValue::from_str(MSG_ENTRY))
        .ok()
        .and_then(|e| e.as_f64())
        .filter(|e| *e >= 0.0 && e.fract() == 0.0)
        .unwrap_or(0.0) as usize;
    Some((blob.dyn_into::<Blob>().ok()?, entry))
}

fn post(scope: &DedicatedWorkerGlobalScope, msg: &ToUi) {
    match serde_wasm_bindgen::to_value(msg) {
        Ok(v) => {
            let _ = scope.post_message(&v);
        }
        Err(e) => web_sys::console::error_1(&format!("worker: cannot serialize: {e}").into()),
    }
}

fn js_err(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "unknown browser error".into())
}

/// Starts reading `blob[start..end]`; the browser reads it while the worker decodes the previous chunk.
fn read_chunk(blob: &Blob, start: f64, end: f64) -> Result<JsFuture, String> {
    let part = blob.slice_with_f64_and_f64(start, end).map_err(js_err)?;
    Ok(JsFuture::from(part.array_buffer()))
}

fn chunk_end(offset: f64, total: f64) -> f64 {
    let size = if offset < 4.0 * FIRST_CHUNK {
        FIRST_CHUNK
    } else {
        CHUNK
    };
    (offset + size).min(total)
}

async fn decode_blob(
    scope: &DedicatedWorkerGlobalScope,
    blob: &Blob,
    entry: usize,
) -> Result<(), String> {
    let started = js_sys::Date::now();
    let name = blob
        .dyn_ref::<File>()
        .map(|f| f.name())
        .unwrap_or_else(|| "trace".into());
    let total = blob.size();
    // Only what the GC model and insights read is delivered; the rest is counted by the reader.
    let mut reader = TraceReader::with_entry(entry).with_filter(gcscope_core::gc::interest);
    let mut model = ModelBuilder::new(&TraceInfo::default());
    let mut insights = gcscope_core::gc::insights::InsightsBuilder::bounded();
    let mut info_set = false;
    let mut sent = 0usize;
    let mut offset = 0.0;
    let mut last_progress = 0.0;
    let mut last_rows = 0.0;
    let mut next = if total > 0.0 {
        Some(read_chunk(blob, 0.0, chunk_end(0.0, total))?)
    } else {
        None
    };
    let mut error = None;
    let mut buf = Vec::new();
    while let Some(pending) = next.take() {
        let end = chunk_end(offset, total);
        // Ask for the following chunk before decoding this one (double buffering).
        if end < total {
            next = Some(read_chunk(blob, end, chunk_end(end, total))?);
        }
        let array = pending.await.map_err(js_err)?;
        let bytes = js_sys::Uint8Array::new(&array);
        buf.resize(bytes.length() as usize, 0);
        bytes.copy_to(&mut buf);
        let pushed = reader.push(&buf, &mut |ev| {
            model.on_event(ev);
            insights.on_event(ev);
        });
        if let Err(e) = pushed {
            error = Some(e.to_string());
            break;
        }
        if !info_set {
            if let Some(info) = reader.info() {
                model.set_info(info);
                info_set = true;
            }
        }
        offset = end;
        let now = js_sys::Date::now();
        let settled = model.completed_gcs();
        // The first rows go out at once; later ones in batches, at most every ROWS_EVERY_MS.
        if settled.len() > sent && (sent == 0 || now - last_rows >= ROWS_EVERY_MS) {
            last_rows = now;
            post(
                scope,
                &ToUi::Gcs {
                    rows: settled[sent..].to_vec(),
                },
            );
            sent = settled.len();
        }
        if now - last_progress >= PROGRESS_EVERY_MS {
            last_progress = now;
            let p = Progress {
                bytes: offset,
                total,
                events: reader.stats().events as f64,
                elapsed_ms: now - started,
                gcs: sent as f64,
            };
            post(scope, &ToUi::Progress(p));
        }
    }
    if error.is_none() {
        let finished = reader.finish(&mut |ev| {
            model.on_event(ev);
            insights.on_event(ev);
        });
        if let Err(e) = finished {
            error = Some(e.to_string());
        }
    }
    if let Some(info) = reader.info() {
        model.set_info(info);
    }
    let mut analysis = crate::analysis::summarize(&reader, &name, total);
    let finished = model.finish(Some(reader.stats()));
    analysis.insights = Some(crate::insights::ship::bounded(insights.finish(&finished)));
    analysis.model = Some(finished);
    analysis.decode_ms = js_sys::Date::now() - started;
    analysis.error = error;
    analysis.trace_entries = reader
        .trace_entries()
        .map(<[_]>::to_vec)
        .unwrap_or_default();
    analysis.entry = entry;
    post(scope, &ToUi::Done(Box::new(analysis)));
    Ok(())
}
