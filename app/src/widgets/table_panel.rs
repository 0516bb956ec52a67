//! A [`Table`] with its title, a filter box, the row count and the CSV/JSON buttons (which export
//! the rows that pass the filter, in the order shown) above it.

use std::collections::HashMap;
use std::sync::Arc;

use leptos::prelude::*;

use crate::state::use_app;
use crate::tables::Table;

use super::export::ExportButtons;
use super::table::{DataTable, GcRow, Rows, Scroll};
use super::table_state::TableState;

/// `id` is the table's (and, with `-filter`/`-count`, its filter box's and count's); its sort and
/// filter are kept on this page under `id` unless `state` says where they live. With
/// `gc_column` (a column's key), a row whose cell there is a GC's number is that GC, as in the GC
/// table: coloured by generation, marked when selected, and a click opens its detail panel.
#[component]
pub fn TablePanel(
    table: Table,
    id: &'static str,
    #[prop(optional)] state: Option<TableState>,
    #[prop(optional)] gc_column: Option<&'static str>,
) -> impl IntoView {
    let st = state.unwrap_or_else(|| TableState::kept(id));
    let t = Arc::new(table);
    let t_rows = t.clone();
    let order = Memo::new(move |_| Arc::new(t_rows.view(&st.get.get())));
    let t_exp = t.clone();
    let export = Signal::derive(move || t_exp.subset(&order.get()));
    let t_view = t.clone();
    let gc_col = gc_column.and_then(|k| t.cols.iter().position(|c| c.key == k));
    let gcs = gc_col.map(|_| gc_rows());
    let rows = Signal::derive(move || {
        let rows = Rows::of_table(t_view.clone(), order.get());
        match (gc_col, &gcs) {
            (Some(c), Some(g)) => rows.linking_gcs(c, g.get().0),
            _ => rows,
        }
    });
    let total = t.rows.len();
    view! {
        <div class="side-table">
            <div class="table-head">
                <h2>{t.title.clone()}</h2>
                <input type="search" class="side-filter" id=format!("{id}-filter") placeholder="filter" aria-label=format!("Filter {}", t.title)
                    prop:value=move || st.get.get().text
                    on:input=move |ev| { let v = event_target_value(&ev); st.update(|s| s.text = v); }
                />
                <span class="muted" id=format!("{id}-count") title="The CSV and JSON buttons export every row that passes the filter">{move || {
                    let n = order.get().len();
                    if n < total { format!("{n} of {total} rows") } else { format!("{n} rows") }
                }}</span>
                <ExportButtons table=export />
            </div>
            {match gc_col {
                Some(_) => {
                    let app = use_app();
                    view! {
                        <DataTable id=id rows=rows sorting=st.sorting() scroll=Scroll::Short
                            selected=Signal::derive(move || app.vs.with(|v| v.selected))
                            on_row=Callback::new(move |n| app.select(n)) />
                    }.into_any()
                }
                None => view! { <DataTable id=id rows=rows sorting=st.sorting() scroll=Scroll::Short /> }.into_any(),
            }}
        </div>
    }
}

/// The GC rows by number, as a table's rows name them (their generation and whether complete).
type GcLookup = Arc<dyn Fn(u32) -> Option<GcRow> + Send + Sync>;

/// A lookup of the app's GCs by number, rebuilt when the rows change.
fn gc_rows() -> Memo<GcLookupCell> {
    let app = use_app();
    Memo::new(move |_| {
        let by: HashMap<u32, GcRow> = app.gcs.with(|g| {
            g.iter()
                .map(|g| {
                    let row = GcRow {
                        number: g.number,
                        gen: g.gen,
                        complete: g.complete,
                    };
                    (g.number, row)
                })
                .collect()
        });
        GcLookupCell(Arc::new(move |n| by.get(&n).copied()))
    })
}

/// A [`GcLookup`] a memo can hold (never equal to another: a new one is a change).
#[derive(Clone)]
struct GcLookupCell(GcLookup);

impl PartialEq for GcLookupCell {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
