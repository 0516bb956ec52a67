//! What the live tab's analysis so far costs (`ProcessRouter::snapshot`): reads FILE as a live
//! session is read (chunks of 64 KiB, each released, the settled rows drained), takes a snapshot
//! every EVERY chunks, and prints the snapshots' times (median, max, the last) beside the whole
//! read's, with the rows the builder still held at the last one. The app takes one at most every
//! two seconds (`app/src/worker/stream.rs`).
//!
//! ```text
//! cargo run --release -p gcscope-core --example bench_snapshot -- FILE [EVERY]
//! ```

use std::time::Instant;

use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::gc::ProcessRouter;
use gcscope_core::ticks::Consumer;
use gcscope_core::TraceReader;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: bench_snapshot FILE [EVERY]");
        std::process::exit(2);
    };
    let every: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(64);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1)
    });
    let t0 = Instant::now();
    let mut r = TraceReader::new().with_consumer(Consumer::ModelAndInsights);
    let mut router = ProcessRouter::bounded();
    let mut pid = None;
    let mut drained = 0usize;
    let mut times = Vec::new();
    let mut held = 0usize;
    for (i, chunk) in bytes.chunks(64 << 10).enumerate() {
        let mut sink = |info: &TraceInfo, e: &Event<'_>| {
            pid.get_or_insert(e.process_id);
            router.on_event(info, e);
        };
        if let Err(e) = r.push_with_info(chunk, &mut sink) {
            eprintln!("{path}: {e}");
            break;
        }
        r.release_with_info(&mut sink);
        let Some(p) = pid else { continue };
        if let Some(b) = router.model_mut(p) {
            drained += b.drain_completed().len();
        }
        if i % every == every - 1 {
            let t = Instant::now();
            if let Some((m, _insights)) = router.snapshot(p, Some(r.stats())) {
                held = m.gcs.len();
            }
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    let whole = t0.elapsed().as_secs_f64() * 1e3;
    let last = times.last().copied().unwrap_or(0.0);
    times.sort_by(f64::total_cmp);
    let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
    let max = times.last().copied().unwrap_or(0.0);
    println!(
        "{{\"file_mb\":{:.1},\"snapshots\":{},\"snapshot_ms_median\":{median:.3},\"snapshot_ms_max\":{max:.3},\
         \"snapshot_ms_last\":{last:.3},\"rows_drained\":{drained},\"rows_held_at_last\":{held},\"read_ms\":{whole:.0}}}",
        bytes.len() as f64 / 1048576.0,
        times.len()
    );
}
