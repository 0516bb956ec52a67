//! The insights of TraceEvent's .NET Core 3.0 test trace against its baseline
//! (`eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.baseline.txt`: per event name, TraceEvent's
//! count and its rendering of the first event). Skipped with a message when ../shared is absent.

mod common;

use gcscope_core::gc::insights::{analyze_with_insights, AllocKind};

const TRACE: &str = "traces/perfview/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip";

/// Baseline times are printed with 4 decimals (0.1 us).
fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-3
}

#[test]
fn dotnetcore3_trace_matches_its_baseline() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let bytes = std::fs::read(shared.join(TRACE)).unwrap();
    let (m, ins) = analyze_with_insights(&bytes).unwrap();

    // GC/MarkWithType, 1912; first: MSec 5467.5319 HeapNum 0 Type 0 (stack) Promoted 104,989.
    // It falls in GC 1 (GC/Start 5455.9407 .. GC/Stop 5475.9763), and the trace has one heap
    // (GlobalHeapHistory NumHeaps=1), so GC 1's stack figure is that event alone.
    let r = &ins.roots;
    assert_eq!(r.event_count, 1912);
    assert_eq!(r.per_gc[0].gc_number, 1);
    assert_eq!(r.per_gc[0].marked.stack, 104_989);
    assert_eq!(m.process.heap_count, Some(1));

    // GC/BulkMovedObjectRanges, 478; first: MSec 5470.4377, Index 0, Count 142, in GC 1. Its
    // first six ranges (old -> new, length):
    //   0x19A00001048 -> same, 0x330;  0x19A00001378 -> same, 0xC0       (not relocated)
    //   0x19A00001498 -> 0x19A00001438, 0x28;  0x19A000014E0 -> 0x19A00001460, 0x28;
    //   0x19A00001528 -> 0x19A00001488, 0x3B0; 0x19A000019A0 -> 0x19A00001850, 0x110
    // moved >= 0x330 + 0xC0 + 0x28 + 0x28 + 0x3B0 + 0x110 = 816 + 192 + 40 + 40 + 944 + 272 = 2304
    // relocated >= 40 + 40 + 944 + 272 = 1296; in place >= 816 + 192 = 1008.
    let c = &ins.compaction;
    assert_eq!(c.moved_events, 478);
    assert_eq!(c.surviving_events, 0);
    let g1 = &c.per_gc[0];
    assert_eq!(g1.gc_number, 1);
    assert!(g1.moved_ranges >= 142, "{}", g1.moved_ranges);
    assert!(g1.moved_bytes >= 2304, "{}", g1.moved_bytes);
    assert!(g1.relocated_bytes >= 1296, "{}", g1.relocated_bytes);
    assert!(g1.moved_bytes - g1.relocated_bytes >= 1008);
    assert_eq!(c.unattributed_events, 0);

    // GC/AllocationTick, 35458; first: MSec 2331.8048, Small, AllocationAmount64 104,096,
    // TypeName System.Object[], HeapIndex 0.
    let a = &ins.allocations;
    assert_eq!(a.tick_count, 35458);
    let s0 = a.samples[0];
    assert!(near(s0.ms, 2331.8048), "{}", s0.ms);
    assert_eq!(
        (s0.bytes, s0.kind, s0.heap),
        (104_096, AllocKind::Small, Some(0))
    );
    assert_eq!(a.type_name(&s0), "System.Object[]");

    // GC/SuspendEEStart, 5953; first: MSec 17.9124, SuspendOther, TID 3444. The first
    // SuspendEEStop is at 18.0222 and the first RestartEEStop at 18.2565 (same thread):
    // suspend = 18.0222 - 17.9124 = 0.1098 ms, pause = 18.2565 - 17.9124 = 0.3441 ms.
    let su = &ins.suspensions;
    assert_eq!(su.count, 5953);
    let first = &su.not_for_gc[0];
    assert_eq!(
        (first.reason.as_ref(), first.thread),
        ("SuspendOther", 3444)
    );
    assert!(near(first.begin_ms, 17.9124));
    assert!(near(first.suspend_ms.unwrap(), 0.1098));
    assert!(near(first.pause_ms.unwrap(), 0.3441));
    // 478 GCs, all blocking (GC/Start Type NonConcurrentGC): one SuspendForGC each.
    let for_gc = su
        .by_reason
        .iter()
        .find(|r| r.reason == "SuspendForGC")
        .unwrap();
    assert_eq!(for_gc.count, 478);
    assert_eq!(su.per_gc.len(), 478);
    assert_eq!(su.per_gc[0].gc_number, 1);

    // GC/FinalizersStart, 2 (first 5476.2263); GC/FinalizersStop, 2 (first 5476.2371, Count 0):
    // duration 5476.2371 - 5476.2263 = 0.0108 ms, after GC 1 (ended 5475.9763).
    let f = &ins.finalization;
    assert_eq!(f.runs.len(), 2);
    assert_eq!(f.runs[0].count, 0);
    assert!(near(f.runs[0].duration_ms.unwrap(), 0.0108));
    assert_eq!(f.runs[0].after_gc, Some(1));

    // GC/GenerationRange, 3824; first: MSec 5455.9561 Generation 3 (LOH) RangeUsedLength 0x8CB0
    // (36,016) RangeReservedLength 0x07FFF000 (134,213,632), inside GC 1.
    let g = &ins.segments;
    assert_eq!(g.generation_range_events, 3824);
    let snap = &g.range_snapshots[0];
    assert!(near(snap.ms, 5455.9561));
    assert_eq!(snap.gc_number, Some(1));
    assert!(snap.used_bytes.loh >= 36_016);
    assert!(snap.reserved_bytes.loh >= 134_213_632);
    let ranges: u64 = g.range_snapshots.iter().map(|s| u64::from(s.ranges)).sum();
    assert_eq!(ranges, 3824);
}
