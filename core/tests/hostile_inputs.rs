//! Inputs that are not traces we read: each is named (what it is, what to do), never decoded as
//! garbage, never a panic. Plus .zip archives holding several traces: the first is read, all are
//! listed, and any one can be opened by number.

mod common;

use gcscope_core::error::{Error, ErrorKind};
use gcscope_core::{event::Event, TraceReader};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/traces")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Decodes `bytes` in `chunk`-byte pieces: (result, events, the reader for its listings).
fn decode(bytes: &[u8], chunk: usize, entry: usize) -> (Result<(), Error>, u64, TraceReader) {
    let mut r = TraceReader::with_entry(entry);
    let mut n = 0u64;
    let mut sink = |_: &Event<'_>| n += 1;
    let mut res = Ok(());
    for piece in bytes.chunks(chunk.max(1)) {
        res = r.push(piece, &mut sink);
        if res.is_err() {
            break;
        }
    }
    if res.is_ok() {
        res = r.finish(&mut sink);
    }
    (res, n, r)
}

fn not_a_trace(bytes: &[u8]) -> String {
    for chunk in [1, 7, bytes.len().max(1)] {
        let (res, n, _) = decode(bytes, chunk, 0);
        assert_eq!(n, 0, "no events from a non-trace");
        match res {
            Err(Error {
                kind: ErrorKind::NotATrace(what),
                ..
            }) => {
                if chunk == bytes.len().max(1) {
                    return what;
                }
            }
            other => panic!("expected NotATrace, got {other:?}"),
        }
    }
    unreachable!()
}

#[test]
fn images_documents_and_empty_files_are_named() {
    let cases: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10", "PNG"),
        (b"\xff\xd8\xff\xe0\0\x10JFIF\0\x01\x01", "JPEG"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "PDF"),
        (b"", "empty"),
        (b"<!DOCTYPE html><html><script>alert(1)</script>", "HTML"),
    ];
    for (bytes, what) in cases {
        let msg = not_a_trace(bytes);
        assert!(msg.contains(what), "{what}: {msg}");
    }
}

#[test]
fn speedscope_and_chromium_exports_say_what_they_are() {
    // dotnet-trace convert --format speedscope / chromium write these (first bytes as written).
    let speedscope = br#"{"exporter": "speedscope@1.1.0", "name": "app.nettrace", "activeProfileIndex": 0, "$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": []}}"#;
    let msg = not_a_trace(speedscope);
    assert!(msg.contains("speedscope"), "{msg}");
    assert!(
        msg.contains(".nettrace"),
        "says what to open instead: {msg}"
    );
    let chromium =
        br#"[{"name": "Process", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "x"}}]"#;
    let msg = not_a_trace(chromium);
    assert!(msg.contains("JSON"), "{msg}");
}

#[test]
fn a_gcdump_is_named_as_a_heap_snapshot() {
    // A .gcdump is a FastSerialization stream like a .netperf, but its root object is the heap dump
    // (PerfView's GCHeapDump type), not a trace. Header and object envelope as the framing defines.
    let mut b = b"\x14\0\0\0!FastSerialization.1".to_vec();
    b.extend_from_slice(&[5, 5, 1]);
    b.extend_from_slice(&9i32.to_le_bytes());
    b.extend_from_slice(&8i32.to_le_bytes());
    b.extend_from_slice(&10i32.to_le_bytes());
    b.extend_from_slice(b"GCHeapDump");
    b.push(6);
    b.extend_from_slice(&[0x55; 64]);
    let msg = not_a_trace(&b);
    assert!(msg.contains(".gcdump"), "{msg}");
    assert!(msg.contains("GCHeapDump"), "{msg}");
}

