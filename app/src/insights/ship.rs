//! The insights as the worker sends them: bounded so the message does not grow with the trace.
//! Core keeps one record per GCAllocationTick (millions in a 2 GB trace); the views need sums per
//! type over a time range, so the ticks are folded into fixed time bins holding each bin's top
//! types and an "other" remainder. A range made of whole bins then gives exact per-type sums for
//! every type that made its bins' top lists. Other unbounded lists are decimated or capped, with
//! the dropped count kept so the views can say so.

use gcscope_core::gc::insights::{AllocSample, Insights, KindBytes, PressurePoint, TypeAlloc};
use serde::{Deserialize, Serialize};

/// Bins over the ticks' span (at most about this many).
pub const TARGET_BINS: f64 = 500.0;
/// Types kept per bin; the rest go to the bin's `other`.
pub const TOP_PER_BIN: usize = 20;
/// Memory-pressure points shipped at most (decimated to the min and max per column beyond this).
pub const MAX_PRESSURE_POINTS: usize = 4000;
/// Suspensions not for a GC shipped at most (the first ones).
pub const MAX_NOT_FOR_GC: usize = 10_000;

/// One type's sampled allocation in one bin.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct BinType {
    /// Index into `Allocations::type_names`.
    pub type_index: u32,
    pub bytes: KindBytes,
    pub ticks: u64,
}

/// The ticks in `[start_ms, start_ms + bin_ms)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TypeBin {
    pub start_ms: f64,
    /// The bin's types with the most sampled bytes (at most [`TOP_PER_BIN`]).
    pub top: Vec<BinType>,
    /// Everything else in the bin (`type_index` unused).
    pub other: BinType,
}

/// Per-type allocation over time: only non-empty bins, in time order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TypeBins {
    pub bin_ms: f64,
    pub bins: Vec<TypeBin>,
}

/// What the views get for one trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceInsights {
    /// Core's insights with `allocations.samples` emptied (see `type_bins`), memory pressure
    /// decimated and suspensions not for a GC capped.
    pub insights: Insights,
    pub type_bins: TypeBins,
    /// Memory-pressure points left out by decimation (0: every point is there).
    pub pressure_points_dropped: u64,
    /// Suspensions not for a GC left out beyond [`MAX_NOT_FOR_GC`].
    pub not_for_gc_dropped: u64,
}

/// Sums over the bins that overlap a range.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RangeAllocs {
    /// Most bytes first (ties by name); `pct` of the range's sampled bytes.
    pub types: Vec<TypeAlloc>,
    /// Bytes of types that were outside their bin's top list.
    pub other: BinType,
    pub by_kind: KindBytes,
    pub ticks: u64,
    /// What the bins cover: from the first included bin's start to the last one's end.
    pub covered: Option<(f64, f64)>,
}

pub fn bounded(mut ins: Insights) -> TraceInsights {
    let samples = std::mem::take(&mut ins.allocations.samples);
    let type_bins = type_bins(&samples, ins.allocations.type_names.len());
    drop(samples);
    let p = &mut ins.memory_pressure.over_time;
    let before = p.len();
    *p = decimate(std::mem::take(p), MAX_PRESSURE_POINTS);
    let pressure_points_dropped = (before - p.len()) as u64;
    let s = &mut ins.suspensions.not_for_gc;
    let not_for_gc_dropped = s.len().saturating_sub(MAX_NOT_FOR_GC) as u64;
    s.truncate(MAX_NOT_FOR_GC);
    TraceInsights {
        insights: ins,
        type_bins,
        pressure_points_dropped,
        not_for_gc_dropped,
    }
}

/// 1, 2 or 5 × 10^k ms, at least 1 ms, cutting `span_ms` into at most about [`TARGET_BINS`].
pub fn bin_width(span_ms: f64) -> f64 {
    let raw = (span_ms / TARGET_BINS).max(1.0);
    let mut unit = 1.0;
    loop {
        for m in [1.0, 2.0, 5.0] {
            if unit * m >= raw {
                return unit * m;
            }
        }
        unit *= 10.0;
    }
}

