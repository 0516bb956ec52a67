//! Replays the committed fuzz inputs through the fuzz targets' own bodies (`fuzz/src/targets/`,
//! included here as a module, so this runs the same code on stable): every crash input under
//! `fuzz/regressions/<target>/` and the minimized corpus under `fuzz/corpus/<target>/`. Each body
//! asserts what its target checks (an error's offset lies inside the input, chunking changes
//! nothing, a written graph reads back); any panic, one of those or one in core, fails the test
//! and names the file. Malformed input must end in an `Err` or an `Ok`, never a panic.

#[allow(dead_code)]
#[path = "../../fuzz/src/lib.rs"]
mod fuzz;

use std::path::{Path, PathBuf};

type Run = fn(&[u8]);

const TARGETS: [(&str, Run); 7] = [
    ("container", fuzz::targets::container::run),
    ("ctf", fuzz::targets::ctf::run),
    ("etl", fuzz::targets::etl::run),
    ("gcdump", fuzz::targets::gcdump::run),
    ("lz77", fuzz::targets::lz77::run),
    ("model", fuzz::targets::model::run),
    ("payloads", fuzz::targets::payloads::run),
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_name().is_none_or(|n| n != "README.md"))
        .collect();
    v.sort();
    v
}

/// Runs every file under `fuzz/<kind>/<target>/` through its target; returns the files replayed
/// per target and the ones that panicked.
fn replay(kind: &str) -> (Vec<(&'static str, usize)>, Vec<String>) {
    let mut counts = Vec::new();
    let mut failed = Vec::new();
    for (name, run) in TARGETS {
        let inputs = files(&fuzz_dir().join(kind).join(name));
        for p in &inputs {
            let data = std::fs::read(p).unwrap();
            if std::panic::catch_unwind(|| run(&data)).is_err() {
                failed.push(p.display().to_string());
            }
        }
        counts.push((name, inputs.len()));
    }
    (counts, failed)
}

#[test]
fn crash_inputs_end_in_a_result() {
    let (_, failed) = replay("regressions");
    assert!(failed.is_empty(), "inputs that panic: {failed:#?}");
}

#[test]
fn minimized_corpus_replays_without_a_panic() {
    let (counts, failed) = replay("corpus");
    assert!(failed.is_empty(), "inputs that panic: {failed:#?}");
    // The corpus is what scripts/fuzz.sh starts from: an empty directory would make this test
    // (and the fuzzing's head start) silently vanish.
    for (name, n) in counts {
        assert!(n > 0, "fuzz/corpus/{name} is empty");
    }
}
