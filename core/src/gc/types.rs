//! The GC model's data: one [`Gc`] row per collection and the whole-trace summaries.
//!
//! Units everywhere: sizes in bytes, times in milliseconds from the trace start (the header's sync
//! time), rates in bytes per second, percentages as 0–100. Every serialized field has a one-line
//! definition in [`super::definitions`]. A figure that the trace does not carry is `None`, and the
//! row's `missing` list says why; it never shifts other rows.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// A name from a fixed table (`'static` while building, owned after deserializing).
pub type Name = Cow<'static, str>;

/// How the collection ran (GCStart's Type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GcType {
    /// Blocking: the whole collection runs while managed threads are suspended.
    NonConcurrent,
    /// A gen2 collection that marks and sweeps while managed threads run.
    Background,
    /// An ephemeral blocking collection that runs while a background GC is in progress.
    Foreground,
    /// A type value this model does not know.
    Unknown,
}

impl GcType {
    pub fn from_code(code: u32) -> GcType {
        match code {
            0 => GcType::NonConcurrent,
            1 => GcType::Background,
            2 => GcType::Foreground,
            _ => GcType::Unknown,
        }
    }
    /// PerfView's one-letter suffix (N, B, F).
    pub fn letter(self) -> char {
        match self {
            GcType::NonConcurrent => 'N',
            GcType::Background => 'B',
            GcType::Foreground => 'F',
            GcType::Unknown => '?',
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            GcType::NonConcurrent => "NonConcurrent",
            GcType::Background => "Background",
            GcType::Foreground => "Foreground",
            GcType::Unknown => "Unknown",
        }
    }
}

/// One collection. Numbered by the runtime's own count (GCStart's Count).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gc {
    pub number: u32,
    /// Generation collected (0, 1 or 2): GCEnd's depth, GCStart's when GCEnd is missing.
    pub gen: u8,
    #[serde(rename = "type")]
    pub gc_type: GcType,
    pub reason: Name,
    pub reason_code: u32,
    pub induced: bool,
    /// False when the trace ended (or was cut) before the GC finished.
    pub complete: bool,
    /// Why some figures of this row are `None` (events the trace does not have for this GC).
    pub missing: Vec<Name>,

    // Timing.
    pub start_ms: f64,
    pub gc_start_ms: f64,
    pub end_ms: Option<f64>,
    pub duration_ms: Option<f64>,
    pub suspend_ms: Option<f64>,
    pub pause_ms: Option<f64>,
    pub bgc_final_pause_ms: Option<f64>,
    /// Background GC only: each of its pauses, in order; their lengths add up to `pause_ms`. A
    /// blocking GC's one pause is `start_ms` to `start_ms + pause_ms`.
    pub bgc_pauses: Vec<PauseSpan>,
    pub since_previous_gc_ms: Option<f64>,
    pub pause_pct: Option<f64>,

    // Allocation since the previous GC.
    pub gen0_allocated_bytes: Option<u64>,
    pub loh_allocated_bytes: Option<u64>,
    pub poh_allocated_bytes: Option<u64>,
    pub allocated_bytes: Option<u64>,
    pub gen0_alloc_rate_bytes_per_s: Option<f64>,
    pub alloc_rate_bytes_per_s: Option<f64>,
    pub alloc_tick_bytes: Option<u64>,

    // Heap sizes.
    pub before_bytes: Option<u64>,
    pub peak_bytes: Option<u64>,
    pub after_bytes: Option<u64>,
    pub peak_after_ratio: Option<f64>,
    pub promoted_bytes: Option<u64>,
    pub generations: Generations,

    // GCHeapStats counters.
    pub finalization_promoted_bytes: Option<u64>,
    pub finalization_promoted_count: Option<u64>,
    pub pinned_object_count: Option<u32>,
    pub gc_handle_count: Option<u32>,
    pub sync_block_count: Option<u32>,

    // GCGlobalHeapHistory.
    pub heap_count: Option<u32>,
    pub condemned_gen: Option<u8>,
    pub pause_mode: Option<Name>,
    pub memory_pressure_pct: Option<u32>,
    pub global_mechanisms: Option<Vec<Name>>,
    pub gen0_budget_bytes: Option<u64>,
    pub gen0_reduction_count: Option<u32>,
    pub phase_times_us: Option<PhaseTimes>,

    /// The condemn reasons of the heap that decided the generation, merged with the global ones.
    pub condemn: Option<CondemnReasons>,
    /// GCPerHeapHistory, one per heap, in heap order.
    pub heaps: Vec<HeapHistory>,

    // Pinning seen during this GC.
    pub pinned_objects: Vec<PinnedObject>,
    pub pinned_objects_bytes: Option<u64>,
    pub pinned_plugs: Vec<PinnedPlug>,
    pub pinned_plug_bytes: Option<u64>,
    pub user_pinned_plug_bytes: Option<u64>,
    pub pinned_object_pct: Option<f64>,

    /// Bytes marked (promoted) from each root kind, summed over heaps (GCMarkWithType).
    pub marked_bytes: Option<RootMarks>,
}

