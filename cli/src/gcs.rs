//! `gcscope gcs FILE`: one row per GC, as a table, JSON (every figure) or CSV (every scalar figure).

use gcscope_core::gc::definitions::GC_FIELDS;
use gcscope_core::gc::{Gc, Generations};
use serde_json::Value;

use crate::args::Args;
use crate::summary::load_model;
use crate::table::{self, Align, Table};

pub fn run(raw: &[String]) -> Result<(), String> {
    let args = Args::parse(raw, &["gen", "min-pause", "reason"])?;
    args.only(&["json", "csv", "gen", "min-pause", "reason"])?;
    let filter = Filter::from_args(&args)?;
    let model = load_model(args.file()?)?;
    let gcs: Vec<&Gc> = model.gcs.iter().filter(|g| filter.keep(g)).collect();
    let out = if args.flag("json") {
        let mut s = serde_json::to_string_pretty(&gcs).map_err(|e| e.to_string())?;
        s.push('\n');
        s
    } else if args.flag("csv") {
        csv(&gcs)?
    } else {
        human(&gcs, model.gcs.len())
    };
    crate::summary::print(&out)
}

struct Filter {
    gen: Option<u8>,
    min_pause: Option<f64>,
    reason: Option<String>,
}

impl Filter {
    fn from_args(args: &Args) -> Result<Filter, String> {
        let gen = match args.value("gen") {
            Some(v) => match v.parse::<u8>() {
                Ok(g) if g <= 2 => Some(g),
                _ => return Err(format!("--gen takes 0, 1 or 2, not '{v}'")),
            },
            None => None,
        };
        let min_pause = match args.value("min-pause") {
            Some(v) => Some(
                v.parse::<f64>()
                    .map_err(|_| format!("--min-pause takes milliseconds, not '{v}'"))?,
            ),
            None => None,
        };
        Ok(Filter {
            gen,
            min_pause,
            reason: args.value("reason").map(str::to_ascii_lowercase),
        })
    }

    fn keep(&self, g: &Gc) -> bool {
        self.gen.is_none_or(|x| g.gen == x)
            && self
                .min_pause
                .is_none_or(|m| g.pause_ms.unwrap_or(0.0) >= m)
            && self.reason.as_deref().is_none_or(|r| {
                g.reason.to_ascii_lowercase() == r
                    || g.reason_code.to_string() == r
                    || (r == "induced" && g.induced)
            })
    }
}

/// "0N", "2B", "1FI": generation, type letter, and I when induced (PerfView's notation).
pub fn gen_label(g: &Gc) -> String {
    format!(
        "{}{}{}",
        g.gen,
        g.gc_type.letter(),
        if g.induced { "I" } else { "" }
    )
}

/// MB with 2 decimals: enough for a table read by people (JSON/CSV have bytes).
fn mb2(bytes: Option<u64>) -> String {
    bytes.map_or_else(table::dash, |b| format!("{:.2}", b as f64 / 1e6))
}

fn human(gcs: &[&Gc], total: usize) -> String {
    let mut t = Table::new(&[
        ("GC#", Align::Right),
        ("Start ms", Align::Right),
        ("Gen", Align::Left),
        ("Reason", Align::Left),
        ("Suspend", Align::Right),
        ("Pause", Align::Right),
        ("Alloc MB", Align::Right),
        ("Peak MB", Align::Right),
        ("After MB", Align::Right),
        ("Promo MB", Align::Right),
        ("Surv%", Align::Right),
    ]);
    for g in gcs {
        let surv = g
            .generations
            .get(g.gen as usize)
            .and_then(|s| s.survival_pct);
        let mut number = g.number.to_string();
        if !g.complete {
            number.push('*');
        }
        t.row(vec![
            number,
            format!("{:.1}", g.start_ms),
            gen_label(g),
            crate::summary::clip(&g.reason, 18),
            table::ms(g.suspend_ms),
            table::ms(g.pause_ms),
            mb2(g.allocated_bytes),
            mb2(g.peak_bytes),
            mb2(g.after_bytes),
            mb2(g.promoted_bytes),
            table::pct(surv),
        ]);
    }
    let mut s = t.render();
    s.push_str(&format!(
        "\n{} of {} GCs. Times in ms, MB = 10^6 bytes. * = incomplete. Surv% = survival of the\n\
         generation collected. Gen: N=blocking B=background F=foreground, I=induced.\n\
         Every figure: gcscope gcs FILE --json (defined in docs/model.md).\n",
        gcs.len(),
        total
    ));
    s
}

/// The CSV columns: every scalar per-GC field of the definitions table, in its order; per-generation
/// fields once per generation (`gen0_size_after_bytes`); lists joined with `;`.
pub fn csv_columns() -> Vec<(String, String)> {
    let mut cols = Vec::new();
    for d in GC_FIELDS {
        let f = d.field;
        if f.starts_with("heaps.")
            || f.starts_with("pinned_objects.")
            || f.starts_with("pinned_plugs.")
        {
            continue;
        }
        if let Some(rest) = f.strip_prefix("generations.*.") {
            for g in Generations::NAMES {
                cols.push((format!("{g}_{rest}"), format!("/generations/{g}/{rest}")));
            }
        } else {
            cols.push((f.replace('.', "_"), format!("/{}", f.replace('.', "/"))));
        }
    }
    cols.push(("heaps".into(), "/heaps".into()));
    cols.push(("pinned_objects".into(), "/pinned_objects".into()));
    cols.push(("pinned_plugs".into(), "/pinned_plugs".into()));
    cols
}

