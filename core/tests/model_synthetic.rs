//! The GC model on hand-made event streams (payloads hand-encoded in `model_support`), with every
//! expected figure worked out by hand from the numbers put into the events.

mod model_support;

use gcscope_core::event::TraceInfo;
use gcscope_core::gc::{GcModel, GcType, ModelBuilder};
use model_support::*;

const TH: u64 = 100; // the allocating thread that triggers and runs workstation GCs
const BGC_TH: u64 = 200; // the background GC thread

fn build(events: &[Owned]) -> GcModel {
    let mut b = ModelBuilder::new(&TraceInfo::default());
    for e in events {
        b.on_event(&e.event());
    }
    b.finish(None)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.abs().max(1.0)
}

/// Two blocking GCs. `blocking_gc(t, n, gen, reason, B)` writes per heap, for each generation with
/// size-before `b` (gen0 B, gen1 B/2, gen2 4B, LOH 1,000,000, POH 10,000):
/// [SizeBefore b, FreeListBefore 0, FreeObjBefore b/10, SizeAfter b/2, FreeListAfter 1,000,
///  FreeObjAfter 2,000, In 500, PinnedSurv 100, NonPinnedSurv b/4, NewAllocation 4,000,000]
/// and GCHeapStats sizes [B/2, 2,000,000, 8,000,000, 1,000,000, 10,000], promoted [B/4, 1,000, 0, 0, 0].
fn two_gcs() -> Vec<Owned> {
    let mut ev = vec![
        alloc_tick(2.0, TH, 100_000, 0),
        alloc_tick(5.0, TH, 100_000, 0),
        alloc_tick(8.0, TH, 100_000, 1),
    ];
    ev.extend(blocking_gc(10.0, 1, 0, 0, 4_000_000));
    ev.extend(blocking_gc(20.0, 2, 1, 0, 6_000_000));
    ev
}

