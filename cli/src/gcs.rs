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

fn human(gcs: &[&Gc], total: usize) -> String {
    let mut t = Table::new(&[
        ("GC#", Align::Right),
        ("Start ms", Align::Right),
        ("Gen", Align::Left),
        ("Reason", Align::Left),
        ("Susp ms", Align::Right),
        ("Pause ms", Align::Right),
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
            format!("{:.3}", g.start_ms),
            gen_label(g),
            g.reason.to_string(),
            table::ms(g.suspend_ms),
            table::ms(g.pause_ms),
            table::mb(g.allocated_bytes),
            table::mb(g.peak_bytes),
            table::mb(g.after_bytes),
            table::mb(g.promoted_bytes),
            table::pct(surv),
        ]);
    }
    let mut s = t.render();
    s.push_str(&format!(
        "\n{} of {} GCs. Gen: N=blocking B=background F=foreground, I=induced; * = incomplete. MB = 10^6 bytes.\n\
         Surv% = survival of the generation collected. Every figure: gcscope gcs FILE --json, docs/model.md.\n",
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
