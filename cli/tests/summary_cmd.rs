//! `gcscope summary` streams the trace and keeps only whole-trace figures (rows are dropped as they
//! settle): its rollup must still count every GC. Checked against TraceEvent's own per-GC analysis
//! of each committed fixture (`*.traceevent.json`), an independent reading of the same file.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn fixtures() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let mut out = Vec::new();
    for rt in ["netcore3.1", "net8.0"] {
        for e in std::fs::read_dir(root.join(rt)).expect("fixtures") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "nettrace") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn json(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json")
}

#[test]
fn summary_rollup_counts_every_gc_traceevent_counts() {
    let files = fixtures();
    assert!(files.len() >= 14, "fixtures: {files:?}");
    for trace in files {
        let out = Command::new(env!("CARGO_BIN_EXE_gcscope"))
            .args(["summary", &trace.to_string_lossy(), "--json"])
            .output()
            .expect("run gcscope");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let s: Value = serde_json::from_slice(&out.stdout).expect("summary json");
        let te = json(&trace.with_extension("traceevent.json"));
        let te_gcs: Vec<&Value> = te["gcs"]
            .as_array()
            .expect("TraceEvent gcs")
            .iter()
            .filter(|g| g["IsComplete"].as_bool() == Some(true))
            .collect();
        let rollup = s["rollup"].as_array().expect("rollup");
        let count = |gen: &str| {
            rollup
                .iter()
                .find(|r| r["gen"] == gen)
                .and_then(|r| r["count"].as_u64())
                .unwrap_or(0)
        };
        let name = trace.display();
        assert_eq!(count("all"), te_gcs.len() as u64, "{name}: all GCs");
        for gen in 0..3u64 {
            let want = te_gcs
                .iter()
                .filter(|g| g["Generation"].as_u64() == Some(gen))
                .count() as u64;
            assert_eq!(count(&gen.to_string()), want, "{name}: gen{gen} GCs");
        }
    }
}
