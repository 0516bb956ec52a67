//! The live source: a growing trace read from an HTTP stream (`gcscope serve`'s `stream`, chunked
//! bytes as the session writes them) instead of a Blob. Each chunk goes into the streaming decoder
//! as it comes; when none has come for [`PAUSE_MS`] the runtime is between its flushes (it writes
//! its buffers about every 100 ms, each flush whole), so the reader delivers what it holds
//! (`TraceReader::release`) rather than waiting for the next block or an end tag. Every GC is
//! posted once, as it closes (`ModelBuilder::closed_gcs`, as `gcscope watch`); the rows that settled
//! are then let go (`drain_completed`), so memory stays flat. At most every [`INTERIM_MS`], when GCs
//! closed since the last, the analysis so far goes out too (`ToUi::Interim`), from a copy of the
//! process's builders (`ProcessRouter::snapshot`): its summaries count a GC still in progress
//! with what is known of it so far, as a trace that ends there would. Besides the protocol's
//! messages the page gets a plain `{ live_open, live_bytes }` object after each step: the GCs in
//! progress and the bytes read. When the stream ends, the analysis follows as for a file.
//!
//! The fetch, the reader and the timer are reached through `js_sys::Reflect`: the worker's global
//! scope is all there is, and no further web-sys features are needed for three calls.

use std::collections::BTreeSet;

use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::gc::{ModelBuilder, ProcessRouter};
use gcscope_core::reader::TraceReader;
use gcscope_core::Consumer;
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::DedicatedWorkerGlobalScope;

use gcscope_core::gc::insights::InsightsBuilder;
use gcscope_core::gc::GcModel;

use crate::protocol::{Analysis, ToUi, LIVE_BYTES, LIVE_OPEN, MSG_URL};

/// Posts the last rows and the analysis, as for a file: scope, the trace's facts, the process,
/// its model and insights, when reading started.
pub(super) type Show = fn(
    &DedicatedWorkerGlobalScope,
    &Analysis,
    Option<u32>,
    GcModel,
    InsightsBuilder,
    f64,
) -> Result<(), String>;

/// Makes the analysis of a process as `Done` carries it: the trace's facts, the pid, its model and
/// insights, when reading started.
pub(super) type MakeAnalysis = fn(&Analysis, u32, GcModel, InsightsBuilder, f64) -> Analysis;

/// How the messages go out: the decoding worker's own functions, handed in by its loop (which
/// dispatches to this module), so that this module does not import it back.
#[derive(Clone, Copy)]
pub(super) struct Posting {
    pub post: fn(&DedicatedWorkerGlobalScope, &ToUi),
    pub show: Show,
    pub analysis: MakeAnalysis,
}

/// The analysis so far goes out at most this often: each costs a copy of the builders and the
/// page's findings over every row.
const INTERIM_MS: f64 = 2000.0;

/// No chunk for this long is a pause between the runtime's flushes.
const PAUSE_MS: i32 = 30;

/// `{ mode: "live", url }`: reads `url` until it ends.
pub(super) fn serve(scope: &DedicatedWorkerGlobalScope, data: &JsValue, out: Posting) {
    let scope = scope.clone();
    let url = Reflect::get(data, &MSG_URL.into())
        .ok()
        .and_then(|u| u.as_string())
        .unwrap_or_default();
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(message) = run(&scope, &url, out).await {
            let analysis = Analysis {
                error: Some(message),
                ..Default::default()
            };
            (out.post)(&scope, &ToUi::Done(Box::new(analysis)));
        }
    });
}

fn js_err(what: &str, e: JsValue) -> String {
    let m = e
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    format!("{what}: {m}")
}

fn call0(obj: &JsValue, name: &str) -> Result<JsValue, JsValue> {
    Reflect::get(obj, &name.into())?
        .dyn_into::<Function>()?
        .call0(obj)
}

/// A promise that resolves to `undefined` after `ms`.
fn after(scope: &DedicatedWorkerGlobalScope, ms: i32) -> Promise {
    let scope = scope.clone();
    Promise::new(&mut |resolve, _| {
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    })
}

