//! The codes a SizeAdaptationTuning event (.NET 9+ DATAS) carries, named as the runtime's GC
//! defines them: why it changed the heap count (or did not), what it adjusted, and what made it
//! wait. .NET 8's HeapCountTuning and the SizeAdaptationFullGCTuning event carry no such codes.
//!
//! Source (facts only: value -> meaning): dotnet/runtime `src/coreclr/gc/gcpriv.h`,
//! `gc_heap::dynamic_heap_count_data_t`: the enums `decide_change_condition`,
//! `decide_adjustment_reason`, `hc_change_freq_reason` and `adjust_metric`, with the
//! `should_change`, `should_change_hc` and `get_hc_change_freq_factors` that set them; the event is
//! fired (`GCEventFireSizeAdaptationTuning_V1`, in the heap-count calculation; read in
//! dotnet/runtime's main, where it moved out of gc.cpp) with the codes cast to integers in the
//! order ChangeDecision, AdjReason, HcChangeFreqFactor, HcFreqReason, AdjMetric. The enums were
//! read in two snapshots of gcpriv.h with the .NET 9/10 DATAS code (forks of dotnet/runtime:
//! willibrandon/runtime@961301d3 and MichalPetryka/runtime@e8b5f1a5; the release tags themselves
//! could not be listed): the values are the same in both, and the committed 9.0.5 and 10.0.11
//! traces carry only values from these tables (`core/tests/datas_codes.rs`).
//!
//! `decide_change_condition` is one value; the reasons are bit sets (the runtime ORs them). A value
//! or bit this table does not know is kept and shown as its number, never an error.

use alloc::string::String;
use alloc::vec::Vec;

/// Why `should_change` let DATAS consider a change, or what stopped it (ChangeDecision).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeDecision {
    /// 0 (`init_change_condition`): no check stopped it; the cost was far enough from the target
    /// for long enough, so DATAS worked out a change (what it did is the adjustment metric).
    Considered,
    /// 1 (`change`): defined by the runtime, not set by the versions read.
    Change,
    /// 2 (`too_few_samples`): the heap count changed fewer than 6 GCs (two samples of 3) ago.
    TooFewSamples,
    /// 4 (`not_enough_diff_accumulated`): the cost has not been far enough from the target for
    /// long enough.
    NotEnoughDiffAccumulated,
    /// 8 (`already_toward_target`): the recent costs already trend toward the target.
    AlreadyTowardTarget,
    /// 16 (`tcp_in_range`): the cost is within 20% of the target and steady.
    TcpInRange,
    /// 32 (`temp_change`): the cost moved sharply but briefly; taken as temporary.
    TempChange,
    Unknown(u16),
}

impl ChangeDecision {
    const ALL: [(ChangeDecision, u16, &'static str, &'static str); 7] = [
        (
            ChangeDecision::Considered,
            0,
            "init_change_condition",
            "throughput cost off target long enough to consider a change",
        ),
        (ChangeDecision::Change, 1, "change", "change"),
        (
            ChangeDecision::TooFewSamples,
            2,
            "too_few_samples",
            "too few GCs since the last heap-count change",
        ),
        (
            ChangeDecision::NotEnoughDiffAccumulated,
            4,
            "not_enough_diff_accumulated",
            "throughput cost not far enough from target for long enough",
        ),
        (
            ChangeDecision::AlreadyTowardTarget,
            8,
            "already_toward_target",
            "throughput cost already moving toward target",
        ),
        (
            ChangeDecision::TcpInRange,
            16,
            "tcp_in_range",
            "throughput cost within 20% of target and steady",
        ),
        (
            ChangeDecision::TempChange,
            32,
            "temp_change",
            "throughput cost changed only briefly",
        ),
    ];

    pub fn from_raw(v: u16) -> Self {
        Self::ALL
            .iter()
            .find(|e| e.1 == v)
            .map_or(ChangeDecision::Unknown(v), |e| e.0)
    }

    pub fn raw(self) -> u16 {
        match self {
            ChangeDecision::Unknown(v) => v,
            k => Self::ALL.iter().find(|e| e.0 == k).map_or(0, |e| e.1),
        }
    }

    /// The runtime's name of the value; a value it does not define is its number.
    pub fn name(self) -> String {
        match Self::ALL.iter().find(|e| e.0 == self) {
            Some(e) => e.2.into(),
            None => alloc::format!("{}", self.raw()),
        }
    }

    /// What it means, in words ("unknown change decision N" for a value we do not know).
    pub fn words(self) -> String {
        match Self::ALL.iter().find(|e| e.0 == self) {
            Some(e) => e.3.into(),
            None => alloc::format!("unknown change decision {}", self.raw()),
        }
    }
}

/// What DATAS adjusted once it considered a change (AdjMetric).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdjustMetric {
    /// 0 (`not_adjusted`).
    NotAdjusted,
    /// 1 (`adjust_budget`): the gen0 budget instead of the heap count.
    Budget,
    /// 2 (`adjust_hc`): the heap count.
    HeapCount,
    Unknown(u8),
}

impl AdjustMetric {
    pub fn from_raw(v: u8) -> Self {
        match v {
            0 => AdjustMetric::NotAdjusted,
            1 => AdjustMetric::Budget,
            2 => AdjustMetric::HeapCount,
            v => AdjustMetric::Unknown(v),
        }
    }

