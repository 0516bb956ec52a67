//! The one table component, for every table of the app: the GC table (any number of rows, sort and
//! filters in the address bar, keyboard selection), the insights' and pinning tables, the rollup.
//! Header cells carry their column's definition and sort on click or Enter; cells carry their raw
//! value (`data-value`, for tests and copy-paste). A long table draws only the rows in view, with
//! spacer rows standing for the others, so 100,000 rows cost what 40 do. What it shows, how it
//! sorts and how it scrolls are passed in.

use std::sync::Arc;

use leptos::prelude::*;
use web_sys::KeyboardEvent;

use crate::tables::cell::fmt_column_cell;
use crate::tables::{Cell, Col, Sort, Table, VERDICT};

/// Height of a row (`table.grid td` in style.css).
pub const ROW_H: f64 = 22.0;
/// A short table draws every row up to this many, then only those in view.
const VIRTUAL_FROM: usize = 300;
/// Height of a short table's scroller when it draws only the rows in view.
const SHORT_HEIGHT: f64 = 360.0;

/// What a table shows: its columns and its rows in display order (after filter and sort).
#[derive(Clone)]
pub struct Rows {
    pub cols: Arc<Vec<Col>>,
    pub len: usize,
    /// Row `i` in display order (`i < len`).
    pub row: Arc<dyn Fn(usize) -> Row + Send + Sync>,
}

/// One row: its cells in column order and, in a table of GCs, which GC it is.
pub struct Row {
    pub cells: Vec<Cell>,
    pub gc: Option<GcRow>,
    /// Cells (by column index) with a tooltip of their own, and whether each is a link (in a
    /// GC's row: a click runs the table's `on_link` instead of selecting the row).
    pub notes: Vec<(usize, Note)>,
}

/// A cell's tooltip, and whether it is a link.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    pub title: String,
    pub link: bool,
}

/// A row that is a GC: `data-gc`, coloured by generation, marked when incomplete or selected,
/// selected on click.
#[derive(Clone, Copy)]
pub struct GcRow {
    pub number: u32,
    pub gen: u8,
    pub complete: bool,
}

impl Rows {
    /// The rows of `table` in the order `order` (indices into its rows).
    pub fn of_table(table: Arc<Table>, order: Arc<Vec<usize>>) -> Rows {
        Rows {
            cols: Arc::new(table.cols.clone()),
            len: order.len(),
            row: Arc::new(move |i| Row {
                cells: table.rows[order[i]].clone(),
                gc: None,
                notes: Vec::new(),
            }),
        }
    }

    /// The same rows, each a GC when its cell in column `col` holds a number that `gc` knows
    /// (coloured by generation, marked when selected, opening the GC on click).
    pub fn linking_gcs(
        self,
        col: usize,
        gc: Arc<dyn Fn(u32) -> Option<GcRow> + Send + Sync>,
    ) -> Rows {
        let inner = self.row;
        Rows {
            row: Arc::new(move |i| {
                let mut r = inner(i);
                r.gc = match r.cells.get(col) {
                    Some(Cell::Num(Some(n))) if *n >= 0.0 && *n <= f64::from(u32::MAX) => {
                        gc(*n as u32)
                    }
                    _ => None,
                };
                r
            }),
            ..self
        }
    }

    /// Every row of `table`, in its order.
    pub fn all(table: Table) -> Rows {
        let order = Arc::new((0..table.rows.len()).collect());
        Rows::of_table(Arc::new(table), order)
    }
}

/// How a table scrolls.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scroll {
    /// No scroller: every row (small tables).
    None,
    /// A scroller up to 360 px high: every row up to 300, beyond that only those in view.
    Short,
    /// A scroller the page's height (style.css), only the rows in view: the GC table.
    Page,
}

/// Sorting by header: the sort now, and what a click on a column's header does (given its key).
#[derive(Clone, Copy)]
pub struct Sorting {
    pub current: Signal<Option<Sort>>,
    pub click: Callback<String>,
}

/// The rows' window: the first and one past the last row to draw, of `len`.
fn window(len: usize, scroll_top: f64, height: f64, extra: usize) -> (usize, usize) {
    let first = ((scroll_top / ROW_H).floor() as usize).saturating_sub(5);
    let last = (first + (height / ROW_H).ceil() as usize + extra).min(len);
    (first.min(last), last)
}

