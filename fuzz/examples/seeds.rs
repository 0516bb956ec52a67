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
    let mut n = [0usize; 3];
    let dirs = ["container", "payloads", "model"].map(|d| {
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
    eprintln!(
        "seeds: {} container, {} payloads, {} model in {}",
        n[0],
        n[1],
        n[2],
        out.display()
    );
}
