//! Generation budgets per GC (summed over heaps, and per heap for server GC) and which
//! generation's budget was exceeded.

use gcscope_core::gc::insights::GcBudget;
use leptos::prelude::*;

use crate::format::thousands;
use crate::state::insights::{per_heap, PerHeap, MAX_PER_HEAP_ROWS};
use crate::state::{use_app, AppState};
use crate::tables::budgets as tables;
use crate::time_range::TimeRange;
use crate::widgets::chart::{LineChart, Series};
use crate::widgets::facts::{with_insights, Empty};
use crate::widgets::table_panel::TablePanel;

#[component]
pub fn Budgets() -> impl IntoView {
    let app = use_app();
    with_insights("Budgets", move |ti| {
        let all = &ti.insights.budgets;
        if all.is_empty() {
            return view! {
                <section class="insights budgets">
                    <Empty id="budgets-empty" text="This trace has no GCPerHeapHistory events, which carry the budgets: \
                        they need the GC keyword at Informational level or above (Microsoft-Windows-DotNETRuntime:0x1:4).".to_string() />
                </section>
            }.into_any();
        }
        let f = app.range();
        let rows: Vec<&GcBudget> = all.iter().filter(|b| f.contains(b.start_ms)).collect();
        let per_heap = per_heap_budgets(app, &f);
        let used = |name: &str, color: &str, get: fn(&GcBudget) -> Option<f64>| -> Series {
            (
                name.to_string(),
                color.to_string(),
                all.iter()
                    .filter_map(|b| get(b).map(|v| (b.start_ms, v)))
                    .collect(),
            )
        };
        let series = vec![
            used("gen0 budget used", "var(--gen0)", |b| {
                b.total.gen0.budget_used_pct
            }),
            used("LOH budget used", "var(--loh)", |b| {
                b.total.loh.budget_used_pct
            }),
        ];
        view! {
            <section class="insights budgets">
                <p class="explain">"Each generation has an allocation budget; a GC is triggered when one is used up, and the GC then decides which generation to collect. \
                    The first table counts GCs by the generation whose budget was exceeded and the generation collected; \"Why\" says what raised a GC's generation. \
                    Budgets are NewAllocation from GCPerHeapHistory (negative = exceeded); hover a header for its definition."</p>
                <TablePanel table=tables::exceeded(&rows) id="budget-exceeded" />
                <h2>"Budget used before each GC (allocated since the previous GC / the budget it left)"</h2>
                <LineChart series=series unit="%" id="budget-chart" />
                <TablePanel table=tables::budgets(&rows) id="budgets" />
                {if let Some(p) = per_heap {
                    let shown: Vec<&GcBudget> = p.budgets.iter().collect();
                    let note = (p.budgets.len() < p.gcs_in_range).then(|| view! {
                        <p class="muted" id="budgets-per-heap-capped">{format!(
                            "Per-heap rows for the first {} of the {} GCs in the time range (at most {} rows): \
                             narrow the time range (drag across a chart) to see the others.",
                            thousands(p.budgets.len() as f64), thousands(p.gcs_in_range as f64),
                            thousands(MAX_PER_HEAP_ROWS as f64)
                        )}</p>
                    });
                    view! {
                        {note}
                        <TablePanel table=tables::budgets_per_heap(&shown) id="budgets-per-heap" />
                    }.into_any()
                } else {
                    view! { <p class="muted" id="budgets-one-heap">"One heap (workstation GC): the per-GC figures are that heap's."</p> }.into_any()
                }}
            </section>
        }.into_any()
    })
}

fn per_heap_budgets(app: AppState, f: &TimeRange) -> Option<PerHeap> {
    app.gcs.with(|gcs| {
        app.heaps
            .with_value(|store| per_heap(gcs, store, &|ms| f.contains(ms), MAX_PER_HEAP_ROWS))
    })
}
