//! `gcscope summary` over several traces (or a folder, or with `--csv/--jsonl/--parquet`): one row
//! per trace with its facts, rollup and pause percentiles (columns defined in
//! docs/reference/model.md, "Many traces"), written as each trace is read.

use std::io::Write;

use gcscope_core::gc::definitions::{field, Root};
use gcscope_core::gc::{GcModel, GenRollup};
use gcscope_core::latency::{PauseKind, PauseStats};
use serde_json::Value;

use crate::input::many::each_trace;
use crate::output::stdout::Out;
use crate::output::table::{self, Align, Table};
use crate::output::typed_rows::{Column, Format, Kind, Writer};

type Get = fn(&GcModel) -> Value;

/// The rollup of all GCs.
fn all(m: &GcModel) -> GenRollup {
    m.rollup.first().cloned().unwrap_or_default()
}

/// Complete GCs of generation `g` ("0", "1", "2").
fn gen(m: &GcModel, g: &str) -> u32 {
    m.rollup.iter().find(|r| r.gen == g).map_or(0, |r| r.count)
}

fn opt(v: Option<f64>) -> Value {
    v.map_or(Value::Null, Value::from)
}

/// The columns from the process facts and the rollup, in order (then the percentiles).
fn fixed() -> Vec<(&'static str, Get)> {
    vec![
        ("format", |m| Value::from(m.process.format.clone())),
        ("runtime_version", |m| {
            Value::from(m.process.runtime_version.clone())
        }),
        ("gc_mode", |m| {
            Value::from(m.process.gc_mode.as_deref().map(str::to_string))
        }),
        ("heap_count", |m| Value::from(m.process.heap_count)),
        ("concurrent", |m| Value::from(m.process.concurrent)),
        ("processor_count", |m| {
            Value::from(m.process.processor_count)
        }),
        ("events", |m| Value::from(m.process.events)),
        ("dropped_events", |m| Value::from(m.process.dropped_events)),
        ("trace_duration_ms", |m| {
            Value::from(m.process.trace_duration_ms)
        }),
        ("gc_span_ms", |m| Value::from(m.process.gc_span_ms)),
        ("gc_count", |m| Value::from(m.process.gc_count)),
        ("incomplete_gc_count", |m| {
            Value::from(m.process.incomplete_gc_count)
        }),
        ("pause_time_pct", |m| opt(all(m).pause_time_pct)),
        ("gc_span_pause_pct", |m| opt(all(m).gc_span_pause_pct)),
        ("total_pause_ms", |m| Value::from(all(m).total_pause_ms)),
        ("gen0_count", |m| Value::from(gen(m, "0"))),
        ("gen1_count", |m| Value::from(gen(m, "1"))),
        ("gen2_count", |m| Value::from(gen(m, "2"))),
        ("induced_count", |m| Value::from(all(m).induced_count)),
        ("total_allocated_bytes", |m| {
            Value::from(all(m).total_allocated_bytes)
        }),
        ("max_peak_bytes", |m| Value::from(all(m).max_peak_bytes)),
        ("mean_after_bytes", |m| {
            Value::from(all(m).mean_after_bytes.round() as u64)
        }),
        ("total_promoted_bytes", |m| {
            Value::from(all(m).total_promoted_bytes)
        }),
    ]
}

/// Percentile columns per kind: name suffix and value.
type GetP = fn(&PauseStats) -> Value;
fn per_kind() -> [(&'static str, GetP); 8] {
    [
        ("count", |p| Value::from(p.count)),
        ("p50_ms", |p| opt(p.p50_ms)),
        ("p90_ms", |p| opt(p.p90_ms)),
        ("p95_ms", |p| opt(p.p95_ms)),
        ("p99_ms", |p| opt(p.p99_ms)),
        ("p999_ms", |p| opt(p.p999_ms)),
        ("max_ms", |p| opt(p.max_ms)),
        ("mean_ms", |p| opt(p.mean_ms)),
    ]
}

fn kinds() -> Vec<&'static str> {
    let mut k = vec!["all"];
    k.extend(PauseKind::ROWS.iter().map(|k| k.name()));
    k
}

