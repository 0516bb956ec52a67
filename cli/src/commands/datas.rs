//! `gcscope datas FILE [--json]`: DATAS (Server GC's Dynamic Adaptation To Application Sizes): the
//! heap count over the trace, each change and the tuning decision behind it, per-GC samples.

use gcscope_core::gc::datas::{self, explain_change, DatasModel};
use gcscope_core::gc::{mode, GcModel};
use serde::Serialize;

use crate::args::JsonOpts;
use crate::input::model::load_summaries;
use crate::output::stdout::{print, print_json};
use crate::output::table::{self, Align, Table};

/// Per-GC sample rows in the human output (all are in --json).
const SHOW_SAMPLES: usize = 200;

#[derive(Serialize)]
struct DatasJson<'a> {
    gc_mode: String,
    datas: Option<bool>,
    heap_count_min: Option<u32>,
    heap_count_max: Option<u32>,
    heap_count_changes: u32,
    evidence: &'a [gcscope_core::gc::ModeFact],
    /// One sentence per change (what `explain` says).
    why: Vec<String>,
    #[serde(flatten)]
    model: &'a DatasModel,
}

pub fn run(opts: &JsonOpts) -> Result<(), String> {
    let json = opts.json("datas")?;
    let m = load_summaries(&opts.input)?;
    let d = &m.datas;
    let p = &m.process;
    if json {
        let j = DatasJson {
            gc_mode: mode::label(p),
            datas: p.datas,
            heap_count_min: p.heap_count_min,
            heap_count_max: p.heap_count,
            heap_count_changes: p.heap_count_changes,
            evidence: &p.gc_mode_evidence,
            why: d.changes.iter().map(|c| explain_change(d, c)).collect(),
            model: d,
        };
        return print_json(&j);
    }
    print(&human(&m))
}

fn fact<'a>(m: &'a GcModel, setting: &str) -> Option<&'a gcscope_core::gc::ModeFact> {
    m.process
        .gc_mode_evidence
        .iter()
        .find(|f| f.setting == setting)
}

fn us_ms(us: u64) -> String {
    format!("{:.3}", us as f64 / 1000.0)
}

fn human(m: &GcModel) -> String {
    let d = &m.datas;
    let p = &m.process;
    let mut s = format!("GC mode    {}\n", mode::label(p));
    if let Some(f) = fact(m, "datas") {
        s.push_str(&format!("DATAS      {} ({})\n", f.value, f.evidence));
    }
    if !d.has_events() && d.changes.is_empty() {
        s.push_str("\nNo DATAS events in this trace.\n");
        s.push_str(datas::HOW_TO_ENABLE);
        s.push('\n');
        return s;
    }
    if !d.unknown_events.is_empty() {
        for (name, n) in &d.unknown_events {
            s.push_str(&format!("unknown dynamic event {name}: {n}\n"));
        }
    }

    s.push_str(&format!(
        "\nHeap count over time: {} change{}\n",
        d.changes.len(),
        if d.changes.len() == 1 { "" } else { "s" }
    ));
    if !d.changes.is_empty() {
        let mut t = Table::new(&[
            ("GC", Align::Right),
            ("Time ms", Align::Right),
            ("From", Align::Right),
            ("To", Align::Right),
            ("Decided at GC", Align::Right),
            ("Event", Align::Left),
            ("Median cost %", Align::Right),
            ("Considered %", Align::Right),
            ("Max heaps (budget)", Align::Right),
            ("SOH stable MB", Align::Right),
        ]);
        for c in &d.changes {
            let dec = c.decision.and_then(|i| d.decisions.get(i));
            t.row(vec![
                c.gc.to_string(),
                format!("{:.3}", c.ms),
                c.from.to_string(),
                c.to.to_string(),
                table::num(dec.map(|x| x.gc)),
                dec.map_or_else(table::dash, |x| x.event.to_string()),
                table::pct(dec.and_then(|x| x.median_tcp_pct)),
                table::pct(dec.and_then(|x| x.tcp_considered_pct)),
                table::num(dec.and_then(|x| x.max_heaps_by_budget)),
                table::mb(dec.and_then(|x| x.soh_stable_bytes)),
            ]);
        }
        s.push_str(&t.render());
        s.push_str("\nWhy\n");
        for c in &d.changes {
            s.push_str(&format!("  {}\n", explain_change(d, c)));
        }
    }

    s.push_str("\nGCs per heap count\n");
    let mut t = Table::new(&[("Heaps", Align::Right), ("GCs", Align::Right)]);
    for c in &d.gcs_by_heap_count {
        t.row(vec![c.heaps.to_string(), c.gcs.to_string()]);
    }
    s.push_str(&t.render());

    s.push_str(&format!(
        "\nTuning decisions: {} (Decided: what each decision's codes say; --json has each code's \
         number and its name in the runtime)\n",
        d.decisions.len()
    ));
    if !d.decisions.is_empty() {
        let mut t = Table::new(&[
            ("GC", Align::Right),
            ("Event", Align::Left),
            ("Heaps", Align::Right),
            ("New", Align::Right),
            ("Median cost %", Align::Right),
            ("Considered %", Align::Right),
            ("GCs since change", Align::Right),
            ("Max/min heaps (budget)", Align::Right),
            ("Decided", Align::Left),
        ]);
        for x in &d.decisions {
            t.row(vec![
                x.gc.to_string(),
                x.event.to_string(),
                table::num(x.heaps_before),
                x.new_heap_count.to_string(),
                table::pct(x.median_tcp_pct),
                table::pct(x.tcp_considered_pct),
                table::num(x.gcs_since_last_change),
                match (x.max_heaps_by_budget, x.min_heaps_by_budget) {
                    (Some(a), Some(b)) => format!("{a}/{b}"),
                    _ => table::dash(),
                },
                x.verdict.clone(),
            ]);
        }
        s.push_str(&t.render());
    }

    s.push_str(&format!(
        "\nSamples (one per GC; times in ms, cost = (pause + lock wait / heaps) / elapsed): {}\n",
        d.samples.len()
    ));
    let mut t = Table::new(&[
        ("GC", Align::Right),
        ("Time ms", Align::Right),
        ("Heaps", Align::Right),
        ("Pause", Align::Right),
        ("Elapsed", Align::Right),
        ("Lock wait", Align::Right),
        ("Cost %", Align::Right),
        ("Gen0 budget/heap MB", Align::Right),
        ("SOH stable MB", Align::Right),
    ]);
    for x in d.samples.iter().take(SHOW_SAMPLES) {
        t.row(vec![
            x.gc.to_string(),
            format!("{:.3}", x.ms),
            table::num(x.heaps),
            us_ms(x.pause_us),
            us_ms(x.elapsed_between_gcs_us),
            us_ms(x.msl_wait_us),
            table::pct(x.throughput_cost_pct),
            table::mb(x.gen0_budget_per_heap_bytes),
            table::mb(x.soh_stable_bytes),
        ]);
    }
    s.push_str(&t.render());
    if d.samples.len() > SHOW_SAMPLES {
        s.push_str(&format!(
            "... and {} more (--json lists every sample)\n",
            d.samples.len() - SHOW_SAMPLES
        ));
    }
    if d.dropped > 0 {
        s.push_str(&format!(
            "{} DATAS records beyond the kept maximum were counted, not kept\n",
            d.dropped
        ));
    }
    s
}
