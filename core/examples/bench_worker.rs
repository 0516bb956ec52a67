//! The app worker's decoding path alone, natively, for profilers that count instructions
//! (valgrind --tool=callgrind is deterministic where timings on a shared machine are not):
//!
//!     cargo build --release -p gcscope-core --example bench_worker
//!     valgrind --tool=callgrind target/release/examples/bench_worker FILE [CHUNK_KB]
//!
//! A reader for the model and insights (`Consumer::ModelAndInsights`), model and bounded insights from one decode per event
//! (`gc::feed`), fed in chunks as the worker reads them. Prints the GC count and seconds.

use gcscope_core::event::TraceInfo;
use gcscope_core::gc::{self, insights::InsightsBuilder, ModelBuilder};
use gcscope_core::{Consumer, TraceReader};
use std::io::Read;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: bench_worker FILE [CHUNK_KB]");
        std::process::exit(2);
    };
    let chunk = args
        .get(1)
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(512)
        << 10;
    let t = Instant::now();
    let mut file = std::fs::File::open(path).unwrap_or_else(|e| panic!("cannot open {path}: {e}"));
    let mut buf = vec![0u8; chunk];
    // As the app's worker reads (the ticks in batches, each tick in its batch).
    let mut r = TraceReader::for_consumer(Consumer::ModelAndInsights);
    let mut m = ModelBuilder::new(&TraceInfo::default());
    let mut ib = InsightsBuilder::bounded();
    loop {
        let n = file.read(&mut buf).expect("read");
        if n == 0 {
            break;
        }
        r.push(&buf[..n], &mut |e| gc::feed(&mut m, &mut ib, e))
            .expect("decode");
    }
    r.finish(&mut |e| gc::feed(&mut m, &mut ib, e))
        .expect("finish");
    if let Some(info) = r.info() {
        m.set_info(info);
    }
    let model = m.finish(Some(r.stats()));
    let insights = ib.finish(&model);
    println!(
        "{{\"gcs\":{},\"types\":{},\"seconds\":{:.3}}}",
        model.gcs.len(),
        insights.allocations.type_names.len(),
        t.elapsed().as_secs_f64()
    );
}
