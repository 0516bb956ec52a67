//! ETL decoding against files written by the test-only writer (`encode::etl`), where every event
//! is known: round trips (plain and compressed buffers, 32- and 64-bit records, extended items,
//! kernel records, any chunking), the merge of per-processor buffers (in order within the window,
//! counted when a buffer comes later than it), and hostile files: truncation at every buffer
//! boundary and inside buffers, corrupt buffer sizes, offsets, compression streams and records,
//! claimed sizes far beyond the file, random damage. Real files (../shared) are cut at every
//! buffer boundary too.
#![cfg(feature = "encode")]

mod common;

use gcscope_core::encode::etl::{EtlEvent, EtlWriter, Options};
use gcscope_core::error::{Error, ErrorKind};
use gcscope_core::etl::guid::Guid;
use gcscope_core::etl::names::{PRIVATE_GUID, RUNTIME_GUID};
use gcscope_core::event::Event;
use gcscope_core::{DecodeStats, TraceReader};

#[derive(Debug, Clone, PartialEq)]
struct Seen {
    provider: String,
    name: String,
    id: u32,
    version: u32,
    pid: u32,
    tid: u64,
    processor: u32,
    timestamp: i64,
    pointer_size: u8,
    payload: Vec<u8>,
}

fn seen(e: &Event<'_>) -> Seen {
    Seen {
        provider: e.provider.to_string(),
        name: e.name.to_string(),
        id: e.event_id,
        version: e.version,
        pid: e.process_id,
        tid: e.thread_id,
        processor: e.processor,
        timestamp: e.timestamp,
        pointer_size: e.pointer_size,
        payload: e.payload.to_vec(),
    }
}

/// Decodes `bytes` in `chunk`-byte pieces: the result, the events, the stats and the most bytes
/// the reader held at once.
fn decode(bytes: &[u8], chunk: usize) -> (Result<(), Error>, Vec<Seen>, DecodeStats, usize) {
    let mut r = TraceReader::new();
    let mut out = Vec::new();
    let mut held = 0;
    let mut res = Ok(());
    for piece in bytes.chunks(chunk.max(1)) {
        res = r.push(piece, &mut |e| out.push(seen(e)));
        held = held.max(r.buffered_bytes());
        if res.is_err() {
            break;
        }
    }
    if res.is_ok() {
        res = r.finish(&mut |e| out.push(seen(e)));
    }
    (res, out, r.stats().clone(), held)
}

const OTHER: Guid = Guid::new(0x1111_2222, 0x3333, 0x4444, [5, 6, 7, 8, 9, 10, 11, 12]);

/// A file of `n` events over 4 processors with distinct timestamps, and the events the decoder
/// must deliver, in timestamp order (after the logfile header, which is delivered too).
fn generated(n: usize, opts: Options) -> (Vec<u8>, Vec<Seen>) {
    let mut w = EtlWriter::new(opts);
    let mut expect = Vec::new();
    let mut out = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let cpu = (x % 4) as u32;
        let ts = opts.header_timestamp + 10 + i as i64 * 3;
        let payload: Vec<u8> = (0..(x % 90) as usize).map(|k| (k + i) as u8).collect();
        let tid = 100 + cpu;
        if i % 97 == 5 {
            // A kernel Process/Start record (pointer-size payload per the logger).
            w.kernel(cpu, 0x0301, 4, 7000, tid, ts, &payload);
            expect.push(Seen {
                provider: "Windows Kernel".into(),
                name: "Process/Start".into(),
                id: 0x0301,
                version: 4,
                pid: 7000,
                tid: tid as u64,
                processor: cpu,
                timestamp: ts,
                pointer_size: opts.pointer_size,
                payload,
            });
        } else {
            let (provider, guid, id, name) = match x % 3 {
                0 => (
                    "Microsoft-Windows-DotNETRuntime",
                    RUNTIME_GUID,
                    1u16,
                    "GC/Start",
                ),
                1 => (
                    "Microsoft-Windows-DotNETRuntimePrivate",
                    PRIVATE_GUID,
                    4,
                    "GC/PerHeapHistory",
                ),
                _ => (
                    "11112222-3333-4444-0506-0708090a0b0c",
                    OTHER,
                    77,
                    "EventID(77)",
                ),
            };
            let ptr = if x.is_multiple_of(5) { 4 } else { 8 };
            let ext: &[&[u8]] = match x % 7 {
                0 => &[b"abc"],
                1 => &[b"12345678", b"x"],
                _ => &[],
            };
            w.event(
                cpu,
                &EtlEvent {
                    provider: guid,
                    id,
                    version: (x % 3) as u8,
                    opcode: 1,
                    task: 1,
                    process_id: 4000 + (x % 2) as u32,
                    thread_id: tid,
                    timestamp: ts,
                    pointer_size: ptr,
                    extended: ext,
                    payload: &payload,
                },
            );
            expect.push(Seen {
                provider: provider.into(),
                name: name.into(),
                id: id as u32,
                version: (x % 3) as u32,
                pid: 4000 + (x % 2) as u32,
                tid: tid as u64,
                processor: cpu,
                timestamp: ts,
                pointer_size: ptr,
                payload,
            });
        }
        if i % 1000 == 999 {
            out.extend(w.drain());
        }
    }
    out.extend(w.finish());
    (out, expect)
}

