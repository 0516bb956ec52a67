//! Hand-built inputs for what the reference traces do not cover: compressed headers with wrapping
//! deltas, the padding rule at every alignment, sorting across capture threads, dropped-event
//! detection, V6 blocks (thread, label list, metadata rows, sequence-point flags), truncation, and
//! the error contract (offsets, sticky errors, no panics).

mod common;

use common::writer::{self, Ev, V4, V6};
use gcscope_core::error::ErrorKind;
use gcscope_core::event::Event;
use gcscope_core::{DecodeStats, TraceReader};

const RUNTIME: &str = "Microsoft-Windows-DotNETRuntime";

#[derive(Debug, Clone, PartialEq)]
struct Owned {
    provider: String,
    name: String,
    event_id: u32,
    version: u32,
    timestamp: i64,
    time_ms: f64,
    thread_id: u64,
    capture_thread_id: u64,
    sequence: u32,
    processor: u32,
    stack_id: u32,
    pointer_size: u8,
    payload: Vec<u8>,
}

fn own(e: &Event<'_>) -> Owned {
    Owned {
        provider: e.provider.into(),
        name: e.name.into(),
        event_id: e.event_id,
        version: e.version,
        timestamp: e.timestamp,
        time_ms: e.time_ms,
        thread_id: e.thread_id,
        capture_thread_id: e.capture_thread_id,
        sequence: e.sequence,
        processor: e.processor,
        stack_id: e.stack_id,
        pointer_size: e.pointer_size,
        payload: e.payload.to_vec(),
    }
}

fn decode(
    bytes: &[u8],
    chunk: usize,
) -> (
    Result<(), gcscope_core::error::Error>,
    Vec<Owned>,
    DecodeStats,
) {
    let mut out = Vec::new();
    let (res, stats) = common::decode_chunked(bytes, chunk, &mut |e| out.push(own(e)));
    (res, out, stats)
}

/// A V4 trace: a runtime event, two managed EventSource events (implied and explicit opcodes),
/// two capture threads interleaved in one block (so timestamp and sequence deltas wrap), a stack
/// block, a sequence point reporting dropped events, and blocks of every padding length.
fn v4_sample() -> V4 {
    let mut w = V4::new(1_000, 10_000_000, 8);
    w.metadata_block(&[
        writer::metadata_payload(1, RUNTIME, 1, "", 2, None),
        writer::metadata_payload(2, "MySource", 7, "RequestStart", 0, None),
        writer::metadata_payload(3, "MySource", 8, "TestEvent3", 1, Some(24)),
    ]);
    w.stack_block(1, &[&[0x1000, 0x2000], &[]]);
    w.event_block(&[
        Ev {
            metadata_id: 1,
            sequence: 1,
            thread: 11,
            capture_thread: 11,
            processor: 3,
            stack_id: 1,
            timestamp: 50_000,
            payload: b"gc-a",
            ..Default::default()
        },
        Ev {
            metadata_id: 2,
            sequence: 2,
            thread: 11,
            capture_thread: 11,
            processor: 3,
            timestamp: 70_000,
            payload: b"req",
            ..Default::default()
        },
        // Capture thread 22: earlier timestamps (negative delta) and a lower sequence (wrapping delta).
        Ev {
            metadata_id: 3,
            sequence: 1,
            thread: 22,
            capture_thread: 22,
            processor: u32::MAX,
            timestamp: 40_000,
            payload: b"",
            ..Default::default()
        },
        Ev {
            metadata_id: 1,
            sequence: 4,
            thread: 33,
            capture_thread: 22,
            processor: 1,
            stack_id: 2,
            timestamp: 60_000,
            payload: b"gc-b",
            ..Default::default()
        },
    ]);
    // Thread 11 reached 5 (3 dropped after seq 2); thread 22 is consistent (4).
    w.sequence_point(80_000, &[(11, 5), (22, 4)]);
    // Blocks of growing size shift the alignment so every padding length (0-3) occurs.
    for i in 0..8u32 {
        let payload = vec![i as u8; i as usize];
        w.event_block(&[Ev {
            metadata_id: 1,
            sequence: 6 + i,
            thread: 11,
            capture_thread: 11,
            timestamp: 90_000 + i as i64,
            payload: &payload,
            ..Default::default()
        }]);
    }
    w.end();
    w
}

