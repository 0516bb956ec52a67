//! The GC model's tables: the GC rows as shown, the rollup by generation, the condemn breakdown
//! (whole trace, or a time range's rows), the trace facts and the event counts.

use gcscope_core::gc::{Gc, GcModel};

use super::callers::CallerIndex;
use super::columns::{self, Column};
use super::{col, defs, n, nu, t, Cell, Col, Table};

/// The GC table as shown: `rows` (indices into `gcs`) and `cols` in display order, the Caller
/// column's cells from `callers`.
pub fn gc_table(gcs: &[Gc], rows: &[u32], cols: &[&Column], callers: &CallerIndex) -> Table {
    Table {
        id: "gcs",
        title: "GCs".into(),
        cols: cols
            .iter()
            .map(|c| col(&c.id, &c.label, c.unit, c.help))
            .collect(),
        rows: rows
            .iter()
            .map(|&i| {
                cols.iter()
                    .map(|c| columns::cell(c, &gcs[i as usize], callers))
                    .collect()
            })
            .collect(),
    }
}

pub fn rollup_table(m: &GcModel) -> Table {
    let d = |k: &str| {
        defs::rollup_field(k)
            .map(|d| col(d.field, d.label, d.unit, d.definition))
            .unwrap_or_else(|| col(k, k, "count", ""))
    };
    let keys = [
        "gen",
        "count",
        "induced_count",
        "background_count",
        "max_pause_ms",
        "mean_pause_ms",
        "total_pause_ms",
        "pause_time_pct",
        "max_suspend_ms",
        "total_duration_ms",
        "max_peak_bytes",
        "mean_after_bytes",
        "total_allocated_bytes",
        "max_alloc_rate_bytes_per_s",
        "total_promoted_bytes",
        "allocated_per_pause_ms_bytes",
        "promoted_per_gc_ms_bytes",
    ];
    Table {
        id: "rollup",
        title: "Rollup by generation".into(),
        cols: keys.iter().map(|k| d(k)).collect(),
        rows: m
            .rollup
            .iter()
            .map(|r| {
                vec![
                    t(if r.gen == "all" {
                        "All".to_string()
                    } else {
                        format!("Gen {}", r.gen)
                    }),
                    n(r.count),
                    n(r.induced_count),
                    n(r.background_count),
                    n(r.max_pause_ms),
                    n(r.mean_pause_ms),
                    n(r.total_pause_ms),
                    Cell::Num(r.pause_time_pct),
                    n(r.max_suspend_ms),
                    n(r.total_duration_ms),
                    nu(r.max_peak_bytes),
                    n(r.mean_after_bytes),
                    nu(r.total_allocated_bytes),
                    n(r.max_alloc_rate_bytes_per_s),
                    nu(r.total_promoted_bytes),
                    Cell::Num(r.allocated_per_pause_ms_bytes),
                    Cell::Num(r.promoted_per_gc_ms_bytes),
                ]
            })
            .collect(),
    }
}

/// Condemn breakdown: one row per reason, a column per generation.
pub fn reasons_table(m: &GcModel, by_condition: bool) -> Table {
    let list = if by_condition {
        &m.condemn_reasons.by_condition
    } else {
        &m.condemn_reasons.by_trigger
    };
    let mut cols = vec![col(
        "reason",
        if by_condition {
            "Condemn condition"
        } else {
            "Trigger reason"
        },
        "name",
        if by_condition {
            "Why the GC chose its generation (GCPerHeapHistory CondemnReasons; alloc_budget_exceeded/time_tuning when they name the GC's own generation)."
        } else {
            "Why the GC was triggered (GCStart's Reason)."
        },
    )];
    for g in 0..3 {
        cols.push(Col {
            key: format!("gen{g}"),
            label: format!("Gen {g}"),
            unit: "count",
            help: "Complete GCs of this generation with this reason.",
        });
    }
    cols.push(col(
        "total",
        "Total",
        "count",
        "All complete GCs with this reason.",
    ));
    Table {
        id: if by_condition {
            "condemn-conditions"
        } else {
            "trigger-reasons"
        },
        title: if by_condition {
            "Condemn conditions"
        } else {
            "Trigger reasons"
        }
        .into(),
        cols,
        rows: list
            .iter()
            .map(|r| {
                vec![
                    t(r.reason.as_ref()),
                    n(r.per_gen[0]),
                    n(r.per_gen[1]),
                    n(r.per_gen[2]),
                    n(r.total),
                ]
            })
            .collect(),
    }
}