#[test]
fn perfcollect_zips_are_named_and_etl_zips_are_read() {
    // perfcollect: <name>.trace.zip with only perf's samples, no LTTng trace.
    let perf = common::stored_zip(&[
        ("sample.trace/perf.data", b"PERFILE2"),
        ("sample.trace/perfcollect.log", b"log"),
    ]);
    let msg = not_a_trace(&perf);
    assert!(
        msg.contains("perfcollect") && msg.contains("dotnet-trace") && msg.contains("perf.data"),
        "{msg}"
    );
    // An LTTng trace with no runtime event (here: metadata only) names the causes.
    let empty = common::stored_zip(&[(
        "app.trace/lttngTrace/ust/uid/0/64-bit/metadata",
        b"/* CTF 1.8 */",
    )]);
    let msg = not_a_trace(&empty);
    assert!(
        msg.contains("perfcollect") && msg.contains("dotnet-trace"),
        "{msg}"
    );
    // An LTTng (CTF) trace is read; damaged metadata is named, with its offset.
    let ctf = common::stored_zip(&[
        ("sample.trace/perf.data.txt", b"not much"),
        (
            "sample.trace/lttngTrace/auto-20240101/ust/uid/0/64-bit/metadata",
            b"/* CTF 1.8 */\x57\x1d\xd1\x75",
        ),
        (
            "sample.trace/lttngTrace/auto-20240101/ust/uid/0/64-bit/DotNETRuntime_0",
            &[0xc1, 0x1f, 0xfc, 0xc1],
        ),
    ]);
    let (res, n, _) = decode(&ctf, 4096, 0);
    let err = res.unwrap_err();
    assert_eq!(n, 0);
    assert!(err.to_string().contains("CTF metadata"), "{err}");

    // An .etl entry that is not an ETW file is read as one and found not to be a trace.
    let etl_zip = common::stored_zip(&[("gcevents/PerfViewData.etl", &[0u8; 200])]);
    let msg = not_a_trace(&etl_zip);
    assert!(msg.contains("zero bytes"), "{msg}");

    // A real PerfView .etl.zip (deflated) and the .etl inside it are read (etl_baselines.rs checks
    // what is read).
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let zipped = std::fs::read(shared.join("traces/perfview/gcevents.etl.zip")).unwrap();
    let etl = first_zip_entry(&zipped);
    for bytes in [&zipped[..], &etl[..]] {
        let (res, n, r) = decode(bytes, 4096, 0);
        res.unwrap();
        assert_eq!(n, 71);
        assert!(r.info().unwrap().format.starts_with("etl"));
    }
}

/// The first entry of a .zip, inflated here with miniz_oxide directly (independent of gcscope's zip
/// reader).
fn first_zip_entry(zip: &[u8]) -> Vec<u8> {
    let le16 = |i: usize| u16::from_le_bytes([zip[i], zip[i + 1]]) as usize;
    let le32 = |i: usize| u32::from_le_bytes(zip[i..i + 4].try_into().unwrap()) as usize;
    assert_eq!(le32(0), 0x0403_4b50);
    let (method, csize) = (le16(8), le32(18));
    let start = 30 + le16(26) + le16(28);
    let data = &zip[start..start + csize];
    match method {
        0 => data.to_vec(),
        8 => miniz_oxide::inflate::decompress_to_vec(data).expect("inflate"),
        m => panic!("method {m}"),
    }
}

#[test]
fn a_zip_with_several_traces_lists_them_and_opens_any() {
    let a = fixture("net8.0/induced.nettrace");
    let b = fixture("netcore3.1/induced.nettrace");
    let count = |bytes: &[u8]| decode(bytes, bytes.len(), 0).1;
    let (na, nb) = (count(&a), count(&b));
    assert_ne!(
        na, nb,
        "the two fixtures must be told apart by their event counts"
    );
    let zip = common::stored_zip(&[
        ("readme.txt", b"two runs"),
        ("runs/net8.nettrace", &a),
        ("__MACOSX/runs/._net8.nettrace", b"resource fork"),
        ("runs/core31.nettrace", &b),
    ]);
    let names = ["runs/net8.nettrace", "runs/core31.nettrace"];
    for chunk in [1 << 20, 4096, 1] {
        let (res, n, r) = decode(&zip, chunk, 0);
        res.unwrap();
        assert_eq!(n, na, "the first trace is read by default");
        assert_eq!(r.trace_entries().unwrap(), names);
        let (res, n, r) = decode(&zip, chunk, 1);
        res.unwrap();
        assert_eq!(n, nb, "entry 1 is the second trace");
        assert_eq!(r.trace_entries().unwrap(), names);
    }
    let (res, n, _) = decode(&zip, 4096, 2);
    let e = res.unwrap_err();
    assert!(
        matches!(&e.kind, ErrorKind::NotATrace(m) if m.contains("2 trace") && m.contains("core31")),
        "{e}"
    );
    assert_eq!(n, 0);
    // A plain trace has no entry list.
    let (res, _, r) = decode(&a, 1 << 20, 0);
    res.unwrap();
    assert!(r.trace_entries().is_none());
}

#[test]
fn a_gzip_header_with_an_endless_file_name_fails_fast() {
    // FNAME set and no terminating NUL: the header must not be re-scanned byte by byte forever.
    let mut g = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
    g.extend(std::iter::repeat_n(b'a', 2 << 20));
    let t = std::time::Instant::now();
    let (res, _, _) = decode(&g, 64 * 1024, 0);
    let e = res.unwrap_err();
    assert!(t.elapsed().as_secs_f64() < 5.0, "took {:?}", t.elapsed());
    assert!(e.offset < g.len() as u64, "{e}");
}
