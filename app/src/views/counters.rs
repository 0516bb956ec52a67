//! The classic ".NET CLR Memory" counters over time, one sample at the end of each GC, with their
//! definitions on hover.

use leptos::prelude::*;

use crate::state::use_app;
use crate::tables::counters::{self as tables, counter_col, counter_value, COUNTERS};
use crate::tables::defs;
use crate::widgets::chart::LineChart;
use crate::widgets::facts::{range_note, with_insights, Empty};
use crate::widgets::table_panel::TablePanel;

#[component]
pub fn Counters() -> impl IntoView {
    let app = use_app();
    let chosen = RwSignal::new("bytes_in_all_heaps");
    with_insights("Counters", move |ti| {
        let ins = &ti.insights;
        if ins.counters.is_empty() {
            return view! {
                <section class="insights counters">
                    <Empty id="counters-empty" text="No complete GC in this trace, so no counter samples: the counters are updated at the end of each GC (GCEnd and GCHeapStats, GC keyword 0x1:4).".to_string() />
                </section>
            }.into_any();
        }
        let f = app.range();
        let st = app.starts();
        let table = tables::counters(ins, &f, &st);
        let samples = ins.counters.clone();
        view! {
            <section class="insights counters">
                <p class="explain">"The \".NET CLR Memory\" performance counters as perfmon showed them, rebuilt from the trace: the runtime updated them at the end of every GC, so there is one sample per complete GC. \
                    Counts start at the trace start. Hover a counter for its definition; pick one to chart it."</p>
                <div class="counter-picker" role="radiogroup" aria-label="Counter to chart">
                    {COUNTERS.iter().map(|&k| {
                        let c = counter_col(k);
                        view! {
                            <button class="small counter-pick" data-counter=k role="radio"
                                aria-checked=move || (chosen.get() == k).to_string()
                                class:active=move || chosen.get() == k
                                title=c.help
                                on:click=move |_| chosen.set(k)
                            >{c.label.clone()}</button>
                        }
                    }).collect_view()}
                </div>
                {move || {
                    let k = chosen.get();
                    let c = counter_col(k);
                    let pts: Vec<(f64, f64)> = samples.iter().filter_map(|s| counter_value(s, k).map(|v| (s.ms, v))).collect();
                    let unit: &'static str = c.unit;
                    view! {
                        <h2 id="counter-title" title=defs::insight_field(&format!("counters.{k}")).map_or("", |d| d.definition)>{c.label.clone()}</h2>
                        <p class="muted" id="counter-definition">{c.help}</p>
                        <LineChart series=vec![(c.label.clone(), "var(--accent)".into(), pts)] unit=unit id="counter-chart" />
                    }
                }}
                {range_note("GCs whose pause started in it")}
                <TablePanel table=table id="counters" />
            </section>
        }.into_any()
    })
}