#[test]
fn v4_hand_built_trace_decodes_in_order_with_names_and_drops() {
    let w = v4_sample();
    let mut pads = w.pads.clone();
    pads.sort();
    pads.dedup();
    assert_eq!(
        pads,
        [0, 1, 2, 3],
        "the sample must exercise every padding length"
    );

    let (res, ev, stats) = decode(&w.buf, w.buf.len());
    res.unwrap();
    assert_eq!(ev.len(), 12);
    let ts: Vec<i64> = ev.iter().map(|e| e.timestamp).collect();
    assert_eq!(
        &ts[..4],
        &[40_000, 50_000, 60_000, 70_000],
        "sorted across capture threads"
    );
    assert!(ts.windows(2).all(|w| w[0] <= w[1]));
    let names: Vec<&str> = ev[..4].iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        ["TestEvent3/24", "GC/Start", "GC/Start", "Request/Start"]
    );
    let e = &ev[0];
    assert_eq!(
        (
            e.provider.as_str(),
            e.event_id,
            e.version,
            e.sequence,
            e.processor
        ),
        ("MySource", 8, 1, 1, u32::MAX)
    );
    let e = &ev[1];
    assert_eq!(
        (
            e.version,
            e.thread_id,
            e.capture_thread_id,
            e.sequence,
            e.processor,
            e.stack_id
        ),
        (2, 11, 11, 1, 3, 1)
    );
    assert_eq!(e.payload, b"gc-a");
    // (50_000 - 1_000) ticks at 10 MHz = 4.9 ms.
    assert!((e.time_ms - 4.9).abs() < 1e-9);
    let e = &ev[2];
    assert_eq!(
        (e.thread_id, e.capture_thread_id, e.sequence, e.stack_id),
        (33, 22, 4, 2)
    );
    // Thread 22: 1 then 4 is a gap of 2; the sequence point adds 3 for thread 11.
    assert_eq!(stats.dropped_events, 2 + 3);
    assert_eq!(
        (
            stats.metadata,
            stats.stacks,
            stats.sequence_points,
            stats.skipped_events
        ),
        (3, 2, 1, 0)
    );
    assert_eq!(
        ev[4..].iter().map(|e| e.payload.len()).collect::<Vec<_>>(),
        (0..8).collect::<Vec<_>>()
    );
    for chunk in [1, 3, 7, 64] {
        let (r, again, s) = decode(&w.buf, chunk);
        r.unwrap();
        assert_eq!(again, ev, "chunk size {chunk}");
        assert_eq!(s.events, stats.events);
    }
}

#[test]
fn v4_padding_follows_the_absolute_offset() {
    // Moving a block's content by one byte (one padding byte too few or too many) must not decode:
    // the reader derives the padding from the absolute stream offset, not from the content.
    let w = v4_sample();
    let start = w.object_starts[2]; // the StackBlock
    let name_len = "StackBlock".len();
    let size_field = start + 16 + name_len;
    assert_eq!(&w.buf[start + 15..start + 15 + name_len], b"StackBlock");
    let pad = w.pads[1];
    let mut bad = w.buf.clone();
    if pad > 0 {
        bad.remove(size_field + 4);
    } else {
        bad.insert(size_field + 4, 0);
    }
    let (res, _, _) = decode(&bad, bad.len());
    let e = res.expect_err("a block padded against the wrong offset must not decode");
    assert!(e.offset as usize >= size_field, "{e}");
}

#[test]
fn unknown_metadata_and_unknown_objects() {
    let mut w = V4::new(0, 1_000, 8);
    w.metadata_block(&[writer::metadata_payload(1, RUNTIME, 2, "", 1, None)]);
    w.block("SomeFutureBlock", &[1, 2, 3, 4, 5]);
    w.event_block(&[
        Ev {
            metadata_id: 1,
            timestamp: 5,
            ..Default::default()
        },
        Ev {
            metadata_id: 9,
            sequence: 2,
            timestamp: 6,
            ..Default::default()
        },
    ]);
    w.end();
    let (res, ev, stats) = decode(&w.buf, 5);
    res.unwrap();
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].name, "GC/Stop");
    assert_eq!(stats.skipped_events, 1);
}

