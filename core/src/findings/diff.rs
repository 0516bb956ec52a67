//! What changed between two traces' findings (the comparison view's A and B): findings that
//! appear, disappear, or change severity or numbers. Findings match by rule (a rule finds at
//! most once per trace).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::stats;
use super::types::{Finding, Outcome, Report, Severity, Text};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// Found in B, checked and clear in A.
    Appeared,
    /// Found in A, checked and clear in B.
    Disappeared,
    /// Found in both, with another severity or other numbers.
    Changed,
    /// Found in one, not checkable in the other (its events are missing there).
    NotComparable,
}

impl ChangeKind {
    /// The word `gcscope compare` and the Compare tab show for it.
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Appeared => "appears",
            ChangeKind::Disappeared => "gone",
            ChangeKind::Changed => "changed",
            ChangeKind::NotComparable => "one side only",
        }
    }
}

/// One rule's change from A to B.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub rule: Text,
    pub title: Text,
    pub kind: ChangeKind,
    pub before: Option<Severity>,
    pub after: Option<Severity>,
    /// What changed, with the numbers ("induced GCs 4 -> 9").
    pub what: String,
}

fn value(v: f64, unit: &str) -> String {
    match unit {
        "ms" => stats::ms(v),
        "%" => stats::pct(v),
        "bytes" => stats::mb(v),
        _ if v == (v as i64) as f64 => format!("{v}"),
        _ => format!("{v:.2}"),
    }
}

/// The figures of `a` and `b` that differ, by label.
fn changed_figures(a: &Finding, b: &Finding) -> Vec<String> {
    let mut out = Vec::new();
    for fa in &a.evidence.figures {
        if let Some(fb) = b.evidence.figures.iter().find(|f| f.label == fa.label) {
            let same =
                (fa.value - fb.value).abs() <= 1e-9 * fa.value.abs().max(fb.value.abs()).max(1.0);
            if !same {
                out.push(format!(
                    "{} {} -> {}",
                    fa.label,
                    value(fa.value, &fa.unit),
                    value(fb.value, &fb.unit)
                ));
            }
        }
    }
    out
}

/// Every rule whose finding appears, disappears or changes from `a` to `b`, in the rules' order.
pub fn diff(a: &Report, b: &Report) -> Vec<Change> {
    let mut out = Vec::new();
    for check in &a.checks {
        let id = &check.rule;
        let fa = a.findings.iter().find(|f| &f.rule == id);
        let fb = b.findings.iter().find(|f| &f.rule == id);
        let outcome_b = b.checks.iter().find(|c| &c.rule == id).map(|c| c.outcome);
        let change = |kind, what: String| Change {
            rule: id.clone(),
            title: check.title.clone(),
            kind,
            before: fa.map(|f| f.severity),
            after: fb.map(|f| f.severity),
            what,
        };
        match (fa, fb) {
            (None, None) => {}
            (Some(x), None) | (None, Some(x)) => {
                let in_a = fa.is_some();
                let (here, there, there_outcome) = if in_a {
                    ("A", "B", outcome_b)
                } else {
                    ("B", "A", Some(check.outcome))
                };
                out.push(if there_outcome == Some(Outcome::NotChecked) {
                    change(
                        ChangeKind::NotComparable,
                        format!(
                            "found in {here} ({}); {there} lacks the events to check it",
                            x.summary
                        ),
                    )
                } else if in_a {
                    change(
                        ChangeKind::Disappeared,
                        format!("gone in B (A: {})", x.summary),
                    )
                } else {
                    change(ChangeKind::Appeared, format!("new in B: {}", x.summary))
                });
            }
            (Some(x), Some(y)) => {
                let mut what = Vec::new();
                if x.severity != y.severity {
                    what.push(format!(
                        "severity {} -> {}",
                        x.severity.name(),
                        y.severity.name()
                    ));
                }
                what.extend(changed_figures(x, y));
                if x.evidence.gcs.len() != y.evidence.gcs.len() {
                    what.push(format!(
                        "GCs {} -> {}",
                        x.evidence.gcs.len(),
                        y.evidence.gcs.len()
                    ));
                }
                if !what.is_empty() {
                    out.push(change(ChangeKind::Changed, what.join("; ")));
                }
            }
        }
    }
    out
}
