//! Findings: what is wrong with a process's GC, the evidence, and what to change.
//!
//! Above the GC model (it reads a [`GcModel`] and its rows, nothing else) and below every view: the
//! CLI's `gcscope findings`, the app's Findings panel and the HTML report show the same [`Report`].
//! Each rule is a module of [`checks`] and an entry of the one table [`rules`]
//! (`docs/reference/findings.md` is [`markdown`]'s output): a rule reads the trace and returns a
//! finding (with its evidence, the threshold it crossed and the advice), or what it looked at when
//! nothing crossed it, or why it could not look.
//!
//! Ranking follows the authorities' triage: MD's definitive signs first (suspension, a GC far
//! longer than its peers, most gen2 GCs blocking), then what depends on the goal (throughput,
//! latency, footprint: [`Settings`]); thresholds that are gcscope's own choice rank below the
//! sourced ones.

mod checks;
mod diff;
mod docs;
pub mod rules;
pub mod stacks;
mod stats;
mod types;
mod verdict;

pub use checks::conserve_value_for;
pub use diff::{diff, Change, ChangeKind};
pub use docs::markdown;
pub use types::*;

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::gc::{Gc, GcModel};
use verdict::{Ctx, Verdict};

/// Every rule checked on a model whose rows are `gcs` (the model's own: [`analyze_model`]; the
/// browser page keeps them apart from the model), ranked.
pub fn analyze(model: &GcModel, gcs: &[Gc], settings: &Settings) -> Report {
    let c = Ctx {
        model,
        gcs,
        settings,
    };
    let mut findings = Vec::new();
    let mut checks = Vec::new();
    for (rule, check) in checks::ALL {
        let (outcome, note) = match check(&c) {
            Verdict::Found(f) => {
                let note = f.summary.clone();
                findings.push(*f);
                (Outcome::Found, note)
            }
            Verdict::Clear(note) => (Outcome::Clear, note),
            Verdict::NotChecked(note) => (Outcome::NotChecked, note),
        };
        checks.push(Check {
            rule: Cow::Borrowed(rule.id),
            title: Cow::Borrowed(rule.title),
            outcome,
            note,
        });
    }
    rank(&mut findings);
    let dropped_events = model.process.dropped_events;
    let verdict = verdict_of(&findings, &checks, dropped_events);
    Report {
        settings: *settings,
        findings,
        checks,
        dropped_events,
        verdict,
    }
}

/// [`analyze`] on the model's own rows.
pub fn analyze_model(model: &GcModel, settings: &Settings) -> Report {
    analyze(model, &model.gcs, settings)
}

/// Most important first: severity; then the definitive signs; then thresholds from the sources
/// before gcscope's own; then the rules' order.
fn rank(findings: &mut [Finding]) {
    let order = |id: &str| {
        rules::RULES
            .iter()
            .position(|r| r.id == id)
            .unwrap_or(usize::MAX)
    };
    findings.sort_by(|a, b| {
        a.severity
            .cmp(&b.severity)
            .then(b.definitive.cmp(&a.definitive))
            .then(a.threshold.chosen.cmp(&b.threshold.chosen))
            .then(order(&a.rule).cmp(&order(&b.rule)))
    });
}

fn verdict_of(findings: &[Finding], checks: &[Check], dropped: Option<u64>) -> String {
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let checked = checks
        .iter()
        .filter(|c| c.outcome != Outcome::NotChecked)
        .count();
    let mut v = if findings.is_empty() {
        format!(
            "Nothing wrong found: {checked} of {} rules checked, none crossed its threshold.",
            checks.len()
        )
    } else {
        let parts: Vec<String> = [Severity::Critical, Severity::Warning, Severity::Info]
            .into_iter()
            .filter(|&s| count(s) > 0)
            .map(|s| format!("{} {}", count(s), s.name()))
            .collect();
        format!(
            "{} finding{} ({}); {checked} of {} rules checked.",
            findings.len(),
            if findings.len() == 1 { "" } else { "s" },
            parts.join(", "),
            checks.len()
        )
    };
    if let Some(d) = dropped.filter(|d| *d > 0) {
        v.push_str(&format!(
            " {d} events were lost: findings may be missing or their counts low."
        ));
    }
    v
}