#[test]
fn metadata_ids_cannot_be_redefined_in_v4() {
    let mut w = V4::new(0, 1_000, 8);
    w.metadata_block(&[writer::metadata_payload(1, RUNTIME, 1, "", 1, None)]);
    w.metadata_block(&[writer::metadata_payload(1, RUNTIME, 2, "", 1, None)]);
    w.end();
    let (res, _, _) = decode(&w.buf, 1 << 20);
    let e = res.unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::Malformed(ref m) if m.contains("defined twice")),
        "{e}"
    );
    assert!(e.offset as usize > w.object_starts[2] && (e.offset as usize) < w.buf.len());
}

fn label_list_block(first: u32, lists: &[&[(u8, &[u8])]]) -> Vec<u8> {
    let mut c = Vec::new();
    c.extend_from_slice(&first.to_le_bytes());
    c.extend_from_slice(&(lists.len() as u32).to_le_bytes());
    for list in lists {
        for (i, (kind, value)) in list.iter().enumerate() {
            let last = if i + 1 == list.len() { 0x80 } else { 0 };
            c.push(kind | last);
            c.extend_from_slice(value);
        }
    }
    c
}

/// A V6 trace per NetTraceFormat.md: thread table, metadata rows with optional metadata, a label list
/// overriding the version, a sequence point that flushes metadata (ids then reused), RemoveThread,
/// an unknown block kind, EndOfStream.
fn v6_sample() -> V6 {
    let mut w = V6::new(
        500,
        1_000_000,
        8,
        &[
            ("ProcessId", "777"),
            ("HardwareThreadCount", "16"),
            ("Other", "x"),
        ],
    );
    w.thread_block(&[(1, 1001), (2, 2002)]);
    w.metadata_block(&[
        V6::metadata_row(1, RUNTIME, 10, "", Some(4), None),
        V6::metadata_row(2, "MyEventSource", 3, "WorkStart", None, None),
    ]);
    // Label list 1: an activity id then Version 9 (last). List 2: a key/value string only.
    let mut activity = vec![0u8; 16];
    activity[0] = 0xab;
    let mut kv = Vec::new();
    writer::var_str("k", &mut kv);
    writer::var_str("v", &mut kv);
    w.block(
        8,
        &label_list_block(1, &[&[(1, &activity), (10, &[9])], &[(5, &kv)]]),
    );
    w.event_block(&[
        Ev {
            metadata_id: 1,
            sequence: 1,
            thread: 1,
            capture_thread: 1,
            timestamp: 3_000,
            payload: b"alloc",
            ..Default::default()
        },
        Ev {
            metadata_id: 1,
            sequence: 1,
            thread: 2,
            capture_thread: 2,
            timestamp: 2_000,
            label_list: 1,
            payload: b"x",
            ..Default::default()
        },
        Ev {
            metadata_id: 2,
            sequence: 2,
            thread: 2,
            capture_thread: 2,
            timestamp: 2_500,
            label_list: 2,
            ..Default::default()
        },
    ]);
    w.block(99, &[1, 2, 3]); // unknown kind: skipped
                             // Thread 1 logged up to 3 (2 dropped); flag 2 flushes metadata.
    w.sequence_point(4_000, 2, &[(1, 3), (2, 2)]);
    w.metadata_block(&[V6::metadata_row(1, RUNTIME, 1, "", Some(2), None)]);
    w.event_block(&[Ev {
        metadata_id: 1,
        sequence: 4,
        thread: 1,
        capture_thread: 1,
        timestamp: 5_000,
        ..Default::default()
    }]);
    // RemoveThread: thread 2 ended at 5 (3 more dropped).
    let mut rm = Vec::new();
    writer::varu(2, &mut rm);
    writer::varu(5, &mut rm);
    w.block(7, &rm);
    w.end();
    w
}

