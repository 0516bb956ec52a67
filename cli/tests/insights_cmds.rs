//! The insights subcommands end to end on the committed fixtures, checked against the fixtures'
//! independent references (TraceEvent's event counts, the runtime's own numbers).

mod common;

use common::gcscope;
use std::path::PathBuf;

use serde_json::Value;

fn fixture(rt: &str, w: &str, ext: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/traces")
        .join(rt)
        .join(format!("{w}.{ext}"))
        .to_string_lossy()
        .into_owned()
}

fn json_of(args: &[&str]) -> Value {
    let out = gcscope(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON value")
}

fn text_of(args: &[&str]) -> String {
    let out = gcscope(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn reference(rt: &str, w: &str, which: &str) -> Value {
    serde_json::from_slice(&std::fs::read(fixture(rt, w, &format!("{which}.json"))).unwrap())
        .unwrap()
}

fn te_count(te: &Value, name: &str) -> u64 {
    te["counts"][format!("Microsoft-Windows-DotNETRuntime/{name}")]
        .as_u64()
        .unwrap_or(0)
}

#[test]
fn allocs_json_whole_trace_range_and_top() {
    let trace = fixture("net8.0", "loh", "nettrace");
    let te = reference("net8.0", "loh", "traceevent");
    let all = json_of(&["allocs", &trace, "--json", "--top", "1000"]);
    // 766 GCAllocationTick events in TraceEvent's reading.
    assert_eq!(all["tick_count"], te_count(&te, "GC/AllocationTick"));
    let types = all["top_types"].as_array().unwrap();
    let sum: u64 = types
        .iter()
        .map(|t| t["sampled_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(all["sampled_bytes"].as_u64().unwrap(), sum);
    let byte_arrays = types
        .iter()
        .find(|t| t["type_name"] == "System.Byte[]")
        .unwrap();
    assert!(byte_arrays["by_kind"]["large"].as_u64().unwrap() > 0);
    // Sorted by sampled bytes, most first.
    assert!(types
        .windows(2)
        .all(|p| p[0]["sampled_bytes"].as_u64() >= p[1]["sampled_bytes"].as_u64()));

    let top3 = json_of(&["allocs", &trace, "--json", "--top", "3"]);
    assert_eq!(top3["top_types"].as_array().unwrap().len(), 3);
    assert_eq!(top3["top_types"][0], all["top_types"][0]);

    // Two halves of the trace add up to the whole (ticks at exactly the cut go to the second).
    let bins = all["over_time"].as_array().unwrap();
    let mid = bins[bins.len() / 2]["start_ms"]
        .as_f64()
        .unwrap()
        .to_string();
    let a = json_of(&["allocs", &trace, "--json", "--to", &mid]);
    let b = json_of(&["allocs", &trace, "--json", "--from", &mid]);
    assert_eq!(
        a["tick_count"].as_u64().unwrap() + b["tick_count"].as_u64().unwrap(),
        all["tick_count"].as_u64().unwrap()
    );
    assert_eq!(
        a["sampled_bytes"].as_u64().unwrap() + b["sampled_bytes"].as_u64().unwrap(),
        all["sampled_bytes"].as_u64().unwrap()
    );

    let text = text_of(&["allocs", &trace, "--top", "5"]);
    assert!(text.contains("System.Byte[]"));
    assert!(text.contains("Sampled MB"));
    assert!(text.contains("estimate"));
}

#[test]
fn budgets_roots_suspensions_json_match_traceevent_counts() {
    for rt in ["netcore3.1", "net8.0"] {
        let trace = fixture(rt, "pinning", "nettrace");
        let te = reference(rt, "pinning", "traceevent");
        // Workstation GC: one GCPerHeapHistory per GC, one budget row per GC.
        let budgets = json_of(&["budgets", &trace, "--json"]);
        assert_eq!(
            budgets.as_array().unwrap().len() as u64,
            te_count(&te, "GC/PerHeapHistory")
        );
        assert!(budgets[0]["total"]["gen0"]["budget_bytes"].is_i64());
        assert!(budgets[0]["why"]
            .as_str()
            .unwrap()
            .starts_with("triggered by"));
        let roots = json_of(&["roots", &trace, "--json"]);
        assert_eq!(roots["event_count"], te_count(&te, "GC/MarkWithType"));
        let su = json_of(&["suspensions", &trace, "--json"]);
        assert_eq!(su["count"], te_count(&te, "GC/SuspendEEStart"));
    }
    let text = text_of(&["budgets", &fixture("net8.0", "server", "nettrace")]);
    assert!(text.contains("Why each GC collected its generation"));
    let text = text_of(&["roots", &fixture("net8.0", "server", "nettrace")]);
    assert!(text.contains("older"));
    let text = text_of(&["suspensions", &fixture("net8.0", "loh", "nettrace")]);
    assert!(text.contains("SuspendForGCPrep"));
}

#[test]
fn counters_csv_has_one_row_per_gc_and_matches_the_runtimes_counts() {
    let trace = fixture("net8.0", "pinning", "nettrace");
    let te = reference("net8.0", "pinning", "traceevent");
    let oracle = reference("net8.0", "pinning", "oracle");
    let csv = text_of(&["counters", &trace, "--csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0].split(',').next(), Some("gc_number"));
    let head: Vec<&str> = lines[0].split(',').collect();
    assert_eq!((lines.len() - 1) as u64, te_count(&te, "GC/HeapStats"));
    let last: Vec<&str> = lines.last().unwrap().split(',').collect();
    assert_eq!(head.len(), last.len());
    let col = |name: &str| last[head.iter().position(|h| *h == name).unwrap()];
    // GC.CollectionCount(0/1/2) at exit: 36, 20, 6.
    let cc = &oracle["collection_count"];
    assert_eq!(col("gen0_collections"), cc["gen0"].to_string());
    assert_eq!(col("gen1_collections"), cc["gen1"].to_string());
    assert_eq!(col("gen2_collections"), cc["gen2"].to_string());
    assert_eq!(
        col("induced_gcs"),
        oracle["induced"]["total_calls"].to_string()
    );
    let json = json_of(&["counters", &trace, "--json"]);
    assert_eq!(json.as_array().unwrap().len(), lines.len() - 1);
    let out = gcscope(&["counters", &trace, "--json", "--csv"]);
    assert!(!out.status.success());
    let text = text_of(&["counters", &trace]);
    assert!(text.contains("Handles") && text.contains("%GC"));
}

#[test]
fn memory_json_pressure_totals_match_the_programs_calls() {
    let trace = fixture("net8.0", "mempressure", "nettrace");
    let o = &reference("net8.0", "mempressure", "oracle")["memory_pressure"];
    let m = json_of(&["memory", &trace, "--json"]);
    let p = &m["memory_pressure"];
    assert_eq!(p["decrease_count"], o["remove_calls"]);
    assert_eq!(p["decreased_bytes"], o["bytes_removed"]);
    for section in ["compaction", "finalization", "memory_pressure", "segments"] {
        assert!(m[section].is_object(), "{section}");
    }
    let text = text_of(&["memory", &trace]);
    assert!(text.contains("Memory pressure") && text.contains("40 removes"));
}

#[test]
fn bad_options_are_errors() {
    let trace = fixture("net8.0", "loh", "nettrace");
    for args in [
        vec!["allocs", trace.as_str(), "--top", "many"],
        vec!["allocs", trace.as_str(), "--from", "x"],
        vec!["budgets", trace.as_str(), "--csv"],
        vec!["memory"],
    ] {
        let out = gcscope(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn roots_and_memory_on_the_dotnetcore3_trace_match_its_baseline() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    if !dir.join("traces").is_dir() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    let zip = dir.join("traces/perfview/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip");
    let zip = zip.to_str().unwrap();
    // Baseline: GC/MarkWithType, 1912, first HeapNum 0 Type 0 Promoted 104,989 (in GC 1).
    let roots = json_of(&["roots", zip, "--json"]);
    assert_eq!(roots["event_count"], 1912);
    assert_eq!(roots["per_gc"][0]["gc_number"], 1);
    assert_eq!(roots["per_gc"][0]["marked"]["stack"], 104_989);
    // Baseline: GC/BulkMovedObjectRanges, 478, the first with Count 142 in GC 1.
    let m = json_of(&["memory", zip, "--json"]);
    assert_eq!(m["compaction"]["moved_events"], 478);
    assert!(
        m["compaction"]["per_gc"][0]["moved_ranges"]
            .as_u64()
            .unwrap()
            >= 142
    );
    // Baseline: GC/SuspendEEStart, 5953; the first is SuspendOther, listed apart.
    let text = text_of(&["suspensions", zip]);
    assert!(text.contains("5953 suspensions"), "{text}");
    assert!(text.contains("Not for a GC"));
}
