//! Decode throughput benchmark (run it, it is not a test):
//!
//!     cargo run --release -p gcscope-core --example bench_decode [FILES...]
//!
//! Without arguments it uses the largest reference traces unzipped in /tmp/pv. For each file it
//! reports the best of several runs of: a raw pass over the same bytes (summing them: the memory
//! bandwidth floor), and a full decode through `TraceReader` in 1 MiB chunks (container sniff,
//! framing, headers, metadata lookup, per-region sort, `Event` construction).

use gcscope_core::TraceReader;
use std::hint::black_box;
use std::time::{Duration, Instant};

const RUNS: usize = 7;
const CHUNK: usize = 1 << 20;

fn best(mut f: impl FnMut()) -> Duration {
    (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

/// Sum of all bytes: what merely touching the input costs.
fn raw_pass(bytes: &[u8]) -> u64 {
    let mut acc = [0u64; 8];
    let mut chunks = bytes.chunks_exact(64);
    for c in &mut chunks {
        for (i, w) in c.chunks_exact(8).enumerate() {
            acc[i] = acc[i].wrapping_add(u64::from_le_bytes(w.try_into().unwrap()));
        }
    }
    let tail: u64 = chunks.remainder().iter().map(|&b| b as u64).sum();
    acc.iter().fold(tail, |a, &b| a.wrapping_add(b))
}

/// Returns (events, payload bytes, trace-stream bytes after any unzip).
fn decode(bytes: &[u8]) -> (u64, u64, u64) {
    let mut events = 0u64;
    let mut payload = 0u64;
    let mut sink = |e: &gcscope_core::event::Event<'_>| {
        events += 1;
        payload += e.payload.len() as u64;
    };
    let mut r = TraceReader::new();
    for c in bytes.chunks(CHUNK) {
        r.push(c, &mut sink).expect("decode");
    }
    r.finish(&mut sink).expect("finish");
    (events, payload, r.stats().trace_bytes)
}

fn main() {
    let mut files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        files = [
            "/tmp/pv/HeartRateMonitor.10068.nettrace",
            "/tmp/pv/VoiceMemo.23092.nettrace",
            "/tmp/pv/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace",
            "/tmp/pv/eventpipe-dotnetcore2.0-linux-objver2.netperf",
            "/tmp/pv/eventpipe-dotnetcore2.1-win-x86-objver3.netperf",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
    }
    println!(
        "{:<52} {:>7} {:>9} {:>9} {:>11} {:>12} {:>10}",
        "file", "MB", "events", "raw MB/s", "decode MB/s", "trace MB/s", "Mevents/s"
    );
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            eprintln!("skipping {f}: not readable");
            continue;
        };
        let mb = bytes.len() as f64 / 1e6;
        let raw = best(|| {
            black_box(raw_pass(black_box(&bytes)));
        });
        let (events, _, trace_bytes) = decode(&bytes);
        let dec = best(|| {
            black_box(decode(black_box(&bytes)));
        });
        let name = std::path::Path::new(f)
            .file_name()
            .unwrap()
            .to_string_lossy();
        // "decode MB/s" is per input byte; "trace MB/s" per byte of the (unzipped) trace stream.
        println!(
            "{:<52} {:>7.1} {:>9} {:>9.0} {:>11.0} {:>12.0} {:>10.1}",
            name,
            mb,
            events,
            mb / raw.as_secs_f64(),
            mb / dec.as_secs_f64(),
            trace_bytes as f64 / 1e6 / dec.as_secs_f64(),
            events as f64 / dec.as_secs_f64() / 1e6
        );
    }
}
