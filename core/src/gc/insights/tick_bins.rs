//! Allocation ticks folded into time bins as they arrive, so memory stays bounded however long the
//! trace: a busy process fires ~10,000 GCAllocationTicks a second (15 million in a 2 GB trace),
//! which as one record each would outweigh everything else the viewer keeps.
//!
//! Each bin holds the exact sums per type (bytes per kind, tick count) of the ticks in
//! `[start_ms, start_ms + bin_ms)`. Bins start at multiples of `bin_ms`, a power of two of
//! milliseconds: it starts at 1 ms and doubles (adjacent pairs merged) whenever more than
//! [`MAX_BINS`] bins exist, so a range on bin boundaries still sums exactly.

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::alloc_kind::{AllocKind, KindBytes};

/// Most bins kept; past this the width doubles (so between half and all of it are in use).
pub const MAX_BINS: usize = 512;
/// The first width: a tick stands for ~100 KB, so finer bins would only hold single ticks.
const FIRST_BIN_MS: f64 = 1.0;

/// One type's ticks in one bin.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct TypeTicks {
    /// Index into `Allocations::type_names`.
    pub type_index: u32,
    pub bytes: KindBytes,
    pub ticks: u64,
}

impl TypeTicks {
    pub fn merge(&mut self, o: &TypeTicks) {
        self.bytes.small = self.bytes.small.saturating_add(o.bytes.small);
        self.bytes.large = self.bytes.large.saturating_add(o.bytes.large);
        self.bytes.pinned = self.bytes.pinned.saturating_add(o.bytes.pinned);
        self.ticks = self.ticks.saturating_add(o.ticks);
    }
}

/// The ticks of one bin, per type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TickBin {
    pub start_ms: f64,
    /// One entry per type seen in the bin, by `type_index`.
    pub types: Vec<TypeTicks>,
}

/// Every tick of the trace, per type and time bin. Only bins with ticks are listed, in time order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TickBins {
    pub bin_ms: f64,
    pub bins: Vec<TickBin>,
    /// Ticks per allocation kind over the whole trace.
    pub ticks_by_kind: KindBytes,
}

/// Builds [`TickBins`] from ticks in time order.
#[derive(Debug, Clone, Default)]
pub(crate) struct TickBinner {
    out: TickBins,
    /// The bin being filled, dense by type index, with the indices touched (to clear it cheaply).
    current: Option<f64>,
    per: Vec<TypeTicks>,
    touched: Vec<u32>,
}

impl TickBinner {
    pub(crate) fn add(&mut self, ms: f64, type_index: u32, kind: AllocKind, bytes: u64) {
        // Most ticks fall in the current bin: `bin_start` would give `c` (bins start at multiples
        // of a power-of-two width, so `ms / width` is exact), no need to compute it.
        let in_current = matches!(self.current, Some(c) if ms >= c && ms < c + self.out.bin_ms);
        if !in_current {
            self.enter_bin(ms);
        }
        let i = type_index as usize;
        if i >= self.per.len() {
            self.per.resize(i + 1, TypeTicks::default());
        }
        let slot = &mut self.per[i];
        if slot.ticks == 0 {
            slot.type_index = type_index;
            self.touched.push(type_index);
        }
        slot.bytes.add(kind, bytes);
        slot.ticks += 1;
        self.out.ticks_by_kind.add(kind, 1);
    }

    /// Makes the bin of `ms` current (the first tick, or a tick past the current bin).
    #[cold]
    fn enter_bin(&mut self, ms: f64) {
        if self.out.bin_ms == 0.0 {
            self.out.bin_ms = FIRST_BIN_MS;
        }
        // A time that is not a number (never seen) joins the current bin.
        let start = match bin_start(ms, self.out.bin_ms) {
            s if s.is_finite() => s,
            _ => self.current.unwrap_or(0.0),
        };
        match self.current {
            // Ticks are in time order; one that is not (a clock step) stays in the current bin.
            Some(c) if start > c => {
                self.flush();
                self.current = Some(start);
            }
            Some(_) => {}
            None => self.current = Some(start),
        }
    }

