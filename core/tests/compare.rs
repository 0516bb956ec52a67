//! Comparing two traces whose differences are known before they are made: the generator's
//! workload (`encode::workload`) written twice with the same seed and allocation rate, once with a
//! 48 MB gen0 budget (A) and once with 12 MB (B), and once as server GC with 4 heaps (C). The
//! expected figures come from what the generator says it wrote (`Truth`: every GC's pause), not
//! from the model. Run with `--features encode`.
#![cfg(feature = "encode")]

use gcscope_core::compare::{compare, Comparison, RowLog, TraceDigest, Verdict};
use gcscope_core::encode::workload::{self, Config, Truth};
use gcscope_core::gc::analyze;
use gcscope_core::latency::Options;

fn trace(cfg: &Config, name: &str) -> (TraceDigest, Truth) {
    let mut bytes = Vec::new();
    let truth = workload::generate(cfg, &mut |b| bytes.extend_from_slice(b));
    let m = analyze(&bytes).unwrap();
    let mut rows = RowLog::default();
    for g in &m.gcs {
        rows.add(g);
    }
    (rows.digest(name.into(), &m, &Options::default()), truth)
}

fn figure(c: &Comparison, key: &str) -> (f64, f64, Verdict) {
    let f = c
        .figures
        .iter()
        .find(|f| f.key == key)
        .unwrap_or_else(|| panic!("{key}"));
    (f.a.unwrap(), f.b.unwrap(), f.verdict)
}

/// Nearest rank, by counting: the smallest pause that at least p % of the pauses do not exceed.
fn nearest_rank(pauses: &[f64], p: f64) -> f64 {
    let mut v = pauses.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    *v.iter()
        .find(|x| v.iter().filter(|y| y <= x).count() as f64 >= p / 100.0 * v.len() as f64 - 1e-9)
        .unwrap()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

#[test]
fn a_smaller_gen0_budget_means_more_gcs_more_time_paused_and_a_smaller_heap() {
    let base = Config {
        target_bytes: 6 << 20,
        ..Config::default()
    };
    let (a, ta) = trace(&base, "a");
    let small = Config {
        gen0_budget: 12 << 20,
        ..base.clone()
    };
    let (b, tb) = trace(&small, "b");
    let c = compare(&a, &b);

    // GC counts: what the generator wrote; about 4x as many with a quarter of the budget.
    let (na, nb, v) = figure(&c, "process.gc_count");
    assert_eq!((na as usize, nb as usize), (ta.gcs.len(), tb.gcs.len()));
    assert!(nb > 3.0 * na, "{na} -> {nb}");
    assert_eq!(v, Verdict::Worse);
    // Pauses: the generator's, summed and ranked here.
    let pa: Vec<f64> = ta.gcs.iter().map(|g| g.pause_ms).collect();
    let pb: Vec<f64> = tb.gcs.iter().map(|g| g.pause_ms).collect();
    let (x, y, _) = figure(&c, "rollup.all.total_pause_ms");
    assert!(close(x, pa.iter().sum(), 1e-9) && close(y, pb.iter().sum(), 1e-9));
    for (key, p) in [
        ("pauses.all.p50_ms", 50.0),
        ("pauses.all.p90_ms", 90.0),
        ("pauses.all.max_ms", 100.0),
    ] {
        let (x, y, _) = figure(&c, key);
        assert!(close(x, nearest_rank(&pa, p), 1e-9), "{key}");
        assert!(close(y, nearest_rank(&pb, p), 1e-9), "{key}");
    }
    // % time paused: the written pauses over each trace's length; B pauses about 4x as much of
    // the same time, which is worse.
    let (x, y, v) = figure(&c, "latency.paused_pct");
    assert!(close(
        x,
        pa.iter().sum::<f64>() * 100.0 / a.process.trace_duration_ms,
        1e-9
    ));
    assert!(close(
        y,
        pb.iter().sum::<f64>() * 100.0 / b.process.trace_duration_ms,
        1e-9
    ));
    assert!(y > 2.5 * x && v == Verdict::Worse, "{x} -> {y}");
    // The heap peaks at the gen0 budget: smaller with the smaller budget, which is better.
    let (x, y, v) = figure(&c, "rollup.all.max_peak_bytes");
    assert!(y < x && v == Verdict::Better, "{x} -> {y}");
    // Both allocate 1 MiB per ms while not paused: the rate up to the last GC is that times the
    // share of that time not paused (from the generator's pauses), a property of the workload
    // (neither better nor worse).
    let r = c
        .figures
        .iter()
        .find(|f| f.key == "alloc_rate_bytes_per_s")
        .unwrap();
    assert!(matches!(r.verdict, Verdict::Same | Verdict::Changed));
    for (rate, truth) in [(r.a.unwrap(), &ta), (r.b.unwrap(), &tb)] {
        let last = truth.gcs.last().unwrap();
        let paused: f64 = truth.gcs[..truth.gcs.len() - 1]
            .iter()
            .map(|g| g.pause_ms)
            .sum();
        let want = base.alloc_per_ms as f64 * (1.0 - paused / last.start_ms) * 1000.0;
        assert!(close(rate, want, 0.05), "{rate} vs {want}");
    }
    // Same process shape: the facts that do not depend on the budget are the same.
    for key in ["gc_mode", "heap_count", "pointer_size", "format"] {
        let f = c.facts.iter().find(|f| f.key == key).unwrap();
        assert!(f.same, "{key}: {} vs {}", f.a, f.b);
    }
    assert!(!c.facts.iter().find(|f| f.key == "gc_count").unwrap().same);
    // Histograms: every GC of each trace counted once, on shared buckets.
    assert_eq!(
        c.histograms.iter().map(|h| h.a as usize).sum::<usize>(),
        ta.gcs.len()
    );
    assert_eq!(
        c.histograms.iter().map(|h| h.b as usize).sum::<usize>(),
        tb.gcs.len()
    );
    // MMU curves on the same window sizes; the shorter trace's length is the last shared size.
    let both = c
        .mmu_curves
        .iter()
        .filter(|p| p.a.is_some() && p.b.is_some())
        .count();
    assert!(both >= 20, "{both} shared window sizes");
    // Heap over time: the bins cover both traces; every GC's allocation is in a bin.
    let alloc_a: f64 = c
        .over_time
        .iter()
        .filter_map(|t| t.a_alloc_rate_bytes_per_s)
        .map(|r| r * c.bin_ms / 1000.0)
        .sum();
    assert!(close(
        alloc_a,
        a.rollup[0].total_allocated_bytes as f64,
        1e-9
    ));
}

#[test]
fn server_against_workstation_names_the_mode_and_heaps_that_differ() {
    let base = Config {
        target_bytes: 4 << 20,
        ..Config::default()
    };
    let (a, _) = trace(&base, "wks");
    let (b, tb) = trace(&Config { heaps: 4, ..base }, "svr");
    let c = compare(&a, &b);
    let fact = |k: &str| c.facts.iter().find(|f| f.key == k).unwrap();
    assert_eq!(
        (fact("gc_mode").a.as_str(), fact("gc_mode").b.as_str()),
        ("workstation", "server")
    );
    assert_eq!(
        (fact("heap_count").a.as_str(), fact("heap_count").b.as_str()),
        ("1", "4")
    );
    assert!(!fact("heap_count").same);
    let (_, n, _) = figure(&c, "process.gc_count");
    assert_eq!(n as usize, tb.gcs.len());
}
