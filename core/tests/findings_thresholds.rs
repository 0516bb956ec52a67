//! Every findings rule with a threshold, on traces crafted with the project's encoder
//! (`core::encode`) to sit just below and just above it: found above, not found below. The
//! expected numbers are worked out by hand from what the test puts into the events (see
//! `findings_support`: a blocking GC pauses `suspend + 0.001 + work + 0.003` ms).
//! Run with `--features encode`.
#![cfg(feature = "encode")]

mod findings_support;

use findings_support::*;
use gcscope_core::findings::{Goal, Outcome, Settings, Severity};

fn default() -> Settings {
    Settings::default()
}

/// `n` ordinary gen0 GCs, one every 100 ms from 10 ms, each pausing 1.014 ms.
fn quiet(t: &mut Trace, n: u32) {
    for i in 0..n {
        t.gc(Gc::new(i + 1, 10.0 + 100.0 * f64::from(i)));
    }
}

#[test]
fn suspension_at_10_ms_is_found_and_just_below_is_not() {
    for (suspend, found) in [(9.9, false), (10.1, true)] {
        let mut t = Trace::new();
        quiet(&mut t, 5);
        t.gc(Gc::new(6, 600.0).suspend(suspend));
        let r = t.report(&default());
        let f = finding(&r, "suspension");
        assert_eq!(f.is_some(), found, "suspend {suspend} ms");
        if let Some(f) = f {
            assert_eq!(f.severity, Severity::Critical);
            assert!(f.definitive);
            assert_eq!(f.evidence.gcs, [6]);
            assert!(close(figure(f, "longest suspension"), 10.1));
            // The other five suspended 0.01 ms: the median of the six is 0.01.
            assert!(close(figure(f, "median suspension (all GCs)"), 0.01));
        } else {
            assert_eq!(outcome(&r, "suspension"), Outcome::Clear);
        }
    }
}

/// Peers: four gen0 GCs doing 2 ms of work for 1 MB promoted. The candidate promotes 1.5 MB (a
/// factor 1.5: a peer of each) and works `w` ms: an outlier from 5 x median(2, 2, 2, 2) = 10 ms
/// and the 10 ms floor on.
#[test]
fn a_gc_five_times_its_peers_work_is_an_outlier() {
    let run = |peers: u32, peer_work: f64, cand_promoted: u64, w: f64| {
        let mut t = Trace::new();
        for i in 0..peers {
            t.gc(Gc::new(i + 1, 10.0 + 100.0 * f64::from(i)).work(peer_work));
        }
        t.gc(Gc::new(peers + 1, 1000.0).work(w).promoted(cand_promoted));
        t.report(&default())
    };
    // Factor: 9.9 < 10 (both the factor and the floor) / 10.1.
    assert!(finding(&run(4, 2.0, 1_500_000, 9.9), "long-gc-outlier").is_none());
    let r = run(4, 2.0, 1_500_000, 10.1);
    let f = finding(&r, "long-gc-outlier").expect("found");
    assert_eq!(f.evidence.gcs, [5]);
    assert_eq!(
        f.severity,
        Severity::Warning,
        "a chosen threshold: at most a warning"
    );
    assert!(close(figure(f, "worst GC work"), 10.1) && close(figure(f, "its peers' median"), 2.0));
    // Factor above the floor: peers at 3 ms need 15 ms: 14.9 is not, 15.1 is.
    assert!(finding(&run(4, 3.0, 1_500_000, 14.9), "long-gc-outlier").is_none());
    assert!(finding(&run(4, 3.0, 1_500_000, 15.1), "long-gc-outlier").is_some());
    // Peers: 2 are too few to judge by, even at 50 ms.
    assert!(finding(&run(2, 2.0, 1_500_000, 50.0), "long-gc-outlier").is_none());
    // About the same promoted: within a factor 2. 2.1 MB against 1 MB is not a peer's load.
    assert!(finding(&run(4, 2.0, 2_100_000, 50.0), "long-gc-outlier").is_none());
    assert!(finding(&run(4, 2.0, 1_900_000, 50.0), "long-gc-outlier").is_some());
}

