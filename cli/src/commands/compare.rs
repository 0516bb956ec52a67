//! `gcscope compare A B`: two traces side by side (facts, rollups, pause percentiles, budget, MMU,
//! allocation rate and heap size), with B - A, % and whether that is better, and the findings that
//! appear, disappear or change from A to B (`findings::diff`, each trace's findings with their
//! default settings); `--json` adds the histograms, CDFs, MMU curves and the figures over time.

use gcscope_core::compare::{self, Comparison, RowLog, Verdict};
use gcscope_core::findings::{self, Change, Settings};
use serde::Serialize;

use crate::args::Input;
use crate::input::model::load_rows;
use crate::output::stdout::{print, print_json};
use crate::output::table::{self, Align, Table};

/// `gcscope compare`'s options.
#[derive(clap::Args, Debug, Clone)]
pub struct Opts {
    /// The first trace (A, the baseline)
    #[arg(value_name = "A")]
    pub a: String,
    /// The second trace (B): differences are B - A
    #[arg(value_name = "B")]
    pub b: String,
    /// Print JSON instead of the tables (stable snake_case keys)
    #[arg(long)]
    pub json: bool,
    /// The pause budget: GCs that paused longer are counted
    #[arg(long, value_name = "MS", default_value_t = 10.0)]
    pub budget: f64,
}

pub fn run(opts: &Opts) -> Result<(), String> {
    let lat = gcscope_core::latency::Options {
        budget_ms: opts.budget,
        ..Default::default()
    };
    let digest = |path: &str| -> Result<_, String> {
        // An ETW trace's process with the most GC pause (said on stderr when it holds several).
        let input = Input {
            file: path.to_string(),
            pid: None,
            process: None,
            jobs: None,
        };
        // The rows stay (without their per-heap histories) for the findings.
        let m = load_rows(&input)?;
        let mut log = RowLog::default();
        m.gcs.iter().for_each(|gc| log.add(gc));
        let report = findings::analyze_model(&m, &Settings::default());
        Ok((log.digest(path.to_string(), &m, &lat), report))
    };
    let ((a, fa), (b, fb)) = (digest(&opts.a)?, digest(&opts.b)?);
    let c = compare::compare(&a, &b);
    let changes = findings::diff(&fa, &fb);
    if opts.json {
        return print_json(&CompareJson {
            comparison: &c,
            findings: &changes,
        });
    }
    let mut s = human(&c);
    s.push_str(&findings_text(&changes));
    print(&s)
}

/// The comparison's JSON: its figures, and the findings' changes from A to B.
#[derive(Serialize)]
struct CompareJson<'a> {
    #[serde(flatten)]
    comparison: &'a Comparison,
    findings: &'a [Change],
}

/// The findings that appear, disappear or change from A to B, one line each.
fn findings_text(changes: &[Change]) -> String {
    let mut s = String::from("\nFindings, A to B (gcscope findings FILE for each trace's own)\n");
    if changes.is_empty() {
        s.push_str("  the same findings, with the same numbers\n");
    }
    for ch in changes {
        s.push_str(&format!(
            "  {:13}  {}  [{}]: {}\n",
            ch.kind.name(),
            ch.title,
            ch.rule,
            ch.what
        ));
    }
    s
}

/// A figure's value in its unit, for people.
fn value(unit: &str, v: Option<f64>) -> String {
    match (unit, v) {
        (_, None) => table::dash(),
        ("bytes", Some(x)) => format!("{:.3} MB", x / 1e6),
        ("bytes/s", Some(x)) => format!("{:.1} MB/s", x / 1e6),
        ("count", Some(x)) => format!("{x:.0}"),
        ("%", Some(x)) => format!("{x:.1}%"),
        (_, Some(x)) => format!("{x:.3}"),
    }
}

fn human(c: &Comparison) -> String {
    let mut s = format!("A: {}\nB: {}\n\n", c.a, c.b);
    let mut t = Table::new(&[
        ("Fact", Align::Left),
        ("A", Align::Left),
        ("B", Align::Left),
        ("", Align::Left),
    ]);
    for f in &c.facts {
        let mark = if f.same { "" } else { "differs" };
        t.row(vec![
            f.label.to_string(),
            crate::output::table::clip(&f.a, 30),
            crate::output::table::clip(&f.b, 30),
            mark.into(),
        ]);
    }
    s.push_str(&t.render());
    s.push_str(
        "\nFigures (times in ms; B - A; % of A; better: which way is better, and whether B is)\n",
    );
    let mut t = Table::new(&[
        ("Figure", Align::Left),
        ("A", Align::Right),
        ("B", Align::Right),
        ("B - A", Align::Right),
        ("%", Align::Right),
        ("B is", Align::Left),
    ]);
    for f in &c.figures {
        // Kinds of GC neither trace had are left out (every figure is in --json).
        if f.unit == "count" && f.a == Some(0.0) && f.b == Some(0.0) && f.key.starts_with("pauses.")
        {
            continue;
        }
        if f.a.is_none() && f.b.is_none() {
            continue;
        }
        let verdict = match f.verdict {
            Verdict::Better => "better",
            Verdict::Worse => "WORSE",
            Verdict::Same => "same",
            Verdict::Changed => "changed",
            Verdict::NotComparable => "",
        };
        let delta = match (f.unit.as_ref(), f.delta) {
            ("%", Some(d)) => format!("{d:+.1} pts"),
            (u, d) => {
                let v = value(u, d);
                if d.is_some_and(|d| d >= 0.0) {
                    format!("+{v}")
                } else {
                    v
                }
            }
        };
        t.row(vec![
            f.label.replace('_', " "),
            value(&f.unit, f.a),
            value(&f.unit, f.b),
            delta,
            f.delta_pct
                .map_or_else(table::dash, |p| format!("{p:+.1}%")),
            verdict.into(),
        ]);
    }
    s.push_str(&t.render());
    s.push_str(
        "\nHistograms, CDFs, MMU curves and allocation rate / heap size over time: \
         gcscope compare A B --json.\n",
    );
    s
}