#[test]
fn v6_hand_built_trace_decodes() {
    let w = v6_sample();
    let mut r = TraceReader::new();
    let mut ev = Vec::new();
    r.push(&w.buf, &mut |e| ev.push(own(e))).unwrap();
    r.finish(&mut |e| ev.push(own(e))).unwrap();
    let info = r.info().unwrap();
    assert_eq!(
        (
            info.format.as_str(),
            info.process_id,
            info.processor_count,
            info.pointer_size
        ),
        ("nettrace-v6", 777, 16, 8)
    );
    assert_eq!(info.sync_time_utc, [2024, 1, 2, 3, 4, 5, 6]);
    assert_eq!(ev.len(), 4);
    let e = &ev[0];
    assert_eq!(
        (
            e.name.as_str(),
            e.event_id,
            e.version,
            e.thread_id,
            e.timestamp
        ),
        ("GC/AllocationTick", 10, 9, 2002, 2_000),
        "label list version overrides"
    );
    assert!((e.time_ms - 1.5).abs() < 1e-9);
    let e = &ev[1];
    assert_eq!(
        (
            e.provider.as_str(),
            e.name.as_str(),
            e.version,
            e.capture_thread_id
        ),
        ("MyEventSource", "Work/Start", 0, 2002)
    );
    let e = &ev[2];
    assert_eq!(
        (
            e.name.as_str(),
            e.version,
            e.thread_id,
            e.payload.as_slice()
        ),
        ("GC/AllocationTick", 4, 1001, &b"alloc"[..])
    );
    let e = &ev[3];
    assert_eq!(
        (e.name.as_str(), e.event_id, e.version),
        ("GC/Start", 1, 2),
        "metadata id 1 redefined after the flush"
    );
    let s = r.stats();
    assert_eq!(s.dropped_events, 2 + 3);
    assert_eq!((s.metadata, s.sequence_points), (3, 1));
    // Chunking does not matter here either.
    for chunk in [1, 2, 5] {
        let (res, again, _) = decode(&w.buf, chunk);
        res.unwrap();
        assert_eq!(again, ev);
    }
}

#[test]
fn v6_rejects_newer_major_versions_and_blocks_before_the_trace_block() {
    let mut w = V6::new(0, 1, 8, &[]);
    w.end();
    let mut newer = w.buf.clone();
    newer[12] = 7;
    let (res, _, _) = decode(&newer, 64);
    assert!(matches!(res.unwrap_err().kind, ErrorKind::Unsupported(_)));
    // Swap in an event block first.
    let mut bad = w.buf[..20].to_vec();
    bad.extend_from_slice(&(2u32 << 24).to_le_bytes());
    let (res, _, _) = decode(&bad, 64);
    let e = res.unwrap_err();
    assert_eq!(e.offset, 20);
}

/// Cut a stream at and around every unit boundary: a cut exactly at a boundary is a clean end (but
/// for one right after the Trace object, before any block, which is a truncation there);
/// a cut inside a unit is `Truncated` at the cut, after at least the events of the clean cut before
/// it, and the complete events of a cut EventBlock are delivered too: a cut one byte before the next
/// boundary loses at most `lost_at_last_byte` events (0 for FastSerialization streams, where that
/// byte is the block's end tag; 1 for V6, where it is the last payload byte).
fn check_truncations(name: &str, bytes: &[u8], boundaries: &[usize], lost_at_last_byte: usize) {
    let full = decode(bytes, bytes.len()).1.len();
    let mut prev_events = 0;
    for (i, &b) in boundaries.iter().enumerate() {
        let (res, at_b, _) = decode(&bytes[..b], b);
        match res {
            // Right after the Trace object no block has begun: the stream was cut off there.
            Err(e) if i == 0 => {
                assert_eq!(
                    (e.offset, e.kind.clone()),
                    (
                        b as u64,
                        ErrorKind::Truncated {
                            what: "the first block after the Trace object"
                        }
                    ),
                    "{name}: a cut before the first block"
                );
                assert!(at_b.is_empty(), "{name}");
            }
            res => assert!(res.is_ok(), "{name}: clean cut at {b} gave {res:?}"),
        }
        assert!(
            at_b.len() >= prev_events,
            "{name}: fewer events at a later cut"
        );
        prev_events = at_b.len();
        let next = boundaries.get(i + 1).copied().unwrap_or(bytes.len());
        for cut in [b + 1, b + (next - b) / 2, next - 1] {
            if cut <= b || cut >= next {
                continue;
            }
            let (res, got, _) = decode(&bytes[..cut], 4096);
            let e = res.expect_err("a cut inside a unit must be an error");
            assert!(
                matches!(e.kind, ErrorKind::Truncated { .. }),
                "{name}: cut at {cut}: {e}"
            );
            assert_eq!(e.offset, cut as u64, "{name}: the error names the cut");
            assert!(
                got.len() >= at_b.len() && got.len() <= full,
                "{name}: cut at {cut}"
            );
            assert_eq!(&got[..at_b.len()].len(), &at_b.len());
            if cut == next - 1 {
                let (_, upto_next, _) = decode(&bytes[..next], next);
                assert!(
                    got.len() + lost_at_last_byte >= upto_next.len(),
                    "{name}: cut at {cut} delivered {} events, {} with the last byte",
                    got.len(),
                    upto_next.len()
                );
            }
        }
    }
}

