//! Writes a large, valid NetTrace file with a realistic event mix (see `gcscope_core::encode::workload`),
//! streamed to disk in bounded memory.
//!
//! ```text
//! cargo run --release -p gcscope-core --features encode --example bigtrace -- OUT.nettrace SIZE_MB [--v4] [--seed N]
//!     [--threads N] [--gc-every-kib N] [--heaps N] [--alloc-stacks]
//! ```
//! `--heaps 32` makes a server-GC trace with 32 heaps (one GCPerHeapHistory per heap per GC).
//! `--threads 1 --gc-every-kib 512` makes a GC-dense trace (~100,000 GCs in ~200 MB) for the
//! viewer's huge-table tests. `--crafted` writes the hostile trace of tiny events without sequence
//! points instead (`gcscope_core::encode::crafted`), for the ordering buffer's memory bound.
//! `--alloc-stacks` gives the allocation ticks stacks (300 distinct, 20 to 40 frames) and ends the
//! trace with the rundown's MethodDCEndVerbose for the methods they pass through, for
//! `gcscope stacks`' benchmark (docs/performance.md, "Stacks").
//! Prints a JSON line with what was written (GC count, total pause, events, bytes, seconds).

use std::io::Write;
use std::time::Instant;

use gcscope_core::encode::workload::{generate, Config};
use gcscope_core::encode::Flavor;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: bigtrace OUT.nettrace SIZE_MB [--v4] [--seed N] [--threads N] [--gc-every-kib N] [--heaps N] [--crafted] [--alloc-stacks]";
    let (Some(path), Some(mb)) = (
        args.first(),
        args.get(1).and_then(|s| s.parse::<f64>().ok()),
    ) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let mut cfg = Config {
        target_bytes: (mb * 1024.0 * 1024.0) as u64,
        ..Config::default()
    };
    let mut crafted = false;
    let mut i = 2;
    while i < args.len() {
        match args[i].as_str() {
            "--v4" => cfg.flavor = Flavor::V4,
            "--crafted" => crafted = true,
            "--alloc-stacks" => cfg.alloc_stacks = true,
            "--seed" => {
                i += 1;
                cfg.seed = args.get(i).and_then(|s| s.parse().ok()).unwrap_or_else(|| {
                    eprintln!("{usage}");
                    std::process::exit(2)
                });
            }
            "--threads" => {
                i += 1;
                cfg.threads = args.get(i).and_then(|s| s.parse().ok()).unwrap_or_else(|| {
                    eprintln!("{usage}");
                    std::process::exit(2)
                });
            }
            "--gc-every-kib" => {
                i += 1;
                let kib: u64 = args.get(i).and_then(|s| s.parse().ok()).unwrap_or_else(|| {
                    eprintln!("{usage}");
                    std::process::exit(2)
                });
                cfg.gen0_budget = kib.max(1) << 10;
            }
            "--heaps" => {
                i += 1;
                cfg.heaps = args
                    .get(i)
                    .and_then(|s| s.parse().ok())
                    .filter(|&n| (1..=1024).contains(&n))
                    .unwrap_or_else(|| {
                        eprintln!("--heaps takes 1 to 1024\n{usage}");
                        std::process::exit(2)
                    });
            }
            other => {
                eprintln!("unknown argument {other}\n{usage}");
                std::process::exit(2);
            }
        }
        i += 1;
    }
    let file = std::fs::File::create(path).unwrap_or_else(|e| {
        eprintln!("cannot create {path}: {e}");
        std::process::exit(1)
    });
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut failed = None;
    let started = Instant::now();
    let mut write = |bytes: &[u8]| {
        if failed.is_none() {
            if let Err(e) = out.write_all(bytes) {
                failed = Some(e);
            }
        }
    };
    if crafted {
        let c = gcscope_core::encode::crafted::tiny_events_without_sequence_points(
            cfg.target_bytes,
            &mut write,
        );
        if let Some(e) = failed.or_else(|| out.flush().err()) {
            eprintln!("cannot write {path}: {e}");
            std::process::exit(1);
        }
        println!(
            "{{\"path\":{path:?},\"bytes\":{},\"events\":{},\"sequence_points\":0,\"seconds\":{:.3}}}",
            c.bytes,
            c.events,
            started.elapsed().as_secs_f64()
        );
        return;
    }
    let truth = generate(&cfg, &mut write);
    if let Some(e) = failed.or_else(|| out.flush().err()) {
        eprintln!("cannot write {path}: {e}");
        std::process::exit(1);
    }
    let pause: f64 = truth.gcs.iter().map(|g| g.pause_ms).sum();
    let gens = |g: u32| truth.gcs.iter().filter(|x| x.gen == g).count();
    println!(
        "{{\"path\":{path:?},\"bytes\":{},\"events\":{},\"gcs\":{},\"gen0\":{},\"gen1\":{},\"gen2\":{},\"total_pause_ms\":{pause:.6},\"samples\":{},\"allocation_ticks\":{},\"method_loads\":{},\"stacks\":{},\"sequence_points\":{},\"seconds\":{:.3}}}",
        truth.bytes,
        truth.events,
        truth.gcs.len(),
        gens(0),
        gens(1),
        gens(2),
        truth.samples,
        truth.allocation_ticks,
        truth.method_loads,
        truth.stacks,
        truth.sequence_points,
        started.elapsed().as_secs_f64()
    );
}
