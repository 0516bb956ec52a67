//! The latency figures against computations that do not use the code under test: percentiles
//! against a count over the sorted pauses, histogram counts by direct counting, the MMU against a
//! brute force over every window (every integer start on integer inputs; every breakpoint of
//! the paused-time function on the real fixtures), utilization and budget windows against direct
//! overlap sums; on the fixtures (every runtime), pause percentiles against TraceEvent's own per-GC pauses and
//! % time paused against TraceEvent's TotalPauseTimeMSec, ProcessDuration and session length.

use std::path::Path;

use gcscope_core::gc::{analyze as analyze_trace, GcModel, GcType, PauseSpan};
use gcscope_core::latency::{self, *};
use serde_json::Value;

/// A deterministic pseudo-random sequence (a 64-bit LCG), so failures reproduce.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Paused time of `spans` (possibly overlapping) inside `[a, b]`, by marking time: the union's
/// overlap with the window, summed interval by interval after a merge done here by hand.
fn direct_paused(spans: &[(f64, f64)], a: f64, b: f64) -> f64 {
    let mut v: Vec<(f64, f64)> = spans
        .iter()
        .map(|&(s, e)| (s.max(a), e.min(b)))
        .filter(|(s, e)| e > s)
        .collect();
    v.sort_by(|x, y| x.0.partial_cmp(&y.0).unwrap());
    let (mut total, mut cur): (f64, Option<(f64, f64)>) = (0.0, None);
    for (s, e) in v {
        cur = match cur {
            Some((cs, ce)) if s <= ce => Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                total += ce - cs;
                Some((s, e))
            }
            None => Some((s, e)),
        };
    }
    if let Some((cs, ce)) = cur {
        total += ce - cs;
    }
    total
}

fn log_of(spans: &[(f64, f64)]) -> PauseLog {
    let mut log = PauseLog::default();
    for (i, &(s, e)) in spans.iter().enumerate() {
        log.pauses.push(Pause {
            number: i as u32 + 1,
            kind: PauseKind::Gen0Blocking,
            start_ms: s,
            pause_ms: e - s,
        });
        log.spans.push(PauseSpan {
            start_ms: s,
            end_ms: e,
        });
    }
    log
}

/// Nearest-rank percentile by its definition: the smallest pause `v` such that at least p % of
/// the pauses are <= v (counted), p in thousandths of a percent.
fn percentile_by_count(pauses: &[f64], p: u32) -> Option<f64> {
    let n = pauses.len() as u64;
    let mut candidates = pauses.to_vec();
    candidates.sort_by(|a, b| a.partial_cmp(b).unwrap());
    candidates
        .into_iter()
        .find(|v| pauses.iter().filter(|x| *x <= v).count() as u64 * 100_000 >= p as u64 * n)
}

#[test]
fn percentiles_are_the_nearest_rank_by_count() {
    let mut r = Lcg(7);
    for n in [1usize, 2, 3, 10, 99, 100, 101, 999, 1000, 1001, 2500] {
        // Pauses with ties (a few distinct values) and a long tail.
        let pauses: Vec<f64> = (0..n)
            .map(|_| match r.below(10) {
                0 => 50.0 + r.below(1000) as f64,
                1..=3 => 1.0,
                _ => r.below(5000) as f64 / 1000.0,
            })
            .collect();
        let log = PauseLog {
            pauses: pauses
                .iter()
                .enumerate()
                .map(|(i, &p)| Pause {
                    number: i as u32,
                    kind: if i % 3 == 0 {
                        PauseKind::Background
                    } else {
                        PauseKind::Gen1Blocking
                    },
                    start_ms: i as f64 * 100.0,
                    pause_ms: p,
                })
                .collect(),
            spans: vec![],
        };
        let stats = latency::percentiles(&log, TimeRange::new(0.0, 1e12));
        let all = &stats[0];
        assert_eq!((all.kind.as_ref(), all.count as usize), ("all", n));
        for (p, have) in [
            (50_000, all.p50_ms),
            (90_000, all.p90_ms),
            (95_000, all.p95_ms),
            (99_000, all.p99_ms),
            (99_900, all.p999_ms),
        ] {
            assert_eq!(have, percentile_by_count(&pauses, p), "n={n} p={p}");
        }
        assert_eq!(all.max_ms, pauses.iter().copied().reduce(f64::max), "n={n}");
        // Per kind: the background row has exactly the background GCs' pauses.
        let bg: Vec<f64> = pauses.iter().step_by(3).copied().collect();
        let row = stats.iter().find(|s| s.kind == "background").unwrap();
        assert_eq!(row.count as usize, bg.len());
        assert_eq!(row.p99_ms, percentile_by_count(&bg, 99_000));
        let g0 = stats.iter().find(|s| s.kind == "gen0_blocking").unwrap();
        assert_eq!((g0.count, g0.p50_ms), (0, None));
    }
}

