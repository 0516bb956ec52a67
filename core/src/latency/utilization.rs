//! Mutator utilization over time: % of each window paused, windows laid end to end; and the
//! worst windows of a size anywhere (not only on that grid), none overlapping another.

use alloc::vec::Vec;

use super::intervals::Intervals;
use super::mmu::candidates;
use super::types::{Utilization, UtilizationWindow};

/// At most this many windows in the chart: a smaller window is widened to fit.
pub const MAX_WINDOWS: usize = 10_000;

/// A window size for a range of `len_ms`: the 1-2-5 value (1 ms, 2 ms, 5 ms, 10 ms, ...) that
/// gives at most 200 windows.
pub fn auto_window(len_ms: f64) -> f64 {
    let mut w = 1.0;
    let mut i = 0;
    while len_ms / w > 200.0 {
        w *= [2.0, 2.5, 2.0][i % 3];
        i += 1;
    }
    w
}

/// % paused in each window of `window_ms` from the range's start (the last window may be shorter).
pub fn over_time(iv: &Intervals, window_ms: f64) -> Utilization {
    let range = iv.range();
    let len = range.len();
    let mut window_ms = window_ms;
    if window_ms.is_nan() || window_ms <= 0.0 {
        window_ms = auto_window(len);
    }
    if len / window_ms > MAX_WINDOWS as f64 {
        window_ms = len / MAX_WINDOWS as f64;
    }
    let mut windows = Vec::new();
    let mut cur = iv.cursor();
    let mut before = 0.0;
    let mut i = 0u64;
    loop {
        let start = range.start_ms + i as f64 * window_ms;
        if start >= range.end_ms || len <= 0.0 {
            break;
        }
        let end = (start + window_ms).min(range.end_ms);
        let until = cur.paused_until(end);
        windows.push(UtilizationWindow {
            start_ms: start,
            end_ms: end,
            paused_pct: ((until - before) * 100.0 / (end - start)).clamp(0.0, 100.0),
        });
        before = until;
        i += 1;
    }
    Utilization { window_ms, windows }
}

/// Up to `k` windows of `w` with the most pause, worst first, none overlapping another: the worst
/// window anywhere, then, among the windows starting at a pause start or an end of the range
/// (`mmu::candidates`), the worst that overlaps none picked, and so on. `(start, paused)`.
pub fn worst_windows(iv: &Intervals, w: f64, k: usize) -> Vec<(f64, f64)> {
    let mut cand: Vec<(f64, f64)> = Vec::with_capacity(2 * iv.len() + 2);
    candidates(iv, w, |t, paused| {
        if paused > 0.0 {
            cand.push((t, paused));
        }
    });
    cand.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.total_cmp(&b.0)));
    let mut picked: Vec<(f64, f64)> = Vec::new();
    for c in cand {
        if picked.len() >= k {
            break;
        }
        if picked.iter().all(|p| c.0 >= p.0 + w || c.0 + w <= p.0) {
            picked.push(c);
        }
    }
    picked
}
