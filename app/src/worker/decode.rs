//! The worker's loop: it receives a `Blob` (a dropped `File` or a fetched sample), reads it a chunk
//! at a time ([`super::chunks`]), feeds the streaming decoder, the GC model and the insights, and
//! posts progress, the settled rows in batches and the final analysis (see `protocol`).

use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::gc::ModelBuilder;
use gcscope_core::reader::TraceReader;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, DedicatedWorkerGlobalScope, File, MessageEvent};

use super::chunks::{js_err, ChunkSource, Pumped};
use super::parts::Source;

use crate::protocol::{
    Progress, ToUi, ENV_BYTES, ENV_DECODE_MS, ENV_ERROR, ENV_PART_BYTES, ENV_ROWS, ENV_TYPE,
    ENV_WORKERS, MODE_DECODE_ONLY, MODE_PART, MSG_BLOB, MSG_ENTRY, MSG_MODE, MSG_WORKERS,
    MSG_WORKER_JS,
};

/// Minimum interval between progress messages.
const PROGRESS_EVERY_MS: f64 = 100.0;
/// Minimum interval between batches of settled GC rows after the first (which goes out at once):
/// every batch makes the page rebuild its tables, which competes with decoding for the CPU.
const ROWS_EVERY_MS: f64 = 1000.0;
/// ... or sooner once this many rows wait: a second of a GC-dense trace is ~25,000 rows (60 MB
/// in the worker, in the message and again while the page decodes it).
const ROWS_PER_BATCH: usize = 2048;

