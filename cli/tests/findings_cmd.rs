//! `gcscope findings` end to end on the committed traces: the exit status (0 whatever is found, 3
//! with `--fail-on` at or below the worst severity), the settings reaching the rules (a pause budget
//! that selects exactly the GCs TraceEvent says paused longer; a goal that turns a warning into
//! info), and command-line mistakes exiting 2.

mod common;

use common::gcscope;
use std::path::PathBuf;

use serde_json::Value;

fn trace(rt: &str, w: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/traces")
        .join(rt)
        .join(format!("{w}.nettrace"))
        .display()
        .to_string()
}

fn report(args: &[&str]) -> Value {
    let out = gcscope(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn finding<'a>(r: &'a Value, rule: &str) -> Option<&'a Value> {
    r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == rule)
}

#[test]
fn findings_never_fail_the_run_unless_asked() {
    // wks-nonconcurrent: every gen2 GC blocking (a critical finding); wks-concurrent: warnings only.
    let (critical, warnings) = (
        trace("net8.0", "wks-nonconcurrent"),
        trace("net8.0", "wks-concurrent"),
    );
    let r = report(&["findings", &critical, "--json"]);
    assert_eq!(r["findings"][0]["severity"], "critical", "{r}");
    let w = report(&["findings", &warnings, "--json"]);
    let sev: Vec<&str> = w["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["severity"].as_str().unwrap())
        .collect();
    assert!(
        !sev.contains(&"critical") && sev.contains(&"warning"),
        "{sev:?}"
    );
    for (file, fail_on, code) in [
        (&critical, None, 0),
        (&critical, Some("critical"), 3),
        (&warnings, Some("critical"), 0),
        (&warnings, Some("warning"), 3),
        (&warnings, Some("info"), 3),
    ] {
        let mut args = vec!["findings", file.as_str()];
        if let Some(s) = fail_on {
            args.extend(["--fail-on", s]);
        }
        let out = gcscope(&args);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        // The report is printed either way.
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Rules checked"),
            "{args:?}"
        );
    }
}

