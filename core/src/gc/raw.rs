//! What the model keeps about each GC beside its row: facts that feed the derived figures
//! ([`super::derive`]) but are not serialized. The builder fills them as events arrive.

use super::types::CondemnReasons;

/// Facts about a GC that feed derived figures but are not serialized.
#[derive(Debug, Clone, Default)]
pub(crate) struct GcRaw {
    /// GCHeapStats seen: sizes per generation 0..=4, promoted per generation, and its time.
    pub heap_stats: Option<HeapStatsRaw>,
    pub heap_stats_ms: Option<f64>,
    /// Alloc-tick bytes per kind (small, large, pinned) since the previous GC's HeapStats.
    pub alloc_tick: Option<[u64; 3]>,
    pub restart_seen: bool,
    /// No more events are expected for this GC: derived figures have been computed.
    pub closed: bool,
    pub global_seen: bool,
    /// GCStart came without a GC suspension in progress (trace started mid-GC).
    pub no_suspend: bool,
    /// The trace started after this GC's GCStart: the row was made from its GCEnd.
    pub no_start: bool,
    /// GCGlobalHeapHistory's condemn reasons (v3+), merged with the per-heap ones by derive.
    pub global_condemn: Option<CondemnReasons>,
}

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct HeapStatsRaw {
    pub size: [u64; 5],
    pub promoted: [u64; 5],
    /// The event carried generation 4 (POH), i.e. version >= 2.
    pub has_poh: bool,
}
