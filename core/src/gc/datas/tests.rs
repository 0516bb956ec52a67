use super::*;
use alloc::vec;

fn sample(gc: u64, elapsed: u32, pause: u32, msl: u32) -> Vec<u8> {
    let mut d = vec![1, 0];
    d.extend_from_slice(&gc.to_le_bytes());
    for v in [elapsed, pause, msl, 0] {
        d.extend_from_slice(&v.to_le_bytes());
    }
    d.extend_from_slice(&1_000_000u64.to_le_bytes());
    d.extend_from_slice(&2_000_000u32.to_le_bytes());
    d
}

fn tuning(gc: u64, new: u16, median: f32) -> Vec<u8> {
    let mut d = vec![1, 0];
    d.extend_from_slice(&new.to_le_bytes());
    d.extend_from_slice(&3u16.to_le_bytes());
    d.extend_from_slice(&0u16.to_le_bytes());
    d.extend_from_slice(&gc.to_le_bytes());
    d.extend_from_slice(&1_000_000u64.to_le_bytes());
    for v in [median, median, 0.0] {
        d.extend_from_slice(&v.to_le_bytes());
    }
    d.extend_from_slice(&1u16.to_le_bytes());
    d.extend_from_slice(&0f32.to_le_bytes());
    d.extend_from_slice(&4u32.to_le_bytes());
    d.push(1);
    d.extend_from_slice(&[0; 8]);
    d.push(2);
    assert_eq!(d.len(), 56);
    d
}

#[test]
fn changes_link_to_the_decision_before_them() {
    let mut b = DatasBuilder::default();
    let feed = |b: &mut DatasBuilder, ms: f64, name: &str, data: &[u8]| {
        let p = crate::clr::gc::dynamic::test_payload(name, data);
        let e = GcDynamicEvent::parse(&p, 0, 8).unwrap();
        b.on_dynamic(ms, &e)
    };
    for gc in 1..=6u32 {
        let heaps = if gc <= 4 { 1 } else { 2 };
        assert!(feed(
            &mut b,
            gc as f64,
            "SizeAdaptationSample",
            &sample(gc.into(), 1000, 100, 40)
        ));
        b.on_gc_heaps(gc, gc as f64, heaps);
        if gc == 4 {
            assert!(feed(
                &mut b,
                4.5,
                "SizeAdaptationTuning",
                &tuning(4, 2, 37.5)
            ));
        }
    }
    assert!(!feed(&mut b, 7.0, "NotADatasName", &[1, 0]));
    let m = b.finish();
    assert_eq!(m.samples.len(), 6);
    // (40 / 1 heap + 100) / 1000 for GC 1; (40 / 2 + 100) / 1000 for GC 6.
    assert_eq!(m.samples[0].throughput_cost_pct, Some(14.0));
    assert_eq!(m.samples[5].throughput_cost_pct, Some(12.0));
    assert_eq!(m.changes.len(), 1);
    assert_eq!(m.per_gc.len(), 6);
    assert_eq!((m.per_gc[4].gc, m.per_gc[4].heaps), (5, 2));
    let c = &m.changes[0];
    assert_eq!((c.gc, c.from, c.to, c.decision), (5, 1, 2, Some(0)));
    assert_eq!(m.decisions[0].heaps_before, Some(1));
    assert_eq!(
        m.gcs_by_heap_count,
        vec![
            HeapCountGcs { heaps: 1, gcs: 4 },
            HeapCountGcs { heaps: 2, gcs: 2 }
        ]
    );
    assert_eq!(m.unknown_events, vec![("NotADatasName".into(), 1)]);
    let why = explain(&m);
    assert_eq!(why.len(), 1);
    assert!(
        why[0].starts_with("GC 5 (5.0 ms): grew from 1 to 2 heaps, decided at GC 4"),
        "{}",
        why[0]
    );
    assert!(why[0].contains("37.5%"), "{}", why[0]);
    // The codes (0, 0, 0, 0, adjust_hc) named, and the decision in words.
    let codes = m.decisions[0].codes.as_ref().unwrap();
    assert_eq!(codes.change_decision.name, "init_change_condition");
    assert_eq!(codes.adjustment_metric.name, "adjust_hc");
    assert_eq!(codes.adjustment_metric.value, 2);
    assert_eq!(
        m.decisions[0].verdict,
        "increase: throughput cost above target"
    );
    assert!(
        why[0].contains("(SizeAdaptationTuning: increase: throughput cost above target)"),
        "{}",
        why[0]
    );
    assert!(why[0].contains("allows up to 3 heaps"), "{}", why[0]);
    assert!(why[0].contains("gen0 budget 2.0 MB per heap"), "{}", why[0]);
}

