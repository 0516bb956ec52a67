//! The insights views' tables as plain rows of cells (one source for what a view shows and what
//! its CSV/JSON exports hold). Column headers carry the definitions of
//! `gcscope_core::gc::definitions`. Per-GC rows honour the time range by their GC's
//! pause start (as every other view); point-in-time rows by their own time.

use std::collections::HashMap;

use gcscope_core::gc::definitions::insights_field as field;
use gcscope_core::gc::insights::{
    root_values, GcBudget, GenBudget, Insights, SuspendReasonStats, Suspension, TypeAlloc,
    ROOT_KINDS,
};

use crate::columns::Cell;
use crate::tables::{Col, Table};
use crate::view_state::Filter;

/// GC number -> pause start (for the time range of rows that only name their GC).
pub type Starts = HashMap<u32, f64>;

/// A column whose header is the definition of `path` (label and unit from it, unless overridden).
fn dcol(key: &str, path: &str, label: Option<&str>) -> Col {
    let d = field(path);
    Col {
        key: key.into(),
        label: label
            .map(str::to_string)
            .or_else(|| d.map(|d| d.label.to_string()))
            .unwrap_or_else(|| key.to_string()),
        unit: match d.map(|d| d.unit) {
            Some("bool") | Some("name") | None => "name",
            Some("gen") => "count",
            Some(u) => u,
        },
        help: d.map_or("", |d| d.definition),
    }
}

/// A column shown as text (a generation name rather than its number).
fn name_col(c: Col) -> Col {
    Col { unit: "name", ..c }
}

fn n(v: impl Into<f64>) -> Cell {
    Cell::Num(Some(v.into()))
}
fn nu(v: u64) -> Cell {
    Cell::Num(Some(v as f64))
}
fn on<T: Into<f64>>(v: Option<T>) -> Cell {
    Cell::Num(v.map(Into::into))
}
fn onu(v: Option<u64>) -> Cell {
    Cell::Num(v.map(|v| v as f64))
}
fn t(s: impl Into<String>) -> Cell {
    Cell::Text(s.into())
}
fn gen_name(g: Option<u8>) -> Cell {
    t(match g {
        Some(0) => "gen0",
        Some(1) => "gen1",
        Some(2) => "gen2",
        Some(_) => "other",
        None => "",
    })
}
fn yes(b: bool) -> Cell {
    t(if b { "yes" } else { "" })
}

/// Whether a GC's row is in the time range (GCs not in `starts` are kept only without a range).
pub fn gc_in(f: &Filter, starts: &Starts, gc: u32) -> bool {
    if f.t0.is_none() && f.t1.is_none() {
        return true;
    }
    starts.get(&gc).is_some_and(|&s| f.in_range(s))
}

// ---------------------------------------------------------------------------------------------
// Allocations

pub fn alloc_types(types: &[TypeAlloc]) -> Table {
    let p = "allocations.top_types";
    let cols = vec![
        dcol("type_name", &format!("{p}.type_name"), None),
        dcol("sampled_bytes", &format!("{p}.sampled_bytes"), None),
        dcol("pct", &format!("{p}.pct"), None),
        dcol("ticks", &format!("{p}.ticks"), None),
        dcol("small_bytes", &format!("{p}.by_kind.small"), Some("Small")),
        dcol("large_bytes", &format!("{p}.by_kind.large"), Some("Large")),
        dcol(
            "pinned_bytes",
            &format!("{p}.by_kind.pinned"),
            Some("Pinned"),
        ),
    ];
    let rows = types
        .iter()
        .map(|a| {
            vec![
                t(if a.type_name.is_empty() {
                    "(no type: tick version 0-1)"
                } else {
                    &a.type_name
                }),
                nu(a.sampled_bytes),
                n(a.pct),
                nu(a.ticks),
                nu(a.by_kind.small),
                nu(a.by_kind.large),
                nu(a.by_kind.pinned),
            ]
        })
        .collect();
    Table {
        id: "alloc-types",
        title: "Types by sampled bytes".into(),
        cols,
        rows,
    }
}

// ---------------------------------------------------------------------------------------------
// Budgets

