//! The app's one door to core's definitions of every figure (label, unit, one-line definition),
//! looked up by JSON path: column headers, tooltips and facts read them here, so a change to how
//! core keeps them touches this file only.

use gcscope_core::gc::definitions as model;
pub use gcscope_core::gc::definitions::Definition;
use gcscope_core::gc::insights::definitions as insights;

/// A field of a GC row (`generations.gen2.survival_pct` finds `generations.*.survival_pct`).
pub fn gc_field(path: &str) -> Option<&'static Definition> {
    model::gc_field(path)
}

/// A field of the rollup by generation.
pub fn rollup_field(key: &str) -> Option<&'static Definition> {
    model::ROLLUP_FIELDS.iter().find(|d| d.field == key)
}

/// A fact about the process or the trace.
pub fn process_field(key: &str) -> Option<&'static Definition> {
    model::PROCESS_FIELDS.iter().find(|d| d.field == key)
}

/// A figure of the insights views, by its path from the insights' root (`budgets.gen`).
pub fn insight_field(path: &str) -> Option<&'static Definition> {
    insights::field(path)
}

/// Every definition, the model's and the insights' (for tests that check each one).
pub fn all() -> impl Iterator<Item = &'static Definition> {
    [
        model::GC_FIELDS,
        model::ROLLUP_FIELDS,
        model::PROCESS_FIELDS,
        model::SUMMARY_FIELDS,
    ]
    .into_iter()
    .chain(insights::TABLES.iter().map(|(_, d)| *d))
    .flatten()
}
