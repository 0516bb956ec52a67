//! The worker -> page messages of real traces: how many bytes each kind takes and how long encoding
//! and decoding them takes, the way the app does it (natively, so the wire format can be compared
//! without a browser):
//!
//!     cargo run --release -p gcscope-app --example wire_bench -- [--runs N] FILE...
//!
//! For each file it runs the worker's path (the reader filtered to what the model reads, one
//! decode per event for the model and the insights, settled rows drained as they come) and makes
//! the messages the worker makes: `Gcs` batches of at most 2,048 rows (the worker's
//! `ROWS_PER_BATCH`; it also sends a batch every second, which only makes batches smaller) with
//! their heaps packed beside them, then `Done` with the model and the insights' records. Each
//! message is encoded as the worker posts it (its length first, then a 64 KiB piece at a time) and
//! decoded as the page reads it (a 64 KiB window over the received bytes).
//! Times are the best of N runs (default 5). Prints one JSON line per file.

use std::time::Instant;

use gcscope_app::protocol::{Analysis, ToUi};
use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::gc::insights::InsightsBuilder;
use gcscope_core::gc::ModelBuilder;
use gcscope_core::TraceReader;

const ROWS_PER_BATCH: usize = 2048;

/// The messages the worker sends for `bytes` (progress messages aside: a few bytes each).
fn messages(bytes: &[u8]) -> Vec<ToUi> {
    let mut reader = TraceReader::new().with_filter(gcscope_core::gc::interest);
    let mut model = ModelBuilder::new(&TraceInfo::default());
    let mut insights = InsightsBuilder::bounded();
    let mut unsent = Vec::new();
    let mut out = Vec::new();
    for chunk in bytes.chunks(4 << 20) {
        let mut feed = |e: &Event<'_>| gcscope_core::gc::feed(&mut model, &mut insights, e);
        reader.push(chunk, &mut feed).expect("the trace decodes");
        if let Some(info) = reader.info() {
            model.set_info(info);
        }
        unsent.extend(model.drain_completed());
        while unsent.len() >= ROWS_PER_BATCH {
            let rest = unsent.split_off(ROWS_PER_BATCH);
            out.push(ToUi::gcs(std::mem::replace(&mut unsent, rest)));
        }
    }
    let mut feed = |e: &Event<'_>| gcscope_core::gc::feed(&mut model, &mut insights, e);
    reader.finish(&mut feed).expect("the trace finishes");
    if let Some(info) = reader.info() {
        model.set_info(info);
    }
    let mut finished = model.finish(Some(reader.stats()));
    unsent.append(&mut finished.gcs);
    if !unsent.is_empty() {
        out.push(ToUi::gcs(unsent));
    }
    let analysis = Analysis {
        file_name: "trace.nettrace".into(),
        model: Some(finished),
        insight_inputs: Some(gcscope_app::protocol::insights::inputs(
            insights.into_inputs(),
        )),
        ..Default::default()
    };
    out.push(ToUi::Done(Box::new(analysis)));
    out
}

/// Hands out the received bytes a piece at a time, as the page's reader of a JS buffer does.
struct Received<'a>(&'a [u8]);

impl std::io::Read for Received<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fn encode(m: &ToUi) -> Vec<u8> {
    let out = m.encode_sized(Vec::with_capacity).expect("encodes");
    assert_eq!(out.len(), out.capacity(), "{}: the exact length", m.kind());
    out
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 5;
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        runs = args[i + 1].parse().expect("--runs N");
        args.drain(i..=i + 1);
    }
    if args.is_empty() {
        eprintln!("usage: wire_bench [--runs N] FILE...");
        std::process::exit(2);
    }
    for path in &args {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let msgs = messages(&bytes);
        let (mut rows, mut gcs_bytes, mut heap_bytes, mut done_bytes) = (0usize, 0usize, 0, 0);
        for m in &msgs {
            match m {
                ToUi::Gcs { rows: r, heaps } => {
                    rows += r.len();
                    gcs_bytes += m.encoded_len().unwrap() as usize;
                    heap_bytes += heaps.bytes.len();
                }
                _ => done_bytes += m.encoded_len().unwrap() as usize,
            }
        }
        let (mut enc_best, mut dec_best) = (f64::INFINITY, f64::INFINITY);
        let mut wire = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            wire = msgs.iter().map(encode).collect::<Vec<_>>();
            enc_best = enc_best.min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let back: Vec<ToUi> = wire
                .iter()
                .map(|w| ToUi::decode_from(Received(w)).expect("decodes"))
                .collect();
            dec_best = dec_best.min(t.elapsed().as_secs_f64());
            assert!(back == msgs, "{path}: the messages round-trip");
        }
        let total: usize = wire.iter().map(Vec::len).sum();
        let name = std::path::Path::new(path)
            .file_name()
            .map_or(path.clone(), |n| n.to_string_lossy().into_owned());
        println!(
            "{{\"file\":\"{name}\",\"messages\":{},\"gcs\":{rows},\"bytes\":{total},\
             \"gcs_msg_bytes\":{gcs_bytes},\"bytes_per_gc\":{:.0},\"packed_heap_bytes\":{heap_bytes},\
             \"done_bytes\":{done_bytes},\"encode_ms\":{:.2},\"decode_ms\":{:.2},\
             \"encode_mbps\":{:.0},\"decode_mbps\":{:.0}}}",
            msgs.len(),
            (gcs_bytes - heap_bytes) as f64 / rows.max(1) as f64,
            enc_best * 1e3,
            dec_best * 1e3,
            total as f64 / 1e6 / enc_best,
            total as f64 / 1e6 / dec_best,
        );
    }
}