#[test]
fn histogram_counts_every_pause_once_in_the_bucket_that_holds_it() {
    let mut r = Lcg(11);
    let pauses: Vec<f64> = (0..5000)
        .map(|_| r.below(1 << 20) as f64 / (1u64 << r.below(20)) as f64)
        .chain([0.0, 0.01, 0.02, 0.05, 1.0, 2.0, 5.0, 1000.0])
        .collect();
    let log = log_of(&pauses.iter().map(|&p| (0.0, p)).collect::<Vec<_>>());
    let h = histogram(&log.pauses);
    // Buckets are contiguous and every pause is counted in exactly the bucket [lo, hi) it is in.
    for pair in h.windows(2) {
        assert_eq!(pair[0].hi_ms, pair[1].lo_ms);
    }
    let mut total = 0;
    for b in &h {
        let direct = pauses
            .iter()
            .filter(|&&p| p >= b.lo_ms && p < b.hi_ms)
            .count();
        assert_eq!(b.count as usize, direct, "{b:?}");
        total += b.count as usize;
    }
    assert_eq!(total, pauses.len());
    // The edges are the 1-2-5 series: 0, 10 µs, 20 µs, 50 µs, 0.1 ms ... 1 s, 2 s.
    assert_eq!(h[0].lo_ms, 0.0);
    assert_eq!(h[0].hi_ms, 0.01);
    assert!(h.iter().any(|b| b.lo_ms == 1000.0 && b.hi_ms == 2000.0));
}

#[test]
fn the_cdf_is_the_share_of_pauses_no_longer_than_each_point() {
    for n in [5usize, 1280, 5000] {
        let mut r = Lcg(n as u64);
        let mut pauses: Vec<f64> = (0..n).map(|_| r.below(100_000) as f64 / 100.0).collect();
        pauses.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let c = cdf(&pauses);
        assert_eq!(c.len(), n.min(CDF_POINTS + CDF_TAIL));
        for p in &c {
            // At a point the share of pauses <= it is at least its pct, and the pauses strictly
            // shorter are fewer (it is a step of the empirical CDF).
            let le = pauses.iter().filter(|&&x| x <= p.pause_ms).count() as f64;
            let lt = pauses.iter().filter(|&&x| x < p.pause_ms).count() as f64;
            assert!(le * 100.0 / n as f64 >= p.pct - 1e-9, "{p:?}");
            assert!(lt * 100.0 / (n as f64) < p.pct + 1e-9, "{p:?}");
        }
        assert_eq!(c.last().unwrap().pct, 100.0);
        assert_eq!(c.last().unwrap().pause_ms, *pauses.last().unwrap());
        // The 256 longest pauses are all there.
        let tail: Vec<f64> = c
            .iter()
            .rev()
            .take(CDF_TAIL.min(n))
            .map(|p| p.pause_ms)
            .collect();
        let want: Vec<f64> = pauses.iter().rev().take(CDF_TAIL.min(n)).copied().collect();
        assert_eq!(tail, want);
    }
}

/// Random disjoint or overlapping integer spans in [0, len).
fn random_spans(r: &mut Lcg, n: usize, len: u64, overlap: bool) -> Vec<(f64, f64)> {
    let mut v = Vec::new();
    let mut t = 0;
    for _ in 0..n {
        let gap = r.below(len / n as u64 + 1);
        let start = if overlap { r.below(len) } else { t + gap };
        let end = start + 1 + r.below(len / n as u64 / 2 + 2);
        if end >= len {
            break;
        }
        t = end;
        v.push((start as f64, end as f64));
    }
    v
}

