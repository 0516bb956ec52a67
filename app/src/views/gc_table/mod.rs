//! The GC table: every GC with the chosen columns, filtered and sorted (both in the address bar),
//! drawn only where it is in view. ↑/↓/PageUp/PageDown move the selection, Enter opens a GC.

use std::sync::Arc;

use leptos::prelude::*;
use web_sys::KeyboardEvent;

use crate::format::thousands;
use crate::protocol::stacks::{CallersAsk, StacksRequest};
use crate::state::filter::visible_rows;
use crate::state::use_app;
use crate::tables::callers::{CallerIndex, CALLER};
use crate::tables::columns::{self, Column};
use crate::tables::{model, next_sort, Col};
use crate::widgets::export::ExportButtons;
use crate::widgets::table::{DataTable, GcRow, Note, Row, Rows, Scroll, Sorting, ROW_H};

mod chooser;
mod filters;

use chooser::ColumnChooser;
use filters::Filters;

#[component]
pub fn GcTable() -> impl IntoView {
    let app = use_app();
    let callers = Memo::new(move |_| Arc::new(CallerIndex::new(app.callers.get())));
    // The Caller column is shown by default only when an induced GC has a caller: there it
    // answers the first question about an induced GC (who called GC.Collect). For allocation
    // triggers it names whichever method allocated when the budget ran out, one sample of the
    // allocation sites (the Stacks tab's allocations view says more), so it stays in the chooser.
    let caller_default = Memo::new(move |_| callers.with(|c| app.gcs.with(|g| c.any_induced(g))));
    // Only a change of filter or sort re-sorts (not a selection or a tab change).
    let filter_sort = Memo::new(move |_| app.vs.with(|v| (v.filter.clone(), v.sort.clone())));
    let order = Memo::new(move |_| {
        let (f, s) = filter_sort.get();
        let c = callers.get();
        Arc::new(app.gcs.with(|g| {
            app.heaps
                .with_value(|h| visible_rows(g, &|i| h.words(i), &f, s.as_ref(), &c))
        }))
    });
    let cols = Memo::new(move |_| {
        let caller = caller_default.get();
        app.vs.with(|v| {
            v.visible_columns(caller)
                .iter()
                .map(|c| c.id.clone())
                .collect::<Vec<_>>()
        })
    });
    // The callers come in one request for every GC once the rows are all in, where the trace
    // has induced GCs or the column is chosen (else no second read of the file for them).
    let asked = StoredValue::new(None::<usize>);
    Effect::new(move |_| {
        let Some(model) = app.model.get() else { return };
        let key = Arc::as_ptr(&model) as usize;
        let wanted = cols.with(|c| c.iter().any(|c| c == CALLER))
            || app.gcs.with(|g| g.iter().any(|g| g.induced));
        if !wanted || asked.get_value() == Some(key) || app.callers.with_untracked(|c| c.is_some())
        {
            return;
        }
        asked.set_value(Some(key));
        let gcs = app
            .gcs
            .with_untracked(|g| g.iter().map(|g| (g.number, g.gc_start_ms)).collect());
        crate::loader::stacks::request(
            app,
            StacksRequest {
                callers: Some(CallersAsk { gcs }),
                ..Default::default()
            },
        );
    });
    // A Caller cell's click: the Stacks tab on that GC's trigger, as the detail panel's link.
    let open_caller = Callback::new(move |(n, key): (u32, String)| {
        if key != CALLER {
            return;
        }
        let Some((leaf, at)) = callers.with_untracked(|c| c.cell(n).open) else {
            return;
        };
        app.set_vs(move |s| {
            s.stacks_event = Some("triggered".into());
            s.stacks_type = None;
            s.stacks_up = true;
            s.stacks_focus = Some(leaf);
            s.filter.t0 = Some(at - 0.0005);
            s.filter.t1 = Some(at + 0.0005);
            s.tab = Some("stacks".into());
        })
    });
    let chosen = move || -> Vec<&'static Column> {
        cols.get()
            .iter()
            .filter_map(|c| columns::by_id(c))
            .collect()
    };
    let rows = Signal::derive(move || {
        let order = order.get();
        let cs = chosen();
        let gcs = app.gcs;
        let ix = callers.get();
        let caller_at = cs.iter().position(|c| c.id == CALLER);
        Rows {
            cols: Arc::new(
                cs.iter()
                    .map(|c| Col {
                        key: c.id.clone(),
                        label: c.label.clone(),
                        unit: c.unit,
                        help: c.help,
                    })
                    .collect(),
            ),
            len: order.len(),
            row: Arc::new(move |i| {
                gcs.with_untracked(|g| {
                    let gc = &g[order[i] as usize];
                    let notes = caller_at
                        .map(|k| {
                            let c = ix.cell(gc.number);
                            let link = c.open.is_some();
                            (
                                k,
                                Note {
                                    title: c.title,
                                    link,
                                },
                            )
                        })
                        .into_iter()
                        .collect();
                    Row {
                        cells: cs.iter().map(|c| columns::cell(c, gc, &ix)).collect(),
                        gc: Some(GcRow {
                            number: gc.number,
                            gen: gc.gen,
                            complete: gc.complete,
                        }),
                        notes,
                    }
                })
            }),
        }
    });
    let export = Signal::derive(move || {
        let cs = chosen();
        let c = callers.get();
        app.gcs.with(|g| model::gc_table(g, &order.get(), &cs, &c))
    });
    let scroller = NodeRef::<leptos::html::Div>::new();
    // Keep the selected row in view when it changes by keyboard.
    let move_sel = move |delta: i64| {
        let r = order.get_untracked();
        if r.is_empty() {
            return;
        }
        let sel = app.vs.with_untracked(|v| v.selected);
        let pos = app.gcs.with_untracked(|g| {
            sel.and_then(|n| r.iter().position(|&i| g[i as usize].number == n))
        });
        let next = match pos {
            Some(p) => (p as i64 + delta).clamp(0, r.len() as i64 - 1) as usize,
            None => 0,
        };
        let n = app.gcs.with_untracked(|g| g[r[next] as usize].number);
        app.select(n);
        if let Some(el) = scroller.get_untracked() {
            let top = next as f64 * ROW_H;
            let h = el.client_height() as f64 - ROW_H * 2.0;
            let st = el.scroll_top() as f64;
            if top < st {
                el.set_scroll_top(top as i32);
            } else if top > st + h {
                el.set_scroll_top((top - h) as i32);
            }
        }
    };
    let page = move || {
        scroller
            .get_untracked()
            .map_or(0, |el| (el.client_height() as f64 / ROW_H) as i64)
    };
    let on_key = move |ev: KeyboardEvent| match ev.key().as_str() {
        "ArrowDown" | "j" => {
            ev.prevent_default();
            move_sel(1)
        }
        "ArrowUp" | "k" => {
            ev.prevent_default();
            move_sel(-1)
        }
        "PageDown" => {
            ev.prevent_default();
            move_sel(page())
        }
        "PageUp" => {
            ev.prevent_default();
            move_sel(-page())
        }
        "Enter" if app.vs.with_untracked(|v| v.selected.is_none()) => move_sel(0),
        _ => {}
    };
    // Header clicks: ascending first (GC number and time read forwards), then descending, then not.
    let sorting = Sorting {
        current: Signal::derive(move || app.vs.with(|v| v.sort.clone())),
        click: Callback::new(move |id: String| {
            app.set_vs(|v| v.sort = next_sort(&v.sort, &id, false))
        }),
    };
    view! {
        <section class="gc-table">
            <Filters />
            <div class="table-head">
                <span id="row-count" class="muted">
                    {move || format!("{} of {} GCs", thousands(order.get().len() as f64), thousands(app.gcs.with(|g| g.len()) as f64))}
                </span>
                <ColumnChooser caller_default=caller_default />
                <ExportButtons table=export />
            </div>
            <DataTable
                id="gc-table"
                rows=rows
                sorting=sorting
                sort_hint=true
                scroll=Scroll::Page
                selected=Signal::derive(move || app.vs.with(|v| v.selected))
                on_row=Callback::new(move |n| app.select(n))
                scroller=scroller
                scroller_id="gc-scroller"
                on_key=Callback::new(on_key)
                on_link=open_caller
            />
        </section>
    }
}
