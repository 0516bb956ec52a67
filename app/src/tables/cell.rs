//! One cell of a table and how it reads: numbers sort numerically and right-align, text sorts by
//! string; every figure is shown with its unit and separators, and exported raw.

use crate::format::{bytes, column_ms, ms, thousands, trace_ms};

/// One cell's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Num(Option<f64>),
    Text(String),
    /// A number in a unit of its own rather than its column's: a table whose rows are different
    /// figures (a comparison's: ms, %, bytes... in one column). "pts" is a difference of two %.
    In(Option<f64>, &'static str),
}

impl Cell {
    /// The number a numeric cell holds (`Some(None)`: a number absent), `None` for text.
    pub fn number(&self) -> Option<Option<f64>> {
        match self {
            Cell::Num(v) | Cell::In(v, _) => Some(*v),
            Cell::Text(_) => None,
        }
    }

    pub(crate) fn num<T: Into<f64>>(v: Option<T>) -> Cell {
        Cell::Num(v.map(Into::into))
    }
    pub(crate) fn u64(v: Option<u64>) -> Cell {
        Cell::Num(v.map(|x| x as f64))
    }
    /// The raw value as exported (CSV/JSON, `data-value`): numbers unformatted, empty when absent.
    pub fn raw(&self) -> String {
        match self {
            // -0 (an empty sum) reads as 0.
            Cell::Num(Some(v)) | Cell::In(Some(v), _) if *v == 0.0 => "0".into(),
            Cell::Num(Some(v)) | Cell::In(Some(v), _) => {
                if v.fract() == 0.0 && v.abs() < 1e15 {
                    format!("{v:.0}")
                } else {
                    format!("{v}")
                }
            }
            Cell::Num(None) | Cell::In(None, _) => String::new(),
            Cell::Text(s) => s.clone(),
        }
    }
}

/// A cell of the table column `key`: as [`fmt_cell`], except that a column of ms keeps that unit in
/// every row: a time in the trace to the microsecond, a duration in ms however long.
pub fn fmt_column_cell(key: &str, unit: &str, c: &Cell) -> String {
    match c {
        Cell::Num(Some(v)) if unit == "ms" && is_trace_time(key) => trace_ms(*v),
        Cell::Num(Some(v)) if unit == "ms" => column_ms(*v),
        Cell::In(v, own) => fmt_column_cell(key, own, &Cell::Num(*v)),
        _ => fmt_cell(unit, c),
    }
}

/// Whether the ms figure `key` (a JSON path, or its last part) is a point in the trace rather than
/// a duration. Core's definitions give both the unit "ms"; their names tell them apart.
pub fn is_trace_time(key: &str) -> bool {
    let last = key.rsplit('.').next().unwrap_or(key);
    match last.strip_suffix("_ms") {
        None => last == "ms",
        Some(name) => matches!(
            name.rsplit('_').next(),
            Some("start" | "end" | "begin" | "created" | "freed" | "event")
        ),
    }
}

