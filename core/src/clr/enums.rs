//! The runtime's GC value maps. Names follow TraceEvent where it has one (so they match its
//! baselines: `AllocSmall`, `SuspendOther`, `NonConcurrentGC`, `compact_high_frag`), and the
//! runtime's own names (gc.h, gcrecord.h, ClrEtwAll.man) for values TraceEvent lacks.
//! Unknown values are kept as numbers: `Unknown(raw)`, displayed and serialized as the number.

use core::fmt;

/// Defines a C-like enum over a raw integer with an `Unknown(raw)` fallback.
macro_rules! raw_enum {
    (
        $(#[$meta:meta])*
        $name:ident : $raw:ty { $( $(#[$vmeta:meta])* $value:literal => $variant:ident = $text:literal, )* }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
            /// A value this version of gcscope has no name for.
            Unknown($raw),
        }

        impl $name {
            pub fn from_raw(raw: $raw) -> Self {
                match raw {
                    $( $value => $name::$variant, )*
                    other => $name::Unknown(other),
                }
            }

            pub fn raw(self) -> $raw {
                match self {
                    $( $name::$variant => $value, )*
                    $name::Unknown(raw) => raw,
                }
            }

            /// The value's name, or `"Unknown"` (use `Display` to get the number instead).
            pub fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )*
                    $name::Unknown(_) => "Unknown",
                }
            }

            /// Every named value, in numeric order.
            pub const ALL: &'static [$name] = &[ $( $name::$variant, )* ];
        }

        impl From<$raw> for $name {
            fn from(raw: $raw) -> Self {
                $name::from_raw(raw)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $name::Unknown(raw) => write!(f, "{}", raw),
                    known => f.write_str(known.name()),
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $name::Unknown(raw) => s.serialize_i64(i64::from(*raw)),
                    known => s.serialize_str(known.name()),
                }
            }
        }
    };
}

raw_enum! {
    /// Why a GC was triggered (GCStart.Reason, GCTriggered.Reason, GCGlobalHeapHistory.Reason;
    /// the runtime's `gc_reason`). The manifest's map stops at 9; the GC sends all of these.
    GcReason: u32 {
        0 => AllocSmall = "AllocSmall",
        1 => Induced = "Induced",
        2 => LowMemory = "LowMemory",
        3 => Empty = "Empty",
        4 => AllocLarge = "AllocLarge",
        5 => OutOfSpaceSoh = "OutOfSpaceSOH",
        6 => OutOfSpaceLoh = "OutOfSpaceLOH",
        7 => InducedNotForced = "InducedNotForced",
        /// GC stress or an internal trigger.
        8 => Internal = "Internal",
        9 => InducedLowMemory = "InducedLowMemory",
        10 => InducedCompacting = "InducedCompacting",
        11 => LowMemoryHost = "LowMemoryHost",
        /// Provisional-mode full GC.
        12 => PmFullGc = "PMFullGC",
        13 => LowMemoryHostBlocking = "LowMemoryHostBlocking",
        14 => BgcTuningSoh = "BGCTuningSOH",
        15 => BgcTuningLoh = "BGCTuningLOH",
        16 => BgcStepping = "BGCStepping",
        /// GC.Collect with GCCollectionMode.Aggressive.
        17 => InducedAggressive = "InducedAggressive",
    }
}

impl GcReason {
    /// True for reasons that come from the application asking for a GC.
    pub fn is_induced(self) -> bool {
        matches!(
            self,
            GcReason::Induced
                | GcReason::InducedNotForced
                | GcReason::InducedLowMemory
                | GcReason::InducedCompacting
                | GcReason::InducedAggressive
        )
    }
}

raw_enum! {
    /// GCStart.Type.
    GcType: u32 {
        /// A blocking GC.
        0 => NonConcurrent = "NonConcurrentGC",
        1 => Background = "BackgroundGC",
        /// An ephemeral blocking GC that happens while a background GC is in progress.
        2 => Foreground = "ForegroundGC",
    }
}