/// Process and trace facts as (label, value, definition) for the overview and the report.
pub fn facts(m: &GcModel, file_name: &str, file_size: f64) -> Vec<(String, String, &'static str)> {
    use crate::format::{bytes, ms, thousands};
    let p = &m.process;
    let def = |k: &str| defs::process_field(k).map_or("", |d| d.definition);
    let mode = gcscope_core::gc::mode::label(p);
    let conc = match p.concurrent {
        Some(true) => "background GC on",
        Some(false) => "background GC off",
        None => "unknown",
    };
    let mut facts = vec![
        (
            "File".into(),
            format!("{file_name} ({})", bytes(file_size)),
            "",
        ),
        (
            "Runtime".into(),
            runtime_label(p.runtime_version.as_deref()),
            def("runtime_version"),
        ),
        ("GC mode".into(), mode, def("gc_mode")),
        ("Concurrent".into(), conc.into(), def("concurrent")),
        (
            "Duration".into(),
            ms(p.trace_duration_ms),
            def("trace_duration_ms"),
        ),
        ("GCs".into(), thousands(p.gc_count as f64), def("gc_count")),
        (
            "Incomplete GCs".into(),
            thousands(p.incomplete_gc_count as f64),
            def("incomplete_gc_count"),
        ),
        ("Events".into(), thousands(p.events as f64), def("events")),
        (
            "GC events".into(),
            thousands(p.gc_events as f64),
            def("gc_events"),
        ),
        (
            "Dropped events".into(),
            p.dropped_events
                .map(|d| thousands(d as f64))
                .unwrap_or_else(|| "unknown".into()),
            def("dropped_events"),
        ),
        (
            "Out-of-order events".into(),
            thousands(p.out_of_order_events as f64),
            def("out_of_order_events"),
        ),
        ("Format".into(), p.format.clone(), def("format")),
        (
            "Process".into(),
            format!(
                "{}pid {} · {} CPUs · {}-bit",
                p.process_name
                    .as_deref()
                    .map(|n| format!("{n} · "))
                    .unwrap_or_default(),
                p.process_id,
                p.processor_count,
                p.pointer_size as u32 * 8
            ),
            def("process_name"),
        ),
        (
            "Command line".into(),
            p.command_line.clone().unwrap_or_else(|| "unknown".into()),
            def("command_line"),
        ),
        (
            "OS / arch".into(),
            {
                // EventPipe's header says them; ETW traces do not.
                let s = format!(
                    "{} {}",
                    p.os.clone().unwrap_or_default(),
                    p.arch.clone().unwrap_or_default()
                );
                let s = s.trim();
                if s.is_empty() { "unknown" } else { s }.to_string()
            },
            def("os"),
        ),
        (
            "Trace start".into(),
            p.trace_start_utc.clone(),
            def("trace_start_utc"),
        ),
    ];
    // Only where there is one: the Heap tab reads it.
    if let Some(n) = p.heap_walk_gc {
        facts.push((
            "Heap walk GC".into(),
            format!("GC #{n} (the Heap tab shows the walk)"),
            def("heap_walk_gc"),
        ));
    }
    facts
}

/// The runtime as people name it, then its exact version: `.NET Framework 4.x (CLR 4.0.30319.34209)`
/// (every 4.x release runs CLR 4.0.30319), `.NET 8.0.0 (CoreCLR ...)`, `.NET Core 3.1.23 (...)`.
pub fn runtime_label(version: Option<&str>) -> String {
    let Some(v) = version else {
        return "unknown".into();
    };
    if let Some(clr) = v.strip_prefix(".NET Framework (CLR ") {
        let family = match clr.split('.').next() {
            Some("4") => ".NET Framework 4.x",
            Some("2") => ".NET Framework 2.0-3.5",
            _ => ".NET Framework",
        };
        return format!("{family} (CLR {}", clr);
    }
    match v
        .split(['.', ' '])
        .next()
        .and_then(|m| m.parse::<u32>().ok())
    {
        Some(major) if major >= 5 => format!(".NET {v}"),
        Some(_) => format!(".NET Core {v}"),
        None => v.to_string(),
    }
}

