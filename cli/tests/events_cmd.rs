//! `gcscope events` end to end: the binary on a reference trace, JSON and table output, and the
//! error messages for files that are not traces.

mod common;

use common::gcscope;
use std::path::PathBuf;

fn shared() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    if dir.join("traces").is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: {} not found", dir.display());
        None
    }
}

#[test]
fn json_is_one_object_of_counts_matching_the_baseline() {
    let Some(shared) = shared() else { return };
    let zip = shared.join("traces/perfview/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip");
    let out = gcscope(&["events", zip.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON value");
    let obj = v.as_object().expect("a JSON object");
    // Counts from TraceEvent's baseline for this trace.
    assert_eq!(obj["Microsoft-Windows-DotNETRuntime/GC/Start"], 478);
    assert_eq!(
        obj["Microsoft-Windows-DotNETRuntime/GC/PinObjectAtGCTime"],
        45
    );
    assert_eq!(
        obj["Microsoft-DotNETCore-SampleProfiler/Thread/Sample"],
        35161
    );
    assert_eq!(
        obj["Microsoft-Windows-DotNETRuntimePrivate/GC/PinPlugAtGCTime"],
        46
    );
    assert!(obj.values().all(|c| c.as_u64().is_some_and(|n| n > 0)));
}

#[test]
fn table_lists_names_sorted_with_counts() {
    let Some(shared) = shared() else { return };
    let zip = shared.join("traces/perfview/eventpipe-dotnetcore2.1-win-x86-objver3.netperf.zip");
    let out = gcscope(&["events", zip.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('('))
        .collect();
    let names: Vec<&str> = rows
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    let gc_start = rows
        .iter()
        .find(|l| l.starts_with("Microsoft-Windows-DotNETRuntime/GC/Start "))
        .expect("GC/Start row");
    assert_eq!(gc_start.split_whitespace().last(), Some("10"));
    // Columns are aligned: every row has the same length.
    assert!(rows.windows(2).all(|w| w[0].len() == w[1].len()));
}

#[test]
fn errors_say_what_the_file_is() {
    let dir = std::env::temp_dir().join(format!("gcscope-events-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("picture.nettrace");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\nrest of an image").unwrap();
    let out = gcscope(&["events", png.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a .NET trace") && err.contains("PNG"),
        "{err}"
    );
    let out = gcscope(&["events", dir.join("missing.nettrace").to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open"));
    let out = gcscope(&["events"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing FILE"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_cut_off_trace_warns_and_counts_what_is_there() {
    let Some(shared) = shared() else { return };
    let zip = std::fs::read(
        shared.join("traces/perfview/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip"),
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("gcscope-events-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.nettrace.zip");
    std::fs::write(&cut, &zip[..zip.len() / 2]).unwrap();
    let out = gcscope(&["events", cut.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("cut off"));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let n = v["Microsoft-Windows-DotNETRuntime/GC/RestartEEStart"]
        .as_u64()
        .unwrap();
    assert!(n > 0 && n < 6002);
    std::fs::remove_dir_all(&dir).ok();
}
