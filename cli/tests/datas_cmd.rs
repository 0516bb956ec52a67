//! `gcscope datas` and the DATAS names of `gcscope events`, end to end on the committed .NET 9 and
//! 10 traces, against TraceEvent's reading of them (its copy of each GC's GCGlobalHeapHistory and
//! its count of GCDynamicEvent) and the runtime's own settings.

mod common;

use common::gcscope;
use std::path::PathBuf;

use serde_json::Value;

fn fixture(rt: &str, w: &str) -> (PathBuf, Value) {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/traces")
        .join(rt);
    let te = std::fs::read(base.join(format!("{w}.traceevent.json"))).unwrap();
    (
        base.join(format!("{w}.nettrace")),
        serde_json::from_slice(&te).unwrap(),
    )
}

fn run_json(args: &[&str]) -> Value {
    let out = gcscope(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn datas_json_heap_counts_and_changes_match_each_gcs_global_heap_history() {
    for rt in ["net9.0", "net10.0"] {
        for w in ["datas", "datas-tuned"] {
            let (path, te) = fixture(rt, w);
            let j = run_json(&["datas", path.to_str().unwrap(), "--json"]);
            let name = format!("{rt}/{w}");
            assert_eq!(j["datas"], true, "{name}");
            assert!(
                j["gc_mode"]
                    .as_str()
                    .unwrap()
                    .starts_with("server, DATAS: 1-2 heaps"),
                "{name}: {}",
                j["gc_mode"]
            );
            // Every GC's heap count is the one TraceEvent copied from its GCGlobalHeapHistory.
            let per_gc = j["per_gc"].as_array().unwrap();
            let mut compared = 0;
            for t in te["gcs"].as_array().unwrap() {
                let Some(heaps) = t["GlobalHeapHistory"]["NumHeaps"].as_u64() else {
                    continue;
                };
                // (TraceEvent can give a background GC's history to the GC beside it: that GC is
                // not compared; docs/reference/model.md note 3.)
                if let Some(ours) = per_gc.iter().find(|g| g["gc"] == t["Number"]) {
                    assert_eq!(
                        ours["heaps"].as_u64(),
                        Some(heaps),
                        "{name} GC {}",
                        t["Number"]
                    );
                    compared += 1;
                }
            }
            assert!(compared * 10 >= per_gc.len() * 9, "{name}: {compared}");
            // Each change has its decision and one sentence saying why.
            let changes = j["changes"].as_array().unwrap();
            assert!(!changes.is_empty(), "{name}");
            assert_eq!(j["why"].as_array().unwrap().len(), changes.len());
            for c in changes {
                let d = &j["decisions"][c["decision"].as_u64().unwrap() as usize];
                assert_eq!(d["new_heap_count"], c["to"], "{name}");
                assert!(d["gc"].as_u64() < c["gc"].as_u64(), "{name}");
                // The runtime's code for "the heap count was adjusted", number and name, and the
                // decision in words the way the count moved.
                assert_eq!(
                    d["codes"]["adjustment_metric"],
                    serde_json::json!({"value": 2, "name": "adjust_hc"}),
                    "{name}"
                );
                let way = if c["to"].as_u64() > c["from"].as_u64() {
                    "increase: throughput cost above target"
                } else {
                    "decrease: throughput cost below target"
                };
                assert!(
                    d["verdict"].as_str().unwrap().starts_with(way),
                    "{name}: {d}"
                );
            }
            assert_eq!(j["heap_count_changes"].as_u64(), Some(changes.len() as u64));
        }
    }
}

#[test]
fn datas_table_explains_each_change_and_a_trace_without_datas_says_how_to_get_it() {
    let (path, _) = fixture("net9.0", "datas");
    let out = gcscope(&["datas", path.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("grew from 1 to 2 heaps, decided at GC"),
        "{text}"
    );
    assert!(text.contains("Tuning decisions:"), "{text}");
    assert!(
        text.contains("(SizeAdaptationTuning: increase: throughput cost above target"),
        "{text}"
    );
    assert!(
        text.contains("keep: too few GCs since the last heap-count change"),
        "{text}"
    );

    // Server GC with GCHeapCount (DATAS off) and workstation GC: say so, and how to capture it.
    for (rt, w, mode) in [
        ("net9.0", "server", "server, 2 heaps"),
        ("net10.0", "conserve", "workstation, 1 heap"),
    ] {
        let (path, _) = fixture(rt, w);
        let out = gcscope(&["datas", path.to_str().unwrap()]);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(&format!("GC mode    {mode}")), "{text}");
        assert!(text.contains("No DATAS events in this trace."), "{text}");
        assert!(text.contains("DOTNET_GCDynamicAdaptationMode"), "{text}");
        assert!(
            text.contains("Microsoft-Windows-DotNETRuntime:0x1:4"),
            "{text}"
        );
        let j = run_json(&["datas", path.to_str().unwrap(), "--json"]);
        assert_eq!(j["datas"], false);
        assert!(j["changes"].as_array().unwrap().is_empty());
    }
}

/// `gcscope events` names each GCDynamicEvent by its blob; together they are TraceEvent 3.1.3's
/// one `EventID(39)` count, and the table says so.
#[test]
fn events_names_dynamic_events_and_their_total_is_traceevents_count() {
    for (rt, w) in [
        ("net9.0", "datas"),
        ("net10.0", "datas-tuned"),
        ("net8.0", "datas"),
    ] {
        let (path, te) = fixture(rt, w);
        let j = run_json(&["events", path.to_str().unwrap(), "--json"]);
        let ours: u64 = j
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| {
                [
                    "GC/CommittedUsage",
                    "GC/SizeAdaptationSample",
                    "GC/SizeAdaptationTuning",
                    "GC/SizeAdaptationFullGCTuning",
                    "GC/HeapCountSample",
                    "GC/HeapCountTuning",
                    "GC/DynamicTraceEvent",
                ]
                .iter()
                .any(|n| k.ends_with(n))
            })
            .map(|(_, v)| v.as_u64().unwrap())
            .sum();
        let theirs = te["counts"]["Microsoft-Windows-DotNETRuntime/EventID(39)"]
            .as_u64()
            .unwrap();
        assert_eq!(ours, theirs, "{rt}/{w}");
        let tuning = if rt == "net8.0" {
            "GC/HeapCountTuning"
        } else {
            "GC/SizeAdaptationTuning"
        };
        assert!(
            j[format!("Microsoft-Windows-DotNETRuntime/{tuning}")].as_u64() > Some(0),
            "{rt}/{w}"
        );
        let out = gcscope(&["events", path.to_str().unwrap()]);
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(&format!("GCDynamicEvent (id 39), all names: {theirs} ")),
            "{text}"
        );
    }
}
