//! The DATAS view's tables and sentences (Server GC's Dynamic Adaptation To Application Sizes):
//! each heap-count change with the tuning decision behind it, every decision, DATAS's per-GC
//! samples, every GC's heap count and the GCs per heap count; the heap count as a step line, the
//! sentence that answers "why N heaps?", and what a trace without DATAS shows instead (the GC
//! mode's evidence and how DATAS is enabled and captured). The same figures as `gcscope datas`.
//!
//! Rows follow the time range by the start of the GC they name (as every view's per-GC rows).

use gcscope_core::gc::datas::{explain_change, Code, DatasModel, TuningCodes, HOW_TO_ENABLE};
use gcscope_core::gc::{mode, ProcessFacts};

use super::memory::step_points;
use super::{def_col, defs, n, on, onu, t, Col, Starts, Table};
use crate::time_range::TimeRange;

/// A column headed by the model's definition of `datas.{path}` (`label` overrides its label).
fn col(key: &str, path: &str, label: Option<&str>) -> Col {
    def_col(key, defs::model_field(&format!("datas.{path}")), label)
}

/// Whether the record of GC `gc` (at `ms`) is in the range: by the GC's start when the rows have
/// that GC, else by its own time.
fn in_range(r: &TimeRange, starts: &Starts, gc: u64, ms: f64) -> bool {
    if !r.is_set() {
        return true;
    }
    let start = u32::try_from(gc).ok().and_then(|g| starts.get(&g));
    r.contains(start.copied().unwrap_or(ms))
}

/// Whether the trace has anything for the DATAS view to show (else it shows [`not_datas`]): its
/// DATAS events, or heap-count changes without them. As `gcscope datas`.
pub fn has_view(d: &DatasModel) -> bool {
    d.has_events() || !d.changes.is_empty()
}

/// The gen0 budget per heap DATAS had set when it made the decision at GC `gc` (the last sample
/// at or before it), as `gc::datas::explain` quotes it.
fn budget_at(d: &DatasModel, gc: u64) -> Option<u64> {
    d.samples
        .iter()
        .rev()
        .find(|s| s.gc <= gc)
        .and_then(|s| s.gen0_budget_per_heap_bytes)
}

/// A tuning code as shown: the runtime's name and, in brackets, the number the event carried
/// (the number alone when the name is the number: a code gcscope does not know).
fn named(c: &Code) -> String {
    if c.name == c.value.to_string() {
        c.name.clone()
    } else {
        format!("{} ({})", c.name, c.value)
    }
}

/// Each heap-count change and the decision behind it (columns `decision.*` are the decision's).
pub fn changes(d: &DatasModel, r: &TimeRange, starts: &Starts) -> Table {
    let cols = vec![
        col("gc", "changes.gc", None),
        col("ms", "changes.ms", None),
        col("from", "changes.from", None),
        col("to", "changes.to", None),
        col("decision.gc", "decisions.gc", Some("Decided at GC")),
        col("decision.event", "decisions.event", Some("Decision")),
        col("decision.verdict", "decisions.verdict", None),
        col("decision.median_tcp_pct", "decisions.median_tcp_pct", None),
        col(
            "decision.tcp_considered_pct",
            "decisions.tcp_considered_pct",
            None,
        ),
        col(
            "decision.gcs_since_last_change",
            "decisions.gcs_since_last_change",
            None,
        ),
        col(
            "decision.soh_stable_bytes",
            "decisions.soh_stable_bytes",
            None,
        ),
        col(
            "decision.max_heaps_by_budget",
            "decisions.max_heaps_by_budget",
            None,
        ),
        col(
            "decision.min_heaps_by_budget",
            "decisions.min_heaps_by_budget",
            None,
        ),
        col(
            "gen0_budget_per_heap_bytes",
            "samples.gen0_budget_per_heap_bytes",
            None,
        ),
        col(
            "decision.other_fields",
            "decisions.other_fields",
            Some("Other fields (raw)"),
        ),
    ];
    let rows = d
        .changes
        .iter()
        .filter(|c| in_range(r, starts, c.gc, c.ms))
        .map(|c| {
            let dec = c.decision.and_then(|i| d.decisions.get(i));
            vec![
                n(c.gc as f64),
                n(c.ms),
                n(c.from),
                n(c.to),
                onu(dec.map(|x| x.gc)),
                t(dec.map_or("no tuning event", |x| x.event.as_ref())),
                t(dec.map_or("", |x| x.verdict.as_str())),
                on(dec.and_then(|x| x.median_tcp_pct)),
                on(dec.and_then(|x| x.tcp_considered_pct)),
                on(dec.and_then(|x| x.gcs_since_last_change)),
                onu(dec.and_then(|x| x.soh_stable_bytes)),
                on(dec.and_then(|x| x.max_heaps_by_budget)),
                on(dec.and_then(|x| x.min_heaps_by_budget)),
                onu(dec.and_then(|x| budget_at(d, x.gc))),
                t(dec.map_or("", |x| x.other_fields.as_str())),
            ]
        })
        .collect();
    Table {
        id: "datas-changes",
        title: "Heap-count changes and the decision behind each".into(),
        cols,
        rows,
    }
}

