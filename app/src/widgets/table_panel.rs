//! A [`Table`] with its title, a filter box, the row count and the CSV/JSON buttons (which export
//! the rows that pass the filter, in the order shown) above it.

use std::sync::Arc;

use gcscope_core::gc::Gc;
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
    let app = use_app();
    let rows = Signal::derive(move || {
        let rows = Rows::of_table(t_view.clone(), order.get());
        match gc_col {
            Some(c) => {
                app.gcs.track();
                rows.linking_gcs(
                    c,
                    Arc::new(move |n| app.gcs.with_untracked(|g| gc_row(g, n))),
                )
            }
            None => rows,
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
            <DataTable id=id rows=rows sorting=st.sorting() scroll=Scroll::Short
                selected=Signal::derive(move || gc_col.and_then(|_| app.vs.with(|v| v.selected)))
                on_row=Callback::new(move |n| app.select(n)) />
        </div>
    }
}

/// GC `n` as a table row names it: its generation and whether it is complete. The rows are in GC
/// order but for a rare late GC: a binary search, then a scan.
fn gc_row(gcs: &[Gc], n: u32) -> Option<GcRow> {
    let i = gcs.partition_point(|g| g.number < n);
    let g = gcs
        .get(i)
        .filter(|g| g.number == n)
        .or_else(|| gcs.iter().rfind(|g| g.number == n))?;
    Some(GcRow {
        number: n,
        gen: g.gen,
        complete: g.complete,
    })
}