fn without_header(events: &[Seen]) -> &[Seen] {
    assert_eq!(
        events[0].name, "EventTrace",
        "the logfile header comes first"
    );
    &events[1..]
}

#[test]
fn round_trips_plain_and_compressed() {
    for compressed in [false, true] {
        let opts = Options {
            compressed,
            ..Options::default()
        };
        let (bytes, expect) = generated(20_000, opts);
        for chunk in [1usize, 7, 4096, bytes.len()] {
            if chunk == 1 && bytes.len() > 3_000_000 {
                continue;
            }
            let (res, got, stats, _) = decode(&bytes, chunk);
            res.unwrap();
            assert_eq!(
                without_header(&got),
                &expect[..],
                "compressed {compressed} chunk {chunk}"
            );
            assert_eq!(stats.out_of_order_events, 0);
            assert_eq!(stats.skipped_events, 0);
        }
        eprintln!("compressed {compressed}: {} bytes", bytes.len());
    }
}

#[test]
fn merge_window_orders_late_buffers_and_counts_what_it_cannot() {
    // CPU 3 logs one early event and nothing else: its buffer is flushed last, at the end.
    let opts = Options {
        buffer_size: 4096,
        ..Options::default()
    };
    let mut w = EtlWriter::new(opts);
    fn ev(ts: i64, payload: &[u8]) -> EtlEvent<'_> {
        EtlEvent {
            provider: RUNTIME_GUID,
            id: 1,
            version: 2,
            opcode: 1,
            task: 1,
            process_id: 1,
            thread_id: 2,
            timestamp: ts,
            pointer_size: 8,
            extended: &[],
            payload,
        }
    }
    w.event(3, &ev(opts.header_timestamp + 1, b"early"));
    let filler = vec![0u8; 2000];
    let (small, big) = (2_000, 40_000);
    let mut bytes = Vec::new();
    for i in 0..big {
        w.event(i % 3, &ev(opts.header_timestamp + 10 + i as i64, &filler));
        if i == small {
            // A file of this many events still fits the window: exact order.
            let mut copy = bytes.clone();
            copy.extend(w.drain());
            bytes = copy;
        }
    }
    bytes.extend(w.finish());
    let (res, got, stats, held) = decode(&bytes, 1 << 20);
    res.unwrap();
    let got = without_header(&got);
    assert_eq!(got.len(), big as usize + 1);
    // 80 MB of events: the window released events before CPU 3's buffer came, so its event is
    // late; it is delivered and counted, and the reader held at most the window and one buffer.
    assert_eq!(stats.out_of_order_events, 1);
    assert!(
        held <= gcscope_core::etl::interleave::WINDOW_BYTES + 2 * 4096,
        "held {held}"
    );
    assert!(got.iter().any(|e| e.payload == b"early"));

    // A small file with the same late buffer: delivered first, in order.
    let mut w = EtlWriter::new(opts);
    w.event(3, &ev(opts.header_timestamp + 1, b"early"));
    for i in 0..small {
        w.event(i % 3, &ev(opts.header_timestamp + 10 + i as i64, &filler));
    }
    let bytes = w.finish();
    let (res, got, stats, _) = decode(&bytes, 4096);
    res.unwrap();
    let got = without_header(&got);
    assert_eq!(got[0].payload, b"early");
    assert!(got.windows(2).all(|w| w[0].timestamp <= w[1].timestamp));
    assert_eq!(stats.out_of_order_events, 0);
}

