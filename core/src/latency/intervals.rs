//! The stretches of time the program was stopped, cut to a time range, sorted and merged, with
//! running totals: how much of any stretch `[a, b]` was paused is two binary searches (or, for
//! points taken in increasing order, a [`Cursor`] that only moves forward).

use alloc::vec::Vec;

use super::types::TimeRange;
use crate::gc::PauseSpan;

/// Disjoint pause intervals in time order.
#[derive(Debug, Clone)]
pub struct Intervals {
    range: TimeRange,
    starts: Vec<f64>,
    ends: Vec<f64>,
    /// Paused time before interval i (the sum of the lengths of intervals 0..i).
    before: Vec<f64>,
    longest: f64,
}

impl Intervals {
    /// `spans` cut to `range`, overlapping or touching ones merged (a background GC's pause and
    /// a GC inside it never overlap in a well-formed trace; merging keeps time counted once).
    pub fn new(spans: &[PauseSpan], range: TimeRange) -> Intervals {
        let mut cut: Vec<(f64, f64)> = spans
            .iter()
            .map(|s| (s.start_ms.max(range.start_ms), s.end_ms.min(range.end_ms)))
            .filter(|(a, b)| b > a)
            .collect();
        cut.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
        let mut starts: Vec<f64> = Vec::with_capacity(cut.len());
        let mut ends: Vec<f64> = Vec::with_capacity(cut.len());
        for (a, b) in cut {
            match ends.last_mut() {
                Some(e) if a <= *e => *e = e.max(b),
                _ => {
                    starts.push(a);
                    ends.push(b);
                }
            }
        }
        let mut before = Vec::with_capacity(starts.len());
        let (mut sum, mut longest) = (0.0, 0.0f64);
        for (a, b) in starts.iter().zip(&ends) {
            before.push(sum);
            sum += b - a;
            longest = longest.max(b - a);
        }
        Intervals {
            range,
            starts,
            ends,
            before,
            longest,
        }
    }

    pub fn range(&self) -> TimeRange {
        self.range
    }
    pub fn len(&self) -> usize {
        self.starts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }
    /// Interval `i`'s start and end.
    pub fn get(&self, i: usize) -> Option<(f64, f64)> {
        Some((*self.starts.get(i)?, *self.ends.get(i)?))
    }
    pub fn starts(&self) -> &[f64] {
        &self.starts
    }
    pub fn ends(&self) -> &[f64] {
        &self.ends
    }

    /// All paused time in the range.
    pub fn total(&self) -> f64 {
        match (self.before.last(), self.starts.last(), self.ends.last()) {
            (Some(b), Some(s), Some(e)) => b + (e - s),
            _ => 0.0,
        }
    }

    /// Paused time from the range's start to `x`.
    pub fn paused_until(&self, x: f64) -> f64 {
        let k = self.starts.partition_point(|&s| s <= x);
        self.until_with(k, x)
    }

    /// The longest interval (merged pauses).
    pub fn longest(&self) -> f64 {
        self.longest
    }

    /// Calls `each(t, paused in [t, t + w])` for every interval start `t` up to `last`, in order:
    /// the time paused before a start is its running total, and the right edge only moves
    /// forward (amortized O(1) a start; the MMU's inner loop).
    pub fn windows_at_starts(&self, w: f64, last: f64, mut each: impl FnMut(f64, f64)) {
        let (starts, ends, before) = (&self.starts[..], &self.ends[..], &self.before[..]);
        let n = starts.len().min(ends.len()).min(before.len());
        let mut k = 0;
        for i in 0..n {
            let s = starts[i];
            if s > last {
                break;
            }
            let x = s + w;
            while k < n && starts[k] <= x {
                k += 1;
            }
            // k > i: interval i starts at s <= x. Paused up to x, minus paused before s.
            let j = k - 1;
            let until = before[j] + (x.min(ends[j]) - starts[j]).max(0.0);
            each(s, until - before[i]);
        }
    }

    /// Paused time in `[a, b]`.
    pub fn paused_in(&self, a: f64, b: f64) -> f64 {
        (self.paused_until(b) - self.paused_until(a)).max(0.0)
    }

    /// Paused time up to `x` given `k`, the number of intervals that start at or before `x`.
    fn until_with(&self, k: usize, x: f64) -> f64 {
        match k.checked_sub(1) {
            None => 0.0,
            Some(i) => self.before[i] + (x.min(self.ends[i]) - self.starts[i]).max(0.0),
        }
    }

    pub fn cursor(&self) -> Cursor<'_> {
        Cursor { iv: self, k: 0 }
    }
}

/// [`Intervals::paused_until`] for points that never decrease: amortized O(1) a point.
pub struct Cursor<'a> {
    iv: &'a Intervals,
    k: usize,
}

impl Cursor<'_> {
    pub fn paused_until(&mut self, x: f64) -> f64 {
        let starts = &self.iv.starts;
        while self.k < starts.len() && starts[self.k] <= x {
            self.k += 1;
        }
        self.iv.until_with(self.k, x)
    }
}
