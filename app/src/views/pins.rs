//! Pinning and handles: pinned objects by type (whole trace or the time range), GC handles by
//! kind, where pinned handles were made (their SetGCHandle stacks), live handles over time,
//! handles alive at the end; the tables' sorts and filters are kept
//! in the address bar.

use leptos::prelude::*;

use crate::format::thousands;
use crate::state::use_app;
use crate::tables::pins;
use crate::widgets::chart::LineChart;
use crate::widgets::table_panel::TablePanel;
use crate::widgets::table_state::TableState;
use crate::widgets::top_stacks::TopStacks;
use gcscope_core::findings::stacks::Topic;

#[component]
pub fn Pins() -> impl IntoView {
    let app = use_app();
    move || {
        let Some(m) = app.model.get() else {
            return view! { <p class="muted">"Pinning and handles appear when the whole trace is read."</p> }.into_any();
        };
        let by_type = if app.range().is_set() {
            let keep = app.in_range();
            app.gcs
                .with(|g| pins::pins_from_rows(g.iter().filter(|g| keep(g))))
        } else {
            pins::pins_table(&m)
        };
        let h = &m.handles;
        let p = &m.pinning;
        let live: Vec<(f64, f64)> = h
            .live_over_time
            .iter()
            .map(|t| (t.ms, t.value as f64))
            .collect();
        view! {
            <section class="pins">
                <p class="muted" id="pin-summary">{if p.has_events {
                    format!("{} pinned-object reports in {} GCs · {} pinned-plug reports", thousands(p.pinned_object_events as f64), thousands(p.gcs_with_pins as f64), thousands(p.pinned_plug_events as f64))
                } else {
                    "No PinObjectAtGCTime events: capture with the GC keyword at Verbose level (Microsoft-Windows-DotNETRuntime:0x1:5).".to_string()
                }}</p>
                <TablePanel table=by_type id="pinned-types" state=TableState::in_url("pin") />
                <p class="muted" id="handle-summary">{if h.has_events {
                    format!("{} handles created, {} destroyed ({} created before the trace)", thousands(h.created as f64), thousands(h.destroyed as f64), thousands(h.destroyed_unmatched as f64))
                } else {
                    "No GC handle events: capture with the GCHandle keyword (Microsoft-Windows-DotNETRuntime:0x3:5).".to_string()
                }}</p>
                <TablePanel table=pins::kinds_table(&m) id="handle-kinds" state=TableState::in_url("kind") />
                {h.has_events.then(|| view! { <section id="pins-stacks"><TopStacks topic=Topic::PinnedHandles request=crate::loader::stacks::request_findings /></section> })}
                <h2>"Live handles over time"</h2>
                <LineChart series=vec![("live handles".into(), "var(--accent)".into(), live)] unit="count" id="live-chart" />
                <TablePanel table=pins::live_table(&m) id="handles-alive" state=TableState::in_url("live") />
            </section>
        }.into_any()
    }
}
