//! `gcscope gcs --callers` against TraceEvent: each GC's caller, taken from TraceEvent's TraceLog
//! reading of the fixture's GCTriggered stacks (`conserve.stacks.json`) and its GC list
//! (`conserve.traceevent.json`), with the rule written here from its words.

mod common;

use common::gcscope;
use std::path::PathBuf;

use serde_json::Value;

fn stdout_of(args: &[&str]) -> String {
    String::from_utf8(common::ok_stdout(args)).expect("UTF-8")
}

fn fixture(rt: &str, file: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/traces")
        .join(rt)
        .join(file)
        .to_string_lossy()
        .into_owned()
}

fn read_json(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect(path)).expect(path)
}

/// A TraceEvent frame's label as gcscope writes one: `module!method`, the method, or the address.
fn te_label(f: &Value) -> String {
    match (f["method"].as_str(), f["module"].as_str()) {
        (Some(m), Some(module)) => format!("{module}!{m}"),
        (Some(m), None) => m.to_string(),
        _ => f["address"].as_str().expect("an address").to_string(),
    }
}

/// The caller of TraceEvent's frames (leaf first): the first frame that is not the runtime's (its
/// core library, or native code with neither module nor method in a trace with rundown), else
/// the first method outside System.GC, else the leaf.
fn te_caller(frames: &[Value]) -> &Value {
    let runtime = |f: &Value| match f["module"].as_str() {
        Some(m) => m == "System.Private.CoreLib",
        None => f["method"].is_null(),
    };
    frames
        .iter()
        .find(|f| !runtime(f))
        .or_else(|| {
            frames.iter().find(|f| {
                f["method"]
                    .as_str()
                    .is_some_and(|m| !m.starts_with("System.GC."))
            })
        })
        .unwrap_or(&frames[0])
}

/// A GC's trigger as TraceEvent reads it: its time, its caller's label and its leaf's.
type Trigger = (f64, String, String);

/// What TraceEvent says of each GC (by number): its trigger, or None where no GCTriggered lies
/// between the previous GC's start and its own.
fn expected() -> Vec<(u64, Option<Trigger>)> {
    let stacks = read_json(&fixture("net9.0", "conserve.stacks.json"));
    let te = read_json(&fixture("net9.0", "conserve.traceevent.json"));
    let triggers: Vec<&Value> = stacks["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "GCTriggered")
        .collect();
    let gcs = te["gcs"].as_array().unwrap();
    let starts: Vec<f64> = gcs
        .iter()
        .map(|g| g["StartRelativeMSec"].as_f64().unwrap())
        .collect();
    gcs.iter()
        .zip(&starts)
        .map(|(g, &start)| {
            let after = starts
                .iter()
                .copied()
                .filter(|&s| s < start)
                .fold(f64::NEG_INFINITY, f64::max);
            let mine = triggers
                .iter()
                .filter(|t| {
                    let at = t["timestamp_ms"].as_f64().unwrap();
                    at <= start && at > after
                })
                .max_by(|a, b| {
                    let (a, b) = (a["timestamp_ms"].as_f64(), b["timestamp_ms"].as_f64());
                    a.unwrap().total_cmp(&b.unwrap())
                });
            let want = mine.map(|t| {
                let frames = t["frames"].as_array().unwrap();
                (
                    t["timestamp_ms"].as_f64().unwrap(),
                    te_label(te_caller(frames)),
                    te_label(&frames[0]),
                )
            });
            (g["Number"].as_u64().unwrap(), want)
        })
        .collect()
}

/// Checks `rows` (gcscope's `--json` rows) against TraceEvent's GCs of the same numbers.
fn check(rows: &[Value], want: &[(u64, Option<Trigger>)]) {
    for row in rows {
        let n = row["number"].as_u64().unwrap();
        let (_, w) = want
            .iter()
            .find(|(m, _)| *m == n)
            .expect("TraceEvent has the GC");
        let c = &row["caller"];
        match w {
            None => assert_eq!(c["status"], "no_trigger", "GC {n}: {c}"),
            Some((at, caller, leaf)) => {
                assert_eq!(c["status"], "named", "GC {n}: {c}");
                assert_eq!(c["frame"].as_str(), Some(caller.as_str()), "GC {n}");
                let shown_leaf = c["leaf"].as_str().unwrap_or(caller);
                assert_eq!(shown_leaf, leaf, "GC {n}");
                let got = c["triggered_ms"].as_f64().unwrap();
                assert!((got - at).abs() < 0.001, "GC {n}: {got} against {at}");
            }
        }
    }
}

#[test]
fn each_gcs_caller_is_traceevents() {
    let want = expected();
    assert!(
        want.iter().filter(|(_, w)| w.is_some()).count() > 60,
        "the fixture's GCs have triggers"
    );
    let f = fixture("net9.0", "conserve.nettrace");
    let rows: Value =
        serde_json::from_str(&stdout_of(&["gcs", &f, "--callers", "--json"])).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), want.len());
    check(rows, &want);
    // The induced GCs name the workload's method, not CoreLib's reflection invoker.
    let induced: Vec<&Value> = rows.iter().filter(|r| r["induced"] == true).collect();
    assert!(!induced.is_empty());
    for r in induced {
        let frame = r["caller"]["frame"].as_str().unwrap();
        assert!(frame.starts_with("Workloads!Rt.CallGC"), "{frame}");
    }

    // Filtered rows keep their own triggers (the rule looks at every GC, not the rows shown).
    for filter in [
        ["--gen", "2"],
        ["--reason", "induced"],
        ["--min-pause", "2"],
    ] {
        let mut args = vec!["gcs", &f, "--callers", "--json"];
        args.extend(filter);
        let rows: Value = serde_json::from_str(&stdout_of(&args)).unwrap();
        let rows = rows.as_array().unwrap();
        assert!(!rows.is_empty() && rows.len() < want.len(), "{filter:?}");
        check(rows, &want);
    }
}

