//! Allocations from GCAllocationTick: the runtime fires one tick each time about 100 KB more has
//! been allocated on a heap (per kind: small, large, pinned), naming the type of the object whose
//! allocation crossed the threshold and the bytes allocated since the previous tick. Summing those
//! amounts per type is a sample-based estimate (every byte is charged to the type that happened
//! to cross the threshold), not an exact count; it is the same estimate PerfView's allocation
//! views make.

use alloc::string::String;
use alloc::vec::Vec;

use super::alloc_kind::KindBytes;
use super::tick_bins::{floor, TickBins, TypeTicks};
use super::types::*;

/// Bins of the default allocation-rate series.
const TARGET_BINS: f64 = 200.0;
/// Most bins [`Allocations::rate_over_time`] makes (a caller's tiny bin must not exhaust memory).
const MAX_BINS: usize = 1_000_000;
/// Narrowest default bin: a tick stands for ~100 KB, so narrower bins only show single ticks.
const MIN_BIN_MS: f64 = 1.0;

pub(crate) fn allocations(
    type_names: Vec<String>,
    samples: Vec<AllocSample>,
    tick_bins: TickBins,
) -> Allocations {
    // The samples are every tick only if there are as many as the bins counted (a builder that
    // kept those of a time range: the whole trace's figures come from the bins).
    if (samples.len() as u64) < tick_bins.ticks_by_kind.total() || samples.is_empty() {
        return Allocations {
            samples,
            ..from_bins(type_names, tick_bins)
        };
    }
    let mut a = Allocations {
        has_events: !samples.is_empty(),
        type_names,
        samples,
        tick_bins,
        ..Allocations::default()
    };
    for s in &a.samples {
        a.tick_count += 1;
        a.sampled_bytes = a.sampled_bytes.saturating_add(s.bytes);
        a.by_kind.add(s.kind, s.bytes);
        a.ticks_by_kind.add(s.kind, 1);
    }
    a.top_types = a.top_types_in(f64::NEG_INFINITY, f64::INFINITY);
    if let (Some(first), Some(last)) = (a.samples.first(), a.samples.last()) {
        a.bin_ms = nice_bin(last.ms - first.ms);
        a.over_time = a.rate_over_time(a.bin_ms);
    }
    a
}

/// The same figures from the bins alone (the builder kept no samples): totals and top types are
/// exact; `over_time` uses the bins' own width, with a zero bin at each edge of a gap.
fn from_bins(type_names: Vec<String>, tick_bins: TickBins) -> Allocations {
    let mut a = Allocations {
        has_events: !tick_bins.bins.is_empty(),
        bin_ms: tick_bins.bin_ms,
        ticks_by_kind: tick_bins.ticks_by_kind,
        ..Allocations::default()
    };
    let per = tick_bins.per_type(type_names.len());
    let mut all = TypeTicks::default();
    for t in &per {
        all.merge(t);
    }
    (a.tick_count, a.by_kind) = (all.ticks, all.bytes);
    a.sampled_bytes = a.by_kind.total();
    a.top_types = ranked(&type_names, &per);
    let w = tick_bins.bin_ms;
    let bin = |start_ms: f64, bytes: KindBytes| AllocBin {
        start_ms,
        end_ms: start_ms + w,
        bytes,
        rate_bytes_per_s: bytes.total() as f64 * 1000.0 / w,
    };
    let mut prev_end: Option<f64> = None;
    for b in &tick_bins.bins {
        if let Some(end) = prev_end.filter(|&e| e < b.start_ms) {
            a.over_time.push(bin(end, KindBytes::default()));
            if end + w < b.start_ms {
                a.over_time.push(bin(b.start_ms - w, KindBytes::default()));
            }
        }
        let mut all = TypeTicks::default();
        for t in &b.types {
            all.merge(t);
        }
        a.over_time.push(bin(b.start_ms, all.bytes));
        prev_end = Some(b.start_ms + w);
    }
    a.type_names = type_names;
    a.tick_bins = tick_bins;
    a
}