pub fn run_worker() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    let onmessage = Closure::<dyn Fn(MessageEvent)>::new(move |msg: MessageEvent| {
        let reply = reply.clone();
        let data = msg.data();
        let mode = js_sys::Reflect::get(&data, &JsValue::from_str(MSG_MODE))
            .ok()
            .and_then(|m| m.as_string());
        if mode.as_deref() == Some(MODE_PART) {
            // This is a part worker of another decoding worker (see `parts`).
            super::part::on_task(&reply, &data);
            return;
        }
        wasm_bindgen_futures::spawn_local(async move {
            let decode_only = mode.as_deref() == Some(MODE_DECODE_ONLY);
            let result = match request(data) {
                Some(r) if decode_only => decode_only_blob(&reply, &r.blob).await,
                Some(r) => decode_blob(&reply, r).await,
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

/// What the page asks for: a file, which trace of it, and how many workers may decode it.
struct Request {
    blob: Blob,
    entry: usize,
    /// Workers that may decode the file, this one included (1: this one alone).
    workers: u32,
    /// The worker's script, to start the others.
    worker_js: Option<String>,
}

/// A bare `Blob` (entry 0, one worker) or `{ blob, entry, workers, worker_js }` (see
/// `protocol::MSG_BLOB`).
fn request(data: JsValue) -> Option<Request> {
    if let Some(blob) = data.dyn_ref::<Blob>() {
        return Some(Request {
            blob: blob.clone(),
            entry: 0,
            workers: 1,
            worker_js: None,
        });
    }
    let get = |k: &str| js_sys::Reflect::get(&data, &JsValue::from_str(k)).ok();
    let count = |k: &str| {
        get(k)
            .and_then(|e| e.as_f64())
            .filter(|e| *e >= 0.0 && e.fract() == 0.0)
    };
    Some(Request {
        blob: get(MSG_BLOB)?.dyn_into::<Blob>().ok()?,
        entry: count(MSG_ENTRY).unwrap_or(0.0) as usize,
        workers: count(MSG_WORKERS).unwrap_or(1.0).clamp(1.0, 64.0) as u32,
        worker_js: get(MSG_WORKER_JS).and_then(|j| j.as_string()),
    })
}

/// Writes into a JS byte array from the start.
struct JsBytesOut {
    out: js_sys::Uint8Array,
    at: u32,
}

impl std::io::Write for JsBytesOut {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = (self.out.length() - self.at).min(buf.len() as u32);
        if n == 0 && !buf.is_empty() {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        self.out
            .subarray(self.at, self.at + n)
            .copy_from(&buf[..n as usize]);
        self.at += n;
        Ok(n as usize)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Posts `msg` in its envelope (see `protocol`), transferring the bytes to the page.
fn post(scope: &DedicatedWorkerGlobalScope, msg: &ToUi) {
    // Straight into a JS buffer of the right size, a 64 KiB piece at a time (`wire::encode_sized`):
    // the whole message never sits in wasm memory, which never shrinks.
    let encoded = msg
        .encode_sized(|len| JsBytesOut {
            out: js_sys::Uint8Array::new_with_length(len as u32),
            at: 0,
        })
        .map(|w| w.out);
    let buffer = match encoded {
        Ok(out) => out.buffer(),
        Err(e) => {
            web_sys::console::error_1(&format!("worker: {e}").into());
            return;
        }
    };
    let envelope = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| {
        let _ = js_sys::Reflect::set(&envelope, &JsValue::from_str(k), v);
    };
    set(ENV_TYPE, &JsValue::from_str(msg.kind()));
    set(ENV_BYTES, &buffer);
    match msg {
        ToUi::Gcs { rows, .. } => set(ENV_ROWS, &JsValue::from_f64(rows.len() as f64)),
        ToUi::Done(a) => {
            set(
                ENV_ERROR,
                &a.error.as_deref().map_or(JsValue::NULL, JsValue::from_str),
            );
            set(ENV_DECODE_MS, &JsValue::from_f64(a.decode_ms));
            set(ENV_WORKERS, &JsValue::from_f64(a.workers as f64));
            set(ENV_PART_BYTES, &JsValue::from_f64(a.part_bytes));
        }
        _ => {}
    }
    let transfer = js_sys::Array::of1(&buffer);
    if let Err(e) = scope.post_message_with_transfer(&envelope, &transfer) {
        web_sys::console::error_1(&format!("worker: cannot post: {}", js_err(e)).into());
    }
}

/// The decoder alone, every event delivered and counted (the benchmark's "wasm decode"); replies
/// with `Done` whose `events` and `decode_ms` say how it went.
async fn decode_only_blob(scope: &DedicatedWorkerGlobalScope, blob: &Blob) -> Result<(), String> {
    let started = js_sys::Date::now();
    let mut reader = TraceReader::new();
    let (mut events, mut payload) = (0u64, 0u64);
    let mut source = ChunkSource::new(blob)?;
    let mut count = |e: &Event<'_>| {
        events += 1;
        payload += e.payload.len() as u64;
    };
    let error = loop {
        match source.pump(&mut reader, &mut count).await? {
            Pumped::Chunk => {}
            Pumped::End => break None,
            Pumped::Failed(e) => break Some(e),
        }
    };
    let mut analysis = super::summary::summarize(&reader, "trace", blob.size());
    analysis.events = events as f64;
    analysis.decode_ms = js_sys::Date::now() - started;
    analysis.error = error;
    // The same work as the native benchmark's decode (which sums payload lengths).
    std::hint::black_box(payload);
    post(scope, &ToUi::Done(Box::new(analysis)));
    Ok(())
}

async fn decode_blob(scope: &DedicatedWorkerGlobalScope, request: Request) -> Result<(), String> {
    let Request {
        blob,
        entry,
        workers,
        worker_js,
    } = request;
    let blob = &blob;
    let started = js_sys::Date::now();
    let name = blob
        .dyn_ref::<File>()
        .map(|f| f.name())
        .unwrap_or_else(|| "trace".into());
    let total = blob.size();
    // Only what the GC model and insights read is delivered; the rest is counted by the reader.
    let mut reader = TraceReader::with_entry(entry).with_filter(gcscope_core::gc::interest);
    let mut model = ModelBuilder::new(&TraceInfo::default());
    // Bounded: allocation ticks folded into time bins, none kept one by one (millions in 2 GB).
    let mut insights = gcscope_core::gc::insights::InsightsBuilder::bounded();
    let mut info_set = false;
    // Settled rows not sent yet: the model hands them out (`drain_completed`) and forgets them,
    // so the worker never holds every row of a big trace.
    let mut unsent: Vec<gcscope_core::gc::Gc> = Vec::new();
    let mut sent = 0usize;
    let mut last_progress = 0.0;
    let mut last_rows = 0.0;
    // A .zip's other traces are read by this worker alone (their entries are not split).
    let workers = if entry == 0 { workers } else { 1 };
    let mut source = Source::open(blob, workers, worker_js, Some(gcscope_core::gc::interest))?;
    let error = loop {
        source.note_workers();
        // Each event's payload is decoded once for the model and the insights.
        let mut feed = |ev: &Event<'_>| gcscope_core::gc::feed(&mut model, &mut insights, ev);
        match source.pump(&mut reader, &mut feed).await? {
            Pumped::Chunk => {}
            Pumped::End => break None,
            Pumped::Failed(e) => break Some(e),
        }
        if !info_set {
            if let Some(info) = reader.info() {
                model.set_info(info);
                info_set = true;
            }
        }
        unsent.extend(model.drain_completed());
        let now = js_sys::Date::now();
        // The first rows go out at once; later ones in batches, at most every ROWS_EVERY_MS.
        if !unsent.is_empty()
            && (sent == 0 || unsent.len() >= ROWS_PER_BATCH || now - last_rows >= ROWS_EVERY_MS)
        {
            last_rows = now;
            sent += unsent.len();
            post(scope, &ToUi::gcs(std::mem::take(&mut unsent)));
        }
        if now - last_progress >= PROGRESS_EVERY_MS {
            last_progress = now;
            let p = Progress {
                bytes: source.offset(),
                total,
                events: reader.stats().events as f64,
                elapsed_ms: now - started,
                gcs: sent as f64,
                workers: source.workers(),
                one_worker: source.one_worker(),
            };
            post(scope, &ToUi::Progress(p));
        }
    };
    if let Some(info) = reader.info() {
        model.set_info(info);
    }
    let mut analysis = super::summary::summarize(&reader, &name, total);
    // The model's rows are the ones not handed out yet; its summaries cover every GC.
    let mut finished = model.finish(Some(reader.stats()));
    unsent.append(&mut finished.gcs);
    if !unsent.is_empty() {
        post(scope, &ToUi::gcs(unsent));
    }
    // The page finishes the insights from these records and its rows, when a view needs them.
    analysis.insight_inputs = Some(crate::protocol::insights::inputs(insights.into_inputs()));
    analysis.model = Some(finished);
    analysis.decode_ms = js_sys::Date::now() - started;
    analysis.error = error;
    analysis.trace_entries = reader
        .trace_entries()
        .map(<[_]>::to_vec)
        .unwrap_or_default();
    analysis.entry = entry;
    (analysis.workers, analysis.part_bytes) = source.used();
    post(scope, &ToUi::Done(Box::new(analysis)));
    Ok(())
}