#[test]
fn most_gen2_gcs_blocking_means_more_than_half_of_at_least_three() {
    // (blocking gen2 GCs, background gen2 GCs, found)
    for (blocking, background, found) in [(2, 1, true), (2, 2, false), (2, 0, false), (3, 0, true)]
    {
        let mut t = Trace::new();
        let mut n = 0;
        let mut at = 10.0;
        for _ in 0..blocking {
            n += 1;
            t.gc(Gc::new(n, at).gen(2));
            at += 100.0;
        }
        for _ in 0..background {
            n += 1;
            t.gc(Gc::new(n, at).background().work(20.0));
            at += 100.0;
        }
        let r = t.report(&default());
        let f = finding(&r, "mostly-blocking-gen2");
        assert_eq!(
            f.is_some(),
            found,
            "{blocking} blocking, {background} background"
        );
        if let Some(f) = f {
            assert_eq!(f.severity, Severity::Critical);
            let share = 100.0 * f64::from(blocking) / f64::from(blocking + background);
            assert!(close(figure(f, "blocking share"), share));
            assert_eq!(f.evidence.gcs.len(), blocking as usize);
        }
    }
}

/// 11 GCs at 10, 110, ... 1010 ms, each pausing P ms (work = P - 0.014): total 11 P over the span
/// from 10 ms to the last GC's GCHeapStats (TraceEvent's ProcessDuration), 0.001 ms after its GCEnd
/// at 1010 + P - 0.003, so % = 11 P / (1000 + P - 0.002) x 100. P = 4.5 gives 4.928%, P = 4.6
/// gives 5.037%; the threshold is 5%.
#[test]
fn pause_time_over_5_percent_is_found() {
    for (p, found) in [(4.5, false), (4.6, true)] {
        let mut t = Trace::new();
        for i in 0..11 {
            t.gc(Gc::new(i + 1, 10.0 + 100.0 * f64::from(i)).work(p - 0.014));
        }
        let want = 11.0 * p / (1000.0 + p - 0.002) * 100.0;
        let r = t.report(&default());
        assert_eq!(finding(&r, "pause-time").is_some(), found, "pause {p} ms");
        if let Some(f) = finding(&r, "pause-time") {
            assert!(
                (figure(f, "% of time paused") - want).abs() < 1e-6,
                "{want}"
            );
            assert_eq!(
                f.severity,
                Severity::Warning,
                "the throughput goal's metric"
            );
        }
        // The latency goal makes it info (MD Table 3: throughput watches % paused).
        let latency = t.report(&Settings {
            goal: Goal::Latency,
            ..default()
        });
        if found {
            assert_eq!(
                finding(&latency, "pause-time").unwrap().severity,
                Severity::Info
            );
        }
    }
}

#[test]
fn a_pause_over_the_budget_is_found() {
    // Pause = 0.01 + 0.001 + work + 0.003: work 99.886 -> 99.9 ms, 100.086 -> 100.1 ms.
    for (work, found) in [(99.886, false), (100.086, true)] {
        let mut t = Trace::new();
        quiet(&mut t, 3);
        t.gc(Gc::new(4, 400.0).work(work));
        let r = t.report(&Settings {
            goal: Goal::Latency,
            ..default()
        });
        let f = finding(&r, "pauses-over-budget");
        assert_eq!(f.is_some(), found, "work {work}");
        if let Some(f) = f {
            assert_eq!(f.evidence.gcs, [4]);
            assert_eq!(f.severity, Severity::Warning);
            assert!(close(figure(f, "longest pause"), 100.1));
        }
    }
    // The budget is a setting: 50 ms finds the 60 ms pause, 70 ms does not.
    let mut t = Trace::new();
    quiet(&mut t, 3);
    t.gc(Gc::new(4, 400.0).work(60.0 - 0.014));
    let at = |budget: f64| {
        finding(
            &t.report(&Settings {
                pause_budget_ms: budget,
                ..default()
            }),
            "pauses-over-budget",
        )
        .map(|f| f.evidence.gcs.clone())
    };
    assert_eq!(at(50.0), Some(vec![4]));
    assert_eq!(at(70.0), None);
}

