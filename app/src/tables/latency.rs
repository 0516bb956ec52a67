//! The latency figures' tables (core's `latency`): pause percentiles per kind of GC, the pause
//! histogram, the budget's worst GCs and windows, and the MMU curve. Columns are keyed by the
//! field names of `gcscope latency --json`, headed by core's definitions of them.

use gcscope_core::latency::{Budget, HistogramBucket, MmuPoint, PauseStats};

use super::{defined_col, defs, n, on, t, Col, Table};

/// The column `key` headed by the definition of `{prefix}.{key}`, in its unit.
fn lcol(prefix: &str, key: &str) -> Col {
    let d = defs::latency_field(&format!("{prefix}.{key}"));
    defined_col(key, d, d.map_or("count", |d| d.unit))
}

fn lcols(prefix: &str, keys: &[&str]) -> Vec<Col> {
    keys.iter().map(|k| lcol(prefix, k)).collect()
}

/// A kind of GC as read: "gen0 blocking" for `gen0_blocking`.
pub fn kind_label(kind: &str) -> String {
    kind.replace('_', " ")
}

/// Pause percentiles and counts: all GCs, then each kind.
pub fn percentiles(stats: &[PauseStats]) -> Table {
    let keys = [
        "kind", "count", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "mean_ms",
        "total_ms",
    ];
    Table {
        id: "pause-percentiles",
        title: "Pause percentiles".into(),
        cols: lcols("pauses", &keys),
        rows: stats
            .iter()
            .map(|s| {
                vec![
                    t(kind_label(&s.kind)),
                    n(s.count),
                    on(s.p50_ms),
                    on(s.p90_ms),
                    on(s.p95_ms),
                    on(s.p99_ms),
                    on(s.p999_ms),
                    on(s.max_ms),
                    on(s.mean_ms),
                    n(s.total_ms),
                ]
            })
            .collect(),
    }
}

/// The pause histogram's buckets (all GCs).
pub fn histogram(buckets: &[HistogramBucket]) -> Table {
    Table {
        id: "pause-histogram",
        title: "Pause histogram".into(),
        cols: lcols("histogram", &["lo_ms", "hi_ms", "count"]),
        rows: buckets
            .iter()
            .map(|b| vec![n(b.lo_ms), n(b.hi_ms), n(b.count)])
            .collect(),
    }
}

/// The longest pauses over the budget.
pub fn worst_gcs(b: &Budget) -> Table {
    Table {
        id: "budget-gcs",
        title: format!("Longest pauses over {} ms", b.budget_ms),
        cols: lcols(
            "budget.worst_gcs",
            &["number", "kind", "start_ms", "pause_ms"],
        ),
        rows: b
            .worst_gcs
            .iter()
            .map(|g| {
                vec![
                    n(g.number),
                    t(kind_label(&g.kind)),
                    n(g.start_ms),
                    n(g.pause_ms),
                ]
            })
            .collect(),
    }
}

/// The windows with the most pause, worst first.
pub fn worst_windows(b: &Budget) -> Table {
    let keys = [
        "start_ms",
        "end_ms",
        "paused_ms",
        "paused_pct",
        "gcs",
        "over_budget",
    ];
    Table {
        id: "budget-windows",
        title: format!(
            "Worst {} windows",
            crate::format::ms(b.window_ms).replace(".000", "")
        ),
        cols: lcols("budget.worst_windows", &keys),
        rows: b
            .worst_windows
            .iter()
            .map(|w| {
                vec![
                    n(w.start_ms),
                    n(w.end_ms),
                    n(w.paused_ms),
                    n(w.paused_pct),
                    n(w.gcs),
                    n(w.over_budget),
                ]
            })
            .collect(),
    }
}

/// The minimum mutator utilization curve, a row per window size.
pub fn mmu(points: &[MmuPoint]) -> Table {
    Table {
        id: "mmu",
        title: "Minimum mutator utilization".into(),
        cols: lcols(
            "mmu",
            &["window_ms", "min_utilization_pct", "worst_start_ms"],
        ),
        rows: points
            .iter()
            .map(|p| {
                vec![
                    n(p.window_ms),
                    n(p.min_utilization_pct),
                    n(p.worst_start_ms),
                ]
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_core::latency::{analyze, Options, PauseLog, TimeRange};

    /// Every table's columns carry core's definitions, and their keys are the CLI's JSON fields.
    #[test]
    fn latency_tables_carry_their_definitions_and_the_clis_keys() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/traces/net8.0/wks-concurrent.nettrace"
        ))
        .unwrap();
        let m = gcscope_core::gc::analyze(&bytes).unwrap();
        let opts = Options {
            budget_ms: 1.0,
            ..Options::default()
        };
        let l = analyze(
            &PauseLog::from_gcs(&m.gcs),
            TimeRange::new(0.0, m.process.trace_duration_ms),
            &opts,
        );
        let json = serde_json::to_value(&l).unwrap();
        for (tb, path) in [
            (percentiles(&l.pauses), "pauses"),
            (histogram(&l.histogram), "histogram"),
            (worst_gcs(&l.budget), "budget.worst_gcs"),
            (worst_windows(&l.budget), "budget.worst_windows"),
            (mmu(&l.mmu), "mmu"),
        ] {
            assert!(!tb.rows.is_empty(), "{}", tb.id);
            let list = path
                .split('.')
                .fold(&json, |j, k| &j[k])
                .as_array()
                .unwrap();
            assert_eq!(list.len(), tb.rows.len(), "{}", tb.id);
            for (c, col) in tb.cols.iter().enumerate() {
                assert!(!col.help.is_empty(), "{}: {}", tb.id, col.key);
                // Numbers as in the JSON (the kind reads with spaces).
                for (row, item) in tb.rows.iter().zip(list) {
                    let want = &item[col.key.as_str()];
                    match row[c].number() {
                        Some(v) => assert_eq!(v, want.as_f64(), "{}.{}", tb.id, col.key),
                        None => assert_eq!(
                            row[c].raw(),
                            kind_label(want.as_str().unwrap()),
                            "{}.{}",
                            tb.id,
                            col.key
                        ),
                    }
                }
            }
        }
    }
}
