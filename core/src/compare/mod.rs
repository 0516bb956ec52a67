//! Two traces side by side ("did this config change make it better?"): a pure function of each
//! trace's summaries and latency ([`TraceDigest`]): facts, rollups, percentiles, histograms, CDFs,
//! MMU curves, allocation rate and heap size over time, with B - A, B - A as %, and whether that
//! is better for each figure.
//!
//! ```text
//! GcModel summaries + latency::Latency + heap points ──▶ TraceDigest (A)  ┐
//!                                                        TraceDigest (B)  ┴─ compare ──▶ Comparison
//! ```

mod figures;
mod types;

pub use figures::{figures, verdict, MMU_FIGURES, SAME_PCT};
pub use types::*;

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::gc::{Gc, GcModel, ProcessFacts};
use crate::latency::{self, HistogramBucket, MmuPoint, Options, PauseLog, TimeRange};

/// What a comparison keeps of a trace's rows as they stream by (the rows themselves can go).
#[derive(Debug, Clone, Default)]
pub struct RowLog {
    pub pauses: PauseLog,
    pub heap: Vec<HeapPoint>,
}

impl RowLog {
    pub fn add(&mut self, gc: &Gc) {
        self.pauses.add(gc);
        if gc.complete {
            self.heap.push(HeapPoint::of(gc));
        }
    }

    /// The trace's digest: `model`'s summaries (its rows may have been drained) and these rows'
    /// latency over the whole trace.
    pub fn digest(self, name: String, model: &GcModel, opts: &Options) -> TraceDigest {
        let range = TimeRange::new(0.0, model.process.trace_duration_ms);
        TraceDigest {
            name,
            process: model.process.clone(),
            rollup: model.rollup.clone(),
            latency: latency::analyze(&self.pauses, range, opts),
            heap: self.heap,
        }
    }
}

/// Bins of the allocation rate and heap size over time.
pub const TIME_BINS: usize = 50;

/// A and B side by side.
pub fn compare(a: &TraceDigest, b: &TraceDigest) -> Comparison {
    let (bin_ms, over_time) = over_time(a, b);
    Comparison {
        a: a.name.clone(),
        b: b.name.clone(),
        facts: facts(&a.process, &b.process),
        figures: figures(a, b),
        histograms: histogram(&a.latency.histogram, &b.latency.histogram),
        cdf_a: a.latency.cdf.clone(),
        cdf_b: b.latency.cdf.clone(),
        mmu_curves: mmu(&a.latency.mmu, &b.latency.mmu),
        bin_ms,
        over_time,
    }
}