#[test]
fn blocking_gc_figures_match_the_hand_arithmetic() {
    let m = build(&two_gcs());
    assert_eq!(m.gcs.len(), 2);
    let g = &m.gcs[0];
    assert_eq!(
        (g.number, g.gen, g.gc_type, &*g.reason, g.induced, g.complete),
        (1, 0, GcType::NonConcurrent, "AllocSmall", false, true)
    );
    assert!(g.missing.is_empty(), "{:?}", g.missing);
    // SuspendEEBegin 10.000, SuspendEEEnd 10.010, GCStart 10.020, GCEnd 10.900, RestartEEEnd 11.000.
    assert!(close(g.start_ms, 10.0) && close(g.gc_start_ms, 10.02));
    assert!(close(g.suspend_ms.unwrap(), 0.010));
    assert!(close(g.duration_ms.unwrap(), 0.880));
    assert!(close(g.pause_ms.unwrap(), 1.0));
    // First GC: time since the trace start = 10.0 ms; % pause = 1.0 / (1.0 + 10.0) = 9.0909 %.
    assert!(close(g.since_previous_gc_ms.unwrap(), 10.0));
    assert!(close(g.pause_pct.unwrap(), 100.0 / 11.0));
    // No earlier GC: allocation from AllocationTick: 100,000 + 100,000 small, 100,000 large.
    assert_eq!(
        (
            g.gen0_allocated_bytes,
            g.loh_allocated_bytes,
            g.alloc_tick_bytes
        ),
        (Some(200_000), Some(100_000), Some(300_000))
    );
    // Sizes: after = 2,000,000 + 2,000,000 + 8,000,000 + 1,000,000 + 10,000 = 13,010,000;
    // before = 4,000,000 + 2,000,000 + 16,000,000 + 1,000,000 + 10,000 = 23,010,000.
    assert_eq!(
        (g.after_bytes, g.before_bytes, g.peak_bytes),
        (Some(13_010_000), Some(23_010_000), Some(23_010_000))
    );
    assert!(close(
        g.peak_after_ratio.unwrap(),
        23_010_000.0 / 13_010_000.0
    ));
    assert_eq!(g.promoted_bytes, Some(1_001_000)); // 1,000,000 + 1,000
                                                   // gen0 survival = (100 + 1,000,000) / (4,000,000 - 400,000) = 1,000,100 / 3,600,000 = 27.7806 %.
    let gen0 = &g.generations.gen0;
    assert!(close(
        gen0.survival_pct.unwrap(),
        1_000_100.0 * 100.0 / 3_600_000.0
    ));
    // gen0 fragmentation = 1,000 + 2,000 = 3,000 bytes of 2,000,000 after = 0.15 %.
    assert_eq!(gen0.fragmentation_bytes, Some(3_000));
    assert!(close(gen0.fragmentation_pct.unwrap(), 0.15));
    assert_eq!(
        (gen0.budget_bytes, gen0.in_bytes, gen0.survived_bytes),
        (Some(4_000_000), Some(500), Some(1_000_100))
    );
    // A gen0 GC gives no survival rate for older generations.
    assert_eq!(
        (
            g.generations.gen1.survival_pct,
            g.generations.loh.survival_pct
        ),
        (None, None)
    );
    // GCHeapStats counters [pinned 2, sync blocks 14, handles 55], finalization 1,000 bytes / 3 objects.
    assert_eq!(
        (g.pinned_object_count, g.sync_block_count, g.gc_handle_count),
        (Some(2), Some(14), Some(55))
    );
    assert_eq!(
        (g.finalization_promoted_bytes, g.finalization_promoted_count),
        (Some(1000), Some(3))
    );
    // GCGlobalHeapHistory: 1 heap, condemned 0, mechanisms 0x16, pause mode 1, memory load 12 %,
    // times [1..8] with Compaction set: relocate = 7, compact = 8, no sweep.
    assert_eq!(
        (g.heap_count, g.condemned_gen, g.memory_pressure_pct),
        (Some(1), Some(0), Some(12))
    );
    assert_eq!(
        g.global_mechanisms.as_deref().unwrap(),
        ["Compaction", "Promotion", "CardBundles"]
    );
    assert_eq!(g.pause_mode.as_deref(), Some("Interactive"));
    let t = g.phase_times_us.as_ref().unwrap();
    assert_eq!(
        (t.mark_roots, t.plan, t.relocate, t.compact, t.sweep),
        (Some(2), Some(6), Some(7), Some(8), None)
    );
    // Per heap: CondemnReasons0 = gen << 2 | gen, CondemnReasons1 = 1 << 4 (low_ephemeral),
    // CompactMechanisms 0x80000002 (compact_high_frag).
    let h = &g.heaps[0];
    assert_eq!((h.condemn.initial_gen, h.condemn.final_gen), (0, 0));
    assert_eq!(h.condemn.conditions, ["low_ephemeral"]);
    assert_eq!(h.compact_mechanism.as_deref(), Some("compact_high_frag"));
    assert_eq!(g.marked_bytes.as_ref().unwrap().stack, 1234);

    let g2 = &m.gcs[1];
    // Allocated since GC 1 = objects before GC 2 - objects after GC 1, per generation:
    // gen0: (6,000,000 - 600,000) - (2,000,000 - 3,000) = 5,400,000 - 1,997,000 = 3,403,000;
    // LOH:  (1,000,000 - 100,000) - (500,000 - 3,000)  =   900,000 -   497,000 =   403,000;
    // POH:  (10,000 - 1,000)      - (5,000 - 3,000)    =     9,000 -     2,000 =     7,000.
    assert_eq!(
        (
            g2.gen0_allocated_bytes,
            g2.loh_allocated_bytes,
            g2.poh_allocated_bytes
        ),
        (Some(3_403_000), Some(403_000), Some(7_000))
    );
    assert_eq!(g2.allocated_bytes, Some(3_813_000));
    // Since GC 1 ended (its GCHeapStats at 10.91) to GC 2's pause start at 20.0: 9.09 ms;
    // gen0 rate = 3,403,000 B / 9.09 ms = 374,367,436.7 B/s.
    assert!(close(g2.since_previous_gc_ms.unwrap(), 9.09));
    assert!(close(
        g2.gen0_alloc_rate_bytes_per_s.unwrap(),
        3_403_000.0 * 1000.0 / 9.09
    ));
    // A gen1 GC has gen1 survival: (100 + 750,000) / (3,000,000 - 300,000) = 27.7815 %.
    assert!(close(
        g2.generations.gen1.survival_pct.unwrap(),
        750_100.0 * 100.0 / 2_700_000.0
    ));

    // Rollup: one GC per generation 0 and 1; pauses 1.0 ms each; GC span 10.0 .. 20.91 (GC 2's
    // GCHeapStats, where TraceEvent's ProcessDuration ends) = 10.91 ms.
    let all = &m.rollup[0];
    assert_eq!(
        (
            all.count,
            m.rollup[1].count,
            m.rollup[2].count,
            m.rollup[3].count
        ),
        (2, 1, 1, 0)
    );
    assert!(
        close(all.total_pause_ms, 2.0)
            && close(all.max_pause_ms, 1.0)
            && close(all.mean_pause_ms, 1.0)
    );
    assert!(close(m.process.gc_span_ms, 10.91));
    // % time paused: over the process's time in the trace (its last event, GC 2's restart at
    // 21.0 ms); PerfView's over the GC span.
    assert!(close(m.process.trace_duration_ms, 21.0));
    assert!(close(all.pause_time_pct.unwrap(), 2.0 * 100.0 / 21.0));
    assert!(close(all.gc_span_pause_pct.unwrap(), 2.0 * 100.0 / 10.91));
    assert_eq!(all.total_allocated_bytes, 300_000 + 3_813_000);
    // Condemn breakdown: both GCs low_ephemeral; the gen0 GC's budget gen (0) is its own gen.
    let by = |n: &str| {
        m.condemn_reasons
            .by_condition
            .iter()
            .find(|r| r.reason == n)
            .map(|r| r.per_gen)
    };
    assert_eq!(by("low_ephemeral"), Some([1, 1, 0]));
    assert_eq!(by("alloc_budget_exceeded"), Some([1, 0, 0]));
    assert_eq!(m.condemn_reasons.by_trigger[0].per_gen, [1, 1, 0]);
    assert_eq!(m.process.gc_mode.as_deref(), Some("workstation"));
}

