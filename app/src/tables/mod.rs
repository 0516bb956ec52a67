//! What every table shows, as plain rows of cells: one source for what a view draws, what its CSV
//! and JSON exports hold and what the HTML report prints. No browser types: unit-tested natively.
//!
//! Column headers carry core's definitions ([`defs`]). The insights' per-GC rows honour the time
//! range by their GC's pause start (as every other view); point-in-time rows by their own time.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::time_range::TimeRange;

pub mod allocations;
pub mod budgets;
pub mod callers;
pub mod cell;
pub mod columns;
pub mod compare;
pub mod counters;
pub mod datas;
pub mod defs;
pub mod export;
pub mod findings;
pub mod heap;
pub mod latency;
pub mod memory;
pub mod model;
pub mod pins;
pub mod roots;
pub mod suspensions;

pub use cell::Cell;

/// A column: its key (the JSON field, and the CSV/JSON export's), label, unit and definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Col {
    pub key: String,
    pub label: String,
    pub unit: &'static str,
    pub help: &'static str,
}

impl Col {
    /// Numbers (right-aligned); names, yes/no and verdicts are text.
    pub fn is_num(&self) -> bool {
        !matches!(self.unit, "name" | "bool" | VERDICT)
    }
}

/// The unit of a column of verdicts ("better", "worse", ...): text that the table colours
/// (`data-tone`, style.css).
pub const VERDICT: &str = "verdict";

pub(crate) fn col(key: &str, label: &str, unit: &'static str, help: &'static str) -> Col {
    Col {
        key: key.into(),
        label: label.into(),
        unit,
        help,
    }
}

/// A column whose header is the insights' definition of `path` (label and unit from it, unless
/// `label` says otherwise).
pub(crate) fn dcol(key: &str, path: &str, label: Option<&str>) -> Col {
    def_col(key, defs::insight_field(path), label)
}

