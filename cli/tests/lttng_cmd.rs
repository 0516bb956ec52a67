//! The CLI on perfcollect's LTTng traces (`../shared/traces/lttng/`): `events --json` gives the
//! README's counts (an independent reader's), `summary` names the format and the lost events, and
//! the process choice works as on machine-wide ETW traces. Skips without `../shared`.

use std::path::PathBuf;
use std::process::Command;

fn trace(name: &str) -> Option<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/traces/lttng")
        .join(name);
    if path.is_file() {
        Some(path.to_string_lossy().into_owned())
    } else {
        eprintln!("skipping: {} not found", path.display());
        None
    }
}

fn gcscope_ok(args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(args)
        .output()
        .expect("run gcscope");
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{args:?}: {e}");
    (o, e)
}

#[test]
fn events_and_summary_of_a_perfcollect_trace() {
    let Some(t) = trace("clr-only.trace.zip") else {
        return;
    };
    let (json, _) = gcscope_ok(&["events", &t, "--json"]);
    let counts: serde_json::Value = serde_json::from_str(&json).unwrap();
    let total: u64 = counts
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total, 32_762);
    assert_eq!(counts["Microsoft-Windows-DotNETRuntime/GC/Start"], 11);
    assert_eq!(
        counts["Microsoft-Windows-DotNETRuntime/GC/MarkWithType"],
        43
    );

    let (summary, stderr) = gcscope_ok(&["summary", &t]);
    assert!(summary.contains("lttng-ctf"), "{summary}");
    assert!(summary.contains("dropped: 0"), "{summary}");
    assert!(summary.contains("pid 5767"), "{summary}");
    assert!(stderr.contains("dotnet (pid 5747): 3 GCs"), "{stderr}");
    let (gcs, _) = gcscope_ok(&["gcs", &t, "--pid", "5747"]);
    assert!(gcs.contains("3 of 3 GCs"), "{gcs}");
}