#[test]
fn background_gc_with_a_foreground_gc_streams_and_sums_its_pauses() {
    let mut ev = two_gcs();
    let gens = |b: u64| [[b, 0, 0, b, 0, 0, 0, 0, b / 2, 1]; 5];
    // BGC #3: initial suspension 100.00-100.01, GCStart 100.02, restart 100.50.
    ev.extend([
        suspend_begin(100.0, TH, 1, 2),
        suspend_end(100.01, TH),
        gc_start(100.02, TH, 3, 2, 0, 1),
        restart_end(100.5, TH),
    ]);
    // Foreground #4 during it: pause 101.00-101.60.
    ev.extend([
        suspend_begin(101.0, TH, 1, 3),
        suspend_end(101.01, TH),
        gc_start(101.02, TH, 4, 0, 0, 2),
        global(101.3, TH, 1, 0, 0, 0x16, 1, &[]),
        per_heap(101.31, TH, 0, 0, 0, 0, &gens(3_000_000)),
        gc_end(101.5, TH, 4, 0),
        heap_stats(101.51, TH, [0, 1, 2, 3, 4], [0; 5], [0; 3]),
        restart_end(101.6, TH),
    ]);
    // The BGC's final suspension (ForGCPrep, on its own thread) 105.00-105.30, then its histories
    // arrive (while the foreground GC is closed), GCEnd at 106.0, GCHeapStats at 106.01.
    let tail = [
        suspend_begin(105.0, BGC_TH, 6, 3),
        suspend_end(105.02, BGC_TH),
        restart_end(105.3, BGC_TH),
        global(105.9, BGC_TH, 1, 2, 0, 0x1, 1, &[]),
        per_heap(105.91, BGC_TH, 0, 2 << 2 | 2, 1 << 15, 0, &gens(9_000_000)),
        gc_end(106.0, BGC_TH, 3, 2),
        heap_stats(106.01, BGC_TH, [0, 1, 2, 3, 4], [0; 5], [0; 3]),
    ];

    let mut b = ModelBuilder::new(&TraceInfo::default());
    for e in &ev {
        b.on_event(&e.event());
    }
    // Streaming: the foreground GC is done, but the BGC before it holds the settled prefix back.
    assert_eq!(b.gcs().len(), 4);
    assert_eq!(b.completed_gcs().len(), 2);
    assert!(b.gcs()[3].complete && !b.gcs()[2].complete);
    for e in &tail {
        b.on_event(&e.event());
    }
    // The background GC has ended, but it settles only when the next GC starts (server GC sends a
    // background GC's histories after its GCEnd); the last row settles at the next start too.
    assert_eq!(b.completed_gcs().len(), 2);
    for e in blocking_gc(120.0, 5, 0, 0, 1_000_000) {
        b.on_event(&e.event());
    }
    assert_eq!(b.completed_gcs().len(), 4);
    let m = b.finish(None);

    let bgc = &m.gcs[2];
    assert_eq!((bgc.gc_type, bgc.gen), (GcType::Background, 2));
    // Pause = initial (100.50 - 100.00 = 0.50) + final (105.30 - 105.00 = 0.30) = 0.80 ms.
    assert!(close(bgc.pause_ms.unwrap(), 0.8), "{:?}", bgc.pause_ms);
    assert!(close(bgc.bgc_final_pause_ms.unwrap(), 0.3));
    // Its two pauses: the first suspension to the restart after it, the ForGCPrep one.
    let spans: Vec<(f64, f64)> = bgc
        .bgc_pauses
        .iter()
        .map(|p| (p.start_ms, p.end_ms))
        .collect();
    assert_eq!(spans, [(100.0, 100.5), (105.0, 105.3)]);
    // Suspend = 0.01 + 0.02 = 0.03 ms; duration = 106.00 - 100.02 = 5.98 ms.
    assert!(close(bgc.suspend_ms.unwrap(), 0.03));
    assert!(close(bgc.duration_ms.unwrap(), 5.98));
    // Its own histories (gen2 condemned, before_bgc condition), not the foreground's.
    assert_eq!(bgc.condemned_gen, Some(2));
    assert_eq!(bgc.heaps[0].generations[0].size_before_bytes, 9_000_000);
    assert_eq!(bgc.condemn.as_ref().unwrap().conditions, ["before_bgc"]);
    // Peak: its own size before (5 x 9,000,000) is larger than the foreground's (5 x 3,000,000).
    assert_eq!(bgc.peak_bytes, Some(45_000_000));
    // % pause for a BGC: pause / (its end - previous GC's end) = 0.8 / (106.0 - 20.9) ms.
    assert!(close(bgc.pause_pct.unwrap(), 0.8 * 100.0 / (106.0 - 20.9)));
    let fg = &m.gcs[3];
    assert_eq!(fg.gc_type, GcType::Foreground);
    assert!(close(fg.pause_ms.unwrap(), 0.6));
    assert_eq!(fg.heaps[0].generations[0].size_before_bytes, 3_000_000);
    assert_eq!(m.rollup[0].background_count, 1);
    assert_eq!(m.process.concurrent, Some(true));
}

