//! The latency figures' data: what [`super::analyze`] returns for a time range. Units as in the
//! GC model: ms from the trace start, percentages as 0-100. Every field is defined in
//! `gc::definitions` (`docs/reference/model.md`, "Latency").

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::gc::{Gc, GcType, Name};

/// Which pauses a figure counts: a GC's generation and how it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PauseKind {
    /// A blocking (NonConcurrent) gen0 GC.
    Gen0Blocking,
    Gen1Blocking,
    Gen2Blocking,
    /// A background gen2 GC: its pauses added up (it runs mostly while the program runs).
    Background,
    /// An ephemeral blocking GC during a background GC.
    Foreground,
    /// A GC whose type is not in the trace (its GCStart came before the trace): counted in "all".
    Other,
}

impl PauseKind {
    /// Every kind that has its own row of percentiles ([`PauseKind::Other`] is only in "all").
    pub const ROWS: [PauseKind; 5] = [
        PauseKind::Gen0Blocking,
        PauseKind::Gen1Blocking,
        PauseKind::Gen2Blocking,
        PauseKind::Background,
        PauseKind::Foreground,
    ];

    pub fn of(gc: &Gc) -> PauseKind {
        match (gc.gc_type, gc.gen) {
            (GcType::NonConcurrent, 0) => PauseKind::Gen0Blocking,
            (GcType::NonConcurrent, 1) => PauseKind::Gen1Blocking,
            (GcType::NonConcurrent, _) => PauseKind::Gen2Blocking,
            (GcType::Background, _) => PauseKind::Background,
            (GcType::Foreground, _) => PauseKind::Foreground,
            (GcType::Unknown, _) => PauseKind::Other,
        }
    }

    /// The name figures use ("gen0_blocking", ...).
    pub fn name(self) -> &'static str {
        match self {
            PauseKind::Gen0Blocking => "gen0_blocking",
            PauseKind::Gen1Blocking => "gen1_blocking",
            PauseKind::Gen2Blocking => "gen2_blocking",
            PauseKind::Background => "background",
            PauseKind::Foreground => "foreground",
            PauseKind::Other => "other",
        }
    }
}

/// The time range figures cover, ms from the trace start (both ends included).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimeRange {
    pub start_ms: f64,
    pub end_ms: f64,
}

impl TimeRange {
    pub fn new(start_ms: f64, end_ms: f64) -> TimeRange {
        TimeRange { start_ms, end_ms }
    }
    /// Its length (0 when `to` is not after `from`).
    pub fn len(&self) -> f64 {
        (self.end_ms - self.start_ms).max(0.0)
    }
    pub fn is_empty(&self) -> bool {
        self.len() <= 0.0
    }
    pub fn contains(&self, ms: f64) -> bool {
        ms >= self.start_ms && ms <= self.end_ms
    }
}

/// Pause percentiles and counts of one kind of GC (or all).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PauseStats {
    /// "all", "gen0_blocking", "gen1_blocking", "gen2_blocking", "background", "foreground".
    pub kind: Name,
    pub count: u32,
    pub total_ms: f64,
    pub mean_ms: Option<f64>,
    pub p50_ms: Option<f64>,
    pub p90_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub p999_ms: Option<f64>,
    pub max_ms: Option<f64>,
}

/// One bucket of the log-scale pause histogram: pauses with `lo_ms <= pause < hi_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HistogramBucket {
    pub lo_ms: f64,
    pub hi_ms: f64,
    pub count: u32,
}

/// One point of the pause CDF: `pct` % of the pauses were no longer than `pause_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CdfPoint {
    pub pause_ms: f64,
    pub pct: f64,
}

/// A GC that paused longer than the budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorstGc {
    pub number: u32,
    pub kind: Name,
    pub start_ms: f64,
    pub pause_ms: f64,
}

/// A stretch of time of the budget's window size and how much of it was paused.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WindowStat {
    pub start_ms: f64,
    pub end_ms: f64,
    pub paused_ms: f64,
    pub paused_pct: f64,
    /// GCs whose pause started in the window.
    pub gcs: u32,
    /// Of those, the ones that paused longer than the budget.
    pub over_budget: u32,
}

/// "Pause budget: 10 ms": which GCs exceeded it, and the worst stretches of time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    pub budget_ms: f64,
    pub gcs: u32,
    pub over_budget: u32,
    pub over_budget_pct: Option<f64>,
    pub time_over_budget_ms: f64,
    /// The longest pauses over the budget, longest first (at most [`super::WORST_GCS`]).
    pub worst_gcs: Vec<WorstGc>,
    pub window_ms: f64,
    /// The windows of `window_ms` with the most pause, worst first, none overlapping another (at
    /// most [`super::WORST_WINDOWS`]).
    pub worst_windows: Vec<WindowStat>,
}

/// One window of the utilization chart.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct UtilizationWindow {
    pub start_ms: f64,
    pub end_ms: f64,
    pub paused_pct: f64,
}

/// % of each window paused, windows of `window_ms` laid end to end from the range's start (the
/// last one may be shorter).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Utilization {
    pub window_ms: f64,
    pub windows: Vec<UtilizationWindow>,
}

/// One point of the minimum mutator utilization curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MmuPoint {
    pub window_ms: f64,
    /// The lowest share of any window of this size in the range that the program ran.
    pub min_utilization_pct: f64,
    /// Where such a worst window starts.
    pub worst_start_ms: f64,
}

/// Every latency figure of a time range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub range: TimeRange,
    /// Pause time inside the range (pauses cut at its ends).
    pub paused_ms: f64,
    pub paused_pct: Option<f64>,
    /// "all", then each [`PauseKind::ROWS`].
    pub pauses: Vec<PauseStats>,
    pub histogram: Vec<HistogramBucket>,
    pub cdf: Vec<CdfPoint>,
    pub budget: Budget,
    pub utilization: Utilization,
    pub mmu: Vec<MmuPoint>,
}
