//! The findings' one rules table: `docs/reference/findings.md` is its generated text, each rule's
//! threshold sentence states the number the rule's code uses, every rule cites sources the table
//! lists, and every rule has a check (its id shows in every report).

use std::path::Path;

use gcscope_core::findings::rules::{self, RULES, SOURCES};
use gcscope_core::findings::{analyze_model, markdown, Settings};

#[test]
fn docs_findings_md_is_the_generated_rules_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/reference/findings.md");
    let want = markdown();
    if std::env::var_os("GCSCOPE_WRITE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/reference/findings.md is out of date: run GCSCOPE_WRITE_DOCS=1 cargo test -p gcscope-core --test findings_definitions"
    );
}

/// A number as the threshold sentences write it (10, 1.5, 200).
fn num(v: f64) -> String {
    let s = format!("{v}");
    s.trim_end_matches(".0").to_string()
}

#[test]
fn each_threshold_sentence_states_the_number_the_code_uses() {
    let pairs: &[(&rules::Rule, Vec<String>)] = &[
        (&rules::SUSPENSION, vec![num(rules::SUSPEND_MS)]),
        (
            &rules::LONG_GC_OUTLIER,
            vec![
                format!("{}x", num(rules::OUTLIER_FACTOR)),
                format!("{} ms", num(rules::OUTLIER_MIN_MS)),
                format!("at least {} peers", rules::OUTLIER_MIN_PEERS),
                format!("factor {}", num(rules::OUTLIER_PROMOTED_FACTOR)),
            ],
        ),
        (
            &rules::MOSTLY_BLOCKING_GEN2,
            vec![
                format!("{}%", num(rules::BLOCKING_GEN2_SHARE_PCT)),
                format!("{} gen2 GCs", rules::BLOCKING_GEN2_MIN),
            ],
        ),
        (
            &rules::PAUSE_TIME,
            vec![format!("{}%", num(rules::PAUSE_PCT))],
        ),
        (
            &rules::PAUSES_OVER_BUDGET,
            vec![format!(
                "{} ms",
                num(gcscope_core::findings::DEFAULT_PAUSE_BUDGET_MS)
            )],
        ),
        (
            &rules::INDUCED,
            vec![format!("at least {}", rules::INDUCED_MIN)],
        ),
        (
            &rules::LOH_TRIGGERED_GEN2,
            vec![format!("at least {}", rules::LOH_GEN2_MIN)],
        ),
        (
            &rules::LOH_ALLOC_WAITS,
            vec![format!("{} ms", num(rules::LOH_WAIT_MS))],
        ),
        (
            &rules::HIGH_MEMORY_LOAD,
            vec![format!("{}%", num(rules::HIGH_MEMORY_PCT))],
        ),
        (
            &rules::GEN2_FRAGMENTATION,
            vec![format!("{}%", num(rules::BGC_ENTRY_FRAG_PCT))],
        ),
        (
            &rules::PINNING,
            vec![format!("{} pinned", rules::PINNED_OBJECTS)],
        ),
        (
            &rules::DATAS,
            vec![format!("{}%", num(rules::DATAS_TARGET_TCP_PCT))],
        ),
        (
            &rules::GEN2_GROWTH,
            vec![
                format!("at least {} gen2", rules::GROWTH_MIN_GEN2),
                format!("{}x", num(rules::GROWTH_FACTOR)),
            ],
        ),
        (
            &rules::FINALIZATION,
            vec![format!("{}%", num(rules::FINALIZATION_PCT))],
        ),
    ];
    for (rule, numbers) in pairs {
        for n in numbers {
            assert!(
                rule.threshold.contains(n.as_str()),
                "{}: threshold {:?} does not say {n:?}",
                rule.id,
                rule.threshold
            );
        }
    }
}

#[test]
fn every_rule_cites_listed_sources_and_is_checked_on_every_trace() {
    let tags: Vec<&str> = SOURCES.iter().map(|s| s.tag).collect();
    for r in RULES {
        let cited = std::iter::once(r.threshold_source).chain(r.advice.iter().map(|a| a.1));
        for text in cited {
            let known = tags.iter().any(|t| text.contains(t));
            assert!(known, "{}: cites no listed source in {text:?}", r.id);
        }
        assert!(!r.advice.is_empty(), "{}: no advice", r.id);
        // A chosen threshold says so in its source text.
        if r.chosen {
            assert!(r.threshold_source.contains("gcscope"), "{}", r.id);
        }
    }
    // Ids are unique.
    let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), RULES.len());
    // Every rule appears in a report, in the table's order, even on an empty model.
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces/net8.0/induced.nettrace"),
    )
    .unwrap();
    let m = gcscope_core::gc::analyze(&bytes).unwrap();
    let report = analyze_model(&m, &Settings::default());
    let checked: Vec<&str> = report.checks.iter().map(|c| c.rule.as_ref()).collect();
    assert_eq!(checked, RULES.iter().map(|r| r.id).collect::<Vec<_>>());
}