#[test]
fn a_trace_cut_at_both_ends_keeps_every_gc_it_saw() {
    // Starts inside GC 6 (only its GCEnd, GCHeapStats and restart are in the trace), then GC 7
    // without its SuspendEEBegin or histories; ends inside GC 9 (no GCEnd).
    let mut ev = vec![
        gc_end(0.5, TH, 6, 0),
        heap_stats(0.51, TH, [10, 20, 30, 40, 50], [1, 2, 3, 4, 5], [0; 3]),
        restart_end(0.6, TH),
        gc_start(1.0, TH, 7, 1, 0, 0),
        gc_end(1.5, TH, 7, 1),
        restart_end(1.6, TH),
    ];
    ev.extend(blocking_gc(3.0, 8, 0, 1, 1_000_000));
    ev.extend([
        suspend_begin(9.0, TH, 1, 8),
        suspend_end(9.01, TH),
        gc_start(9.02, TH, 9, 2, 1, 0),
    ]);
    let m = build(&ev);
    let numbers: Vec<u32> = m.gcs.iter().map(|g| g.number).collect();
    assert_eq!(numbers, [6, 7, 8, 9]);
    // GC 6: number and generation from GCEnd, sizes from its GCHeapStats; no start, no pause.
    let g6 = &m.gcs[0];
    assert!(g6.complete);
    assert_eq!(
        (g6.gen, g6.gc_type, &*g6.reason),
        (0, GcType::Unknown, "Unknown")
    );
    assert_eq!(
        (g6.pause_ms, g6.suspend_ms, g6.duration_ms),
        (None, None, None)
    );
    assert_eq!((g6.after_bytes, g6.promoted_bytes), (Some(150), Some(15)));
    assert!(
        g6.missing.iter().any(|r| r.contains("no GCStart")),
        "{:?}",
        g6.missing
    );
    let first = &m.gcs[1];
    assert!(first.complete);
    assert_eq!(first.suspend_ms, None);
    // Pause measured from GCStart (1.0) to the restart on the same thread (1.6).
    assert!(close(first.pause_ms.unwrap(), 0.6));
    assert!(
        first.missing.iter().any(|r| r.contains("SuspendEEBegin")),
        "{:?}",
        first.missing
    );
    assert!(first.missing.iter().any(|r| r.contains("GCPerHeapHistory")));
    assert!(first.missing.iter().any(|r| r.contains("GCHeapStats")));
    assert_eq!(
        (
            first.after_bytes,
            first.promoted_bytes,
            first.generations.gen0.survival_pct
        ),
        (None, None, None)
    );
    // The next GC is whole and unaffected; GC 8 is "Induced" (reason 1).
    let g8 = &m.gcs[2];
    assert!(
        g8.missing.is_empty() || g8.missing.iter().all(|r| r.contains("earlier blocking GC")),
        "{:?}",
        g8.missing
    );
    assert!(g8.induced && close(g8.pause_ms.unwrap(), 1.0));
    let last = &m.gcs[3];
    assert!(!last.complete);
    assert!(last.missing.iter().any(|r| r.contains("GCEnd")));
    assert_eq!(
        (last.duration_ms, last.pause_ms, last.after_bytes),
        (None, None, None)
    );
    // Rollups count complete GCs only; the incomplete one is reported.
    assert_eq!(m.rollup[0].count, 3);
    assert_eq!(m.process.incomplete_gc_count, 1);
}