/// The table's columns, typed from their definitions.
pub fn columns() -> Vec<Column> {
    let kind = |name: &str| {
        let def = field(Root::SummaryRow, name);
        Kind::of_unit(def.map_or("name", |d| d.unit))
    };
    let mut cols = vec![Column {
        name: "trace".into(),
        kind: Kind::Text,
    }];
    for (name, _) in fixed() {
        cols.push(Column {
            name: name.into(),
            kind: kind(name),
        });
    }
    for k in kinds() {
        for (suffix, _) in per_kind() {
            cols.push(Column {
                name: format!("{k}_{suffix}"),
                kind: kind(&format!("<kind>_{suffix}")),
            });
        }
    }
    cols
}

/// One trace's row, in [`columns`] order.
pub fn row(trace: &str, m: &GcModel, pauses: &[PauseStats]) -> Vec<Option<Value>> {
    let mut v = vec![Some(Value::from(trace))];
    v.extend(fixed().iter().map(|(_, get)| Some(get(m))));
    for k in kinds() {
        let p = pauses.iter().find(|p| p.kind == k);
        for (_, get) in per_kind() {
            v.push(p.map(get));
        }
    }
    v.into_iter().map(|x| x.filter(|x| !x.is_null())).collect()
}

/// The last `n` characters of a path, "..." in front when cut (the file name is what tells traces
/// apart).
fn tail(s: &str, n: usize) -> String {
    let count = s.chars().count();
    if count <= n {
        return s.to_string();
    }
    let kept: String = s.chars().skip(count - (n - 3)).collect();
    format!("...{kept}")
}

/// Every trace's row in `format`, or (no format) an aligned table of the main columns.
pub fn write<W: Write>(
    files: &[String],
    format: Option<Format>,
    load: impl Fn(&str) -> Result<(GcModel, Vec<PauseStats>), String>,
    out: &mut Out<W>,
) -> Result<(), String> {
    let Some(format) = format else {
        let mut t = Table::new(&[
            ("Trace", Align::Left),
            ("Runtime", Align::Left),
            ("GC mode", Align::Left),
            ("GCs", Align::Right),
            ("% paused", Align::Right),
            ("p50", Align::Right),
            ("p99", Align::Right),
            ("Max", Align::Right),
            ("Max peak MB", Align::Right),
        ]);
        let read = each_trace(files, |f| {
            let (m, pauses) = load(f)?;
            let all = pauses.first();
            let r: GenRollup = m.rollup.first().cloned().unwrap_or_default();
            t.row(vec![
                tail(f, 44),
                // "8.0.30 (CoreCLR ...)": the version.
                m.process
                    .runtime_version
                    .as_deref()
                    .and_then(|v| v.split_whitespace().next())
                    .unwrap_or("-")
                    .to_string(),
                m.process.gc_mode.as_deref().unwrap_or("-").to_string(),
                m.process.gc_count.to_string(),
                table::pct(r.pause_time_pct),
                table::ms(all.and_then(|p| p.p50_ms)),
                table::ms(all.and_then(|p| p.p99_ms)),
                table::ms(all.and_then(|p| p.max_ms)),
                table::mb(Some(r.max_peak_bytes)),
            ]);
            Ok(())
        });
        let _ = out.write_all(t.render().as_bytes());
        let _ = out.write_all(
            b"\nTimes in ms; MB = 10^6 bytes. Every column: --csv, --jsonl or --parquet FILE.\n",
        );
        return read;
    };
    let mut w = Writer::new(&format, columns(), out)?;
    let mut failed = None;
    let read = each_trace(files, |f| {
        let (m, pauses) = load(f)?;
        if let Err(e) = w.row(row(f, &m, &pauses)) {
            failed.get_or_insert(e);
        }
        Ok(())
    });
    if let Some(e) = failed {
        return Err(e);
    }
    w.finish()?;
    read
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_core::gc::definitions::SUMMARY_ROW_FIELDS;

    #[test]
    fn every_column_is_defined_and_every_definition_is_a_column() {
        let cols = columns();
        let generic = |name: &str| {
            kinds()
                .iter()
                .find_map(|k| name.strip_prefix(&format!("{k}_")))
                .map_or(name.to_string(), |rest| format!("<kind>_{rest}"))
        };
        let mut seen = std::collections::BTreeSet::new();
        for c in &cols {
            let g = generic(&c.name);
            let d = field(Root::SummaryRow, &g).unwrap_or_else(|| panic!("{} undefined", c.name));
            assert_eq!(c.kind, Kind::of_unit(d.unit), "{}", c.name);
            seen.insert(g);
        }
        for d in SUMMARY_ROW_FIELDS {
            assert!(seen.contains(d.field), "{} is not a column", d.field);
        }
        assert_eq!(cols.len(), 24 + 6 * 8);
    }
}
