//! Compare: the open trace (A, the baseline) and a second one (B) side by side: their facts, every
//! figure with B - A, % and whether B is better (core's `compare`, as `gcscope compare A B`), the
//! pause histograms, CDFs and MMU curves overlaid, and allocation rate and heap size over time.
//! Whole traces (the time range is A's alone); the pause budget is the Latency tab's.
//!
//! B is dropped here, chosen, pasted (Ctrl+V on this tab) or fetched by address; it decodes in a
//! worker of its own (`loader::other`). With addresses, the link keeps both
//! (`?trace=A&compare=B`).

use std::sync::Arc;

use gcscope_core::compare::{compare, Comparison};
use gcscope_core::latency::Options;
use leptos::prelude::*;
use web_sys::DragEvent;

use crate::format::{bucket_edge, thousands};
use crate::loader::other;
use crate::plot::Axis;
use crate::state::use_app;
use crate::tables::compare as tables;
use crate::widgets::chart::{BucketChart, LineChart, LogChart, Series};
use crate::widgets::table::{DataTable, Rows};
use crate::widgets::table_panel::TablePanel;

const A_COLOR: &str = "var(--accent)";
const B_COLOR: &str = "var(--gen1)";

#[component]
pub fn Compare() -> impl IntoView {
    let app = use_app();
    let comparison = Memo::new(move |_| {
        let b = app.other.get()?;
        let opts = Options {
            budget_ms: app.vs.with(|v| v.budget()),
            ..Options::default()
        };
        let a = app.digest(&opts)?;
        Some(Arc::new(compare(&a, &b.digest(&opts))))
    });
    view! {
        <section class="compare">
            {move || app.other_error.get().map(|e| view! { <div id="compare-error" class="error" role="alert">{e}</div> })}
            {move || app.other_loading.get().map(|(name, p)| {
                let pct = if p.total > 0.0 { 100.0 * p.bytes / p.total } else { 0.0 };
                view! {
                    <section class="loading" id="compare-loading" aria-live="polite">
                        <div class="loading-row">
                            <strong>"Reading " {name} " to compare with this trace"</strong>
                            <progress max="100" value=format!("{pct:.1}")></progress>
                            <button class="small" on:click=move |_| other::leave(app)>"Cancel"</button>
                        </div>
                        <p class="progress-text">{format!("{pct:.0}% · {} GCs so far", thousands(p.gcs))}</p>
                    </section>
                }
            })}
            {move || match comparison.get() {
                Some(c) => side_by_side(c).into_any(),
                None if app.other.with(|o| o.is_some()) => view! {
                    <p class="muted">"Reading… the comparison appears when this trace is read too."</p>
                }.into_any(),
                None => how_to().into_any(),
            }}
        </section>
    }
}

/// Where to put B: a drop zone, a file button, an address.
fn how_to() -> impl IntoView {
    let app = use_app();
    let url_text = RwSignal::new(String::new());
    let over = RwSignal::new(false);
    view! {
        <div id="compare-drop" class="compare-drop" class:dragging=move || over.get()
            on:dragover=move |ev: DragEvent| { ev.prevent_default(); over.set(true); }
            on:dragleave=move |_| over.set(false)
            on:drop=move |ev: DragEvent| {
                // The page's own drop (which replaces the open trace) sees it handled.
                ev.prevent_default();
                over.set(false);
                if let Some(f) = ev.data_transfer().and_then(|dt| dt.files()).and_then(|f| f.get(0)) {
                    other::open_file(app, f);
                }
            }
        >
            <h2>"Compare this trace (A) with another (B)"</h2>
            <p>"Drop the second trace here, "
                <label class="button" for="compare-input">"choose it…"</label>
                ", paste it (Ctrl+V on this tab), or give its address. Every figure of both traces is shown with B − A and whether B is better: \
                 for a config change (Server GC, DATAS, GCgen0size, a new runtime), A is before and B after."</p>
            <form id="compare-url-form" class="url-form"
                on:submit=move |ev: leptos::ev::SubmitEvent| {
                    ev.prevent_default();
                    let url = url_text.get_untracked().trim().to_string();
                    if !url.is_empty() {
                        other::open_url(app, url);
                    }
                }
            >
                <input id="compare-url" type="url" placeholder="https:// address of the trace to compare with"
                    aria-label="Address of the trace to compare with"
                    prop:value=move || url_text.get()
                    on:input=move |ev| url_text.set(event_target_value(&ev))
                />
                <button type="submit" class="small">"Compare"</button>
            </form>
        </div>
    }
}

/// A trace's name as the comparison shows it.
fn who(side: &str, name: &str) -> String {
    format!("{side}: {name}")
}

