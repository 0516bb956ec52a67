//! The model's tables as plain rows of cells: one source for what a view shows, what its CSV and
//! JSON exports hold and what the HTML report prints. CSV cells that a spreadsheet would run as a
//! formula are neutralised.

use gcscope_core::gc::{definitions, Gc, GcModel};

use crate::columns::{fmt_column_cell, Cell, Column};
use crate::view_state::{cmp_cells, SideTable, Sort};

#[derive(Debug, Clone, PartialEq)]
pub struct Col {
    pub key: String,
    pub label: String,
    pub unit: &'static str,
    pub help: &'static str,
}

fn col(key: &str, label: &str, unit: &'static str, help: &'static str) -> Col {
    Col {
        key: key.into(),
        label: label.into(),
        unit,
        help,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// File-name friendly id (`pinned-types`).
    pub id: &'static str,
    pub title: String,
    pub cols: Vec<Col>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    pub fn shown(&self, r: usize, c: usize) -> String {
        fmt_column_cell(&self.cols[c].key, self.cols[c].unit, &self.rows[r][c])
    }

    /// Row indices after a side table's text filter (any text cell contains it) and sort.
    pub fn view(&self, st: &SideTable) -> Vec<usize> {
        let q = st.text.to_lowercase();
        let mut idx: Vec<usize> = (0..self.rows.len())
            .filter(|&r| {
                q.is_empty()
                    || self.rows[r].iter().any(|c| match c {
                        Cell::Text(s) => s.to_lowercase().contains(&q),
                        Cell::Num(_) => false,
                    })
            })
            .collect();
        if let Some(s) = &st.sort {
            if let Some(c) = self.cols.iter().position(|c| c.key == s.column) {
                idx.sort_by(|&a, &b| cmp_cells(&self.rows[a][c], &self.rows[b][c], s.desc));
            }
        }
        idx
    }

    pub fn subset(&self, rows: &[usize]) -> Table {
        Table {
            rows: rows.iter().map(|&r| self.rows[r].clone()).collect(),
            ..self.clone()
        }
    }

    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let head: Vec<String> = self.cols.iter().map(|c| csv_cell(&c.key, false)).collect();
        out.push_str(&head.join(","));
        out.push_str("\r\n");
        for r in &self.rows {
            let line: Vec<String> = r
                .iter()
                .map(|c| csv_cell(&c.raw(), matches!(c, Cell::Num(_))))
                .collect();
            out.push_str(&line.join(","));
            out.push_str("\r\n");
        }
        out
    }

    pub fn to_json(&self) -> String {
        let mut out = String::from("[\n");
        for (i, r) in self.rows.iter().enumerate() {
            out.push_str("  {");
            for (j, c) in r.iter().enumerate() {
                if j > 0 {
                    out.push_str(", ");
                }
                out.push_str(&json_str(&self.cols[j].key));
                out.push_str(": ");
                match c {
                    Cell::Num(Some(v)) if v.is_finite() => out.push_str(&c.raw()),
                    Cell::Num(_) => out.push_str("null"),
                    Cell::Text(s) => out.push_str(&json_str(s)),
                }
            }
            out.push('}');
            if i + 1 < self.rows.len() {
                out.push(',');
            }
            out.push('\n');
        }
        out.push(']');
        out.push('\n');
        out
    }
}

/// A header click: sort by `key` descending, then ascending, then unsorted.
pub fn toggle_sort(cur: &Option<Sort>, key: &str) -> Option<Sort> {
    match cur {
        Some(s) if s.column == key && s.desc => Some(Sort {
            column: key.into(),
            desc: false,
        }),
        Some(s) if s.column == key => None,
        _ => Some(Sort {
            column: key.into(),
            desc: true,
        }),
    }
}

/// A CSV field: a text cell that starts like a formula (= + - @, tab, CR) gets a leading `'` so a
/// spreadsheet shows it instead of running it; quoted when it holds a separator or quote.
pub fn csv_cell(s: &str, numeric: bool) -> String {
    let mut v = s.to_string();
    if !numeric && v.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        v.insert(0, '\'');
    }
    if v.contains([',', '"', '\n', '\r']) || v.starts_with(' ') || v.ends_with(' ') {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v
    }
}

pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn n<T: Into<f64>>(v: T) -> Cell {
    Cell::Num(Some(v.into()))
}
fn nu(v: u64) -> Cell {
    Cell::Num(Some(v as f64))
}
fn t(s: impl Into<String>) -> Cell {
    Cell::Text(s.into())
}