/// Folds time-ordered ticks into bins of [`bin_width`] starting at multiples of it.
pub fn type_bins(samples: &[AllocSample], type_count: usize) -> TypeBins {
    let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
        return TypeBins::default();
    };
    let bin_ms = bin_width(last.ms - first.ms);
    let mut bins = Vec::new();
    // Per type in the current bin, with the list of types touched so clearing is cheap.
    let mut per: Vec<BinType> = vec![BinType::default(); type_count];
    let mut touched: Vec<u32> = Vec::new();
    let mut current: Option<f64> = None;
    let mut flush = |start: f64, per: &mut Vec<BinType>, touched: &mut Vec<u32>| {
        let mut all: Vec<BinType> = touched.drain(..).map(|t| per[t as usize]).collect();
        for t in &all {
            per[t.type_index as usize] = BinType::default();
        }
        all.sort_by(|a, b| {
            b.bytes
                .total()
                .cmp(&a.bytes.total())
                .then(a.type_index.cmp(&b.type_index))
        });
        let mut other = BinType::default();
        for t in all.iter().skip(TOP_PER_BIN) {
            add(&mut other, t);
        }
        all.truncate(TOP_PER_BIN);
        bins.push(TypeBin {
            start_ms: start,
            top: all,
            other,
        });
    };
    for s in samples {
        let start = (s.ms / bin_ms).floor() * bin_ms;
        if current.is_some_and(|c| c != start) {
            flush(current.unwrap_or(start), &mut per, &mut touched);
        }
        current = Some(start);
        let Some(slot) = per.get_mut(s.type_index as usize) else {
            continue;
        };
        if slot.ticks == 0 {
            slot.type_index = s.type_index;
            touched.push(s.type_index);
        }
        slot.bytes.add(s.kind, s.bytes);
        slot.ticks += 1;
    }
    if let Some(c) = current {
        flush(c, &mut per, &mut touched);
    }
    TypeBins { bin_ms, bins }
}

fn add(to: &mut BinType, t: &BinType) {
    to.bytes.small = to.bytes.small.saturating_add(t.bytes.small);
    to.bytes.large = to.bytes.large.saturating_add(t.bytes.large);
    to.bytes.pinned = to.bytes.pinned.saturating_add(t.bytes.pinned);
    to.ticks += t.ticks;
}

