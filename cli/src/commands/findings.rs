//! `gcscope findings FILE [--json] [--budget MS] [--goal G] [--fail-on SEVERITY]`: what is wrong
//! with the process's GC, ranked, with the evidence, the threshold crossed and what to change
//! (`gcscope_core::findings`; the rules are in docs/reference/findings.md).

use gcscope_core::findings::stacks::{wanted, FindingStacks, StackEvidence};
use gcscope_core::findings::{self, Goal, Outcome, Report, Settings, Severity};
use gcscope_core::stacks::view::{Frames, StackSamplesBuilder};

use crate::args::Input;
use crate::input::load::read_trace_for_stacks;
use crate::input::model::load_rows;
use crate::output::stdout::{print, print_json};

/// Exit status when `--fail-on` is given and a finding is at least that severe.
pub const EXIT_FINDINGS: u8 = 3;

#[derive(clap::Args, Debug, Clone)]
pub struct Opts {
    #[command(flatten)]
    pub input: Input,
    /// Print JSON instead of text (the whole report: findings, evidence, every rule checked)
    #[arg(long)]
    pub json: bool,
    /// Pause budget: a GC that pauses longer is a finding
    #[arg(long, value_name = "MS", default_value_t = findings::DEFAULT_PAUSE_BUDGET_MS, value_parser = positive_ms)]
    pub budget: f64,
    /// What the program is tuned for: picks which findings are warnings and which are info
    #[arg(long, value_name = "GOAL", default_value = "throughput", value_parser = ["throughput", "latency", "footprint"])]
    pub goal: String,
    /// Exit with status 3 when a finding is at least this severe (for CI); without it, findings
    /// never change the exit status
    #[arg(long, value_name = "SEVERITY", value_parser = ["critical", "warning", "info"])]
    pub fail_on: Option<String>,
}

fn positive_ms(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("{s} is not a positive number of milliseconds")),
    }
}

/// Runs the command; the exit status (0, or [`EXIT_FINDINGS`] with `--fail-on`).
pub fn run(opts: &Opts) -> Result<u8, String> {
    let settings = Settings {
        goal: Goal::parse(&opts.goal).unwrap_or_default(),
        pause_budget_ms: opts.budget,
    };
    let m = load_rows(&opts.input)?;
    let mut report = findings::analyze_model(&m, &settings);
    // The stacks take a second read of the file: only for a report whose findings list them.
    if wanted(&report) {
        let mut b = StackSamplesBuilder::new();
        let (_, _, table) = read_trace_for_stacks(&opts.input, &mut |_, e| b.on_event(e))?;
        let samples = b.finish();
        let table = table.unwrap_or_default();
        let frames = Frames {
            table: &table,
            methods: &samples.methods,
        };
        FindingStacks::read(&samples, &frames, Some(m.process.process_id)).attach(&mut report);
    }
    if opts.json {
        print_json(&report)?;
    } else {
        print(&human(&report))?;
    }
    let fail = opts
        .fail_on
        .as_deref()
        .and_then(Severity::parse)
        .is_some_and(|min| report.findings.iter().any(|f| f.severity <= min));
    Ok(if fail { EXIT_FINDINGS } else { 0 })
}

fn indent(out: &mut String, prefix: &str, text: &str) {
    out.push_str(prefix);
    out.push_str(text);
    out.push('\n');
}

