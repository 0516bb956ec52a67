//! Crafted and corrupted inputs: lengths pointing past the end, huge counts, deep nesting, metadata
//! ids never defined, invalid UTF-16, random bytes behind every magic. Each must end in a clear error
//! or skipped events (counted), never a panic, an allocation out of proportion to the bytes present
//! (measured with a counting allocator: a ~1 KB input may not make the decoder hold more than 4 MiB),
//! or a loop that does not advance (every input here, fed one byte at a time, finishes quickly).

mod common;

use common::writer::{event_block_content, metadata_payload, utf16z, varu, Ev, V4, V6};
use gcscope_core::error::ErrorKind;
use gcscope_core::gc::ModelBuilder;
use gcscope_core::{event::TraceInfo, DecodeStats, TraceReader};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts live heap bytes per thread (tests run on parallel threads) and remembers the peak.
struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn track(delta: isize) {
    let _ = LIVE.try_with(|l| {
        let v = (l.get() as isize + delta).max(0) as usize;
        l.set(v);
        let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        track(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        track(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        track(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const PEAK_LIMIT: usize = 4 << 20;

struct Outcome {
    result: Result<(), gcscope_core::error::Error>,
    stats: DecodeStats,
    events: u64,
    /// Most heap bytes held at once while decoding (above what was held before).
    peak: usize,
}

/// Decodes `bytes` in `chunk`-byte pieces into the GC model, measuring the heap.
fn decode(bytes: &[u8], chunk: usize) -> Outcome {
    let base = LIVE.with(|l| l.get());
    PEAK.with(|p| p.set(base));
    let mut r = TraceReader::new();
    let mut model = ModelBuilder::new(&TraceInfo::default());
    let mut events = 0;
    let mut sink = |e: &gcscope_core::event::Event<'_>| {
        events += 1;
        model.on_event(e);
    };
    let mut result = Ok(());
    for piece in bytes.chunks(chunk.max(1)) {
        result = r.push(piece, &mut sink);
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        result = r.finish(&mut sink);
    }
    let stats = r.stats().clone();
    drop(model.finish(Some(&stats)));
    drop(r);
    let peak = PEAK.with(|p| p.get()) - base;
    if let Err(e) = &result {
        assert!(
            e.offset <= bytes.len() as u64 + stats.trace_bytes,
            "error past the input: {e}"
        );
    }
    Outcome {
        result,
        stats,
        events,
        peak,
    }
}

/// Every chunking gives the same outcome, within the memory limit; returns the whole-input one.
fn check(name: &str, bytes: &[u8]) -> Outcome {
    assert!(
        bytes.len() <= 4096,
        "{name}: crafted inputs stay small ({} bytes)",
        bytes.len()
    );
    let whole = decode(bytes, bytes.len());
    for chunk in [1, 3, 64] {
        let t = std::time::Instant::now();
        let o = decode(bytes, chunk);
        assert!(
            t.elapsed().as_secs() < 5,
            "{name}: {chunk}-byte chunks took {:?}",
            t.elapsed()
        );
        assert_eq!(
            o.events, whole.events,
            "{name}: chunking changed the events"
        );
        assert_eq!(
            o.result.is_ok(),
            whole.result.is_ok(),
            "{name}: {:?} vs {:?}",
            o.result,
            whole.result
        );
        assert!(
            o.peak < PEAK_LIMIT,
            "{name}: {chunk}-byte chunks held {} bytes",
            o.peak
        );
    }
    assert!(whole.peak < PEAK_LIMIT, "{name}: held {} bytes", whole.peak);
    whole
}

fn v4_with_metadata() -> V4 {
    let mut w = V4::new(0, 10_000_000, 8);
    w.metadata_block(&[metadata_payload(
        1,
        "Microsoft-Windows-DotNETRuntime",
        1,
        "",
        2,
        None,
    )]);
    w
}

/// An object envelope `Begin Begin NullRef version minReader name End` (the framing, by hand).
fn object_header(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(&[5, 5, 1]);
    out.extend_from_slice(&2i32.to_le_bytes());
    out.extend_from_slice(&2i32.to_le_bytes());
    out.extend_from_slice(&(name.len() as i32).to_le_bytes());
    out.extend_from_slice(name.as_bytes());
    out.push(6);
}

#[test]
fn lengths_past_the_end_wait_for_bytes_that_never_come() {
    // An EventBlock claiming 2 GB: the reader buffers what is present, then reports the cut.
    let mut w = v4_with_metadata();
    object_header(&mut w.buf, "EventBlock");
    w.buf.extend_from_slice(&i32::MAX.to_le_bytes());
    w.buf.extend_from_slice(&[0xab; 600]);
    let o = check("2 GB block", &w.buf);
    let e = o.result.unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::Truncated { what: "EventBlock" }),
        "{e}"
    );

    // A V6 block of the largest size (16 MB).
    let mut v = V6::new(0, 10_000_000, 8, &[]);
    v.buf
        .extend_from_slice(&(2u32 << 24 | 0xff_ffff).to_le_bytes());
    v.buf.extend_from_slice(&[0x11; 500]);
    let e = check("16 MB V6 block", &v.buf).result.unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");

    // A compressed event whose payload size is 4 GB, inside a small block.
    let mut w = v4_with_metadata();
    let mut rows = vec![0x80 | 0x01]; // DATA_LENGTH | METADATA_ID
    varu(1, &mut rows);
    varu(100, &mut rows); // timestamp delta
    varu(u32::MAX as u64, &mut rows);
    rows.extend_from_slice(&[0; 40]);
    w.block("EventBlock", &event_block_content(&rows, true));
    w.end();
    let e = check("4 GB payload", &w.buf).result.unwrap_err();
    assert!(e.to_string().contains("payload"), "{e}");

    // A V1/V2-style inline event (netperf) whose size is near u32::MAX.
    let mut b = b"\x14\0\0\0!FastSerialization.1".to_vec();
    object_header(&mut b, "Microsoft.DotNet.Runtime.EventPipeFile");
    let fix = b.len() - 5 - "Microsoft.DotNet.Runtime.EventPipeFile".len() - 4 - 4;
    b[fix..fix + 4].copy_from_slice(&2i32.to_le_bytes()); // Trace version 2 (inline events)
    b.extend_from_slice(&[0; 16]); // SYSTEMTIME
    b.extend_from_slice(&0i64.to_le_bytes());
    b.extend_from_slice(&10_000_000i64.to_le_bytes());
    b.extend_from_slice(&8i32.to_le_bytes());
    b.extend_from_slice(&(u32::MAX - 8).to_le_bytes());
    b.extend_from_slice(&[7; 300]);
    check("4 GB inline event", &b);

    // Zip: a local header whose name and extra are 64 KB each, and a zip64 size that is not there.
    let mut z = b"PK\x03\x04".to_vec();
    z.extend_from_slice(&[20, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    z.extend_from_slice(&u32::MAX.to_le_bytes());
    z.extend_from_slice(&u32::MAX.to_le_bytes());
    z.extend_from_slice(&u16::MAX.to_le_bytes());
    z.extend_from_slice(&u16::MAX.to_le_bytes());
    z.extend_from_slice(&[b'a'; 900]);
    let e = check("zip header past the end", &z).result.unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");

    // gzip with a 64 KB extra field.
    let mut g = vec![0x1f, 0x8b, 8, 0x04, 0, 0, 0, 0, 0, 3, 0xff, 0xff];
    g.extend_from_slice(&[1; 900]);
    let e = check("gzip extra past the end", &g).result.unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
}

#[test]
fn huge_counts_are_bounded_by_the_bytes_present() {
    let counted = |name: &str, content: &[u8]| {
        let mut w = v4_with_metadata();
        w.block(name, content);
        w.end();
        check(name, &w.buf).result.unwrap_err()
    };
    let mut stacks = 1u32.to_le_bytes().to_vec();
    stacks.extend_from_slice(&u32::MAX.to_le_bytes());
    stacks.extend_from_slice(&[0; 64]);
    let e = counted("StackBlock", &stacks);
    assert!(
        matches!(
            e.kind,
            ErrorKind::Truncated { .. } | ErrorKind::Malformed(_)
        ),
        "{e}"
    );
    let mut sp = 0i64.to_le_bytes().to_vec();
    sp.extend_from_slice(&u32::MAX.to_le_bytes());
    sp.extend_from_slice(&[0; 60]);
    let e = counted("SPBlock", &sp);
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");

    // V6: a label-list block promising 4 billion lists, a thread block of empty rows.
    let mut v = V6::new(0, 10_000_000, 8, &[("k", "v")]);
    let mut ll = 1u32.to_le_bytes().to_vec();
    ll.extend_from_slice(&u32::MAX.to_le_bytes());
    ll.extend_from_slice(&[0x80 | 7, 1].repeat(100)); // opcode labels, each list one label
    v.block(8, &ll);
    let e = check("label lists", &v.buf).result.unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
}

#[test]
fn deep_nesting_does_not_exhaust_the_stack() {
    // V4 metadata whose field list nests structs 300 deep: only the optional opcode is given up.
    let mut p = metadata_payload(1, "Deep", 7, "Nested", 0, None);
    p.truncate(p.len() - 4); // drop the field count
    for _ in 0..300 {
        p.extend_from_slice(&1u32.to_le_bytes()); // one field
        p.extend_from_slice(&1i32.to_le_bytes()); // of type Object
    }
    let mut w = V4::new(0, 10_000_000, 8);
    w.metadata_block(&[p]);
    w.event_block(&[Ev {
        metadata_id: 1,
        ..Default::default()
    }]);
    w.end();
    let o = check("V4 deep fields", &w.buf);
    o.result.unwrap();
    assert_eq!(o.events, 1, "the event is still read");

    // V6 field types nested 400 deep (array of array of ...): a clear error.
    let mut row = Vec::new();
    varu(1, &mut row);
    common::writer::var_str("Deep", &mut row);
    varu(7, &mut row);
    common::writer::var_str("Nested", &mut row);
    row.extend_from_slice(&1u16.to_le_bytes()); // one field
    let mut field = Vec::new();
    common::writer::var_str("f", &mut field);
    field.extend(std::iter::repeat_n(19u8, 400)); // array of ...
    field.push(8);
    row.extend_from_slice(&(field.len() as u16).to_le_bytes());
    row.extend_from_slice(&field);
    let mut block = 0u16.to_le_bytes().to_vec();
    block.extend_from_slice(&(row.len() as u16).to_le_bytes());
    block.extend_from_slice(&row);
    let mut v = V6::new(0, 10_000_000, 8, &[]);
    v.block(3, &block);
    let e = check("V6 deep types", &v.buf).result.unwrap_err();
    assert!(e.to_string().contains("nested too deeply"), "{e}");
}

#[test]
fn events_with_undefined_metadata_are_skipped_and_counted() {
    let mut w = v4_with_metadata();
    let evs: Vec<Ev> = (0..10)
        .map(|i| Ev {
            metadata_id: if i % 2 == 0 { 1 } else { 999 + i },
            sequence: i + 1,
            timestamp: 100 + i as i64,
            payload: &[],
            ..Default::default()
        })
        .collect();
    w.event_block(&evs);
    w.end();
    let o = check("undefined metadata", &w.buf);
    o.result.unwrap();
    assert_eq!((o.events, o.stats.skipped_events), (5, 5));
}

#[test]
fn invalid_utf16_becomes_replacement_characters() {
    // A provider name with a lone high surrogate, an event name with a lone low surrogate.
    let mut p = 1u32.to_le_bytes().to_vec();
    p.extend_from_slice(&[0x41, 0, 0x00, 0xd8, 0x42, 0, 0, 0]); // "A\u{d800}B"
    p.extend_from_slice(&5u32.to_le_bytes());
    p.extend_from_slice(&[0x00, 0xdc, 0x43, 0, 0, 0]); // "\u{dc00}C"
    p.extend_from_slice(&[0; 16]);
    let mut w = V4::new(0, 10_000_000, 8);
    w.metadata_block(&[p]);
    w.event_block(&[Ev {
        metadata_id: 1,
        ..Default::default()
    }]);
    w.end();
    let mut names = Vec::new();
    let mut r = TraceReader::new();
    r.push(&w.buf, &mut |e| {
        names.push((e.provider.to_string(), e.name.to_string()))
    })
    .unwrap();
    r.finish(&mut |e| names.push((e.provider.to_string(), e.name.to_string())))
        .unwrap();
    assert_eq!(names, [("A\u{fffd}B".to_string(), "\u{fffd}C".to_string())]);
    check("invalid UTF-16", &w.buf).result.unwrap();
}

#[test]
fn random_bytes_behind_every_magic_never_panic_or_balloon() {
    let mut seed = 0x1234_5678_9abc_def1u64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let v4 = v4_with_metadata().buf;
    let v6 = V6::new(0, 10_000_000, 8, &[]).buf;
    let prefixes: [&[u8]; 6] = [
        &v4,
        &v6,
        b"\x14\0\0\0!FastSerialization.1",
        b"PK\x03\x04",
        b"\x1f\x8b\x08\x00\0\0\0\0\0\x03",
        &utf16z("Nettrace"),
    ];
    let mut worst = 0;
    for (i, prefix) in prefixes.iter().enumerate() {
        for round in 0..150 {
            let mut b = prefix.to_vec();
            let n = 1024usize.saturating_sub(b.len());
            // Mostly random, sometimes runs of 0xff / 0x00 (huge / empty lengths and counts).
            b.extend((0..n).map(|k| match (round + k / 64) % 4 {
                0 => 0xff,
                1 => 0,
                _ => rand() as u8,
            }));
            for chunk in [1, 17, 1024] {
                let o = decode(&b, chunk);
                assert!(
                    o.peak < PEAK_LIMIT,
                    "prefix {i} round {round}: held {} bytes",
                    o.peak
                );
                worst = worst.max(o.peak);
            }
        }
    }
    eprintln!("most heap held for a 1 KB input: {worst} bytes");
}
