//! The views: one module per tab, named as the tab is, and the tab list ([`TABS`]). A view is a
//! component without props: it reads the app state (`state::use_app()`), draws it with widgets,
//! and changes only the view state. No view imports another: what two views share is a widget.
//!
//! A new view: its module here, and one line in [`TABS`] (its key in the address bar, its title,
//! its component). The shell draws the tab bar and the body from this list, keys 1-9 switch to
//! the first nine, and `?tab=KEY` opens it.

use leptos::prelude::*;

use crate::state::view_state::{ViewState, COMPARE_TAB, GC_TABLE};

mod allocations;
mod budgets;
mod charts;
mod compare;
mod counters;
mod datas;
pub mod detail;
mod events;
mod gc_table;
mod heap;
mod latency;
mod memory;
mod overview;
mod pins;
mod reasons;
mod roots;
mod stacks;
mod suspensions;

/// A tab: its key (`?tab=KEY`, `#tab-KEY`), its title, and the view it shows.
pub struct Tab {
    pub key: &'static str,
    pub title: &'static str,
    pub view: fn() -> AnyView,
}

/// The tabs, in order; the first is the default (it has no `?tab=`).
#[rustfmt::skip]
pub const TABS: &[Tab] = &[
    tab("overview", "Overview", || view! { <overview::Overview /> }.into_any()),
    tab(GC_TABLE, "GC table", || view! { <gc_table::GcTable /> }.into_any()),
    tab("latency", "Latency", || view! { <latency::Latency /> }.into_any()),
    tab("reasons", "Condemn reasons", || view! { <reasons::Reasons /> }.into_any()),
    tab("pins", "Pinning & handles", || view! { <pins::Pins /> }.into_any()),
    tab("charts", "Charts", || view! { <charts::Charts /> }.into_any()),
    tab("events", "Events", || view! { <events::Events /> }.into_any()),
    tab("allocs", "Allocations", || view! { <allocations::Allocations /> }.into_any()),
    tab("stacks", "Stacks", || view! { <stacks::Stacks /> }.into_any()),
    tab("budgets", "Budgets", || view! { <budgets::Budgets /> }.into_any()),
    tab("roots", "Roots & compaction", || view! { <roots::Roots /> }.into_any()),
    tab("suspensions", "Suspensions", || view! { <suspensions::Suspensions /> }.into_any()),
    tab("memory", "Memory", || view! { <memory::Memory /> }.into_any()),
    tab("counters", "Counters", || view! { <counters::Counters /> }.into_any()),
    tab("datas", "DATAS", || view! { <datas::Datas /> }.into_any()),
    tab(COMPARE_TAB, "Compare", || view! { <compare::Compare /> }.into_any()),
    tab(HEAP_TAB, "Heap", || view! { <heap::Heap /> }.into_any()),
];

pub use crate::state::view_state::HEAP_TAB;

/// Whether `tab` is shown beside what is open (a heap snapshot; or a trace, with or without a heap
/// walk).
pub fn shown(tab: &Tab, heap_snapshot: bool, heap_walk: bool) -> bool {
    if tab.key == HEAP_TAB {
        heap_snapshot || heap_walk
    } else {
        !heap_snapshot
    }
}

const fn tab(key: &'static str, title: &'static str, view: fn() -> AnyView) -> Tab {
    Tab { key, title, view }
}

/// The tab a view state shows: the one its key names, or the first (no key, or an unknown one).
pub fn current(key: Option<&str>) -> &'static Tab {
    key.and_then(|k| TABS.iter().find(|t| t.key == k))
        .unwrap_or(&TABS[0])
}

/// The view state's key for `tab` (`None` for the first, which the address leaves out).
pub fn key_of(tab: &Tab) -> Option<String> {
    (tab.key != TABS[0].key).then(|| tab.key.to_string())
}

/// Makes a view state read from the address canonical: an unknown tab, or the first tab named,
/// becomes no tab.
pub fn normalize(v: &mut ViewState) {
    v.tab = key_of(current(v.tab.as_deref()));
}