/// A column headed by the definition `d` (label and unit from it, unless `label` says otherwise).
pub(crate) fn def_col(key: &str, d: Option<&'static defs::Definition>, label: Option<&str>) -> Col {
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

/// The column `key` in `unit`, headed by the definition `d` (its label and text; the key alone
/// when there is none).
pub(crate) fn defined_col(key: &str, d: Option<&defs::Definition>, unit: &'static str) -> Col {
    match d {
        Some(d) => col(key, d.label, unit, d.definition),
        None => col(key, key, unit, ""),
    }
}

/// Columns named `keys`, each headed by the definition of `{prefix}.{key}`.
pub(crate) fn dcols(prefix: &str, keys: &[&str]) -> Vec<Col> {
    keys.iter()
        .map(|k| dcol(k, &format!("{prefix}.{k}"), None))
        .collect()
}

/// A column shown as text (a generation name rather than its number).
pub(crate) fn name_col(c: Col) -> Col {
    Col { unit: "name", ..c }
}

pub(crate) fn n<T: Into<f64>>(v: T) -> Cell {
    Cell::Num(Some(v.into()))
}
pub(crate) fn nu(v: u64) -> Cell {
    Cell::Num(Some(v as f64))
}
pub(crate) fn on<T: Into<f64>>(v: Option<T>) -> Cell {
    Cell::Num(v.map(Into::into))
}
pub(crate) fn onu(v: Option<u64>) -> Cell {
    Cell::Num(v.map(|v| v as f64))
}
pub(crate) fn t(s: impl Into<String>) -> Cell {
    Cell::Text(s.into())
}
pub(crate) fn gen_name(g: Option<u8>) -> Cell {
    t(match g {
        Some(0) => "gen0",
        Some(1) => "gen1",
        Some(2) => "gen2",
        Some(_) => "other",
        None => "",
    })
}
pub(crate) fn yes(b: bool) -> Cell {
    t(if b { "yes" } else { "" })
}

/// GC number -> pause start (for the time range of rows that only name their GC).
pub type Starts = HashMap<u32, f64>;

/// Whether a GC's row is in the time range (GCs not in `starts` are kept only without a range).
pub fn gc_in(r: &TimeRange, starts: &Starts, gc: u32) -> bool {
    if !r.is_set() {
        return true;
    }
    starts.get(&gc).is_some_and(|&s| r.contains(s))
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
        cell::fmt_column_cell(&self.cols[c].key, self.cols[c].unit, &self.rows[r][c])
    }

    /// Row indices after a table's text filter (any text cell contains it) and sort.
    pub fn view(&self, st: &SortFilter) -> Vec<usize> {
        let q = st.text.to_lowercase();
        let mut idx: Vec<usize> = (0..self.rows.len())
            .filter(|&r| {
                q.is_empty()
                    || self.rows[r].iter().any(|c| match c {
                        Cell::Text(s) => s.to_lowercase().contains(&q),
                        Cell::Num(_) | Cell::In(..) => false,
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
}

/// A sort: the column's key, and which way.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sort {
    pub column: String,
    pub desc: bool,
}

/// A table's sort and text filter (the GC table's filters are richer: `state::filter::Filter`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SortFilter {
    pub sort: Option<Sort>,
    pub text: String,
}

impl SortFilter {
    pub fn is_empty(&self) -> bool {
        *self == SortFilter::default()
    }
}

/// Compares two cells: numbers numerically, text by string; absent values always last.
pub fn cmp_cells(a: &Cell, b: &Cell, desc: bool) -> Ordering {
    let o = match (a.number(), b.number()) {
        (Some(None), Some(None)) => return Ordering::Equal,
        (Some(None), _) => return Ordering::Greater,
        (_, Some(None)) => return Ordering::Less,
        (Some(Some(x)), Some(Some(y))) => x.total_cmp(&y),
        (None, None) => match (a, b) {
            // An empty text (no caller, no pause mode) is missing too: last both ways.
            (Cell::Text(x), Cell::Text(y)) if x.is_empty() != y.is_empty() => {
                return if x.is_empty() {
                    Ordering::Greater
                } else {
                    Ordering::Less
                };
            }
            (Cell::Text(x), Cell::Text(y)) => x.cmp(y),
            _ => Ordering::Equal,
        },
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
    };
    if desc {
        o.reverse()
    } else {
        o
    }
}

/// A header click: sort by `key` descending, then ascending, then unsorted (the tables of counts
/// and sizes, whose largest rows matter first).
pub fn toggle_sort(cur: &Option<Sort>, key: &str) -> Option<Sort> {
    next_sort(cur, key, true)
}

/// A header click: sort by `key` one way (`desc_first`), then the other, then unsorted.
pub fn next_sort(cur: &Option<Sort>, key: &str, desc_first: bool) -> Option<Sort> {
    let by = |desc| {
        Some(Sort {
            column: key.into(),
            desc,
        })
    };
    match cur {
        Some(s) if s.column == key && s.desc == desc_first => by(!desc_first),
        Some(s) if s.column == key => None,
        _ => by(desc_first),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_filters_text_and_sorts() {
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
        let st = SortFilter {
            sort: Some(Sort {
                column: "count".into(),
                desc: true,
            }),
            text: "[]".into(),
        };
        assert_eq!(tb.view(&st), vec![0, 2]);
        let st = SortFilter {
            sort: Some(Sort {
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

    #[test]
    fn every_column_has_its_definition() {
        let ins = gcscope_core::gc::insights::Insights::default();
        let f = TimeRange::default();
        let s = Starts::new();
        for tb in [
            allocations::alloc_types(&[]),
            budgets::budgets(&[]),
            budgets::budgets_per_heap(&[]),
            roots::roots_by_kind(&ins, &f, &s),
            roots::roots_per_gc(&ins, &f, &s),
            roots::compaction_per_gc(&ins, &f, &s),
            suspensions::suspend_reasons(&ins, &f),
            suspensions::suspend_per_gc(&ins, &f, &s),
            suspensions::not_for_gc(&[], &f),
            memory::finalization_per_gc(&ins, &f, &s),
            memory::finalizer_runs(&ins, &f),
            memory::finalized_types(&ins),
            memory::segments(&ins, &f),
            counters::counters(&ins, &f, &s),
        ] {
            for c in &tb.cols {
                assert!(!c.help.is_empty(), "{}: {} has no definition", tb.id, c.key);
            }
        }
    }

    /// The GC table's headers: ascending first (GC number, start time read forwards).
    #[test]
    fn ascending_first_headers_sort_up_then_down_then_not() {
        let by = |column: &str, desc| {
            Some(Sort {
                column: column.into(),
                desc,
            })
        };
        let once = next_sort(&None, "pause_ms", false);
        assert_eq!(once, by("pause_ms", false));
        let twice = next_sort(&once, "pause_ms", false);
        assert_eq!(twice, by("pause_ms", true));
        assert_eq!(next_sort(&twice, "pause_ms", false), None);
        assert_eq!(next_sort(&twice, "gen", false), by("gen", false));
    }
}
