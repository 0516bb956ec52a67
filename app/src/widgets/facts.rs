//! Figures with their definitions on hover, and the notes that say why a view (or part of it) is
//! empty, or how the time range applies to it.

use leptos::prelude::*;

use crate::protocol::insights::TraceInsights;
use crate::state::use_app;
use crate::tables::cell::{fmt_cell, Cell};
use crate::tables::defs;

/// One fact: its label and definition from the insights' definitions, and its value.
pub struct Fact {
    pub id: &'static str,
    pub path: &'static str,
    pub label: Option<&'static str>,
    pub unit: &'static str,
    pub value: Option<f64>,
}

/// The fact `path` (its label from its definition), shown as `id`.
pub fn fact(id: &'static str, path: &'static str, unit: &'static str, value: f64) -> Fact {
    Fact {
        id,
        path,
        label: None,
        unit,
        value: Some(value),
    }
}

impl Fact {
    /// The same fact under another label.
    pub fn labelled(self, label: &'static str) -> Fact {
        Fact {
            label: Some(label),
            ..self
        }
    }
}

#[component]
pub fn Facts(id: &'static str, facts: Vec<Fact>) -> impl IntoView {
    view! {
        <dl class="facts insight-facts" id=id>
            {facts.into_iter().map(|f| {
                let d = defs::insight_field(f.path);
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

/// A view of the insights: what [`reading`] says until the trace is read and they are finished
/// (the first time a view asks: `AppState::insight_analysis`), then `view` of them.
pub fn with_insights<F>(what: &'static str, view: F) -> impl IntoView
where
    F: Fn(&TraceInsights) -> AnyView + Send + Sync + 'static,
{
    let app = use_app();
    move || match app.insight_analysis.get() {
        Some(a) => match &a.insights {
            Some(ti) => view(ti),
            None => reading(what),
        },
        None => reading(what),
    }
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

/// A note on how the time range applies to a view (shown while a range is selected).
pub fn range_note(how: &'static str) -> impl IntoView {
    let app = use_app();
    move || {
        app.range().is_set().then(|| view! { <p class="muted range-note">{format!("In the selected time range: {how}.")}</p> })
    }
}