async fn run(scope: &DedicatedWorkerGlobalScope, url: &str, out: Posting) -> Result<(), String> {
    let started = js_sys::Date::now();
    let fetch = Reflect::get(scope, &"fetch".into())
        .and_then(|f| f.dyn_into::<Function>())
        .map_err(|e| js_err("no fetch", e))?;
    let resp = fetch
        .call1(scope, &url.into())
        .map_err(|e| js_err("fetch", e))?;
    let resp = JsFuture::from(Promise::from(resp))
        .await
        .map_err(|e| js_err(&format!("could not fetch {url}"), e))?;
    if Reflect::get(&resp, &"ok".into())
        .ok()
        .and_then(|v| v.as_bool())
        != Some(true)
    {
        let status = Reflect::get(&resp, &"status".into())
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        return Err(format!("could not fetch {url}: HTTP {status}"));
    }
    let body = Reflect::get(&resp, &"body".into()).map_err(|e| js_err("no body", e))?;
    let reader = call0(&body, "getReader").map_err(|e| js_err("the body's reader", e))?;

    let mut trace = TraceReader::new().with_consumer(Consumer::ModelAndInsights);
    let mut router = ProcessRouter::bounded();
    let mut pid: Option<u32> = None;
    let mut shown: BTreeSet<u32> = BTreeSet::new();
    let mut bytes = 0f64;
    let mut error: Option<String> = None;
    let mut buf: Vec<u8> = Vec::new();
    let mut read = Promise::from(call0(&reader, "read").map_err(|e| js_err("read", e))?);
    // When the last analysis so far went out, and the GCs shown then.
    let mut interim_at = started;
    let mut interim_gcs = 0usize;
    let mut shown_gcs = 0usize;
    loop {
        let race = Promise::race(&js_sys::Array::of2(&read, &after(scope, PAUSE_MS)));
        let got = JsFuture::from(race)
            .await
            .map_err(|e| js_err("reading the stream", e))?;
        let mut feed = |info: &TraceInfo, e: &Event<'_>| {
            pid.get_or_insert(e.process_id);
            router.on_event(info, e);
        };
        let ended = if got.is_undefined() {
            trace.release_with_info(&mut feed);
            false
        } else if Reflect::get(&got, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true)
        {
            true
        } else {
            let chunk: js_sys::Uint8Array = Reflect::get(&got, &"value".into())
                .map_err(|e| js_err("a chunk", e))?
                .unchecked_into();
            buf.resize(chunk.length() as usize, 0);
            chunk.copy_to(&mut buf);
            bytes += buf.len() as f64;
            read = Promise::from(call0(&reader, "read").map_err(|e| js_err("read", e))?);
            if let Err(e) = trace.push_with_info(&buf, &mut feed) {
                error = Some(e.to_string());
                true
            } else {
                false
            }
        };
        if ended {
            break;
        }
        let (open, new) = post_closed(scope, out, &mut router, pid, &mut shown);
        shown_gcs += new;
        let now = js_sys::Date::now();
        if shown_gcs > interim_gcs && now - interim_at >= INTERIM_MS {
            if let Some(p) = pid {
                post_interim(scope, out, &trace, &router, p, bytes, started);
            }
            interim_at = now;
            interim_gcs = shown_gcs;
        }
        let status = js_sys::Object::new();
        let _ = Reflect::set(&status, &LIVE_OPEN.into(), &(open as f64).into());
        let _ = Reflect::set(&status, &LIVE_BYTES.into(), &bytes.into());
        let _ = scope.post_message(&status);
    }
    if error.is_none() {
        let mut feed = |info: &TraceInfo, e: &Event<'_>| {
            pid.get_or_insert(e.process_id);
            router.on_event(info, e);
        };
        if let Err(e) = trace.finish_with_info(&mut feed) {
            error = Some(e.to_string());
        }
    }
    post_closed(scope, out, &mut router, pid, &mut shown);
    let stats = trace.stats().clone();
    let mut base = super::summary::summarize(&trace, "live.nettrace", bytes);
    base.error = error;
    let (mut model, insights) = pid
        .and_then(|p| router.finish_parts(p, Some(&stats)))
        .unwrap_or_else(|| {
            let info = trace.info().cloned().unwrap_or_default();
            let mut b = ModelBuilder::new(&info);
            b.set_info(&info);
            (b.finish(Some(&stats)), InsightsBuilder::bounded())
        });
    // The rows went out as they closed: the model's last ones only where they did not.
    model.gcs.retain(|g| !shown.contains(&g.number));
    (out.show)(scope, &base, pid, model, insights, started)
}

/// Posts the analysis of process `pid` so far, without rows (they went out as they closed).
fn post_interim(
    scope: &DedicatedWorkerGlobalScope,
    out: Posting,
    trace: &TraceReader,
    router: &ProcessRouter,
    pid: u32,
    bytes: f64,
    started: f64,
) {
    let Some((mut model, insights)) = router.snapshot(pid, Some(trace.stats())) else {
        return;
    };
    model.gcs.clear();
    let base = super::summary::summarize(trace, "live.nettrace", bytes);
    let a = (out.analysis)(&base, pid, model, insights, started);
    (out.post)(scope, &ToUi::Interim(Box::new(a)));
}

/// Posts the GCs of the process that closed since the last call, each once, and lets the settled
/// ones go; returns how many are in progress, and how many were posted.
fn post_closed(
    scope: &DedicatedWorkerGlobalScope,
    out: Posting,
    router: &mut ProcessRouter,
    pid: Option<u32>,
    shown: &mut BTreeSet<u32>,
) -> (usize, usize) {
    let Some(model) = pid.and_then(|p| router.model_mut(p)) else {
        return (0, 0);
    };
    let rows: Vec<_> = model
        .closed_gcs()
        .filter(|g| !shown.contains(&g.number))
        .cloned()
        .collect();
    let open = model.open_gcs().count();
    let posted = rows.len();
    if !rows.is_empty() {
        shown.extend(rows.iter().map(|g| g.number));
        (out.post)(scope, &ToUi::gcs(rows));
    }
    // Shown already: the builder forgets the settled rows (memory stays flat).
    if let Some(last) = model.drain_completed().last().map(|g| g.number) {
        *shown = shown.split_off(&last.saturating_sub(64));
    }
    (open, posted)
}