/// One stretch of time the managed threads were stopped, ms from the trace start.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PauseSpan {
    pub start_ms: f64,
    pub end_ms: f64,
}

/// Per-generation figures of one GC, for gen0, gen1, gen2, LOH and POH.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Generations {
    pub gen0: GenStats,
    pub gen1: GenStats,
    pub gen2: GenStats,
    pub loh: GenStats,
    pub poh: GenStats,
}

impl Generations {
    pub const NAMES: [&'static str; 5] = ["gen0", "gen1", "gen2", "loh", "poh"];
    pub fn get(&self, i: usize) -> Option<&GenStats> {
        match i {
            0 => Some(&self.gen0),
            1 => Some(&self.gen1),
            2 => Some(&self.gen2),
            3 => Some(&self.loh),
            4 => Some(&self.poh),
            _ => None,
        }
    }
    pub fn get_mut(&mut self, i: usize) -> Option<&mut GenStats> {
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

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GenStats {
    pub size_before_bytes: Option<u64>,
    pub size_after_bytes: Option<u64>,
    pub promoted_bytes: Option<u64>,
    pub survived_bytes: Option<u64>,
    pub survival_pct: Option<f64>,
    pub fragmentation_bytes: Option<u64>,
    pub fragmentation_pct: Option<f64>,
    pub budget_bytes: Option<u64>,
    pub in_bytes: Option<u64>,
}

/// GCGlobalHeapHistory v4 phase times (microseconds as the GC reports them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseTimes {
    pub mark_sized_ref: Option<u32>,
    pub mark_roots: Option<u32>,
    pub mark_short_weak: Option<u32>,
    pub mark_finalization: Option<u32>,
    pub mark_long_weak: Option<u32>,
    pub plan: Option<u32>,
    pub relocate: Option<u32>,
    pub compact: Option<u32>,
    pub sweep: Option<u32>,
}

/// Decoded CondemnReasons0/1: generation-valued reasons and the named condition bits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CondemnReasons {
    pub initial_gen: u8,
    pub final_gen: u8,
    pub alloc_budget_gen: u8,
    pub time_tuning_gen: u8,
    pub conditions: Vec<Name>,
    pub raw0: u32,
    pub raw1: u32,
}

/// One heap's GCPerHeapHistory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeapHistory {
    pub heap: u32,
    pub condemn: CondemnReasons,
    pub compact_mechanism: Option<Name>,
    pub expand_mechanism: Option<Name>,
    pub free_list_allocated_bytes: u64,
    pub free_list_rejected_bytes: u64,
    pub end_of_seg_allocated_bytes: u64,
    pub condemned_allocated_bytes: u64,
    pub pinned_allocated_bytes: u64,
    pub pinned_allocated_advance_bytes: u64,
    pub running_free_list_efficiency_pct: u32,
    pub extra_gen0_commit_bytes: u64,
    /// Index = generation: gen0, gen1, gen2, LOH, POH (as many as the event carries).
    pub generations: Vec<HeapGen>,
}