raw_enum! {
    /// GCSuspendEEBegin.Reason.
    GcSuspendEeReason: u32 {
        0 => Other = "SuspendOther",
        1 => ForGc = "SuspendForGC",
        2 => ForAppDomainShutdown = "SuspendForAppDomainShutdown",
        3 => ForCodePitching = "SuspendForCodePitching",
        4 => ForShutdown = "SuspendForShutdown",
        5 => ForDebugger = "SuspendForDebugger",
        6 => ForGcPrep = "SuspendForGCPrep",
        7 => ForDebuggerSweep = "SuspendForDebuggerSweep",
    }
}

raw_enum! {
    /// GCCreateSegment.Type.
    GcSegmentType: u32 {
        0 => SmallObjectHeap = "SmallObjectHeap",
        1 => LargeObjectHeap = "LargeObjectHeap",
        /// Frozen / read-only segment.
        2 => ReadOnlyHeap = "ReadOnlyHeap",
        3 => PinnedObjectHeap = "PinnedObjectHeap",
    }
}

raw_enum! {
    /// GCAllocationTick.AllocationKind.
    GcAllocationKind: u32 {
        0 => Small = "Small",
        1 => Large = "Large",
        2 => Pinned = "Pinned",
    }
}

raw_enum! {
    /// SetGCHandle.Kind.
    GcHandleKind: u32 {
        0 => WeakShort = "WeakShort",
        1 => WeakLong = "WeakLong",
        2 => Strong = "Strong",
        3 => Pinned = "Pinned",
        4 => Variable = "Variable",
        5 => RefCounted = "RefCounted",
        6 => Dependent = "Dependent",
        7 => AsyncPinned = "AsyncPinned",
        8 => SizedRef = "SizedRef",
        /// Weak reference to a COM object (`HNDTYPE_WEAK_NATIVE_COM`).
        9 => WeakNativeCom = "WeakNativeCom",
        /// Keeps an interior pointer updated (`HNDTYPE_WEAK_INTERIOR_POINTER`, .NET 9+).
        10 => WeakInteriorPointer = "WeakInteriorPointer",
        /// `HNDTYPE_CROSSREFERENCE` (.NET 10).
        11 => CrossReference = "CrossReference",
    }
}

raw_enum! {
    /// GCMarkWithType.Type and GCBulkRootEdge.GCRootKind: where mark found the roots.
    GcRootKind: u32 {
        0 => Stack = "Stack",
        /// The finalization queue.
        1 => Finalizer = "Finalizer",
        2 => Handle = "Handle",
        /// Cross-generation references (card table).
        3 => Older = "Older",
        4 => SizedRef = "SizedRef",
        5 => Overflow = "Overflow",
        6 => DependentHandle = "DependentHandle",
        7 => NewFq = "NewFQ",
        8 => Steal = "Steal",
        9 => Bgc = "BGC",
    }
}

raw_enum! {
    /// GCGlobalHeapHistory.PauseMode (GCSettings.LatencyMode).
    GcPauseMode: u32 {
        0 => Batch = "Batch",
        1 => Interactive = "Interactive",
        2 => LowLatency = "LowLatency",
        3 => SustainedLowLatency = "SustainedLowLatency",
        4 => NoGc = "NoGC",
    }
}

raw_enum! {
    /// GCJoin.JoinTime.
    GcJoinTime: u32 {
        0 => Start = "Start",
        1 => End = "End",
    }
}

raw_enum! {
    /// GCJoin.JoinType.
    GcJoinType: u32 {
        0 => LastJoin = "LastJoin",
        1 => Join = "Join",
        2 => Restart = "Restart",
        3 => FirstJoin = "FirstJoin",
    }
}

raw_enum! {
    /// GCFitBucketInfo.BucketKind.
    GcBucketKind: u16 {
        0 => LargestFreeListItems = "LargestFreeListItems",
        1 => PlugsInCondemned = "PlugsInCondemned",
    }
}

raw_enum! {
    /// Private BGCAllocWaitBegin/End.Reason.
    BgcAllocWaitReason: u32 {
        9 => GetLohSeg = "GetLOHSeg",
        10 => AllocDuringSweep = "AllocDuringSweep",
        11 => AllocDuringBgc = "AllocDuringBGC",
    }
}