/// The condemn breakdown over a subset of rows (a time range), by core's rule: complete GCs; the
/// generation-valued reasons count when they name the GC's own generation.
pub fn breakdown(gcs: &[&Gc]) -> (Table, Table, [u32; 3]) {
    use gcscope_core::gc::{CondemnBreakdown, ReasonCount, ALLOC_BUDGET, TIME_TUNING};
    use std::borrow::Cow;
    let mut b = CondemnBreakdown::default();
    fn bump(v: &mut Vec<ReasonCount>, name: &str, gen: usize) {
        match v.iter_mut().find(|r| r.reason == name) {
            Some(r) => {
                r.per_gen[gen] += 1;
                r.total += 1;
            }
            None => {
                let mut per_gen = [0; 3];
                per_gen[gen] = 1;
                v.push(ReasonCount {
                    reason: Cow::Owned(name.to_string()),
                    per_gen,
                    total: 1,
                });
            }
        }
    }
    for g in gcs.iter().filter(|g| g.complete) {
        let gen = g.gen.min(2) as usize;
        bump(&mut b.by_trigger, &g.reason, gen);
        let Some(c) = &g.condemn else {
            b.without_history[gen] += 1;
            continue;
        };
        if c.alloc_budget_gen == g.gen {
            bump(&mut b.by_condition, ALLOC_BUDGET, gen);
        }
        if c.time_tuning_gen == g.gen && c.time_tuning_gen > 0 {
            bump(&mut b.by_condition, TIME_TUNING, gen);
        }
        for cond in &c.conditions {
            bump(&mut b.by_condition, cond, gen);
        }
    }
    for v in [&mut b.by_trigger, &mut b.by_condition] {
        v.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.reason.cmp(&b.reason)));
    }
    let without = b.without_history;
    let m = GcModel {
        process: Default::default(),
        gcs: Vec::new(),
        rollup: Vec::new(),
        condemn_reasons: b,
        handles: Default::default(),
        pinning: Default::default(),
        notes: Vec::new(),
        datas: Default::default(),
        alloc_waits: Default::default(),
    };
    (reasons_table(&m, false), reasons_table(&m, true), without)
}

/// Events by provider and name (`Provider/EventName`, count), as the worker counted them.
pub fn events_table(counts: &[(String, f64)]) -> Table {
    Table {
        id: "events",
        title: "Events by provider and name".into(),
        cols: vec![
            col(
                "event",
                "Provider/Event",
                "name",
                "Provider and event name, as TraceEvent names them.",
            ),
            col(
                "count",
                "Count",
                "count",
                "Events of this name in the trace.",
            ),
        ],
        rows: counts
            .iter()
            .map(|(name, count)| vec![t(name.clone()), n(*count)])
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The versions core writes (`gc::ingest`'s RuntimeInformation reading) as people name them.
    #[test]
    fn runtime_labels() {
        for (v, want) in [
            (
                ".NET Framework (CLR 4.0.30319.34209)",
                ".NET Framework 4.x (CLR 4.0.30319.34209)",
            ),
            (
                ".NET Framework (CLR 2.0.50727.9151)",
                ".NET Framework 2.0-3.5 (CLR 2.0.50727.9151)",
            ),
            (
                "8.0.0 (CoreCLR 42.42.42.42424)",
                ".NET 8.0.0 (CoreCLR 42.42.42.42424)",
            ),
            (
                "3.1.32 (CoreCLR 4.700.22.55902)",
                ".NET Core 3.1.32 (CoreCLR 4.700.22.55902)",
            ),
            ("CoreCLR 4.700.22.55902", "CoreCLR 4.700.22.55902"),
        ] {
            assert_eq!(runtime_label(Some(v)), want);
        }
        assert_eq!(runtime_label(None), "unknown");
    }
}