/// Formats a value of `unit` for display.
pub fn fmt_cell(unit: &str, c: &Cell) -> String {
    match c {
        Cell::Text(s) => s.clone(),
        Cell::In(v, own) => fmt_cell(own, &Cell::Num(*v)),
        Cell::Num(None) => String::new(),
        Cell::Num(Some(v)) => match unit {
            "ms" => ms(*v),
            "bytes" => bytes(*v),
            "bytes/s" => format!("{}/s", bytes(*v)),
            "%" => format!("{v:.1}%"),
            "pts" => format!("{v:.1} pts"),
            "ratio" => format!("{v:.2}"),
            "us" => format!("{} µs", thousands(*v)),
            "address" => format!("0x{:x}", *v as u64),
            _ => thousands(*v),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_format_with_units() {
        assert_eq!(fmt_cell("bytes", &Cell::Num(Some(2048.0))), "2.0 KB");
        assert_eq!(fmt_cell("ms", &Cell::Num(Some(1.5))), "1.500 ms");
        assert_eq!(fmt_cell("count", &Cell::Num(Some(1234.0))), "1,234");
        assert_eq!(fmt_cell("ms", &Cell::Num(None)), "");
        assert_eq!(Cell::Num(Some(3.0)).raw(), "3");
        assert_eq!(Cell::Num(Some(0.25)).raw(), "0.25");
        assert_eq!(Cell::Num(Some(-0.0)).raw(), "0");
        // A cell in its own unit reads in it whatever its column's, and exports raw.
        assert_eq!(
            fmt_column_cell("a", "count", &Cell::In(Some(2048.0), "bytes")),
            "2.0 KB"
        );
        assert_eq!(
            fmt_column_cell("a", "count", &Cell::In(Some(12.26), "ms")),
            "12.3 ms"
        );
        assert_eq!(fmt_cell("count", &Cell::In(Some(-6.54), "pts")), "-6.5 pts");
        assert_eq!(Cell::In(Some(12.25), "ms").raw(), "12.25");
        assert_eq!(Cell::In(None, "ms").number(), Some(None));
    }

    /// Every ms figure core defines, sorted by hand from its definition into points in the trace
    /// and durations; a new ms figure fails here until it is added to one list.
    #[test]
    fn ms_figures_are_points_or_durations() {
        const POINTS: &[&str] = &[
            "start_ms",
            "gc_start_ms",
            "end_ms",
            "first_event_ms",
            "last_event_ms",
            "handles.live_over_time.ms",
            "handles.alive_at_end.created_ms",
            "pinning.pinned_over_time.ms",
            "allocations.over_time.start_ms",
            "allocations.over_time.end_ms",
            "allocations.samples.ms",
            "allocations.tick_bins.bins.start_ms",
            "budgets.start_ms",
            "roots.per_gc.start_ms",
            "suspensions.for_gc.begin_ms",
            "suspensions.not_for_gc.begin_ms",
            "finalization.runs.begin_ms",
            "finalization.runs.end_ms",
            "memory_pressure.over_time.ms",
            "segments.segments.created_ms",
            "segments.segments.freed_ms",
            "segments.reserved_over_time.ms",
            "segments.range_snapshots.ms",
            "counters.ms",
            "datas.per_gc.ms",
            "datas.samples.ms",
            "datas.decisions.ms",
            "datas.changes.ms",
            "bgc_pauses.start_ms",
            "bgc_pauses.end_ms",
            "range.start_ms",
            "range.end_ms",
            "budget.worst_gcs.start_ms",
            "budget.worst_windows.start_ms",
            "budget.worst_windows.end_ms",
            "utilization.windows.start_ms",
            "utilization.windows.end_ms",
            "mmu.worst_start_ms",
            "over_time.start_ms",
            "over_time.end_ms",
        ];
        const DURATIONS: &[&str] = &[
            "duration_ms",
            "suspend_ms",
            "pause_ms",
            "bgc_final_pause_ms",
            "since_previous_gc_ms",
            "max_pause_ms",
            "mean_pause_ms",
            "total_pause_ms",
            "max_suspend_ms",
            "total_duration_ms",
            "trace_duration_ms",
            "gc_span_ms",
            "allocations.bin_ms",
            "allocations.tick_bins.bin_ms",
            "suspensions.by_reason.total_suspend_ms",
            "suspensions.by_reason.max_suspend_ms",
            "suspensions.by_reason.total_pause_ms",
            "suspensions.by_reason.max_pause_ms",
            "suspensions.per_gc.total_suspend_ms",
            "suspensions.per_gc.max_suspend_ms",
            "suspensions.per_gc.total_pause_ms",
            "suspensions.for_gc.suspend_ms",
            "suspensions.for_gc.pause_ms",
            "suspensions.not_for_gc.suspend_ms",
            "suspensions.not_for_gc.pause_ms",
            "finalization.runs.duration_ms",
            "paused_ms",
            "pauses.total_ms",
            "pauses.mean_ms",
            "pauses.p50_ms",
            "pauses.p90_ms",
            "pauses.p95_ms",
            "pauses.p99_ms",
            "pauses.p999_ms",
            "pauses.max_ms",
            "histogram.lo_ms",
            "histogram.hi_ms",
            "cdf.pause_ms",
            "budget.budget_ms",
            "budget.time_over_budget_ms",
            "budget.worst_gcs.pause_ms",
            "budget.window_ms",
            "budget.worst_windows.paused_ms",
            "utilization.window_ms",
            "mmu.window_ms",
            "histograms.lo_ms",
            "histograms.hi_ms",
            "cdf_a.pause_ms",
            "cdf_b.pause_ms",
            "mmu_curves.window_ms",
            "bin_ms",
            "<kind>_p50_ms",
            "<kind>_p90_ms",
            "<kind>_p95_ms",
            "<kind>_p99_ms",
            "<kind>_p999_ms",
            "<kind>_max_ms",
            "<kind>_mean_ms",
        ];
        // A field can be in several tables (the summary row repeats process and rollup fields).
        let mut seen = std::collections::BTreeSet::new();
        for d in crate::tables::defs::all().filter(|d| d.unit == "ms") {
            let point = POINTS.contains(&d.field);
            assert!(
                point || DURATIONS.contains(&d.field),
                "{} is in neither list",
                d.field
            );
            assert_eq!(is_trace_time(d.field), point, "{}", d.field);
            seen.insert(d.field);
        }
        assert_eq!(seen.len(), POINTS.len() + DURATIONS.len());
    }
}
