//! Building blocks shared by the insights views: a sortable, filterable table whose cells carry
//! their raw value (`data-value`, for tests and copy-paste), facts with definitions on hover, and
//! the empty state that says why a view is empty.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use gcscope_core::gc::insights::definitions::field;
use leptos::prelude::*;
use web_sys::KeyboardEvent;

use crate::columns::{fmt_cell, Cell};
use crate::protocol::Analysis;
use crate::tables::Table;
use crate::ui::{Ctx, ExportButtons};
use crate::view_state::{SideTable, Sort};

use super::tables::Starts;

thread_local! {
    /// Sort and filter of each insights table, kept across tab switches (not in the URL).
    static STATE: RefCell<HashMap<&'static str, SideTable>> = RefCell::new(HashMap::new());
}

/// Rows rendered at most (the exports hold every row).
const MAX_ROWS: usize = 2000;

/// The analysis once the whole trace is read and it has insights.
pub fn analysis(cx: Ctx) -> Option<Arc<Analysis>> {
    cx.insight_analysis.get()
}

/// GC number -> pause start, for the time range of rows that only name their GC.
pub fn starts(cx: Ctx) -> Starts {
    cx.gcs
        .with(|g| g.iter().map(|g| (g.number, g.start_ms)).collect())
}

pub fn ranged(cx: Ctx) -> bool {
    cx.vs
        .with(|v| v.filter.t0.is_some() || v.filter.t1.is_some())
}

/// What a view shows until the trace is read.
pub fn reading(what: &'static str) -> AnyView {
    view! { <p class="muted">{format!("{what} appear when the whole trace is read.")}</p> }
        .into_any()
}

/// Why a view (or part of it) is empty, and how to capture what it needs.
#[component]
pub fn Empty(id: &'static str, text: String) -> impl IntoView {
    view! { <p class="empty-note" id=id role="note">{text}</p> }
}

/// One fact: its label and definition from the insights definitions, and its value.
pub struct Fact {
    pub id: &'static str,
    pub path: &'static str,
    pub label: Option<&'static str>,
    pub unit: &'static str,
    pub value: Option<f64>,
}

pub fn fact(id: &'static str, path: &'static str, unit: &'static str, value: f64) -> Fact {
    Fact {
        id,
        path,
        label: None,
        unit,
        value: Some(value),
    }
}

#[component]
pub fn Facts(id: &'static str, facts: Vec<Fact>) -> impl IntoView {
    view! {
        <dl class="facts insight-facts" id=id>
            {facts.into_iter().map(|f| {
                let d = field(f.path);
                let label = f.label.or(d.map(|d| d.label)).unwrap_or(f.path);
                let cell = Cell::Num(f.value);
                view! {
                    <dt title=d.map_or("", |d| d.definition)>{label}</dt>
                    <dd class="num" id=f.id data-value=cell.raw()>{fmt_cell(f.unit, &cell)}</dd>
                }
            }).collect_view()}
        </dl>
    }
}

/// A sortable, filterable table with CSV/JSON export; headers carry the definitions.
#[component]
pub fn InsightTable(cx: Ctx, table: Table, id: &'static str) -> impl IntoView {
    let t = Arc::new(table);
    let init = STATE.with(|s| s.borrow().get(id).cloned().unwrap_or_default());
    let st = RwSignal::new(init);
    Effect::new(move |_| {
        let v = st.get();
        STATE.with(|s| s.borrow_mut().insert(id, v));
    });
    let t_rows = t.clone();
    let rows = Memo::new(move |_| t_rows.view(&st.get()));
    let t_exp = t.clone();
    let export = Signal::derive(move || t_exp.subset(&rows.get()));
    let t_head = t.clone();
    let t_body = t.clone();
    let total = t.rows.len();
    view! {
        <div class="side-table insight-table">
            <div class="table-head">
                <h2>{t.title.clone()}</h2>
                <input type="search" class="side-filter" id=format!("{id}-filter") placeholder="filter" aria-label=format!("Filter {}", t.title)
                    prop:value=move || st.get().text
                    on:input=move |ev| { let v = event_target_value(&ev); st.update(|s| s.text = v); }
                />
                <span class="muted" id=format!("{id}-count") title="The CSV and JSON buttons export every row that passes the filter">{move || {
                    let n = rows.get().len();
                    if n > MAX_ROWS { format!("{n} rows, first {MAX_ROWS} shown") } else if n < total { format!("{n} of {total} rows") } else { format!("{n} rows") }
                }}</span>
                <ExportButtons cx=cx table=export />
            </div>
            <div class="scroller short">
            <table class="grid" id=id>
                <thead><tr>
                    {t_head.cols.iter().map(|c| {
                        let key = c.key.clone();
                        let key2 = key.clone();
                        let sort = move || {
                            let key = key.clone();
                            st.update(|s| {
                                s.sort = match &s.sort {
                                    Some(x) if x.column == key && x.desc => Some(Sort { column: key, desc: false }),
                                    Some(x) if x.column == key => None,
                                    _ => Some(Sort { column: key, desc: true }),
                                }
                            })
                        };
                        let sort2 = sort.clone();
                        let arrow = move || match st.get().sort { Some(s) if s.column == key2 => if s.desc { " ▼" } else { " ▲" }, _ => "" };
                        view! {
                            <th scope="col" tabindex="0" class:num=c.unit != "name" title=c.help data-col=c.key.clone()
                                on:click=move |_| sort()
                                on:keydown=move |ev: KeyboardEvent| if ev.key() == "Enter" || ev.key() == " " { ev.prevent_default(); sort2() }
                            >{c.label.clone()}{arrow}</th>
                        }
                    }).collect_view()}
                </tr></thead>
                <tbody>
                    {move || rows.get().into_iter().take(MAX_ROWS).map(|r| view! {
                        <tr>{(0..t_body.cols.len()).map(|c| {
                            let cell = &t_body.rows[r][c];
                            let raw = matches!(cell, Cell::Num(_)).then(|| cell.raw());
                            view! { <td class:num=t_body.cols[c].unit != "name" data-value=raw>{t_body.shown(r, c)}</td> }
                        }).collect_view()}</tr>
                    }).collect_view()}
                </tbody>
            </table>
            </div>
        </div>
    }
}

/// A note on how the time range applies to a view.
pub fn range_note(cx: Ctx, how: &'static str) -> impl IntoView {
    move || {
        ranged(cx).then(|| view! { <p class="muted range-note">{format!("In the selected time range: {how}.")}</p> })
    }
}