#[component]
pub fn DataTable(
    /// The `<table>`'s id.
    id: &'static str,
    rows: Signal<Rows>,
    #[prop(optional)] sorting: Option<Sorting>,
    /// The header's tooltips say "click to sort" and the unit (the GC table's).
    #[prop(optional)]
    sort_hint: bool,
    #[prop(optional)] scroll: Option<Scroll>,
    #[prop(optional)] caption: Option<&'static str>,
    /// Tables of GCs: the selected GC (its row is marked), and what a click on a row does.
    #[prop(optional)]
    selected: Option<Signal<Option<u32>>>,
    #[prop(optional)] on_row: Option<Callback<u32>>,
    /// The scroller, for callers that move it (keyboard selection), and its id and key handler.
    #[prop(optional)]
    scroller: Option<NodeRef<leptos::html::Div>>,
    #[prop(optional)] scroller_id: Option<&'static str>,
    #[prop(optional)] on_key: Option<Callback<KeyboardEvent>>,
    /// A click on a GC row's link cell ([`Note::link`]): the GC's number and the column's key.
    #[prop(optional)]
    on_link: Option<Callback<(u32, String)>>,
) -> impl IntoView {
    let scroll = scroll.unwrap_or(Scroll::None);
    let scroller = scroller.unwrap_or_default();
    let scroll_top = RwSignal::new(0.0f64);
    let viewport = RwSignal::new(0.0f64);
    // Only a change of columns redraws the header (a sort by keyboard keeps the header's focus).
    let cols = Memo::new(move |_| rows.with(|r| r.cols.clone()));
    let len = Memo::new(move |_| rows.with(|r| r.len));
    let is_virtual = move || match scroll {
        Scroll::None => false,
        Scroll::Short => len.get() > VIRTUAL_FROM,
        Scroll::Page => true,
    };
    let header = move || {
        cols.get()
            .iter()
            .map(|c| header_cell(c, sorting, sort_hint))
            .collect_view()
    };
    let body = move || {
        let r = rows.get();
        let ncols = r.cols.len().max(1);
        let (first, last) = match scroll {
            _ if !is_virtual() => (0, r.len),
            Scroll::Page => {
                // Enough rows for the scroller at any height it can have (it is never taller than
                // the window), before its first scroll event is measured.
                let window_h = web_sys::window()
                    .and_then(|w| w.inner_height().ok())
                    .and_then(|h| h.as_f64())
                    .unwrap_or(0.0);
                window(r.len, scroll_top.get(), viewport.get().max(window_h), 12)
            }
            _ => window(r.len, scroll_top.get(), SHORT_HEIGHT, 10),
        };
        let selected = selected.map(|s| s.get());
        let spacer = move |rows: usize| {
            view! { <tr class="spacer" style=format!("height:{}px", rows as f64 * ROW_H)><td colspan=ncols></td></tr> }
        };
        let drawn = (first..last)
            .map(|i| {
                let row = (r.row)(i);
                let gc_n = row.gc.map(|g| g.number);
                let cells = row
                    .cells
                    .iter()
                    .zip(r.cols.iter())
                    .enumerate()
                    .map(|(k, (cell, c))| {
                        let raw = cell.number().is_some().then(|| cell.raw());
                        let shown = fmt_column_cell(&c.key, c.unit, cell);
                        let tone = (c.unit == VERDICT).then(|| shown.clone());
                        let note = row.notes.iter().find(|(at, _)| *at == k).map(|(_, n)| n);
                        let title = note.map(|n| n.title.clone());
                        match (note.is_some_and(|n| n.link && !shown.is_empty()), gc_n) {
                            (true, Some(n)) => {
                                let key = c.key.clone();
                                let click = move |ev: web_sys::MouseEvent| {
                                    ev.stop_propagation();
                                    if let Some(f) = on_link {
                                        f.run((n, key.clone()))
                                    }
                                };
                                view! { <td class:num=c.is_num() data-value=raw title=title><button class="link cell-link" data-col=c.key.clone() on:click=click>{shown}</button></td> }.into_any()
                            }
                            _ => view! { <td class:num=c.is_num() data-value=raw data-tone=tone title=title>{shown}</td> }.into_any(),
                        }
                    })
                    .collect_view();
                match row.gc {
                    Some(g) => {
                        let n = g.number;
                        view! {
                            <tr
                                class=format!("gen{}", g.gen)
                                class:selected=selected == Some(Some(n))
                                class:incomplete=!g.complete
                                data-gc=n.to_string()
                                on:click=move |_| if let Some(f) = on_row { f.run(n) }
                            >{cells}</tr>
                        }
                        .into_any()
                    }
                    // `data-i`: the row's place in the table as filtered and sorted.
                    None => view! { <tr data-i=i>{cells}</tr> }.into_any(),
                }
            })
            .collect_view();
        if is_virtual() {
            // The page-high scroller always has both spacers (the first row drawn is where the
            // first spacer ends); a short one only those that stand for rows.
            let always = scroll == Scroll::Page;
            let top = (always || first > 0).then(|| spacer(first));
            let bottom = (always || last < r.len).then(|| spacer(r.len - last));
            view! { {top} {drawn} {bottom} }.into_any()
        } else {
            drawn.into_any()
        }
    };
    let table = view! {
        <table id=id class="grid" class:virtual=is_virtual data-rows=move || len.get()>
            {caption.map(|c| view! { <caption>{c}</caption> })}
            <thead><tr>{header}</tr></thead>
            <tbody>{body}</tbody>
        </table>
    };
    if scroll == Scroll::None {
        return table.into_any();
    }
    // Taller than the short scroller (with its header): it scrolls, and its scrollbar gets a gutter
    // of its own (Firefox sizes the scroller to the table, and the bar hid the last column).
    let scrolls = move || scroll == Scroll::Short && (len.get() + 1) as f64 * ROW_H > SHORT_HEIGHT;
    view! {
        <div
            class="scroller"
            class:short=scroll == Scroll::Short
            class:scrolls=scrolls
            id=scroller_id
            tabindex=scroller_id.map(|_| "0")
            node_ref=scroller
            style=move || (scroll == Scroll::Short && is_virtual()).then(|| format!("height:{SHORT_HEIGHT}px"))
            on:scroll=move |_| {
                if let Some(el) = scroller.get_untracked() {
                    scroll_top.set(el.scroll_top() as f64);
                    viewport.set(el.client_height() as f64);
                }
            }
            on:keydown=move |ev: KeyboardEvent| if let Some(f) = on_key { f.run(ev) }
        >
            {table}
        </div>
    }
    .into_any()
}

