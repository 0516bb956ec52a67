//! Names the model shows for the runtime's GC codes, and decoding of the condemn-reason words.
//!
//! Names come from [`crate::clr::enums`] (TraceEvent's where it has them, else the GC's own);
//! this module adds the model's choices: which reasons count as induced, condition meanings,
//! phase-time slots.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::types::{CondemnReasons, Name, PhaseTimes};
use crate::clr::enums::{
    self, compact_reason, expand_mechanism, CondemnCondition, GcHandleKind, GcPauseMode, GcReason,
    GlobalMechanisms,
};

pub const MISSING_SUSPEND: &str =
    "no SuspendEEBegin(ForGC) before GCStart: suspend time unknown, pause starts at GCStart";
pub const MISSING_START: &str =
    "no GCStart: the trace started during this GC; start, type, reason, suspend and pause unknown";
pub const MISSING_END: &str = "no GCEnd: the trace ended during this GC";
pub const MISSING_RESTART: &str = "no RestartEEEnd after this GC: pause unknown";
pub const MISSING_HEAP_STATS: &str = "no GCHeapStats: sizes after, promoted and counters unknown";
pub const MISSING_GLOBAL: &str =
    "no GCGlobalHeapHistory: condemned generation, pause mode, mechanisms unknown";
pub const MISSING_PER_HEAP: &str =
    "no GCPerHeapHistory: sizes before, survival, fragmentation, budgets, condemn reasons unknown";
pub const MISSING_PREV_PER_HEAP: &str =
    "no earlier blocking GC with GCPerHeapHistory: allocation taken from AllocationTick events";

pub fn gc_reason_name(code: u32) -> &'static str {
    GcReason::from_raw(code).name()
}

/// GCs started by the program (GC.Collect in any flavour, or a low-memory notification it asked for).
pub fn is_induced(reason: u32) -> bool {
    GcReason::from_raw(reason).is_induced()
}

pub fn pause_mode_name(mode: u32) -> &'static str {
    GcPauseMode::from_raw(mode).name()
}

pub fn global_mechanism_names(bits: u32) -> Vec<Name> {
    let m = GlobalMechanisms(bits);
    let mut v: Vec<Name> = m.names().map(Cow::Borrowed).collect();
    if m.unknown_bits() != 0 {
        v.push(Cow::Borrowed("Unknown"));
    }
    v
}

pub fn compact_mechanism_name(bits: u32) -> Option<&'static str> {
    compact_reason(bits).map(|r| r.name())
}

pub fn expand_mechanism_name(bits: u32) -> Option<&'static str> {
    expand_mechanism(bits).map(|r| r.name())
}

/// One line per condemn condition (meanings from gc.cpp and PerfView's help text).
pub fn condition_help(c: CondemnCondition) -> &'static str {
    use CondemnCondition::*;
    match c {
        InducedFullGc => "induced as a blocking full GC (GC.Collect with Forced mode)",
        ExpandFullGc => "an ephemeral GC found too little ephemeral space: a full GC to avoid growing the heap",
        HighMem => "high memory load",
        VeryHighMem => "very high memory load",
        LowEphemeral => "low on ephemeral space: at least a gen1 GC is needed",
        LowCard => "too many cross-generation card marks (internal tuning)",
        EphHighFrag => "the ephemeral generations are fragmented",
        MaxHighFrag => "gen2 is too fragmented: a full blocking GC",
        MaxHighFragE => "low on ephemeral space, and gen2 fragmented enough that a full GC avoids growing the heap",
        MaxHighFragM => "gen2 fragmented under high memory load: a full blocking GC",
        MaxHighFragVm => "gen2 fragmented under very high memory load: a full blocking GC",
        MaxGen1 => "gen1 budget exceeded, escalated to gen2",
        BeforeOom => "last GC before throwing OutOfMemory",
        Gen2TooSmall => "gen2 too small for a background GC: blocking instead",
        InducedNoForce => "induced without forcing (GC.Collect Optimized / memory pressure): the GC chose how",
        BeforeBgc => "ephemeral GC run just before a background GC",
        AlmostMaxAlloc => "high memory load and most of the gen2 budget consumed: a full GC",
        JoinedAvoidUnproductive => "previous full compacting GCs were unproductive: reduced to gen1",
        JoinedPmInducedFullGc => "provisional mode: the last gen1 GC grew gen2, so a full GC was induced",
        JoinedPmAllocLoh => "provisional mode: triggered by a LOH allocation",
        JoinedGen1InPm => "provisional mode: gen1 GC instead of gen2",
        JoinedLimitBeforeOom => "heap hard limit: last GC before throwing OutOfMemory",
        JoinedLimitLohFrag => "heap hard limit: LOH fragmentation above 1/8 of the limit",
        JoinedLimitLohReclaim => "heap hard limit: reclaimable LOH space above 1/8 of the limit",
        JoinedServoInitial => "BGC servo tuning: initial background GC to get data",
        JoinedServoNgc => "BGC servo tuning chose a blocking GC",
        JoinedServoBgc => "BGC servo tuning chose a background GC",
        JoinedServoPostpone => "BGC servo tuning postponed a gen1 GC (gen0 instead)",
        JoinedStressMix => "GC stress mix mode (every 10th GC is gen2)",
        JoinedStress => "GC stress (every GC is gen2)",
        JoinedAggressive => "induced aggressive GC (GCCollectionMode.Aggressive)",
        Unknown(_) => "a condition bit this version of gcscope has no name for",
    }
}

