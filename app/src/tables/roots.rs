//! Mark roots (bytes marked per root kind, per GC and in total) and compaction (bytes moved and
//! surviving per GC).

use gcscope_core::gc::insights::{root_values, Insights, ROOT_KINDS};

use super::{dcol, dcols, gc_in, n, nu, t, Starts, Table};
use crate::time_range::TimeRange;

pub fn roots_by_kind(ins: &Insights, r: &TimeRange, starts: &Starts) -> Table {
    let mut bytes = [0u64; 10];
    let mut gcs = [0u32; 10];
    for g in ins
        .roots
        .per_gc
        .iter()
        .filter(|g| gc_in(r, starts, g.gc_number))
    {
        for (k, v) in root_values(&g.marked).iter().enumerate() {
            bytes[k] = bytes[k].saturating_add(*v);
            gcs[k] += (*v > 0) as u32;
        }
    }
    let total: u64 = bytes.iter().sum();
    let mut order: Vec<usize> = (0..10).filter(|&k| bytes[k] > 0).collect();
    order.sort_by(|&a, &b| bytes[b].cmp(&bytes[a]).then(a.cmp(&b)));
    Table {
        id: "roots-by-kind",
        title: "Bytes marked per root kind".into(),
        cols: dcols("roots.by_kind", &["kind", "bytes", "pct", "gcs"]),
        rows: order
            .into_iter()
            .map(|k| {
                vec![
                    t(ROOT_KINDS[k]),
                    nu(bytes[k]),
                    n(bytes[k] as f64 * 100.0 / total.max(1) as f64),
                    n(gcs[k]),
                ]
            })
            .collect(),
    }
}

/// Per GC, with a column for each root kind that marked anything in the trace.
pub fn roots_per_gc(ins: &Insights, r: &TimeRange, starts: &Starts) -> Table {
    let mut any = [false; 10];
    for g in &ins.roots.per_gc {
        for (k, v) in root_values(&g.marked).iter().enumerate() {
            any[k] |= *v > 0;
        }
    }
    let kinds: Vec<usize> = (0..10).filter(|&k| any[k]).collect();
    let mut cols = dcols(
        "roots.per_gc",
        &["gc_number", "gen", "start_ms", "total_bytes"],
    );
    for &k in &kinds {
        let name = ROOT_KINDS[k];
        cols.push(dcol(
            name,
            &format!("roots.per_gc.marked.{name}"),
            Some(name),
        ));
    }
    Table {
        id: "roots-per-gc",
        title: "Bytes marked per GC".into(),
        cols,
        rows: ins
            .roots
            .per_gc
            .iter()
            .filter(|g| gc_in(r, starts, g.gc_number))
            .map(|g| {
                let mut r = vec![n(g.gc_number), n(g.gen), n(g.start_ms), nu(g.total_bytes)];
                let v = root_values(&g.marked);
                r.extend(kinds.iter().map(|&k| nu(v[k])));
                r
            })
            .collect(),
    }
}

pub fn compaction_per_gc(ins: &Insights, r: &TimeRange, starts: &Starts) -> Table {
    let p = "compaction.per_gc";
    let keys = [
        "gc_number",
        "gen",
        "moved_ranges",
        "moved_bytes",
        "relocated_bytes",
        "surviving_ranges",
        "surviving_bytes",
    ];
    Table {
        id: "compaction-per-gc",
        title: "Compaction per GC".into(),
        cols: dcols(p, &keys),
        rows: ins
            .compaction
            .per_gc
            .iter()
            .filter(|g| gc_in(r, starts, g.gc_number))
            .map(|g| {
                vec![
                    n(g.gc_number),
                    n(g.gen),
                    nu(g.moved_ranges),
                    nu(g.moved_bytes),
                    nu(g.relocated_bytes),
                    nu(g.surviving_ranges),
                    nu(g.surviving_bytes),
                ]
            })
            .collect(),
    }
}