#[test]
fn truncation_at_every_block_boundary_of_hand_built_traces() {
    let w = v4_sample();
    // Boundaries after the Trace object; the final NullReference tag is the last unit.
    let mut b: Vec<usize> = w.object_starts[1..].to_vec();
    b.push(w.buf.len() - 1);
    check_truncations("v4 sample", &w.buf, &b, 0);
    let w = v6_sample();
    check_truncations("v6 sample", &w.buf, &w.block_starts[1..], 1);
}

/// Object boundaries of a FastSerialization stream, found with an independent walk of the framing.
fn object_boundaries(bytes: &[u8]) -> Vec<usize> {
    let mut pos = if bytes.starts_with(b"Nettrace") { 8 } else { 0 } + 24;
    let mut out = Vec::new();
    while pos < bytes.len() && bytes[pos] != 1 {
        out.push(pos);
        let name_len = i32::from_le_bytes(bytes[pos + 11..pos + 15].try_into().unwrap()) as usize;
        let name = &bytes[pos + 15..pos + 15 + name_len];
        let body = pos + 16 + name_len;
        pos = if name == b"Trace" {
            body + 48 + 1
        } else {
            let size = i32::from_le_bytes(bytes[body..body + 4].try_into().unwrap()) as usize;
            let pad = (4 - (body + 4) % 4) % 4;
            body + 4 + pad + size + 1
        };
    }
    out.push(pos);
    out
}

#[test]
fn truncation_at_every_block_boundary_of_real_traces() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for file in [
        "traces/perfview/eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace.zip",
        "traces/public/dotnet6.0.9-win-x64-RememberCalendar.nettrace.zip",
        "traces/perfview/eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf.zip",
    ] {
        let zipped = std::fs::read(shared.join(file)).unwrap();
        let raw = common::unzip(&zipped);
        let b = object_boundaries(&raw);
        assert!(b.len() > 2, "{file}");
        // Skip the Trace object itself: a cut before it has no header, which is a different error.
        check_truncations(file, &raw, &b[1..], 0);
    }
}

#[test]
fn errors_are_sticky_and_carry_offsets() {
    let w = v4_sample();
    let mut bad = w.buf.clone();
    let at = w.object_starts[3];
    bad[at] = 9; // not an object tag
    let mut r = TraceReader::new();
    let e = r.push(&bad, &mut |_| {}).unwrap_err();
    assert_eq!(e.offset, at as u64);
    assert_eq!(r.push(b"more", &mut |_| {}).unwrap_err(), e);
    assert_eq!(r.finish(&mut |_| {}).unwrap_err(), e);
}

#[test]
fn not_a_trace_is_named() {
    let cases: [(&[u8], &str); 4] = [
        (b"\x89PNG\r\n\x1a\n0000000000000000", "PNG"),
        (b"{\"traceEvents\": []}", "JSON"),
        (b"", "empty"),
        (
            b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
            "empty .zip",
        ),
    ];
    for (bytes, what) in cases {
        let (res, ev, _) = decode(bytes, 3);
        let e = res.unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::NotATrace(ref s) if s.contains(what)),
            "{what}: {e}"
        );
        assert!(ev.is_empty());
    }
}

/// Deterministic pseudo-random mutations of real and hand-built traces: never a panic, every error
/// inside the input.
#[test]
fn corrupted_inputs_never_panic() {
    let mut inputs = vec![v4_sample().buf, v6_sample().buf];
    if let Some(shared) = common::shared_dir() {
        let zipped = std::fs::read(
            shared.join("traces/perfview/eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace.zip"),
        )
        .unwrap();
        inputs.push(zipped.clone());
        let mut raw = Vec::new();
        let mut u = gcscope_core::container::Unwrapper::new();
        u.push(&zipped, &mut |d| {
            raw.extend_from_slice(d);
            Ok(())
        })
        .unwrap();
        raw.truncate(200_000);
        inputs.push(raw);
    }
    // GCSCOPE_FUZZ_ROUNDS=100000 for a longer campaign.
    let rounds: usize = std::env::var("GCSCOPE_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for input in &inputs {
        for round in 0..rounds {
            let mut m = input.clone();
            for _ in 0..1 + round % 4 {
                let i = (rand() as usize) % m.len();
                m[i] = match round % 3 {
                    0 => rand() as u8,
                    1 => 0xff,
                    _ => m[i] ^ (1 << (rand() % 8)),
                };
            }
            let (res, _, stats) = decode(&m, 1 + (rand() as usize % 5000));
            if let Err(e) = res {
                assert!(
                    e.offset <= stats.trace_bytes.max(stats.bytes_in),
                    "error offset {} past the input",
                    e.offset
                );
            }
        }
    }
}

