//! Finalization, segments and regions, and the step lines of running totals (memory pressure,
//! reserved bytes).

use gcscope_core::gc::insights::Insights;

use super::{dcols, gc_in, n, nu, on, onu, t, Starts, Table};
use crate::time_range::TimeRange;

pub fn finalization_per_gc(ins: &Insights, r: &TimeRange, starts: &Starts) -> Table {
    let p = "finalization.per_gc";
    let keys = [
        "gc_number",
        "gen",
        "promoted_bytes",
        "promoted_count",
        "finalizers_run",
    ];
    Table {
        id: "finalization-per-gc",
        title: "Finalization per GC".into(),
        cols: dcols(p, &keys),
        rows: ins
            .finalization
            .per_gc
            .iter()
            .filter(|g| gc_in(r, starts, g.gc_number))
            .map(|g| {
                vec![
                    n(g.gc_number),
                    n(g.gen),
                    onu(g.promoted_bytes),
                    onu(g.promoted_count),
                    onu(g.finalizers_run),
                ]
            })
            .collect(),
    }
}

pub fn finalizer_runs(ins: &Insights, r: &TimeRange) -> Table {
    let p = "finalization.runs";
    let keys = ["begin_ms", "end_ms", "duration_ms", "count", "after_gc"];
    Table {
        id: "finalizer-runs",
        title: "Finalizer thread runs".into(),
        cols: dcols(p, &keys),
        rows: ins
            .finalization
            .runs
            .iter()
            .filter(|run| r.contains(run.end_ms))
            .map(|r| {
                vec![
                    on(r.begin_ms),
                    n(r.end_ms),
                    on(r.duration_ms),
                    n(r.count),
                    on(r.after_gc),
                ]
            })
            .collect(),
    }
}

pub fn finalized_types(ins: &Insights) -> Table {
    Table {
        id: "finalized-types",
        title: "Finalized objects by type (whole trace)".into(),
        cols: dcols("finalization.by_type", &["type_name", "count"]),
        rows: ins
            .finalization
            .by_type
            .iter()
            .map(|x| vec![t(x.type_name.clone()), nu(x.count)])
            .collect(),
    }
}

pub fn segments(ins: &Insights, r: &TimeRange) -> Table {
    let p = "segments.segments";
    let keys = ["address", "size_bytes", "kind", "created_ms", "freed_ms"];
    let ranged = r.is_set();
    Table {
        id: "segments",
        title: "Segments and regions".into(),
        cols: dcols(p, &keys),
        rows: ins
            .segments
            .segments
            .iter()
            // In a range: the segments alive in it (created before its end, freed after its start).
            .filter(|s| {
                !ranged
                    || (s.created_ms.is_none_or(|c| r.t1.is_none_or(|t1| c <= t1))
                        && s.freed_ms.is_none_or(|e| r.t0.is_none_or(|t0| e >= t0)))
            })
            .map(|s| {
                vec![
                    nu(s.address),
                    onu(s.size_bytes),
                    t(s.kind.as_ref()),
                    on(s.created_ms),
                    on(s.freed_ms),
                ]
            })
            .collect(),
    }
}

/// A running total drawn as steps: it holds its value until the next change (and to `end_ms`),
/// where a plain line would slope between two distant changes.
pub fn step_points(points: &[(f64, f64)], end_ms: Option<f64>) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2 + 1);
    for (i, &(t, v)) in points.iter().enumerate() {
        if i > 0 {
            out.push((t, points[i - 1].1));
        }
        out.push((t, v));
    }
    if let (Some(&(t, v)), Some(end)) = (points.last(), end_ms) {
        if end > t {
            out.push((end, v));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_hold_each_value_until_the_next_change() {
        let p = [(1.0, 10.0), (5.0, 30.0), (6.0, 0.0)];
        assert_eq!(
            step_points(&p, Some(9.0)),
            vec![
                (1.0, 10.0),
                (5.0, 10.0),
                (5.0, 30.0),
                (6.0, 30.0),
                (6.0, 0.0),
                (9.0, 0.0)
            ]
        );
        assert_eq!(step_points(&p[..1], None), vec![(1.0, 10.0)]);
        assert!(step_points(&[], Some(3.0)).is_empty());
    }
}