/// Uncompressed, one processor, fixed-size records: where every record ends is known, so a cut
/// anywhere must deliver exactly the records wholly before it.
#[test]
fn truncation_at_every_boundary_and_inside_buffers() {
    let opts = Options {
        buffer_size: 1024,
        processors: 1,
        ..Options::default()
    };
    let mut w = EtlWriter::new(opts);
    // 80-byte header + 40-byte payload = 120 bytes: 7 records per 1024-byte buffer.
    for i in 0..200u32 {
        w.event(
            0,
            &EtlEvent {
                provider: RUNTIME_GUID,
                id: 10,
                version: 4,
                opcode: 11,
                task: 1,
                process_id: 1,
                thread_id: 1,
                timestamp: opts.header_timestamp + 1 + i as i64,
                pointer_size: 8,
                extended: &[],
                payload: &[i as u8; 40],
            },
        );
    }
    let bytes = w.finish();
    let header_buffer = 1024;
    let expected = |cut: usize| -> usize {
        if cut < header_buffer {
            return 0;
        }
        let rest = cut - header_buffer;
        let (full, inside) = (rest / 1024, rest % 1024);
        let partial = if inside >= 72 {
            ((inside - 72) / 120).min(7)
        } else {
            0
        };
        1 + full * 7 + partial
    };
    // Below 76 bytes nothing says "ETW" yet: those are named as not a trace (hostile_inputs.rs).
    for cut in (80..=bytes.len())
        .step_by(8)
        .chain([bytes.len() - 1, 1023, 1025, 2047])
    {
        let (res, got, _, held) = decode(&bytes[..cut], 333);
        assert!(held <= 64 << 10, "cut {cut}: held {held}");
        let want = expected(cut).min(201);
        assert_eq!(got.len(), want, "cut at {cut}");
        let boundary = cut >= header_buffer && (cut - header_buffer) % 1024 == 0;
        match res {
            Ok(()) => assert!(boundary, "cut at {cut} inside a buffer read as complete"),
            Err(Error {
                kind: ErrorKind::Truncated { .. },
                offset,
            }) => {
                assert!(!boundary, "cut at {cut}");
                assert_eq!(offset as usize, cut, "the cut's offset");
            }
            Err(e) => panic!("cut at {cut}: {e}"),
        }
    }
}

fn small_file(compressed: bool) -> Vec<u8> {
    generated(
        300,
        Options {
            buffer_size: 2048,
            compressed,
            ..Options::default()
        },
    )
    .0
}

/// Buffer starts of a file (the decoder's framing, redone here from docs/reference/formats.md,
/// "Buffers" and "Compressed buffers").
fn buffer_starts(bytes: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos + 4 <= bytes.len() {
        out.push(pos);
        pos += u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
    }
    out
}

#[test]
fn corrupt_buffer_headers_are_errors_at_their_offset() {
    for compressed in [false, true] {
        let bytes = small_file(compressed);
        let (_, all, _, _) = decode(&bytes, bytes.len());
        let starts = buffer_starts(&bytes);
        let b = starts[3];
        // (field offset, value, what the error is about)
        let cases: &[(usize, u32)] = &[
            (0, 0),
            (0, 71),
            (0, (16 << 20) + 1),
            (0x30, 10),
            (0x30, 1 << 25),
        ];
        for &(field, value) in cases {
            let mut bad = bytes.clone();
            bad[b + field..b + field + 4].copy_from_slice(&value.to_le_bytes());
            let (res, got, _, held) = decode(&bad, 4096);
            let e = res.expect_err("corrupt header accepted");
            assert!(matches!(e.kind, ErrorKind::Malformed(_)), "{e}");
            assert_eq!(e.offset as usize, b + field, "{e}");
            // The events of the buffers before it were delivered.
            assert!(got.len() >= 3, "{} events before the bad buffer", got.len());
            assert!(got.len() < all.len());
            assert!(held <= 1 << 20);
        }
        // A size beyond the end of the file: the cut buffer, not a claim to allocate.
        let mut bad = bytes.clone();
        bad[b..b + 4].copy_from_slice(&(16u32 << 20).to_le_bytes());
        let (res, _, _, held) = decode(&bad, 4096);
        assert!(
            matches!(
                res,
                Err(Error {
                    kind: ErrorKind::Truncated { .. },
                    ..
                })
            ),
            "{res:?}"
        );
        assert!(
            held <= bad.len(),
            "held {held} of a {}-byte file",
            bad.len()
        );
    }
    // A first record that is not the logfile header (HookId 0x0301 instead of 0): named.
    let mut bad = small_file(false);
    bad[72 + 6..72 + 8].copy_from_slice(&0x0301u16.to_le_bytes());
    let (res, got, _, _) = decode(&bad, 4096);
    assert!(got.is_empty());
    let e = res.unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::NotATrace(ref w) if w.contains("logfile header")),
        "{e}"
    );
    // An uncompressed buffer whose records end past its size.
    let bytes = small_file(false);
    let b = buffer_starts(&bytes)[2];
    let mut bad = bytes.clone();
    bad[b + 0x30..b + 0x34].copy_from_slice(&3000u32.to_le_bytes());
    let (res, _, _, _) = decode(&bad, 4096);
    assert_eq!(res.unwrap_err().offset as usize, b + 0x30);
}

