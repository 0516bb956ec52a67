//! Suspensions: by reason, per GC, and those not for a GC.

use gcscope_core::gc::insights::{Insights, SuspendReasonStats, Suspension};

use super::{dcols, gc_in, n, nu, on, t, Starts, Table};
use crate::time_range::TimeRange;

/// By reason over the range (from the suspension lists), or core's totals without a range.
pub fn suspend_reasons(ins: &Insights, r: &TimeRange) -> Table {
    let s = &ins.suspensions;
    let ranged = r.is_set();
    let stats: Vec<SuspendReasonStats> = if !ranged {
        s.by_reason.clone()
    } else {
        let mut v: Vec<SuspendReasonStats> = Vec::new();
        for x in s.for_gc.iter().chain(&s.not_for_gc) {
            if !r.contains(x.begin_ms) {
                continue;
            }
            let i = match v.iter().position(|r| r.reason == x.reason) {
                Some(i) => i,
                None => {
                    v.push(SuspendReasonStats {
                        reason: x.reason.clone(),
                        count: 0,
                        total_suspend_ms: 0.0,
                        max_suspend_ms: 0.0,
                        total_pause_ms: 0.0,
                        max_pause_ms: 0.0,
                    });
                    v.len() - 1
                }
            };
            let r = &mut v[i];
            r.count += 1;
            let (su, pa) = (x.suspend_ms.unwrap_or(0.0), x.pause_ms.unwrap_or(0.0));
            r.total_suspend_ms += su;
            r.max_suspend_ms = r.max_suspend_ms.max(su);
            r.total_pause_ms += pa;
            r.max_pause_ms = r.max_pause_ms.max(pa);
        }
        v.sort_by(|a, b| b.count.cmp(&a.count).then(a.reason.cmp(&b.reason)));
        v
    };
    let p = "suspensions.by_reason";
    let keys = [
        "reason",
        "count",
        "total_suspend_ms",
        "max_suspend_ms",
        "total_pause_ms",
        "max_pause_ms",
    ];
    Table {
        id: "suspend-reasons",
        title: "Suspensions by reason".into(),
        cols: dcols(p, &keys),
        rows: stats
            .iter()
            .map(|r| {
                vec![
                    t(r.reason.as_ref()),
                    nu(r.count),
                    n(r.total_suspend_ms),
                    n(r.max_suspend_ms),
                    n(r.total_pause_ms),
                    n(r.max_pause_ms),
                ]
            })
            .collect(),
    }
}

pub fn suspend_per_gc(ins: &Insights, r: &TimeRange, starts: &Starts) -> Table {
    let p = "suspensions.per_gc";
    let keys = [
        "gc_number",
        "gen",
        "count",
        "reasons",
        "total_suspend_ms",
        "max_suspend_ms",
        "total_pause_ms",
    ];
    Table {
        id: "suspend-per-gc",
        title: "Time to suspend per GC".into(),
        cols: dcols(p, &keys),
        rows: ins
            .suspensions
            .per_gc
            .iter()
            .filter(|g| gc_in(r, starts, g.gc_number))
            .map(|g| {
                vec![
                    n(g.gc_number),
                    n(g.gen),
                    n(g.count),
                    t(g.reasons.join(", ")),
                    n(g.total_suspend_ms),
                    n(g.max_suspend_ms),
                    n(g.total_pause_ms),
                ]
            })
            .collect(),
    }
}

pub fn not_for_gc(list: &[Suspension], r: &TimeRange) -> Table {
    let p = "suspensions.not_for_gc";
    let keys = [
        "begin_ms",
        "reason",
        "reason_code",
        "thread",
        "suspend_ms",
        "pause_ms",
    ];
    Table {
        id: "suspend-not-for-gc",
        title: "Suspensions not for a GC".into(),
        cols: dcols(p, &keys),
        rows: list
            .iter()
            .filter(|s| r.contains(s.begin_ms))
            .map(|s| {
                vec![
                    n(s.begin_ms),
                    t(s.reason.as_ref()),
                    n(s.reason_code),
                    nu(s.thread),
                    on(s.suspend_ms),
                    on(s.pause_ms),
                ]
            })
            .collect(),
    }
}