fn cell(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) if a.iter().all(|x| !x.is_object()) => a
            .iter()
            .map(|x| cell(Some(x)))
            .collect::<Vec<_>>()
            .join(";"),
        // Lists of records (heaps, pins, plugs): their count; the records are in --json.
        Some(Value::Array(a)) => a.len().to_string(),
        Some(v) => v.to_string(),
    }
}

fn csv(gcs: &[&Gc]) -> Result<String, String> {
    let cols = csv_columns();
    let names: Vec<String> = cols.iter().map(|(n, _)| n.clone()).collect();
    let mut out = table::csv_line(&names);
    for g in gcs {
        let v = serde_json::to_value(g).map_err(|e| e.to_string())?;
        let cells: Vec<String> = cols.iter().map(|(_, p)| cell(v.pointer(p))).collect();
        out.push_str(&table::csv_line(&cells));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_core::gc::definitions::gc_field;

    fn fixture(name: &str) -> gcscope_core::gc::GcModel {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/traces")
            .join(name);
        load_model(p.to_str().unwrap()).unwrap()
    }

    #[test]
    fn json_rows_carry_the_documented_keys() {
        let m = fixture("netcore3.1/wks-concurrent.nettrace");
        let gcs: Vec<&Gc> = m.gcs.iter().collect();
        let v: Value = serde_json::from_str(&serde_json::to_string(&gcs).unwrap()).unwrap();
        let rows = v.as_array().unwrap();
        assert_eq!(rows.len(), m.gcs.len());
        for r in rows {
            let o = r.as_object().unwrap();
            for k in [
                "number",
                "gen",
                "type",
                "reason",
                "induced",
                "start_ms",
                "suspend_ms",
                "pause_ms",
                "heap_count",
            ] {
                assert!(o.contains_key(k), "missing key {k}");
            }
            assert!(r["gen"].as_u64().unwrap() <= 2);
            assert!(["NonConcurrent", "Background", "Foreground"]
                .contains(&r["type"].as_str().unwrap()));
            let group = |k: &str| {
                GC_FIELDS
                    .iter()
                    .any(|d| d.field.starts_with(&format!("{k}.")))
            };
            for k in o.keys() {
                assert!(gc_field(k).is_some() || group(k), "undocumented key {k}");
            }
        }
        // The round trip the app relies on: JSON back into the model types.
        let back: Vec<Gc> = serde_json::from_value(v).unwrap();
        assert_eq!(back.len(), m.gcs.len());
        assert_eq!(back[0], m.gcs[0]);
    }

    #[test]
    fn csv_has_one_documented_column_per_scalar_figure_and_one_line_per_gc() {
        let m = fixture("net8.0/server.nettrace");
        let gcs: Vec<&Gc> = m.gcs.iter().collect();
        let out = csv(&gcs).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), m.gcs.len() + 1);
        let header: Vec<&str> = lines[0].split(',').collect();
        assert_eq!(&header[..4], ["number", "gen", "type", "reason"]);
        assert!(header.contains(&"gen2_survival_pct") && header.contains(&"poh_size_after_bytes"));
        // Every row has as many cells as the header (no cell holds a comma unquoted).
        for l in &lines[1..] {
            let mut cells = 0;
            let mut quoted = false;
            for c in l.chars() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => cells += 1,
                    _ => {}
                }
            }
            assert_eq!(cells + 1, header.len(), "{l}");
        }
        // Server GC: the heap count column says 2.
        let hc = header.iter().position(|h| *h == "heap_count").unwrap();
        assert_eq!(lines[1].split(',').nth(hc), Some("2"));
    }

    #[test]
    fn filters_select_by_generation_pause_and_reason() {
        let m = fixture("net8.0/induced.nettrace");
        let args = |a: &[&str]| {
            Args::parse(
                &a.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                &["gen", "min-pause", "reason"],
            )
            .unwrap()
        };
        let f = Filter::from_args(&args(&["--gen", "2"])).unwrap();
        let gen2 = m.gcs.iter().filter(|g| f.keep(g)).count();
        assert_eq!(
            gen2 as u32,
            m.rollup[3].count + m.gcs.iter().filter(|g| !g.complete && g.gen == 2).count() as u32
        );
        let f = Filter::from_args(&args(&["--reason", "induced"])).unwrap();
        assert_eq!(
            m.gcs.iter().filter(|g| f.keep(g)).count(),
            m.gcs.iter().filter(|g| g.induced).count()
        );
        let f = Filter::from_args(&args(&["--reason", "InducedNotForced"])).unwrap();
        assert!(m
            .gcs
            .iter()
            .filter(|g| f.keep(g))
            .all(|g| g.reason_code == 7));
        let f = Filter::from_args(&args(&["--min-pause", "1.5"])).unwrap();
        assert!(m
            .gcs
            .iter()
            .filter(|g| f.keep(g))
            .all(|g| g.pause_ms.unwrap() >= 1.5));
        assert!(Filter::from_args(&args(&["--gen", "3"])).is_err());
    }

    #[test]
    fn the_human_table_fits_100_columns() {
        let m = fixture("net8.0/mempressure.nettrace");
        let gcs: Vec<&Gc> = m.gcs.iter().collect();
        for l in human(&gcs, gcs.len()).lines() {
            assert!(
                l.chars().count() <= 100,
                "{} columns: {l}",
                l.chars().count()
            );
        }
    }
}
