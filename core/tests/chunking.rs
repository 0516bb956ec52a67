//! Chunk boundaries must not matter: every reference trace decodes to the same event sequence (all
//! fields, hashed in order) whether fed in 1-byte, 7-byte, 4 KiB or whole-file pieces. This is run
//! both on the zip files (container layer) and on the unzipped trace streams (decoder layer, where a
//! 1-byte chunk splits every header, varint and block). Every sequence must also be in timestamp order.

mod common;

use gcscope_core::event::Event;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// Order-sensitive digest of every event field, plus the event count.
#[derive(Debug, PartialEq)]
struct Digest {
    hash: u64,
    events: u64,
    result: String,
}

fn digest(bytes: &[u8], chunk: usize) -> Digest {
    let mut h = DefaultHasher::new();
    let mut events = 0u64;
    let mut last_ts = i64::MIN;
    let mut out_of_order = 0u64;
    let (res, stats) = common::decode_chunked(bytes, chunk, &mut |e: &Event<'_>| {
        events += 1;
        if e.timestamp < last_ts {
            out_of_order += 1;
        }
        last_ts = e.timestamp;
        common::split::event_hash(e).hash(&mut h);
    });
    assert_eq!(stats.events, events);
    // Sorting per sequence-point region (and early flushes at IsSorted events) must yield one
    // globally ordered sequence.
    assert_eq!(out_of_order, 0, "events delivered out of timestamp order");
    Digest {
        hash: h.finish(),
        events,
        result: format!("{res:?}"),
    }
}

#[test]
fn chunk_size_does_not_change_the_events() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let zips = common::eventpipe_zips(&shared);
    assert!(!zips.is_empty());
    for zip in zips {
        let name = zip.file_name().unwrap().to_string_lossy().into_owned();
        let zipped = std::fs::read(&zip).unwrap();
        let raw = common::unzip(&zipped);
        let whole = digest(&raw, raw.len());
        assert!(whole.events > 0, "{name}: no events");
        assert_eq!(whole.result, "Ok(())", "{name}");
        // The zip itself, in small pieces.
        for chunk in [1, 7, 4096, zipped.len()] {
            assert_eq!(
                digest(&zipped, chunk),
                whole,
                "{name}: zip fed in {chunk}-byte chunks"
            );
        }
        // The raw stream in small pieces. 1-byte pushes over the 62 MB netperf take long in a debug
        // build, so these use the first 5 MB of each stream (all of the 4.8 MB .NET Core 3.0 trace;
        // a cut is then a truncation, which must be chunk-independent too).
        let small = &raw[..raw.len().min(5 << 20)];
        let small_whole = digest(small, small.len());
        for chunk in [1, 7, 4096] {
            assert_eq!(
                digest(small, chunk),
                small_whole,
                "{name}: trace fed in {chunk}-byte chunks"
            );
        }
        eprintln!(
            "{name}: {} events, identical for every chunk size",
            whole.events
        );
    }
}
