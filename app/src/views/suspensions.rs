//! Suspensions: reasons and time to suspend per GC; suspensions that were not for a GC apart.

use leptos::prelude::*;

use crate::state::use_app;
use crate::tables::suspensions as tables;
use crate::widgets::chart::LineChart;
use crate::widgets::facts::{fact, range_note, with_insights, Empty, Facts};
use crate::widgets::table_panel::TablePanel;

#[component]
pub fn Suspensions() -> impl IntoView {
    let app = use_app();
    with_insights("Suspensions", move |ti| {
        let s = &ti.insights.suspensions;
        if !s.has_events {
            return view! {
                <section class="insights suspensions">
                    <Empty id="suspensions-empty" text="This trace has no GCSuspendEEBegin events: they need the GC keyword at Informational level (Microsoft-Windows-DotNETRuntime:0x1:4).".to_string() />
                </section>
            }.into_any();
        }
        let f = app.range();
        let st = app.starts();
        let suspend: Vec<(f64, f64)> = s
            .for_gc
            .iter()
            .filter_map(|x| x.suspend_ms.map(|v| (x.begin_ms, v)))
            .collect();
        let others = tables::not_for_gc(&s.not_for_gc, &f);
        let dropped = ti.not_for_gc_dropped;
        view! {
            <section class="insights suspensions">
                <p class="explain">"Before a blocking GC (and twice for a background GC) the runtime suspends every managed thread. \
                    Time to suspend is how long that took (SuspendEEBegin to SuspendEEEnd): threads running long loops without a safe point or in native code delay every GC. \
                    Suspensions for other reasons (debugger, tiered compilation, thread abort) stop the program too and are listed apart."</p>
                <Facts id="suspension-facts" facts=vec![
                    fact("suspensions-count", "suspensions.count", "count", s.count as f64),
                    fact("suspensions-for-gc", "suspensions.for_gc.reason", "count", s.for_gc.len() as f64).labelled("For GCs"),
                    fact("suspensions-not-for-gc", "suspensions.not_for_gc.reason", "count", (s.not_for_gc.len() as u64 + dropped) as f64).labelled("Not for GCs"),
                ] />
                {range_note("suspensions that began in it; GCs whose pause started in it")}
                <TablePanel table=tables::suspend_reasons(&ti.insights, &f) id="suspend-reasons" />
                <h2>"Time to suspend for each GC suspension"</h2>
                <LineChart series=vec![("time to suspend".into(), "var(--accent)".into(), suspend)] unit="ms" id="suspend-chart" />
                <div class="side-by-side">
                <TablePanel table=tables::suspend_per_gc(&ti.insights, &f, &st) id="suspend-per-gc" />
                {if s.not_for_gc.is_empty() {
                    view! { <p class="muted" id="suspend-not-for-gc-none">"Every suspension in this trace was for a GC."</p> }.into_any()
                } else {
                    view! {
                        <TablePanel table=others id="suspend-not-for-gc" />
                        {(dropped > 0).then(|| view! { <p class="muted">{format!("{dropped} more suspensions not for a GC are left out (the first {} are listed).", crate::protocol::insights::MAX_NOT_FOR_GC)}</p> })}
                    }.into_any()
                }}
                </div>
            </section>
        }.into_any()
    })
}
