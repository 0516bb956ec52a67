//! Traces cut off mid-write (the process died, the copy stopped, the download broke): real traces cut
//! at every block boundary (sampled for those over 1 MB) and at pseudo-random offsets inside blocks.
//! A cut at a boundary is a clean end, but for the one right after the Trace object (no block at
//! all, which no finished trace is); a cut inside a block is `Truncated` at exactly the cut, naming
//! the unit it fell in. Either way every event delivered is one of the full trace's events, none is
//! lost that lies wholly before the cut's block, and the GC model shows every GC that finished
//! before the first lost event exactly as the full trace's model does.

mod common;

use gcscope_core::error::ErrorKind;
use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::gc::{GcModel, ModelBuilder};
use gcscope_core::TraceReader;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

/// What identifies an event across decodes: time, id, thread, sequence, hash of provider + payload.
type Key = (i64, u32, u64, u32, u64);

struct Decoded {
    result: Result<(), gcscope_core::error::Error>,
    events: Vec<(Key, f64)>,
    model: GcModel,
}

fn decode(bytes: &[u8], chunk: usize) -> Decoded {
    let mut r = TraceReader::new();
    let mut b = ModelBuilder::new(&TraceInfo::default());
    let mut events = Vec::new();
    let mut sink = |e: &Event<'_>| {
        b.on_event(e);
        let mut h = std::hash::DefaultHasher::new();
        (e.provider, e.payload).hash(&mut h);
        let key = (e.timestamp, e.event_id, e.thread_id, e.sequence, h.finish());
        events.push((key, e.time_ms));
    };
    let mut result = Ok(());
    for piece in bytes.chunks(chunk) {
        result = r.push(piece, &mut sink);
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        result = r.finish(&mut sink);
    }
    if let Some(info) = r.info() {
        b.set_info(info);
    }
    let model = b.finish(Some(r.stats()));
    Decoded {
        result,
        events,
        model,
    }
}

/// Unit boundaries of a FastSerialization stream (V3-V5), by an independent walk of the framing:
/// the start of every object after the Trace object, and the final end tag.
fn object_boundaries(bytes: &[u8]) -> Vec<usize> {
    let mut pos = if bytes.starts_with(b"Nettrace") { 8 } else { 0 } + 24;
    let mut out = Vec::new();
    let mut first = true;
    while pos < bytes.len() && bytes[pos] != 1 {
        let name_len = i32::from_le_bytes(bytes[pos + 11..pos + 15].try_into().unwrap()) as usize;
        let body = pos + 16 + name_len;
        pos = if first {
            // Trace object: SYSTEMTIME, sync QPC, QPC frequency, pointer size, pid, CPUs, rate.
            body + 16 + 8 + 8 + 4 * 4 + 1
        } else {
            let size = i32::from_le_bytes(bytes[body..body + 4].try_into().unwrap()) as usize;
            let pad = (4 - (body + 4) % 4) % 4;
            body + 4 + pad + size + 1
        };
        first = false;
        out.push(pos);
    }
    out
}

fn traces() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    for dir in ["net8.0", "netcore3.1"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "nettrace"))
            .collect();
        files.sort();
        for f in files {
            out.push((
                format!("{dir}/{}", f.file_name().unwrap().to_string_lossy()),
                std::fs::read(&f).unwrap(),
            ));
        }
    }
    if let Some(shared) = common::shared_dir() {
        for zip in common::eventpipe_zips(&shared) {
            let zipped = std::fs::read(&zip).unwrap();
            let raw = common::unzip(&zipped);
            // V1/V2 netperf files have no blocks; the 30 MB ones are covered by the fixtures' shapes.
            let name = zip.file_name().unwrap().to_string_lossy().into_owned();
            if raw.len() <= 8 << 20 && !name.contains("objver2") {
                out.push((name, raw));
            }
        }
    }
    out
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// Multiset difference full - cut; panics if `cut` has an event `full` does not.
fn lost<'a>(
    name: &str,
    at: usize,
    full: &'a [(Key, f64)],
    cut: &[(Key, f64)],
) -> Vec<&'a (Key, f64)> {
    let mut counts: BTreeMap<&Key, i64> = BTreeMap::new();
    for (k, _) in full {
        *counts.entry(k).or_default() += 1;
    }
    for (k, _) in cut {
        let c = counts.get_mut(k);
        assert!(
            c.as_ref().is_some_and(|c| **c > 0),
            "{name}: cut at {at} delivered an event the full trace does not have: {:?}",
            k
        );
        *c.unwrap() -= 1;
    }
    let mut left = counts;
    full.iter()
        .filter(|(k, _)| {
            let c = left.get_mut(k).unwrap();
            if *c > 0 {
                *c -= 1;
                true
            } else {
                false
            }
        })
        .collect()
}