#[test]
fn gzip_and_zip_variants_unwrap_to_the_same_events() {
    let w = v4_sample();
    let (res, want, _) = decode(&w.buf, 1 << 20);
    res.unwrap();
    let deflated = miniz_oxide::deflate::compress_to_vec(&w.buf, 6);
    let crc = 0u32; // the reader does not verify CRCs

    // gzip with a file name, in two members? one member with FNAME.
    let mut gz = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
    gz.extend_from_slice(b"trace.nettrace\0");
    gz.extend_from_slice(&deflated);
    gz.extend_from_slice(&crc.to_le_bytes());
    gz.extend_from_slice(&(w.buf.len() as u32).to_le_bytes());

    let local = |name: &str, method: u16, flags: u16, csize: u32, usize_: u32| {
        let mut h = Vec::new();
        h.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        h.extend_from_slice(&20u16.to_le_bytes());
        h.extend_from_slice(&flags.to_le_bytes());
        h.extend_from_slice(&method.to_le_bytes());
        h.extend_from_slice(&[0; 4]); // time, date
        h.extend_from_slice(&crc.to_le_bytes());
        h.extend_from_slice(&csize.to_le_bytes());
        h.extend_from_slice(&usize_.to_le_bytes());
        h.extend_from_slice(&(name.len() as u16).to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        h.extend_from_slice(name.as_bytes());
        h
    };
    let central = 0x0201_4b50u32.to_le_bytes();
    // Stored entry after a stored README.
    let mut stored = local("README.txt", 0, 0, 5, 5);
    stored.extend_from_slice(b"hello");
    stored.extend_from_slice(&local(
        "dir/app.nettrace",
        0,
        0,
        w.buf.len() as u32,
        w.buf.len() as u32,
    ));
    stored.extend_from_slice(&w.buf);
    stored.extend_from_slice(&central);
    // Deflated entries with data descriptors (sizes only after the data), a non-trace one first.
    let other = miniz_oxide::deflate::compress_to_vec(b"some other file", 6);
    let mut described = local("notes.md", 8, 8, 0, 0);
    described.extend_from_slice(&other);
    described.extend_from_slice(&0x0807_4b50u32.to_le_bytes());
    described.extend_from_slice(&[0; 12]);
    described.extend_from_slice(&local("x.NETTRACE", 8, 8, 0, 0));
    described.extend_from_slice(&deflated);
    described.extend_from_slice(&0x0807_4b50u32.to_le_bytes());
    described.extend_from_slice(&[0; 12]);
    described.extend_from_slice(&central);

    for (what, bytes) in [
        ("gzip", &gz),
        ("stored zip", &stored),
        ("zip with data descriptors", &described),
    ] {
        for chunk in [1, 13, 1 << 20] {
            let (res, got, _) = decode(bytes, chunk);
            res.unwrap_or_else(|e| panic!("{what}, chunk {chunk}: {e}"));
            assert_eq!(got, want, "{what}, chunk {chunk}");
        }
    }

    // A zip without a trace says what it holds.
    let mut none = local("README.txt", 0, 0, 5, 5);
    none.extend_from_slice(b"hello");
    none.extend_from_slice(&central);
    let (res, _, _) = decode(&none, 7);
    assert!(
        matches!(res.unwrap_err().kind, ErrorKind::NotATrace(ref s) if s.contains("README.txt"))
    );
    // A zip cut inside the trace entry: truncated, after the events before the cut.
    let cut = &stored[..stored.len() - 40];
    let (res, got, _) = decode(cut, 4096);
    assert!(matches!(res.unwrap_err().kind, ErrorKind::Truncated { .. }));
    assert!(!got.is_empty() && got.len() <= want.len());
}