#[test]
fn mmu_equals_a_brute_force_over_every_window_on_integer_inputs() {
    // With integer pause ends and an integer window, the paused time's breakpoints are integers,
    // so the worst window over every integer start is the worst window over every start.
    for seed in 0..40u64 {
        let mut r = Lcg(seed);
        let len = 50 + r.below(400);
        let count = 1 + r.below(25) as usize;
        let spans = random_spans(&mut r, count, len, seed % 3 == 0);
        let (from, to) = (r.below(10) as f64, len as f64 - r.below(10) as f64);
        let range = TimeRange::new(from, to);
        let log = log_of(&spans);
        let iv = Intervals::new(&log.spans, range);
        assert!((iv.total() - direct_paused(&spans, from, to)).abs() < 1e-9);
        for w in 1..=(to - from) as u64 {
            let w = w as f64;
            let brute = (from as u64..=(to - w) as u64)
                .map(|t| direct_paused(&spans, t as f64, t as f64 + w))
                .fold(0.0, f64::max);
            let (t, paused) = worst_window(&iv, w).unwrap();
            assert!(
                (paused - brute).abs() < 1e-9,
                "seed {seed} w {w}: {paused} vs {brute}"
            );
            // The window it names has that much pause.
            assert!((direct_paused(&spans, t, t + w) - paused).abs() < 1e-9);
            assert!(t >= from && t + w <= to + 1e-9);
        }
        // The curve: utilization of the worst window, and the full range's is 100 - % paused.
        let sizes = window_sizes(to - from, 1.0);
        let curve = mmu(&iv, &sizes);
        assert_eq!(curve.len(), sizes.len());
        let whole = curve.last().unwrap();
        assert_eq!(whole.window_ms, to - from);
        let want = 100.0 - direct_paused(&spans, from, to) * 100.0 / (to - from);
        assert!((whole.min_utilization_pct - want).abs() < 1e-9);
        assert!(worst_window(&iv, to - from + 1.0).is_none());
    }
}