#[test]
fn one_induced_gc_is_found_by_kind() {
    let mut t = Trace::new();
    quiet(&mut t, 4);
    assert!(finding(&t.report(&default()), "induced").is_none());
    t.gc(Gc::new(5, 500.0).gen(2).reason(INDUCED));
    t.gc(Gc::new(6, 600.0).gen(1).reason(INDUCED_NOT_FORCED));
    let r = t.report(&default());
    let f = finding(&r, "induced").expect("found");
    assert_eq!(f.evidence.gcs, [5, 6]);
    assert!(
        f.summary.contains("1 Induced, 1 InducedNotForced"),
        "{}",
        f.summary
    );
    assert_eq!(figure(f, "induced GCs"), 2.0);
    assert_eq!(figure(f, "blocking"), 2.0);
}

#[test]
fn loh_triggered_gen2_must_be_the_most_common_gen2_trigger() {
    // (AllocLarge gen2 GCs, other gen2 GCs, found)
    for (large, other, found) in [(2, 1, true), (2, 2, false), (1, 0, false)] {
        let mut t = Trace::new();
        let mut n = 0;
        for _ in 0..large {
            n += 1;
            t.gc(Gc::new(n, 100.0 * f64::from(n)).gen(2).reason(ALLOC_LARGE));
        }
        for _ in 0..other {
            n += 1;
            t.gc(Gc::new(n, 100.0 * f64::from(n)).gen(2));
        }
        let r = t.report(&default());
        assert_eq!(
            finding(&r, "loh-triggered-gen2").is_some(),
            found,
            "{large} vs {other}"
        );
    }
}

/// A background GC from 100 to ~1,100 ms; a thread waits on LOH allocation during it.
#[test]
fn a_loh_allocation_wait_over_200_ms_is_found() {
    let base = || {
        let mut t = Trace::new();
        quiet(&mut t, 1);
        t.gc(Gc::new(2, 100.0).background().work(1000.0));
        t
    };
    // Without the private events the rule cannot look.
    assert_eq!(
        outcome(&base().report(&default()), "loh-alloc-waits"),
        Outcome::NotChecked
    );
    for (wait, found) in [(199.9, false), (200.1, true)] {
        let mut t = base();
        t.loh_wait(0x300, 300.0, 300.0 + wait, 10);
        let r = t.report(&default());
        assert_eq!(
            outcome(&r, "loh-alloc-waits") == Outcome::Found,
            found,
            "wait {wait}"
        );
        if let Some(f) = finding(&r, "loh-alloc-waits") {
            assert!((figure(f, "longest wait") - 200.1).abs() < 1e-6);
            // The background GC in progress when it began.
            assert_eq!(f.evidence.gcs, [2]);
        }
    }
}

#[test]
fn memory_load_of_90_percent_or_a_heap_at_90_percent_of_the_hard_limit_is_found() {
    for (load, found) in [(89, false), (90, true)] {
        let mut t = Trace::new();
        quiet(&mut t, 3);
        t.gc(Gc::new(4, 400.0).load(load));
        let r = t.report(&default());
        assert_eq!(
            finding(&r, "high-memory-load").is_some(),
            found,
            "load {load}"
        );
    }
    // Hard limit 100 MB; the GC's peak = its size before = gen0 before + gen2 (10 MB) before.
    for (gen0_before, found) in [(79_900_000, false), (80_100_000, true)] {
        let mut t = Trace::new();
        quiet(&mut t, 3);
        t.gc(Gc::new(4, 400.0).before(gen0_before));
        t.hard_limit(900.0, 100_000_000);
        let m = t.model();
        assert_eq!(m.process.hard_limit_bytes, Some(100_000_000));
        let r = gcscope_core::findings::analyze_model(&m, &default());
        let f = finding(&r, "high-memory-load");
        assert_eq!(f.is_some(), found, "peak {}", gen0_before + 10_000_000);
        if let Some(f) = f {
            assert_eq!(f.evidence.gcs, [4]);
            assert_eq!(figure(f, "heap >= 90% of the hard limit"), 1.0);
        }
    }
    // The GC's own statement (condemned for high_mem) is found whatever the load it reports.
    let mut t = Trace::new();
    quiet(&mut t, 3);
    t.gc(Gc::new(4, 400.0).gen(2).conditions(HIGH_MEM).load(30));
    let r = t.report(&default());
    let f = finding(&r, "high-memory-load").expect("found");
    assert!(
        f.evidence.lines[0].contains("high_mem"),
        "{:?}",
        f.evidence.lines
    );
}

