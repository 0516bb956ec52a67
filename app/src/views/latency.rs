//! Latency: pause percentiles per kind of GC, the pause histogram and CDF, a pause budget (its
//! GCs over it and worst windows), % paused per window over time and the minimum mutator
//! utilization (MMU) curve, all for the time range (the whole trace without one). The figures
//! are core's `latency::analyze` (as `gcscope latency`), run on the page over the rows' pauses;
//! the budget and the window are in the address bar (`?budget=5&window=100`).

use std::sync::Arc;

use gcscope_core::latency::{self, Latency, Options, StepTimes};
use leptos::prelude::*;

use crate::format::{bucket_edge, ms, thousands};
use crate::state::view_state::ViewState;
use crate::state::{now_ms, use_app};
use crate::tables::latency as tables;
use crate::widgets::chart::{BucketChart, LineChart, LogChart};
use crate::widgets::facts::{range_note, Empty};
use crate::widgets::table::{DataTable, Rows};
use crate::widgets::table_panel::TablePanel;

/// The figures of the range and how long they took (ms): the pause log from the rows, then
/// everything `latency::analyze` computes (percentiles, MMU, histogram, CDF, budget, windows),
/// step by step.
#[derive(Clone, PartialEq)]
struct Computed {
    latency: Arc<Latency>,
    log_ms: f64,
    steps: StepTimes,
    gcs: usize,
}

#[component]
pub fn Latency() -> impl IntoView {
    let app = use_app();
    let computed = Memo::new(move |_| {
        app.model.with(|m| m.is_some()).then(|| {
            let log = app.pauses.get();
            let range = app.latency_range();
            let opts = app.vs.with(|v| Options {
                budget_ms: v.budget(),
                window_ms: v.window_ms.unwrap_or(0.0),
                ..Options::default()
            });
            let (latency, steps) = latency::analyze_timed(&log.0, range, &opts, &now_ms);
            Computed {
                latency: Arc::new(latency),
                log_ms: log.1,
                steps,
                gcs: log.0.pauses.len(),
            }
        })
    });
    move || {
        let Some(c) = computed.get() else {
            return view! { <p class="muted">"Reading… the latency figures appear when the whole trace is read."</p> }.into_any();
        };
        let l = c.latency.clone();
        let s = c.steps;
        let all = l.pauses.first().map_or(0, |p| p.count);
        view! {
            <section class="latency">
                <p class="explain">"How long the program was stopped by GCs, and how often: pause percentiles by kind of GC (nearest rank: p99 is a pause that happened), \
                    a pause budget, and how much of each stretch of time the program ran. Hover a header for its definition; drag across a chart to narrow the time range."</p>
                {range_note("GCs whose pause started in it; pause time cut at its ends")}
                <p id="latency-summary">
                    {format!("{} to {}: paused {} ({}) in {} GCs. ",
                        ms(l.range.start_ms), ms(l.range.end_ms), ms(l.paused_ms),
                        l.paused_pct.map_or_else(|| "–".into(), |p| format!("{p:.2}%")), thousands(all as f64))}
                    <span class="muted" id="latency-timing" data-log-ms=format!("{:.1}", c.log_ms) data-gcs=c.gcs
                        data-percentiles-ms=format!("{:.1}", s.percentiles_ms) data-mmu-ms=format!("{:.1}", s.mmu_ms) data-rest-ms=format!("{:.1}", s.rest_ms)
                        title="Computed on this page by gcscope's core (the same code as gcscope latency), each time the range, budget or window changes">
                        {format!("Computed here in {:.0} ms: percentiles {:.0} ms, exact MMU {:.0} ms, the rest {:.0} ms (pauses of {} GCs gathered once in {:.0} ms).",
                            s.percentiles_ms + s.mmu_ms + s.rest_ms, s.percentiles_ms, s.mmu_ms, s.rest_ms, thousands(c.gcs as f64), c.log_ms)}
                    </span>
                </p>
                {if all == 0 {
                    view! { <Empty id="latency-empty" text="No complete GC paused in this time range: there is no pause to count. Widen the range (× beside it above the views) or open a trace with GCs.".to_string() /> }.into_any()
                } else {
                    figures(l).into_any()
                }}
            </section>
        }
        .into_any()
    }
}

