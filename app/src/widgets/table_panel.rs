//! A [`Table`] with its title, a filter box, the row count and the CSV/JSON buttons (which export
//! the rows that pass the filter, in the order shown) above it.

use std::sync::Arc;

use leptos::prelude::*;

use crate::tables::Table;

use super::export::ExportButtons;
use super::table::{DataTable, Rows, Scroll};
use super::table_state::TableState;

/// `id` is the table's (and, with `-filter`/`-count`, its filter box's and count's); its sort and
/// filter are kept on this page under `id` unless `state` says where they live.
#[component]
pub fn TablePanel(
    table: Table,
    id: &'static str,
    #[prop(optional)] state: Option<TableState>,
) -> impl IntoView {
    let st = state.unwrap_or_else(|| TableState::kept(id));
    let t = Arc::new(table);
    let t_rows = t.clone();
    let order = Memo::new(move |_| Arc::new(t_rows.view(&st.get.get())));
    let t_exp = t.clone();
    let export = Signal::derive(move || t_exp.subset(&order.get()));
    let t_view = t.clone();
    let rows = Signal::derive(move || Rows::of_table(t_view.clone(), order.get()));
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
            <DataTable id=id rows=rows sorting=st.sorting() scroll=Scroll::Short />
        </div>
    }
}
