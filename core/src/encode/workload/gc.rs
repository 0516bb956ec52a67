//! One blocking GC as the runtime writes it (workstation, or server with one PerHeapHistory per
//! heap), and the simulated heap it collects.

use alloc::vec;
use alloc::vec::Vec;

use super::ids::Ids;
use super::{Buffers, GcTruth, Rng, Truth};
use crate::encode::payload::{self, GenData, GlobalHistory, HeapStats, PerHeapHistory};
use crate::encode::{EventFields, Header};

/// The simulated managed heap (gen0, gen1, gen2, LOH, POH over all GC heaps).
pub(super) struct Heap {
    pub(super) size: [u64; 5],
    pub(super) gc_count: u32,
    /// GC heaps the sizes are split over.
    pub(super) count: u32,
}

/// Heap `h`'s share of `total` over `n` heaps: equal parts, the remainder on heap 0 (the shares
/// add up to the total exactly, so per-heap sums can be checked against it).
pub(super) fn share(total: u64, h: u32, n: u32) -> u64 {
    let n = u64::from(n.max(1));
    total / n + if h == 0 { total % n } else { 0 }
}

/// Writes one blocking GC starting at `t` on thread `th`; returns when the EE is restarted.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_gc(
    w: &mut Buffers,
    pointer_size: u8,
    ids: &Ids,
    rng: &mut Rng,
    heap: &mut Heap,
    truth: &mut Truth,
    th: u64,
    t: i64,
    allocated: u64,
    header: &Header,
) -> i64 {
    heap.gc_count += 1;
    let n = heap.gc_count;
    let (gen, reason) = if n.is_multiple_of(500) {
        (2, 1) // induced
    } else if n.is_multiple_of(97) {
        (2, 0)
    } else if n.is_multiple_of(10) {
        (1, 0)
    } else {
        (0, 0)
    };
    let ev = |w: &mut Buffers, id: u32, ts: i64, p: &[u8]| {
        w.push(
            EventFields {
                metadata_id: id,
                thread_id: th,
                capture_thread_id: th,
                processor: (th % 2) as u32,
                timestamp: ts,
                ..Default::default()
            },
            p,
        );
    };
    let suspend = 20_000 + rng.below(180_000) as i64;
    let work = match gen {
        0 => 800_000 + rng.below(4_000_000),
        1 => 4_000_000 + rng.below(10_000_000),
        _ => 25_000_000 + rng.below(60_000_000),
    } as i64;
    let mut ts = t;
    ev(w, ids.triggered, ts, &payload::gc_triggered(reason));
    ts += 1_000;
    let suspend_begin = ts;
    ev(
        w,
        ids.suspend_begin,
        ts,
        &payload::suspend_ee_begin_v1(1, n),
    );
    ts += suspend;
    ev(w, ids.suspend_end, ts, &payload::clr_instance_only());
    ts += 2_000;
    let start = ts;
    ev(
        w,
        ids.start,
        ts,
        &payload::gc_start_v2(n, gen, reason, 0, n as u64),
    );

    // Heap evolution: gen0 is emptied, survivors promoted one generation up.
    let before = {
        let mut b = heap.size;
        b[0] = allocated;
        b
    };
    let mut after = before;
    let surv0 = allocated / 20 + rng.below(allocated / 40 + 1);
    let mut promoted = [0u64; 5];
    promoted[0] = surv0;
    after[0] = 0;
    if gen == 0 {
        after[1] = before[1] + surv0;
    } else {
        let surv1 = before[1] / 3;
        promoted[1] = surv1;
        after[1] = surv0;
        after[2] = before[2] + surv1;
        if gen == 2 {
            promoted[2] = before[2] * 7 / 10;
            after[2] = promoted[2] + surv1;
            promoted[3] = before[3] * 9 / 10;
            after[3] = promoted[3];
            promoted[4] = before[4];
        }
    }
    if gen < 2 {
        after[3] += 64 * 1024; // some LOH allocation
    }
    ts += work * 8 / 10;
    // CondemnReasons0's 2-bit generation slots: Initial, FinalPerHeap and AllocBudget all this GC's
    // generation (the budget of the generation collected was used up, and nothing raised it).
    let condemn = gen * 0b01_01_01;
    // Server GC: each heap's GC thread fires its heap's history (workstation: the GC's thread).
    let heaps = heap.count;
    for h in 0..heaps {
        let part = |x: u64| share(x, h, heaps);
        let gens: Vec<GenData> = (0..5)
            .map(|g| {
                let (b, a, p) = (part(before[g]), part(after[g]), part(promoted[g]));
                GenData {
                    size_before: b,
                    free_list_before: b / 50,
                    free_obj_before: b / 100,
                    size_after: a,
                    free_list_after: a / 60,
                    free_obj_after: a / 120,
                    in_bytes: if g > 0 { part(promoted[g - 1]) } else { 0 },
                    pinned_surv: p / 100,
                    non_pinned_surv: p - p / 100,
                    new_allocation: part(if g == 0 { allocated } else { 256 * 1024 }),
                }
            })
            .collect();
        let ph = PerHeapHistory {
            free_list_allocated: part(allocated / 10),
            free_list_rejected: part(allocated / 200),
            end_of_seg_allocated: part(allocated / 2),
            condemned_allocated: 0,
            pinned_allocated: 0,
            pinned_allocated_advance: 0,
            running_free_list_efficiency: 85,
            condemn_reasons0: condemn,
            condemn_reasons1: 0,
            compact_mechanisms: if gen == 2 { 1 << 3 } else { 0 },
            expand_mechanisms: 0,
            heap_index: h,
            extra_gen0_commit: 0,
            generations: gens,
        };
        let gc_thread = if heaps > 1 {
            0x9000 + 8 * u64::from(h)
        } else {
            th
        };
        w.push(
            EventFields {
                metadata_id: ids.per_heap,
                thread_id: gc_thread,
                capture_thread_id: gc_thread,
                processor: h,
                timestamp: ts + i64::from(h),
                ..Default::default()
            },
            &payload::per_heap_history_v3(&ph, pointer_size),
        );
    }
    ts += 1_000;
    let compacting = gen == 2;
    let gh = GlobalHistory {
        final_youngest_desired: 48 << 20,
        num_heaps: heaps as i32,
        condemned_generation: gen,
        gen0_reduction_count: 0,
        reason,
        global_mechanisms: if compacting { 0x2 } else { 0x0 },
        pause_mode: 1,
        memory_pressure: 35,
        condemn_reasons0: condemn,
        condemn_reasons1: 0,
        phase_times: if compacting {
            vec![10, 400, 20, 15, 12, 300, 800, 900]
        } else {
            vec![5, 200, 10, 8, 6, 150, 90]
        },
    };
    ev(w, ids.global, ts, &payload::global_heap_history_v4(&gh));
    ts += work * 2 / 10;
    ev(w, ids.end, ts, &payload::gc_end_v1(n, gen));
    ts += 3_000;
    let hs = HeapStats {
        size: after,
        promoted,
        finalization_promoted_size: 1024,
        finalization_promoted_count: 3,
        pinned_objects: 2,
        sync_blocks: 10,
        gc_handles: 300,
    };
    ev(w, ids.heap_stats, ts, &payload::heap_stats_v2(&hs));
    ts += 2_000;
    ev(w, ids.restart_begin, ts, &payload::clr_instance_only());
    ts += 10_000 + rng.below(50_000) as i64;
    ev(w, ids.restart_end, ts, &payload::clr_instance_only());
    heap.size = after;
    let ms = |x: i64| (x - header.sync_time_qpc) as f64 * 1000.0 / header.qpc_frequency as f64;
    truth.gcs.push(GcTruth {
        number: n,
        gen,
        reason,
        pause_ms: (ts - suspend_begin) as f64 * 1000.0 / header.qpc_frequency as f64,
        start_ms: ms(start),
        after_bytes: after.iter().sum(),
    });
    ts + 1_000
}
