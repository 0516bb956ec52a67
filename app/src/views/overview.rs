//! Overview: the trace's facts, % of time paused (whole trace or the time range), the worst
//! pauses, pause per GC, and the rollup by generation.

use gcscope_core::gc::{Gc, GcModel};
use leptos::prelude::*;

use crate::format::{column_ms, ms, thousands};
use crate::state::use_app;
use crate::tables::model;
use crate::widgets::export::ExportButtons;
use crate::widgets::pause_chart::PauseChart;
use crate::widgets::table::{DataTable, Rows};

fn dropped_note(m: &GcModel) -> Option<String> {
    m.process.dropped_events.filter(|d| *d > 0).map(|d| {
        format!(
            "{} events were dropped by the runtime: GC counts, pauses and sizes may be incomplete",
            thousands(d as f64)
        )
    })
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
                    return view! { <p class="muted">"Reading… the overview appears when the whole trace is read; the GC table fills as GCs are found."</p> }.into_any();
                };
                let a = app.analysis.get();
                let (name, size) = a.as_ref().map(|a| (a.file_name.clone(), a.file_size)).unwrap_or_default();
                let facts = model::facts(&m, &name, size);
                let dropped = dropped_note(&m);
                let warn = dropped.clone();
                let late = out_of_order_note(&m);
                let ranged = app.range().is_set();
                // % paused: whole trace from the model, or over the selected range.
                let keep = app.in_range();
                let (paused, span, count) = app.gcs.with(|g| {
                    let sel: Vec<&Gc> = g.iter().filter(|g| g.complete && keep(g)).collect();
                    let total: f64 = sel.iter().filter_map(|g| g.pause_ms).sum();
                    let span = match (sel.first(), sel.iter().filter_map(|g| g.end_ms).reduce(f64::max)) {
                        (Some(f), Some(l)) if l > f.start_ms => l - f.start_ms,
                        _ => 0.0,
                    };
                    (total, span, sel.len())
                });
                let pct = if ranged {
                    if span > 0.0 { Some(paused * 100.0 / span) } else { None }
                } else {
                    m.rollup.first().and_then(|r| r.pause_time_pct)
                };
                let rollup = model::rollup_table(&m);
                view! {
                    <div class="overview-grid">
                        <div>
                            <h2>"Trace"</h2>
                            <dl id="facts" class="facts">
                                {facts.into_iter().map(|(k, v, help)| {
                                    let id = format!("fact-{}", k.to_lowercase().replace([' ', '/'], "-"));
                                    let skewed = dropped.is_some() && matches!(k.as_str(), "GCs" | "Events" | "GC events");
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
                            <div class="big" id="pause-pct" title="Total pause / span from the first complete GC's pause start to the last GC's end">
                                {pct.map(|p| format!("{p:.2}%")).unwrap_or_else(|| "–".into())}
                                {warn.map(|w| view! { <span class="warn" title=w>" ⚠"</span> })}
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
