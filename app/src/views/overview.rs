//! Overview: the findings (what is wrong, ranked), the trace's facts, % of time paused (whole trace or the time range, with PerfView's
//! figure over the GC span beside it), the worst pauses, pause per GC, the pause percentiles per
//! kind of GC and the rollup by generation.

use std::sync::Arc;

use gcscope_core::gc::{Gc, GcModel};
use gcscope_core::latency::{self, Intervals};
use leptos::prelude::*;

use crate::format::{bytes, column_ms, ms, thousands};
use crate::protocol::processes::EtlFacts;
use crate::protocol::Analysis;
use crate::state::use_app;
use crate::tables::latency as latency_tables;
use crate::tables::model;
use crate::widgets::export::ExportButtons;
use crate::widgets::findings_panel::FindingsPanel;
use crate::widgets::pause_chart::PauseChart;
use crate::widgets::table::{DataTable, Rows};

/// What was dropped or lost, when anything was: the figures it may skew carry a warning. An ETL
/// file says what its session lost (events and whole buffers); EventPipe, what the runtime dropped.
fn dropped_note(m: &GcModel, etl: Option<&EtlFacts>) -> Option<String> {
    if let Some(e) = etl {
        return e.lost_note();
    }
    m.process.dropped_events.filter(|d| *d > 0).map(|d| {
        format!(
            "{} events were dropped by the runtime: GC counts, pauses and sizes may be incomplete",
            thousands(d as f64)
        )
    })
}

/// On how many workers the file was decoded, when more than one was allowed (see `worker::parts`):
/// how much of it the part workers decoded, or why it was read on one.
fn decoded_on(a: &Analysis) -> Option<(String, String, &'static str)> {
    const HELP: &str = "Workers (browser threads) that decoded the file: part workers decode \
                        blocks of it side by side, one merges their events in time order and \
                        builds the model. ?workers=N sets how many (1: one worker alone).";
    let v = match &a.one_worker {
        Some(why) => format!("1 worker: {why}"),
        None if a.workers > 1 && a.part_bytes > 0.0 => format!(
            "{} workers ({} decoded in parallel)",
            a.workers,
            bytes(a.part_bytes)
        ),
        None => return None,
    };
    Some(("Decoded on".into(), v, HELP))
}

/// Events the decoder delivered out of time order (see `Process::out_of_order_events`).
fn out_of_order_note(m: &GcModel) -> Option<String> {
    let n = m.process.out_of_order_events;
    (n > 0).then(|| {
        format!(
            "⚠ {} events may be out of order: the trace holds more events than the decoder keeps \
             in order at once (no sequence points, or ETW buffers written late), so some came \
             after later ones. Pauses and other figures that pair events in time may be off \
             around them.",
            thousands(n as f64)
        )
    })
}

#[component]
pub fn Overview() -> impl IntoView {
    let app = use_app();
    view! {
        <section class="overview">
            {move || {
                let Some(m) = app.model.get() else {
                    let wait = if crate::loader::live::active() {
                        "Waiting for the session's first GCs… the overview appears within seconds of the first, and grows with the session."
                    } else {
                        "Reading… the overview appears when the whole trace is read; the GC table fills as GCs are found."
                    };
                    return view! { <p class="muted">{wait}</p> }.into_any();
                };
                let a = app.analysis.get();
                if let Some(a) = a.as_ref().filter(|a| no_dotnet(a)) {
                    return view! { <TraceOnly a=a.clone() m=m.clone() /> }.into_any();
                }
                let (name, size) = a.as_ref().map(|a| (a.file_name.clone(), a.file_size)).unwrap_or_default();
                let etl = a.as_ref().and_then(|a| a.etl.clone());
                let mut facts = model::facts(&m, &name, size);
                facts.extend(etl.iter().flat_map(|e| e.facts()));
                facts.extend(a.as_deref().and_then(decoded_on));
                let dropped = dropped_note(&m, etl.as_ref());
                let warn = dropped.clone();
                let late = out_of_order_note(&m);
                let ranged = app.range().is_set();
                // % paused: the model's over the whole trace (total pause over the trace's length,
                // as core defines it), or core's latency figure over the selected range (pause
                // time inside it over its length). The percentiles follow the range too.
                let log = app.pauses.get();
                let range = app.latency_range();
                let stats = latency::percentiles(&log.0, range);
                let count = stats.first().map_or(0, |s| s.count);
                let all = m.rollup.first();
                let (paused, pct) = if ranged {
                    let inside = Intervals::new(&log.0.spans, range).total();
                    let pct = (range.len() > 0.0).then(|| (inside * 100.0 / range.len()).min(100.0));
                    (inside, pct)
                } else {
                    (all.map_or(0.0, |r| r.total_pause_ms), all.and_then(|r| r.pause_time_pct))
                };
                let span_pct = all.and_then(|r| r.gc_span_pause_pct);
                let stats_export = stats.clone();
                let span_ms = m.process.gc_span_ms;
                let rollup = model::rollup_table(&m);
                view! {
                    <FindingsPanel request_stacks=crate::loader::stacks::request_findings />
                    <div class="overview-grid">
                        <div>
                            <h2>"Trace"</h2>
                            <dl id="facts" class="facts">
                                {facts.into_iter().map(|(k, v, help)| {
                                    let id = format!("fact-{}", k.to_lowercase().replace([' ', '/'], "-"));
                                    let skewed = dropped.is_some() && matches!(k.as_str(), "GCs" | "Incomplete GCs" | "Events" | "GC events");
                                    view! {
                                        <dt title=help>{k}</dt>
                                        <dd id=id>{v}{skewed.then(|| view! { <span class="warn" title=dropped.clone().unwrap_or_default()>" ⚠ events dropped"</span> })}</dd>
                                    }
                                }).collect_view()}
                            </dl>
                            {late.map(|l| view! { <p id="out-of-order" class="warn">{l}</p> })}
                        </div>
                        <div>
                            <h2>"Time paused"</h2>
                            <div class="pause-pct-row">
                                <div class="big" id="pause-pct" title=if ranged {
                                    "Pause time inside the selected range / its length (the complete GCs' pauses, cut at its ends)"
                                } else {
                                    "Total pause / the process's time in the trace (its first to its last event); never over 100%"
                                }>
                                    {pct.map(|p| format!("{p:.2}%")).unwrap_or_else(|| "–".into())}
                                    {warn.map(|w| view! { <span class="warn" title=w>" ⚠"</span> })}
                                </div>
                                <div class="second" id="gc-span-pct" data-value=span_pct.map(|p| p.to_string())
                                    title="PerfView's \"% Time paused for Garbage Collection\": total pause over TraceEvent's ProcessDuration, which is the GC span (the first complete GC's pause start to the last GCHeapStats), not the process's time; it can exceed 100% (whole trace)">
                                    {format!("PerfView's, over the GC span ({}): {}", ms(span_ms), span_pct.map(|p| format!("{p:.2}%")).unwrap_or_else(|| "–".into()))}
                                </div>
                            </div>
                            <p class="muted">
                                {format!("{} paused over {} GCs{}", ms(paused), thousands(count as f64), if ranged { " in the selected range" } else { "" })}
                            </p>
                            <h2>"Worst pauses"</h2>
                            <WorstPauses />
                        </div>
                    </div>
                    <h2>"Pause per GC " <span class="muted small-text">"(hover for the GC, click to open it, drag to select a time range)"</span></h2>
                    <PauseChart />
                    <div class="table-head">
                        <h2>"Pause percentiles " <span class="muted small-text">"(nearest rank; complete GCs; the Latency tab has the histogram, budget and MMU)"</span></h2>
                        <ExportButtons table=Signal::derive(move || latency_tables::percentiles(&stats_export)) />
                        {ranged.then(|| view! { <span class="muted">"(in the selected range)"</span> })}
                    </div>
                    <DataTable id="overview-percentiles" rows=Signal::stored(Rows::all(latency_tables::percentiles(&stats))) />
                    <div class="table-head">
                        <h2>"Rollup by generation"</h2>
                        <ExportButtons table=Signal::derive(move || model::rollup_table(&m)) />
                        {ranged.then(|| view! { <span class="muted">"(whole trace)"</span> })}
                    </div>
                    <DataTable id="rollup" rows=Signal::stored(Rows::all(rollup)) />
                }.into_any()
            }}
        </section>
    }
}