#[test]
fn the_table_and_the_csv_carry_the_same_callers() {
    let f = fixture("net9.0", "conserve.nettrace");
    let json: Value =
        serde_json::from_str(&stdout_of(&["gcs", &f, "--callers", "--json"])).unwrap();
    let text = |r: &Value| -> String {
        let c = &r["caller"];
        match c["status"].as_str().unwrap() {
            "named" => c["frame"].as_str().unwrap().to_string(),
            "no_trigger" => "[no GCTriggered]".into(),
            _ => "[no stack recorded]".into(),
        }
    };
    let want: Vec<String> = json.as_array().unwrap().iter().map(text).collect();

    let csv = stdout_of(&["gcs", &f, "--callers", "--csv"]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header.last(), Some(&"caller"));
    // The caller is the last cell; a signature's commas put it in quotes.
    let got: Vec<String> = lines
        .map(|l| match l.strip_suffix('"') {
            Some(l) => l[l.rfind(",\"").unwrap() + 2..].replace("\"\"", "\""),
            None => l[l.rfind(',').unwrap() + 1..].to_string(),
        })
        .collect();
    assert_eq!(got, want);

    let table = stdout_of(&["gcs", &f, "--callers"]);
    let header = table.lines().next().unwrap();
    assert!(header.trim_end().ends_with("Caller"), "{header}");
    let at = header.find("Caller").unwrap();
    let cells: Vec<&str> = table
        .lines()
        .skip(2)
        .take(want.len())
        .map(|l| l[at..].trim_end())
        .collect();
    for (cell, w) in cells.iter().zip(&want) {
        // Clipped to the column's width, with an ellipsis.
        assert!(
            w.starts_with(cell.trim_end_matches('…')),
            "{cell} against {w}"
        );
    }

    // Without --callers the output is as before: no column, no field.
    let plain: Value = serde_json::from_str(&stdout_of(&["gcs", &f, "--json"])).unwrap();
    assert!(plain[0].get("caller").is_none());
    let mut stripped = json.clone();
    for r in stripped.as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("caller");
    }
    assert_eq!(stripped, plain);
}

/// `traces/perfview/NAME` in the shared test data, or None (the test skips).
fn shared_trace(name: &str) -> Option<String> {
    common::shared_file("traces/perfview", name)
}

#[test]
fn an_etl_names_no_caller_and_a_machine_wide_one_asks_for_its_process() {
    // gcscope does not read ETW's stack events: a GC with a GCTriggered says its stack is not
    // recorded, never a frame.
    let Some(f) = shared_trace("gcevents.etl.zip") else {
        return;
    };
    let rows: Value =
        serde_json::from_str(&stdout_of(&["gcs", &f, "--callers", "--json"])).unwrap();
    let statuses: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["caller"]["status"].as_str().unwrap())
        .collect();
    assert!(!statuses.is_empty());
    assert!(statuses.iter().all(|s| *s == "no_stack"), "{statuses:?}");
    let table = stdout_of(&["gcs", &f, "--callers"]);
    assert!(table.contains("[no stack recorded]"), "{table}");

    // Two processes' triggers: the rows are one process's, so the command asks which.
    let Some(f) = shared_trace("net.4.5.2.x64.etl.zip") else {
        return;
    };
    let out = gcscope(&["gcs", &f, "--callers"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--pid or --process"), "{err}");
    let pid = err
        .split("ids ")
        .nth(1)
        .and_then(|s| s.split([',', ')']).next())
        .expect("the message lists the ids")
        .to_string();
    let rows: Value = serde_json::from_str(&stdout_of(&[
        "gcs",
        &f,
        "--pid",
        &pid,
        "--callers",
        "--json",
    ]))
    .unwrap();
    let plain: Value =
        serde_json::from_str(&stdout_of(&["gcs", &f, "--pid", &pid, "--json"])).unwrap();
    assert_eq!(
        rows.as_array().unwrap().len(),
        plain.as_array().unwrap().len()
    );
}

#[test]
fn callers_over_several_traces_is_refused_with_a_reason() {
    let a = fixture("net9.0", "conserve.nettrace");
    let b = fixture("net10.0", "conserve.nettrace");
    let out = gcscope(&["gcs", &a, &b, "--callers", "--csv"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--callers") && err.contains("one file"),
        "{err}"
    );
}