fn check_cut(
    name: &str,
    bytes: &[u8],
    cut: usize,
    boundary: bool,
    full: &Decoded,
    chunk: usize,
) -> (usize, usize) {
    let d = decode(&bytes[..cut], chunk);
    match (&d.result, boundary) {
        (Ok(()), true) => {}
        (Err(e), false) => {
            assert!(
                matches!(e.kind, ErrorKind::Truncated { .. }),
                "{name}: cut at {cut}: {e}"
            );
            assert_eq!(e.offset, cut as u64, "{name}: the error names the cut: {e}");
            assert!(e.to_string().contains(&format!("byte {cut}")), "{e}");
        }
        (r, _) => panic!("{name}: cut at {cut} (boundary: {boundary}) gave {r:?}"),
    }
    let lost = lost(name, cut, &full.events, &d.events);
    let first_lost_ms = lost.iter().map(|(_, t)| *t).fold(f64::INFINITY, f64::min);
    // Every GC over before the first lost event is in the cut's model with the same figures.
    let cut_gcs: BTreeMap<u32, _> = d.model.gcs.iter().map(|g| (g.number, g)).collect();
    let mut compared = 0;
    for g in &full.model.gcs {
        let over = [g.end_ms, g.pause_ms.map(|p| g.start_ms + p)]
            .into_iter()
            .flatten()
            .fold(g.start_ms, f64::max);
        if !g.complete || over >= first_lost_ms {
            continue;
        }
        let c = cut_gcs
            .get(&g.number)
            .unwrap_or_else(|| panic!("{name}: cut at {cut} lost GC #{} (over at {over} ms, first lost event at {first_lost_ms} ms)", g.number));
        assert_eq!(
            (
                c.gen,
                c.gc_type,
                c.reason_code,
                c.complete,
                c.pause_ms,
                c.end_ms
            ),
            (
                g.gen,
                g.gc_type,
                g.reason_code,
                g.complete,
                g.pause_ms,
                g.end_ms
            ),
            "{name}: cut at {cut}: GC #{}",
            g.number
        );
        compared += 1;
    }
    for n in cut_gcs.keys() {
        assert!(
            full.model.gcs.iter().any(|g| g.number == *n),
            "{name}: cut at {cut} invented GC #{n}"
        );
    }
    assert!(d.events.len() <= full.events.len());
    (compared, d.events.len())
}