    /// Moves the current bin into the output (merging it into the last bin when a widening made
    /// them one), then widens while there are too many bins.
    fn flush(&mut self) {
        let Some(start) = self.current.take() else {
            return;
        };
        self.touched.sort_unstable();
        let mut types = Vec::with_capacity(self.touched.len());
        for &t in &self.touched {
            if let Some(slot) = self.per.get_mut(t as usize) {
                types.push(core::mem::take(slot));
            }
        }
        self.touched.clear();
        push_bin(
            &mut self.out.bins,
            TickBin {
                start_ms: start,
                types,
            },
        );
        while self.out.bins.len() > MAX_BINS {
            self.widen();
        }
    }

    /// Doubles the width: each pair of bins that now share a start becomes one.
    fn widen(&mut self) {
        let w = self.out.bin_ms * 2.0;
        self.out.bin_ms = w;
        let old = core::mem::take(&mut self.out.bins);
        for mut b in old {
            b.start_ms = bin_start(b.start_ms, w);
            push_bin(&mut self.out.bins, b);
        }
        if let Some(c) = self.current {
            self.current = Some(bin_start(c, w));
        }
    }

    pub(crate) fn finish(mut self) -> TickBins {
        self.flush();
        self.out
    }
}

fn bin_start(ms: f64, width: f64) -> f64 {
    floor(ms / width) * width
}

/// `f64::floor` without std.
pub(super) fn floor(x: f64) -> f64 {
    let t = x as i64 as f64;
    if t > x {
        t - 1.0
    } else {
        t
    }
}

/// Appends `b`, or merges it into the last bin when they start at the same time.
fn push_bin(bins: &mut Vec<TickBin>, b: TickBin) {
    match bins.last_mut() {
        Some(last) if last.start_ms == b.start_ms => {
            last.types = merge_types(core::mem::take(&mut last.types), b.types)
        }
        _ => bins.push(b),
    }
}

/// Merges two lists sorted by type index.
fn merge_types(a: Vec<TypeTicks>, b: Vec<TypeTicks>) -> Vec<TypeTicks> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.type_index == y.type_index => {
                let mut t = *x;
                t.merge(y);
                a.next();
                b.next();
                t
            }
            (Some(x), Some(y)) if x.type_index < y.type_index => {
                let t = *x;
                a.next();
                t
            }
            (_, Some(y)) => {
                let t = *y;
                b.next();
                t
            }
            (Some(x), None) => {
                let t = *x;
                a.next();
                t
            }
            (None, None) => break,
        };
        out.push(next);
    }
    out
}

impl TickBins {
    /// Sums of every bin: per type (dense by type index, for `type_count` types), per kind, and
    /// the tick count.
    pub fn per_type(&self, type_count: usize) -> Vec<TypeTicks> {
        self.per_type_in(type_count, f64::NEG_INFINITY, f64::INFINITY)
    }

    /// Like [`TickBins::per_type`] over the bins that overlap `[from_ms, to_ms)`; exact for a range
    /// on bin boundaries, else it also counts the partly covered bins at its ends.
    pub fn per_type_in(&self, type_count: usize, from_ms: f64, to_ms: f64) -> Vec<TypeTicks> {
        let mut per = Vec::new();
        per.resize(type_count, TypeTicks::default());
        for b in self.overlapping(from_ms, to_ms) {
            for t in &b.types {
                if let Some(slot) = per.get_mut(t.type_index as usize) {
                    slot.type_index = t.type_index;
                    slot.merge(t);
                }
            }
        }
        per
    }