    pub fn raw(self) -> u8 {
        match self {
            AdjustMetric::NotAdjusted => 0,
            AdjustMetric::Budget => 1,
            AdjustMetric::HeapCount => 2,
            AdjustMetric::Unknown(v) => v,
        }
    }

    /// The runtime's name of the value; a value it does not define is its number.
    pub fn name(self) -> String {
        match self {
            AdjustMetric::NotAdjusted => "not_adjusted".into(),
            AdjustMetric::Budget => "adjust_budget".into(),
            AdjustMetric::HeapCount => "adjust_hc".into(),
            AdjustMetric::Unknown(v) => alloc::format!("{v}"),
        }
    }
}

/// A set of bit flags the runtime ORs together, with each bit's runtime name and meaning, and the
/// name of the empty set.
pub struct FlagTable {
    pub none: &'static str,
    pub bits: &'static [(u16, &'static str, &'static str)],
}

/// Why the heap-count step was changed or turned into a budget adjustment (AdjReason,
/// `decide_adjustment_reason`).
pub const ADJUSTMENT_REASONS: FlagTable = FlagTable {
    none: "init_adjustment_reason",
    bits: &[
        (1, "limited_by_bounds", "step cut by the heap-count bounds"),
        (
            2,
            "cannot_adjust_budget",
            "already at the heap count the budget calls for, so only the heap count can move",
        ),
        (
            4,
            "change_pct_too_small",
            "change under 20% of the heaps: the gen0 budget is adjusted instead",
        ),
        (
            8,
            "change_too_soon",
            "too few GCs since the last heap-count change for this kind of change",
        ),
    ],
};

/// What made DATAS space heap-count changes further apart (HcFreqReason, `hc_change_freq_reason`;
/// the factor is HcChangeFreqFactor).
pub const FREQUENCY_REASONS: FlagTable = FlagTable {
    none: "default_reason",
    bits: &[
        (
            1,
            "expensive_hc_change",
            "the last heap-count change took longer than an average GC pause",
        ),
        (2, "dec", "decreases are made less often than increases"),
        (4, "dec_multiple", "a second decrease in a row"),
        (8, "fluctuation", "an increase soon after a decrease"),
    ],
};

/// Which text of a bit's entry (its name or its words).
type Pick = fn(&(u16, &'static str, &'static str)) -> &'static str;

impl FlagTable {
    /// The runtime's names of the bits set, joined with `|` (bits it does not define as one hex
    /// number); the empty set's name for 0.
    pub fn name(&self, v: u16) -> String {
        if v == 0 {
            return self.none.into();
        }
        self.each(v, |b| b.1, "").join("|")
    }

    /// What each bit set means, in words (unknown bits as "unknown reason 0xN").
    pub fn words(&self, v: u16) -> Vec<String> {
        self.each(v, |b| b.2, "unknown reason ")
    }

    /// One text per bit of `v` the table defines (`pick` chooses which), then the bits it does
    /// not define as one hex number after `unknown`.
    fn each(&self, v: u16, pick: Pick, unknown: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .bits
            .iter()
            .filter(|b| v & b.0 != 0)
            .map(|b| String::from(pick(b)))
            .collect();
        let rest = v & !self.known();
        if rest != 0 {
            out.push(alloc::format!("{unknown}{rest:#x}"));
        }
        out
    }

    fn known(&self) -> u16 {
        self.bits.iter().fold(0, |a, b| a | b.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_round_trips_and_unknown_values_keep_their_number() {
        for v in 0..=64u16 {
            let d = ChangeDecision::from_raw(v);
            assert_eq!(d.raw(), v);
            let known = [0, 1, 2, 4, 8, 16, 32].contains(&v);
            assert_eq!(matches!(d, ChangeDecision::Unknown(_)), !known, "{v}");
            if !known {
                assert_eq!(d.name(), alloc::format!("{v}"));
                assert!(d.words().ends_with(&alloc::format!(" {v}")));
            }
        }
        assert_eq!(ChangeDecision::from_raw(2).name(), "too_few_samples");
        for v in 0..=255u8 {
            assert_eq!(AdjustMetric::from_raw(v).raw(), v);
        }
        assert_eq!(AdjustMetric::from_raw(2), AdjustMetric::HeapCount);
        assert_eq!(AdjustMetric::from_raw(3).name(), "3");
    }

    #[test]
    fn flag_sets_name_each_bit_and_keep_unknown_bits() {
        assert_eq!(ADJUSTMENT_REASONS.name(0), "init_adjustment_reason");
        assert_eq!(ADJUSTMENT_REASONS.name(1), "limited_by_bounds");
        assert_eq!(
            ADJUSTMENT_REASONS.name(3),
            "limited_by_bounds|cannot_adjust_budget"
        );
        assert_eq!(ADJUSTMENT_REASONS.name(0x48), "change_too_soon|0x40");
        assert_eq!(ADJUSTMENT_REASONS.words(0x40), ["unknown reason 0x40"]);
        assert_eq!(FREQUENCY_REASONS.name(0), "default_reason");
        assert_eq!(FREQUENCY_REASONS.name(6), "dec|dec_multiple");
        assert!(FREQUENCY_REASONS.words(0).is_empty());
    }
}
