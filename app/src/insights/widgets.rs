//! Building blocks shared by the insights views (their tables are `side_table::SideTableView`):
//! facts with definitions on hover, and the empty state that says why a view is empty.

use std::sync::Arc;

use gcscope_core::gc::definitions::insights_field as field;
use leptos::prelude::*;

use crate::columns::{fmt_cell, Cell};
use crate::protocol::Analysis;
use crate::ui::Ctx;

use super::tables::Starts;

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

/// A note on how the time range applies to a view.
pub fn range_note(cx: Ctx, how: &'static str) -> impl IntoView {
    move || {
        ranged(cx).then(|| view! { <p class="muted range-note">{format!("In the selected time range: {how}.")}</p> })
    }
}
