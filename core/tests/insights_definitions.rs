//! Every serialized insights figure has a one-line definition (`gc::definitions`), every definition
//! names a serialized field, and `docs/reference/insights.md` is the definitions as generated.

use std::collections::BTreeSet;
use std::path::Path;

use gcscope_core::gc::definitions::{
    generic, insights_field as field, markdown, Doc, Root, TABLES,
};
use gcscope_core::gc::insights::analyze_with_insights;
use serde_json::Value;

/// Leaf JSON paths under `v` (array elements share their array's path; an array of scalars is a
/// leaf; an empty array says nothing and is skipped).
fn leaves(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaves(x, &p, out);
            }
        }
        Value::Array(a) if a.iter().any(|x| x.is_object()) => {
            for x in a {
                leaves(x, prefix, out);
            }
        }
        Value::Array(a) if a.is_empty() => {}
        _ => {
            out.insert(prefix.to_string());
        }
    }
}

#[test]
fn every_serialized_field_has_a_definition_and_every_definition_a_field() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let mut seen = BTreeSet::new();
    for rt in ["netcore3.1", "net8.0"] {
        for w in ["server", "pinning", "mempressure", "loh", "wks-concurrent"] {
            let bytes = std::fs::read(dir.join(rt).join(format!("{w}.nettrace"))).unwrap();
            let (_, ins) = analyze_with_insights(&bytes).unwrap();
            leaves(&serde_json::to_value(&ins).unwrap(), "", &mut seen);
        }
    }
    // Views whose events these fixtures lack (moved ranges, suspensions not for GC, range
    // snapshots) are checked on a value that has each list filled.
    let mut filled = gcscope_core::gc::insights::Insights::default();
    filled.compaction.per_gc.push(Default::default());
    filled
        .suspensions
        .not_for_gc
        .push(gcscope_core::gc::insights::Suspension {
            begin_ms: 0.0,
            reason: "SuspendOther".into(),
            reason_code: 0,
            thread: 1,
            suspend_ms: None,
            pause_ms: None,
            gc_number: None,
        });
    filled
        .segments
        .range_snapshots
        .push(gcscope_core::gc::insights::RangeSnapshot {
            ms: 0.0,
            gc_number: None,
            ranges: 0,
            used_bytes: Default::default(),
            reserved_bytes: Default::default(),
        });
    leaves(&serde_json::to_value(&filled).unwrap(), "", &mut seen);

    let undefined: Vec<&String> = seen.iter().filter(|p| field(p).is_none()).collect();
    assert!(
        undefined.is_empty(),
        "insights fields without a definition: {undefined:?}"
    );
    let generic_seen: BTreeSet<String> = seen.iter().map(|p| generic(Root::Insights, p)).collect();
    for table in TABLES.iter().filter(|t| t.root == Root::Insights) {
        for d in table.fields {
            assert!(
                generic_seen.contains(d.field),
                "definition of a field that is not serialized: {}",
                d.field
            );
            assert!(!d.definition.is_empty() && !d.label.is_empty() && !d.unit.is_empty());
        }
    }
}

#[test]
fn docs_insights_md_is_the_generated_definitions_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/reference/insights.md");
    let want = markdown(Doc::Insights);
    if std::env::var_os("GCSCOPE_WRITE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/reference/insights.md is out of date: run GCSCOPE_WRITE_DOCS=1 cargo test -p gcscope-core --test insights_definitions"
    );
}

/// Equal JSON, floats to 1e-12 relative (serde_json's default float parser may be 1 ulp off).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) if x.is_f64() || y.is_f64() => {
                (p - q).abs() <= 1e-12 * p.abs().max(q.abs())
            }
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn insights_survive_a_json_round_trip() {
    // The app moves the insights between its worker and UI as JSON: every field deserializes.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces/net8.0");
    for w in ["server", "mempressure"] {
        let bytes = std::fs::read(dir.join(format!("{w}.nettrace"))).unwrap();
        let (_, ins) = analyze_with_insights(&bytes).unwrap();
        let text = serde_json::to_string(&ins).unwrap();
        let back: gcscope_core::gc::insights::Insights = serde_json::from_str(&text).unwrap();
        let (a, b) = (
            serde_json::to_value(&ins).unwrap(),
            serde_json::to_value(&back).unwrap(),
        );
        assert!(same(&a, &b), "{w}");
        assert_eq!(back.counters.len(), ins.counters.len());
    }
}
