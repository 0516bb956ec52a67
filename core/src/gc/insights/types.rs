//! The insights' data: everything serializable, one struct per view. Units as in the GC model:
//! bytes, ms from the trace start, % as 0-100, bytes/s. Every field is defined in
//! [`crate::gc::definitions`].

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::alloc_kind::{AllocKind, KindBytes};
use super::tick_bins::TickBins;
use crate::gc::{Name, RootMarks};

/// Everything beyond the GC table, for one trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Insights {
    pub allocations: Allocations,
    pub budgets: Vec<GcBudget>,
    pub roots: Roots,
    pub compaction: Compaction,
    pub suspensions: Suspensions,
    pub finalization: Finalization,
    pub memory_pressure: MemoryPressure,
    pub segments: Segments,
    /// The classic ".NET CLR Memory" counters, one sample at the end of each complete GC.
    pub counters: Vec<CounterSample>,
}

// ---------------------------------------------------------------------------------------------
// Allocations (GCAllocationTick).

/// One GCAllocationTick.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AllocSample {
    pub ms: f64,
    /// Index into [`Allocations::type_names`].
    pub type_index: u32,
    /// AllocationAmount(64): bytes allocated on this heap and kind since the previous tick.
    pub bytes: u64,
    pub kind: AllocKind,
    /// Heap index (version 2+).
    pub heap: Option<u32>,
}

/// Sampled allocation of one type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypeAlloc {
    pub type_name: String,
    pub sampled_bytes: u64,
    pub ticks: u64,
    pub by_kind: KindBytes,
    pub pct: f64,
}

/// Sampled allocation in one time bin.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AllocBin {
    pub start_ms: f64,
    pub end_ms: f64,
    pub bytes: KindBytes,
    /// bytes.total() / bin seconds.
    pub rate_bytes_per_s: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Allocations {
    pub has_events: bool,
    pub tick_count: u64,
    pub sampled_bytes: u64,
    pub by_kind: KindBytes,
    pub ticks_by_kind: KindBytes,
    /// Every type, most sampled bytes first.
    pub top_types: Vec<TypeAlloc>,
    /// Width of the bins of `over_time`.
    pub bin_ms: f64,
    pub over_time: Vec<AllocBin>,
    /// Interned type names ("" when the tick carries none: versions 0-1).
    pub type_names: Vec<String>,
    /// Every tick, in time order (for ranges: [`Allocations::top_types_in`]); empty when the
    /// builder was [`super::InsightsBuilder::bounded`].
    pub samples: Vec<AllocSample>,
    /// The ticks as exact per-type sums in time bins (always filled; bounded in size).
    pub tick_bins: TickBins,
}

// ---------------------------------------------------------------------------------------------
// Budgets (GCPerHeapHistory).

/// One generation's budget figures (one heap, or summed over heaps).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GenBudget {
    /// NewAllocation, read as the runtime's signed value.
    pub budget_bytes: i64,
    pub size_before_bytes: u64,
    pub size_after_bytes: u64,
    pub obj_size_before_bytes: u64,
    pub obj_size_after_bytes: u64,
    pub survived_bytes: u64,
    pub in_bytes: u64,
    pub fragmentation_bytes: u64,
    /// Object bytes this generation gained since the previous GC (gen0, LOH, POH only).
    pub allocated_since_previous_bytes: Option<u64>,
    /// The budget the previous GC left for it.
    pub previous_budget_bytes: Option<i64>,
    pub budget_used_pct: Option<f64>,
}

/// gen0, gen1, gen2, LOH, POH.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GenBudgets {
    pub gen0: GenBudget,
    pub gen1: GenBudget,
    pub gen2: GenBudget,
    pub loh: GenBudget,
    pub poh: GenBudget,
}

