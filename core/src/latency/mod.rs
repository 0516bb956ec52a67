//! Latency answers over the GC model's rows: pause percentiles and counts per generation and type,
//! a log-scale pause histogram and the CDF, a pause budget, mutator utilization over time and the
//! exact minimum mutator utilization (MMU) curve, all for a time range.
//!
//! ```text
//! Gc rows ──PauseLog::add──▶ PauseLog (a pause record per complete GC + the stretches it stopped the program)
//!                               │ analyze(range, options)
//!                               ▼
//!   distribution (percentiles, histogram, CDF)   intervals (cut, merged, running totals)
//!                                                   ├─ utilization (% paused per window, worst windows)
//!                                                   ├─ mmu (worst window of each size, exactly)
//!                                                   └─ budget (GCs over it, worst GCs and windows)
//! ```
//! The pause log is small (40-60 bytes a GC), so a consumer that drops rows as they settle keeps it
//! instead. Every figure is defined in `gc::definitions` (`docs/reference/model.md`, "Latency").

mod budget;
mod distribution;
mod intervals;
mod mmu;
mod pauses;
mod types;
mod utilization;

pub use budget::{budget, WORST_GCS, WORST_WINDOWS};
pub use distribution::{
    bucket_bounds, bucket_of, cdf, histogram, pause_stats, percentile, CDF_POINTS, CDF_TAIL,
    PERCENTILES,
};
pub use intervals::{Cursor, Intervals};
pub use mmu::{candidates, mmu, window_sizes, worst_window};
pub use pauses::{Pause, PauseLog};
pub use types::*;
pub use utilization::{auto_window, over_time, worst_windows, MAX_WINDOWS};

use alloc::vec::Vec;

/// What [`analyze`] is asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// The pause budget, ms.
    pub budget_ms: f64,
    /// Window of the utilization chart and of the budget's worst windows, ms; 0 picks one
    /// ([`auto_window`]: at most 200 windows in the range).
    pub window_ms: f64,
    /// The MMU curve's smallest window, ms.
    pub mmu_min_window_ms: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            budget_ms: 10.0,
            window_ms: 0.0,
            mmu_min_window_ms: 1.0,
        }
    }
}

/// Pause percentiles and counts (all GCs, then each kind) of the pauses that started in `range`:
/// [`analyze`]'s `pauses` alone.
pub fn percentiles(log: &PauseLog, range: TimeRange) -> Vec<PauseStats> {
    pause_stats(log.in_range(range))
}

/// Every latency figure of `range`.
pub fn analyze(log: &PauseLog, range: TimeRange, opts: &Options) -> Latency {
    analyze_timed(log, range, opts, &|| 0.0).0
}

/// How long [`analyze_timed`]'s steps took, ms by the caller's clock.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepTimes {
    /// The range's pauses gathered and their percentiles per kind.
    pub percentiles_ms: f64,
    /// The pause intervals merged and the MMU curve.
    pub mmu_ms: f64,
    /// Histogram, CDF, % paused per window and the budget.
    pub rest_ms: f64,
}

/// [`analyze`], timing its steps with `now` (ms; core has no clock of its own): what the app
/// shows of the cost of percentiles and MMU in the browser.
pub fn analyze_timed(
    log: &PauseLog,
    range: TimeRange,
    opts: &Options,
    now: &dyn Fn() -> f64,
) -> (Latency, StepTimes) {
    let t0 = now();
    let pauses: Vec<Pause> = log.in_range(range).copied().collect();
    let stats = pause_stats(&pauses);
    let t1 = now();
    let len = range.len();
    let iv = Intervals::new(&log.spans, range);
    let mmu = mmu(&iv, &window_sizes(len, opts.mmu_min_window_ms));
    let t2 = now();
    let mut sorted: Vec<f64> = pauses.iter().map(|p| p.pause_ms).collect();
    sorted.sort_unstable_by(f64::total_cmp);
    let utilization = over_time(&iv, opts.window_ms);
    let paused_ms = iv.total();
    let latency = Latency {
        range,
        paused_ms,
        paused_pct: (len > 0.0).then(|| (paused_ms * 100.0 / len).clamp(0.0, 100.0)),
        pauses: stats,
        histogram: histogram(&pauses),
        cdf: cdf(&sorted),
        budget: budget(&pauses, &iv, opts.budget_ms, utilization.window_ms),
        mmu,
        utilization,
    };
    let times = StepTimes {
        percentiles_ms: t1 - t0,
        mmu_ms: t2 - t1,
        rest_ms: now() - t2,
    };
    (latency, times)
}
