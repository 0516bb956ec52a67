//! The fixtures the unit tests share (compiled for tests only).

use crate::args::Input;

/// Fixtures with per-heap histories: server GC (2 heaps), DATAS (1-2), and workstation.
pub const WITH_HEAPS: [&str; 4] = [
    "net8.0/server",
    "net9.0/datas",
    "net10.0/datas-tuned",
    "net8.0/loh",
];

/// The path of fixture `name` (as in [`WITH_HEAPS`]).
pub fn fixture(name: &str) -> String {
    format!(
        "{}/../fixtures/traces/{name}.nettrace",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `path`, its default process, read on `jobs` threads.
pub fn input(path: &str, jobs: u32) -> Input {
    Input {
        file: path.to_string(),
        pid: None,
        process: None,
        jobs: Some(jobs),
    }
}