fn figures(l: Arc<Latency>) -> impl IntoView {
    let b = &l.budget;
    let hist_labels: Vec<String> = l.histogram.iter().map(|h| bucket_edge(h.lo_ms)).collect();
    let hist = vec![(
        "GCs".to_string(),
        "var(--accent)".to_string(),
        l.histogram.iter().map(|h| h.count as f64).collect(),
    )];
    let cdf = vec![(
        "all GCs".to_string(),
        "var(--accent)".to_string(),
        l.cdf.iter().map(|p| (p.pause_ms, p.pct)).collect(),
    )];
    let mmu = vec![(
        "MMU".to_string(),
        "var(--accent)".to_string(),
        l.mmu
            .iter()
            .map(|p| (p.window_ms, p.min_utilization_pct))
            .collect(),
    )];
    // A step per window: its % at its start and end.
    let windows = vec![(
        "% paused".to_string(),
        "var(--gen2)".to_string(),
        l.utilization
            .windows
            .iter()
            .flat_map(|w| [(w.start_ms, w.paused_pct), (w.end_ms, w.paused_pct)])
            .collect(),
    )];
    let over = format!(
        "{} of {} GCs over {} ({}), {} over in all.",
        thousands(b.over_budget as f64),
        thousands(b.gcs as f64),
        ms(b.budget_ms),
        b.over_budget_pct
            .map_or_else(|| "–".into(), |p| format!("{p:.1}%")),
        ms(b.time_over_budget_ms)
    );
    let budget_now = b.budget_ms;
    let window_now = l.utilization.window_ms;
    view! {
        <div class="latency-grid">
            <div>
                <h2>"Pause percentiles"</h2>
                <DataTable id="pause-percentiles" rows=Signal::stored(Rows::all(tables::percentiles(&l.pauses))) />
                <h2>"Pause histogram " <span class="muted small-text">"(all GCs; 1-2-5 buckets, the same for every trace)"</span></h2>
                <BucketChart labels=hist_labels series=hist unit="count" id="histogram-chart" />
            </div>
            <div class="budget-box" id="budget-box">
                <h2>"Pause budget"</h2>
                {ms_box("Budget ", "budget-input", "Pause budget in ms", budget_now, |v| v >= 0.0, |s, v| s.budget_ms = Some(v))}
                <p id="budget-summary" class="big-line">{over}</p>
                {(!b.worst_gcs.is_empty()).then(|| view! {
                    <DataTable id="budget-gcs" rows=Signal::stored(Rows::all(tables::worst_gcs(b))) />
                })}
                <h3>{format!("Worst {} windows", ms(b.window_ms))}</h3>
                <DataTable id="budget-windows" rows=Signal::stored(Rows::all(tables::worst_windows(b))) />
            </div>
        </div>
        <h2>"Pause CDF " <span class="muted small-text">"(share of GCs that paused no longer than a length; log scale)"</span></h2>
        <LogChart series=cdf x_unit="ms" y_unit="%" y_max=100.0 id="cdf-chart" />
        <div class="table-head">
            <h2>"% of each window paused"</h2>
            {ms_box("Window ", "window-input", "Window in ms", window_now, |v| v > 0.0, |s, v| s.window_ms = Some(v))}
            <span class="muted" id="utilization-count">{format!("{} windows", thousands(l.utilization.windows.len() as f64))}</span>
        </div>
        <LineChart series=windows unit="%" id="utilization-chart" />
        <h2>"Minimum mutator utilization " <span class="muted small-text">"(for each window size, the lowest share of any window of that size the program ran; exact, log scale)"</span></h2>
        <LogChart series=mmu x_unit="ms" y_unit="%" y_max=100.0 id="mmu-chart" />
        <TablePanel table=tables::mmu(&l.mmu) id="mmu" />
    }
}

/// A box for a number of ms kept in the view state (and so in the address): `set` takes a typed
/// value that `ok` accepts (finite); anything else leaves the state as it was.
fn ms_box(
    label: &'static str,
    id: &'static str,
    aria: &'static str,
    now: f64,
    ok: fn(f64) -> bool,
    set: fn(&mut ViewState, f64),
) -> impl IntoView {
    let app = use_app();
    view! {
        <label class="inline-input">{label}
            <input id=id type="number" min="0" step="any" aria-label=aria
                prop:value=now.to_string()
                on:change=move |ev| {
                    if let Ok(v) = event_target_value(&ev).trim().parse::<f64>() {
                        if v.is_finite() && ok(v) {
                            app.set_vs(|s| set(s, v));
                        }
                    }
                }
            />" ms"
        </label>
    }
}
