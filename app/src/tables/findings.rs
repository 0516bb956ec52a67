//! The findings as the page, its exports and the HTML report show them: the settings from the
//! address bar, each figure with its unit, and every rule checked as a table. The findings
//! themselves are core's (`gcscope_core::findings`), the same the CLI prints.

use gcscope_core::findings::{Figure, Goal, Outcome, Report, Settings, DEFAULT_PAUSE_BUDGET_MS};

use crate::format::{bytes, ms};

use super::{col, t, Table};

/// The findings' settings from the address bar's `goal` and `budget` (the defaults where absent or
/// not understood). The budget is the app's one pause budget, the Latency tab's too; unset, the
/// findings use core's default (100 ms) where the Latency tab uses its own.
pub fn settings(goal: Option<&str>, budget_ms: Option<f64>) -> Settings {
    Settings {
        goal: goal.and_then(Goal::parse).unwrap_or_default(),
        pause_budget_ms: budget_ms
            .filter(|b| b.is_finite() && *b >= 0.0)
            .unwrap_or(DEFAULT_PAUSE_BUDGET_MS),
    }
}

/// A figure of a finding's evidence, with its unit.
pub fn figure(f: &Figure) -> String {
    let v = f.value;
    match f.unit.as_ref() {
        "ms" => ms(v),
        "%" => format!("{v:.1}%"),
        "bytes" => bytes(v),
        "ratio" => format!("{v:.2}"),
        _ if v.fract() == 0.0 => crate::format::thousands(v),
        _ => format!("{v:.2}"),
    }
}

pub fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Found => "found",
        Outcome::Clear => "clear",
        Outcome::NotChecked => "not checked",
    }
}

/// Every rule checked: its id, title, what came of it and what it saw (or what it needs).
pub fn checks_table(r: &Report) -> Table {
    Table {
        id: "findings-checks",
        title: format!("Rules checked ({})", r.checks.len()),
        cols: vec![
            col("rule", "Rule", "name", "The rule's id (docs/reference/findings.md)."),
            col("title", "What it looks for", "name", "The rule's title."),
            col("outcome", "Outcome", "name", "found: over its threshold; clear: checked, below it; not checked: the trace lacks the events it needs."),
            col("note", "What it saw", "name", "The numbers the rule looked at, or the events it needs and how to capture them."),
        ],
        rows: r
            .checks
            .iter()
            .map(|c| {
                vec![
                    t(c.rule.to_string()),
                    t(c.title.to_string()),
                    t(outcome_name(c.outcome)),
                    t(c.note.clone()),
                ]
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_core::findings::{analyze_model, Severity};

    #[test]
    fn settings_come_from_the_address_with_the_defaults_otherwise() {
        assert_eq!(settings(None, None), Settings::default());
        let s = settings(Some("latency"), Some(50.0));
        assert_eq!((s.goal, s.pause_budget_ms), (Goal::Latency, 50.0));
        assert_eq!(settings(Some("speed"), Some(-1.0)), Settings::default());
    }

    /// The table lists every rule of the report, in its order, with the outcome core gave.
    #[test]
    fn checks_table_lists_every_rule() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/traces/net8.0/induced.nettrace"
        ))
        .unwrap();
        let m = gcscope_core::gc::analyze(&bytes).unwrap();
        let r = analyze_model(&m, &Settings::default());
        let tb = checks_table(&r);
        assert_eq!(tb.rows.len(), gcscope_core::findings::rules::RULES.len());
        let induced = tb.rows.iter().find(|row| row[0] == t("induced")).unwrap();
        assert_eq!(induced[2], t("found"));
        assert!(r
            .findings
            .iter()
            .any(|f| f.rule == "induced" && f.severity == Severity::Warning));
        let f = &r.findings[0];
        assert!(!f.evidence.figures.is_empty());
        assert_eq!(
            figure(&Figure {
                label: "x".into(),
                value: 12.5,
                unit: "%".into()
            }),
            "12.5%"
        );
        assert_eq!(
            figure(&Figure {
                label: "x".into(),
                value: 1234.0,
                unit: "count".into()
            }),
            "1,234"
        );
    }
}
