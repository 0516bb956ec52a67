//! The app's one door to core's definitions of every figure (label, unit, one-line definition),
//! looked up by JSON path: column headers, tooltips and facts read them here, so a change to how
//! core keeps them touches this file only.

pub use gcscope_core::gc::definitions::Definition;
use gcscope_core::gc::definitions::{self as core_defs, Root, TABLES};

/// A field of a GC row (`generations.gen2.survival_pct` finds `generations.*.survival_pct`).
pub fn gc_field(path: &str) -> Option<&'static Definition> {
    core_defs::gc_field(path)
}

/// A field of the rollup by generation.
pub fn rollup_field(key: &str) -> Option<&'static Definition> {
    core_defs::field(Root::Rollup, key)
}

/// A fact about the process or the trace.
pub fn process_field(key: &str) -> Option<&'static Definition> {
    core_defs::field(Root::Process, key)
}

/// A figure of the model other than a row, the rollup or the process facts, by its JSON path from
/// the model's root (`datas.changes.gc`: the DATAS view's).
pub fn model_field(path: &str) -> Option<&'static Definition> {
    core_defs::field(Root::Model, path)
}

/// A figure of the insights views, by its path from the insights' root (`budgets.gen`).
pub fn insight_field(path: &str) -> Option<&'static Definition> {
    core_defs::insights_field(path)
}

/// A latency figure, by its path in `gcscope latency --json` (`pauses.p99_ms`, `mmu.window_ms`).
pub fn latency_field(path: &str) -> Option<&'static Definition> {
    core_defs::field(Root::Latency, path)
}

/// A field of a comparison, by its path in `gcscope compare --json` (`figures.delta`).
pub fn compare_field(path: &str) -> Option<&'static Definition> {
    core_defs::field(Root::Comparison, path)
}

/// Every definition core keeps, model and insights alike, walked from its one table of tables
/// (for tests that check each one).
pub fn all() -> impl Iterator<Item = &'static Definition> {
    TABLES.iter().flat_map(|t| t.fields)
}
