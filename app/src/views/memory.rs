//! Finalization, memory pressure over time, and the segments/regions timeline.

use leptos::prelude::*;

use crate::state::use_app;
use crate::tables::memory as tables;
use crate::widgets::chart::{LineChart, Series};
use crate::widgets::facts::{fact, range_note, with_insights, Empty, Facts};
use crate::widgets::table_panel::TablePanel;

#[component]
pub fn Memory() -> impl IntoView {
    let app = use_app();
    with_insights("Finalization, memory pressure and segments", move |ti| {
        let ins = &ti.insights;
        let f = app.range();
        let st = app.starts();
        let end = app
            .model
            .with(|m| m.as_ref().map(|m| m.process.trace_duration_ms));

        let fin = &ins.finalization;
        let finalization = if fin.has_events {
            view! {
                <Facts id="finalization-facts" facts=vec![
                    fact("finalizers-run", "finalization.finalizers_run", "count", fin.finalizers_run as f64),
                    fact("finalize-object-events", "finalization.finalize_object_events", "count", fin.finalize_object_events as f64),
                ] />
                {range_note("GCs whose pause started in it; finalizer runs that ended in it")}
                <div class="side-by-side">
                <TablePanel table=tables::finalization_per_gc(ins, &f, &st) id="finalization-per-gc" />
                <TablePanel table=tables::finalizer_runs(ins, &f) id="finalizer-runs" />
                {if fin.by_type.is_empty() {
                    view! { <p class="muted" id="finalized-types-none">"No FinalizeObject events, so finalized objects by type are unknown: they need the GC keyword at Verbose level (0x1:5)."</p> }.into_any()
                } else {
                    view! { <TablePanel table=tables::finalized_types(ins) id="finalized-types" /> }.into_any()
                }}
                </div>
            }.into_any()
        } else {
            view! { <Empty id="finalization-empty" text="This trace has no finalization events (GCFinalizersEnd, FinalizeObject, or GCHeapStats finalization figures): they need the GC keyword (Microsoft-Windows-DotNETRuntime:0x1:4).".to_string() /> }.into_any()
        };

        let p = &ins.memory_pressure;
        let pressure = if p.has_events {
            let net: Vec<(f64, f64)> = p
                .over_time
                .iter()
                .map(|x| (x.ms, x.net_bytes as f64))
                .collect();
            let net = tables::step_points(&net, end);
            view! {
                <Facts id="pressure-facts" facts=vec![
                    fact("pressure-adds", "memory_pressure.increase_count", "count", p.increase_count as f64),
                    fact("pressure-removes", "memory_pressure.decrease_count", "count", p.decrease_count as f64),
                    fact("pressure-added", "memory_pressure.increased_bytes", "bytes", p.increased_bytes as f64),
                    fact("pressure-removed", "memory_pressure.decreased_bytes", "bytes", p.decreased_bytes as f64),
                    fact("pressure-net", "memory_pressure.net_bytes", "bytes", p.net_bytes as f64),
                    fact("pressure-peak", "memory_pressure.peak_net_bytes", "bytes", p.peak_net_bytes as f64),
                ] />
                <h2>"Net memory pressure over time (added - removed since the trace start)"</h2>
                <LineChart series=vec![("net pressure".into(), "var(--accent)".into(), net)] unit="bytes" id="pressure-chart" />
                {(ti.pressure_points_dropped > 0).then(|| view! { <p class="muted">{format!("The chart keeps the lowest and highest point of each pixel column ({} of the events' points are left out).", ti.pressure_points_dropped)}</p> })}
            }.into_any()
        } else {
            view! { <Empty id="pressure-empty" text="This trace has no IncreaseMemoryPressure / DecreaseMemoryPressure events: the program may not call GC.AddMemoryPressure, or the trace lacks the GC keyword at Verbose level (0x1:5).".to_string() /> }.into_any()
        };

        let sg = &ins.segments;
        let segments = if sg.has_events {
            let reserved = |name: &str,
                            color: &str,
                            get: fn(&gcscope_core::gc::insights::SegmentBytes) -> u64|
             -> Series {
                let pts: Vec<(f64, f64)> = sg
                    .reserved_over_time
                    .iter()
                    .map(|r| (r.ms, get(&r.bytes) as f64))
                    .collect();
                (
                    name.to_string(),
                    color.to_string(),
                    tables::step_points(&pts, end),
                )
            };
            let used = |name: &str,
                        color: &str,
                        get: fn(&gcscope_core::gc::insights::GenBytes) -> u64|
             -> Series {
                (
                    name.to_string(),
                    color.to_string(),
                    sg.range_snapshots
                        .iter()
                        .map(|r| (r.ms, get(&r.used_bytes) as f64))
                        .collect(),
                )
            };
            view! {
                <Facts id="segment-facts" facts=vec![
                    fact("segments-created", "segments.created", "count", sg.created as f64),
                    fact("segments-freed", "segments.freed", "count", sg.freed as f64),
                    fact("segments-range-events", "segments.generation_range_events", "count", sg.generation_range_events as f64),
                ] />
                {(!sg.reserved_over_time.is_empty()).then(|| view! {
                    <h2>"Reserved by segments created in the trace"</h2>
                    <LineChart series=vec![
                        reserved("total", "var(--accent)", |b| b.total),
                        reserved("SOH", "var(--gen0)", |b| b.soh),
                        reserved("LOH", "var(--loh)", |b| b.loh),
                        reserved("POH", "var(--poh)", |b| b.poh),
                    ] unit="bytes" id="reserved-chart" />
                })}
                {(!sg.range_snapshots.is_empty()).then(|| view! {
                    <h2>"Used bytes per generation (GCGenerationRange)"</h2>
                    <LineChart series=vec![
                        used("gen0", "var(--gen0)", |b| b.gen0),
                        used("gen1", "var(--gen1)", |b| b.gen1),
                        used("gen2", "var(--gen2)", |b| b.gen2),
                        used("LOH", "var(--loh)", |b| b.loh),
                        used("POH", "var(--poh)", |b| b.poh),
                    ] unit="bytes" id="ranges-chart" />
                })}
                <TablePanel table=tables::segments(ins, &f) id="segments" />
            }.into_any()
        } else {
            view! { <Empty id="segments-empty" text="This trace has no GCCreateSegment, GCFreeSegment or GCGenerationRange events: segments are reported with the GC keyword (0x1:4) when the runtime reserves them (most before the trace starts), ranges with the GCHeapSurvivalAndMovement keyword (0x400000).".to_string() /> }.into_any()
        };

        view! {
            <section class="insights memory">
                <h2 class="section">"Memory pressure"</h2>
                <p class="explain">"GC.AddMemoryPressure tells the GC about unmanaged memory held by managed objects; a high net pressure makes gen2 GCs come sooner."</p>
                {pressure}
                <h2 class="section">"Segments and regions"</h2>
                {segments}
                <h2 class="section">"Finalization"</h2>
                <p class="explain">"Objects with a finalizer survive the GC that finds them dead: they are queued, kept alive with everything they reference, and finalized later on the finalizer thread."</p>
                {finalization}
            </section>
        }.into_any()
    })
}
