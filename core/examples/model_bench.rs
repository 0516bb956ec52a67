//! Times the GC model on a synthetic stream of blocking GCs (hand-encoded payloads, as the decoder
//! would hand them out), excluding decoding: how fast `ModelBuilder` turns events into rows.
//!
//! `cargo run --release -p gcscope-core --example model_bench [GCS]` (default 100,000 GCs).

#[path = "../tests/model_support/mod.rs"]
mod model_support;

use std::time::Instant;

use gcscope_core::event::TraceInfo;
use gcscope_core::gc::ModelBuilder;
use model_support::*;

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    // Per GC: 10 lifecycle/history events (blocking_gc) + 4 allocation ticks.
    let mut events = Vec::with_capacity(n as usize * 14);
    for i in 0..n {
        let t = 2.0 * i as f64 + 1.0;
        for k in 0..4 {
            events.push(alloc_tick(t - 0.5 + 0.1 * k as f64, 100, 100_000, 0));
        }
        let gen = if i % 50 == 49 {
            2
        } else if i % 10 == 9 {
            1
        } else {
            0
        };
        events.extend(blocking_gc(
            t,
            i + 1,
            gen,
            0,
            3_000_000 + (i as u64 % 7) * 10_000,
        ));
    }
    let bytes: usize = events.iter().map(|e| e.payload.len()).sum();
    let borrowed: Vec<_> = events.iter().map(|e| e.event()).collect();

    let mut best = f64::MAX;
    let mut rows = 0;
    for _ in 0..3 {
        let start = Instant::now();
        let mut b = ModelBuilder::new(&TraceInfo::default());
        for e in &borrowed {
            b.on_event(e);
        }
        let model = b.finish(None);
        let secs = start.elapsed().as_secs_f64();
        rows = model.gcs.len();
        assert_eq!(model.rollup[0].count as usize, rows);
        best = best.min(secs);
    }
    println!(
        "{n} GCs, {} events ({:.1} MB of payloads): model built in {:.3} s (best of 3), {:.2} M events/s, {rows} rows",
        borrowed.len(),
        bytes as f64 / 1e6,
        best,
        borrowed.len() as f64 / best / 1e6
    );
}