/// A gen1 GC leaves gen2 at 10 MB with `free` bytes free; a background GC starts after it.
/// 6.99 MB free = 69.9%, 7.01 MB = 70.1%; the threshold is 70%. At 70.1% the smallest
/// GCConserveMemory that compacts is 3 ((10 - 3) x 10% = 70% < 70.1%).
#[test]
fn gen2_fragmentation_of_70_percent_at_a_background_gcs_start_is_found() {
    for (free, found) in [(6_990_000, false), (7_010_000, true)] {
        let mut t = Trace::new();
        quiet(&mut t, 2);
        t.gc(Gc::new(3, 300.0).gen(1).gen2(10_000_000, free));
        t.gc(Gc::new(4, 400.0).background().work(50.0));
        let r = t.report(&Settings {
            goal: Goal::Footprint,
            ..default()
        });
        let f = finding(&r, "gen2-fragmentation");
        assert_eq!(f.is_some(), found, "free {free}");
        if let Some(f) = f {
            assert_eq!(f.evidence.gcs, [4]);
            assert!(close(
                figure(f, "worst gen2 fragmentation at a start"),
                70.1
            ));
            assert_eq!(figure(f, "GCConserveMemory that would compact it"), 3.0);
            assert!(
                f.advice[0].text.contains("GCConserveMemory=3"),
                "{}",
                f.advice[0].text
            );
            assert_eq!(f.severity, Severity::Warning, "the footprint goal's rule");
        }
    }
}

#[test]
fn a_gc_with_10_pinned_objects_is_found() {
    for (pinned, found) in [(9, false), (10, true)] {
        let mut t = Trace::new();
        quiet(&mut t, 3);
        t.gc(Gc::new(4, 400.0).pinned(pinned));
        let r = t.report(&default());
        assert_eq!(finding(&r, "pinning").is_some(), found, "{pinned} pinned");
    }
}

#[test]
fn server_gc_with_a_heap_on_every_core_is_said() {
    for (processors, found) in [(4, false), (2, true)] {
        let mut t = Trace::new();
        t.processors = processors;
        for i in 0..3 {
            t.gc(Gc::new(i + 1, 10.0 + 100.0 * f64::from(i)).heaps(2));
        }
        let r = t.report(&default());
        assert_eq!(
            finding(&r, "server-heaps").is_some(),
            found,
            "2 heaps on {processors}"
        );
    }
}

/// Three GCs with a DATAS sample each: cost = pause / elapsed = 19 / 1000 = 1.9% or 21 / 1000 =
/// 2.1%, against the 2% target. A heap-count change (1 -> 2 heaps) is found even at a low cost,
/// as info.
#[test]
fn datas_over_its_cost_target_or_changing_heaps_is_found() {
    let run = |pause_us: u32, heaps: [u32; 3]| {
        let mut t = Trace::new();
        for i in 0..3u32 {
            let at = 10.0 + 100.0 * f64::from(i);
            t.gc(Gc::new(i + 1, at).heaps(heaps[i as usize]));
            t.datas_sample(at + 5.0, u64::from(i + 1), 1000, pause_us);
        }
        t.report(&default())
    };
    let below = run(19, [1, 1, 1]);
    assert_eq!(outcome(&below, "datas"), Outcome::Clear);
    let above = run(21, [1, 1, 1]);
    let f = finding(&above, "datas").expect("found");
    assert!(close(figure(f, "median throughput cost"), 2.1));
    assert_eq!(f.severity, Severity::Warning);
    let changed = run(19, [1, 2, 2]);
    let f = finding(&changed, "datas").expect("found");
    assert_eq!(figure(f, "heap-count changes"), 1.0);
    assert_eq!(f.evidence.gcs, [2]);
    assert_eq!(f.severity, Severity::Info);
}