#[test]
fn cut_traces_keep_every_complete_event_and_gc_before_the_cut() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut summary = Vec::new();
    for (name, bytes) in traces() {
        let full = decode(&bytes, 1 << 20);
        full.result
            .as_ref()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let boundaries = object_boundaries(&bytes);
        assert!(boundaries.len() >= 2, "{name}");
        // Every boundary of traces up to 1 MB (the committed fixtures); a sample of the others'
        // (always the first few and the last). Cuts inside blocks: a sample of the blocks.
        let every = bytes.len() <= 1 << 20;
        let step = (boundaries.len() / 24).max(1);
        let mut cuts = 0;
        let mut gcs_compared = 0;
        let mut prev_events = 0;
        for (i, w) in boundaries.windows(2).enumerate() {
            let sampled = i % step == 0 || i + 2 == boundaries.len() || i <= 3;
            if !sampled && !every {
                continue;
            }
            let (b, next) = (w[0], w[1]);
            // The first boundary ends the Trace object: a trace cut there has no block at all.
            let (compared, at_b) = check_cut(&name, &bytes, b, i > 0, &full, 1 << 16);
            gcs_compared += compared;
            assert!(
                at_b >= prev_events,
                "{name}: fewer events at a later boundary"
            );
            prev_events = at_b;
            cuts += 1;
            if !sampled {
                continue;
            }
            // Inside the block: its first byte, a random byte, its last byte.
            for cut in [b + 1, b + 1 + rng.below(next - b - 1), next - 1] {
                if cut > b && cut < next {
                    let chunk = [1 << 16, 4093, 1 << 20][rng.below(3)];
                    gcs_compared += check_cut(&name, &bytes, cut, false, &full, chunk).0;
                    cuts += 1;
                }
            }
        }
        // Inside the header and the Trace object: no events, a truncation error.
        for cut in [9, 30, boundaries[0] - 1] {
            let d = decode(&bytes[..cut], 7);
            let e = d.result.unwrap_err();
            assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{name}: {e}");
            assert!(d.events.is_empty());
        }
        summary.push(format!(
            "{name}: {cuts} cuts, {gcs_compared} GC rows compared"
        ));
        assert!(
            full.model.gcs.is_empty() || gcs_compared > 0,
            "{name}: no GC was compared"
        );
    }
    eprintln!("{}", summary.join("\n"));
}

/// A cut inside a .zip: the same guarantees through the inflater (the error is at the file offset
/// of the cut, since the container cannot tell where in the trace it was).
#[test]
fn cut_zip_keeps_the_events_before_the_cut() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let zipped = std::fs::read(
        shared.join("traces/perfview/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip"),
    )
    .unwrap();
    let full = decode(&zipped, 1 << 20);
    full.result.as_ref().unwrap();
    let mut rng = Rng(7);
    let mut prev = 0;
    let mut cuts: Vec<usize> = (0..12)
        .map(|_| 100 + rng.below(zipped.len() - 200))
        .collect();
    cuts.sort();
    for cut in cuts {
        let d = decode(&zipped[..cut], 1 << 16);
        let e = d.result.as_ref().unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::Truncated { .. }),
            "cut at {cut}: {e}"
        );
        lost("zip", cut, &full.events, &d.events);
        assert!(
            d.events.len() >= prev,
            "cut at {cut}: fewer events than an earlier cut"
        );
        prev = d.events.len();
    }
    assert!(prev > 0, "the late cuts deliver events");
}

/// A block corrupted in the middle of a trace: the error names it, and every event before it is
/// still delivered, including those held back for ordering since the last sequence point (as many
/// as a clean cut at that block's start gives).
#[test]
fn a_corrupt_block_still_delivers_every_event_before_it() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    for name in [
        "net8.0/wks-concurrent.nettrace",
        "netcore3.1/server.nettrace",
    ] {
        let bytes = std::fs::read(root.join(name)).unwrap();
        let boundaries = object_boundaries(&bytes);
        let n = boundaries.len();
        for &b in [boundaries[n / 3], boundaries[n / 2], boundaries[n - 3]].iter() {
            let clean = decode(&bytes[..b], 1 << 16);
            clean.result.as_ref().unwrap();
            let mut bad = bytes.clone();
            bad[b] = 9; // not an object tag
            let d = decode(&bad, 1 << 16);
            let e = d.result.as_ref().unwrap_err();
            assert_eq!(e.offset, b as u64, "{name}: {e}");
            assert!(matches!(e.kind, ErrorKind::Malformed(_)), "{name}: {e}");
            assert_eq!(
                d.events.len(),
                clean.events.len(),
                "{name}: corrupt block at {b}: events before it"
            );
            assert_eq!(
                d.model.gcs.len(),
                clean.model.gcs.len(),
                "{name}: GCs before it"
            );
        }
    }
}