fn text<T: ToString>(v: &Option<T>) -> String {
    v.as_ref()
        .map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// The facts of both traces, as text.
pub fn facts(a: &ProcessFacts, b: &ProcessFacts) -> Vec<FactDiff> {
    type Get = fn(&ProcessFacts) -> String;
    let rows: [(&str, &str, Get); 11] = [
        ("runtime_version", "Runtime", |p| text(&p.runtime_version)),
        ("gc_mode", "GC mode", |p| text(&p.gc_mode)),
        ("heap_count", "Heaps", |p| text(&p.heap_count)),
        ("concurrent", "Concurrent", |p| text(&p.concurrent)),
        ("processor_count", "CPUs", |p| p.processor_count.to_string()),
        ("pointer_size", "Pointer size", |p| {
            p.pointer_size.to_string()
        }),
        ("hard_limit_bytes", "Hard limit", |p| {
            text(&p.hard_limit_bytes)
        }),
        ("format", "Format", |p| p.format.clone()),
        ("os", "OS", |p| text(&p.os)),
        ("trace_duration_ms", "Duration (ms)", |p| {
            format!("{:.1}", p.trace_duration_ms)
        }),
        ("gc_count", "GCs", |p| p.gc_count.to_string()),
    ];
    rows.iter()
        .map(|(key, label, get)| {
            let (x, y) = (get(a), get(b));
            FactDiff {
                key: Cow::Borrowed(*key),
                label: Cow::Borrowed(*label),
                same: x == y,
                a: x,
                b: y,
            }
        })
        .collect()
}

/// Both histograms on the buckets either has (the same edges for every trace).
pub fn histogram(a: &[HistogramBucket], b: &[HistogramBucket]) -> Vec<BucketPair> {
    let mut out: Vec<BucketPair> = Vec::new();
    for (bucket, is_a) in a
        .iter()
        .map(|x| (x, true))
        .chain(b.iter().map(|x| (x, false)))
    {
        let i = match out.iter().position(|p| p.lo_ms == bucket.lo_ms) {
            Some(i) => i,
            None => {
                out.push(BucketPair {
                    lo_ms: bucket.lo_ms,
                    hi_ms: bucket.hi_ms,
                    a: 0,
                    b: 0,
                });
                out.len() - 1
            }
        };
        if is_a {
            out[i].a = bucket.count;
        } else {
            out[i].b = bucket.count;
        }
    }
    out.sort_by(|x, y| x.lo_ms.total_cmp(&y.lo_ms));
    out
}

/// Both MMU curves on the window sizes either has.
pub fn mmu(a: &[MmuPoint], b: &[MmuPoint]) -> Vec<MmuPair> {
    let mut out: Vec<MmuPair> = a
        .iter()
        .map(|p| MmuPair {
            window_ms: p.window_ms,
            a: Some(p.min_utilization_pct),
            b: None,
        })
        .collect();
    for p in b {
        match out.iter_mut().find(|q| q.window_ms == p.window_ms) {
            Some(q) => q.b = Some(p.min_utilization_pct),
            None => out.push(MmuPair {
                window_ms: p.window_ms,
                a: None,
                b: Some(p.min_utilization_pct),
            }),
        }
    }
    out.sort_by(|x, y| x.window_ms.total_cmp(&y.window_ms));
    out
}

/// Allocation rate (bytes allocated before the GCs that started in a bin, per second of the bin),
/// mean heap size after those GCs and their largest peak, in [`TIME_BINS`] bins of time from
/// each trace's start, as long as the longer trace.
pub fn over_time(a: &TraceDigest, b: &TraceDigest) -> (f64, Vec<TimeBin>) {
    let len = a.process.trace_duration_ms.max(b.process.trace_duration_ms);
    if len.is_nan() || len <= 0.0 {
        return (0.0, Vec::new());
    }
    let bin_ms = len / TIME_BINS as f64;
    let sums = |d: &TraceDigest| {
        // (allocated, allocated seen, after sum, after count, max peak) per bin.
        let mut bins = alloc::vec![(0u64, false, 0.0f64, 0u32, None::<u64>); TIME_BINS];
        for p in &d.heap {
            let i = ((p.start_ms / bin_ms) as usize).min(TIME_BINS - 1);
            let Some(bin) = bins.get_mut(i) else { continue };
            if let Some(x) = p.allocated_bytes {
                bin.0 = bin.0.saturating_add(x);
                bin.1 = true;
            }
            if let Some(x) = p.after_bytes {
                bin.2 += x as f64;
                bin.3 += 1;
            }
            if let Some(x) = p.peak_bytes {
                bin.4 = Some(bin.4.map_or(x, |m: u64| m.max(x)));
            }
        }
        bins
    };
    let (sa, sb) = (sums(a), sums(b));
    let rate = |x: &(u64, bool, f64, u32, Option<u64>)| x.1.then(|| x.0 as f64 * 1000.0 / bin_ms);
    let after = |x: &(u64, bool, f64, u32, Option<u64>)| (x.3 > 0).then(|| x.2 / x.3 as f64);
    let bins = sa
        .iter()
        .zip(&sb)
        .enumerate()
        .map(|(i, (x, y))| TimeBin {
            start_ms: i as f64 * bin_ms,
            end_ms: (i + 1) as f64 * bin_ms,
            a_alloc_rate_bytes_per_s: rate(x),
            b_alloc_rate_bytes_per_s: rate(y),
            a_after_bytes: after(x),
            b_after_bytes: after(y),
            a_peak_bytes: x.4,
            b_peak_bytes: y.4,
        })
        .collect();
    (bin_ms, bins)
}