/// Four gen2 GCs promoting 10, 11, 12 MB and then 14.9 or 15.1 MB: x1.49 / x1.51 against 1.5.
#[test]
fn gen2_survivors_growing_one_and_a_half_times_is_found() {
    let run = |promoted: [u64; 4]| {
        let mut t = Trace::new();
        for (i, p) in promoted.iter().enumerate() {
            t.gc(Gc::new(i as u32 + 1, 10.0 + 100.0 * i as f64)
                .gen(2)
                .promoted(*p));
        }
        t.report(&Settings {
            goal: Goal::Footprint,
            ..default()
        })
    };
    assert!(finding(
        &run([10_000_000, 11_000_000, 12_000_000, 14_900_000]),
        "gen2-growth"
    )
    .is_none());
    let r = run([10_000_000, 11_000_000, 12_000_000, 15_100_000]);
    let f = finding(&r, "gen2-growth").expect("found");
    assert!(close(figure(f, "growth"), 1.51));
    // Not steady growth: a fall on the way.
    assert!(finding(
        &run([10_000_000, 12_000_000, 11_000_000, 16_000_000]),
        "gen2-growth"
    )
    .is_none());
}

/// Five GCs promoting 1 MB each (5 MB); finalizable survivors in one of them: 245,000 bytes =
/// 4.9%, 255,000 = 5.1% of all promoted bytes, against 5%.
#[test]
fn finalizable_survivors_of_5_percent_are_found() {
    for (fin, found) in [(245_000, false), (255_000, true)] {
        let mut t = Trace::new();
        quiet(&mut t, 4);
        t.gc(Gc::new(5, 500.0).finalizable(fin));
        let r = t.report(&default());
        let f = finding(&r, "finalization");
        assert_eq!(f.is_some(), found, "{fin}");
        if let Some(f) = f {
            assert!(close(figure(f, "share"), 5.1));
        }
    }
}

/// A trace with nothing wrong says so and lists every rule it checked, with what it saw.
#[test]
fn a_quiet_trace_has_no_findings_and_lists_what_was_checked() {
    let mut t = Trace::new();
    // 5 GCs, 1.014 ms each, 400 ms apart: 0.25% of the time.
    for i in 0..5 {
        t.gc(Gc::new(i + 1, 10.0 + 400.0 * f64::from(i)));
    }
    let r = t.report(&default());
    assert!(
        r.findings.is_empty(),
        "{:?}",
        r.findings.iter().map(|f| &f.summary).collect::<Vec<_>>()
    );
    assert!(
        r.verdict.starts_with("Nothing wrong found"),
        "{}",
        r.verdict
    );
    assert_eq!(r.checks.len(), gcscope_core::findings::rules::RULES.len());
    let pause = r.checks.iter().find(|c| c.rule == "pause-time").unwrap();
    assert_eq!(pause.outcome, Outcome::Clear);
    assert!(pause.note.contains("0.3%"), "{}", pause.note);
    // Rules whose events are missing say what to capture.
    let waits = r
        .checks
        .iter()
        .find(|c| c.rule == "loh-alloc-waits")
        .unwrap();
    assert_eq!(waits.outcome, Outcome::NotChecked);
    assert!(
        waits.note.contains("DotNETRuntimePrivate"),
        "{}",
        waits.note
    );
}