/// One generation of one heap, as GCPerHeapHistory reports it, plus figures derived from it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeapGen {
    pub size_before_bytes: u64,
    pub free_list_before_bytes: u64,
    pub free_obj_before_bytes: u64,
    pub size_after_bytes: u64,
    pub free_list_after_bytes: u64,
    pub free_obj_after_bytes: u64,
    pub in_bytes: u64,
    pub pinned_survived_bytes: u64,
    pub non_pinned_survived_bytes: u64,
    pub new_allocation_bytes: u64,
    pub obj_space_before_bytes: u64,
    pub survived_bytes: u64,
    pub survival_pct: Option<f64>,
    pub fragmentation_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PinnedObject {
    pub handle: u64,
    pub address: u64,
    pub size_bytes: u64,
    pub type_name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PinnedPlug {
    pub start: u64,
    pub end: u64,
    pub gap_before_bytes: u64,
    /// A PinObjectAtGCTime object of this GC lies inside the plug.
    pub by_user: bool,
}

/// Bytes marked per root kind (GCRootKind), summed over heaps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RootMarks {
    pub stack: u64,
    pub finalize_queue: u64,
    pub handles: u64,
    pub older: u64,
    pub sized_ref: u64,
    pub overflow: u64,
    pub dependent_handles: u64,
    pub new_finalize_queue: u64,
    pub steal: u64,
    pub bgc: u64,
}

impl RootMarks {
    pub fn add(&mut self, kind: u32, bytes: u64) -> bool {
        let slot = match kind {
            0 => &mut self.stack,
            1 => &mut self.finalize_queue,
            2 => &mut self.handles,
            3 => &mut self.older,
            4 => &mut self.sized_ref,
            5 => &mut self.overflow,
            6 => &mut self.dependent_handles,
            7 => &mut self.new_finalize_queue,
            8 => &mut self.steal,
            9 => &mut self.bgc,
            _ => return false,
        };
        *slot = slot.saturating_add(bytes);
        true
    }
}

// ---------------------------------------------------------------------------------------------
// Whole trace.

/// Everything the model knows about a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GcModel {
    pub process: ProcessFacts,
    pub gcs: Vec<Gc>,
    /// Index 0 = all GCs, then gen0, gen1, gen2.
    pub rollup: Vec<GenRollup>,
    pub condemn_reasons: CondemnBreakdown,
    pub handles: HandleSummary,
    pub pinning: PinSummary,
    /// Anomalies seen while building (events that could not be attributed, decode errors).
    pub notes: Vec<String>,
    /// DATAS: heap-count changes and the tuning behind them (empty without DATAS events).
    #[serde(default)]
    pub datas: super::datas::DatasModel,
    /// Threads that waited on LOH allocation during background GCs (private provider).
    #[serde(default)]
    pub alloc_waits: super::alloc_waits::AllocWaits,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcessFacts {
    pub format: String,
    pub pointer_size: u8,
    pub process_id: u32,
    /// The process's image name (machine-wide ETW traces, from the kernel's process events).
    /// (Always serialized: the app's worker messages are postcard, which cannot skip fields.)
    pub process_name: Option<String>,
    pub processor_count: u32,
    pub runtime_version: Option<String>,
    pub command_line: Option<String>,
    pub os: Option<String>,
    pub arch: Option<String>,
    /// "server" or "workstation", from the events that say it (see `gc_mode_evidence`); `None`
    /// when the trace cannot tell (a 1-heap trace is not taken for workstation GC).
    pub gc_mode: Option<Name>,
    /// The most heaps any GC used (DATAS changes the count: `heap_count_min` is the fewest).
    pub heap_count: Option<u32>,
    #[serde(default)]
    pub heap_count_min: Option<u32>,
    /// How often the heap count changed from one GC to the next (only DATAS changes it).
    #[serde(default)]
    pub heap_count_changes: u32,
    /// DATAS (server GC adapting its heap count) on, off, or unknown.
    #[serde(default)]
    pub datas: Option<bool>,
    /// Background GC enabled: GCSettingsRundown flags, Runtime/Start flags, or a background GC seen.
    pub concurrent: Option<bool>,
    /// The GC runs with regions (.NET 7+) rather than segments.
    #[serde(default)]
    pub regions: Option<bool>,
    /// The GC during which the runtime walked the heap (GCBulkNode events: the induced gen2 GC of
    /// a heap snapshot, `gcscope heap` reads the walk), by number; the first where several did.
    #[serde(default)]
    pub heap_walk_gc: Option<u32>,
    pub hard_limit_bytes: Option<u64>,
    /// Each GC setting with its value and the evidence for it (or the events that would tell).
    #[serde(default)]
    pub gc_mode_evidence: Vec<ModeFact>,
    pub trace_start_utc: String,
    pub trace_duration_ms: f64,
    pub first_event_ms: Option<f64>,
    pub last_event_ms: Option<f64>,
    /// Time between the first complete GC's pause start and the last GC's end (TraceEvent's
    /// GCStats.ProcessDuration, the denominator of PerfView's % time paused).
    pub gc_span_ms: f64,
    pub events: u64,
    pub runtime_events: u64,
    pub gc_events: u64,
    pub payload_errors: u64,
    pub dropped_events: Option<u64>,
    /// Events the decoder delivered after a later one (see `DecodeStats::out_of_order_events`).
    #[serde(default)]
    pub out_of_order_events: u64,
    pub gc_count: u32,
    pub incomplete_gc_count: u32,
}