fn side_by_side(c: Arc<Comparison>) -> impl IntoView {
    let app = use_app();
    let labels: Vec<String> = c.histograms.iter().map(|h| bucket_edge(h.lo_ms)).collect();
    let hist = vec![
        (
            "A".to_string(),
            A_COLOR.to_string(),
            c.histograms.iter().map(|h| h.a as f64).collect(),
        ),
        (
            "B".to_string(),
            B_COLOR.to_string(),
            c.histograms.iter().map(|h| h.b as f64).collect(),
        ),
    ];
    let cdf: Vec<Series> = vec![
        (
            "A".into(),
            A_COLOR.into(),
            c.cdf_a.iter().map(|p| (p.pause_ms, p.pct)).collect(),
        ),
        (
            "B".into(),
            B_COLOR.into(),
            c.cdf_b.iter().map(|p| (p.pause_ms, p.pct)).collect(),
        ),
    ];
    let mmu: Vec<Series> = vec![
        (
            "A".into(),
            A_COLOR.into(),
            c.mmu_curves
                .iter()
                .filter_map(|p| p.a.map(|v| (p.window_ms, v)))
                .collect(),
        ),
        (
            "B".into(),
            B_COLOR.into(),
            c.mmu_curves
                .iter()
                .filter_map(|p| p.b.map(|v| (p.window_ms, v)))
                .collect(),
        ),
    ];
    // Bins from each trace's start, as long as the longer one; a point in the middle of each.
    let axis = Axis::new(0.0, c.bin_ms * c.over_time.len().max(1) as f64);
    let over = |f: fn(&gcscope_core::compare::TimeBin) -> Option<f64>| -> Vec<(f64, f64)> {
        c.over_time
            .iter()
            .filter_map(|b| f(b).map(|v| ((b.start_ms + b.end_ms) / 2.0, v)))
            .collect()
    };
    let alloc: Vec<Series> = vec![
        (
            "A".into(),
            A_COLOR.into(),
            over(|b| b.a_alloc_rate_bytes_per_s),
        ),
        (
            "B".into(),
            B_COLOR.into(),
            over(|b| b.b_alloc_rate_bytes_per_s),
        ),
    ];
    let heap: Vec<Series> = vec![
        (
            "A after GC".into(),
            A_COLOR.into(),
            over(|b| b.a_after_bytes),
        ),
        (
            "B after GC".into(),
            B_COLOR.into(),
            over(|b| b.b_after_bytes),
        ),
        (
            "A peak".into(),
            "var(--gen0)".into(),
            over(|b| b.a_peak_bytes.map(|v| v as f64)),
        ),
        (
            "B peak".into(),
            "var(--gen2)".into(),
            over(|b| b.b_peak_bytes.map(|v| v as f64)),
        ),
    ];
    let verdicts = |word: &str| {
        c.figures
            .iter()
            .filter(|f| tables::verdict_word(f.verdict) == word)
            .count()
    };
    let summary = format!(
        "B is better on {}, worse on {}, the same on {} of {} figures (within 1% is the same; allocation and duration are the workload's, better neither way).",
        verdicts("better"), verdicts("worse"), verdicts("same"), c.figures.len()
    );
    view! {
        <div class="compare-head">
            <p id="compare-names">
                <span class="sw" style=format!("background:{A_COLOR}")></span><strong id="compare-a">{who("A", &c.a)}</strong>
                <span class="sw" style=format!("background:{B_COLOR}")></span><strong id="compare-b">{who("B", &c.b)}</strong>
            </p>
            <button id="leave-compare" title="Stop comparing: forget B and show A alone" on:click=move |_| other::leave(app)>"Stop comparing"</button>
        </div>
        <p class="muted">"Whole traces (the time range applies to A's own views). B − A for every figure, % of A, and which way is better; pause budget "
            {move || crate::format::ms(app.vs.with(|v| v.budget()))} " (set on the Latency tab)."</p>
        <p id="compare-summary">{summary}</p>
        <div class="latency-grid">
            <div>
                <h2>"Facts"</h2>
                <DataTable id="compare-facts" rows=Signal::stored(Rows::all(tables::facts(&c))) />
            </div>
            <div>
                <h2>"Pause histograms " <span class="muted small-text">"(the same buckets for both)"</span></h2>
                <BucketChart labels=labels series=hist unit="count" id="compare-histogram" />
            </div>
        </div>
        <TablePanel table=tables::figures(&c) id="compare-figures" />
        <h2>"Pause CDFs"</h2>
        <LogChart series=cdf x_unit="ms" y_unit="%" y_max=100.0 id="compare-cdf" />
        <h2>"Minimum mutator utilization"</h2>
        <LogChart series=mmu x_unit="ms" y_unit="%" y_max=100.0 id="compare-mmu" />
        <h2>{format!("Allocation rate over time ({} bins from each trace's start)", c.over_time.len())}</h2>
        <LineChart series=alloc unit="bytes/s" id="compare-alloc" axis=axis />
        <h2>"Heap size over time " <span class="muted small-text">"(mean after GC and largest peak per bin)"</span></h2>
        <LineChart series=heap unit="bytes" id="compare-heap" axis=axis />
    }
}