raw_enum! {
    /// Why a heap compacted (`gc_heap_compact_reason`); see [`compact_reason`].
    CompactReason: u32 {
        0 => LowEphemeral = "compact_low_ephemeral",
        1 => HighFrag = "compact_high_frag",
        2 => NoGaps = "compact_no_gaps",
        3 => LohForced = "compact_loh_forced",
        4 => LastGc = "compact_last_gc",
        5 => InducedCompacting = "compact_induced_compacting",
        6 => FragmentedGen0 = "compact_fragmented_gen0",
        7 => HighMemLoad = "compact_high_mem_load",
        8 => HighMemFrag = "compact_high_mem_frag",
        9 => VHighMemFrag = "compact_vhigh_mem_frag",
        10 => NoGcMode = "compact_no_gc_mode",
    }
}

raw_enum! {
    /// How the ephemeral segment was expanded (`gc_heap_expand_mechanism`); see [`expand_mechanism`].
    ExpandMechanism: u32 {
        0 => ReuseNormal = "expand_reuse_normal",
        1 => ReuseBestFit = "expand_reuse_bestfit",
        /// New segment with ephemeral promotion.
        2 => NewSegEp = "expand_new_seg_ep",
        3 => NewSeg = "expand_new_seg",
        4 => NoMemory = "expand_no_memory",
        5 => NextFullGc = "expand_next_full_gc",
    }
}

/// Index of the mechanism in a per-heap mechanism word: the word is 0 when no mechanism was used,
/// else `0x8000_0000 | 1 << index`. `None` for 0; a word with no low bit set gives `Some(31)`.
pub fn mechanism_index(word: u32) -> Option<u32> {
    if word == 0 {
        None
    } else {
        Some((word & 0x7FFF_FFFF).trailing_zeros().min(31))
    }
}

/// Decodes GCPerHeapHistory.CompactMechanisms; `None` when the heap did not compact.
pub fn compact_reason(word: u32) -> Option<CompactReason> {
    mechanism_index(word).map(CompactReason::from_raw)
}

/// Decodes GCPerHeapHistory.ExpandMechanisms; `None` when the heap did not expand.
pub fn expand_mechanism(word: u32) -> Option<ExpandMechanism> {
    mechanism_index(word).map(ExpandMechanism::from_raw)
}

/// GCGlobalHeapHistory.GlobalMechanisms: a bit set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
pub struct GlobalMechanisms(pub u32);

impl GlobalMechanisms {
    pub const CONCURRENT: u32 = 0x1;
    pub const COMPACTION: u32 = 0x2;
    pub const PROMOTION: u32 = 0x4;
    pub const DEMOTION: u32 = 0x8;
    pub const CARD_BUNDLES: u32 = 0x10;
    pub const ELEVATION: u32 = 0x20;
    const NAMES: [(u32, &'static str); 6] = [
        (Self::CONCURRENT, "Concurrent"),
        (Self::COMPACTION, "Compaction"),
        (Self::PROMOTION, "Promotion"),
        (Self::DEMOTION, "Demotion"),
        (Self::CARD_BUNDLES, "CardBundles"),
        (Self::ELEVATION, "Elevation"),
    ];

    pub fn contains(self, bit: u32) -> bool {
        self.0 & bit == bit
    }
    pub fn compaction(self) -> bool {
        self.contains(Self::COMPACTION)
    }
    pub fn concurrent(self) -> bool {
        self.contains(Self::CONCURRENT)
    }
    /// Names of the set bits that have names, in bit order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES
            .into_iter()
            .filter(move |&(b, _)| self.0 & b != 0)
            .map(|(_, n)| n)
    }
    /// Set bits that have no name.
    pub fn unknown_bits(self) -> u32 {
        self.0 & !Self::NAMES.iter().fold(0, |a, &(b, _)| a | b)
    }
}

impl fmt::Display for GlobalMechanisms {
    /// Like TraceEvent: `Compaction, Promotion, CardBundles`; `None` for 0; unnamed bits in hex.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("None");
        }
        let mut first = true;
        for n in self.names() {
            if !first {
                f.write_str(", ")?;
            }
            f.write_str(n)?;
            first = false;
        }
        let rest = self.unknown_bits();
        if rest != 0 {
            if !first {
                f.write_str(", ")?;
            }
            write!(f, "0x{rest:X}")?;
        }
        Ok(())
    }
}

