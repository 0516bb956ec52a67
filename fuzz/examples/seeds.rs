//! Writes seed corpora for the fuzz targets from real traces: the committed fixtures, cut-down
//! copies of them, and (when ../shared is present) the small zipped reference traces.
//! Usage: cargo run --example seeds -- OUT_DIR   (creates OUT_DIR/{container,payloads,model})

use gcscope_core::{container::Unwrapper, event::Event, TraceReader};
use gcscope_fuzz::write_record;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Container seeds larger than this are cut (libFuzzer's -max_len is set to match in fuzz.sh).
const MAX_SEED: usize = 64 * 1024;

fn main() {
    let out = PathBuf::from(std::env::args().nth(1).expect("usage: seeds OUT_DIR"));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut traces = Vec::new();
    for sub in ["fixtures/traces/net8.0", "fixtures/traces/netcore3.1"] {
        let Ok(rd) = std::fs::read_dir(root.join(sub)) else {
            continue;
        };
        let mut files: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        traces.extend(
            files
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "nettrace")),
        );
    }
    let mut n = [0usize; 6];
    let dirs = ["container", "payloads", "model", "etl", "lz77", "ctf"].map(|d| {
        let p = out.join(d);
        std::fs::create_dir_all(&p).unwrap();
        p
    });
    let write = |dir: &Path, name: String, bytes: &[u8], n: &mut usize| {
        std::fs::write(dir.join(name), bytes).unwrap();
        *n += 1;
    };
    let mut seen: BTreeMap<(String, u32, u32), usize> = BTreeMap::new();
    for (i, t) in traces.iter().enumerate() {
        let bytes = std::fs::read(t).unwrap();
        // Container: the head of the trace (a clean start, cut mid-block) and a short cut.
        for (k, cut) in [MAX_SEED, 16 * 1024].into_iter().enumerate() {
            let mut s = vec![(i * 7 + k) as u8, 1];
            s.extend_from_slice(&bytes[..bytes.len().min(cut)]);
            write(&dirs[0], format!("trace{i}-{k}"), &s, &mut n[0]);
        }
        // Payloads: a few events of every (provider, id, version); model: the runtime events in order.
        let mut model = Vec::new();
        let mut last_ms = 0.0;
        let mut sink = |e: &Event<'_>| {
            let key = (e.provider.to_string(), e.event_id, e.version);
            let c = seen.entry(key).or_insert(0);
            if *c < 3 {
                let mut rec = Vec::new();
                if write_record(&mut rec, e, 0) {
                    write(
                        &dirs[1],
                        format!("p{}-{}", n[1], e.event_id),
                        &rec,
                        &mut n[1],
                    );
                    *c += 1;
                }
            }
            if model.len() < 60_000 {
                let dt = ((e.time_ms - last_ms) * 1000.0).max(0.0) as u32;
                if write_record(&mut model, e, dt) {
                    last_ms = e.time_ms;
                }
            }
        };
        let mut r = TraceReader::new();
        let _ = r.push(&bytes, &mut sink);
        let _ = r.finish(&mut sink);
        write(&dirs[2], format!("model{i}"), &model, &mut n[2]);
    }
    // Small zipped reference traces exercise the zip path; the raw head of a netperf one, V3 framing.
    let shared = root.join("../shared/traces/perfview");
    for name in [
        "eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf.zip",
        "eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace.zip",
        "eventpipe-dotnetcore2.1-linux-x64-objver3.netperf.zip",
        "eventpipe-dotnetcore2.0-linux-objver2.netperf.zip",
    ] {
        let Ok(zipped) = std::fs::read(shared.join(name)) else {
            continue;
        };
        if zipped.len() <= MAX_SEED {
            let mut s = vec![3, 1];
            s.extend_from_slice(&zipped);
            write(&dirs[0], name.to_string(), &s, &mut n[0]);
        }
        let mut raw = vec![5, 1];
        let mut u = Unwrapper::new();
        let _ = u.push(&zipped, &mut |d| {
            if raw.len() < MAX_SEED {
                raw.extend_from_slice(&d[..d.len().min(MAX_SEED - raw.len())]);
            }
            Ok(())
        });
        write(&dirs[0], format!("{name}.raw"), &raw, &mut n[0]);
    }
    etl_seeds(&shared, &dirs[3], &dirs[4], &mut n);
    ctf_seeds(&root.join("../shared/traces/lttng"), &dirs[5], &mut n[5]);
    // The container target reads every format: give it the ETL seeds too.
    for e in std::fs::read_dir(&dirs[3]).unwrap().flatten() {
        let name = format!("etl-{}", e.file_name().to_string_lossy());
        std::fs::copy(e.path(), dirs[0].join(name)).unwrap();
        n[0] += 1;
    }
    // The heap snapshot reader: the small public dumps, when ../shared holds them.
    let gcdump_dir = out.join("gcdump");
    std::fs::create_dir_all(&gcdump_dir).unwrap();
    let mut gcdumps = 0;
    for name in ["perfview-test1-js.gcdump", "monogcdumprepro-150515.gcdump"] {
        if let Ok(b) = std::fs::read(root.join("../shared/heapdumps").join(name)) {
            std::fs::write(gcdump_dir.join(name), b).unwrap();
            gcdumps += 1;
        }
    }
    eprintln!("seeds: {gcdumps} gcdump");
    eprintln!(
        "seeds: {} container, {} payloads, {} model, {} etl, {} lz77, {} ctf in {}",
        n[0],
        n[1],
        n[2],
        n[3],
        n[4],
        n[5],
        out.display()
    );
}