/// Codes the runtime's tables do not have show as their numbers; a budget adjustment and a
/// stopped change say so in words; events without codes say only the move.
#[test]
fn verdicts_from_codes_known_and_unknown() {
    let code = |value: u16| Code {
        value,
        name: String::new(),
    };
    let mut d = DatasDecision {
        gc: 10,
        ms: 1.0,
        event: Cow::Borrowed("SizeAdaptationTuning"),
        heaps_before: Some(4),
        new_heap_count: 4,
        median_tcp_pct: None,
        tcp_considered_pct: None,
        soh_stable_bytes: None,
        max_heaps_by_budget: None,
        min_heaps_by_budget: None,
        gcs_since_last_change: None,
        verdict: String::new(),
        codes: Some(TuningCodes {
            change_decision: code(0),
            adjustment_reason: code(4),
            change_frequency_factor: 3,
            change_frequency_reason: code(0),
            adjustment_metric: code(1),
        }),
        other_fields: String::new(),
    };
    assert_eq!(
        verdict(&d),
        "adjust gen0 budget: throughput cost off target long enough to consider a change; \
         change under 20% of the heaps: the gen0 budget is adjusted instead"
    );
    let c = d.codes.as_mut().unwrap();
    c.change_decision = code(7);
    c.adjustment_reason = code(0x40);
    c.adjustment_metric = code(0);
    assert_eq!(
        verdict(&d),
        "keep: unknown change decision 7; unknown reason 0x40"
    );
    d.codes.as_mut().unwrap().adjustment_metric = code(9);
    assert!(verdict(&d).starts_with("unknown adjustment 9: "));
    d.codes = None;
    d.new_heap_count = 2;
    assert_eq!(verdict(&d), "decrease");
    d.heaps_before = None;
    assert_eq!(verdict(&d), "set the heap count");
}

/// A background GC given three histories (its own and those of GCs run inside it) is one
/// point with its last count, and its histories add no change; the heap count of a decision's
/// GC is that point's.
#[test]
fn a_gc_with_several_histories_is_one_point() {
    let mut b = DatasBuilder::default();
    for (gc, heaps) in [(4, 1), (5, 1), (6, 2), (5, 2), (7, 2), (5, 2), (8, 1)] {
        b.on_gc_heaps(gc, f64::from(gc), heaps);
    }
    assert_eq!(b.heap_changes(), 2);
    let m = b.finish();
    let points: Vec<(u64, u32)> = m.per_gc.iter().map(|g| (g.gc, g.heaps)).collect();
    // No DATAS events, but the count changed: the points are kept.
    assert_eq!(points, vec![(4, 1), (5, 2), (6, 2), (7, 2), (8, 1)]);
    let changes: Vec<(u64, u32, u32)> = m.changes.iter().map(|c| (c.gc, c.from, c.to)).collect();
    assert_eq!(changes, vec![(5, 1, 2), (8, 2, 1)]);
    assert_eq!(
        m.gcs_by_heap_count,
        vec![
            HeapCountGcs { heaps: 1, gcs: 2 },
            HeapCountGcs { heaps: 2, gcs: 3 }
        ]
    );
}
