//! The GC model fed hostile runtime events directly: values no runtime writes (sizes near u64::MAX,
//! generations and reasons out of range, events out of order, duplicates, a GCEnd without a start).
//! The model must never panic (overflow included: tests run with overflow checks), and must say
//! what it could not make sense of instead of inventing figures.
//! Regression for the fuzzer's first finding (scripts/fuzz.sh, targets `model` and `container`):
//! "attempt to add with overflow" summing per-generation sizes in gc::derive, and the same in the
//! insights' per-heap budget totals.

use gcscope_core::clr::names::RUNTIME_PROVIDER;
use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::gc::insights::InsightsBuilder;
use gcscope_core::gc::ModelBuilder;

fn ev(id: u32, version: u32, time_ms: f64, payload: &[u8]) -> Event<'_> {
    Event {
        provider: RUNTIME_PROVIDER,
        event_id: id,
        version,
        timestamp: (time_ms * 10_000.0) as i64,
        time_ms,
        thread_id: 7,
        capture_thread_id: 7,
        pointer_size: 8,
        payload,
        ..Event::default()
    }
}

fn le(fields: &[(u64, usize)]) -> Vec<u8> {
    fields
        .iter()
        .flat_map(|&(v, n)| v.to_le_bytes()[..n].to_vec())
        .collect()
}

/// One GC's events as the runtime writes them (layouts from ClrEtwAll.man): SuspendEEBegin v1,
/// GCStart v2, GCEnd v1, GCHeapStats v2, RestartEEBegin/End v1.
fn gc_events(
    n: u32,
    depth: u32,
    reason: u32,
    ty: u32,
    size: u64,
    t: f64,
) -> Vec<(u32, u32, f64, Vec<u8>)> {
    let mut heap_stats = Vec::new();
    for _ in 0..4 {
        heap_stats.push((size, 8));
        heap_stats.push((size, 8));
    }
    heap_stats.extend([
        (size, 8),
        (u64::MAX, 8),
        (u32::MAX as u64, 4),
        (7, 4),
        (9, 4),
        (0, 2),
        (size, 8),
        (size, 8),
    ]);
    vec![
        (9, 1, t, le(&[(reason as u64, 4), (n as u64, 4), (0, 2)])),
        (
            1,
            2,
            t + 0.1,
            le(&[
                (n as u64, 4),
                (depth as u64, 4),
                (reason as u64, 4),
                (ty as u64, 4),
                (0, 2),
                (0, 8),
            ]),
        ),
        (8, 1, t + 0.2, le(&[(0, 2)])),
        (
            2,
            1,
            t + 1.0,
            le(&[(n as u64, 4), (depth as u64, 4), (0, 2)]),
        ),
        (4, 2, t + 1.1, le(&heap_stats)),
        (7, 1, t + 1.2, le(&[(0, 2)])),
        (3, 1, t + 1.3, le(&[(0, 2)])),
    ]
}

fn run(events: &[(u32, u32, f64, Vec<u8>)]) -> gcscope_core::gc::GcModel {
    let mut b = ModelBuilder::new(&TraceInfo {
        qpc_frequency: 10_000_000,
        pointer_size: 8,
        ..Default::default()
    });
    for (id, v, t, p) in events {
        b.on_event(&ev(*id, *v, *t, p));
        let _ = b.completed_gcs().len();
    }
    let m = b.finish(None);
    serde_json::to_string(&m).expect("the model serializes");
    m
}

#[test]
fn sizes_near_u64_max_saturate_instead_of_overflowing() {
    let mut events = gc_events(1, 0, 0, 0, u64::MAX / 2, 10.0);
    events.extend(gc_events(2, 0, 0, 0, u64::MAX / 2, 20.0));
    let m = run(&events);
    assert_eq!(m.gcs.len(), 2);
    assert_eq!(
        m.gcs[1].after_bytes,
        Some(u64::MAX),
        "saturated, not wrapped"
    );
    assert_eq!(m.gcs[1].promoted_bytes, Some(u64::MAX));
}