#[test]
fn utilization_windows_and_budget_windows_match_direct_sums() {
    let mut r = Lcg(99);
    let spans = random_spans(&mut r, 300, 100_000, false);
    let range = TimeRange::new(0.0, 100_000.0);
    let log = log_of(&spans);
    let iv = Intervals::new(&log.spans, range);
    let u = over_time(&iv, 700.0);
    assert_eq!(u.window_ms, 700.0);
    assert_eq!(u.windows.len(), 143); // 142 full windows and a last one of 600
    for w in &u.windows {
        let want = direct_paused(&spans, w.start_ms, w.end_ms) * 100.0 / (w.end_ms - w.start_ms);
        assert!((w.paused_pct - want).abs() < 1e-9, "{w:?}");
    }
    assert_eq!(u.windows.last().unwrap().end_ms, 100_000.0);
    // A window that would make more than MAX_WINDOWS is widened.
    assert_eq!(over_time(&iv, 1.0).windows.len(), MAX_WINDOWS);

    let b = budget(&log.pauses, &iv, 100.0, 2000.0);
    let over: Vec<f64> = spans
        .iter()
        .map(|(s, e)| e - s)
        .filter(|p| *p > 100.0)
        .collect();
    assert_eq!(b.over_budget as usize, over.len());
    assert!((b.time_over_budget_ms - over.iter().map(|p| p - 100.0).sum::<f64>()).abs() < 1e-6);
    assert_eq!(
        b.worst_gcs[0].pause_ms,
        over.iter().copied().fold(0.0, f64::max)
    );
    assert!(!b.worst_windows.is_empty());
    // The first is the worst window anywhere; each has the pause it says; none overlap.
    let (_, worst) = worst_window(&iv, 2000.0).unwrap();
    assert_eq!(b.worst_windows[0].paused_ms, worst);
    for (i, w) in b.worst_windows.iter().enumerate() {
        assert!((direct_paused(&spans, w.start_ms, w.end_ms) - w.paused_ms).abs() < 1e-9);
        let gcs = spans
            .iter()
            .filter(|(s, _)| *s >= w.start_ms && *s < w.end_ms);
        assert_eq!(w.gcs as usize, gcs.clone().count());
        assert_eq!(
            w.over_budget as usize,
            gcs.filter(|(s, e)| e - s > 100.0).count()
        );
        for v in &b.worst_windows[..i] {
            assert!(w.start_ms >= v.end_ms || w.end_ms <= v.start_ms);
            assert!(w.paused_ms <= v.paused_ms);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The real traces.

fn fixtures() -> Vec<(String, GcModel, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let mut out = Vec::new();
    // Every runtime's folder (.NET Core 3.1, 8, 9, 10) and every workload in it.
    let mut traces: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flat_map(|rt| std::fs::read_dir(rt.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "nettrace"))
        .collect();
    traces.sort();
    for path in traces {
        let base = path.with_extension("");
        let m = analyze_trace(&std::fs::read(&path).unwrap()).unwrap();
        let te: Value = serde_json::from_str(
            &std::fs::read_to_string(base.with_extension("traceevent.json")).unwrap(),
        )
        .unwrap();
        let name = base
            .strip_prefix(&dir)
            .unwrap_or(&base)
            .display()
            .to_string();
        out.push((name, m, te));
    }
    assert!(out.len() >= 32, "{} fixtures", out.len());
    out
}

/// The model's pause spans of every complete GC, as (start, end).
fn model_spans(m: &GcModel) -> Vec<(f64, f64)> {
    let mut v = Vec::new();
    for g in m.gcs.iter().filter(|g| g.complete) {
        let Some(p) = g.pause_ms else { continue };
        if g.gc_type == GcType::Background {
            v.extend(g.bgc_pauses.iter().map(|s| (s.start_ms, s.end_ms)));
        } else {
            v.push((g.start_ms, g.start_ms + p));
        }
    }
    v
}

/// Seconds since the epoch of TraceEvent's ISO time ("2026-11-23T00:49:05.2870000+00:00"),
/// only as far as the difference of two of them needs: same day, UTC.
fn seconds_of_day(iso: &str) -> f64 {
    let t = iso.split('T').nth(1).unwrap();
    let t = &t[..t.find('+').unwrap_or(t.len())];
    let mut parts = t.split(':');
    let h: f64 = parts.next().unwrap().parse().unwrap();
    let m: f64 = parts.next().unwrap().parse().unwrap();
    let s: f64 = parts.next().unwrap().parse().unwrap();
    h * 3600.0 + m * 60.0 + s
}

#[test]
fn background_gc_pauses_add_up_and_no_two_pauses_overlap_in_the_fixtures() {
    let mut bgcs = 0;
    for (name, m, _) in fixtures() {
        for g in m.gcs.iter().filter(|g| g.gc_type == GcType::Background) {
            let Some(p) = g.pause_ms else { continue };
            bgcs += 1;
            let sum: f64 = g.bgc_pauses.iter().map(|s| s.end_ms - s.start_ms).sum();
            assert!(
                (sum - p).abs() < 1e-9,
                "{name} GC {}: {sum} vs {p}",
                g.number
            );
            assert_eq!(
                g.bgc_pauses[0].start_ms, g.start_ms,
                "{name} GC {}",
                g.number
            );
        }
        let mut spans = model_spans(&m);
        spans.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
        for pair in spans.windows(2) {
            assert!(pair[0].1 <= pair[1].0, "{name}: {pair:?} overlap");
        }
        assert!(spans.last().unwrap().1 <= m.process.trace_duration_ms);
    }
    assert!(bgcs >= 10, "{bgcs} background GCs");
}

#[test]
fn fixtures_mmu_and_utilization_equal_a_brute_force_over_every_breakpoint() {
    for (name, m, _) in fixtures() {
        let spans = model_spans(&m);
        let range = TimeRange::new(0.0, m.process.trace_duration_ms);
        let log = PauseLog::from_gcs(&m.gcs);
        let lat = latency::analyze(&log, range, &Options::default());
        assert!((lat.paused_ms - direct_paused(&spans, 0.0, range.end_ms)).abs() < 1e-9);
        // Every place the paused-time function of the window start can bend (either edge at a
        // pause start or end), clamped into the range, plus 2,000 evenly spaced starts.
        for p in &lat.mmu {
            let w = p.window_ms;
            let last = range.end_ms - w;
            let mut starts = vec![0.0, last];
            for &(s, e) in &spans {
                starts.extend([s, e, s - w, e - w].map(|t| t.clamp(0.0, last)));
            }
            starts.extend((0..2000).map(|i| last * i as f64 / 1999.0));
            let brute = starts
                .iter()
                .map(|&t| direct_paused(&spans, t, t + w))
                .fold(0.0, f64::max);
            let want = 100.0 - brute * 100.0 / w;
            assert!(
                (p.min_utilization_pct - want).abs() < 1e-7,
                "{name} w {w}: {} vs {want}",
                p.min_utilization_pct
            );
        }
        // Window sizes run from 1 ms to the trace's length.
        assert_eq!(lat.mmu[0].window_ms, 1.0);
        assert_eq!(lat.mmu.last().unwrap().window_ms, range.end_ms);
        for w in &lat.utilization.windows {
            let want =
                direct_paused(&spans, w.start_ms, w.end_ms) * 100.0 / (w.end_ms - w.start_ms);
            assert!((w.paused_pct - want).abs() < 1e-7, "{name} {w:?}");
        }
    }
}

#[test]
fn fixtures_percentiles_equal_traceevents_pauses_sorted_and_pct_paused_its_ratios() {
    let mut compared = 0;
    let all_fixtures = fixtures();
    let n = all_fixtures.len();
    for (name, m, te) in all_fixtures {
        let log = PauseLog::from_gcs(&m.gcs);
        let range = TimeRange::new(0.0, m.process.trace_duration_ms);
        let stats = latency::percentiles(&log, range);
        // Against the model's own rows, sorted here.
        let mine: Vec<f64> = m
            .gcs
            .iter()
            .filter(|g| g.complete)
            .filter_map(|g| g.pause_ms)
            .collect();
        assert_eq!(stats[0].count as usize, mine.len(), "{name}");
        assert_eq!(
            stats[0].p90_ms,
            percentile_by_count(&mine, 90_000),
            "{name}"
        );
        let gen0: Vec<f64> = m
            .gcs
            .iter()
            .filter(|g| g.complete && g.gen == 0 && g.gc_type == GcType::NonConcurrent)
            .filter_map(|g| g.pause_ms)
            .collect();
        let row = stats.iter().find(|s| s.kind == "gen0_blocking").unwrap();
        assert_eq!(row.p50_ms, percentile_by_count(&gen0, 50_000), "{name}");
        let all = &m.rollup[0];
        let sum: u32 = stats[1..].iter().map(|s| s.count).sum();
        assert_eq!(sum, stats[0].count, "{name}: every GC has a kind");

        let gs = &te["gc_stats"];
        let te_total = gs["TotalPauseTimeMSec"].as_f64().unwrap();
        let te_span = gs["ProcessDuration"].as_f64().unwrap();
        let session = (seconds_of_day(te["SessionEndTime"].as_str().unwrap())
            - seconds_of_day(te["SessionStartTime"].as_str().unwrap()))
            * 1000.0;
        // The GC span is TraceEvent's ProcessDuration; the trace's length its session's.
        assert!((m.process.gc_span_ms - te_span).abs() < 0.01, "{name}");
        assert!(
            (m.process.trace_duration_ms - session).abs() < 0.01,
            "{name}"
        );
        let pct = all.pause_time_pct.unwrap();
        assert!(pct <= 100.0 && (pct - all.total_pause_ms * 100.0 / session).abs() < 0.01);
        // Where the model's pauses are TraceEvent's (all but the traces with a background GC
        // run inside its first suspension: model_fixtures.rs, difference 6), the figures are
        // TraceEvent's: its pauses sorted, its total over its two denominators.
        if (all.total_pause_ms - te_total).abs() > 0.01 {
            continue;
        }
        compared += 1;
        let te_pauses: Vec<f64> = te["gcs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["IsComplete"].as_bool() == Some(true))
            .map(|g| g["PauseDurationMSec"].as_f64().unwrap())
            .collect();
        assert_eq!(te_pauses.len(), stats[0].count as usize, "{name}");
        for (p, have) in [
            (50_000, stats[0].p50_ms),
            (99_000, stats[0].p99_ms),
            (100_000, stats[0].max_ms),
        ] {
            let want = percentile_by_count(&te_pauses, p).unwrap();
            assert!((have.unwrap() - want).abs() < 0.01, "{name} p{p}");
        }
        assert!((pct - te_total * 100.0 / session).abs() < 0.01, "{name}");
        let te_pct = te_total * 100.0 / te_span;
        assert!(
            (all.gc_span_pause_pct.unwrap() - te_pct).abs() < 0.01,
            "{name}: {:?} vs TraceEvent's {te_pct}",
            all.gc_span_pause_pct
        );
    }
    eprintln!("{compared} of {n} traces compared with TraceEvent");
    assert!(compared >= 20, "{compared} traces compared with TraceEvent");
}

#[test]
fn a_time_range_counts_the_pauses_that_start_in_it_and_cuts_the_others() {
    let spans = [(10.0, 12.0), (20.0, 30.0), (50.0, 51.0)];
    let log = log_of(&spans);
    let lat = latency::analyze(&log, TimeRange::new(25.0, 60.0), &Options::default());
    // GCs: the one starting at 50 (the one at 20 started before the range).
    assert_eq!(lat.pauses[0].count, 1);
    // Paused time: 25-30 and 50-51.
    assert_eq!(lat.paused_ms, 6.0);
    assert_eq!(lat.paused_pct, Some(6.0 * 100.0 / 35.0));
    // 1 ms windows: the worst is fully paused, and the MMU at the range's length is 100 - % paused.
    assert_eq!(lat.mmu[0].min_utilization_pct, 0.0);
    assert_eq!(
        lat.mmu.last().unwrap().min_utilization_pct,
        100.0 - 6.0 * 100.0 / 35.0
    );
    let empty = latency::analyze(&log, TimeRange::new(60.0, 60.0), &Options::default());
    assert_eq!((empty.pauses[0].count, empty.paused_pct), (0, None));
    assert!(empty.mmu.is_empty() && empty.utilization.windows.is_empty());
}
