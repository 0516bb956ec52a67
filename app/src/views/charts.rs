//! Charts: pause per GC, heap size by generation, allocation rate, pinned objects. A drag across
//! any chart selects the time range every view follows.

use gcscope_core::gc::Gc;
use leptos::prelude::*;

use crate::state::use_app;
use crate::widgets::chart::{LineChart, Series};
use crate::widgets::pause_chart::PauseChart;

#[component]
pub fn Charts() -> impl IntoView {
    let app = use_app();
    move || {
        let (heap, alloc, pinned) = app.gcs.with(|g| {
            let size = |f: fn(&Gc) -> Option<u64>| -> Vec<(f64, f64)> {
                let mut v: Vec<(f64, f64)> = g
                    .iter()
                    .filter_map(|x| f(x).map(|v| (x.end_ms.unwrap_or(x.start_ms), v as f64)))
                    .collect();
                // Background GCs end after later GCs: the line must run forward in time.
                v.sort_by(|a, b| a.0.total_cmp(&b.0));
                v
            };
            let heap: Vec<Series> = vec![
                (
                    "gen0".into(),
                    "var(--gen0)".into(),
                    size(|x| x.generations.gen0.size_after_bytes),
                ),
                (
                    "gen1".into(),
                    "var(--gen1)".into(),
                    size(|x| x.generations.gen1.size_after_bytes),
                ),
                (
                    "gen2".into(),
                    "var(--gen2)".into(),
                    size(|x| x.generations.gen2.size_after_bytes),
                ),
                (
                    "LOH".into(),
                    "var(--loh)".into(),
                    size(|x| x.generations.loh.size_after_bytes),
                ),
                (
                    "POH".into(),
                    "var(--poh)".into(),
                    size(|x| x.generations.poh.size_after_bytes),
                ),
            ];
            let alloc: Vec<(f64, f64)> = g
                .iter()
                .filter_map(|x| x.alloc_rate_bytes_per_s.map(|v| (x.start_ms, v)))
                .collect();
            let pinned: Vec<(f64, f64)> = g
                .iter()
                .filter_map(|x| x.pinned_object_count.map(|v| (x.start_ms, v as f64)))
                .collect();
            (heap, alloc, pinned)
        });
        view! {
            <section class="charts">
                <p class="muted">"Drag on any chart to select a time range; it filters every view. Whole trace on the x axis."</p>
                <h2>"Pause per GC"</h2>
                <PauseChart />
                <h2>"Heap size after each GC, by generation"</h2>
                <LineChart series=heap unit="bytes" id="heap-chart" />
                <h2>"Allocation rate before each GC"</h2>
                <LineChart series=vec![("alloc rate".into(), "var(--accent)".into(), alloc)] unit="bytes/s" id="alloc-chart" />
                <h2>"Pinned objects per GC (GCHeapStats)"</h2>
                <LineChart series=vec![("pinned objects".into(), "var(--gen2)".into(), pinned)] unit="count" id="pinned-chart" />
            </section>
        }
    }
}
