//! The classic ".NET CLR Memory" performance counters, reconstructed from the GC model: the runtime
//! updated them at the end of every GC, so one sample per complete GC (at its GCEnd) is what
//! perfmon would have shown. Counts start at the trace start, not the process start.

use alloc::vec::Vec;

use super::types::CounterSample;
use crate::gc::Gc;

/// `committed`: GC/CommittedUsage events (time, committed bytes), in time order.
pub(crate) fn counters(gcs: &[Gc], committed: &[(f64, u64)]) -> Vec<CounterSample> {
    let mut done: Vec<(&Gc, f64)> = gcs
        .iter()
        .filter_map(|g| g.end_ms.filter(|_| g.complete).map(|e| (g, e)))
        .collect();
    // A background GC ends after the foreground GCs that ran during it.
    done.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(core::cmp::Ordering::Equal));
    let (mut c0, mut c1, mut c2, mut induced) = (0u32, 0u32, 0u32, 0u32);
    let mut out = Vec::with_capacity(done.len());
    for (g, end) in done {
        // A gen-N GC collects every younger generation too: it counts for each.
        c0 += 1;
        c1 += (g.gen >= 1) as u32;
        c2 += (g.gen >= 2) as u32;
        induced += g.induced as u32;
        let gens = &g.generations;
        let all = match (
            gens.gen1.size_after_bytes,
            gens.gen2.size_after_bytes,
            gens.loh.size_after_bytes,
        ) {
            (Some(a), Some(b), Some(c)) => Some(
                a.saturating_add(b)
                    .saturating_add(c)
                    .saturating_add(gens.poh.size_after_bytes.unwrap_or(0)),
            ),
            _ => None,
        };
        out.push(CounterSample {
            gc_number: g.number,
            ms: end,
            gen0_collections: c0,
            gen1_collections: c1,
            gen2_collections: c2,
            induced_gcs: induced,
            gen0_heap_size_bytes: g.gen0_budget_bytes.or(gens.gen0.budget_bytes),
            gen1_heap_size_bytes: gens.gen1.size_after_bytes,
            gen2_heap_size_bytes: gens.gen2.size_after_bytes,
            loh_size_bytes: gens.loh.size_after_bytes,
            poh_size_bytes: gens.poh.size_after_bytes,
            bytes_in_all_heaps: all,
            promoted_from_gen0_bytes: gens.gen0.promoted_bytes,
            promoted_from_gen1_bytes: gens.gen1.promoted_bytes,
            promoted_finalization_from_gen0_bytes: g.finalization_promoted_bytes,
            finalization_survivors: g.finalization_promoted_count,
            gc_handles: g.gc_handle_count,
            pinned_objects: g.pinned_object_count,
            sync_blocks_in_use: g.sync_block_count,
            time_in_gc_pct: g.pause_pct,
            allocated_bytes_per_s: g.alloc_rate_bytes_per_s,
            total_committed_bytes: committed_at(committed, g, end),
        });
    }
    out
}

/// The committed bytes of the last CommittedUsage fired during the GC (pause start to GCEnd; the
/// runtime fires one at the start and one at the end of a blocking GC).
fn committed_at(committed: &[(f64, u64)], g: &Gc, end: f64) -> Option<u64> {
    let hi = committed.partition_point(|c| c.0 <= end);
    committed[..hi]
        .last()
        .filter(|c| c.0 >= g.start_ms)
        .map(|c| c.1)
}