#[test]
fn corrupt_records_and_compression_streams() {
    // A record of an unknown header type: the rest of its buffer is skipped and counted, the
    // buffers after it are read.
    let bytes = small_file(false);
    let (_, all, _, _) = decode(&bytes, bytes.len());
    let b = buffer_starts(&bytes)[2];
    let mut bad = bytes.clone();
    bad[b + 72 + 2] = 0x77;
    let (res, got, stats, _) = decode(&bad, 4096);
    res.unwrap();
    assert_eq!(stats.skipped_events, 1);
    assert!(got.len() < all.len() && got.len() > all.len() / 2);
    // A record size past its buffer's records.
    let mut bad = bytes.clone();
    // EVENT_HEADER records say their size first, system records after their marker.
    let size_at = if matches!(bytes[b + 74], 0x12 | 0x13) {
        0
    } else {
        4
    };
    bad[b + 72 + size_at..b + 74 + size_at].copy_from_slice(&4000u16.to_le_bytes());
    let (res, _, stats, _) = decode(&bad, 4096);
    res.unwrap();
    assert_eq!(stats.skipped_events, 1);

    // Compressed buffers with damaged streams: an error at the buffer (or a skipped record when
    // the damage still decompresses), never a panic, and the buffers before it delivered.
    let bytes = small_file(true);
    let starts = buffer_starts(&bytes);
    let b = starts[4];
    let end = starts[5];
    let mut x = 12345u64;
    let mut errors = 0;
    for _ in 0..400 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut bad = bytes.clone();
        let at = b + 72 + (x as usize % (end - b - 72));
        bad[at] ^= (x >> 32) as u8 | 1;
        let (res, got, _, _) = decode(&bad, 1000);
        if let Err(e) = res {
            errors += 1;
            assert!(
                (b..end).contains(&(e.offset as usize)),
                "{e} outside buffer {b}..{end}"
            );
            assert!(got.len() >= 4);
        }
    }
    eprintln!("{errors} of 400 damaged compressed buffers were errors");
    assert!(errors > 0);
}

#[test]
fn random_damage_never_panics_and_stays_bounded() {
    for compressed in [false, true] {
        let bytes = small_file(compressed);
        let mut x = 0xdead_beefu64;
        for round in 0..300 {
            let mut bad = bytes.clone();
            for _ in 0..(1 + round % 8) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let at = x as usize % bad.len();
                bad[at] = (x >> 40) as u8;
            }
            let cut = bad.len() - (x as usize >> 3) % (bad.len() / 4);
            let (_, _, _, held) = decode(&bad[..cut], [1, 64, 5000][round % 3]);
            // Every held event costs its payload and a 32-byte index entry; records are 16 bytes
            // at least, so the window can never hold more than 3 times the bytes read.
            assert!(held <= 3 * bad.len(), "held {held}");
        }
    }
}

