//! Helpers shared by the integration tests: locating the shared reference traces and decoding them
//! through the crate's own container support.
#![allow(dead_code)]

pub mod split;
#[cfg(feature = "encode")]
pub mod stacks_trace;
pub mod writer;

use gcscope_core::container::Unwrapper;
use gcscope_core::{event::Event, DecodeStats, TraceReader};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The shared test data: `$GCSCOPE_SHARED` where set (a checkout elsewhere, such as a git
/// worktree, names it so), else `../shared` beside the repository.
fn shared_root() -> PathBuf {
    match std::env::var_os("GCSCOPE_SHARED") {
        Some(s) => PathBuf::from(s),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// The shared heap dumps (`heapdumps/`, with the README of their totals), or None (tests then
/// skip with a message).
pub fn heapdumps() -> Option<PathBuf> {
    let dir = shared_root().join("heapdumps");
    if dir.join("README.md").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: {} not found (the shared heap dumps are absent)",
            dir.display()
        );
        None
    }
}

/// The shared reference traces' root, or None (tests then skip with a message).
pub fn shared_dir() -> Option<PathBuf> {
    let dir = shared_root();
    if dir.join("traces").is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: {} not found (the shared reference traces are absent)",
            dir.display()
        );
        None
    }
}

/// The zipped EventPipe reference traces (file names ending .nettrace.zip / .netperf.zip).
pub fn eventpipe_zips(shared: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["traces/perfview", "traces/public"] {
        let Ok(rd) = std::fs::read_dir(shared.join(sub)) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".nettrace.zip") || name.ends_with(".netperf.zip") {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Decodes `bytes` fed in `chunk`-sized pieces; calls `f` per event. Returns the stats and the result.
pub fn decode_chunked(
    bytes: &[u8],
    chunk: usize,
    f: &mut dyn FnMut(&Event<'_>),
) -> (gcscope_core::error::Result<()>, DecodeStats) {
    let mut r = TraceReader::new();
    for piece in bytes.chunks(chunk.max(1)) {
        if let Err(e) = r.push(piece, f) {
            return (Err(e), r.stats().clone());
        }
    }
    let res = r.finish(f);
    (res, r.stats().clone())
}

/// Event counts keyed by `Provider/EventName`.
pub fn count_events(bytes: &[u8]) -> (BTreeMap<String, u64>, DecodeStats) {
    let mut counts = BTreeMap::new();
    let (res, stats) = decode_chunked(bytes, 1 << 20, &mut |e| {
        *counts
            .entry(format!("{}/{}", e.provider, e.name))
            .or_insert(0u64) += 1;
    });
    res.expect("decoding a reference trace");
    (counts, stats)
}

/// A .zip of `entries` (name, contents), each stored as it is.
pub fn stored_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    zip(entries, false)
}

/// A .zip of `entries` (name, contents), each deflated (miniz_oxide, level 6), sizes in the local
/// headers.
pub fn deflated_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    zip(entries, true)
}

/// Written from the format (APPNOTE 4.3.7): local headers, then a central directory. CRCs are left
/// zero: gcscope does not check them.
fn zip(entries: &[(&str, &[u8])], deflate: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, contents) in entries {
        let packed;
        let (method, data): (u8, &[u8]) = if deflate {
            packed = miniz_oxide::deflate::compress_to_vec(contents, 6);
            (8, &packed)
        } else {
            (0, contents)
        };
        let offset = out.len() as u32;
        let mut h = Vec::new();
        h.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        h.extend_from_slice(&[20, 0, 0, 0, method, 0, 0, 0, 0, 0]); // version, flags, method, time, date
        h.extend_from_slice(&0u32.to_le_bytes()); // crc
        h.extend_from_slice(&(data.len() as u32).to_le_bytes());
        h.extend_from_slice(&(contents.len() as u32).to_le_bytes());
        h.extend_from_slice(&(name.len() as u16).to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        h.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&h);
        out.extend_from_slice(data);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&[20, 0, 20, 0, 0, 0, method, 0, 0, 0, 0, 0]);
        central.extend_from_slice(&0u32.to_le_bytes());
        central.extend_from_slice(&(data.len() as u32).to_le_bytes());
        central.extend_from_slice(&(contents.len() as u32).to_le_bytes());
        central.extend_from_slice(&(name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd_at = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_at.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

/// The first trace of a .zip, as the reader's own container layer unwraps it.
pub fn unzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut u = Unwrapper::new();
    u.push(bytes, &mut |d| {
        out.extend_from_slice(d);
        Ok(())
    })
    .unwrap();
    u.finish(&mut |d| {
        out.extend_from_slice(d);
        Ok(())
    })
    .unwrap();
    out
}
