//! How long the findings take on a model already built (what the app's Findings panel costs the
//! page when the trace is read or the goal or budget changes):
//!
//!     cargo run --release -p gcscope-core --example bench_findings -- FILE [RUNS]
//!
//! Prints one JSON line: the GC count, the model's build time, and the fastest and median of RUNS
//! (default 5) runs of `findings::analyze_model` in ms.

use std::time::Instant;

use gcscope_core::findings::{analyze_model, Settings};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: bench_findings FILE [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5).max(1);
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let t = Instant::now();
    let model = gcscope_core::gc::analyze(&bytes).expect("the trace decodes");
    let build_s = t.elapsed().as_secs_f64();
    let mut ms: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let r = analyze_model(&model, &Settings::default());
            std::hint::black_box(&r);
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    println!(
        "{{\"gcs\":{},\"model_s\":{build_s:.3},\"findings_ms_min\":{:.2},\"findings_ms_median\":{:.2},\"runs\":{runs}}}",
        model.gcs.len(),
        ms[0],
        ms[ms.len() / 2]
    );
}