impl GenBudgets {
    pub fn get(&self, i: usize) -> Option<&GenBudget> {
        [&self.gen0, &self.gen1, &self.gen2, &self.loh, &self.poh]
            .get(i)
            .copied()
    }
    pub fn get_mut(&mut self, i: usize) -> Option<&mut GenBudget> {
        match i {
            0 => Some(&mut self.gen0),
            1 => Some(&mut self.gen1),
            2 => Some(&mut self.gen2),
            3 => Some(&mut self.loh),
            4 => Some(&mut self.poh),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeapBudgets {
    pub heap: u32,
    pub budget_exceeded_gen: Option<u8>,
    pub generations: GenBudgets,
}

/// Budgets of one GC and why it collected the generation it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GcBudget {
    pub gc_number: u32,
    pub gen: u8,
    pub start_ms: f64,
    pub reason: Name,
    pub induced: bool,
    pub initial_gen: Option<u8>,
    pub budget_exceeded_gen: Option<u8>,
    pub time_tuning_gen: Option<u8>,
    pub conditions: Vec<Name>,
    /// The GC collected an older generation than the one first chosen.
    pub escalated: bool,
    pub why: String,
    pub total: GenBudgets,
    pub heaps: Vec<HeapBudgets>,
}

// ---------------------------------------------------------------------------------------------
// Mark roots (GCMarkWithType).

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GcRoots {
    pub gc_number: u32,
    pub gen: u8,
    pub start_ms: f64,
    pub marked: RootMarks,
    pub total_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RootKindTotal {
    pub kind: Name,
    pub bytes: u64,
    pub pct: f64,
    pub gcs: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Roots {
    pub has_events: bool,
    pub event_count: u64,
    pub total: RootMarks,
    pub total_bytes: u64,
    pub by_kind: Vec<RootKindTotal>,
    pub per_gc: Vec<GcRoots>,
}

// ---------------------------------------------------------------------------------------------
// Compaction (GCBulkMovedObjectRanges / GCBulkSurvivingObjectRanges).

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GcCompaction {
    pub gc_number: u32,
    pub gen: u8,
    pub moved_ranges: u64,
    pub moved_bytes: u64,
    pub relocated_bytes: u64,
    pub surviving_ranges: u64,
    pub surviving_bytes: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Compaction {
    pub has_events: bool,
    pub moved_events: u64,
    pub surviving_events: u64,
    pub moved_bytes: u64,
    pub relocated_bytes: u64,
    pub surviving_bytes: u64,
    pub per_gc: Vec<GcCompaction>,
    /// Range events outside every GC's window.
    pub unattributed_events: u64,
}

// ---------------------------------------------------------------------------------------------
// Suspensions (GCSuspendEEBegin .. GCRestartEEEnd).

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suspension {
    pub begin_ms: f64,
    pub reason: Name,
    pub reason_code: u32,
    pub thread: u64,
    pub suspend_ms: Option<f64>,
    pub pause_ms: Option<f64>,
    pub gc_number: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GcSuspension {
    pub gc_number: u32,
    pub gen: u8,
    pub count: u32,
    pub reasons: Vec<Name>,
    pub total_suspend_ms: f64,
    pub max_suspend_ms: f64,
    pub total_pause_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuspendReasonStats {
    pub reason: Name,
    pub count: u64,
    pub total_suspend_ms: f64,
    pub max_suspend_ms: f64,
    pub total_pause_ms: f64,
    pub max_pause_ms: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Suspensions {
    pub has_events: bool,
    pub count: u64,
    pub by_reason: Vec<SuspendReasonStats>,
    pub per_gc: Vec<GcSuspension>,
    /// Suspensions with reason ForGC / ForGCPrep.
    pub for_gc: Vec<Suspension>,
    /// Every other suspension (debugger, shutdown, thread abort, tiered compilation, ...).
    pub not_for_gc: Vec<Suspension>,
}

// ---------------------------------------------------------------------------------------------
// Finalization.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinalizerRun {
    pub begin_ms: Option<f64>,
    pub end_ms: f64,
    pub duration_ms: Option<f64>,
    pub count: u32,
    pub after_gc: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GcFinalization {
    pub gc_number: u32,
    pub gen: u8,
    pub promoted_bytes: Option<u64>,
    pub promoted_count: Option<u64>,
    pub finalizers_run: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinalizedType {
    pub type_name: String,
    pub count: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Finalization {
    pub has_events: bool,
    pub finalizers_run: u64,
    pub runs: Vec<FinalizerRun>,
    pub per_gc: Vec<GcFinalization>,
    pub finalize_object_events: u64,
    pub by_type: Vec<FinalizedType>,
}

// ---------------------------------------------------------------------------------------------
// Memory pressure (GC.AddMemoryPressure / RemoveMemoryPressure).

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PressurePoint {
    pub ms: f64,
    pub delta_bytes: i64,
    pub net_bytes: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryPressure {
    pub has_events: bool,
    pub increase_count: u64,
    pub decrease_count: u64,
    pub increased_bytes: u64,
    pub decreased_bytes: u64,
    pub net_bytes: i64,
    pub peak_net_bytes: i64,
    pub over_time: Vec<PressurePoint>,
}

// ---------------------------------------------------------------------------------------------
// Segments and regions.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    pub address: u64,
    pub size_bytes: Option<u64>,
    pub kind: Name,
    pub created_ms: Option<f64>,
    pub freed_ms: Option<f64>,
}

/// Bytes per segment kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SegmentBytes {
    pub soh: u64,
    pub loh: u64,
    pub poh: u64,
    pub read_only: u64,
    pub total: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ReservedPoint {
    pub ms: f64,
    pub bytes: SegmentBytes,
}

/// Bytes per generation (gen0, gen1, gen2, LOH, POH).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct GenBytes {
    pub gen0: u64,
    pub gen1: u64,
    pub gen2: u64,
    pub loh: u64,
    pub poh: u64,
}

impl GenBytes {
    pub fn add(&mut self, gen: u8, bytes: u64) {
        let slot = match gen {
            0 => &mut self.gen0,
            1 => &mut self.gen1,
            2 => &mut self.gen2,
            3 => &mut self.loh,
            _ => &mut self.poh,
        };
        *slot = slot.saturating_add(bytes);
    }
}

/// One burst of GCGenerationRange events: the heap's ranges at that moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RangeSnapshot {
    pub ms: f64,
    pub gc_number: Option<u32>,
    pub ranges: u32,
    pub used_bytes: GenBytes,
    pub reserved_bytes: GenBytes,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Segments {
    pub has_events: bool,
    pub created: u64,
    pub freed: u64,
    pub segments: Vec<Segment>,
    pub reserved_over_time: Vec<ReservedPoint>,
    pub generation_range_events: u64,
    pub range_snapshots: Vec<RangeSnapshot>,
}

// ---------------------------------------------------------------------------------------------
// Classic performance counters.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CounterSample {
    pub gc_number: u32,
    pub ms: f64,
    pub gen0_collections: u32,
    pub gen1_collections: u32,
    pub gen2_collections: u32,
    pub induced_gcs: u32,
    pub gen0_heap_size_bytes: Option<u64>,
    pub gen1_heap_size_bytes: Option<u64>,
    pub gen2_heap_size_bytes: Option<u64>,
    pub loh_size_bytes: Option<u64>,
    pub poh_size_bytes: Option<u64>,
    pub bytes_in_all_heaps: Option<u64>,
    pub promoted_from_gen0_bytes: Option<u64>,
    pub promoted_from_gen1_bytes: Option<u64>,
    pub promoted_finalization_from_gen0_bytes: Option<u64>,
    pub finalization_survivors: Option<u64>,
    pub gc_handles: Option<u32>,
    pub pinned_objects: Option<u32>,
    pub sync_blocks_in_use: Option<u32>,
    pub time_in_gc_pct: Option<f64>,
    pub allocated_bytes_per_s: Option<f64>,
    pub total_committed_bytes: Option<u64>,
}
