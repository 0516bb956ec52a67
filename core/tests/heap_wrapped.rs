//! Heap snapshots inside a `.gz` or a `.zip` (`container::heap_input`): the public dumps wrapped
//! here at run time unwrap to the file's own bytes and read to the README's totals
//! (`../shared/heapdumps/README.md`); gzip members are written by hand (stored deflate blocks, a
//! CRC computed here) and, where the `gzip` tool is installed, by it. Then the hostile cases: a gz
//! cut anywhere, a trailer that claims a huge size, a bomb past the cap, zip headers that lie.

mod common;

use common::{deflated_zip, heapdumps, stored_zip};
use gcscope_core::container::{heap_input, HeapInput, Kind, MAX_SNAPSHOT_BYTES};
use gcscope_core::error::ErrorKind;
use gcscope_core::heap::Snapshot;
use std::path::PathBuf;
use std::process::Command;

/// (file, nodes, total bytes) from the README's table.
const DUMPS: &[(&str, u64, u64)] = &[
    ("gcdumpanalyze-test1.gcdump", 46_645, 3_339_490),
    ("monogcdumprepro-150515.gcdump", 27_570, 1_780_688),
    ("monogcdumprepro-150644.gcdump", 27_914, 1_814_480),
    ("perfview-test2-netfx.gcdump", 140_391, 4_147_128),
    ("perfview-test1-js.gcdump", 6_482, 1_009_270),
];

fn read(name: &str) -> Option<Vec<u8>> {
    Some(std::fs::read(heapdumps()?.join(name)).expect("read dump"))
}