/// A machine-wide trace without any .NET process: no process to describe (the notice above the
/// views says what the trace holds).
fn no_dotnet(a: &Analysis) -> bool {
    a.processes.as_ref().is_some_and(|p| {
        p.with_gcs.is_empty() && p.all.as_ref().is_none_or(|all| all.dotnet_count == 0)
    })
}

/// The trace's own facts, for a trace without a .NET process.
#[component]
fn TraceOnly(a: Arc<Analysis>, m: Arc<GcModel>) -> impl IntoView {
    let mut facts = vec![
        (
            "File".to_string(),
            format!("{} ({})", a.file_name, bytes(a.file_size)),
        ),
        ("Format".into(), a.format.clone()),
        ("Trace start".into(), m.process.trace_start_utc.clone()),
        ("Duration".into(), ms(a.duration_ms)),
        ("Events".into(), thousands(a.events)),
    ];
    facts.extend(a.etl.iter().flat_map(|e| e.facts()).map(|(k, v, _)| (k, v)));
    view! {
        <h2>"Trace"</h2>
        <dl id="facts" class="facts">
            {facts.into_iter().map(|(k, v)| {
                let id = format!("fact-{}", k.to_lowercase().replace([' ', '/'], "-"));
                view! { <dt>{k}</dt><dd id=id>{v}</dd> }
            }).collect_view()}
        </dl>
        <p id="no-process" class="muted">
            "No .NET process, so no GCs: the notice above says what the trace holds and how to collect GC events; the Events tab lists every provider and event in it."
        </p>
    }
}

/// The eight longest pauses in the time range; a click opens the GC.
#[component]
fn WorstPauses() -> impl IntoView {
    let app = use_app();
    move || {
        let keep = app.in_range();
        let worst: Vec<Gc> = app.gcs.with(|g| {
            let mut v: Vec<&Gc> = g
                .iter()
                .filter(|g| g.pause_ms.is_some() && keep(g))
                .collect();
            v.sort_by(|a, b| {
                b.pause_ms
                    .unwrap_or(0.0)
                    .total_cmp(&a.pause_ms.unwrap_or(0.0))
            });
            v.into_iter().take(8).cloned().collect()
        });
        view! {
            <ol id="worst-pauses" class="worst">
                {worst.into_iter().map(|g| {
                    let n = g.number;
                    let why = g.condemn.as_ref().map(|c| c.conditions.join(", ")).unwrap_or_default();
                    view! {
                        <li>
                            <button class="link worst-gc" data-gc=n.to_string() on:click=move |_| app.select(n)>
                                // A list to compare down: one unit for every entry.
                                <span class="num">{column_ms(g.pause_ms.unwrap_or(0.0))}</span>
                                {format!(" GC #{n} · gen{} {} · {}", g.gen, g.gc_type.name(), g.reason)}
                                {(!why.is_empty()).then(|| format!(" · {why}"))}
                            </button>
                        </li>
                    }
                }).collect_view()}
            </ol>
        }
    }
}