/// Dropped events are named with every finding (what they could hide or fake) and in the verdict.
#[test]
fn dropped_events_are_named_with_each_finding() {
    let mut t = Trace::new();
    quiet(&mut t, 3);
    t.gc(Gc::new(4, 400.0).reason(INDUCED));
    // Skip 7 sequence numbers on the GC thread before its 5th event.
    t.drop_events(4, 7);
    let r = t.report(&default());
    assert_eq!(r.dropped_events, Some(7));
    let f = finding(&r, "induced").expect("found");
    assert!(
        f.caveats
            .iter()
            .any(|c| c.contains("7 events were lost") && c.contains("hides an induced GC")),
        "{:?}",
        f.caveats
    );
    assert!(r.verdict.contains("7 events were lost"), "{}", r.verdict);
}

/// Definitive signs rank first, then the goal's warnings; sourced thresholds before chosen ones.
#[test]
fn findings_are_ranked_definitive_first() {
    let mut t = Trace::new();
    // An induced GC (warning), a long suspension (critical), and a GC with 12 pinned objects
    // (info: the footprint goal's rule, chosen threshold).
    quiet(&mut t, 3);
    t.gc(Gc::new(4, 400.0).reason(INDUCED));
    t.gc(Gc::new(5, 500.0).pinned(12));
    t.gc(Gc::new(6, 600.0).suspend(30.0));
    let r = t.report(&default());
    let order: Vec<(&str, Severity)> = r
        .findings
        .iter()
        .map(|f| (f.rule.as_ref(), f.severity))
        .collect();
    assert_eq!(
        order.first(),
        Some(&("suspension", Severity::Critical)),
        "{order:?}"
    );
    let induced = order.iter().position(|o| o.0 == "induced").unwrap();
    let pinning = order.iter().position(|o| o.0 == "pinning").unwrap();
    assert!(induced < pinning, "{order:?}");
    assert_eq!(order[pinning].1, Severity::Info);
    // Every severity is in order.
    assert!(order.windows(2).all(|w| w[0].1 <= w[1].1), "{order:?}");
}

/// `findings::diff`: between two crafted traces, what appears, disappears, changes, and what one
/// trace cannot check.
#[test]
fn diff_names_findings_that_appear_disappear_and_change() {
    use gcscope_core::findings::{diff, ChangeKind};
    // A: one induced GC and a 30 ms suspension. B: three induced GCs, no long suspension, a GC
    // with 12 pinned objects, and a 300 ms LOH allocation wait during a background GC.
    let mut a = Trace::new();
    quiet(&mut a, 3);
    a.gc(Gc::new(4, 400.0).reason(INDUCED));
    a.gc(Gc::new(5, 500.0).suspend(30.0));
    let mut b = Trace::new();
    quiet(&mut b, 3);
    for i in 4..7 {
        b.gc(Gc::new(i, 100.0 * f64::from(i)).reason(INDUCED));
    }
    b.gc(Gc::new(7, 700.0).pinned(12));
    b.gc(Gc::new(8, 800.0).background().work(1000.0));
    b.loh_wait(0x300, 900.0, 1200.0, 10);
    let (ra, rb) = (a.report(&default()), b.report(&default()));
    let changes = diff(&ra, &rb);
    let kind = |rule: &str| changes.iter().find(|c| c.rule == rule).map(|c| c.kind);
    assert_eq!(kind("suspension"), Some(ChangeKind::Disappeared));
    assert_eq!(kind("pinning"), Some(ChangeKind::Appeared));
    assert_eq!(
        kind("loh-alloc-waits"),
        Some(ChangeKind::NotComparable),
        "A has no wait events"
    );
    let induced = changes
        .iter()
        .find(|c| c.rule == "induced")
        .expect("changed");
    assert_eq!(induced.kind, ChangeKind::Changed);
    assert!(
        induced.what.contains("induced GCs 1 -> 3"),
        "{}",
        induced.what
    );
    // A trace against itself: no change.
    assert!(diff(&ra, &ra).is_empty());
    // Both ways round.
    let back = diff(&rb, &ra);
    assert_eq!(
        back.iter().find(|c| c.rule == "suspension").map(|c| c.kind),
        Some(ChangeKind::Appeared)
    );
}