    /// The bins that overlap `[from_ms, to_ms)`.
    pub fn overlapping(&self, from_ms: f64, to_ms: f64) -> impl Iterator<Item = &TickBin> {
        let w = self.bin_ms;
        let lo = self.bins.partition_point(|b| b.start_ms + w <= from_ms);
        let hi = self.bins.partition_point(|b| b.start_ms < to_ms);
        self.bins[lo..hi.max(lo)].iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact per-type sums of `ticks` over `[from, to)`, computed the plain way.
    fn naive(ticks: &[(f64, u32, u64)], from: f64, to: f64) -> Vec<(u32, u64, u64)> {
        let mut v: Vec<(u32, u64, u64)> = Vec::new();
        for &(_, t, b) in ticks.iter().filter(|x| x.0 >= from && x.0 < to) {
            match v.iter_mut().find(|e| e.0 == t) {
                Some(e) => {
                    e.1 += b;
                    e.2 += 1
                }
                None => v.push((t, b, 1)),
            }
        }
        v.sort();
        v
    }

    fn sums(per: &[TypeTicks]) -> Vec<(u32, u64, u64)> {
        per.iter()
            .filter(|t| t.ticks > 0)
            .map(|t| (t.type_index, t.bytes.total(), t.ticks))
            .collect()
    }

    #[test]
    fn stays_bounded_and_sums_exactly_on_bin_boundaries() {
        // 200,000 ticks over ~100 s, 7 types, some gaps and bursts.
        let mut ticks = Vec::new();
        let mut ms = -3.25;
        for i in 0..200_000u64 {
            ms += if i % 1000 == 0 { 40.0 } else { 0.37 };
            ticks.push((ms, (i * 7 % 13 % 7) as u32, 100_000 + i % 977));
        }
        let mut b = TickBinner::default();
        for &(ms, t, bytes) in &ticks {
            b.add(ms, t, AllocKind::Small, bytes);
        }
        let bins = b.finish();
        assert!(bins.bins.len() <= MAX_BINS && bins.bins.len() > MAX_BINS / 4);
        assert!(bins.bin_ms >= 128.0, "{}", bins.bin_ms);
        assert!(bins.bins.windows(2).all(|w| w[0].start_ms < w[1].start_ms));
        assert_eq!(sums(&bins.per_type(7)), naive(&ticks, f64::MIN, f64::MAX));
        let w = bins.bin_ms;
        for (from, to) in [
            (0.0, 10.0 * w),
            (7.0 * w, 8.0 * w),
            (-w, 3.0 * w),
            (50.0 * w, 1e9),
        ] {
            assert_eq!(
                sums(&bins.per_type_in(7, from, to)),
                naive(&ticks, from, to),
                "[{from}, {to})"
            );
        }
    }

    #[test]
    fn kinds_and_types_merge_across_widening() {
        let mut b = TickBinner::default();
        for i in 0..(MAX_BINS as u32 * 3) {
            let kind = if i % 3 == 0 {
                AllocKind::Large
            } else {
                AllocKind::Small
            };
            b.add(i as f64, i % 2, kind, 10);
        }
        let bins = b.finish();
        let per = bins.per_type(2);
        assert_eq!(per[0].ticks + per[1].ticks, MAX_BINS as u64 * 3);
        let large: u64 = per.iter().map(|t| t.bytes.large).sum();
        assert_eq!(large, 10 * MAX_BINS as u64);
        assert!(bins.bins.iter().all(|b| b
            .types
            .windows(2)
            .all(|w| w[0].type_index < w[1].type_index)));
    }

    #[test]
    fn empty_and_out_of_order() {
        assert_eq!(TickBinner::default().finish(), TickBins::default());
        let mut b = TickBinner::default();
        b.add(5.0, 0, AllocKind::Small, 1);
        b.add(2.0, 0, AllocKind::Small, 1); // stays in the current bin
        b.add(f64::NAN, 1, AllocKind::Small, 1);
        let bins = b.finish();
        assert_eq!(bins.per_type(2).iter().map(|t| t.ticks).sum::<u64>(), 3);
    }
}