/// Decodes CondemnReasons0 (2-bit generations) and CondemnReasons1 (condition bits).
pub fn decode_condemn(r0: u32, r1: u32) -> CondemnReasons {
    let c = enums::CondemnReasons {
        reasons0: r0,
        reasons1: r1,
    };
    CondemnReasons {
        initial_gen: c.initial_gen() as u8,
        final_gen: c.final_gen() as u8,
        alloc_budget_gen: c.alloc_budget_gen() as u8,
        time_tuning_gen: c.time_tuning_gen() as u8,
        conditions: c.conditions().map(|x| Cow::Borrowed(x.name())).collect(),
        raw0: r0,
        raw1: r1,
    }
}

/// GCGlobalHeapHistory v4 phase times, by slot: 0 sized-ref marking, 1 roots, 2 short weak,
/// 3 finalization, 4 long weak, then 5 plan and, with the Compaction mechanism, 6 relocate and
/// 7 compact, otherwise 6 sweep.
pub fn phase_times(t: &[u32], global_mechanisms: u32) -> PhaseTimes {
    let at = |i: usize| t.get(i).copied();
    let compacting = global_mechanisms & 2 != 0;
    PhaseTimes {
        mark_sized_ref: at(0),
        mark_roots: at(1),
        mark_short_weak: at(2),
        mark_finalization: at(3),
        mark_long_weak: at(4),
        plan: at(5),
        relocate: if compacting { at(6) } else { None },
        compact: if compacting { at(7) } else { None },
        sweep: if compacting { None } else { at(6) },
    }
}

pub fn handle_kind_name(kind: u32) -> &'static str {
    GcHandleKind::from_raw(kind).name()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn condemn_words_decode_generation_pairs_and_condition_bits() {
        // r0: initial 1 (bits 0-1), final 2 (bits 2-3), budget 1 (bits 4-5) = 0b01_10_01.
        let c = decode_condemn(0b01_10_01, (1 << 4) | (1 << 30));
        assert_eq!(
            (
                c.initial_gen,
                c.final_gen,
                c.alloc_budget_gen,
                c.time_tuning_gen
            ),
            (1, 2, 1, 0)
        );
        assert_eq!(c.conditions, ["low_ephemeral", "joined_aggressive"]);
    }

    #[test]
    fn mechanisms_name_the_lowest_reason_bit() {
        assert_eq!(
            compact_mechanism_name(0x8000_0002),
            Some("compact_high_frag")
        );
        assert_eq!(
            expand_mechanism_name(0x8000_0002),
            Some("expand_reuse_bestfit")
        );
        assert_eq!(compact_mechanism_name(0), None);
    }

    #[test]
    fn phase_slots_follow_the_compaction_bit() {
        let p = phase_times(&[1, 2, 3, 4, 5, 6, 7, 8], 2);
        assert_eq!((p.relocate, p.compact, p.sweep), (Some(7), Some(8), None));
        let p = phase_times(&[1, 2, 3, 4, 5, 6, 7], 0);
        assert_eq!((p.relocate, p.sweep), (None, Some(7)));
    }
}
