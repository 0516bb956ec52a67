//! Every serialized figure of the model has a one-line definition (`gc::definitions`), every
//! definition names a real field, and `docs/reference/model.md` is the definitions table as
//! generated.

use std::collections::BTreeSet;
use std::path::Path;

use gcscope_core::gc::definitions::{
    gc_field, markdown, Doc, Root, COMPARE_FIELDS, LATENCY_FIELDS, PROCESS_FIELDS, ROLLUP_FIELDS,
    TABLES,
};
use gcscope_core::gc::{analyze, Generations};
use serde_json::Value;

/// JSON paths of every key under `v` (array elements share their array's path).
fn paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                out.insert(p.clone());
                paths(x, &p, out);
            }
        }
        Value::Array(a) => {
            for x in a {
                paths(x, prefix, out);
            }
        }
        _ => {}
    }
}

/// Leaf-or-object paths, with `generations.gen2.x` written `generations.*.x` as the table does.
fn generic(p: &str) -> String {
    let mut parts: Vec<&str> = p.split('.').collect();
    if parts.len() >= 3 && parts[0] == "generations" && Generations::NAMES.contains(&parts[1]) {
        parts[1] = "*";
    }
    parts.join(".")
}

type Paths = BTreeSet<String>;

fn fixture_gc_paths() -> (Paths, Paths, Paths, Paths) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let (mut gc, mut rollup, mut process, mut rest) = (
        BTreeSet::new(),
        BTreeSet::new(),
        BTreeSet::new(),
        BTreeSet::new(),
    );
    let traces = ["netcore3.1", "net8.0"]
        .iter()
        .flat_map(|rt| {
            ["wks-concurrent", "server", "pinning", "induced"]
                .iter()
                .map(move |w| (*rt, *w))
        })
        // DATAS: every field of the model's `datas`.
        .chain([("net9.0", "datas"), ("net8.0", "datas")]);
    for (rt, w) in traces {
        {
            let mut m =
                analyze(&std::fs::read(dir.join(rt).join(format!("{w}.nettrace"))).unwrap())
                    .unwrap();
            // No fixture carries the private provider's BGCAllocWait events: a wait as a trace with
            // them would have it, so its fields are serialized too.
            if m.alloc_waits.longest.is_empty() {
                m.alloc_waits
                    .longest
                    .push(gcscope_core::gc::alloc_waits::AllocWait {
                        thread: 7,
                        reason: "AllocDuringSweep".into(),
                        begin_ms: 1.0,
                        end_ms: 2.0,
                        wait_ms: 1.0,
                        bgc: Some(3),
                    });
            }
            for g in &m.gcs {
                paths(&serde_json::to_value(g).unwrap(), "", &mut gc);
            }
            for r in &m.rollup {
                paths(&serde_json::to_value(r).unwrap(), "", &mut rollup);
            }
            paths(&serde_json::to_value(&m.process).unwrap(), "", &mut process);
            let mut whole = serde_json::to_value(&m).unwrap();
            for part in ["gcs", "rollup", "process"] {
                whole.as_object_mut().unwrap().remove(part);
            }
            paths(&whole, "", &mut rest);
        }
    }
    (gc, rollup, process, rest)
}