/// Per-type sums (dense by type index) as [`TypeAlloc`]s, most bytes first (ties: by name).
pub fn ranked(type_names: &[String], per: &[TypeTicks]) -> Vec<TypeAlloc> {
    let total = per
        .iter()
        .fold(0u64, |acc, t| acc.saturating_add(t.bytes.total()));
    let mut out: Vec<TypeAlloc> = per
        .iter()
        .filter(|t| t.ticks > 0)
        .map(|t| TypeAlloc {
            type_name: type_names
                .get(t.type_index as usize)
                .cloned()
                .unwrap_or_default(),
            sampled_bytes: t.bytes.total(),
            ticks: t.ticks,
            by_kind: t.bytes,
            pct: if total > 0 {
                t.bytes.total() as f64 * 100.0 / total as f64
            } else {
                0.0
            },
        })
        .collect();
    out.sort_by(|a, b| {
        b.sampled_bytes
            .cmp(&a.sampled_bytes)
            .then_with(|| a.type_name.cmp(&b.type_name))
    });
    out
}

/// 1, 2 or 5 × 10^k ms (at least 1 ms) such that the span is cut into at most about 200 bins.
fn nice_bin(span_ms: f64) -> f64 {
    let raw = (span_ms / TARGET_BINS).max(MIN_BIN_MS);
    let mut unit = MIN_BIN_MS;
    loop {
        for m in [1.0, 2.0, 5.0] {
            if unit * m >= raw {
                return unit * m;
            }
        }
        unit *= 10.0;
    }
}

impl Allocations {
    /// The ticks with `from_ms <= ms < to_ms` (ticks are in time order).
    pub fn samples_in(&self, from_ms: f64, to_ms: f64) -> &[AllocSample] {
        let lo = self.samples.partition_point(|s| s.ms < from_ms);
        let hi = self.samples.partition_point(|s| s.ms < to_ms);
        &self.samples[lo..hi.max(lo)]
    }

    /// Sampled bytes per kind and the tick count for ticks with `from_ms <= ms < to_ms`.
    pub fn totals_in(&self, from_ms: f64, to_ms: f64) -> (KindBytes, u64) {
        let mut k = KindBytes::default();
        let ticks = self.samples_in(from_ms, to_ms);
        for s in ticks {
            k.add(s.kind, s.bytes);
        }
        (k, ticks.len() as u64)
    }

    /// The type name of a tick ("" when the tick version has none).
    pub fn type_name(&self, s: &AllocSample) -> &str {
        self.type_names
            .get(s.type_index as usize)
            .map_or("", |n| n.as_str())
    }

    /// Sampled bytes and ticks per type for ticks with `from_ms <= ms < to_ms`, most bytes
    /// first (ties: by name). `pct` is the share of the range's sampled bytes.
    pub fn top_types_in(&self, from_ms: f64, to_ms: f64) -> Vec<TypeAlloc> {
        let mut per: Vec<Option<TypeAlloc>> = Vec::new();
        per.resize(self.type_names.len(), None);
        let mut total = 0u64;
        for s in self.samples_in(from_ms, to_ms) {
            let Some(slot) = per.get_mut(s.type_index as usize) else {
                continue;
            };
            let t = slot.get_or_insert_with(|| TypeAlloc {
                type_name: self.type_names[s.type_index as usize].clone(),
                sampled_bytes: 0,
                ticks: 0,
                by_kind: KindBytes::default(),
                pct: 0.0,
            });
            t.sampled_bytes = t.sampled_bytes.saturating_add(s.bytes);
            t.ticks += 1;
            t.by_kind.add(s.kind, s.bytes);
            total = total.saturating_add(s.bytes);
        }
        let mut out: Vec<TypeAlloc> = per.into_iter().flatten().collect();
        for t in &mut out {
            t.pct = if total > 0 {
                t.sampled_bytes as f64 * 100.0 / total as f64
            } else {
                0.0
            };
        }
        out.sort_by(|a, b| {
            b.sampled_bytes
                .cmp(&a.sampled_bytes)
                .then_with(|| a.type_name.cmp(&b.type_name))
        });
        out
    }

