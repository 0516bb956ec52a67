//! `reader::heap_walk` on traces without a walk: a trace of GCs has none (`None`, not an error),
//! and bytes that are no trace are an error that says what they look like. Traces with a
//! walk are checked against the `.gcdump` written from the same session in
//! `cli/tests/gcdump_cmd.rs` (real runtimes) and against the walk's construction in the heap
//! module's own tests.

use gcscope_core::reader::{heap_walk, WalkReader};
use std::path::PathBuf;

fn fixture(rel: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/traces")
        .join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_trace_of_gcs_has_no_walk() {
    let bytes = fixture("net8.0/induced.nettrace");
    assert!(matches!(heap_walk(&bytes), Ok(None)));
    // Cut short, still none: what was read is a trace.
    assert!(matches!(heap_walk(&bytes[..bytes.len() / 2]), Ok(None)));
    // In small chunks, the same.
    let mut r = WalkReader::new();
    for c in bytes.chunks(333) {
        r.push(c);
    }
    assert!(!r.walk_ended());
    assert!(matches!(r.finish(), Ok(None)));
}

#[test]
fn bytes_that_are_no_trace_are_an_error_saying_what_they_are() {
    let e = heap_walk(b"not a trace, not a snapshot, just words").expect_err("no trace");
    assert_eq!(e.offset, 0);
    assert!(e.to_string().contains("plain text"), "{e}");
}