/// Every tuning decision (most keep the count), with the change it caused, if any.
pub fn decisions(d: &DatasModel, r: &TimeRange, starts: &Starts) -> Table {
    let keys = [
        "gc",
        "ms",
        "event",
        "heaps_before",
        "new_heap_count",
        "verdict",
        "median_tcp_pct",
        "tcp_considered_pct",
        "gcs_since_last_change",
        "soh_stable_bytes",
        "max_heaps_by_budget",
        "min_heaps_by_budget",
    ];
    let mut cols: Vec<Col> = keys
        .iter()
        .map(|k| col(k, &format!("decisions.{k}"), None))
        .collect();
    for (key, path) in [
        ("codes.change_decision", "change_decision.name"),
        ("codes.adjustment_reason", "adjustment_reason.name"),
        ("codes.change_frequency_factor", "change_frequency_factor"),
        (
            "codes.change_frequency_reason",
            "change_frequency_reason.name",
        ),
        ("codes.adjustment_metric", "adjustment_metric.name"),
    ] {
        cols.push(col(key, &format!("decisions.codes.{path}"), None));
    }
    cols.push(col(
        "changed_at_gc",
        "changes.gc",
        Some("Changed the count at GC"),
    ));
    cols.push(col(
        "other_fields",
        "decisions.other_fields",
        Some("Other fields (raw)"),
    ));
    let rows = d
        .decisions
        .iter()
        .enumerate()
        .filter(|(_, x)| in_range(r, starts, x.gc, x.ms))
        .map(|(i, x)| {
            let change = d.changes.iter().find(|c| c.decision == Some(i));
            let codes = x.codes.as_ref();
            let code =
                |f: fn(&TuningCodes) -> &Code| t(codes.map_or(String::new(), |c| named(f(c))));
            vec![
                n(x.gc as f64),
                n(x.ms),
                t(x.event.as_ref()),
                on(x.heaps_before),
                n(x.new_heap_count),
                t(x.verdict.as_str()),
                on(x.median_tcp_pct),
                on(x.tcp_considered_pct),
                on(x.gcs_since_last_change),
                onu(x.soh_stable_bytes),
                on(x.max_heaps_by_budget),
                on(x.min_heaps_by_budget),
                code(|c| &c.change_decision),
                code(|c| &c.adjustment_reason),
                on(codes.map(|c| c.change_frequency_factor)),
                code(|c| &c.change_frequency_reason),
                code(|c| &c.adjustment_metric),
                onu(change.map(|c| c.gc)),
                t(x.other_fields.as_str()),
            ]
        })
        .collect();
    Table {
        id: "datas-decisions",
        title: "Tuning decisions".into(),
        cols,
        rows,
    }
}

/// What DATAS measured at each GC (SizeAdaptationSample, HeapCountSample on .NET 8).
pub fn samples(d: &DatasModel, r: &TimeRange, starts: &Starts) -> Table {
    let keys = [
        "gc",
        "ms",
        "heaps",
        "pause_us",
        "elapsed_between_gcs_us",
        "msl_wait_us",
        "throughput_cost_pct",
        "gen0_budget_per_heap_bytes",
        "soh_stable_bytes",
    ];
    Table {
        id: "datas-samples",
        title: "Samples (what DATAS measured at each GC)".into(),
        cols: keys
            .iter()
            .map(|k| col(k, &format!("samples.{k}"), None))
            .collect(),
        rows: d
            .samples
            .iter()
            .filter(|s| in_range(r, starts, s.gc, s.ms))
            .map(|s| {
                vec![
                    n(s.gc as f64),
                    n(s.ms),
                    on(s.heaps),
                    n(s.pause_us as f64),
                    n(s.elapsed_between_gcs_us as f64),
                    n(s.msl_wait_us as f64),
                    on(s.throughput_cost_pct),
                    onu(s.gen0_budget_per_heap_bytes),
                    onu(s.soh_stable_bytes),
                ]
            })
            .collect(),
    }
}

