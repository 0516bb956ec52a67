//! Times the latency figures of 100,000 GCs: pause percentiles alone, the exact MMU curve alone
//! (intervals + every window size), and everything `latency::analyze` computes (percentiles,
//! histogram, CDF, budget with its worst windows, % paused over time, MMU). Decoding and the model
//! are not timed: the pause log is built first.
//!
//! `cargo run --release -p gcscope-core --example latency_bench [TRACE]`: without TRACE, 100,000
//! synthetic GCs (deterministic: pauses 0.05-30 ms spread over three decades, gaps 0.2-5 ms, every
//! 10th a background GC with two pauses); with TRACE, that trace's GCs (e.g. the e2e GC-dense
//! trace: `--example bigtrace -- dense.nettrace 266 --threads 1 --gc-every-kib 1024`, 102,593 GCs).

use std::time::Instant;

use gcscope_core::gc::PauseSpan;
use gcscope_core::latency::{self, *};

struct Lcg(u64);
impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn synthetic(n: usize) -> (PauseLog, f64) {
    let mut r = Lcg(42);
    let mut log = PauseLog::default();
    let mut t = 10.0;
    for i in 0..n {
        // 10^(-1.3 .. 1.5) ms: most pauses short, a long tail.
        let pause = 10f64.powf(-1.3 + 2.8 * r.unit() * r.unit());
        let background = i % 10 == 9;
        let kind = if background {
            PauseKind::Background
        } else {
            [PauseKind::Gen0Blocking, PauseKind::Gen1Blocking][(i % 7 == 6) as usize]
        };
        log.pauses.push(Pause {
            number: i as u32 + 1,
            kind,
            start_ms: t,
            pause_ms: pause,
        });
        if background {
            let first = pause * 0.4;
            log.spans.push(PauseSpan {
                start_ms: t,
                end_ms: t + first,
            });
            let later = t + first + 1.0 + 3.0 * r.unit();
            log.spans.push(PauseSpan {
                start_ms: later,
                end_ms: later + pause - first,
            });
            t = later + pause - first;
        } else {
            log.spans.push(PauseSpan {
                start_ms: t,
                end_ms: t + pause,
            });
            t += pause;
        }
        t += 0.2 + 4.8 * r.unit();
    }
    (log, t + 10.0)
}

fn from_trace(path: &str) -> (PauseLog, f64) {
    let bytes = std::fs::read(path).expect("read the trace");
    let m = gcscope_core::gc::analyze(&bytes).expect("a trace");
    (PauseLog::from_gcs(&m.gcs), m.process.trace_duration_ms)
}

/// Best and median of `runs` timings of `f`, in ms.
fn time(runs: usize, mut f: impl FnMut() -> usize) -> (f64, f64, usize) {
    let mut v = Vec::new();
    let mut out = 0;
    for _ in 0..runs {
        let start = Instant::now();
        out = std::hint::black_box(f());
        v.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[0], v[runs / 2], out)
}

fn main() {
    let (log, len) = match std::env::args().nth(1) {
        Some(p) => from_trace(&p),
        None => synthetic(100_000),
    };
    let range = TimeRange::new(0.0, len);
    println!(
        "{} GCs, {} pause intervals, {:.0} ms of trace",
        log.pauses.len(),
        log.spans.len(),
        len
    );
    let (b, m, _) = time(7, || latency::percentiles(&log, range).len());
    println!("percentiles (6 kinds):              best {b:.1} ms, median {m:.1} ms");
    let (b, m, sizes) = time(7, || {
        let iv = Intervals::new(&log.spans, range);
        mmu(&iv, &window_sizes(len, 1.0)).len()
    });
    println!("MMU curve ({sizes} window sizes, exact):  best {b:.1} ms, median {m:.1} ms");
    let (b, m, _) = time(7, || {
        let iv = Intervals::new(&log.spans, range);
        latency::percentiles(&log, range).len() + mmu(&iv, &window_sizes(len, 1.0)).len()
    });
    println!("percentiles + MMU:                  best {b:.1} ms, median {m:.1} ms");
    let (b, m, _) = time(7, || {
        latency::analyze(&log, range, &Options::default()).mmu.len()
    });
    println!("everything (latency::analyze):      best {b:.1} ms, median {m:.1} ms");
}