raw_enum! {
    /// The generation-valued condemn reasons (`gc_condemn_reason_gen`), stored 2 bits each in
    /// CondemnReasons0.
    CondemnGenReason: u32 {
        /// The generation the GC first chose.
        0 => Initial = "Initial",
        /// The generation this heap finally condemned.
        1 => FinalPerHeap = "FinalPerHeap",
        /// The highest generation whose allocation budget was exceeded.
        2 => AllocBudget = "AllocBudget",
        /// Generation chosen by time tuning.
        3 => TimeTuning = "TimeTuning",
    }
}

raw_enum! {
    /// The condition condemn reasons (`gc_condemn_reason_condition`), one bit each in
    /// CondemnReasons1.
    CondemnCondition: u32 {
        0 => InducedFullGc = "induced_fullgc",
        1 => ExpandFullGc = "expand_fullgc",
        2 => HighMem = "high_mem",
        3 => VeryHighMem = "very_high_mem",
        4 => LowEphemeral = "low_ephemeral",
        5 => LowCard = "low_card",
        6 => EphHighFrag = "eph_high_frag",
        7 => MaxHighFrag = "max_high_frag",
        8 => MaxHighFragE = "max_high_frag_e",
        9 => MaxHighFragM = "max_high_frag_m",
        10 => MaxHighFragVm = "max_high_frag_vm",
        11 => MaxGen1 = "max_gen1",
        12 => BeforeOom = "before_oom",
        13 => Gen2TooSmall = "gen2_too_small",
        14 => InducedNoForce = "induced_noforce",
        15 => BeforeBgc = "before_bgc",
        16 => AlmostMaxAlloc = "almost_max_alloc",
        17 => JoinedAvoidUnproductive = "joined_avoid_unproductive",
        18 => JoinedPmInducedFullGc = "joined_pm_induced_fullgc",
        19 => JoinedPmAllocLoh = "joined_pm_alloc_loh",
        20 => JoinedGen1InPm = "joined_gen1_in_pm",
        21 => JoinedLimitBeforeOom = "joined_limit_before_oom",
        22 => JoinedLimitLohFrag = "joined_limit_loh_frag",
        23 => JoinedLimitLohReclaim = "joined_limit_loh_reclaim",
        24 => JoinedServoInitial = "joined_servo_initial",
        25 => JoinedServoNgc = "joined_servo_ngc",
        26 => JoinedServoBgc = "joined_servo_bgc",
        27 => JoinedServoPostpone = "joined_servo_postpone",
        28 => JoinedStressMix = "joined_stress_mix",
        29 => JoinedStress = "joined_stress",
        30 => JoinedAggressive = "joined_aggressive",
    }
}

/// The two condemn-reason words of GCPerHeapHistory (V3) / GCGlobalHeapHistory (V3+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct CondemnReasons {
    /// Four 2-bit generation fields, indexed by [`CondemnGenReason`].
    pub reasons0: u32,
    /// Condition bits, bit i = [`CondemnCondition`] i.
    pub reasons1: u32,
}