/// ETW seeds: files from the test-only writer (plain and compressed, small buffers), and, when
/// ../shared is present, the real .etl files with every buffer shrunk to its records (the same
/// file, under the seed size) and their first compressed buffers for the decompressor.
fn etl_seeds(shared: &Path, etl_dir: &Path, lz_dir: &Path, n: &mut [usize; 6]) {
    use gcscope_core::encode::etl::{compress, EtlEvent, EtlWriter, Options};
    use gcscope_core::etl::names::{PRIVATE_GUID, RUNTIME_GUID};
    for (k, compressed) in [false, true].into_iter().enumerate() {
        let mut w = EtlWriter::new(Options {
            buffer_size: 2048,
            compressed,
            ..Options::default()
        });
        for i in 0..120u32 {
            let payload: Vec<u8> = (0..(i % 40)).map(|b| b as u8).collect();
            let ext: &[&[u8]] = if i % 9 == 0 { &[b"ext"] } else { &[] };
            w.event(
                i % 3,
                &EtlEvent {
                    provider: if i % 2 == 0 {
                        RUNTIME_GUID
                    } else {
                        PRIVATE_GUID
                    },
                    id: [1, 2, 4, 9, 8, 3, 7, 204][i as usize % 8],
                    version: (i % 3) as u8,
                    opcode: 1,
                    task: 1,
                    process_id: 10 + i % 2,
                    thread_id: 20,
                    timestamp: 2_000_000 + i as i64,
                    pointer_size: if i % 5 == 0 { 4 } else { 8 },
                    extended: ext,
                    payload: &payload,
                },
            );
            if i % 40 == 7 {
                w.kernel(0, 0x0301, 4, 0, 1, 2_000_000 + i as i64, &[0; 48]);
            }
        }
        let file = w.finish();
        let mut s = vec![k as u8, 1];
        s.extend_from_slice(&file[..file.len().min(MAX_SEED)]);
        std::fs::write(etl_dir.join(format!("written{k}")), &s).unwrap();
        n[3] += 1;
    }
    let data: Vec<u8> = (0..3000u32).flat_map(|i| (i % 97).to_le_bytes()).collect();
    let mut s = (data.len() as u32).to_le_bytes().to_vec();
    s.extend_from_slice(&compress(&data));
    std::fs::write(lz_dir.join("written"), &s).unwrap();
    n[4] += 1;
    for name in ["gcevents", "net.4.5.2.x64"] {
        let Ok(zipped) = std::fs::read(shared.join(format!("{name}.etl.zip"))) else {
            continue;
        };
        let mut etl = Vec::new();
        let mut u = Unwrapper::new();
        let _ = u.push(&zipped, &mut |d| {
            etl.extend_from_slice(d);
            Ok(())
        });
        let _ = u.finish(&mut |_| Ok(()));
        // Buffers shrunk to their records: BufferSize = Offset for plain buffers.
        let mut seed = vec![9, 1];
        let mut pos = 0;
        let mut lz = 0;
        while pos + 72 <= etl.len() && seed.len() < MAX_SEED {
            let size = u32::from_le_bytes(etl[pos..pos + 4].try_into().unwrap()) as usize;
            let offset =
                u32::from_le_bytes(etl[pos + 0x30..pos + 0x34].try_into().unwrap()) as usize;
            let compressed = etl[pos + 0x34] & 0x40 != 0;
            if size < 72 || pos + size > etl.len() {
                break;
            }
            let keep = if compressed { size } else { offset.min(size) };
            let mut b = etl[pos..pos + keep].to_vec();
            b[0..4].copy_from_slice(&(keep as u32).to_le_bytes());
            if seed.len() + b.len() <= MAX_SEED {
                seed.extend_from_slice(&b);
            }
            if compressed && lz < 3 {
                let mut s = ((offset - 72) as u32).to_le_bytes().to_vec();
                s.extend_from_slice(&etl[pos + 72..pos + size]);
                std::fs::write(lz_dir.join(format!("{name}-{lz}")), &s).unwrap();
                n[4] += 1;
                lz += 1;
            }
            pos += size;
        }
        std::fs::write(etl_dir.join(name), &seed).unwrap();
        n[3] += 1;
    }
}