#[test]
fn handles_and_pins_are_paired_and_grouped() {
    let mut ev = vec![
        set_handle(1.0, TH, 0x10, 0xA0, 3, 0), // pinned
        set_handle(1.1, TH, 0x20, 0xB0, 1, 2), // weak long, gen2
        set_handle(1.2, TH, 0x30, 0xC0, 2, 0), // strong
        destroy_handle(1.3, TH, 0x30),
        destroy_handle(1.4, TH, 0x99), // created before the trace
    ];
    let mut gc = blocking_gc(5.0, 1, 0, 0, 1_000_000);
    let pins = [
        pin_object(5.1, TH, 0x10, 0x1000, 4120, "System.Byte[]"),
        pin_object(5.1, TH, 0x40, 0x2000, 24, "System.Object"),
        pin_object(5.1, TH, 0x10, 0x1000, 4120, "System.Byte[]"), // reported twice: counted once in the GC
        pin_plug(5.2, TH, 0x0F00, 0x1100, 24),                    // holds 0x1000
        pin_plug(5.2, TH, 0x3000, 0x3100, 0),
    ];
    gc.splice(4..4, pins);
    ev.extend(gc);
    let mut gc2 = blocking_gc(8.0, 2, 0, 0, 1_000_000);
    gc2.insert(4, pin_object(8.1, TH, 0x10, 0x1000, 4120, "System.Byte[]"));
    ev.extend(gc2);
    let m = build(&ev);

    let h = &m.handles;
    assert_eq!((h.created, h.destroyed, h.destroyed_unmatched), (3, 1, 1));
    assert_eq!(h.alive_at_end.len(), 2);
    let pinned = h.alive_at_end.iter().find(|l| l.handle == 0x10).unwrap();
    assert_eq!(
        (&*pinned.kind, pinned.type_name.as_deref()),
        ("Pinned", Some("System.Byte[]"))
    );
    assert_eq!(
        h.alive_at_end
            .iter()
            .find(|l| l.handle == 0x20)
            .unwrap()
            .generation,
        2
    );
    // Live handles at GC 1's start (5.0) and GC 2's (8.0): 2 each; at the end 2.
    assert_eq!(
        h.live_over_time.iter().map(|p| p.value).collect::<Vec<_>>(),
        [2, 2, 2]
    );

    let g = &m.gcs[0];
    assert_eq!(g.pinned_objects.len(), 2);
    assert_eq!(g.pinned_objects_bytes, Some(4144)); // 4,120 + 24
                                                    // Plugs: 0x200 + 0x100 = 768 bytes; the first holds a pinned object: 512 bytes by user.
    assert_eq!(
        (g.pinned_plug_bytes, g.user_pinned_plug_bytes),
        (Some(768), Some(512))
    );
    assert!(g.pinned_plugs[0].by_user && !g.pinned_plugs[1].by_user);
    assert!(close(g.pinned_object_pct.unwrap(), 4144.0 * 100.0 / 768.0));
    let p = &m.pinning;
    assert_eq!(
        (
            p.pinned_object_events,
            p.pinned_plug_events,
            p.gcs_with_pins
        ),
        (4, 2, 2)
    );
    let bytes = p
        .by_type
        .iter()
        .find(|t| t.type_name == "System.Byte[]")
        .unwrap();
    assert_eq!(
        (bytes.count, bytes.total_bytes, bytes.gcs),
        (3, 3 * 4120, 2)
    );
    assert_eq!(p.by_type[0].type_name, "System.Byte[]"); // largest total first
}