#[test]
fn every_serialized_field_has_a_definition_and_every_definition_a_field() {
    let (gc, rollup, process, rest) = fixture_gc_paths();
    // Objects that only group fields (generations, heaps, condemn, ...) need no line of their own.
    let groups: BTreeSet<String> = gc
        .iter()
        .filter(|p| gc.iter().any(|q| q.starts_with(&format!("{p}."))))
        .cloned()
        .collect();
    let undefined: Vec<&String> = gc
        .iter()
        .filter(|p| !groups.contains(*p) && gc_field(p).is_none())
        .collect();
    assert!(
        undefined.is_empty(),
        "per-GC fields without a definition: {undefined:?}"
    );
    let serialized: BTreeSet<String> = gc.iter().map(|p| generic(p)).collect();
    for d in gcscope_core::gc::definitions::GC_FIELDS {
        assert!(
            serialized.contains(d.field),
            "definition of a field that is not serialized: {}",
            d.field
        );
        assert!(
            !d.definition.is_empty() && !d.label.is_empty() && !d.unit.is_empty(),
            "{}",
            d.field
        );
    }
    let rollup_defs: BTreeSet<String> = ROLLUP_FIELDS.iter().map(|d| d.field.to_string()).collect();
    assert_eq!(rollup, rollup_defs, "rollup fields vs definitions");
    let process_defs: BTreeSet<String> =
        PROCESS_FIELDS.iter().map(|d| d.field.to_string()).collect();
    assert_eq!(process, process_defs, "process fields vs definitions");
    let leaves: BTreeSet<String> = rest
        .iter()
        .filter(|p| !rest.iter().any(|q| q.starts_with(&format!("{p}."))))
        .cloned()
        .collect();
    // The model's other parts: SUMMARY_FIELDS and DATAS_FIELDS, every table from the model's root.
    let summary_defs: BTreeSet<String> = TABLES
        .iter()
        .filter(|t| t.root == Root::Model)
        .flat_map(|t| t.fields)
        .map(|d| d.field.to_string())
        .collect();
    assert_eq!(leaves, summary_defs, "model summary fields vs definitions");
}

#[test]
fn every_latency_field_has_a_definition_and_every_definition_a_field() {
    use gcscope_core::latency::{analyze as latency, Options, PauseLog, TimeRange};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces/net8.0");
    let mut leaves = BTreeSet::new();
    for w in ["wks-concurrent", "server"] {
        let m = analyze(&std::fs::read(dir.join(format!("{w}.nettrace"))).unwrap()).unwrap();
        let range = TimeRange::new(0.0, m.process.trace_duration_ms);
        // A 1 ms budget, so that the worst GCs' list has rows.
        let opts = Options {
            budget_ms: 1.0,
            ..Options::default()
        };
        let l = latency(&PauseLog::from_gcs(&m.gcs), range, &opts);
        let mut all = BTreeSet::new();
        paths(&serde_json::to_value(&l).unwrap(), "", &mut all);
        leaves.extend(
            all.iter()
                .filter(|p| !all.iter().any(|q| q.starts_with(&format!("{p}."))))
                .cloned(),
        );
    }
    let defs: BTreeSet<String> = LATENCY_FIELDS.iter().map(|d| d.field.to_string()).collect();
    assert_eq!(leaves, defs, "latency fields vs definitions");
}

#[test]
fn every_comparison_field_has_a_definition_and_every_definition_a_field() {
    use gcscope_core::compare::{compare, RowLog};
    use gcscope_core::latency::Options;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let digest = |p: &str| {
        let m = analyze(&std::fs::read(dir.join(p)).unwrap()).unwrap();
        let mut rows = RowLog::default();
        for g in &m.gcs {
            rows.add(g);
        }
        rows.digest(p.into(), &m, &Options::default())
    };
    let c = compare(
        &digest("net8.0/wks-concurrent.nettrace"),
        &digest("netcore3.1/server.nettrace"),
    );
    let mut all = BTreeSet::new();
    paths(&serde_json::to_value(&c).unwrap(), "", &mut all);
    let leaves: BTreeSet<String> = all
        .iter()
        .filter(|p| !all.iter().any(|q| q.starts_with(&format!("{p}."))))
        .cloned()
        .collect();
    let defs: BTreeSet<String> = COMPARE_FIELDS.iter().map(|d| d.field.to_string()).collect();
    assert_eq!(leaves, defs, "comparison fields vs definitions");
}

#[test]
fn docs_model_md_is_the_generated_definitions_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/reference/model.md");
    let want = markdown(Doc::Model);
    if std::env::var_os("GCSCOPE_WRITE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/reference/model.md is out of date: run GCSCOPE_WRITE_DOCS=1 cargo test -p gcscope-core --test model_definitions"
    );
}