/// CRC-32 (IEEE, reflected, as gzip's trailer has it), bit by bit.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A gzip member written from RFC 1952 and RFC 1951 by hand: a header with a file name, the data
/// in stored (uncompressed) deflate blocks of at most 65,535 bytes, the CRC and size trailer.
fn stored_gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
    out.extend_from_slice(b"snapshot.gcdump\0");
    let blocks: Vec<&[u8]> = if data.is_empty() {
        vec![&[][..]]
    } else {
        data.chunks(65_535).collect()
    };
    for (i, block) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len())); // BFINAL, BTYPE 00
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// What the `gzip` tool makes of `data`, or None where it is not installed.
fn tool_gzip(data: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write;
    let mut child = Command::new("gzip")
        .args(["-c", "-6"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = data.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    out.status.success().then_some(out.stdout)
}

/// The snapshot's bytes, which must be there.
fn unwrapped(input: &[u8], cap: u64) -> (Vec<u8>, Option<Kind>, Option<String>, Vec<String>) {
    match heap_input(input, cap) {
        Ok(HeapInput::Snapshot(u)) => (u.bytes.into_owned(), u.wrapper, u.entry, u.others),
        Ok(HeapInput::Trace) => panic!("read as a trace"),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn wrapped_public_dumps_unwrap_to_their_bytes_and_totals() {
    let mut tool = true;
    for &(file, nodes, bytes) in DUMPS {
        let Some(raw) = read(file) else { return };
        let (b, wrapper, _, _) = unwrapped(&raw, MAX_SNAPSHOT_BYTES);
        assert!(b == raw && wrapper.is_none(), "{file}: a bare .gcdump");
        let entry = format!("dumps/{file}");
        let mut wrapped = vec![
            ("stored gzip", stored_gzip(&raw), Kind::Gzip, None),
            (
                "stored zip",
                stored_zip(&[("notes.txt", b"x"), (&entry, &raw)]),
                Kind::Zip,
                Some(entry.clone()),
            ),
            (
                "deflated zip",
                deflated_zip(&[(&entry, &raw), ("notes.txt", b"x")]),
                Kind::Zip,
                Some(entry.clone()),
            ),
        ];
        match tool_gzip(&raw) {
            Some(gz) => wrapped.push(("gzip -6", gz, Kind::Gzip, None)),
            None => tool = false,
        }
        for (how, w, kind, name) in wrapped {
            let (b, wrapper, got, others) = unwrapped(&w, MAX_SNAPSHOT_BYTES);
            assert!(b == raw, "{file} ({how}): not the file's bytes");
            assert_eq!(
                (wrapper, got, others),
                (Some(kind), name, vec![]),
                "{file} ({how})"
            );
            let t = Snapshot::read(&b).expect(file).totals();
            assert_eq!((t.nodes, t.total_bytes), (nodes, bytes), "{file} ({how})");
        }
    }
    if !tool {
        eprintln!("note: `gzip` is not installed: only hand-written gzip members were read");
    }
}

#[test]
fn a_zip_with_several_snapshots_reads_the_first_and_names_the_others() {
    let (Some(a), Some(b)) = (
        read("monogcdumprepro-150515.gcdump"),
        read("monogcdumprepro-150644.gcdump"),
    ) else {
        return;
    };
    let zip = deflated_zip(&[
        ("readme.txt", b"two snapshots"),
        ("__MACOSX/._first.gcdump", b"resource fork"),
        ("first.gcdump", &a),
        ("app.nettrace", b"Nettrace"),
        ("later/second.GCDUMP", &b),
    ]);
    let (bytes, _, entry, others) = unwrapped(&zip, MAX_SNAPSHOT_BYTES);
    assert!(bytes == a, "the first .gcdump's bytes");
    assert_eq!(entry.as_deref(), Some("first.gcdump"));
    assert_eq!(others, ["later/second.GCDUMP"]);
}

#[test]
fn traces_are_left_to_the_trace_reader() {
    let trace = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/traces/net8.0/induced.nettrace"),
    )
    .expect("fixture trace");
    for (how, input) in [
        ("bare", trace.clone()),
        ("gzip", stored_gzip(&trace)),
        (
            "zip",
            stored_zip(&[("a.txt", b"x"), ("t.nettrace", &trace)]),
        ),
        ("zip, damaged after", {
            let mut z = stored_zip(&[("t.nettrace", &trace)]);
            z.truncate(z.len() - 30);
            z
        }),
    ] {
        assert!(
            matches!(heap_input(&input, MAX_SNAPSHOT_BYTES), Ok(HeapInput::Trace)),
            "{how}"
        );
    }
}

#[test]
fn a_zip_with_neither_snapshot_nor_trace_says_what_it_holds() {
    let zip = stored_zip(&[("a.txt", b"hello"), ("pic.png", b"\x89PNG")]);
    let e = heap_input(&zip, MAX_SNAPSHOT_BYTES).unwrap_err();
    match e.kind {
        ErrorKind::NotATrace(m) => {
            assert!(m.contains(".gcdump") && m.contains("a.txt, pic.png"), "{m}")
        }
        k => panic!("{k:?}"),
    }
    // What is neither a snapshot, a trace nor an archive is described.
    let e = heap_input(b"\x89PNG\r\n\x1a\n and more", MAX_SNAPSHOT_BYTES).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::NotATrace(ref m) if m.contains("PNG")),
        "{e}"
    );
}

#[test]
fn a_cut_gz_is_an_error_at_its_end_wherever_it_is_cut() {
    let Some(raw) = read("perfview-test1-js.gcdump") else {
        return;
    };
    let gz = tool_gzip(&raw).unwrap_or_else(|| stored_gzip(&raw));
    // Every byte of the header and trailer, and 200 points of the data between them.
    let step = (gz.len() / 200).max(1);
    let cuts = (0..40)
        .chain((40..gz.len() - 8).step_by(step))
        .chain(gz.len() - 8..gz.len());
    for cut in cuts {
        let e = match heap_input(&gz[..cut], MAX_SNAPSHOT_BYTES) {
            Err(e) => e,
            Ok(HeapInput::Trace) if cut < 20 => continue, // too little inflated to tell
            Ok(_) => panic!("cut at {cut}: read"),
        };
        match &e.kind {
            ErrorKind::Truncated { what } => {
                assert_eq!(e.offset, cut as u64, "cut at {cut}: {what}")
            }
            // An empty input, or a header cut before its magic.
            ErrorKind::NotATrace(_) if cut < 2 => {}
            k => panic!("cut at {cut}: {k:?}"),
        }
    }
}

#[test]
fn a_gz_trailer_claiming_a_huge_size_is_named_not_trusted() {
    let Some(raw) = read("perfview-test1-js.gcdump") else {
        return;
    };
    let mut gz = stored_gzip(&raw);
    let at = gz.len() - 4;
    gz[at..].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = heap_input(&gz, MAX_SNAPSHOT_BYTES).unwrap_err();
    assert_eq!(e.offset, at as u64);
    let m = format!("{e}");
    assert!(
        m.contains("4294967295") && m.contains(&raw.len().to_string()),
        "{m}"
    );
}

#[test]
fn data_that_inflates_past_the_cap_stops_there() {
    // A snapshot's header, then 8 MiB of zeros: deflate makes a few KiB of it.
    let mut big = read("perfview-test1-js.gcdump")
        .map(|b| b[..200].to_vec())
        .unwrap_or_else(|| {
            let mut h = b"\x14\x00\x00\x00!FastSerialization.1".to_vec();
            h.extend_from_slice(&[4, 4, 1, 10, 0, 0, 0, 8, 0, 0, 0, 10, 0, 0, 0]);
            h.extend_from_slice(b"GCHeapDump");
            h
        });
    big.resize(8 << 20, 0);
    let packed = miniz_oxide::deflate::compress_to_vec(&big, 9);
    assert!(packed.len() < 64 * 1024, "a bomb: {} bytes", packed.len());
    let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    gz.extend_from_slice(&packed);
    gz.extend_from_slice(&crc32(&big).to_le_bytes());
    gz.extend_from_slice(&(big.len() as u32).to_le_bytes());
    let zip = deflated_zip(&[("bomb.gcdump", &big)]);
    let cap = 1 << 20;
    for (how, input) in [("gzip", &gz), ("zip", &zip)] {
        let e = heap_input(input, cap).unwrap_err();
        let m = format!("{e}");
        assert!(m.contains("more than 1048576 bytes"), "{how}: {m}");
        assert!(e.offset <= input.len() as u64, "{how}: {m}");
        // Under a cap it fits, the same input reads whole.
        let (b, ..) = unwrapped(input, 16 << 20);
        assert!(b == big, "{how}");
    }
}

#[test]
fn zip_headers_that_lie_about_sizes_drive_nothing() {
    let Some(raw) = read("perfview-test1-js.gcdump") else {
        return;
    };
    // Local header: compressed size at 18, uncompressed size at 22 (APPNOTE 4.3.7).
    let mut zip = stored_zip(&[("a.gcdump", &raw)]);
    zip[22..26].copy_from_slice(&u32::MAX.to_le_bytes());
    let (b, ..) = unwrapped(&zip, MAX_SNAPSHOT_BYTES);
    assert!(b == raw, "an uncompressed size that lies is not used");
    let mut zip = stored_zip(&[("a.gcdump", &raw)]);
    zip[18..22].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
    let e = heap_input(&zip, MAX_SNAPSHOT_BYTES).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::Truncated { .. }) && e.offset == zip.len() as u64,
        "a compressed size past the file's end: {e}"
    );
}