#[test]
fn a_malformed_payload_is_counted_and_noted_not_fatal() {
    let mut ev = blocking_gc(1.0, 1, 0, 0, 1_000_000);
    ev[2].payload.truncate(3); // GCStart cut inside Count
    ev.extend(blocking_gc(3.0, 2, 0, 0, 1_000_000));
    let m = build(&ev);
    assert_eq!(m.process.payload_errors, 1);
    assert!(
        m.notes.iter().any(|n| n.contains("GC/Start")),
        "{:?}",
        m.notes
    );
    // GC 1's other events find no GC to belong to; GC 2 is whole.
    assert_eq!(m.gcs.last().unwrap().number, 2);
    assert!(m.gcs.last().unwrap().complete);
}

/// Sizes before a GC without per-heap history come from the last GCHeapStats, however far back:
/// when it belongs to a row a draining consumer has already taken (and the builder dropped), the
/// figures must not change.
#[test]
fn sizes_before_look_back_past_drained_rows() {
    let mut ev = Vec::new();
    for n in 1..=40u32 {
        for e in blocking_gc(10.0 * n as f64, n, 0, 0, 3_000_000) {
            let name = e.event().name.to_string();
            // Per-heap history never; heap stats only for the first and the last GC.
            if name == "GC/PerHeapHistory" || (n > 1 && n < 40 && name == "GC/HeapStats") {
                continue;
            }
            ev.push(e);
        }
    }
    let whole = {
        let mut b = ModelBuilder::new(&TraceInfo::default());
        for e in &ev {
            b.on_event(&e.event());
        }
        b.finish(None)
    };
    // GC 40's sizes before are GC 1's after (its heap stats: 1.5 MB, 2 MB, 8 MB, 1 MB, 10 KB),
    // 39 rows back.
    assert_eq!(whole.gcs[39].before_bytes, Some(12_510_000));
    let mut b = ModelBuilder::new(&TraceInfo::default());
    let mut rows = Vec::new();
    for e in &ev {
        b.on_event(&e.event());
        rows.extend(b.drain_completed());
    }
    assert!(b.gcs().len() < 20);
    let mut m = b.finish(None);
    rows.append(&mut m.gcs);
    m.gcs = rows;
    assert!(m == whole);
}

#[test]
fn one_gc_in_a_long_trace_is_a_small_share_of_its_time() {
    // One GC (pause 10.0-11.0 ms, GCEnd at 10.9, GCHeapStats at 10.91) in a trace whose last
    // event is at 7,400 ms: the program was stopped 1 ms of 7,400. PerfView's figure divides by
    // the GC span (10.0 to the GCHeapStats at 10.91), shorter than the pause itself.
    let mut ev = blocking_gc(10.0, 1, 0, 0, 4_000_000);
    ev.push(alloc_tick(7400.0, TH, 100_000, 0));
    let m = build(&ev);
    let all = &m.rollup[0];
    assert!(close(all.total_pause_ms, 1.0));
    assert!(close(m.process.trace_duration_ms, 7400.0));
    assert!(close(all.pause_time_pct.unwrap(), 100.0 / 7400.0));
    assert!(close(m.process.gc_span_ms, 0.91));
    assert!(close(all.gc_span_pause_pct.unwrap(), 100.0 / 0.91));
}