/// The text report: the verdict, each finding with its evidence, threshold and advice, then every
/// rule checked.
pub fn human(r: &Report) -> String {
    let mut s = format!(
        "{}\nGoal {}, pause budget {} ms.\n",
        r.verdict,
        r.settings.goal.name(),
        r.settings.pause_budget_ms
    );
    for (i, f) in r.findings.iter().enumerate() {
        s.push_str(&format!(
            "\n{}. {}  {}  [{}]\n",
            i + 1,
            f.severity.name().to_uppercase(),
            f.title,
            f.rule
        ));
        indent(&mut s, "   ", &f.summary);
        let e = &f.evidence;
        if !e.gcs.is_empty() || e.range_ms.is_some() {
            let mut line = String::from("Evidence:");
            if !e.gcs.is_empty() {
                line.push_str(&format!(
                    " {} GC{}",
                    e.gcs.len(),
                    if e.gcs.len() == 1 { "" } else { "s" }
                ));
            }
            if let Some((a, b)) = e.range_ms {
                line.push_str(&format!(" from {a:.1} ms to {b:.1} ms"));
            }
            indent(&mut s, "   ", &line);
        }
        for fig in &e.figures {
            indent(
                &mut s,
                "     ",
                &format!("{}: {}", fig.label, figure(fig.value, &fig.unit)),
            );
        }
        for l in &e.lines {
            indent(&mut s, "     - ", l);
        }
        if !e.types.is_empty() {
            indent(&mut s, "     types: ", &e.types.join(", "));
        }
        if let Some(st) = &e.stacks {
            stacks_text(&mut s, st);
        }
        indent(
            &mut s,
            "   Threshold: ",
            &format!(
                "{}{} ({})",
                f.threshold.text,
                if f.threshold.chosen {
                    ", chosen by gcscope"
                } else {
                    ""
                },
                f.threshold.source
            ),
        );
        for a in &f.advice {
            indent(&mut s, "   Advice: ", &format!("{} ({})", a.text, a.source));
        }
        for c in &f.caveats {
            indent(&mut s, "   Caveat: ", c);
        }
    }
    s.push_str("\nRules checked\n");
    let width = r.checks.iter().map(|c| c.rule.len()).max().unwrap_or(0);
    for c in &r.checks {
        let outcome = match c.outcome {
            Outcome::Found => "found",
            Outcome::Clear => "clear",
            Outcome::NotChecked => "not checked",
        };
        s.push_str(&format!(
            "  {:width$}  {:11}  {}\n",
            c.rule, outcome, c.note
        ));
    }
    s.push_str("\nEvery rule, its threshold and sources: docs/reference/findings.md\n");
    s
}

/// Frames of a stack the text lists (the rest are counted).
const TEXT_FRAMES: usize = 8;

/// What the runtime recorded of the finding's stacks: the top ones, leaf first, or why there are
/// none.
fn stacks_text(s: &mut String, st: &StackEvidence) {
    let what = match st.event.as_ref() {
        "induced" => "Callers (GCTriggered stacks of the induced GCs)",
        "alloc-loh" => "Top LOH allocation stacks",
        _ => "Where pinned handles were made (SetGCHandle stacks)",
    };
    let bytes = st.unit == "bytes";
    if st.trace_stacks == 0 {
        indent(
            s,
            "     ",
            &format!("{what}: the trace has no call stacks (docs/guide/stacks.md)"),
        );
        return;
    }
    if st.total_count == 0 {
        indent(s, "     ", &format!("{what}: no such event in the trace"));
        return;
    }
    indent(
        s,
        "     ",
        &format!(
            "{what}, {} of {} (gcscope stacks --event {}):",
            st.top.len(),
            st.distinct,
            st.event
        ),
    );
    for (i, t) in st.top.iter().enumerate() {
        let v = if bytes {
            format!("{:.2} MB sampled", t.value as f64 / 1e6)
        } else {
            format!("{} event{}", t.value, if t.value == 1 { "" } else { "s" })
        };
        indent(s, "       ", &format!("#{} {v}", i + 1));
        if t.frames.is_empty() {
            indent(s, "         ", "(the runtime recorded no frames)");
        }
        for f in t.frames.iter().take(TEXT_FRAMES) {
            indent(s, "         ", f);
        }
        if t.frames.len() > TEXT_FRAMES {
            indent(
                s,
                "         ",
                &format!("... {} more frames", t.frames.len() - TEXT_FRAMES),
            );
        }
        if let Some(n) = &t.note {
            indent(s, "         ", &format!("({n})"));
        }
    }
    if st.no_stack > 0 {
        indent(
            s,
            "       ",
            &format!(
                "{} of {} came without a stack (the runtime recorded none)",
                st.no_stack, st.total_count
            ),
        );
    }
    if st.missing_stack > 0 {
        indent(
            s,
            "       ",
            &format!(
                "{} of {} name a stack the trace does not hold",
                st.missing_stack, st.total_count
            ),
        );
    }
}

fn figure(v: f64, unit: &str) -> String {
    match unit {
        "ms" => format!("{v:.2} ms"),
        "%" => format!("{v:.1}%"),
        "bytes" => format!("{:.2} MB", v / 1e6),
        "ratio" => format!("{v:.2}"),
        _ if v.fract() == 0.0 => format!("{v}"),
        _ => format!("{v:.2}"),
    }
}