#[test]
fn out_of_range_generations_reasons_and_types_do_not_panic() {
    let mut events = Vec::new();
    for (i, (depth, reason, ty)) in [
        (9, u32::MAX, 77),
        (u32::MAX, 1_000, 3),
        (2, 17, u32::MAX),
        (255, 0, 0),
    ]
    .into_iter()
    .enumerate()
    {
        events.extend(gc_events(
            i as u32 + 1,
            depth,
            reason,
            ty,
            1 << 20,
            10.0 * (i + 1) as f64,
        ));
    }
    let m = run(&events);
    assert_eq!(m.gcs.len(), 4, "every GC keeps its row");
    // An unknown reason keeps its number and is not given a known reason's name.
    let r = &m.gcs[1];
    assert_eq!(r.reason_code, 1_000);
    assert_eq!(r.reason, "Unknown");
}

#[test]
fn events_out_of_order_duplicated_or_alone_do_not_panic() {
    let base = gc_events(5, 1, 1, 0, 4096, 50.0);
    // Reversed, duplicated, each event alone, and a GCEnd for a GC that never started.
    let mut rev = base.clone();
    rev.reverse();
    run(&rev);
    let dup: Vec<_> = base.iter().flat_map(|e| [e.clone(), e.clone()]).collect();
    run(&dup);
    for e in &base {
        run(std::slice::from_ref(e));
    }
    let m = run(&[(2, 1, 1.0, le(&[(42, 4), (2, 4), (0, 2)]))]);
    assert!(m.gcs.iter().all(|g| g.number == 42));
    // Truncated payloads: every prefix of every event.
    for e in &base {
        for cut in 0..e.3.len() {
            run(&[(e.0, e.1, e.2, e.3[..cut].to_vec())]);
        }
    }
}

/// GCPerHeapHistory v3 (id 204) for `heap` with every generation figure `v`: ClrInstanceID, six
/// pointer-sized allocation figures, six u32 (efficiency, condemn reasons 0/1, compact/expand
/// mechanisms, heap index), ExtraGen0Commit, Count, then Count x 10 pointer-sized figures.
fn per_heap_history(heap: u32, v: u64) -> Vec<u8> {
    let mut f = vec![(0, 2)];
    f.extend([(0, 8); 6]);
    f.extend([
        (0, 4),
        (0, 4),
        (0, 4),
        (0, 4),
        (0, 4),
        (heap as u64, 4),
        (0, 8),
        (5, 4),
    ]);
    f.extend(std::iter::repeat_n((v, 8), 5 * 10));
    le(&f)
}

#[test]
fn per_heap_totals_near_u64_max_saturate_in_the_model_and_insights() {
    for gcs in 1..=2u32 {
        let mut events = Vec::new();
        for n in 1..=gcs {
            let mut g = gc_events(n, 1, 0, 0, 1 << 30, 10.0 * n as f64);
            // Two heaps' histories between GCStart and GCEnd.
            let t = g[2].2;
            g.insert(3, (204, 3, t + 0.01, per_heap_history(0, u64::MAX / 2 + 7)));
            g.insert(4, (204, 3, t + 0.02, per_heap_history(1, u64::MAX / 2 + 7)));
            events.extend(g);
        }
        let m = run(&events);
        let mut ib = InsightsBuilder::new();
        for (id, v, t, p) in &events {
            ib.on_event(&ev(*id, *v, *t, p));
        }
        let insights = ib.finish(&m);
        serde_json::to_string(&insights).expect("insights serialize");
        assert_eq!(m.gcs.len(), gcs as usize);
        let gen0 = m.gcs[0].generations.get(0).expect("gen0");
        assert_eq!(
            gen0.size_before_bytes,
            Some(u64::MAX),
            "two heaps' sizes saturate"
        );
    }
}

#[test]
fn segment_sizes_near_u64_max_saturate_in_the_insights() {
    // GCCreateSegment v1 (id 5): Address, Size, Type (0 small, 1 large object heap), ClrInstanceID.
    let seg = |addr: u64, ty: u64| le(&[(addr, 8), (u64::MAX / 2 + 1, 8), (ty, 4), (0, 2)]);
    let events = [(5, 1, 1.0, seg(0x1000, 0)), (5, 1, 2.0, seg(0x2000, 1))];
    let m = run(&events);
    let mut ib = InsightsBuilder::new();
    for (id, v, t, p) in &events {
        ib.on_event(&ev(*id, *v, *t, p));
    }
    serde_json::to_string(&ib.finish(&m)).expect("insights serialize");
}