    /// Sampled bytes per kind in consecutive bins of `bin_ms`, from the first tick's bin (bins
    /// start at multiples of `bin_ms`) to the last tick's. Empty bins are included; empty when
    /// that would take more than a million bins.
    pub fn rate_over_time(&self, bin_ms: f64) -> Vec<AllocBin> {
        let (Some(first), Some(last)) = (self.samples.first(), self.samples.last()) else {
            return Vec::new();
        };
        if bin_ms.is_nan() || bin_ms <= 0.0 {
            return Vec::new();
        }
        let b0 = floor(first.ms / bin_ms);
        let n = (floor(last.ms / bin_ms) - b0) as usize + 1;
        if n > MAX_BINS {
            return Vec::new();
        }
        let mut bins: Vec<AllocBin> = (0..n)
            .map(|i| {
                let start = (b0 + i as f64) * bin_ms;
                AllocBin {
                    start_ms: start,
                    end_ms: start + bin_ms,
                    bytes: KindBytes::default(),
                    rate_bytes_per_s: 0.0,
                }
            })
            .collect();
        for s in &self.samples {
            let i = ((floor(s.ms / bin_ms) - b0) as usize).min(n - 1);
            bins[i].bytes.add(s.kind, s.bytes);
        }
        for b in &mut bins {
            b.rate_bytes_per_s = b.bytes.total() as f64 * 1000.0 / bin_ms;
        }
        bins
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gc::insights::AllocKind;

    fn s(ms: f64, t: u32, bytes: u64, kind: AllocKind) -> AllocSample {
        AllocSample {
            ms,
            type_index: t,
            bytes,
            kind,
            heap: Some(0),
        }
    }

    #[test]
    fn types_ranges_and_bins_by_hand() {
        let names = alloc::vec!["A".into(), "B".into()];
        let a = allocations(
            names,
            alloc::vec![
                s(1.0, 0, 100_000, AllocKind::Small),
                s(2.5, 1, 300_000, AllocKind::Large),
                s(3.0, 0, 100_000, AllocKind::Small),
                s(12.0, 0, 50_000, AllocKind::Pinned),
            ],
            TickBins::default(),
        );
        assert_eq!(a.tick_count, 4);
        // 100000 + 300000 + 100000 + 50000
        assert_eq!(a.sampled_bytes, 550_000);
        assert_eq!(
            (a.by_kind.small, a.by_kind.large, a.by_kind.pinned),
            (200_000, 300_000, 50_000)
        );
        // Overall: B 300000, A 250000.
        assert_eq!(a.top_types[0].type_name, "B");
        assert_eq!(a.top_types[1].sampled_bytes, 250_000);
        assert_eq!(a.top_types[1].ticks, 3);
        // In [2, 4): B 300000 (75 %), A 100000 (25 %).
        let r = a.top_types_in(2.0, 4.0);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].sampled_bytes, r[0].pct), (300_000, 75.0));
        assert_eq!((r[1].sampled_bytes, r[1].pct), (100_000, 25.0));
        // 5 ms bins: [0,5) holds 500000 bytes -> 500000 / 0.005 s = 1e8 bytes/s; [5,10) empty.
        let bins = a.rate_over_time(5.0);
        assert_eq!(bins.len(), 3);
        assert_eq!(bins[0].bytes.total(), 500_000);
        assert_eq!(bins[0].rate_bytes_per_s, 1e8);
        assert_eq!(bins[1].bytes.total(), 0);
        assert_eq!(bins[2].bytes.pinned, 50_000);
        // A bin so small it would need more than a million bins gives nothing.
        assert!(a.rate_over_time(1e-6).is_empty());
        assert!(a.rate_over_time(0.0).is_empty());
        assert_eq!(nice_bin(11.0), 1.0); // 11 ms / 200 = 0.055 -> at least 1 ms
        assert_eq!(nice_bin(3_000.0), 20.0); // 3,000 / 200 = 15 -> 20
        assert_eq!(nice_bin(50_000.0), 500.0); // 50,000 / 200 = 250 -> 500
    }
}
