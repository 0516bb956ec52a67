//! The sortable, filterable side table (pinned types, handles, every insights table): header
//! definitions on hover, cells that carry their raw value (`data-value`, for tests and copy-paste),
//! CSV/JSON export of the rows that pass the filter. Where its sort and filter live is the caller's
//! choice ([`TableState`]): in the URL, or on this page only.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use leptos::prelude::*;
use web_sys::KeyboardEvent;

use crate::columns::Cell;
use crate::tables::{toggle_sort, Table};
use crate::ui::{Ctx, ExportButtons};
use crate::view_state::{SideTable, ViewState};

/// Tables longer than this render only the rows in view (a 2 GB trace has tens of thousands of
/// GCs: every row in the DOM took seconds and hundreds of MB per view).
const VIRTUAL_FROM: usize = 300;
/// Height of a virtual table's scroller, and of a row (`table.grid td` in style.css).
const VIRTUAL_HEIGHT: f64 = 360.0;
const ROW_H: f64 = 22.0;

thread_local! {
    /// Sort and filter of the tables kept on this page, by table id, across tab switches.
    static KEPT: RefCell<HashMap<&'static str, SideTable>> = RefCell::new(HashMap::new());
}

/// Where a side table reads and writes its sort and filter.
#[derive(Clone, Copy)]
pub struct TableState {
    get: Signal<SideTable>,
    set: Callback<SideTable>,
}

impl TableState {
    /// In the URL's view state, so a shared link restores it.
    pub fn in_url(cx: Ctx, field: fn(&mut ViewState) -> &mut SideTable) -> Self {
        TableState {
            get: Signal::derive(move || cx.vs.with(|v| field(&mut v.clone()).clone())),
            set: Callback::new(move |t| cx.set_vs(|s| *field(s) = t)),
        }
    }

    /// On this page only (not in the URL), kept across tab switches under `id`.
    pub fn kept(id: &'static str) -> Self {
        let init = KEPT.with(|k| k.borrow().get(id).cloned().unwrap_or_default());
        let st = RwSignal::new(init);
        TableState {
            get: st.into(),
            set: Callback::new(move |t: SideTable| {
                KEPT.with(|k| k.borrow_mut().insert(id, t.clone()));
                st.set(t);
            }),
        }
    }

    fn update(self, f: impl FnOnce(&mut SideTable)) {
        let mut t = self.get.get_untracked();
        f(&mut t);
        self.set.run(t);
    }
}

/// A side table; its state is kept on this page under `id` unless `state` says where it lives.
#[component]
pub fn SideTableView(
    cx: Ctx,
    table: Table,
    id: &'static str,
    #[prop(optional)] state: Option<TableState>,
) -> impl IntoView {
    let st = state.unwrap_or_else(|| TableState::kept(id));
    let t = Arc::new(table);
    let t_rows = t.clone();
    let rows = Memo::new(move |_| t_rows.view(&st.get.get()));
    let t_exp = t.clone();
    let export = Signal::derive(move || t_exp.subset(&rows.get()));
    let t_head = t.clone();
    let t_body = t.clone();
    let total = t.rows.len();
    let virtual_rows = total > VIRTUAL_FROM;
    let scroll = RwSignal::new(0.0f64);
    let scroller = NodeRef::<leptos::html::Div>::new();
    let ncols = t.cols.len().max(1);
    view! {
        <div class="side-table">
            <div class="table-head">
                <h2>{t.title.clone()}</h2>
                <input type="search" class="side-filter" id=format!("{id}-filter") placeholder="filter" aria-label=format!("Filter {}", t.title)
                    prop:value=move || st.get.get().text
                    on:input=move |ev| { let v = event_target_value(&ev); st.update(|s| s.text = v); }
                />
                <span class="muted" id=format!("{id}-count") title="The CSV and JSON buttons export every row that passes the filter">{move || {
                    let n = rows.get().len();
                    if n < total { format!("{n} of {total} rows") } else { format!("{n} rows") }
                }}</span>
                <ExportButtons cx=cx table=export />
            </div>
            <div class="scroller short" node_ref=scroller
                style=virtual_rows.then(|| format!("height:{VIRTUAL_HEIGHT}px"))
                on:scroll=move |_| if let Some(el) = scroller.get_untracked() { scroll.set(el.scroll_top() as f64) }
            >
            <table class="grid" class:virtual=virtual_rows id=id data-rows=move || rows.get().len()>
                <thead><tr>
                    {t_head.cols.iter().map(|c| {
                        let key = c.key.clone();
                        let key2 = key.clone();
                        let sort = move || st.update(|s| s.sort = toggle_sort(&s.sort, &key));
                        let arrow = move || match st.get.get().sort { Some(s) if s.column == key2 => if s.desc { " ▼" } else { " ▲" }, _ => "" };
                        view! {
                            <th scope="col" tabindex="0" class:num=c.unit != "name" title=c.help data-col=c.key.clone()
                                on:click={ let sort = sort.clone(); move |_| sort() }
                                on:keydown=move |ev: KeyboardEvent| if ev.key() == "Enter" || ev.key() == " " { ev.prevent_default(); sort() }
                            >{c.label.clone()}{arrow}</th>
                        }
                    }).collect_view()}
                </tr></thead>
                <tbody>
                    {move || {
                        let r = rows.get();
                        // Every row, or those in view (and a few around) with spacers for the rest.
                        let (first, last) = if virtual_rows {
                            let first = ((scroll.get() / ROW_H).floor() as usize).saturating_sub(5);
                            let last = (first + (VIRTUAL_HEIGHT / ROW_H).ceil() as usize + 10).min(r.len());
                            (first.min(last), last)
                        } else {
                            (0, r.len())
                        };
                        let spacer = |rows: usize| (rows > 0).then(|| view! {
                            <tr class="spacer" style=format!("height:{}px", rows as f64 * ROW_H)><td colspan=ncols></td></tr>
                        });
                        // `data-i`: the row's place in the table as filtered and sorted.
                        let body = r[first..last].iter().enumerate().map(|(k, &r)| view! {
                            <tr data-i=first + k>{(0..t_body.cols.len()).map(|c| {
                                let cell = &t_body.rows[r][c];
                                let raw = matches!(cell, Cell::Num(_)).then(|| cell.raw());
                                view! { <td class:num=t_body.cols[c].unit != "name" data-value=raw>{t_body.shown(r, c)}</td> }
                            }).collect_view()}</tr>
                        }).collect_view();
                        view! { {spacer(first)} {body} {spacer(r.len() - last)} }
                    }}
                </tbody>
            </table>
            </div>
        </div>
    }
}