/// The budget picks exactly the complete GCs whose pause TraceEvent (PauseDurationMSec) puts over
/// it; 9.5 ms lies in a gap of the .NET 8 induced trace's pauses (8.51 and 10.42 ms either side).
#[test]
fn the_pause_budget_selects_the_gcs_traceevent_says_paused_longer() {
    let file = trace("net8.0", "induced");
    let te: Value = serde_json::from_slice(
        &std::fs::read(file.replace(".nettrace", ".traceevent.json")).unwrap(),
    )
    .unwrap();
    let budget = 9.5;
    let mut want: Vec<u64> = te["gcs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["IsComplete"].as_bool() == Some(true))
        .filter(|g| g["PauseDurationMSec"].as_f64().unwrap() > budget)
        .map(|g| g["Number"].as_u64().unwrap())
        .collect();
    want.sort_unstable();
    assert_eq!(want.len(), 5, "the fixture's pauses over 9.5 ms: {want:?}");
    for g in te["gcs"].as_array().unwrap() {
        let p = g["PauseDurationMSec"].as_f64().unwrap();
        assert!(
            (p - budget).abs() > 0.5,
            "a pause too close to the budget: {p}"
        );
    }
    let r = report(&[
        "findings", &file, "--json", "--budget", "9.5", "--goal", "latency",
    ]);
    let f = finding(&r, "pauses-over-budget").expect("found");
    let got: Vec<u64> = f["evidence"]["gcs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert_eq!(got, want);
    assert_eq!(f["severity"], "warning", "the latency goal's rule");
    assert_eq!(r["settings"]["pause_budget_ms"], 9.5);
    // The default budget (100 ms) is above every pause: checked and clear.
    let d = report(&["findings", &file, "--json"]);
    assert!(finding(&d, "pauses-over-budget").is_none());
    let check = d["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["rule"] == "pauses-over-budget")
        .unwrap();
    assert_eq!(check["outcome"], "clear");
}

#[test]
fn the_goal_decides_what_is_a_warning() {
    let file = trace("net8.0", "wks-concurrent");
    let sev = |goal: &str| {
        let r = report(&["findings", &file, "--json", "--goal", goal]);
        finding(&r, "pause-time").expect("pause-time found")["severity"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(sev("throughput"), "warning");
    assert_eq!(sev("latency"), "info");
    assert_eq!(sev("footprint"), "info");
}

#[test]
fn bad_settings_are_usage_errors() {
    let file = trace("net8.0", "loh");
    for args in [
        vec!["findings", file.as_str(), "--budget", "0"],
        vec!["findings", file.as_str(), "--budget", "abc"],
        vec!["findings", file.as_str(), "--goal", "speed"],
        vec!["findings", file.as_str(), "--fail-on", "fatal"],
    ] {
        let out = gcscope(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("gcscope findings"), "{err}");
    }
}

/// `gcscope compare A B` lists the findings that appear, disappear and change: worked out here
/// from each trace's own `gcscope findings --json` (rules found in one and not the other).
#[test]
fn compare_names_the_findings_that_appear_and_disappear() {
    let (a, b) = (
        trace("net8.0", "wks-concurrent"),
        trace("net8.0", "wks-nonconcurrent"),
    );
    let (fa, fb) = (
        report(&["findings", &a, "--json"]),
        report(&["findings", &b, "--json"]),
    );
    let rules = |r: &Value| -> Vec<String> {
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap().to_string())
            .collect()
    };
    let (ra, rb) = (rules(&fa), rules(&fb));
    let c = report(&["compare", &a, &b, "--json"]);
    let kinds: Vec<(String, String)> = c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|ch| {
            (
                ch["rule"].as_str().unwrap().to_string(),
                ch["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for r in rb.iter().filter(|r| !ra.contains(r)) {
        assert!(
            kinds.contains(&(r.clone(), "appeared".into())),
            "{r}: {kinds:?}"
        );
    }
    for r in ra.iter().filter(|r| !rb.contains(r)) {
        assert!(
            kinds.contains(&(r.clone(), "disappeared".into())),
            "{r}: {kinds:?}"
        );
    }
    // wks-nonconcurrent blocks every gen2 GC; wks-concurrent does not.
    assert!(
        kinds.contains(&("mostly-blocking-gen2".into(), "appeared".into())),
        "{kinds:?}"
    );
    // Its other keys are the comparison's, unchanged.
    assert!(c["figures"].as_array().is_some_and(|f| !f.is_empty()));
    let text = String::from_utf8(gcscope(&["compare", &a, &b]).stdout).unwrap();
    assert!(
        text.contains("Findings, A to B") && text.contains("[mostly-blocking-gen2]"),
        "{text}"
    );
}

/// TraceEvent's frame as `gcscope`'s label: `module!method`, the method alone without a module,
/// the address where TraceLog names no method.
fn traceevent_label(f: &Value) -> String {
    match (f["method"].as_str(), f["module"].as_str()) {
        (Some(m), Some(module)) => format!("{module}!{m}"),
        (Some(m), None) => m.to_string(),
        (None, _) => f["address"].as_str().unwrap().to_string(),
    }
}

#[test]
fn the_induced_finding_lists_the_callers_traceevent_reads() {
    // conserve.stacks.json is TraceEvent's TraceLog reading of the fixture's GCTriggered stacks.
    let f = trace("net9.0", "conserve");
    let oracle_path = f.replace(".nettrace", ".stacks.json");
    let oracle: Value =
        serde_json::from_str(&std::fs::read_to_string(&oracle_path).expect("the .stacks.json"))
            .unwrap();
    let mut want: std::collections::BTreeMap<Vec<String>, u64> = Default::default();
    for e in oracle["events"].as_array().unwrap() {
        let induced = e["payload"]["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("Induced"));
        if e["event"] == "GCTriggered" && induced {
            let labels = e["frames"]
                .as_array()
                .unwrap()
                .iter()
                .map(traceevent_label)
                .collect();
            *want.entry(labels).or_default() += 1;
        }
    }
    assert!(!want.is_empty(), "the fixture has induced GCs");
    let r = report(&["findings", &f, "--json"]);
    let st = &finding(&r, "induced").expect("an induced finding")["evidence"]["stacks"];
    assert_eq!(st["event"], "induced", "{st}");
    assert_eq!(st["unit"], "count");
    assert_eq!(st["total_count"].as_u64(), Some(want.values().sum()));
    let got: std::collections::BTreeMap<Vec<String>, u64> = st["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let frames = t["frames"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap().to_string())
                .collect();
            (frames, t["count"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(got, want);
    // The text lists them under the finding, leaf first.
    let out = gcscope(&["findings", &f]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Callers (GCTriggered stacks of the induced GCs)"),
        "{text}"
    );
    // A finding without stacks to list has them null.
    let outlier = finding(&r, "long-gc-outlier").expect("conserve's outlier");
    assert!(outlier["evidence"]["stacks"].is_null(), "{outlier}");
}

#[test]
fn the_pinning_finding_says_where_the_runtime_stopped() {
    let f = trace("net9.0", "handles");
    let r = report(&["findings", &f, "--json"]);
    let st = &finding(&r, "pinning").expect("a pinning finding")["evidence"]["stacks"];
    assert_eq!(st["event"], "pinned-handles", "{st}");
    // Every pinned handle the stacks command counts, on the same stacks.
    let stacks: Value = serde_json::from_slice(
        &gcscope(&["stacks", &f, "--event", "pinned-handles", "--json"]).stdout,
    )
    .unwrap();
    assert_eq!(st["total_count"], stacks["total_count"]);
    for t in st["top"].as_array().unwrap() {
        match t["frames"][0].as_str() {
            Some(leaf) => assert_eq!(
                t["note"].as_str(),
                Some(format!("the runtime recorded no frames above {leaf}").as_str())
            ),
            None => assert!(t["note"].is_null()),
        }
    }
}
