//! Minimum mutator utilization, exactly: for a window size `w`, the worst window is found among
//! the only places it needs to be looked for, not by sampling start times.
//!
//! How much of `[t, t + w]` is paused changes with `t` at the rate (right edge in a pause) - (left
//! edge in a pause). While the left edge is in a gap that rate is >= 0, so sliding the window right
//! until its left edge reaches the next pause start (or the range's end) loses nothing; while the
//! left edge is inside a pause the rate is <= 0, so sliding left to that pause's start loses
//! nothing. Hence some worst window starts at a pause start, or at an end of `[from, to - w]`: one
//! candidate per pause, walked in order with two forward-only cursors, O(pauses) per window size.

use alloc::vec::Vec;

use super::intervals::Intervals;
use super::types::MmuPoint;

/// Calls `each(t, paused)` for every window `[t, t + w]` that needs looking at to find the worst:
/// those starting at a pause start, and at either end of the range (`t` clamped into
/// `[from, to - w]`). Nothing when no window of that size fits in the range.
pub fn candidates(iv: &Intervals, w: f64, mut each: impl FnMut(f64, f64)) {
    let range = iv.range();
    let last = range.end_ms - w;
    if w.is_nan() || w <= 0.0 || last < range.start_ms {
        return;
    }
    each(
        range.start_ms,
        iv.paused_in(range.start_ms, range.start_ms + w),
    );
    each(last, iv.paused_in(last, last + w));
    iv.windows_at_starts(w, last, each);
}

/// The window `[t, t + w]` with the most pause: `(t, paused ms)`, the earliest such `t`; `None`
/// when no window of that size fits in the range.
pub fn worst_window(iv: &Intervals, w: f64) -> Option<(f64, f64)> {
    // A window no longer than the longest pause fits inside it: fully paused, nothing can be worse
    // (the earliest such window: the first pause that long).
    let range = iv.range();
    if w <= iv.longest() && range.end_ms - w >= range.start_ms {
        let first = (0..iv.len()).find_map(|i| iv.get(i).filter(|(s, e)| e - s >= w))?;
        let t = first.0.min(range.end_ms - w);
        // Pauses can touch (merged), so the earliest fully paused window may start earlier.
        return Some((t, w))
            .filter(|_| iv.paused_in(t, t + w) >= w)
            .or_else(|| scan(iv, w));
    }
    scan(iv, w)
}

fn scan(iv: &Intervals, w: f64) -> Option<(f64, f64)> {
    let mut best: Option<(f64, f64)> = None;
    candidates(iv, w, |t, paused| match best {
        Some((bt, bp)) if paused < bp || (paused == bp && t >= bt) => {}
        _ => best = Some((t, paused)),
    });
    best
}

/// Window sizes of the MMU curve: preferred numbers (Renard R10: 1, 1.25, 1.6, 2, 2.5, 3.15, 4,
/// 5, 6.3, 8 times a power of ten ms), from `min_ms` up to the range's length, and the length.
pub fn window_sizes(len_ms: f64, min_ms: f64) -> Vec<f64> {
    const R10: [f64; 10] = [1.0, 1.25, 1.6, 2.0, 2.5, 3.15, 4.0, 5.0, 6.3, 8.0];
    let mut out = Vec::new();
    if len_ms.is_nan() || len_ms <= 0.0 {
        return out;
    }
    // The decade of min_ms (windows start at 1 ms unless asked otherwise).
    let mut decade = 1.0;
    while decade > min_ms {
        decade /= 10.0;
    }
    while decade * 10.0 <= min_ms {
        decade *= 10.0;
    }
    'outer: loop {
        for m in R10 {
            let w = m * decade;
            if w >= len_ms {
                break 'outer;
            }
            if w >= min_ms {
                out.push(w);
            }
        }
        decade *= 10.0;
    }
    out.push(len_ms);
    out
}

/// The MMU curve at `sizes`: for each, the lowest % of any window of that size the program ran.
pub fn mmu(iv: &Intervals, sizes: &[f64]) -> Vec<MmuPoint> {
    sizes
        .iter()
        .filter_map(|&w| {
            let (t, paused) = worst_window(iv, w)?;
            Some(MmuPoint {
                window_ms: w,
                min_utilization_pct: ((w - paused) * 100.0 / w).clamp(0.0, 100.0),
                worst_start_ms: t,
            })
        })
        .collect()
}