/// The real files, unzipped by the crate's container layer, cut at every buffer boundary: Ok there
/// with ever more events, the whole file's at the end; cut inside each buffer: Truncated.
#[test]
fn real_files_cut_at_every_buffer() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for name in ["gcevents", "net.4.5.2.x86"] {
        let zipped = std::fs::read(shared.join(format!("traces/perfview/{name}.etl.zip"))).unwrap();
        let etl = common::unzip(&zipped);
        let (res, all, _, _) = decode(&etl, 1 << 20);
        res.unwrap();
        let starts = buffer_starts(&etl);
        let mut last = 0;
        for (i, &b) in starts.iter().enumerate().skip(1) {
            let (res, got, _, _) = decode(&etl[..b], 1 << 16);
            res.unwrap_or_else(|e| panic!("{name} cut at buffer {i}: {e}"));
            assert!(got.len() >= last, "{name}: fewer events with more buffers");
            last = got.len();
            let mid = b + (starts.get(i + 1).copied().unwrap_or(etl.len()) - b) / 2;
            let (res, got, _, _) = decode(&etl[..mid], 1 << 16);
            assert!(
                matches!(
                    res,
                    Err(Error {
                        kind: ErrorKind::Truncated { .. },
                        ..
                    })
                ),
                "{res:?}"
            );
            assert!(got.len() >= last);
        }
        assert!(last <= all.len());
        eprintln!(
            "{name}: {} buffers cut, {} events in all",
            starts.len(),
            all.len()
        );
    }
}

/// PerfView's unmerged .etl.zip: the main file, then its kernel companion (which names the
/// process), and an .etl of another recording (another boot). The companion's events follow the
/// main file's, not counted as late; the process gets its name; the other file is left out, and
/// the reader says so (core/tests/etl_zip_members.rs pairs members whatever their names).
#[test]
fn etl_zip_with_companions() {
    let opts = Options::default();
    let mut main = EtlWriter::new(opts);
    for i in 0..50u32 {
        main.event(
            i % 2,
            &EtlEvent {
                provider: RUNTIME_GUID,
                id: 187,
                version: 0,
                opcode: 1,
                task: 19,
                process_id: 4242,
                thread_id: 7,
                timestamp: opts.header_timestamp + 100 + i as i64,
                pointer_size: 8,
                extended: &[],
                payload: &[0; 30],
            },
        );
    }
    let main = main.finish();
    let mut kernel = EtlWriter::new(opts);
    // Process/DCStart, version 4, 64-bit: key, pid, ppid, session, exit, dtb, flags, no SID, name.
    let mut p = vec![0u8; 8];
    for v in [4242u32, 1, 1, 0] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    p.extend_from_slice(&[0; 8]);
    p.extend_from_slice(&[0; 8]);
    p.extend_from_slice(b"MyApp.exe\0");
    p.extend_from_slice(&[b'M', 0, 0, 0]);
    kernel.kernel(0, 0x0303, 4, 0, 0, opts.header_timestamp + 5, &p);
    let kernel = kernel.finish();
    let mut other = EtlWriter::new(Options {
        boot_time: opts.boot_time - 1,
        ..opts
    });
    other.kernel(0, 0x0303, 4, 0, 0, opts.header_timestamp + 5, &p);
    let zip = common::stored_zip(&[
        ("trace/PerfViewData.etl", &main),
        ("trace/PerfViewData.kernel.etl", &kernel),
        ("trace/Other.etl", &other.finish()),
    ]);
    for chunk in [1usize, 100, zip.len()] {
        let mut r = TraceReader::new();
        let mut router = gcscope_core::gc::ProcessRouter::new();
        let mut names = Vec::new();
        let mut sink = |info: &gcscope_core::event::TraceInfo, e: &Event<'_>| {
            names.push(e.name.to_string());
            router.on_event(info, e);
        };
        for piece in zip.chunks(chunk) {
            r.push_with_info(piece, &mut sink).unwrap();
        }
        r.finish_with_info(&mut sink).unwrap();
        // Main: header + 50 events; companion: header + DCStart, after them.
        assert_eq!(names.len(), 53, "chunk {chunk}");
        assert_eq!(names[51], "EventTrace");
        assert_eq!(names[52], "Process/DCStart");
        assert_eq!(r.stats().out_of_order_events, 0);
        assert_eq!(
            r.trace_entries().unwrap(),
            &["trace/PerfViewData.etl".to_string()]
        );
        assert_eq!(r.stats().left_out_files.len(), 1);
        assert!(r.stats().left_out_files[0].starts_with("'trace/Other.etl' is left out"));
        let _ = router.take(4242).expect("the process has a model");
    }
    let mut r = TraceReader::new();
    let mut router = gcscope_core::gc::ProcessRouter::new();
    r.push_with_info(&zip, &mut |i, e| router.on_event(i, e))
        .unwrap();
    r.finish_with_info(&mut |i, e| router.on_event(i, e))
        .unwrap();
    let (model, _) = router.finish(4242, Some(r.stats())).unwrap();
    assert_eq!(model.process.process_name.as_deref(), Some("MyApp"));
}
