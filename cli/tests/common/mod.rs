//! Helpers shared by the CLI's integration tests: running the built binary and finding the shared
//! test data. Each test file takes what it needs, so the rest would warn as unused.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the `gcscope` binary under test with `args`, to its end.
pub fn gcscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(args)
        .output()
        .expect("run gcscope")
}

/// The standard output of `gcscope args`, which must succeed (else its standard error fails the
/// test).
pub fn ok_stdout(args: &[&str]) -> Vec<u8> {
    let out = gcscope(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `SUB/NAME` in the shared test data: under `$GCSCOPE_SHARED` where set (a checkout elsewhere,
/// such as a git worktree, names it so), else `../shared` beside the repository. None, with a
/// message, where it is absent: the test then skips.
pub fn shared_file(sub: &str, name: &str) -> Option<String> {
    let shared = match std::env::var_os("GCSCOPE_SHARED") {
        Some(s) => PathBuf::from(s),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    };
    let p = shared.join(sub).join(name);
    if p.is_file() {
        Some(p.to_string_lossy().into_owned())
    } else {
        eprintln!("skipping: {} not found (../shared is absent)", p.display());
        None
    }
}
