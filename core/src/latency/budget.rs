//! A pause budget ("no pause over 10 ms"): how many GCs broke it and by how much, the longest
//! offenders, and the stretches of time with the most pause.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::intervals::Intervals;
use super::pauses::Pause;
use super::types::{Budget, WindowStat, WorstGc};
use super::utilization::worst_windows;

/// The longest pauses over the budget listed.
pub const WORST_GCS: usize = 10;
/// The worst windows listed.
pub const WORST_WINDOWS: usize = 5;

/// `pauses`: those in the range; `iv`: the range's pause intervals; `window_ms`: the size of the
/// worst windows.
pub fn budget(pauses: &[Pause], iv: &Intervals, budget_ms: f64, window_ms: f64) -> Budget {
    let over: Vec<&Pause> = pauses.iter().filter(|p| p.pause_ms > budget_ms).collect();
    let mut worst: Vec<&Pause> = over.clone();
    worst.sort_by(|a, b| {
        b.pause_ms
            .total_cmp(&a.pause_ms)
            .then(a.number.cmp(&b.number))
    });
    let worst_gcs = worst
        .iter()
        .take(WORST_GCS)
        .map(|p| WorstGc {
            number: p.number,
            kind: Cow::Borrowed(p.kind.name()),
            start_ms: p.start_ms,
            pause_ms: p.pause_ms,
        })
        .collect();
    // Pause starts in order, to count the GCs of a window by two binary searches.
    let mut starts: Vec<(f64, bool)> = pauses
        .iter()
        .map(|p| (p.start_ms, p.pause_ms > budget_ms))
        .collect();
    starts.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut over_before: Vec<u32> = Vec::with_capacity(starts.len() + 1);
    over_before.push(0);
    for (i, s) in starts.iter().enumerate() {
        over_before.push(over_before[i] + s.1 as u32);
    }
    let worst_windows = worst_windows(iv, window_ms, WORST_WINDOWS)
        .into_iter()
        .map(|(t, paused)| {
            let end = t + window_ms;
            let a = starts.partition_point(|s| s.0 < t);
            let b = starts.partition_point(|s| s.0 < end);
            WindowStat {
                start_ms: t,
                end_ms: end,
                paused_ms: paused,
                paused_pct: (paused * 100.0 / window_ms).clamp(0.0, 100.0),
                gcs: (b - a) as u32,
                over_budget: over_before[b] - over_before[a],
            }
        })
        .collect();
    let n = pauses.len() as u32;
    Budget {
        budget_ms,
        gcs: n,
        over_budget: over.len() as u32,
        over_budget_pct: (n > 0).then(|| over.len() as f64 * 100.0 / n as f64),
        // + 0.0: an empty f64 sum is -0.0.
        time_over_budget_ms: over.iter().map(|p| p.pause_ms - budget_ms).sum::<f64>() + 0.0,
        worst_gcs,
        window_ms,
        worst_windows,
    }
}
