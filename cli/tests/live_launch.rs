//! `gcscope collect -- CMD` (reverse connect) and `gcscope serve --pid P` against real runtimes
//! from tools/tracegen's cache, running its `live` workload (tools/tracegen/live.sh), whose own
//! output is the truth (see live_cmds.rs). Each runtime skips, saying so, when it is not cached.
//!
//! Reverse connect: gcscope starts the workload suspended, so the file holds every GC of the
//! process, 1 to the runtime's own `GC.CollectionCount(0)` at its end, and the stream is complete.
//! .NET Core 3.1 never connects (reverse connect is .NET 5 and later): exit status 4.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn lines(r: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(r).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                return;
            }
        }
    });
    rx
}

fn wait_for(rx: &mpsc::Receiver<String>, what: &str, seen: &mut Vec<String>, secs: u64) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(l) => {
                let hit = l.contains(what);
                seen.push(l);
                if hit {
                    return true;
                }
            }
            Err(_) => return false,
        }
    }
    false
}

/// Whether tools/tracegen has `rt` cached (live.sh exits 3 at once when not).
fn cached(rt: &str) -> bool {
    let o = Command::new(root().join("tools/tracegen/live.sh"))
        .args([rt, "/dev/null"])
        .env("GCSCOPE_LIVE_GCS", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run live.sh");
    if o.status.code() == Some(3) {
        eprintln!(
            "skipping {rt}: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        );
        return false;
    }
    true
}

fn reverse_on(rt: &str) {
    if !cached(rt) {
        return;
    }
    let dir = std::env::temp_dir().join(format!("gcscope-reverse-{rt}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let oracle = dir.join("oracle.json");
    let file = dir.join("launched.nettrace");
    let mut c = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(["collect", "-o", file.to_str().expect("path"), "--"])
        .arg(root().join("tools/tracegen/live.sh"))
        .args([rt, oracle.to_str().expect("path")])
        .env("GCSCOPE_LIVE_GCS", "6")
        .env("GCSCOPE_LIVE_EVERY_MS", "20")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gcscope collect --");
    let out = lines(c.stdout.take().expect("stdout"));
    let err = lines(c.stderr.take().expect("stderr"));
    let mut seen = Vec::new();
    // The workload's `ready` comes only after the session started and the runtime resumed.
    assert!(
        wait_for(&out, "ready", &mut seen, 60),
        "{rt}: the launched workload did not start: {seen:?} {:?}",
        err.try_iter().collect::<Vec<_>>()
    );
    c.stdin
        .take()
        .expect("stdin")
        .write_all(b"go\n")
        .expect("go");
    let status = c.wait().expect("collect");
    let errs: Vec<String> = err.try_iter().collect();
    assert_eq!(status.code(), Some(0), "{rt}: collect --: {errs:?}");
    assert!(
        errs.iter().any(|l| l.contains("exited (exit status: 0)")),
        "{rt}: {errs:?}"
    );
    let o: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&oracle).expect("oracle")).expect("oracle JSON");
    let total = o["collection_count"]["gen0"].as_u64().expect("count") as u32;
    let bytes = std::fs::read(&file).expect("the file");
    let mut reader = gcscope_core::TraceReader::new();
    reader.push(&bytes, &mut |_| {}).expect("the file reads");
    reader.finish(&mut |_| {}).expect("the file is complete");
    let model = gcscope_core::gc::analyze(&bytes).expect("model");
    let numbers: Vec<u32> = model
        .gcs
        .iter()
        .filter(|g| g.complete)
        .map(|g| g.number)
        .collect();
    assert_eq!(
        numbers,
        (1..=total).collect::<Vec<_>>(),
        "{rt}: the file's GCs are every GC of the process"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reverse_connect_net8() {
    reverse_on("net8.0");
}

#[test]
fn reverse_connect_net9() {
    reverse_on("net9.0");
}

#[test]
fn reverse_connect_net10() {
    reverse_on("net10.0");
}

/// .NET Core 3.1 knows no DOTNET_DiagnosticPorts: it runs, never connects, exits; gcscope says
/// so with exit status 4.
#[test]
fn reverse_connect_needs_net5() {
    if !cached("netcore3.1") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("gcscope-reverse-31-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut c = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(["collect", "-o"])
        .arg(dir.join("x.nettrace"))
        .arg("--")
        .arg(root().join("tools/tracegen/live.sh"))
        .args(["netcore3.1", "/dev/null"])
        .env("GCSCOPE_LIVE_GCS", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gcscope");
    let out = lines(c.stdout.take().expect("stdout"));
    assert!(wait_for(&out, "ready", &mut Vec::new(), 60));
    c.stdin
        .take()
        .expect("stdin")
        .write_all(b"go\n")
        .expect("go");
    let o = c.wait_with_output().expect("collect");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.contains("before its runtime connected"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