/// Every GC's heap count (its GCGlobalHeapHistory).
pub fn per_gc(d: &DatasModel, r: &TimeRange) -> Table {
    Table {
        id: "datas-per-gc",
        title: "Heap count of each GC".into(),
        cols: ["gc", "ms", "heaps"]
            .iter()
            .map(|k| col(k, &format!("per_gc.{k}"), None))
            .collect(),
        rows: d
            .per_gc
            .iter()
            .filter(|g| r.contains(g.ms))
            .map(|g| vec![n(g.gc as f64), n(g.ms), n(g.heaps)])
            .collect(),
    }
}

/// GCs per heap count: the model's over the whole trace, counted from the GCs' heap counts in a
/// range.
pub fn by_heap_count(d: &DatasModel, r: &TimeRange) -> Table {
    let counts: Vec<(u32, u64)> = if r.is_set() {
        let mut v: Vec<(u32, u64)> = Vec::new();
        for g in d.per_gc.iter().filter(|g| r.contains(g.ms)) {
            match v.iter_mut().find(|(h, _)| *h == g.heaps) {
                Some((_, c)) => *c += 1,
                None => v.push((g.heaps, 1)),
            }
        }
        v.sort_unstable();
        v
    } else {
        d.gcs_by_heap_count
            .iter()
            .map(|c| (c.heaps, c.gcs))
            .collect()
    };
    Table {
        id: "datas-by-heap-count",
        title: "GCs per heap count".into(),
        cols: vec![
            col("heaps", "gcs_by_heap_count.heaps", None),
            col("gcs", "gcs_by_heap_count.gcs", None),
        ],
        rows: counts
            .into_iter()
            .map(|(h, c)| vec![n(h), n(c as f64)])
            .collect(),
    }
}

/// The heap count over the trace as steps (it holds until the next GC's, and to `end_ms`).
pub fn heap_steps(d: &DatasModel, end_ms: Option<f64>) -> Vec<(f64, f64)> {
    let pts: Vec<(f64, f64)> = d
        .per_gc
        .iter()
        .map(|g| (g.ms, f64::from(g.heaps)))
        .collect();
    step_points(&pts, end_ms)
}

/// A heap-count change as the chart marks it: the GC, its time, and the sentence that explains it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeMark {
    pub gc: u64,
    pub ms: f64,
    pub from: u32,
    pub to: u32,
    pub why: String,
}

/// The changes in the range, each with its sentence (`gc::datas::explain_change`).
pub fn change_marks(d: &DatasModel, r: &TimeRange, starts: &Starts) -> Vec<ChangeMark> {
    d.changes
        .iter()
        .filter(|c| in_range(r, starts, c.gc, c.ms))
        .map(|c| ChangeMark {
            gc: c.gc,
            ms: c.ms,
            from: c.from,
            to: c.to,
            why: explain_change(d, c),
        })
        .collect()
}

/// "Why did my app grow to N heaps?" for the most heaps any GC ran: the sentence of the first
/// change that reached it, or that the trace's first GC already had it.
pub fn why_most_heaps(d: &DatasModel) -> Option<String> {
    let most = d.per_gc.iter().map(|g| g.heaps).max()?;
    let heaps = |n: u32| format!("{n} heap{}", if n == 1 { "" } else { "s" });
    Some(match d.changes.iter().find(|c| c.to == most) {
        Some(c) => format!(
            "Why {}? {}.",
            heaps(most),
            explain_change(d, c).trim_end_matches('.')
        ),
        None => {
            let first = d.per_gc.first().map_or(0, |g| g.gc);
            format!(
                "Why {}? Every GC from the trace's first (GC {first}) on ran at most {}: no change in \
                 the trace reached it, so DATAS chose it before the trace started or it is where \
                 DATAS began.",
                heaps(most),
                heaps(most)
            )
        }
    })
}