impl TypeBins {
    /// Per-type sums over the bins overlapping `[from_ms, to_ms]` (a range on bin boundaries
    /// selects exactly the ticks with `from_ms <= ms < to_ms`).
    pub fn in_range(&self, names: &[String], from_ms: f64, to_ms: f64) -> RangeAllocs {
        let mut per: Vec<Option<BinType>> = vec![None; names.len()];
        let mut r = RangeAllocs::default();
        for b in &self.bins {
            let end = b.start_ms + self.bin_ms;
            if !(b.start_ms < to_ms && end > from_ms) {
                continue;
            }
            r.covered = Some(match r.covered {
                Some((lo, _)) => (lo, end),
                None => (b.start_ms, end),
            });
            for t in &b.top {
                if let Some(slot) = per.get_mut(t.type_index as usize) {
                    add(
                        slot.get_or_insert(BinType {
                            type_index: t.type_index,
                            ..BinType::default()
                        }),
                        t,
                    );
                }
            }
            add(&mut r.other, &b.other);
        }
        let mut all = r.other;
        for t in per.iter().flatten() {
            add(&mut all, t);
        }
        r.by_kind = all.bytes;
        r.ticks = all.ticks;
        let total = all.bytes.total();
        r.types = per
            .into_iter()
            .flatten()
            .map(|t| TypeAlloc {
                type_name: names[t.type_index as usize].clone(),
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
        r.types.sort_by(|a, b| {
            b.sampled_bytes
                .cmp(&a.sampled_bytes)
                .then_with(|| a.type_name.cmp(&b.type_name))
        });
        r
    }
}

/// At most about `max` points: beyond it, per column of time, the first point, the lowest and
/// the highest net, and the last (so the chart's shape and the peak survive).
pub fn decimate(points: Vec<PressurePoint>, max: usize) -> Vec<PressurePoint> {
    if points.len() <= max || max < 8 {
        return points;
    }
    let cols = max / 4;
    let (t0, t1) = (points[0].ms, points[points.len() - 1].ms);
    let span = (t1 - t0).max(f64::MIN_POSITIVE);
    let col = |ms: f64| (((ms - t0) / span * cols as f64) as usize).min(cols - 1);
    let mut keep = vec![false; points.len()];
    let mut i = 0;
    while i < points.len() {
        let c = col(points[i].ms);
        let mut j = i;
        let (mut lo, mut hi) = (i, i);
        while j < points.len() && col(points[j].ms) == c {
            if points[j].net_bytes < points[lo].net_bytes {
                lo = j;
            }
            if points[j].net_bytes > points[hi].net_bytes {
                hi = j;
            }
            j += 1;
        }
        for k in [i, lo, hi, j - 1] {
            keep[k] = true;
        }
        i = j;
    }
    points
        .into_iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_core::gc::insights::AllocKind;

    fn tick(ms: f64, t: u32, bytes: u64, kind: AllocKind) -> AllocSample {
        AllocSample {
            ms,
            type_index: t,
            bytes,
            kind,
            heap: None,
        }
    }

    #[test]
    fn bins_sum_per_type_and_keep_the_rest_as_other() {
        // 25 types in one bin: type t has (t + 1) * 1000 bytes; the 5 smallest (t = 0..4) fall
        // to "other": 1000 + 2000 + 3000 + 4000 + 5000 = 15000 bytes, 5 ticks.
        let mut s: Vec<AllocSample> = (0..25)
            .map(|t| tick(0.5, t, (t as u64 + 1) * 1000, AllocKind::Small))
            .collect();
        // A span of 1000 ms: bins of 2 ms (1000 / 500). A Large tick of type 3 in bin [998, 1000).
        s.push(tick(999.0, 3, 90_000, AllocKind::Large));
        let names: Vec<String> = (0..25).map(|i| format!("T{i}")).collect();
        let b = type_bins(&s, names.len());
        assert_eq!(b.bin_ms, 2.0);
        assert_eq!(b.bins.len(), 2);
        assert_eq!(b.bins[0].top.len(), TOP_PER_BIN);
        assert_eq!(b.bins[0].top[0].type_index, 24);
        assert_eq!(
            (b.bins[0].other.bytes.total(), b.bins[0].other.ticks),
            (15_000, 5)
        );
        assert_eq!(b.bins[1].start_ms, 998.0);
        // Whole trace: every byte counted, T3 only from its top-list bin.
        let all = b.in_range(&names, f64::NEG_INFINITY, f64::INFINITY);
        let total: u64 = (1..=25).map(|k| k * 1000).sum::<u64>() + 90_000;
        assert_eq!(all.by_kind.total(), total);
        assert_eq!(all.ticks, 26);
        assert_eq!(all.types[0].type_name, "T3");
        assert_eq!(all.types[0].sampled_bytes, 90_000);
        assert_eq!(all.types[0].by_kind.large, 90_000);
        assert_eq!(all.other.bytes.total(), 15_000);
        // A range on the second bin only: 100 % T3, covering [998, 1000).
        let r = b.in_range(&names, 998.0, 1000.0);
        assert_eq!(r.types.len(), 1);
        assert_eq!((r.types[0].sampled_bytes, r.types[0].pct), (90_000, 100.0));
        assert_eq!(r.covered, Some((998.0, 1000.0)));
        // A range between the bins is empty.
        assert_eq!(b.in_range(&names, 10.0, 20.0), RangeAllocs::default());
    }

    #[test]
    fn bounded_ships_no_ticks_and_caps_lists() {
        let mut ins = Insights::default();
        ins.allocations.type_names = vec!["A".into()];
        ins.allocations.samples = (0..100_000)
            .map(|i| tick(i as f64 / 100.0, 0, 100_000, AllocKind::Small))
            .collect();
        ins.memory_pressure.over_time = (0..100_000)
            .map(|i| PressurePoint {
                ms: i as f64,
                delta_bytes: 1,
                net_bytes: if i == 31_337 { 1 << 40 } else { i },
            })
            .collect();
        let t = bounded(ins);
        assert!(t.insights.allocations.samples.is_empty());
        // 1000 ms of ticks: 2 ms bins, 500 of them, 200 ticks each.
        assert_eq!(t.type_bins.bins.len(), 500);
        assert!(t.type_bins.bins.iter().all(|b| b.top[0].ticks == 200));
        let p = &t.insights.memory_pressure.over_time;
        assert!(p.len() <= MAX_PRESSURE_POINTS);
        assert_eq!(t.pressure_points_dropped, 100_000 - p.len() as u64);
        // The peak, the first and the last points survive.
        assert!(p.iter().any(|x| x.net_bytes == 1 << 40));
        assert_eq!((p[0].ms, p[p.len() - 1].ms), (0.0, 99_999.0));
    }

    /// A real trace's insights survive the wire format (bincode: no serde feature it cannot
    /// replay), and the bins give back core's exact per-type figures for the whole trace.
    #[test]
    fn real_insights_survive_bincode_and_bins_add_up_to_core() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/traces/net8.0/loh.nettrace"
        );
        let bytes = std::fs::read(path).expect("the fixture");
        let (_, ins) = gcscope_core::gc::insights::analyze_with_insights(&bytes).unwrap();
        let core_types = ins.allocations.top_types.clone();
        let ticks = ins.allocations.tick_count;
        assert!(ticks > 100);
        let t = bounded(ins);
        let wire = bincode::serialize(&t).unwrap();
        let back: TraceInsights = bincode::deserialize(&wire).unwrap();
        assert_eq!(back, t);
        let a = &back.insights.allocations;
        let all = back
            .type_bins
            .in_range(&a.type_names, f64::NEG_INFINITY, f64::INFINITY);
        // Few types per bin in this workload: nothing falls to "other", so the sums are exact.
        assert_eq!(all.other.ticks, 0);
        assert_eq!(all.ticks, ticks);
        assert_eq!(all.types, core_types);
        // Bounded: the message holds bins, not ticks.
        assert!(back.type_bins.bins.len() <= 2 * TARGET_BINS as usize);
    }

    #[test]
    fn bin_width_is_round() {
        assert_eq!(bin_width(0.0), 1.0);
        assert_eq!(bin_width(3_000.0), 10.0); // 6 -> 10
        assert_eq!(bin_width(60_000.0), 200.0); // 120 -> 200
    }
}
