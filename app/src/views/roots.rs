//! Mark roots (bytes marked per root kind, per GC and in total) and compaction (bytes moved and
//! surviving per GC).

use gcscope_core::gc::insights::root_values;
use leptos::prelude::*;

use crate::state::use_app;
use crate::tables::roots as tables;
use crate::widgets::chart::{LineChart, Series};
use crate::widgets::facts::{fact, range_note, with_insights, Empty, Facts};
use crate::widgets::table_panel::TablePanel;

#[component]
pub fn Roots() -> impl IntoView {
    let app = use_app();
    with_insights("Roots and compaction", move |ti| {
        let ins = &ti.insights;
        let f = app.range();
        let st = app.starts();
        let roots = if ins.roots.has_events {
            let by_kind = tables::roots_by_kind(ins, &f, &st);
            let per_gc = tables::roots_per_gc(ins, &f, &st);
            let total: f64 = per_gc
                .rows
                .iter()
                .map(|r| match r[3] {
                    crate::tables::Cell::Num(Some(v)) => v,
                    _ => 0.0,
                })
                .sum();
            let mut order: Vec<usize> = (0..10).collect();
            let sums: Vec<u64> = (0..10)
                .map(|k| {
                    ins.roots
                        .per_gc
                        .iter()
                        .map(|g| root_values(&g.marked)[k])
                        .sum()
                })
                .collect();
            order.sort_by(|&x, &y| sums[y].cmp(&sums[x]));
            let colors = ["var(--gen0)", "var(--gen1)", "var(--gen2)", "var(--loh)"];
            let series: Vec<Series> = order
                .iter()
                .take(4)
                .filter(|&&k| sums[k] > 0)
                .zip(colors)
                .map(|(&k, c)| {
                    (
                        gcscope_core::gc::insights::ROOT_KINDS[k].to_string(),
                        c.to_string(),
                        ins.roots
                            .per_gc
                            .iter()
                            .map(|g| (g.start_ms, root_values(&g.marked)[k] as f64))
                            .collect(),
                    )
                })
                .collect();
            view! {
                <Facts id="roots-facts" facts=vec![
                    fact("roots-total", "roots.total_bytes", "bytes", total),
                    fact("roots-events", "roots.event_count", "count", ins.roots.event_count as f64),
                ] />
                {range_note("GCs whose pause started in it")}
                <TablePanel table=by_kind id="roots-by-kind" />
                <h2>"Bytes marked per GC, largest root kinds"</h2>
                <LineChart series=series unit="bytes" id="roots-chart" />
                <TablePanel table=per_gc id="roots-per-gc" />
            }.into_any()
        } else {
            view! { <Empty id="roots-empty" text="This trace has no GCMarkWithType events, so bytes marked per root kind are unknown: \
                they come with the GC keyword at Informational level from .NET Core 2.2 on (Microsoft-Windows-DotNETRuntime:0x1:4).".to_string() /> }.into_any()
        };
        let c = &ins.compaction;
        let compaction = if c.has_events {
            let per = |name: &str,
                       color: &str,
                       get: fn(&gcscope_core::gc::insights::GcCompaction) -> u64|
             -> Option<Series> {
                let pts: Vec<(f64, f64)> = c
                    .per_gc
                    .iter()
                    .filter_map(|g| st.get(&g.gc_number).map(|&t| (t, get(g) as f64)))
                    .collect();
                pts.iter()
                    .any(|p| p.1 > 0.0)
                    .then(|| (name.to_string(), color.to_string(), pts))
            };
            let series: Vec<Series> = [
                per("moved", "var(--gen1)", |g| g.moved_bytes),
                per("relocated (copied)", "var(--loh)", |g| g.relocated_bytes),
                per("surviving in place", "var(--gen2)", |g| g.surviving_bytes),
            ]
            .into_iter()
            .flatten()
            .collect();
            view! {
                <Facts id="compaction-facts" facts=vec![
                    fact("compaction-moved-events", "compaction.moved_events", "count", c.moved_events as f64),
                    fact("compaction-surviving-events", "compaction.surviving_events", "count", c.surviving_events as f64),
                    fact("compaction-moved", "compaction.moved_bytes", "bytes", c.moved_bytes as f64),
                    fact("compaction-relocated", "compaction.relocated_bytes", "bytes", c.relocated_bytes as f64),
                    fact("compaction-surviving", "compaction.surviving_bytes", "bytes", c.surviving_bytes as f64),
                    fact("compaction-outside", "compaction.unattributed_events", "count", c.unattributed_events as f64),
                ] />
                <h2>"Bytes moved, relocated and surviving per GC"</h2>
                <LineChart series=series unit="bytes" id="compaction-chart" />
                <TablePanel table=tables::compaction_per_gc(ins, &f, &st) id="compaction-per-gc" />
            }.into_any()
        } else {
            view! { <Empty id="compaction-empty" text="This trace has no GCBulkMovedObjectRanges or GCBulkSurvivingObjectRanges events, so bytes moved and surviving are unknown: \
                they need the GCHeapSurvivalAndMovement keyword (Microsoft-Windows-DotNETRuntime:0x400000:4; expensive, it reports every range).".to_string() /> }.into_any()
        };
        view! {
            <section class="insights roots">
                <p class="explain">"Mark roots: bytes the GC found live from each kind of root (stacks, handles, the finalization queue, older generations' references...). \
                    Compaction: bytes a compacting GC moved and the ranges that survived in place. Totals and tables follow the time range (GCs whose pause started in it); root kinds that marked nothing are left out."</p>
                <h2 class="section">"Mark roots"</h2>
                {roots}
                <h2 class="section">"Compaction"</h2>
                {compaction}
            </section>
        }.into_any()
    })
}
