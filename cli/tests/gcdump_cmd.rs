//! `gcscope gcdump` against real runtimes: .NET Core 3.1, 8, 9 and 10 from tools/tracegen's cache,
//! running its `heap-cache` workload (tools/tracegen/live.sh), whose construction is the truth: a
//! static array of 10,000 `HeapCache.Entry` objects, each the only holder of a 4,096-byte array.
//! The snapshot must hold those 10,000 entries retaining at least 10,000 × 4 KB, the process must
//! be alive after it, and `gcscope heap` must read the file written. Each runtime skips, saying
//! so, when it is not cached.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const ENTRIES: u64 = 10_000;
const ENTRY_BYTES: u64 = 4096;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn gcdump_on(rt: &str) {
    let dir = std::env::temp_dir().join(format!("gcscope-gcdump-{rt}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let oracle = dir.join("oracle.json");
    let mut w = Command::new(root().join("tools/tracegen/live.sh"))
        .args([rt, oracle.to_str().expect("path"), "heap-cache"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tools/tracegen/live.sh");
    let pid = w.id();
    let (tx, rx) = mpsc::channel();
    let out = w.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                return;
            }
        }
    });
    let ready = loop {
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(l) if l.contains("ready") => break true,
            Ok(_) => continue,
            Err(_) => break false,
        }
    };
    if !ready {
        let status = w.wait().expect("wait");
        let mut err = String::new();
        let _ = std::io::Read::read_to_string(&mut w.stderr.take().expect("stderr"), &mut err);
        if status.code() == Some(3) {
            eprintln!("skipping {rt}: {}", err.trim());
            return;
        }
        panic!("{rt}: the heap-cache workload did not start ({status}): {err}");
    }

    let file = dir.join("cache.gcdump");
    let trace = dir.join("cache.nettrace");
    let out = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(["gcdump", "--pid", &pid.to_string(), "-o"])
        .arg(&file)
        .arg("--nettrace")
        .arg(&trace)
        .output()
        .expect("run gcscope gcdump");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{rt}: gcdump failed: {err}");
    assert!(err.contains("wrote"), "{rt}: {err}");
    // The process goes on running after the snapshot.
    assert!(
        w.try_wait().expect("try_wait").is_none(),
        "{rt}: the workload exited after the snapshot"
    );

    // The file reads back through `gcscope heap`, with the cache as constructed; the session's
    // events, read as a trace, give the same snapshot.
    let heap = |path: &std::path::Path| {
        let heap = Command::new(env!("CARGO_BIN_EXE_gcscope"))
            .args(["heap", "--json"])
            .arg(path)
            .output()
            .expect("run gcscope heap");
        assert!(
            heap.status.success(),
            "{rt}: heap {} failed",
            path.display()
        );
        serde_json::from_slice::<serde_json::Value>(&heap.stdout).expect("heap JSON")
    };
    let v = heap(&file);
    assert_eq!(
        heap(&trace),
        v,
        "{rt}: the trace's walk and the .gcdump differ"
    );
    let types = v["types"].as_array().expect("types");
    // The runtime names the nested type by its own name.
    let entry = types
        .iter()
        .find(|t| matches!(t["name"].as_str(), Some("Entry" | "HeapCache+Entry")))
        .unwrap_or_else(|| panic!("{rt}: no HeapCache.Entry type in {}", v["types"]));
    assert_eq!(entry["count"], ENTRIES, "{rt}: {entry}");
    let retained = entry["retained_bytes"].as_u64().expect("retained");
    assert!(
        retained >= ENTRIES * ENTRY_BYTES,
        "{rt}: the entries retain {retained} bytes"
    );
    assert_eq!(v["undefined_nodes"], 0, "{rt}: {}", v["warnings"]);

    // Let the workload end.
    if let Some(mut stdin) = w.stdin.take() {
        let _ = writeln!(stdin, "go");
    }
    let _ = w.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gcdump_netcore31() {
    gcdump_on("netcore3.1");
}

#[test]
fn gcdump_net8() {
    gcdump_on("net8.0");
}

#[test]
fn gcdump_net9() {
    gcdump_on("net9.0");
}

#[test]
fn gcdump_net10() {
    gcdump_on("net10.0");
}