/// The GC table as shown: `rows` (indices into `gcs`) and `cols` in display order.
pub fn gc_table(gcs: &[Gc], rows: &[u32], cols: &[&Column]) -> Table {
    Table {
        id: "gcs",
        title: "GCs".into(),
        cols: cols
            .iter()
            .map(|c| col(&c.id, &c.label, c.unit, c.help))
            .collect(),
        rows: rows
            .iter()
            .map(|&i| cols.iter().map(|c| (c.get)(&gcs[i as usize])).collect())
            .collect(),
    }
}

pub fn rollup_table(m: &GcModel) -> Table {
    let d = |k: &str| {
        definitions::ROLLUP_FIELDS
            .iter()
            .find(|d| d.field == k)
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

pub fn pins_table(m: &GcModel) -> Table {
    Table {
        id: "pinned-types",
        title: "Pinned objects by type".into(),
        cols: vec![
            col(
                "type_name",
                "Type",
                "name",
                "Type of the objects pinned at GC time (PinObjectAtGCTime).",
            ),
            col(
                "count",
                "Count",
                "count",
                "Pinned-object reports of this type, over all GCs.",
            ),
            col(
                "total_bytes",
                "Size",
                "bytes",
                "Bytes of those objects, summed over reports.",
            ),
            col(
                "gcs",
                "GCs",
                "count",
                "GCs in which an object of this type was pinned.",
            ),
        ],
        rows: m
            .pinning
            .by_type
            .iter()
            .map(|p| {
                vec![
                    t(p.type_name.clone()),
                    nu(p.count),
                    nu(p.total_bytes),
                    n(p.gcs),
                ]
            })
            .collect(),
    }
}

pub fn kinds_table(m: &GcModel) -> Table {
    Table {
        id: "handle-kinds",
        title: "GC handles by kind".into(),
        cols: vec![
            col(
                "kind",
                "Kind",
                "name",
                "GC handle kind (SetGCHandle's Kind).",
            ),
            col(
                "created",
                "Created",
                "count",
                "Handles of this kind created during the trace.",
            ),
            col(
                "destroyed",
                "Destroyed",
                "count",
                "Handles of this kind destroyed during the trace.",
            ),
            col(
                "alive_at_end",
                "Alive at end",
                "count",
                "Created in the trace and not destroyed before it ended.",
            ),
        ],
        rows: m
            .handles
            .by_kind
            .iter()
            .map(|k| {
                vec![
                    t(k.kind.as_ref()),
                    nu(k.created),
                    nu(k.destroyed),
                    nu(k.alive_at_end),
                ]
            })
            .collect(),
    }
}

pub fn live_table(m: &GcModel) -> Table {
    Table {
        id: "handles-alive-at-end",
        title: "Handles alive at the end".into(),
        cols: vec![
            col("handle", "Handle", "address", "The handle."),
            col("kind", "Kind", "name", "Handle kind."),
            col(
                "object",
                "Object",
                "address",
                "Object the handle pointed to when created.",
            ),
            col(
                "generation",
                "Gen",
                "gen",
                "Generation of the object when the handle was created.",
            ),
            col(
                "created_ms",
                "Created",
                "ms",
                "When the handle was created, ms from the trace start.",
            ),
            col(
                "type_name",
                "Type",
                "name",
                "Object type, when a PinObjectAtGCTime event named this handle.",
            ),
        ],
        rows: m
            .handles
            .alive_at_end
            .iter()
            .map(|h| {
                vec![
                    nu(h.handle),
                    t(h.kind.as_ref()),
                    nu(h.object),
                    n(h.generation),
                    n(h.created_ms),
                    t(h.type_name.clone().unwrap_or_default()),
                ]
            })
            .collect(),
    }
}

/// Process and trace facts as (label, value, definition) for the overview and the report.
pub fn facts(m: &GcModel, file_name: &str, file_size: f64) -> Vec<(String, String, &'static str)> {
    use crate::format::{bytes, ms, thousands};
    let p = &m.process;
    let def = |k: &str| {
        definitions::PROCESS_FIELDS
            .iter()
            .find(|d| d.field == k)
            .map(|d| d.definition)
            .unwrap_or("")
    };
    let mode = gcscope_core::gc::mode::label(p);
    let conc = match p.concurrent {
        Some(true) => "background GC on",
        Some(false) => "background GC off",
        None => "unknown",
    };
    vec![
        (
            "File".into(),
            format!("{file_name} ({})", bytes(file_size)),
            "",
        ),
        (
            "Runtime".into(),
            p.runtime_version
                .clone()
                .unwrap_or_else(|| "unknown".into()),
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
        ("Format".into(), p.format.clone(), def("format")),
        (
            "Process".into(),
            format!(
                "pid {} · {} CPUs · {}-bit",
                p.process_id,
                p.processor_count,
                p.pointer_size as u32 * 8
            ),
            "",
        ),
        (
            "OS / arch".into(),
            format!(
                "{} {}",
                p.os.clone().unwrap_or_default(),
                p.arch.clone().unwrap_or_default()
            )
            .trim()
            .to_string(),
            def("os"),
        ),
        (
            "Trace start".into(),
            p.trace_start_utc.clone(),
            def("trace_start_utc"),
        ),
    ]
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
    };
    (reasons_table(&m, false), reasons_table(&m, true), without)
}

/// Pinned objects by type over a subset of rows (a time range): reports, bytes, GCs.
pub fn pins_from_rows<'a>(gcs: impl Iterator<Item = &'a Gc>) -> Table {
    use gcscope_core::gc::{PinSummary, PinnedType};
    let mut by_type: Vec<PinnedType> = Vec::new();
    for g in gcs {
        let mut seen: Vec<&str> = Vec::new();
        for p in &g.pinned_objects {
            let i = match by_type.iter().position(|t| t.type_name == p.type_name) {
                Some(i) => i,
                None => {
                    by_type.push(PinnedType {
                        type_name: p.type_name.clone(),
                        count: 0,
                        total_bytes: 0,
                        gcs: 0,
                    });
                    by_type.len() - 1
                }
            };
            by_type[i].count += 1;
            by_type[i].total_bytes += p.size_bytes;
            if !seen.contains(&p.type_name.as_str()) {
                seen.push(&p.type_name);
                by_type[i].gcs += 1;
            }
        }
    }
    by_type.sort_by(|a, b| {
        b.total_bytes
            .cmp(&a.total_bytes)
            .then_with(|| a.type_name.cmp(&b.type_name))
    });
    let m = GcModel {
        process: Default::default(),
        gcs: Vec::new(),
        rollup: Vec::new(),
        condemn_reasons: Default::default(),
        handles: Default::default(),
        pinning: PinSummary {
            by_type,
            ..Default::default()
        },
        notes: Vec::new(),
        datas: Default::default(),
    };
    pins_table(&m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(cells: Vec<Cell>) -> Table {
        Table {
            id: "t",
            title: "T".into(),
            cols: (0..cells.len())
                .map(|i| col(&format!("c{i}"), "C", "name", ""))
                .collect(),
            rows: vec![cells],
        }
    }

    #[test]
    fn csv_neutralises_formulas_and_quotes() {
        let tb = table(vec![
            t("=HYPERLINK(\"x\")"),
            t("+1"),
            t("-cmd"),
            t("@SUM(A1)"),
            t("a,b"),
            t("plain"),
            Cell::Num(Some(-2.5)),
            Cell::Num(None),
        ]);
        let csv = tb.to_csv();
        let line = csv.lines().nth(1).unwrap();
        assert_eq!(
            line,
            "\"'=HYPERLINK(\"\"x\"\")\",'+1,'-cmd,'@SUM(A1),\"a,b\",plain,-2.5,"
        );
    }

    #[test]
    fn json_escapes_strings_and_writes_null_for_missing() {
        let tb = table(vec![
            t("a\"b</script>"),
            Cell::Num(None),
            Cell::Num(Some(3.0)),
        ]);
        assert_eq!(
            tb.to_json(),
            "[\n  {\"c0\": \"a\\\"b</script>\", \"c1\": null, \"c2\": 3}\n]\n"
        );
    }

    #[test]
    fn side_table_filters_text_and_sorts() {
        let tb = Table {
            id: "t",
            title: "T".into(),
            cols: vec![col("name", "N", "name", ""), col("count", "C", "count", "")],
            rows: vec![
                vec![t("System.Byte[]"), n(5)],
                vec![t("System.String"), n(9)],
                vec![t("System.Object[]"), n(1)],
            ],
        };
        let st = SideTable {
            sort: Some(crate::view_state::Sort {
                column: "count".into(),
                desc: true,
            }),
            text: "[]".into(),
        };
        assert_eq!(tb.view(&st), vec![0, 2]);
        let st = SideTable {
            sort: Some(crate::view_state::Sort {
                column: "count".into(),
                desc: false,
            }),
            text: String::new(),
        };
        assert_eq!(tb.view(&st), vec![2, 0, 1]);
    }

    #[test]
    fn header_clicks_sort_descending_then_ascending_then_not() {
        let by = |column: &str, desc| {
            Some(Sort {
                column: column.into(),
                desc,
            })
        };
        let once = toggle_sort(&None, "count");
        assert_eq!(once, by("count", true));
        let twice = toggle_sort(&once, "count");
        assert_eq!(twice, by("count", false));
        assert_eq!(toggle_sort(&twice, "count"), None);
        assert_eq!(toggle_sort(&twice, "name"), by("name", true));
    }
}
