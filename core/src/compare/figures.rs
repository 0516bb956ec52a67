//! The figures compared, each with the direction that is better, and B - A.

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::types::{Better, FigureDiff, TraceDigest, Verdict};
use crate::gc::GenRollup;

/// A change smaller than this (% of A) is "same".
pub const SAME_PCT: f64 = 1.0;

/// Window sizes (ms) whose MMU is listed among the figures.
pub const MMU_FIGURES: [f64; 4] = [1.0, 10.0, 100.0, 1000.0];

/// B - A, B - A as % of A, and the verdict for a figure that is better `better`.
pub fn verdict(
    a: Option<f64>,
    b: Option<f64>,
    better: Better,
) -> (Option<f64>, Option<f64>, Verdict) {
    let (Some(a), Some(b)) = (a, b) else {
        return (None, None, Verdict::NotComparable);
    };
    let delta = b - a;
    let pct = (a != 0.0).then(|| delta * 100.0 / a.abs());
    let same = delta == 0.0 || pct.is_some_and(|p| p.abs() < SAME_PCT);
    let v = match better {
        _ if same => Verdict::Same,
        Better::Neither => Verdict::Changed,
        Better::Lower if delta < 0.0 => Verdict::Better,
        Better::Higher if delta > 0.0 => Verdict::Better,
        _ => Verdict::Worse,
    };
    (Some(delta), pct, v)
}

struct Figures<'a> {
    a: &'a TraceDigest,
    b: &'a TraceDigest,
    out: Vec<FigureDiff>,
}

impl Figures<'_> {
    fn push(
        &mut self,
        key: String,
        label: String,
        unit: &'static str,
        better: Better,
        get: impl Fn(&TraceDigest) -> Option<f64>,
    ) {
        let (a, b) = (get(self.a), get(self.b));
        let (delta, delta_pct, verdict) = verdict(a, b, better);
        self.out.push(FigureDiff {
            key,
            label,
            unit: Cow::Borrowed(unit),
            a,
            b,
            delta,
            delta_pct,
            better,
            verdict,
        });
    }
}

fn rollup<'a>(d: &'a TraceDigest, gen: &str) -> Option<&'a GenRollup> {
    d.rollup.iter().find(|r| r.gen == gen)
}

/// Every figure compared, in the order they are listed.
pub fn figures(a: &TraceDigest, b: &TraceDigest) -> Vec<FigureDiff> {
    use Better::*;
    let mut f = Figures {
        a,
        b,
        out: Vec::new(),
    };
    let s = |x: &str| x.to_string();
    f.push(
        s("process.trace_duration_ms"),
        s("Duration"),
        "ms",
        Neither,
        |d| Some(d.process.trace_duration_ms),
    );
    f.push(s("process.gc_count"), s("GCs"), "count", Lower, |d| {
        Some(d.process.gc_count as f64)
    });
    f.push(
        s("latency.paused_pct"),
        s("% time paused"),
        "%",
        Lower,
        |d| d.latency.paused_pct,
    );
    f.push(
        s("rollup.all.gc_span_pause_pct"),
        s("% of GC span paused (PerfView)"),
        "%",
        Lower,
        |d| rollup(d, "all").and_then(|r| r.gc_span_pause_pct),
    );
    // The allocation counted is what came before each GC: divided by the time up to the last GC.
    f.push(
        s("alloc_rate_bytes_per_s"),
        s("Allocation rate"),
        "bytes/s",
        Neither,
        |d| {
            let r = rollup(d, "all")?;
            let until = d.heap.last()?.start_ms;
            (until > 0.0).then(|| r.total_allocated_bytes as f64 * 1000.0 / until)
        },
    );
    type Get = fn(&GenRollup) -> f64;
    let all: [(&str, &str, &'static str, Better, Get); 5] = [
        (
            "total_allocated_bytes",
            "Allocated",
            "bytes",
            Neither,
            |r| r.total_allocated_bytes as f64,
        ),
        ("max_peak_bytes", "Max peak heap", "bytes", Lower, |r| {
            r.max_peak_bytes as f64
        }),
        ("mean_peak_bytes", "Mean peak heap", "bytes", Lower, |r| {
            r.mean_peak_bytes
        }),
        (
            "mean_after_bytes",
            "Mean heap after GC",
            "bytes",
            Lower,
            |r| r.mean_after_bytes,
        ),
        ("total_promoted_bytes", "Promoted", "bytes", Lower, |r| {
            r.total_promoted_bytes as f64
        }),
    ];
    for (field, label, unit, better, get) in all {
        f.push(
            format!("rollup.all.{field}"),
            s(label),
            unit,
            better,
            move |d| rollup(d, "all").map(get),
        );
    }
    let per_gen: [(&str, &str, &'static str, Get); 4] = [
        ("count", "GCs", "count", |r| r.count as f64),
        ("total_pause_ms", "total pause", "ms", |r| r.total_pause_ms),
        ("mean_pause_ms", "mean pause", "ms", |r| r.mean_pause_ms),
        ("max_pause_ms", "max pause", "ms", |r| r.max_pause_ms),
    ];
    f.push(
        s("rollup.all.total_pause_ms"),
        s("Total pause"),
        "ms",
        Lower,
        |d| rollup(d, "all").map(|r| r.total_pause_ms),
    );
    // Per generation (all GCs' count, mean and max are the percentiles' "all" row).
    for gen in ["0", "1", "2"] {
        for (field, label, unit, get) in per_gen {
            let name = format!("Gen{gen}");
            f.push(
                format!("rollup.{gen}.{field}"),
                format!("{name} {label}"),
                unit,
                Lower,
                move |d| rollup(d, gen).map(get),
            );
        }
    }
    let kinds: Vec<String> = a
        .latency
        .pauses
        .iter()
        .map(|p| p.kind.to_string())
        .collect();
    for kind in &kinds {
        type P = fn(&crate::latency::PauseStats) -> Option<f64>;
        let stats: [(&str, &str, &'static str, P); 7] = [
            ("count", "GCs", "count", |p| Some(p.count as f64)),
            ("p50_ms", "p50", "ms", |p| p.p50_ms),
            ("p90_ms", "p90", "ms", |p| p.p90_ms),
            ("p95_ms", "p95", "ms", |p| p.p95_ms),
            ("p99_ms", "p99", "ms", |p| p.p99_ms),
            ("p999_ms", "p99.9", "ms", |p| p.p999_ms),
            ("max_ms", "max", "ms", |p| p.max_ms),
        ];
        for (field, label, unit, get) in stats {
            let k = kind.clone();
            f.push(
                format!("pauses.{kind}.{field}"),
                format!("{kind} {label}"),
                unit,
                Lower,
                move |d| {
                    d.latency
                        .pauses
                        .iter()
                        .find(|p| p.kind == k.as_str())
                        .and_then(get)
                },
            );
        }
    }
    f.push(
        s("budget.over_budget"),
        format!("GCs over {} ms", a.latency.budget.budget_ms),
        "count",
        Lower,
        |d| Some(d.latency.budget.over_budget as f64),
    );
    f.push(
        s("budget.time_over_budget_ms"),
        s("Time over budget"),
        "ms",
        Lower,
        |d| Some(d.latency.budget.time_over_budget_ms),
    );
    for w in MMU_FIGURES {
        f.push(
            format!("mmu.{w}"),
            format!("MMU {w} ms"),
            "%",
            Higher,
            move |d| {
                d.latency
                    .mmu
                    .iter()
                    .find(|p| p.window_ms == w)
                    .map(|p| p.min_utilization_pct)
            },
        );
    }
    f.out
}