fn budget_cells(g: &GenBudget, with_alloc: bool) -> Vec<Cell> {
    let mut v = vec![n(g.budget_bytes as f64)];
    if with_alloc {
        v.push(onu(g.allocated_since_previous_bytes));
        v.push(on(g.budget_used_pct));
    }
    v
}

fn budget_cols(prefix: &str) -> Vec<Col> {
    let mut c = Vec::new();
    for (gen, label, alloc) in [
        ("gen0", "gen0", true),
        ("gen1", "gen1", false),
        ("gen2", "gen2", false),
        ("loh", "LOH", true),
        ("poh", "POH", true),
    ] {
        let p = format!("{prefix}.{gen}");
        c.push(dcol(
            &format!("{gen}_budget_bytes"),
            &format!("{p}.budget_bytes"),
            Some(&format!("{label} budget")),
        ));
        if alloc {
            c.push(dcol(
                &format!("{gen}_allocated_bytes"),
                &format!("{p}.allocated_since_previous_bytes"),
                Some(&format!("{label} allocated")),
            ));
            c.push(dcol(
                &format!("{gen}_used_pct"),
                &format!("{p}.budget_used_pct"),
                Some(&format!("{label} used")),
            ));
        }
    }
    c
}

fn gens_cells(g: &gcscope_core::gc::insights::GenBudgets) -> Vec<Cell> {
    let mut v = budget_cells(&g.gen0, true);
    v.extend(budget_cells(&g.gen1, false));
    v.extend(budget_cells(&g.gen2, false));
    v.extend(budget_cells(&g.loh, true));
    v.extend(budget_cells(&g.poh, true));
    v
}

pub fn budgets(rows: &[&GcBudget]) -> Table {
    let mut cols = vec![
        dcol("gc_number", "budgets.gc_number", None),
        dcol("gen", "budgets.gen", None),
        dcol("start_ms", "budgets.start_ms", None),
        dcol("reason", "budgets.reason", None),
        name_col(dcol("initial_gen", "budgets.initial_gen", None)),
        name_col(dcol(
            "budget_exceeded_gen",
            "budgets.budget_exceeded_gen",
            None,
        )),
        dcol("escalated", "budgets.escalated", None),
        dcol("why", "budgets.why", None),
    ];
    cols.extend(budget_cols("budgets.total"));
    Table {
        id: "budgets",
        title: "Budgets per GC (summed over heaps)".into(),
        cols,
        rows: rows
            .iter()
            .map(|b| {
                let mut r = vec![
                    n(b.gc_number),
                    n(b.gen),
                    n(b.start_ms),
                    t(b.reason.as_ref()),
                    gen_name(b.initial_gen),
                    gen_name(b.budget_exceeded_gen),
                    yes(b.escalated),
                    t(b.why.clone()),
                ];
                r.extend(gens_cells(&b.total));
                r
            })
            .collect(),
    }
}

pub fn budgets_per_heap(rows: &[&GcBudget]) -> Table {
    let mut cols = vec![
        dcol("gc_number", "budgets.gc_number", None),
        dcol("gen", "budgets.gen", None),
        dcol("heap", "budgets.heaps.heap", Some("Heap")),
        name_col(dcol(
            "budget_exceeded_gen",
            "budgets.heaps.budget_exceeded_gen",
            Some("Budget exceeded"),
        )),
    ];
    cols.extend(budget_cols("budgets.heaps.generations"));
    Table {
        id: "budgets-per-heap",
        title: "Budgets per GC and heap".into(),
        cols,
        rows: rows
            .iter()
            .flat_map(|b| {
                b.heaps.iter().map(move |h| {
                    let mut r = vec![
                        n(b.gc_number),
                        n(b.gen),
                        n(h.heap),
                        gen_name(h.budget_exceeded_gen),
                    ];
                    r.extend(gens_cells(&h.generations));
                    r
                })
            })
            .collect(),
    }
}

