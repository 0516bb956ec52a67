//! The worker's loop: it receives a `Blob` (a dropped `File` or a fetched sample), reads it a chunk
//! at a time ([`super::chunks`]), feeds the streaming decoder and a `ProcessRouter` (one GC model
//! and its insights per process, in one pass, as the CLI reads a trace), and posts progress, the
//! shown process's settled rows in batches and the final analysis (see `protocol`).
//!
//! An EventPipe trace is one process: its rows go to the page as they settle. A machine-wide (ETW)
//! trace holds every process of the machine: the one shown is the one the page asks for
//! (`?pid=`), else the one with the most GC pause, known for sure only at the end: meanwhile the
//! page gets the rows of the process leading so far, replaced (`ToUi::Reset`) when another takes
//! the lead. The other processes' rows and analyses are kept encoded ([`super::processes::Kept`],
//! within a budget), so the page switches process without reading the file again. A process that
//! was not kept is shown by reading the file again for it, its rows then streamed as they settle.

use std::cell::RefCell;
use std::collections::BTreeMap;

use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::gc::insights::InsightsBuilder;
use gcscope_core::gc::{Gc, GcModel, ModelBuilder, ProcessChoice, ProcessRouter};
use gcscope_core::reader::TraceReader;
use gcscope_core::Consumer;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, DedicatedWorkerGlobalScope, File, MessageEvent, MessagePort};

use super::chunks::{ChunkSource, Pumped};
use super::envelope::{post, post_encoded};
use super::parts::Source;
use super::processes::{Encoded, Kept, KEEP_BYTES};

use crate::protocol::processes::{Processes, LISTED};
use crate::protocol::{
    Analysis, Progress, ToUi, MODE_DECODE_ONLY, MODE_HEAP, MODE_LIVE, MODE_PART, MODE_STACKS,
    MSG_BLOB, MSG_ENTRY, MSG_KEEP_BYTES, MSG_MODE, MSG_PID, MSG_PORTS, MSG_WORKERS,
};

/// Minimum interval between progress messages.
const PROGRESS_EVERY_MS: f64 = 100.0;
/// Minimum interval between batches of settled GC rows after the first (which goes out at once):
/// every batch makes the page rebuild its tables, which competes with decoding for the CPU.
const ROWS_EVERY_MS: f64 = 1000.0;
/// ... or sooner once this many rows wait: a GC-dense trace settles many rows a second, and each
/// batch is held in the worker, in the message and again while the page decodes it, so the
/// batch's size bounds that memory.
const ROWS_PER_BATCH: usize = 2048;

thread_local! {
    /// The machine-wide trace read last, while it has processes to switch to: what was kept of
    /// them, and the file, to read again for a process that was not kept.
    static MACHINE: RefCell<Option<Machine>> = const { RefCell::new(None) };
}

struct Machine {
    blob: Blob,
    entry: usize,
    budget: usize,
    workers: Workers,
    kept: Kept,
}

/// How many workers may decode a file, this one included (1: this one alone), and the ports of the
/// part workers the page started for it (see [`super::parts`]).
#[derive(Clone, Default)]
struct Workers {
    count: u32,
    ports: Vec<MessagePort>,
}