impl CondemnReasons {
    /// The generation recorded for `reason` (0-3).
    pub fn generation(&self, reason: CondemnGenReason) -> u32 {
        let i = reason.raw();
        if i >= 16 {
            return 0;
        }
        (self.reasons0 >> (2 * i)) & 3
    }
    pub fn initial_gen(&self) -> u32 {
        self.generation(CondemnGenReason::Initial)
    }
    pub fn final_gen(&self) -> u32 {
        self.generation(CondemnGenReason::FinalPerHeap)
    }
    pub fn alloc_budget_gen(&self) -> u32 {
        self.generation(CondemnGenReason::AllocBudget)
    }
    pub fn time_tuning_gen(&self) -> u32 {
        self.generation(CondemnGenReason::TimeTuning)
    }
    pub fn has(&self, c: CondemnCondition) -> bool {
        let i = c.raw();
        i < 32 && self.reasons1 & (1 << i) != 0
    }
    /// The set condition bits, lowest first (bit 31, which has no name, as `Unknown(31)`).
    pub fn conditions(&self) -> impl Iterator<Item = CondemnCondition> {
        let r1 = self.reasons1;
        (0..32u32)
            .filter(move |i| r1 & (1 << i) != 0)
            .map(CondemnCondition::from_raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    #[test]
    fn names_and_unknowns() {
        assert_eq!(GcReason::from_raw(0).name(), "AllocSmall");
        assert_eq!(GcReason::from_raw(17), GcReason::InducedAggressive);
        assert_eq!(GcReason::from_raw(18), GcReason::Unknown(18));
        assert_eq!(GcReason::Unknown(18).to_string(), "18");
        assert_eq!(GcReason::Unknown(18).name(), "Unknown");
        assert_eq!(GcReason::ALL.len(), 18);
        for (i, r) in GcReason::ALL.iter().enumerate() {
            assert_eq!(r.raw(), i as u32);
        }
        assert_eq!(GcType::from_raw(2).to_string(), "ForegroundGC");
        assert_eq!(GcSuspendEeReason::from_raw(0).name(), "SuspendOther");
        assert_eq!(GcRootKind::ALL.len(), 10);
        assert_eq!(CondemnCondition::ALL.len(), 31);
        assert_eq!(CompactReason::ALL.len(), 11);
        assert_eq!(ExpandMechanism::ALL.len(), 6);
        assert_eq!(GcHandleKind::from_raw(3), GcHandleKind::Pinned);
        assert_eq!(BgcAllocWaitReason::from_raw(10).name(), "AllocDuringSweep");
    }

    #[test]
    fn mechanism_words() {
        // gcrecord.h: "0x80000002 for expand using best fit" (1 << 1).
        assert_eq!(
            expand_mechanism(0x8000_0002),
            Some(ExpandMechanism::ReuseBestFit)
        );
        assert_eq!(
            expand_mechanism(0x8000_0001),
            Some(ExpandMechanism::ReuseNormal)
        );
        assert_eq!(expand_mechanism(0), None);
        assert_eq!(
            compact_reason(0x8000_0000 | 1 << 10),
            Some(CompactReason::NoGcMode)
        );
        assert_eq!(
            compact_reason(0x8000_0002).unwrap().name(),
            "compact_high_frag"
        );
        assert_eq!(
            compact_reason(0x8000_0000),
            Some(CompactReason::Unknown(31))
        );
    }

    #[test]
    fn global_mechanisms_display() {
        // 0x16 = Compaction | Promotion | CardBundles, as in the 3.0 baseline's first event.
        assert_eq!(
            GlobalMechanisms(0x16).to_string(),
            "Compaction, Promotion, CardBundles"
        );
        assert_eq!(GlobalMechanisms(0).to_string(), "None");
        assert_eq!(
            GlobalMechanisms(0x21 | 0x100).to_string(),
            "Concurrent, Elevation, 0x100"
        );
        assert!(GlobalMechanisms(0x16).compaction());
    }

    #[test]
    fn condemn_reasons_fields() {
        // The 2.1 x86 baseline's first GCPerHeapHistory: CondemnReasons0=10, CondemnReasons1=8193
        // for an induced gen2 GC: initial and final gen 2; induced_fullgc and gen2_too_small set.
        let c = CondemnReasons {
            reasons0: 10,
            reasons1: 8193,
        };
        assert_eq!(c.initial_gen(), 2);
        assert_eq!(c.final_gen(), 2);
        assert_eq!(c.alloc_budget_gen(), 0);
        assert_eq!(c.time_tuning_gen(), 0);
        let conds: Vec<_> = c.conditions().collect();
        assert_eq!(
            conds,
            [
                CondemnCondition::InducedFullGc,
                CondemnCondition::Gen2TooSmall
            ]
        );
        assert!(c.has(CondemnCondition::InducedFullGc));
        assert!(!c.has(CondemnCondition::HighMem));
        let c = CondemnReasons {
            reasons0: 0b11_10_01_00,
            reasons1: 1 << 30 | 1 << 31,
        };
        assert_eq!(
            (
                c.initial_gen(),
                c.final_gen(),
                c.alloc_budget_gen(),
                c.time_tuning_gen()
            ),
            (0, 1, 2, 3)
        );
        let conds: Vec<_> = c.conditions().collect();
        assert_eq!(
            conds,
            [
                CondemnCondition::JoinedAggressive,
                CondemnCondition::Unknown(31)
            ]
        );
    }
}
