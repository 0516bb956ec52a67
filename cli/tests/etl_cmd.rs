//! The CLI on PerfView's machine-wide ETW traces: `events --json` against TraceEvent's baseline
//! counts (every process), and the process choice of every subcommand: the most GC pause by
//! default (said on stderr with the others), `--pid N`, `--process NAME`, and a clear error for a
//! process that is not there.

mod common;

use common::gcscope;
use std::path::PathBuf;

/// `gcscope ARGS`, which must succeed (stderr in the message if not).
fn gcscope_ok(args: &[&str]) -> std::process::Output {
    let out = gcscope(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn trace(name: &str) -> Option<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces/perfview");
    if dir.is_dir() {
        Some(dir.join(name).to_string_lossy().into_owned())
    } else {
        eprintln!("skipping: {} not found", dir.display());
        None
    }
}

/// `COUNT Provider/Name:N` lines of a baseline.
fn baseline_counts(name: &str) -> Vec<(String, u64)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces/perfview");
    std::fs::read_to_string(dir.join(name))
        .unwrap()
        .lines()
        .filter_map(|l| l.trim_start_matches('\u{feff}').strip_prefix("COUNT "))
        .map(|c| {
            let (k, v) = c.rsplit_once(':').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect()
}

#[test]
fn events_json_counts_every_process_like_traceevent() {
    let Some(file) = trace("gcevents.etl.zip") else {
        return;
    };
    let out = gcscope_ok(&["events", &file, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut checked = 0;
    for (name, n) in baseline_counts("gcevents.baseline.txt") {
        if name.starts_with("Microsoft-Windows-DotNETRuntime") {
            assert_eq!(v[&name], n, "{name}");
            checked += 1;
        }
    }
    assert_eq!(checked, 20);
    // Machine-wide: both processes' GC/Start events, as the baseline counts them.
    let file = trace("net.4.5.2.x64.etl.zip").unwrap();
    let out = gcscope(&["events", &file, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["Microsoft-Windows-DotNETRuntime/GC/Start"], 528);
    assert_eq!(v["Microsoft-Windows-DotNETRuntime/GC/Stop"], 264);
    // One process only: PerfView's own (pid 3988) had one GC.
    let out = gcscope_ok(&["events", &file, "--json", "--process", "PerfView"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["Microsoft-Windows-DotNETRuntime/GC/Stop"], 1);
}

#[test]
fn every_subcommand_reads_one_chosen_process() {
    let Some(file) = trace("net.4.5.2.x64.etl.zip") else {
        return;
    };
    // Default: the most GC pause, said on stderr with the other process on its own line.
    let out = gcscope_ok(&["summary", &file, "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("showing Test.x64 (pid 3676)"), "{err}");
    assert!(
        err.lines()
            .any(|l| l.trim_start().starts_with("PerfView (pid 3988): 1 GCs")),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["process"]["process_id"], 3676);
    assert_eq!(v["process"]["process_name"], "Test.x64");
    assert_eq!(v["process"]["gc_count"], 263);
    // By pid and by name (case-insensitive), any subcommand; nothing on stderr then.
    for args in [["--pid", "3988"], ["--process", "perfview"]] {
        let out = gcscope_ok(&["gcs", &file, "--json", args[0], args[1]]);
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 1, "{args:?}");
    }
    // A process that is not there: an error that lists the ones that are.
    let out = gcscope(&["budgets", &file, "--pid", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("pid 1") && err.contains("Test.x64 (pid 3676)"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(1), "a trace without it: status 1");
    let out = gcscope(&["events", &file, "--pid", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no event of process 1"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Command-line mistakes: status 2, one line naming the option.
    for args in [
        vec!["summary", &file, "--pid", "x"],
        vec!["gcs", &file, "--pid", "3988", "--process", "PerfView"],
        vec!["roots", &file, "--process"],
    ] {
        let out = gcscope(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--p") && err.lines().count() == 1, "{err}");
    }
}

#[test]
fn gcs_streams_the_chosen_process_as_with_its_pid() {
    // Without --pid, gcs reads a machine-wide trace twice (the process is known only at its end);
    // its rows must be the ones --pid gives in one read, and the process's GC count.
    let Some(file) = trace("net.4.5.2.x64.etl.zip") else {
        return;
    };
    let auto = gcscope_ok(&["gcs", &file, "--json"]);
    let by_pid = gcscope_ok(&["gcs", &file, "--json", "--pid", "3676"]);
    assert_eq!(auto.stdout, by_pid.stdout);
    let v: serde_json::Value = serde_json::from_slice(&auto.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 263);
    let err = String::from_utf8_lossy(&auto.stderr);
    assert_eq!(
        err.matches("showing Test.x64 (pid 3676)").count(),
        1,
        "{err}"
    );
}

/// A machine-wide trace with no .NET process (what a CPU profile looks like to a GC tool): the
/// summary shows no phantom process, and its event count is the whole trace's: the twelve
/// process records written here and the logfile header.
#[test]
fn a_trace_without_a_dotnet_process_says_so() {
    use gcscope_core::encode::etl::{process_payload, EtlWriter, Options};
    use gcscope_core::etl::names::hooks;
    let opts = Options::default();
    let t0 = opts.header_timestamp;
    let mut w = EtlWriter::new(opts);
    for i in 0..12u32 {
        let pid = 100 + 4 * i;
        let p = process_payload(8, pid, 4, &format!("C:\\Windows\\svc{i}.exe"), "");
        w.kernel(
            0,
            hooks::PROCESS_DC_START,
            4,
            0,
            0,
            t0 + 10 + i64::from(i),
            &p,
        );
    }
    let path = std::env::temp_dir().join(format!("gcscope-nodotnet-{}.etl", std::process::id()));
    std::fs::write(&path, w.finish()).expect("write");
    let out = gcscope_ok(&["summary", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Process    none: no process in the trace wrote .NET runtime events"),
        "{text}"
    );
    assert!(!text.contains("pid 0"), "{text}");
    assert!(text.contains("Events     13 in the trace"), "{text}");
    let json = gcscope_ok(&["summary", path.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["process"]["events"], 13);
    let note = v["notes"][0].as_str().unwrap_or_default();
    assert!(
        note.starts_with("no process in this machine-wide trace"),
        "{note}"
    );
    assert!(note.contains("12 processes named by the kernel"), "{note}");
    std::fs::remove_file(&path).ok();
}