pub fn run_worker() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    let onmessage = Closure::<dyn Fn(MessageEvent)>::new(move |msg: MessageEvent| {
        let reply = reply.clone();
        let data = msg.data();
        if js_sys::Reflect::get(&data, &JsValue::from_str(MSG_MODE))
            .ok()
            .and_then(|m| m.as_string())
            .is_some_and(|m| m == MODE_PART)
        {
            // This is a part worker of a decoding worker (see `parts`).
            super::part::serve(&reply, &data);
            return;
        }
        if js_sys::Reflect::get(&data, &JsValue::from_str(MSG_MODE))
            .ok()
            .and_then(|m| m.as_string())
            .is_some_and(|m| m == MODE_STACKS)
        {
            // This is the stacks worker (see `super::stacks`).
            wasm_bindgen_futures::spawn_local(async move {
                let answer = super::stacks::serve(&data).await.unwrap_or_else(|e| {
                    let tree = crate::protocol::stacks::StackTree {
                        error: Some(e),
                        ..Default::default()
                    };
                    ToUi::StackTree(Box::new(tree))
                });
                post(&reply, &answer);
            });
            return;
        }
        if js_sys::Reflect::get(&data, &JsValue::from_str(MSG_MODE))
            .ok()
            .and_then(|m| m.as_string())
            .is_some_and(|m| m == MODE_LIVE)
        {
            // A live session's stream (see `super::stream`), posted as a file's messages are.
            super::stream::serve(
                &reply,
                &data,
                super::stream::Posting {
                    post,
                    show: show_live,
                    analysis,
                },
            );
            return;
        }
        if js_sys::Reflect::get(&data, &JsValue::from_str(MSG_MODE))
            .ok()
            .and_then(|m| m.as_string())
            .is_some_and(|m| m == MODE_HEAP)
        {
            // This is the heap worker (see `super::heap`).
            wasm_bindgen_futures::spawn_local(async move {
                let early = |m: &ToUi| post(&reply, m);
                let answer = super::heap::serve(&data, &early).await;
                post(&reply, &answer);
            });
            return;
        }
        wasm_bindgen_futures::spawn_local(async move {
            let r = request(data);
            let result = match (r.blob, r.pid) {
                (Some(blob), _) if r.decode_only => decode_only_blob(&reply, &blob).await,
                (Some(blob), pid) => {
                    decode_blob(&reply, &blob, r.entry, pid, r.keep_bytes, r.workers).await
                }
                (None, Some(pid)) => show_process(&reply, pid).await,
                (None, None) => Err("the worker expects a Blob or File".to_string()),
            };
            if let Err(message) = result {
                let analysis = Analysis {
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

/// What the page asks for (see `protocol::MSG_BLOB`).
struct Request {
    blob: Option<Blob>,
    entry: usize,
    pid: Option<u32>,
    keep_bytes: usize,
    decode_only: bool,
    workers: Workers,
}

/// A bare `Blob` (entry 0, one worker), `{ blob, entry, pid?, keep_bytes?, workers?, ports? }`,
/// `{ blob, mode }` or `{ pid }`.
fn request(data: JsValue) -> Request {
    let get = |k: &str| js_sys::Reflect::get(&data, &JsValue::from_str(k)).ok();
    let whole = |k: &str| {
        get(k)
            .and_then(|v| v.as_f64())
            .filter(|v| *v >= 0.0 && v.fract() == 0.0)
    };
    let blob = match data.dyn_ref::<Blob>() {
        Some(b) => Some(b.clone()),
        None => get(MSG_BLOB).and_then(|b| b.dyn_into::<Blob>().ok()),
    };
    Request {
        blob,
        entry: whole(MSG_ENTRY).unwrap_or(0.0) as usize,
        pid: whole(MSG_PID)
            .filter(|p| *p <= u32::MAX as f64)
            .map(|p| p as u32),
        keep_bytes: whole(MSG_KEEP_BYTES).map_or(KEEP_BYTES, |k| k as usize),
        decode_only: get(MSG_MODE)
            .and_then(|m| m.as_string())
            .is_some_and(|m| m == MODE_DECODE_ONLY),
        workers: Workers {
            count: whole(MSG_WORKERS).unwrap_or(1.0).clamp(1.0, 64.0) as u32,
            ports: get(MSG_PORTS)
                .and_then(|p| p.dyn_into::<js_sys::Array>().ok())
                .map(|a| a.iter().filter_map(|p| p.dyn_into().ok()).collect())
                .unwrap_or_default(),
        },
    }
}

/// The decoder alone, every event delivered and counted (the benchmark's "wasm decode"); replies
/// with `Done` whose `events` and `decode_ms` say how it went.
async fn decode_only_blob(scope: &DedicatedWorkerGlobalScope, blob: &Blob) -> Result<(), String> {
    let started = js_sys::Date::now();
    let mut reader = TraceReader::new();
    let (mut events, mut payload) = (0u64, 0u64);
    let mut source = ChunkSource::new(blob)?;
    let mut count = |_: &TraceInfo, e: &Event<'_>| {
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

/// Shows process `pid` of the machine-wide trace read last: its kept messages again, or, when
/// they were not kept, what reading the file again for it gives.
async fn show_process(scope: &DedicatedWorkerGlobalScope, pid: u32) -> Result<(), String> {
    let shown = MACHINE.with(|m| {
        let m = m.borrow();
        let msgs = m.as_ref()?.kept.messages(pid)?;
        msgs.iter().for_each(|e| post_encoded(scope, e));
        Some(())
    });
    if shown.is_some() {
        return Ok(());
    }
    let Some(m) = MACHINE.with(|m| m.borrow_mut().take()) else {
        return Err("the trace is no longer open in the decoder: open the file again".into());
    };
    decode_blob(scope, &m.blob, m.entry, Some(pid), m.budget, m.workers).await
}

/// Reads the file and shows one process: `want` (`?pid=`), else the one with the most GC pause.
async fn decode_blob(
    scope: &DedicatedWorkerGlobalScope,
    blob: &Blob,
    entry: usize,
    mut want: Option<u32>,
    budget: usize,
    workers: Workers,
) -> Result<(), String> {
    loop {
        match read(scope, blob, entry, want, budget, workers.clone()).await? {
            Some(pid) => want = Some(pid),
            None => return Ok(()),
        }
    }
}

/// One read of the file. `Some(pid)`: the process to show was not kept while reading (over the
/// budget, before it was known to be the one), so the file must be read again for it.
async fn read(
    scope: &DedicatedWorkerGlobalScope,
    blob: &Blob,
    entry: usize,
    want: Option<u32>,
    budget: usize,
    workers: Workers,
) -> Result<Option<u32>, String> {
    let started = js_sys::Date::now();
    // A new read replaces what was kept of the previous one.
    MACHINE.with(|m| m.borrow_mut().take());
    let name = blob
        .dyn_ref::<File>()
        .map(|f| f.name())
        .unwrap_or_else(|| "trace".into());
    let total = blob.size();
    // Only what the GC model and insights read is delivered (and the kernel's process events,
    // which name the processes); the rest is counted by the reader.
    let mut reader = TraceReader::with_entry(entry).with_consumer(Consumer::ModelAndInsights);
    // Bounded insights: allocation ticks folded into time bins, none kept one by one.
    let mut router = ProcessRouter::bounded();
    let mut kept = Kept::new(budget);
    // The process whose rows go to the page as they settle: an EventPipe trace's one process,
    // the one the page asked for in a machine-wide trace, else the one leading in GC pause.
    let mut target: Option<u32> = None;
    let mut machine_wide = false;
    let mut first = true;
    // The shown process's settled rows not posted yet (the models hand their settled rows out,
    // `drain_completed`, and forget them, so no model holds every row of a big trace).
    let mut unsent: Vec<Gc> = Vec::new();
    let (mut sent, mut settled) = (0usize, 0usize);
    let (mut last_progress, mut last_rows) = (0.0, 0.0);
    // A .zip's other traces are read by this worker alone (their entries are not split).
    let count = if entry == 0 { workers.count } else { 1 };
    let mut source = Source::open(blob, count, workers.ports.clone(), reader.consumer())?;
    let error = loop {
        source.note_workers();
        let mut feed = |info: &TraceInfo, e: &Event<'_>| {
            if first {
                first = false;
                machine_wide = info.machine_wide();
                target = if machine_wide {
                    want
                } else {
                    Some(e.process_id)
                };
            }
            router.on_event(info, e);
        };
        let pumped = source.pump(&mut reader, &mut feed).await?;
        let (pauses, leader) = standing(&router, machine_wide);
        // Kept whatever the budget: the process asked for, or the one most likely to be shown
        // (the most GC pause so far), so that one read is enough for it.
        let likely = want.filter(|w| router.model_mut(*w).is_some()).or(leader);
        for (pid, model) in router.models_mut() {
            let rows = model.drain_completed();
            settled += rows.len();
            if Some(pid) == target {
                unsent.extend(rows);
            } else if machine_wide && !rows.is_empty() && !kept.dropped(pid) {
                kept.push(pid, Encoded::new(&ToUi::gcs(rows))?, likely, &pauses);
            }
        }
        // Read without `?pid=`, a machine-wide trace shows the process with the most GC pause so
        // far: the page gets its rows as they settle, and when another process takes the lead,
        // that one's instead (those kept so far, then the rest as they settle).
        if machine_wide && want.is_none() && leader != target {
            if let Some(lead) = leader.filter(|l| !kept.dropped(*l)) {
                if let Some(old) = target.filter(|_| !unsent.is_empty()) {
                    let rows = Encoded::new(&ToUi::gcs(std::mem::take(&mut unsent)))?;
                    kept.push(old, rows, Some(lead), &pauses);
                }
                if sent > 0 {
                    post(scope, &ToUi::Reset);
                }
                sent = 0;
                for e in kept.so_far(lead).unwrap_or_default() {
                    post_encoded(scope, e);
                    sent += e.facts.rows;
                }
                target = Some(lead);
            }
        }
        let now = js_sys::Date::now();
        // The first rows go out at once; later ones in batches, at most every ROWS_EVERY_MS.
        if !unsent.is_empty()
            && (sent == 0 || unsent.len() >= ROWS_PER_BATCH || now - last_rows >= ROWS_EVERY_MS)
        {
            last_rows = now;
            sent += unsent.len();
            let keep: Keep<'_> =
                machine_wide.then_some((&mut kept, target, &pauses as &dyn Fn(u32) -> f64));
            post_rows(scope, std::mem::take(&mut unsent), keep)?;
        }
        if now - last_progress >= PROGRESS_EVERY_MS {
            last_progress = now;
            let p = Progress {
                bytes: source.offset(),
                total,
                events: reader.stats().events as f64,
                elapsed_ms: now - started,
                gcs: settled as f64,
                workers: source.workers(),
                one_worker: source.one_worker(),
            };
            post(scope, &ToUi::Progress(p));
        }
        match pumped {
            Pumped::Chunk => {}
            Pumped::End => break None,
            Pumped::Failed(e) => break Some(e),
        }
    };
    let stats = reader.stats().clone();
    let mut base = super::summary::summarize(&reader, &name, total);
    base.error = error;
    base.trace_entries = reader
        .trace_entries()
        .map(<[_]>::to_vec)
        .unwrap_or_default();
    base.entry = entry;
    (base.workers, base.part_bytes, base.waited_ms) = source.used();
    base.one_worker = source.one_worker();
    let finish = |router: &mut ProcessRouter, pid: Option<u32>| {
        pid.and_then(|pid| router.finish_parts(pid, Some(&stats)))
            .unwrap_or_else(|| {
                // Nothing of a process was read (no events, or no .NET process): an empty model.
                let info = reader.info().cloned().unwrap_or_default();
                let mut b = ModelBuilder::new(&info);
                b.set_info(&info);
                (b.finish(Some(&stats)), InsightsBuilder::bounded())
            })
    };
    if !machine_wide {
        let (model, insights) = finish(&mut router, target);
        show(scope, &base, target, model, insights, unsent, None, started)?;
        return Ok(None);
    }

    let list = router.processes();
    let listed = |pid: u32| list.iter().any(|p| p.process_id == pid);
    // The one asked for, else the most GC pause, else (no GCs anywhere) the .NET process with the
    // most events: `gcscope`'s choice.
    let shown = want
        .filter(|p| listed(*p))
        .or_else(|| router.choose(&ProcessChoice::Auto).ok());
    base.processes = Some(Processes {
        with_gcs: list.clone(),
        default_pid: list.first().map(|p| p.process_id),
        all: list.is_empty().then(|| router.all_processes(LISTED)),
        asked_missing: want.filter(|p| !listed(*p)),
    });
    let (pauses, _) = standing(&router, true);
    if shown.is_some() && shown == target {
        // Its rows went out as they settled: the rest, and its analysis.
        let (model, insights) = finish(&mut router, shown);
        let keep: Keep<'_> = Some((&mut kept, shown, &pauses as &dyn Fn(u32) -> f64));
        show(scope, &base, shown, model, insights, unsent, keep, started)?;
    } else if shown.is_none() {
        let (model, insights) = finish(&mut router, None);
        show(
            scope,
            &base,
            None,
            model,
            insights,
            Vec::new(),
            None,
            started,
        )?;
    }
    // Every other process with GC events, kept for switching (while within the budget).
    for pid in list.iter().map(|p| p.process_id).chain(shown) {
        if Some(pid) == target || kept.dropped(pid) || kept.messages(pid).is_some() {
            continue;
        }
        let Some((mut model, insights)) = router.finish_parts(pid, Some(&stats)) else {
            continue;
        };
        let rows = std::mem::take(&mut model.gcs);
        if !rows.is_empty() {
            kept.push(pid, Encoded::new(&ToUi::gcs(rows))?, shown, &pauses);
        }
        let done = ToUi::Done(Box::new(analysis(&base, pid, model, insights, started)));
        kept.push(pid, Encoded::new(&done)?, shown, &pauses);
        kept.complete(pid);
    }
    if let Some(pid) = shown.filter(|p| Some(*p) != target) {
        // Shown from what was kept, unless it was let go: then read again for it alone. The
        // page's rows so far were another process's.
        if sent > 0 {
            post(scope, &ToUi::Reset);
        }
        match kept.messages(pid) {
            Some(msgs) => msgs.iter().for_each(|e| post_encoded(scope, e)),
            None => return Ok(Some(pid)),
        }
    }
    if list.len() > 1 {
        MACHINE.with(|m| {
            *m.borrow_mut() = Some(Machine {
                blob: blob.clone(),
                entry,
                budget,
                workers,
                kept,
            })
        });
    }
    Ok(None)
}

/// Each process's GC pause so far (which process to let go first when over the budget), and the
/// process with the most.
fn standing(router: &ProcessRouter, machine_wide: bool) -> (impl Fn(u32) -> f64, Option<u32>) {
    let list = if machine_wide {
        router.processes()
    } else {
        Vec::new()
    };
    let leader = list.first().map(|p| p.process_id);
    let by_pid: BTreeMap<u32, f64> = list
        .iter()
        .map(|p| (p.process_id, p.total_pause_ms))
        .collect();
    (move |pid| by_pid.get(&pid).copied().unwrap_or(0.0), leader)
}

/// Where a machine-wide trace keeps what it posts: the kept messages, the process shown (let go
/// last) and each process's pause.
type Keep<'a> = Option<(&'a mut Kept, Option<u32>, &'a dyn Fn(u32) -> f64)>;

/// Posts a batch of the shown process's rows, and keeps it for switching back to that process.
fn post_rows(
    scope: &DedicatedWorkerGlobalScope,
    rows: Vec<Gc>,
    keep: Keep<'_>,
) -> Result<(), String> {
    let msg = ToUi::gcs(rows);
    match keep {
        Some((kept, Some(pid), pauses)) => {
            let e = Encoded::new(&msg)?;
            post_encoded(scope, &e);
            kept.push(pid, e, Some(pid), pauses);
        }
        _ => post(scope, &msg),
    }
    Ok(())
}

/// Posts the shown process's last rows and its analysis (and keeps them, see [`post_rows`]).
#[allow(clippy::too_many_arguments)]
fn show(
    scope: &DedicatedWorkerGlobalScope,
    base: &Analysis,
    pid: Option<u32>,
    mut model: GcModel,
    insights: InsightsBuilder,
    mut unsent: Vec<Gc>,
    mut keep: Keep<'_>,
    started: f64,
) -> Result<(), String> {
    // The model's rows are the ones not handed out yet; its summaries cover every GC.
    unsent.append(&mut model.gcs);
    if !unsent.is_empty() {
        let again: Keep<'_> = keep.as_mut().map(|(k, p, f)| (&mut **k, *p, *f));
        post_rows(scope, unsent, again)?;
    }
    let pid = pid.unwrap_or(base.process_id);
    let done = ToUi::Done(Box::new(analysis(base, pid, model, insights, started)));
    match keep {
        Some((kept, Some(shown), pauses)) => {
            let e = Encoded::new(&done)?;
            post_encoded(scope, &e);
            kept.push(shown, e, Some(shown), pauses);
            kept.complete(shown);
        }
        _ => post(scope, &done),
    }
    Ok(())
}

/// [`show`] for a live stream (`super::stream`): its rows went out as they closed.
fn show_live(
    scope: &DedicatedWorkerGlobalScope,
    base: &Analysis,
    pid: Option<u32>,
    model: GcModel,
    insights: InsightsBuilder,
    started: f64,
) -> Result<(), String> {
    show(scope, base, pid, model, insights, Vec::new(), None, started)
}

/// The analysis of process `pid`: the trace's facts, its model (without rows: they went in
/// batches) and the records its insights are finished from.
fn analysis(
    base: &Analysis,
    pid: u32,
    model: GcModel,
    insights: InsightsBuilder,
    started: f64,
) -> Analysis {
    let mut a = base.clone();
    a.process_id = pid;
    a.pointer_size = model.process.pointer_size;
    // The page finishes the insights from these records and its rows, when a view needs them.
    a.insight_inputs = Some(crate::protocol::insights::inputs(insights.into_inputs()));
    a.model = Some(model);
    a.decode_ms = js_sys::Date::now() - started;
    a
}