/// CTF seeds from the LTTng reference traces: the user-space trace's metadata text (cut at an
/// event block to fit the length cap) and the heads of two of its streams, in the target's
/// framing (u16 lengths).
fn ctf_seeds(dir: &Path, out: &Path, n: &mut usize) {
    for name in ["netcoreapp31.trace.zip", "clr-only.trace.zip"] {
        let Ok(zipped) = std::fs::read(dir.join(name)) else {
            continue;
        };
        // Each entry as the container gives it (its naming chunk, then its bytes, which may be
        // raw deflate), then its contents.
        let mut given: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        let mut u = Unwrapper::new();
        let _ = u.push(&zipped, &mut |d| {
            if d.starts_with(gcscope_core::ctf::ENTRY_MAGIC) {
                given.push((d.to_vec(), Vec::new()));
            } else if let Some(e) = given.last_mut() {
                e.1.extend_from_slice(d);
            }
            Ok(())
        });
        let entries: Vec<(String, Vec<u8>)> = given
            .iter()
            .filter_map(|(h, b)| gcscope_core::ctf::entry_contents(h, b, 64 << 20).ok())
            .collect();
        let find = |suffix: &str| {
            entries
                .iter()
                .find(|(p, _)| p.contains("/ust/") && p.ends_with(suffix))
                .map(|e| e.1.clone())
        };
        let (Some(md), Some(s0), Some(s1)) =
            (find("/metadata"), find("channel0_0"), find("channel0_3"))
        else {
            continue;
        };
        let Ok(text) = gcscope_core::ctf::tsdl::depacketize(&md) else {
            continue;
        };
        let cap = 40 * 1024;
        let text = &text[..text.len().min(cap)];
        let cut = text
            .windows(8)
            .rposition(|w| w == b"\nevent {")
            .map_or(text.len(), |i| i + 1);
        let mut seed = Vec::new();
        seed.extend_from_slice(&(cut as u16).to_le_bytes());
        seed.extend_from_slice(&text[..cut]);
        let s0 = &s0[..s0.len().min(12 * 1024)];
        seed.extend_from_slice(&(s0.len() as u16).to_le_bytes());
        seed.extend_from_slice(s0);
        seed.extend_from_slice(&s1[..s1.len().min(8 * 1024)]);
        std::fs::write(out.join(name), &seed).unwrap();
        *n += 1;
    }
}
