//! `--jobs N`: every command prints the same bytes (stdout and stderr) whether the trace is read on
//! one thread or decoded in parts on several ([`gcscope_core::parts`]), on fixtures, a cut copy, an
//! unzipped reference NetTrace and ETW trace (skipped without `../shared`), with the trace cut into
//! many small tasks (`GCSCOPE_TASK_BYTES`) so that every thread has several.

use std::path::{Path, PathBuf};
use std::process::Command;

fn gcscope(args: &[&str], task_bytes: Option<u64>) -> (String, String, bool) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gcscope"));
    c.args(args);
    if let Some(b) = task_bytes {
        c.env("GCSCOPE_TASK_BYTES", b.to_string());
    }
    let out = c.output().expect("run gcscope");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

const COMMANDS: [&[&str]; 8] = [
    &["gcs", "--json"],
    &["summary", "--json"],
    &["events", "--json"],
    &["allocs"],
    &["budgets"],
    &["counters", "--csv"],
    &["datas", "--json"],
    &["stacks", "--event", "alloc", "--folded"],
];

/// Every command on `file`: `--jobs 1` against 2, 3 and 7 threads.
fn same_on_every_thread_count(file: &str) -> usize {
    let size = std::fs::metadata(file).unwrap().len();
    let mut checked = 0;
    for cmd in COMMANDS {
        let with = |jobs: &str, task: Option<u64>| {
            let mut a: Vec<&str> = vec![cmd[0], file];
            a.extend_from_slice(&cmd[1..]);
            a.extend_from_slice(&["--jobs", jobs]);
            gcscope(&a, task)
        };
        let one = with("1", None);
        assert!(
            one.2 || !one.1.is_empty(),
            "{cmd:?} {file}: failed silently"
        );
        for (jobs, parts) in [("2", 2u64), ("3", 5), ("7", 23)] {
            let task = Some(size.div_ceil(parts).max(1));
            let got = with(jobs, task);
            assert_eq!(
                got, one,
                "{cmd:?} {file} --jobs {jobs} (tasks of {task:?} bytes)"
            );
            checked += 1;
        }
    }
    checked
}

fn temp_dir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gcscope-jobs-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/traces")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn fixtures_print_the_same_on_any_number_of_threads() {
    let mut checked = 0;
    for f in [
        "net10.0/server.nettrace",
        "net9.0/datas-tuned.nettrace",
        "net8.0/wks-concurrent.nettrace",
        "netcore3.1/pinning.nettrace",
    ] {
        checked += same_on_every_thread_count(&fixture(f));
    }
    assert_eq!(checked, 4 * COMMANDS.len() * 3);
}

#[test]
fn a_cut_trace_warns_the_same_on_any_number_of_threads() {
    let bytes = std::fs::read(fixture("net10.0/server.nettrace")).unwrap();
    let dir = temp_dir("cut");
    let cut = dir.join("cut.nettrace");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let file = cut.to_string_lossy().into_owned();
    same_on_every_thread_count(&file);
    let (_, err, ok) = gcscope(&["gcs", &file, "--jobs", "3"], Some(20_000));
    assert!(ok && err.contains("is cut off at byte"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// The first trace inside a .zip, written out plain (a .zip itself is read on one thread).
fn unzipped(zip: &Path, out: &Path) {
    let bytes = std::fs::read(zip).unwrap();
    let mut raw = Vec::new();
    let mut u = gcscope_core::container::Unwrapper::new();
    u.push(&bytes, &mut |d| {
        raw.extend_from_slice(d);
        Ok(())
    })
    .unwrap();
    u.finish(&mut |d| {
        raw.extend_from_slice(d);
        Ok(())
    })
    .unwrap();
    std::fs::write(out, raw).unwrap();
}

#[test]
fn reference_traces_print_the_same_on_any_number_of_threads() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces/perfview");
    if !dir.is_dir() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    let tmp = temp_dir("ref");
    for (zip, name) in [
        (
            "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip",
            "core30.nettrace",
        ),
        ("net.4.5.2.x64.etl.zip", "net452.etl"),
    ] {
        let out = tmp.join(name);
        unzipped(&dir.join(zip), &out);
        let file = out.to_string_lossy().into_owned();
        same_on_every_thread_count(&file);
        // The zip itself: read on one thread whatever --jobs says, the same output.
        let z = dir.join(zip).to_string_lossy().into_owned();
        assert_eq!(
            gcscope(&["gcs", &z, "--json", "--jobs", "4"], Some(10_000)),
            gcscope(&["gcs", &z, "--json", "--jobs", "1"], None)
        );
    }
    std::fs::remove_dir_all(tmp).unwrap();
}

#[test]
fn jobs_must_be_a_positive_number() {
    let f = fixture("net10.0/server.nettrace");
    let (_, err, ok) = gcscope(&["summary", &f, "--jobs", "0"], None);
    assert!(!ok && err.contains("--jobs"), "{err}");
}
