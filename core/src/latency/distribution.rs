//! The pause distribution: percentiles per kind of GC, a log-scale histogram and the CDF.
//!
//! Percentiles are nearest-rank: the p-th percentile is the smallest pause such that at least p %
//! of the pauses are no longer (the `ceil(p/100 * n)`-th shortest), so it is always a pause that
//! happened, and p99.9 of fewer than 1,000 GCs is the longest.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::pauses::Pause;
use super::types::{CdfPoint, HistogramBucket, PauseKind, PauseStats};

/// The percentiles reported, in thousandths of a percent (exact integer ranks: 99.9 % is 99,900).
pub const PERCENTILES: [u32; 5] = [50_000, 90_000, 95_000, 99_000, 99_900];

/// The nearest-rank percentile `p` (thousandths of a percent) of `sorted` (ascending).
pub fn percentile(sorted: &[f64], p: u32) -> Option<f64> {
    let n = sorted.len() as u64;
    if n == 0 {
        return None;
    }
    // ceil(p * n / 100,000), at least 1: integer arithmetic, so 99.9 % of 1,000 is rank 999.
    let rank = (p as u64 * n).div_ceil(100_000).clamp(1, n);
    sorted.get(rank as usize - 1).copied()
}

/// Percentiles and counts of all pauses, then of each [`PauseKind::ROWS`].
pub fn pause_stats<'a>(pauses: impl IntoIterator<Item = &'a Pause>) -> Vec<PauseStats> {
    let mut all: Vec<f64> = Vec::new();
    let mut by_kind: [Vec<f64>; 5] = Default::default();
    for p in pauses {
        all.push(p.pause_ms);
        if let Some(i) = PauseKind::ROWS.iter().position(|k| *k == p.kind) {
            by_kind[i].push(p.pause_ms);
        }
    }
    let mut out = Vec::with_capacity(6);
    out.push(stats("all", all));
    for (kind, v) in PauseKind::ROWS.iter().zip(by_kind) {
        out.push(stats(kind.name(), v));
    }
    out
}

fn stats(kind: &'static str, mut v: Vec<f64>) -> PauseStats {
    v.sort_unstable_by(f64::total_cmp);
    // An empty f64 sum is -0.0; + 0.0 makes it 0 (JSON "0.0", not "-0.0").
    let total: f64 = v.iter().sum::<f64>() + 0.0;
    let p = |q| percentile(&v, q);
    PauseStats {
        kind: Cow::Borrowed(kind),
        count: v.len() as u32,
        total_ms: total,
        mean_ms: (!v.is_empty()).then(|| total / v.len() as f64),
        p50_ms: p(PERCENTILES[0]),
        p90_ms: p(PERCENTILES[1]),
        p95_ms: p(PERCENTILES[2]),
        p99_ms: p(PERCENTILES[3]),
        p999_ms: p(PERCENTILES[4]),
        max_ms: v.last().copied(),
    }
}

/// The histogram's bucket edges in µs: 1-2-5 steps (10, 20, 50, 100 µs, ... 1, 2, 5 ms, ...),
/// three a decade, the same for every trace so that two traces' histograms line up. Bucket 0 is
/// everything under 10 µs.
fn edge_us(i: u32) -> f64 {
    // i = 1 -> 10 µs, 2 -> 20, 3 -> 50, 4 -> 100, ...
    let mut decade = 10.0;
    for _ in 0..(i - 1) / 3 {
        decade *= 10.0;
    }
    decade * [1.0, 2.0, 5.0][((i - 1) % 3) as usize]
}

/// The bucket `[lo, hi)` ms number `i` (0: below 10 µs).
pub fn bucket_bounds(i: u32) -> (f64, f64) {
    let lo = if i == 0 { 0.0 } else { edge_us(i) / 1000.0 };
    (lo, edge_us(i + 1) / 1000.0)
}

/// The bucket a pause falls in.
pub fn bucket_of(pause_ms: f64) -> u32 {
    let mut i = 0;
    // 60 buckets reach 10^21 µs; a longer "pause" (a broken timestamp) goes in the last one.
    while i < 60 && pause_ms >= bucket_bounds(i).1 {
        i += 1;
    }
    i
}

/// The pause histogram: every bucket from the one of the shortest pause to the one of the
/// longest (empty ones between included, so the axis has no gaps).
pub fn histogram<'a>(pauses: impl IntoIterator<Item = &'a Pause>) -> Vec<HistogramBucket> {
    let mut counts: Vec<u32> = Vec::new();
    let mut first = u32::MAX;
    for p in pauses {
        let b = bucket_of(p.pause_ms);
        if counts.len() <= b as usize {
            counts.resize(b as usize + 1, 0);
        }
        counts[b as usize] += 1;
        first = first.min(b);
    }
    (first.min(counts.len() as u32)..counts.len() as u32)
        .map(|i| {
            let (lo_ms, hi_ms) = bucket_bounds(i);
            HistogramBucket {
                lo_ms,
                hi_ms,
                count: counts[i as usize],
            }
        })
        .collect()
}

/// Points kept of a long CDF: this many evenly spaced ranks, plus every one of the longest
/// [`CDF_TAIL`] pauses (the tail is where latency questions are).
pub const CDF_POINTS: usize = 1024;
pub const CDF_TAIL: usize = 256;

/// The CDF of `sorted` (ascending pauses): exact (a point per pause) up to
/// `CDF_POINTS + CDF_TAIL` pauses; beyond that, the points at evenly spaced ranks and the tail.
pub fn cdf(sorted: &[f64]) -> Vec<CdfPoint> {
    let n = sorted.len();
    let point = |rank: usize| CdfPoint {
        pause_ms: sorted[rank - 1],
        pct: rank as f64 * 100.0 / n as f64,
    };
    if n <= CDF_POINTS + CDF_TAIL {
        return (1..=n).map(point).collect();
    }
    let tail_from = n - CDF_TAIL;
    let mut out: Vec<CdfPoint> = (1..=CDF_POINTS)
        .map(|j| (j * tail_from).div_ceil(CDF_POINTS))
        .map(point)
        .collect();
    out.extend((tail_from + 1..=n).map(point));
    out
}
