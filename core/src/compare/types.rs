//! What a comparison of two traces holds. "A" is the first trace (the baseline), "B" the second;
//! differences are B - A. Every field is defined in `gc::definitions` (`docs/reference/model.md`,
//! "Compare").

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::gc::{Gc, GenRollup, Name, ProcessFacts};
use crate::latency::{CdfPoint, Latency};

/// One GC's heap figures, for allocation rate and heap size over time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HeapPoint {
    pub start_ms: f64,
    pub allocated_bytes: Option<u64>,
    pub peak_bytes: Option<u64>,
    pub after_bytes: Option<u64>,
}

impl HeapPoint {
    pub fn of(gc: &Gc) -> HeapPoint {
        HeapPoint {
            start_ms: gc.start_ms,
            allocated_bytes: gc.allocated_bytes,
            peak_bytes: gc.peak_bytes,
            after_bytes: gc.after_bytes,
        }
    }
}

/// What a comparison needs of one trace: its summaries, latency and heap over time (kept while
/// the rows stream by; 40 bytes a GC for the heap points).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceDigest {
    /// The trace's name as the user gave it (file name or address).
    pub name: String,
    pub process: ProcessFacts,
    /// All, gen0, gen1, gen2 (the model's rollup).
    pub rollup: Vec<GenRollup>,
    pub latency: Latency,
    /// Complete GCs' heap figures, in GC order.
    pub heap: Vec<HeapPoint>,
}

/// Which way a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Lower,
    Higher,
    /// A property of the workload (allocation, duration): neither way is better.
    Neither,
}

/// How B compares with A on one figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Better,
    Worse,
    /// Within [`super::SAME_PCT`] % of A.
    Same,
    /// Different, on a figure that is neither better lower nor higher.
    Changed,
    /// One side has no value.
    NotComparable,
}

/// A fact of the two traces (runtime, GC mode, ...), as text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FactDiff {
    pub key: Name,
    pub label: Name,
    pub a: String,
    pub b: String,
    pub same: bool,
}

/// A figure of both traces and their difference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FigureDiff {
    /// Where the figure comes from: `rollup.<gen>.<field>`, `pauses.<kind>.<field>`,
    /// `latency.<field>`, `budget.<field>`, `mmu.<window>` (defined in docs/reference/model.md).
    pub key: String,
    pub label: String,
    pub unit: Name,
    pub a: Option<f64>,
    pub b: Option<f64>,
    pub delta: Option<f64>,
    pub delta_pct: Option<f64>,
    pub better: Better,
    pub verdict: Verdict,
}

/// One histogram bucket of both traces (the buckets are the same for every trace).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BucketPair {
    pub lo_ms: f64,
    pub hi_ms: f64,
    pub a: u32,
    pub b: u32,
}

/// One window size of both MMU curves (sizes are the same preferred numbers for every trace;
/// each trace's own length is a point of its curve only).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MmuPair {
    pub window_ms: f64,
    pub a: Option<f64>,
    pub b: Option<f64>,
}

/// Allocation rate and heap size of both traces in one stretch of time from each trace's start.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimeBin {
    pub start_ms: f64,
    pub end_ms: f64,
    pub a_alloc_rate_bytes_per_s: Option<f64>,
    pub b_alloc_rate_bytes_per_s: Option<f64>,
    pub a_after_bytes: Option<f64>,
    pub b_after_bytes: Option<f64>,
    pub a_peak_bytes: Option<u64>,
    pub b_peak_bytes: Option<u64>,
}

/// Two traces side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub a: String,
    pub b: String,
    pub facts: Vec<FactDiff>,
    pub figures: Vec<FigureDiff>,
    pub histograms: Vec<BucketPair>,
    pub cdf_a: Vec<CdfPoint>,
    pub cdf_b: Vec<CdfPoint>,
    pub mmu_curves: Vec<MmuPair>,
    pub bin_ms: f64,
    pub over_time: Vec<TimeBin>,
}