/// What the view says for a trace without DATAS records.
#[derive(Debug, Clone, PartialEq)]
pub struct NotDatas {
    /// Not DATAS, or cannot tell, in one sentence.
    pub verdict: String,
    /// The GC mode's evidence: one line per setting that bears on it (`gc::mode`).
    pub evidence: Vec<String>,
    /// How DATAS is enabled and which keyword and level capture its events.
    pub how_to_enable: String,
}

/// The empty state's text, from the GC mode's decision and its evidence.
pub fn not_datas(p: &ProcessFacts) -> NotDatas {
    let fact = |s: &str| p.gc_mode_evidence.iter().find(|f| f.setting == s);
    let why = fact("datas").map_or(String::new(), |f| format!(" ({})", f.evidence));
    let verdict = match p.datas {
        Some(false) => {
            format!("This trace is not DATAS: the GC did not adapt its heap count{why}.")
        }
        None => format!("gcscope cannot tell whether this trace ran DATAS{why}."),
        Some(true) => format!(
            "DATAS is on{why}, but the trace has none of its tuning events and no heap-count \
             change to show."
        ),
    };
    let mut evidence = vec![format!("GC mode: {}", mode::label(p))];
    for s in ["gc", "datas", "heaps"] {
        if let Some(f) = fact(s) {
            evidence.push(format!("{}: {} ({})", f.setting, f.value, f.evidence));
        }
    }
    NotDatas {
        verdict,
        evidence,
        how_to_enable: HOW_TO_ENABLE.replace('\n', " "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::Cell;
    use gcscope_core::gc::GcModel;

    fn model(path: &str) -> GcModel {
        let file = format!(
            "{}/../fixtures/traces/{path}.nettrace",
            env!("CARGO_MANIFEST_DIR")
        );
        let bytes = std::fs::read(&file).expect(&file);
        gcscope_core::gc::analyze(&bytes).expect("the fixture decodes")
    }

    fn num(c: &Cell) -> Option<f64> {
        c.number().flatten()
    }

    fn column(tb: &Table, key: &str) -> Vec<Option<f64>> {
        let i = tb.cols.iter().position(|c| c.key == key).expect(key);
        tb.rows.iter().map(|r| num(&r[i])).collect()
    }

    /// Every column of every DATAS table is headed by core's definition of its figure.
    #[test]
    fn every_column_has_its_definition() {
        let d = DatasModel::default();
        let (r, s) = (TimeRange::default(), Starts::new());
        for tb in [
            changes(&d, &r, &s),
            decisions(&d, &r, &s),
            samples(&d, &r, &s),
            per_gc(&d, &r),
            by_heap_count(&d, &r),
        ] {
            for c in &tb.cols {
                assert!(!c.help.is_empty(), "{}: {} has no definition", tb.id, c.key);
            }
        }
    }

    /// The per-GC heap counts against the GC rows' own (each row's GCGlobalHeapHistory NumHeaps,
    /// which core's tests check against TraceEvent's reading): each GC once, with its row's count;
    /// the changes table against a recount of the rows' heap counts; the range keeps the GCs that
    /// started in it.
    #[test]
    fn heap_counts_and_changes_match_the_gc_rows() {
        for v in ["net9.0", "net10.0"] {
            let path = format!("{v}/datas");
            let m = model(&path);
            let mut reference: Vec<(f64, f64)> = m
                .gcs
                .iter()
                .filter_map(|g| Some((f64::from(g.number), f64::from(g.heap_count?))))
                .collect();
            reference.sort_by(|a, b| a.0.total_cmp(&b.0));
            let all = TimeRange::default();
            let tb = per_gc(&m.datas, &all);
            let shown: Vec<(f64, f64)> = column(&tb, "gc")
                .into_iter()
                .zip(column(&tb, "heaps"))
                .map(|(g, h)| (g.unwrap(), h.unwrap()))
                .collect();
            assert!(
                shown.windows(2).all(|w| w[0].0 < w[1].0),
                "{v}: one row per GC"
            );
            for g in &shown {
                assert!(
                    reference.contains(g),
                    "{v}: GC {} has {} heaps, its row not",
                    g.0,
                    g.1
                );
            }
            // The rows' heap counts come from the per-heap events where a GC has no global
            // history of its own; the rest is DATAS's.
            assert!(
                shown.len() + 4 >= reference.len(),
                "{v}: {} of {}",
                shown.len(),
                reference.len()
            );
            let recount: Vec<(f64, f64, f64)> = reference
                .windows(2)
                .filter(|w| w[0].1 != w[1].1)
                .map(|w| (w[1].0, w[0].1, w[1].1))
                .collect();
            assert!(!recount.is_empty(), "{v}: the fixture's heap count changes");
            let ch = changes(&m.datas, &all, &Starts::new());
            let got: Vec<(f64, f64, f64)> = column(&ch, "gc")
                .into_iter()
                .zip(column(&ch, "from"))
                .zip(column(&ch, "to"))
                .map(|((g, f), t)| (g.unwrap(), f.unwrap(), t.unwrap()))
                .collect();
            assert_eq!(got, recount, "{v}");
            // Each change's decision: made before it, and chose its heap count.
            for (i, row) in ch.rows.iter().enumerate() {
                let at = num(&row[4]).expect("a decision");
                assert!(at < recount[i].0 && num(&row[3]) == Some(recount[i].2));
            }
            // A range from the first change's GC start: the GCs before it are left out.
            let starts: Starts = m.gcs.iter().map(|g| (g.number, g.start_ms)).collect();
            let first = m.datas.changes[0].gc as u32;
            let r = TimeRange {
                t0: Some(starts[&first]),
                t1: None,
            };
            let ranged = per_gc(&m.datas, &r);
            assert_eq!(column(&ranged, "gc")[0], Some(f64::from(first)), "{v}");
            let kept = shown.iter().filter(|g| g.0 >= f64::from(first)).count();
            assert_eq!(ranged.rows.len(), kept, "{v}");
            let by = by_heap_count(&m.datas, &r);
            let total: f64 = column(&by, "gcs").into_iter().flatten().sum();
            assert_eq!(total as usize, kept, "{v}");
            assert_eq!(changes(&m.datas, &r, &starts).rows.len(), recount.len());
            // The decisions and samples tables hold every record of the model.
            assert_eq!(
                decisions(&m.datas, &all, &starts).rows.len(),
                m.datas.decisions.len()
            );
            assert_eq!(
                samples(&m.datas, &all, &starts).rows.len(),
                m.datas.samples.len()
            );
        }
    }

    /// "Why N heaps?" names the most heaps and the change that reached them; a trace whose heap
    /// count never changed says it started there.
    #[test]
    fn why_most_heaps_names_the_change_that_reached_them() {
        let m = model("net9.0/datas");
        let why = why_most_heaps(&m.datas).unwrap();
        let grew = m.datas.changes.iter().find(|c| c.to > c.from).unwrap();
        assert!(
            why.starts_with(&format!("Why {} heaps? GC {} (", grew.to, grew.gc)),
            "{why}"
        );
        assert!(why.contains("grew from 1 to 2 heaps"), "{why}");
        let m = model("net8.0/datas");
        assert!(m.datas.changes.is_empty() && has_view(&m.datas));
        let why = why_most_heaps(&m.datas).unwrap();
        assert!(why.starts_with("Why 1 heap? Every GC"), "{why}");
    }

    /// A workstation trace: not DATAS, with the GC mode's evidence and how to enable and capture
    /// DATAS; a trace whose GC mode is unknown says it cannot tell.
    #[test]
    fn traces_without_datas_say_why_and_how_to_enable_it() {
        let m = model("net10.0/wks-concurrent");
        assert!(!has_view(&m.datas));
        let e = not_datas(&m.process);
        assert!(
            e.verdict.starts_with("This trace is not DATAS"),
            "{}",
            e.verdict
        );
        assert!(
            e.evidence[0].starts_with("GC mode: workstation"),
            "{:?}",
            e.evidence
        );
        assert!(
            e.evidence.iter().any(|l| l.starts_with("datas: off")),
            "{:?}",
            e.evidence
        );
        assert!(e
            .how_to_enable
            .contains("Microsoft-Windows-DotNETRuntime:0x1:4"));
        assert!(!e.how_to_enable.contains('\n'));
        let unknown = ProcessFacts::default();
        let e = not_datas(&unknown);
        assert!(
            e.verdict.starts_with("gcscope cannot tell"),
            "{}",
            e.verdict
        );
        assert!(
            e.evidence[0].starts_with("GC mode: unknown"),
            "{:?}",
            e.evidence
        );
    }
}
