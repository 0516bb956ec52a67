//! The insights on hand-made event streams (payloads hand-encoded here and in `model_support`,
//! independent of gcscope's decoder), with every expected figure worked out by hand.

mod model_support;

use gcscope_core::event::TraceInfo;
use gcscope_core::gc::insights::{Insights, InsightsBuilder};
use gcscope_core::gc::{GcModel, ModelBuilder};
use model_support::*;

const TH: u64 = 100;
const OTHER_TH: u64 = 300;

fn build(events: &[Owned]) -> (GcModel, Insights) {
    let mut b = ModelBuilder::new(&TraceInfo::default());
    let mut ib = InsightsBuilder::new();
    for e in events {
        b.on_event(&e.event());
        ib.on_event(&e.event());
    }
    let m = b.finish(None);
    let i = ib.finish(&m);
    (m, i)
}

fn raw(id: u32, version: u32, ms: f64, thread: u64, payload: Vec<u8>) -> Owned {
    Owned {
        provider: RUNTIME,
        id,
        version,
        name: "",
        ms,
        thread,
        payload,
    }
}

fn le(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// GCCreateSegment v1: u64 Address, u64 Size, u32 Type, u16 ClrInstanceID.
fn create_segment(ms: f64, address: u64, size: u64, kind: u32) -> Owned {
    let p = le(&[
        &address.to_le_bytes(),
        &size.to_le_bytes(),
        &kind.to_le_bytes(),
        &1u16.to_le_bytes(),
    ]);
    raw(5, 1, ms, TH, p)
}

/// GCFreeSegment v1: u64 Address, u16 ClrInstanceID.
fn free_segment(ms: f64, address: u64) -> Owned {
    raw(
        6,
        1,
        ms,
        TH,
        le(&[&address.to_le_bytes(), &1u16.to_le_bytes()]),
    )
}

/// Increase (200) / DecreaseMemoryPressure (201): u64 bytes, u16 ClrInstanceID.
fn pressure(ms: f64, id: u32, bytes: u64) -> Owned {
    raw(
        id,
        0,
        ms,
        TH,
        le(&[&bytes.to_le_bytes(), &1u16.to_le_bytes()]),
    )
}

/// GCFinalizersBegin v1 (u16 ClrInstanceID) / GCFinalizersEnd v1 (u32 Count, u16).
fn finalizers(ms_begin: f64, ms_end: f64, count: u32) -> [Owned; 2] {
    [
        raw(14, 1, ms_begin, 7, 1u16.to_le_bytes().to_vec()),
        raw(
            13,
            1,
            ms_end,
            7,
            le(&[&count.to_le_bytes(), &1u16.to_le_bytes()]),
        ),
    ]
}

/// GCBulkMovedObjectRanges (22): u32 Index, u32 Count, u16 ClrInstanceID, then per range
/// ptr OldRangeBase, ptr NewRangeBase, u64 RangeLength (x64).
fn moved(ms: f64, ranges: &[(u64, u64, u64)]) -> Owned {
    let mut p = le(&[
        &0u32.to_le_bytes(),
        &(ranges.len() as u32).to_le_bytes(),
        &1u16.to_le_bytes(),
    ]);
    for (old, new, len) in ranges {
        p.extend_from_slice(&old.to_le_bytes());
        p.extend_from_slice(&new.to_le_bytes());
        p.extend_from_slice(&len.to_le_bytes());
    }
    raw(22, 0, ms, TH, p)
}

#[test]
fn segments_pressure_finalizers_and_moves_by_hand() {
    let mut ev = vec![
        create_segment(1.0, 0x1000_0000, 4_000_000, 0), // SOH
        create_segment(1.5, 0x2000_0000, 2_000_000, 1), // LOH
        pressure(2.0, 200, 1_000),
        pressure(3.0, 200, 5_000),
        pressure(4.0, 201, 2_500),
    ];
    ev.extend(blocking_gc(10.0, 1, 0, 0, 4_000_000)); // window 10.000 .. 10.900
    ev.push(moved(
        10.5,
        &[(0x100, 0x100, 64), (0x200, 0x180, 32), (0x300, 0x1a0, 16)],
    ));
    ev.extend(finalizers(11.5, 11.75, 3));
    ev.push(free_segment(12.0, 0x1000_0000));
    ev.push(free_segment(12.5, 0x9999_0000)); // created before the trace
    ev.extend(blocking_gc(20.0, 2, 1, 0, 6_000_000));
    ev.extend(finalizers(21.5, 21.6, 2));
    let (_, ins) = build(&ev);

    // Reserved: 4,000,000 SOH, then + 2,000,000 LOH = 6,000,000, then - 4,000,000 = 2,000,000.
    let s = &ins.segments;
    assert_eq!((s.created, s.freed), (2, 2));
    let totals: Vec<u64> = s.reserved_over_time.iter().map(|p| p.bytes.total).collect();
    assert_eq!(totals, [4_000_000, 6_000_000, 2_000_000]);
    assert_eq!(s.reserved_over_time[2].bytes.loh, 2_000_000);
    assert_eq!(s.segments[0].freed_ms, Some(12.0));
    assert_eq!(s.segments[2].created_ms, None);
    assert_eq!(s.segments[2].kind, "Unknown");

    // Pressure: +1,000 +5,000 -2,500: net 3,500, peak 6,000.
    let p = &ins.memory_pressure;
    assert_eq!((p.increase_count, p.decrease_count), (2, 1));
    assert_eq!((p.increased_bytes, p.decreased_bytes), (6_000, 2_500));
    assert_eq!((p.net_bytes, p.peak_net_bytes), (3_500, 6_000));
    let nets: Vec<i64> = p.over_time.iter().map(|x| x.net_bytes).collect();
    assert_eq!(nets, [1_000, 6_000, 3_500]);

    // Moves in GC 1: 64 + 32 + 16 = 112 bytes in 3 ranges, relocated 32 + 16 = 48.
    let c = &ins.compaction;
    assert_eq!(c.per_gc.len(), 1);
    let g = &c.per_gc[0];
    assert_eq!(
        (
            g.gc_number,
            g.moved_ranges,
            g.moved_bytes,
            g.relocated_bytes
        ),
        (1, 3, 112, 48)
    );

    // Finalizers: 3 after GC 1 (ended 10.9), 2 after GC 2 (ended 20.9); 5 in all.
    let f = &ins.finalization;
    assert_eq!(f.finalizers_run, 5);
    assert_eq!(f.runs[0].after_gc, Some(1));
    assert!((f.runs[0].duration_ms.unwrap() - 0.25).abs() < 1e-9);
    let per: Vec<(u32, Option<u64>)> = f
        .per_gc
        .iter()
        .map(|g| (g.gc_number, g.finalizers_run))
        .collect();
    assert_eq!(per, [(1, Some(3)), (2, Some(2))]);
}

#[test]
fn suspensions_pair_by_thread_and_other_reasons_are_listed_apart() {
    let mut ev = vec![
        // A restart on another thread (its suspension began before the trace) is ignored.
        suspend_begin(1.0, OTHER_TH, 0, u32::MAX), // SuspendOther
        restart_end(1.05, 999),
        suspend_end(1.2, OTHER_TH),
        restart_end(1.5, OTHER_TH),
    ];
    ev.extend(blocking_gc(10.0, 1, 0, 0, 4_000_000));
    let (_, ins) = build(&ev);
    let su = &ins.suspensions;
    assert_eq!(su.count, 2);
    assert_eq!(su.not_for_gc.len(), 1);
    let o = &su.not_for_gc[0];
    // suspend = 1.2 - 1.0 = 0.2 ms, pause = 1.5 - 1.0 = 0.5 ms (not 0.05 from thread 999).
    assert!((o.suspend_ms.unwrap() - 0.2).abs() < 1e-9);
    assert!((o.pause_ms.unwrap() - 0.5).abs() < 1e-9);
    assert_eq!(o.reason, "SuspendOther");
    // blocking_gc: SuspendEEBegin 10.000, SuspendEEEnd 10.010, RestartEEEnd 11.000.
    assert_eq!(su.per_gc.len(), 1);
    let g = &su.per_gc[0];
    assert_eq!((g.gc_number, g.count), (1, 1));
    assert!((g.total_suspend_ms - 0.010).abs() < 1e-9);
    assert!((g.total_pause_ms - 1.0).abs() < 1e-9);
    assert_eq!(su.by_reason.len(), 2);
}

#[test]
fn roots_and_counters_from_the_model_by_hand() {
    let mut ev = blocking_gc(10.0, 1, 0, 0, 4_000_000);
    let mut second = blocking_gc(20.0, 2, 1, 0, 6_000_000);
    // After GC 2's GCStart (20.02) and its stack mark (20.1): handles, 100 bytes.
    second.insert(4, mark(20.5, TH, 0, 2, 100));
    ev.extend(second);
    let (_, ins) = build(&ev);
    // blocking_gc marks 1,234 bytes from the stack per GC: 2 x 1,234 = 2,468; handles 100.
    let r = &ins.roots;
    assert_eq!(r.event_count, 3);
    assert_eq!(r.total.stack, 2_468);
    assert_eq!(r.total.handles, 100);
    assert_eq!(r.total_bytes, 2_568);
    assert_eq!(r.by_kind[0].kind, "stack");
    assert_eq!(r.per_gc[1].total_bytes, 1_334);
    // Counters: a gen0 then a gen1 GC: gen0 count 1, 2; gen1 count 0, 1; gen2 0.
    let c = &ins.counters;
    assert_eq!(c.len(), 2);
    assert_eq!(
        (
            c[1].gen0_collections,
            c[1].gen1_collections,
            c[1].gen2_collections
        ),
        (2, 1, 0)
    );
    // GCHeapStats sizes [B/2, 2,000,000, 8,000,000, 1,000,000, 10,000]: all heaps = gen1 + gen2 +
    // LOH + POH = 2,000,000 + 8,000,000 + 1,000,000 + 10,000 = 11,010,000.
    assert_eq!(c[0].bytes_in_all_heaps, Some(11_010_000));
    assert_eq!(c[0].gen1_heap_size_bytes, Some(2_000_000));
    // Promoted from gen0 = TotalPromotedSize0 = B/4 = 1,000,000 for GC 1.
    assert_eq!(c[0].promoted_from_gen0_bytes, Some(1_000_000));
}