/// One GC setting as the trace shows it (see `gc::mode`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModeFact {
    /// gc, datas, heaps, concurrent, regions, conserve_memory, hard_limit.
    pub setting: Name,
    /// The value, or "unknown".
    pub value: String,
    /// The events that show it, or the events that would.
    pub evidence: String,
}

/// Rollup of the complete GCs of one generation (or all): PerfView's "GC Rollup By Generation".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GenRollup {
    /// "all", "0", "1", "2".
    pub gen: Name,
    pub count: u32,
    pub induced_count: u32,
    pub background_count: u32,
    pub max_pause_ms: f64,
    pub mean_pause_ms: f64,
    pub total_pause_ms: f64,
    pub max_suspend_ms: f64,
    pub total_duration_ms: f64,
    pub max_peak_bytes: u64,
    pub mean_peak_bytes: f64,
    pub mean_after_bytes: f64,
    pub total_allocated_bytes: u64,
    pub max_alloc_rate_bytes_per_s: f64,
    pub total_promoted_bytes: u64,
    pub allocated_per_pause_ms_bytes: Option<f64>,
    pub promoted_per_gc_ms_bytes: Option<f64>,
    /// total_pause / the process's time in the trace (`trace_duration_ms`).
    pub pause_time_pct: Option<f64>,
    /// total_pause / `gc_span_ms`: TraceEvent's GetGCPauseTimePercentage (PerfView's "% Time
    /// paused for Garbage Collection").
    pub gc_span_pause_pct: Option<f64>,
}

/// Why GCs condemned their generation: counts of GCs per generation (index 0..=2).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CondemnBreakdown {
    /// GCs per trigger reason (GCStart's Reason).
    pub by_trigger: Vec<ReasonCount>,
    /// GCs per decoded condemn condition / generation-valued reason.
    pub by_condition: Vec<ReasonCount>,
    /// GCs with no GCPerHeapHistory (so no condemn reasons), per generation.
    pub without_history: [u32; 3],
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReasonCount {
    pub reason: Name,
    pub per_gen: [u32; 3],
    pub total: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HandleSummary {
    /// True when the trace carries SetGCHandle/DestroyGCHandle events at all.
    pub has_events: bool,
    pub created: u64,
    pub destroyed: u64,
    /// DestroyGCHandle for a handle created before the trace started.
    pub destroyed_unmatched: u64,
    /// SetGCHandle for a handle id still live: the runtime freed the slot without a
    /// DestroyGCHandle event (the earlier handle is counted as neither destroyed nor alive).
    pub reused_without_destroy: u64,
    pub by_kind: Vec<HandleKindCount>,
    /// Live handles (created in the trace, not yet destroyed) sampled at each GC start and at the end.
    pub live_over_time: Vec<TimePoint>,
    pub alive_at_end: Vec<LiveHandle>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandleKindCount {
    pub kind: Name,
    pub created: u64,
    pub destroyed: u64,
    pub alive_at_end: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveHandle {
    pub handle: u64,
    pub object: u64,
    pub kind: Name,
    pub generation: u32,
    pub created_ms: f64,
    /// From a PinObjectAtGCTime event naming this handle, when there was one.
    pub type_name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimePoint {
    pub ms: f64,
    pub value: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PinSummary {
    pub has_events: bool,
    pub pinned_object_events: u64,
    pub pinned_plug_events: u64,
    pub gcs_with_pins: u32,
    pub by_type: Vec<PinnedType>,
    /// Per GC: (GC pause start, PinObjectAtGCTime count in that GC).
    pub pinned_over_time: Vec<TimePoint>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PinnedType {
    pub type_name: String,
    pub count: u64,
    pub total_bytes: u64,
    pub gcs: u32,
}
