//! Native streaming throughput on one file, as the app does it (fixed-size chunks, bounded memory):
//!
//!     cargo run --release -p gcscope-core --example bench_stream -- FILE [CHUNK_MB]
//!
//! Prints one JSON line: seconds and MB/s (MB = 10^6 bytes) for reading the file alone, reading +
//! decoding (every event delivered, payload bytes summed), reading + decoding + the GC model, and
//! the same with the reader filtered to what the model reads (`gc::interest`), and that plus the
//! bounded insights fed from one decode per event (`gc::feed`: what the app's worker does);
//! plus the process's peak resident memory (Linux VmHWM) at the end.

use gcscope_core::event::TraceInfo;
use gcscope_core::gc::{self, insights::InsightsBuilder, ModelBuilder};
use gcscope_core::TraceReader;
use std::fs::File;
use std::io::Read;
use std::time::Instant;

fn each_chunk(path: &str, chunk: usize, mut f: impl FnMut(&[u8])) -> f64 {
    let t = Instant::now();
    let mut file = File::open(path).unwrap_or_else(|e| panic!("cannot open {path}: {e}"));
    let mut buf = vec![0u8; chunk];
    loop {
        let n = file.read(&mut buf).expect("read");
        if n == 0 {
            break;
        }
        f(&buf[..n]);
    }
    t.elapsed().as_secs_f64()
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: bench_stream FILE [CHUNK_MB]");
        std::process::exit(2);
    };
    let chunk = args
        .get(1)
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(4)
        << 20;
    let size = std::fs::metadata(path).expect("stat").len() as f64;

    let mut sum = 0u64;
    let read_s = each_chunk(path, chunk, |b| {
        sum = sum.wrapping_add(b[b.len() / 2] as u64)
    });

    let mut events = 0u64;
    let mut payload = 0u64;
    let mut r = TraceReader::new();
    let decode_s = each_chunk(path, chunk, |b| {
        r.push(b, &mut |e| {
            events += 1;
            payload += e.payload.len() as u64;
        })
        .expect("decode")
    });
    r.finish(&mut |_| events += 1).expect("finish");

    let mut r = TraceReader::new();
    let mut m = ModelBuilder::new(&TraceInfo::default());
    let model_s = each_chunk(path, chunk, |b| {
        r.push(b, &mut |e| m.on_event(e)).expect("decode")
    });
    let t = Instant::now();
    r.finish(&mut |e| m.on_event(e)).expect("finish");
    if let Some(info) = r.info() {
        m.set_info(info);
    }
    let model = m.finish(Some(r.stats()));
    let model_s = model_s + t.elapsed().as_secs_f64();
    let gcs = model.gcs.len();
    // Peak RSS should be one pass's, not two.
    drop((model, r));

    // The same with the reader skipping what the model does not read (as the app and CLI do).
    let mut r = TraceReader::new().with_filter(gcscope_core::gc::interest);
    let mut m = ModelBuilder::new(&TraceInfo::default());
    let filtered_s = each_chunk(path, chunk, |b| {
        r.push(b, &mut |e| m.on_event(e)).expect("decode")
    });
    let t = Instant::now();
    r.finish(&mut |e| m.on_event(e)).expect("finish");
    if let Some(info) = r.info() {
        m.set_info(info);
    }
    let filtered = m.finish(Some(r.stats()));
    let filtered_s = filtered_s + t.elapsed().as_secs_f64();
    assert_eq!(filtered.gcs.len(), gcs, "filtered model");
    drop((filtered, r));

    // The app's worker: filtered reader, model and bounded insights from one decode.
    let mut r = TraceReader::new().with_filter(gcscope_core::gc::interest);
    let mut m = ModelBuilder::new(&TraceInfo::default());
    let mut ib = InsightsBuilder::bounded();
    let worker_s = each_chunk(path, chunk, |b| {
        r.push(b, &mut |e| gc::feed(&mut m, &mut ib, e))
            .expect("decode")
    });
    let t = Instant::now();
    r.finish(&mut |e| gc::feed(&mut m, &mut ib, e))
        .expect("finish");
    if let Some(info) = r.info() {
        m.set_info(info);
    }
    let worker = m.finish(Some(r.stats()));
    let insights = ib.finish(&worker);
    let worker_s = worker_s + t.elapsed().as_secs_f64();
    assert_eq!(worker.gcs.len(), gcs, "worker model");
    drop(insights);
    let mbps = |s: f64| size / 1e6 / s;
    println!(
        "{{\"file\":{path:?},\"bytes\":{size},\"events\":{events},\"payload_bytes\":{payload},\"gcs\":{},\"read_s\":{read_s:.3},\"read_mbps\":{:.0},\"decode_s\":{decode_s:.3},\"decode_mbps\":{:.0},\"model_s\":{model_s:.3},\"model_mbps\":{:.0},\"filtered_s\":{filtered_s:.3},\"filtered_mbps\":{:.0},\"worker_s\":{worker_s:.3},\"worker_mbps\":{:.0},\"peak_rss_mb\":{:.1},\"checksum\":{sum}}}",
        gcs,
        mbps(read_s),
        mbps(decode_s),
        mbps(model_s),
        mbps(filtered_s),
        mbps(worker_s),
        peak_rss_kb() as f64 / 1024.0
    );
}