/// GCs per (budget-exceeded generation × generation collected).
pub fn exceeded(rows: &[&GcBudget]) -> Table {
    let mut counts = [[0u32; 4]; 4]; // [exceeded: gen0, gen1, gen2, none][collected gen0..2, all]
    for b in rows {
        let e = match b.budget_exceeded_gen {
            Some(g) if g <= 2 => g as usize,
            _ => 3,
        };
        counts[e][(b.gen as usize).min(2)] += 1;
        counts[e][3] += 1;
    }
    let c = |key: &str, label: &str, help: &'static str| Col {
        key: key.into(),
        label: label.into(),
        unit: if key == "exceeded" { "name" } else { "count" },
        help,
    };
    let help = field("budgets.budget_exceeded_gen").map_or("", |d| d.definition);
    Table {
        id: "budget-exceeded",
        title: "Which generation's budget was exceeded".into(),
        cols: vec![
            c("exceeded", "Budget exceeded", help),
            c("gen0", "gen0 GCs", "GCs that collected gen0"),
            c("gen1", "gen1 GCs", "GCs that collected gen1"),
            c("gen2", "gen2 GCs", "GCs that collected gen2"),
            c("all", "All", "GCs with GCPerHeapHistory in the range"),
        ],
        rows: ["gen0", "gen1", "gen2", "none reported"]
            .iter()
            .enumerate()
            .filter(|(i, _)| counts[*i][3] > 0)
            .map(|(i, name)| {
                let mut r = vec![t(*name)];
                r.extend(counts[i].iter().map(|&v| n(v)));
                r
            })
            .collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// Roots and compaction

pub fn roots_by_kind(ins: &Insights, f: &Filter, starts: &Starts) -> Table {
    let mut bytes = [0u64; 10];
    let mut gcs = [0u32; 10];
    for g in ins
        .roots
        .per_gc
        .iter()
        .filter(|g| gc_in(f, starts, g.gc_number))
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
        cols: vec![
            dcol("kind", "roots.by_kind.kind", None),
            dcol("bytes", "roots.by_kind.bytes", None),
            dcol("pct", "roots.by_kind.pct", None),
            dcol("gcs", "roots.by_kind.gcs", None),
        ],
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
pub fn roots_per_gc(ins: &Insights, f: &Filter, starts: &Starts) -> Table {
    let mut any = [false; 10];
    for g in &ins.roots.per_gc {
        for (k, v) in root_values(&g.marked).iter().enumerate() {
            any[k] |= *v > 0;
        }
    }
    let kinds: Vec<usize> = (0..10).filter(|&k| any[k]).collect();
    let mut cols = vec![
        dcol("gc_number", "roots.per_gc.gc_number", None),
        dcol("gen", "roots.per_gc.gen", None),
        dcol("start_ms", "roots.per_gc.start_ms", None),
        dcol("total_bytes", "roots.per_gc.total_bytes", None),
    ];
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
            .filter(|g| gc_in(f, starts, g.gc_number))
            .map(|g| {
                let mut r = vec![n(g.gc_number), n(g.gen), n(g.start_ms), nu(g.total_bytes)];
                let v = root_values(&g.marked);
                r.extend(kinds.iter().map(|&k| nu(v[k])));
                r
            })
            .collect(),
    }
}

pub fn compaction_per_gc(ins: &Insights, f: &Filter, starts: &Starts) -> Table {
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
        cols: keys
            .iter()
            .map(|k| dcol(k, &format!("{p}.{k}"), None))
            .collect(),
        rows: ins
            .compaction
            .per_gc
            .iter()
            .filter(|g| gc_in(f, starts, g.gc_number))
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

// ---------------------------------------------------------------------------------------------
// Suspensions

/// By reason over the range (from the suspension lists), or core's totals without a range.
pub fn suspend_reasons(ins: &Insights, f: &Filter) -> Table {
    let s = &ins.suspensions;
    let ranged = f.t0.is_some() || f.t1.is_some();
    let stats: Vec<SuspendReasonStats> = if !ranged {
        s.by_reason.clone()
    } else {
        let mut v: Vec<SuspendReasonStats> = Vec::new();
        for x in s.for_gc.iter().chain(&s.not_for_gc) {
            if !f.in_range(x.begin_ms) {
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
        cols: keys
            .iter()
            .map(|k| dcol(k, &format!("{p}.{k}"), None))
            .collect(),
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

pub fn suspend_per_gc(ins: &Insights, f: &Filter, starts: &Starts) -> Table {
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
        cols: keys
            .iter()
            .map(|k| dcol(k, &format!("{p}.{k}"), None))
            .collect(),
        rows: ins
            .suspensions
            .per_gc
            .iter()
            .filter(|g| gc_in(f, starts, g.gc_number))
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

pub fn not_for_gc(list: &[Suspension], f: &Filter) -> Table {
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
        cols: keys
            .iter()
            .map(|k| dcol(k, &format!("{p}.{k}"), None))
            .collect(),
        rows: list
            .iter()
            .filter(|s| f.in_range(s.begin_ms))
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

// ---------------------------------------------------------------------------------------------
// Finalization, segments

pub fn finalization_per_gc(ins: &Insights, f: &Filter, starts: &Starts) -> Table {
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
        cols: keys
            .iter()
            .map(|k| dcol(k, &format!("{p}.{k}"), None))
            .collect(),
        rows: ins
            .finalization
            .per_gc
            .iter()
            .filter(|g| gc_in(f, starts, g.gc_number))
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

pub fn finalizer_runs(ins: &Insights, f: &Filter) -> Table {
    let p = "finalization.runs";
    let keys = ["begin_ms", "end_ms", "duration_ms", "count", "after_gc"];
    Table {
        id: "finalizer-runs",
        title: "Finalizer thread runs".into(),
        cols: keys
            .iter()
            .map(|k| dcol(k, &format!("{p}.{k}"), None))
            .collect(),
        rows: ins
            .finalization
            .runs
            .iter()
            .filter(|r| f.in_range(r.end_ms))
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
        cols: vec![
            dcol("type_name", "finalization.by_type.type_name", None),
            dcol("count", "finalization.by_type.count", None),
        ],
        rows: ins
            .finalization
            .by_type
            .iter()
            .map(|x| vec![t(x.type_name.clone()), nu(x.count)])
            .collect(),
    }
}

pub fn segments(ins: &Insights, f: &Filter) -> Table {
    let p = "segments.segments";
    let keys = ["address", "size_bytes", "kind", "created_ms", "freed_ms"];
    let ranged = f.t0.is_some() || f.t1.is_some();
    Table {
        id: "segments",
        title: "Segments and regions".into(),
        cols: keys
            .iter()
            .map(|k| dcol(k, &format!("{p}.{k}"), None))
            .collect(),
        rows: ins
            .segments
            .segments
            .iter()
            // In a range: the segments alive in it (created before its end, freed after its start).
            .filter(|s| {
                !ranged
                    || (s.created_ms.is_none_or(|c| f.t1.is_none_or(|t1| c <= t1))
                        && s.freed_ms.is_none_or(|e| f.t0.is_none_or(|t0| e >= t0)))
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

// ---------------------------------------------------------------------------------------------
// Counters

/// The counters (key, JSON field) in the order the view lists them.
pub const COUNTERS: [&str; 20] = [
    "gen0_collections",
    "gen1_collections",
    "gen2_collections",
    "induced_gcs",
    "gen0_heap_size_bytes",
    "gen1_heap_size_bytes",
    "gen2_heap_size_bytes",
    "loh_size_bytes",
    "poh_size_bytes",
    "bytes_in_all_heaps",
    "promoted_from_gen0_bytes",
    "promoted_from_gen1_bytes",
    "promoted_finalization_from_gen0_bytes",
    "finalization_survivors",
    "gc_handles",
    "pinned_objects",
    "sync_blocks_in_use",
    "time_in_gc_pct",
    "allocated_bytes_per_s",
    "total_committed_bytes",
];

/// One counter's value in a sample.
pub fn counter_value(c: &gcscope_core::gc::insights::CounterSample, key: &str) -> Option<f64> {
    let u = |v: Option<u64>| v.map(|v| v as f64);
    let i = |v: Option<u32>| v.map(f64::from);
    match key {
        "gen0_collections" => Some(c.gen0_collections.into()),
        "gen1_collections" => Some(c.gen1_collections.into()),
        "gen2_collections" => Some(c.gen2_collections.into()),
        "induced_gcs" => Some(c.induced_gcs.into()),
        "gen0_heap_size_bytes" => u(c.gen0_heap_size_bytes),
        "gen1_heap_size_bytes" => u(c.gen1_heap_size_bytes),
        "gen2_heap_size_bytes" => u(c.gen2_heap_size_bytes),
        "loh_size_bytes" => u(c.loh_size_bytes),
        "poh_size_bytes" => u(c.poh_size_bytes),
        "bytes_in_all_heaps" => u(c.bytes_in_all_heaps),
        "promoted_from_gen0_bytes" => u(c.promoted_from_gen0_bytes),
        "promoted_from_gen1_bytes" => u(c.promoted_from_gen1_bytes),
        "promoted_finalization_from_gen0_bytes" => u(c.promoted_finalization_from_gen0_bytes),
        "finalization_survivors" => u(c.finalization_survivors),
        "gc_handles" => i(c.gc_handles),
        "pinned_objects" => i(c.pinned_objects),
        "sync_blocks_in_use" => i(c.sync_blocks_in_use),
        "time_in_gc_pct" => c.time_in_gc_pct,
        "allocated_bytes_per_s" => c.allocated_bytes_per_s,
        "total_committed_bytes" => u(c.total_committed_bytes),
        _ => None,
    }
}

pub fn counter_col(key: &str) -> Col {
    dcol(key, &format!("counters.{key}"), None)
}

pub fn counters(ins: &Insights, f: &Filter, starts: &Starts) -> Table {
    let mut cols = vec![counter_col("gc_number"), counter_col("ms")];
    cols.extend(COUNTERS.iter().map(|k| counter_col(k)));
    Table {
        id: "counters",
        title: "Counters at the end of each GC".into(),
        cols,
        rows: ins
            .counters
            .iter()
            .filter(|c| gc_in(f, starts, c.gc_number))
            .map(|c| {
                let mut r = vec![n(c.gc_number), n(c.ms)];
                r.extend(COUNTERS.iter().map(|k| Cell::Num(counter_value(c, k))));
                r
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_has_its_definition() {
        let ins = Insights::default();
        let f = Filter::default();
        let s = Starts::new();
        for tb in [
            alloc_types(&[]),
            budgets(&[]),
            budgets_per_heap(&[]),
            roots_by_kind(&ins, &f, &s),
            roots_per_gc(&ins, &f, &s),
            compaction_per_gc(&ins, &f, &s),
            suspend_reasons(&ins, &f),
            suspend_per_gc(&ins, &f, &s),
            not_for_gc(&[], &f),
            finalization_per_gc(&ins, &f, &s),
            finalizer_runs(&ins, &f),
            finalized_types(&ins),
            segments(&ins, &f),
            counters(&ins, &f, &s),
        ] {
            for c in &tb.cols {
                assert!(!c.help.is_empty(), "{}: {} has no definition", tb.id, c.key);
            }
        }
    }

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

    #[test]
    fn exceeded_counts_gcs_by_budget_and_generation() {
        let b = |gen: u8, ex: Option<u8>| GcBudget {
            gc_number: 1,
            gen,
            start_ms: 0.0,
            reason: "AllocSmall".into(),
            induced: false,
            initial_gen: None,
            budget_exceeded_gen: ex,
            time_tuning_gen: None,
            conditions: vec![],
            escalated: false,
            why: String::new(),
            total: Default::default(),
            heaps: vec![],
        };
        let v = [b(0, Some(0)), b(1, Some(1)), b(2, Some(1)), b(2, None)];
        let refs: Vec<&GcBudget> = v.iter().collect();
        let tb = exceeded(&refs);
        // gen1's budget: one gen1 GC and one gen2 GC; none reported: one gen2 GC.
        assert_eq!(tb.rows.len(), 3);
        assert_eq!(tb.rows[1][0], t("gen1"));
        assert_eq!(tb.rows[1][1..], [n(0), n(1), n(1), n(2)]);
        assert_eq!(tb.rows[2][0], t("none reported"));
    }
}
