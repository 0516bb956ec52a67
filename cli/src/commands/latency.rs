//! `gcscope latency FILE`: pause percentiles per kind of GC, the pause histogram, a pause budget
//! with its worst GCs and windows, and the minimum mutator utilization curve, for the whole trace
//! or a time range (`--json` adds the CDF and % paused per window over time).

use gcscope_core::latency::{self, Latency, Options, TimeRange};

use crate::args::{JsonOpts, RangeOpts};
use crate::commands::summary::percentile_table;
use crate::input::model::load_digest;
use crate::output::stdout::{print, print_json};
use crate::output::table::{self, Align, Table};

/// `gcscope latency`'s options.
#[derive(clap::Args, Debug, Clone)]
pub struct Opts {
    #[command(flatten)]
    pub out: JsonOpts,
    #[command(flatten)]
    pub range: RangeOpts,
    /// The pause budget: GCs that paused longer are counted and listed
    #[arg(long, value_name = "MS", default_value_t = 10.0)]
    pub budget: f64,
    /// Window of % paused over time and of the worst windows (default: 200 windows or fewer)
    #[arg(long, value_name = "MS")]
    pub window: Option<f64>,
}

impl Opts {
    pub fn options(&self) -> Options {
        Options {
            budget_ms: self.budget,
            window_ms: self.window.unwrap_or(0.0),
            ..Options::default()
        }
    }
}

pub fn run(opts: &Opts) -> Result<(), String> {
    let json = opts.out.json("latency")?;
    let (m, rows) = load_digest(&opts.out.input)?;
    let range = TimeRange::new(
        opts.range.from.unwrap_or(0.0),
        opts.range.to.unwrap_or(m.process.trace_duration_ms),
    );
    let l = latency::analyze(&rows.pauses, range, &opts.options());
    if json {
        return print_json(&l);
    }
    print(&human(&l))
}

/// A window size: up to 3 decimals, without trailing zeros.
fn trim(ms: f64) -> String {
    let s = format!("{ms:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn human(l: &Latency) -> String {
    let r = l.range;
    let mut s = format!(
        "Latency from {:.1} to {:.1} ms: paused {:.3} ms ({}%)\n\n",
        r.start_ms,
        r.end_ms,
        l.paused_ms,
        table::pct(l.paused_pct)
    );
    s.push_str(
        "Pause percentiles (complete GCs whose pause started in the range; ms; nearest rank)\n",
    );
    s.push_str(&percentile_table(&l.pauses));

    s.push_str("\nPause histogram (all GCs)\n");
    let most = l
        .histogram
        .iter()
        .map(|b| b.count)
        .max()
        .unwrap_or(0)
        .max(1);
    let mut t = Table::new(&[
        ("Pause ms", Align::Left),
        ("GCs", Align::Right),
        ("", Align::Left),
    ]);
    for b in &l.histogram {
        let bar = "#".repeat((b.count as usize * 40).div_ceil(most as usize));
        t.row(vec![
            format!("{} - {}", b.lo_ms, b.hi_ms),
            b.count.to_string(),
            bar,
        ]);
    }
    s.push_str(&t.render());

    let b = &l.budget;
    s.push_str(&format!(
        "\nBudget {} ms: {} of {} GCs over ({}%), {:.3} ms over in all\n",
        b.budget_ms,
        b.over_budget,
        b.gcs,
        table::pct(b.over_budget_pct),
        b.time_over_budget_ms
    ));
    if !b.worst_gcs.is_empty() {
        let mut t = Table::new(&[
            ("GC#", Align::Right),
            ("Kind", Align::Left),
            ("Start ms", Align::Right),
            ("Pause", Align::Right),
        ]);
        for g in &b.worst_gcs {
            t.row(vec![
                g.number.to_string(),
                g.kind.replace('_', " "),
                format!("{:.1}", g.start_ms),
                format!("{:.3}", g.pause_ms),
            ]);
        }
        s.push_str(&t.render());
    }
    if !b.worst_windows.is_empty() {
        s.push_str(&format!(
            "\nWorst {} ms windows (most time paused)\n",
            b.window_ms
        ));
        let mut t = Table::new(&[
            ("From ms", Align::Right),
            ("To ms", Align::Right),
            ("Paused ms", Align::Right),
            ("% paused", Align::Right),
            ("GCs", Align::Right),
            ("Over budget", Align::Right),
        ]);
        for w in &b.worst_windows {
            t.row(vec![
                format!("{:.1}", w.start_ms),
                format!("{:.1}", w.end_ms),
                format!("{:.3}", w.paused_ms),
                table::pct(Some(w.paused_pct)),
                w.gcs.to_string(),
                w.over_budget.to_string(),
            ]);
        }
        s.push_str(&t.render());
    }

    s.push_str("\nMinimum mutator utilization (the worst window of each size, found exactly)\n");
    let mut t = Table::new(&[
        ("Window ms", Align::Right),
        ("MMU %", Align::Right),
        ("Worst window from ms", Align::Right),
    ]);
    for p in &l.mmu {
        t.row(vec![
            trim(p.window_ms),
            format!("{:.1}", p.min_utilization_pct),
            format!("{:.1}", p.worst_start_ms),
        ]);
    }
    s.push_str(&t.render());
    s.push_str(&format!(
        "\n% paused per {} ms window over time, and the CDF: gcscope latency FILE --json \
         (defined in docs/reference/model.md).\n",
        l.utilization.window_ms
    ));
    s
}
