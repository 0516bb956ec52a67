//! Worker side of the protocol (runs inside the Web Worker, see `bin/worker.rs`).

use gcscope_core::reader::TraceReader;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, DedicatedWorkerGlobalScope, File, FileReaderSync, MessageEvent};

use crate::analysis::Analyzer;
use crate::protocol::{Progress, ToUi};

/// Bytes read per `Blob.slice`: large enough to amortise the JS call, small enough to bound memory.
const CHUNK: f64 = 4.0 * 1024.0 * 1024.0;
/// Minimum interval between progress messages.
const PROGRESS_EVERY_MS: f64 = 100.0;

pub fn run_worker() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    let onmessage = Closure::<dyn Fn(MessageEvent)>::new(move |msg: MessageEvent| {
        let data = msg.data();
        let result = match data.dyn_into::<Blob>() {
            Ok(blob) => decode_blob(&reply, &blob),
            Err(_) => Err("the worker expects a Blob or File".to_string()),
        };
        if let Err(message) = result {
            let analysis = crate::protocol::Analysis {
                error: Some(message),
                ..Default::default()
            };
            post(&reply, &ToUi::Done(Box::new(analysis)));
        }
    });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
    post(&scope, &ToUi::Ready);
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

fn decode_blob(scope: &DedicatedWorkerGlobalScope, blob: &Blob) -> Result<(), String> {
    let started = js_sys::Date::now();
    let name = blob
        .dyn_ref::<File>()
        .map(|f| f.name())
        .unwrap_or_else(|| "trace".into());
    let total = blob.size();
    let fs = FileReaderSync::new().map_err(js_err)?;
    let mut reader = TraceReader::new();
    let mut analyzer = Analyzer::default();
    let mut offset = 0.0;
    let mut last_progress = 0.0;
    let mut error = None;
    let mut buf = Vec::new();
    while offset < total {
        let end = (offset + CHUNK).min(total);
        let part = blob.slice_with_f64_and_f64(offset, end).map_err(js_err)?;
        let array = fs.read_as_array_buffer(&part).map_err(js_err)?;
        let bytes = js_sys::Uint8Array::new(&array);
        buf.resize(bytes.length() as usize, 0);
        bytes.copy_to(&mut buf);
        if let Err(e) = reader.push(&buf, &mut |ev| analyzer.on_event(ev)) {
            error = Some(e.to_string());
            break;
        }
        offset = end;
        let now = js_sys::Date::now();
        if now - last_progress >= PROGRESS_EVERY_MS {
            last_progress = now;
            let p = Progress {
                bytes: offset,
                total,
                events: analyzer.events() as f64,
                elapsed_ms: now - started,
            };
            post(scope, &ToUi::Progress(p));
        }
    }
    if error.is_none() {
        if let Err(e) = reader.finish(&mut |ev| analyzer.on_event(ev)) {
            error = Some(e.to_string());
        }
    }
    let mut analysis = analyzer.finish(reader.info(), &name, total);
    analysis.decode_ms = js_sys::Date::now() - started;
    analysis.error = error;
    post(scope, &ToUi::Done(Box::new(analysis)));
    Ok(())
}
