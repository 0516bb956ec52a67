//! One module per rule, each a pure function of the trace ([`crate::findings::verdict::Ctx`]);
//! [`ALL`] pairs each with its entry in the rules table, in the table's order.

mod datas;
mod finalization;
mod gen2_fragmentation;
mod gen2_growth;
mod high_memory_load;
mod induced;
mod loh_alloc_waits;
mod loh_triggered_gen2;
mod long_gc_outlier;
mod mostly_blocking_gen2;
mod pause_time;
mod pauses_over_budget;
mod pinning;
mod server_heaps;
mod suspension;

pub use gen2_fragmentation::conserve_value_for;

use super::rules::{self, Rule};
use super::verdict::{Ctx, Verdict};

/// A rule's check.
pub type CheckFn = fn(&Ctx<'_>) -> Verdict;

/// Every rule with its check, in [`rules::RULES`]' order.
pub const ALL: &[(&Rule, CheckFn)] = &[
    (&rules::SUSPENSION, suspension::check),
    (&rules::LONG_GC_OUTLIER, long_gc_outlier::check),
    (&rules::MOSTLY_BLOCKING_GEN2, mostly_blocking_gen2::check),
    (&rules::PAUSE_TIME, pause_time::check),
    (&rules::PAUSES_OVER_BUDGET, pauses_over_budget::check),
    (&rules::INDUCED, induced::check),
    (&rules::LOH_TRIGGERED_GEN2, loh_triggered_gen2::check),
    (&rules::LOH_ALLOC_WAITS, loh_alloc_waits::check),
    (&rules::HIGH_MEMORY_LOAD, high_memory_load::check),
    (&rules::GEN2_FRAGMENTATION, gen2_fragmentation::check),
    (&rules::PINNING, pinning::check),
    (&rules::SERVER_HEAPS, server_heaps::check),
    (&rules::DATAS, datas::check),
    (&rules::GEN2_GROWTH, gen2_growth::check),
    (&rules::FINALIZATION, finalization::check),
];
