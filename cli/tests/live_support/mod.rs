//! What the tests against live runtimes share: the repository root, a child's output as lines,
//! waiting for a line, and whether tools/tracegen has a runtime cached.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A child's stderr (or stdout) lines, as they come.
pub fn lines(r: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
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

/// Waits for a line containing `what`; all lines seen go to `seen`.
pub fn wait_for(
    rx: &mpsc::Receiver<String>,
    what: &str,
    seen: &mut Vec<String>,
    secs: u64,
) -> bool {
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
pub fn cached(rt: &str) -> bool {
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