/// A header cell: the column's definition on hover; sorts on click or Enter when sortable.
fn header_cell(c: &Col, sorting: Option<Sorting>, hint: bool) -> AnyView {
    let title = if hint {
        format!("{} ({}) — click to sort", c.help, c.unit)
    } else {
        c.help.to_string()
    };
    let label = c.label.clone();
    let num = c.is_num();
    let Some(s) = sorting else {
        return view! { <th scope="col" class:num=num title=title data-col=c.key.clone()>{label}</th> }
            .into_any();
    };
    let key = c.key.clone();
    let (k1, k2, k3) = (key.clone(), key.clone(), key.clone());
    let order = move || match s.current.get() {
        Some(sort) if sort.column == k1 => Some(sort.desc),
        _ => None,
    };
    let arrow = {
        let order = order.clone();
        move || match order() {
            Some(true) => " ▼",
            Some(false) => " ▲",
            None => "",
        }
    };
    let aria = move || match order() {
        Some(true) => "descending",
        Some(false) => "ascending",
        None => "none",
    };
    view! {
        <th
            scope="col"
            tabindex="0"
            data-col=key
            class:num=num
            title=title
            aria-sort=aria
            on:click=move |_| s.click.run(k2.clone())
            on:keydown=move |ev: KeyboardEvent| if ev.key() == "Enter" || ev.key() == " " {
                ev.prevent_default();
                // Not also "open the first row" in the scroller's handler.
                ev.stop_propagation();
                s.click.run(k3.clone());
            }
        >
            {label}{arrow}
        </th>
    }
    .into_any()
}