/// A newer runtime's GCStart (version 3, four more bytes) and GCHeapStats (version 3, eight more):
/// the fields we know decode as before, and the bytes past them are kept raw in a note per event
/// name and version (with the first one's bytes), not dropped silently.
#[test]
fn bytes_past_a_known_layout_are_kept_raw_in_a_note() {
    let mut ev = two_gcs();
    for e in ev.iter_mut() {
        if e.name == "GC/Start" {
            e.version = 3;
            e.payload.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
        }
        if e.name == "GC/HeapStats" {
            e.version = 3;
            e.payload.extend_from_slice(&7u64.to_le_bytes());
        }
    }
    let m = build(&ev);
    let plain = build(&two_gcs());
    assert_eq!(m.gcs, plain.gcs, "the known fields decode as before");
    let start = m
        .notes
        .iter()
        .find(|n| n.starts_with("GC/Start v3"))
        .expect("a note");
    assert!(
        start.contains("2 events carry bytes past the 26"),
        "{start}"
    );
    assert!(start.ends_with("deadbeef"), "{start}");
    let stats = m
        .notes
        .iter()
        .find(|n| n.starts_with("GC/HeapStats v3"))
        .expect("a note");
    assert!(stats.ends_with("0700000000000000"), "{stats}");
    assert!(plain.notes.iter().all(|n| !n.contains("past the")));
}

/// The GC span ends where TraceEvent's ProcessDuration does (`GetProcessDuration`): at the last
/// GCHeapStats of the trace, which `Stats()` uses when it recomputes every complete GC once the
/// trace is read. So a trace cut inside a background GC after its GCEnd, before its GCHeapStats,
/// ends the span at the GCHeapStats before, not at that GCEnd; and when the last GC is a
/// background GC, the span runs to that GC's own GCHeapStats, not to the one before it.
#[test]
fn the_gc_span_ends_where_traceevent_completes_the_last_gc() {
    // GC 1's pause starts at 10.0; GC 2's GCHeapStats at 20.91.
    let mut ev = two_gcs();
    // BGC #3 (initial suspension 100.00-100.01, GCStart 100.02, restart 100.5) and a foreground
    // GC #4 inside it (GCHeapStats at 101.51, RestartEEEnd at 101.6, where it completes).
    ev.extend([
        suspend_begin(100.0, TH, 1, 2),
        suspend_end(100.01, TH),
        gc_start(100.02, TH, 3, 2, 0, 1),
        restart_end(100.5, TH),
        suspend_begin(101.0, TH, 1, 3),
        suspend_end(101.01, TH),
        gc_start(101.02, TH, 4, 0, 0, 2),
        gc_end(101.5, TH, 4, 0),
        heap_stats(101.51, TH, [0, 1, 2, 3, 4], [0; 5], [0; 3]),
        restart_end(101.6, TH),
    ]);
    // The trace stops after the BGC's GCEnd: 10.0 to GC 4's GCHeapStats, not to 106.0.
    let mut cut = ev.clone();
    cut.push(gc_end(106.0, BGC_TH, 3, 2));
    assert!(close(build(&cut).process.gc_span_ms, 101.51 - 10.0));
    // With its GCHeapStats the BGC completes there, and the span ends at that GCHeapStats: the
    // trace's last.
    ev.push(gc_end(106.0, BGC_TH, 3, 2));
    ev.push(heap_stats(106.01, BGC_TH, [0, 1, 2, 3, 4], [0; 5], [0; 3]));
    assert!(close(build(&ev).process.gc_span_ms, 106.01 - 10.0));
    // A blocking GC after it ends the span at its own GCHeapStats (120.91).
    ev.extend(blocking_gc(120.0, 5, 0, 0, 1_000_000));
    assert!(close(build(&ev).process.gc_span_ms, 120.91 - 10.0));
}
