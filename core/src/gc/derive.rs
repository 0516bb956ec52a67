//! Figures derived from a GC's events and its neighbours' (PerfView GCStats definitions).
//!
//! Run when a GC closes and again for every GC at the end of the trace, so late events (server
//! background GC histories, GCs that start during a background GC) are always included.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::raw::{GcRaw, HeapStatsRaw};
use super::reasons;
use super::rows::Rows;
use super::types::*;

const GEN0: usize = 0;
const GEN1: usize = 1;
const LOH: usize = 3;
const POH: usize = 4;

/// One generation of GCPerHeapHistory: SizeBefore, FreeListBefore, FreeObjBefore, SizeAfter,
/// FreeListAfter, FreeObjAfter, In, PinnedSurv, NonPinnedSurv, NewAllocation.
pub fn heap_gen(v: &[u64; 10]) -> HeapGen {
    let obj_space_before = v[0].saturating_sub(v[1]).saturating_sub(v[2]);
    let survived = v[7].saturating_add(v[8]);
    HeapGen {
        size_before_bytes: v[0],
        free_list_before_bytes: v[1],
        free_obj_before_bytes: v[2],
        size_after_bytes: v[3],
        free_list_after_bytes: v[4],
        free_obj_after_bytes: v[5],
        in_bytes: v[6],
        pinned_survived_bytes: v[7],
        non_pinned_survived_bytes: v[8],
        new_allocation_bytes: v[9],
        obj_space_before_bytes: obj_space_before,
        survived_bytes: survived,
        survival_pct: (obj_space_before > 0)
            .then(|| survived as f64 * 100.0 / obj_space_before as f64),
        fragmentation_bytes: v[4].saturating_add(v[5]),
    }
}

impl HeapGen {
    /// Bytes occupied by objects after the GC (size minus free space).
    pub fn obj_size_after(&self) -> u64 {
        self.size_after_bytes
            .saturating_sub(self.fragmentation_bytes)
    }
}

/// Number of generations every heap of this GC reports (0 without per-heap history).
fn gen_count(heaps: &[HeapHistory]) -> usize {
    heaps.iter().map(|h| h.generations.len()).min().unwrap_or(0)
}

fn clamp(v: i128) -> u64 {
    v.clamp(0, u64::MAX as i128) as u64
}

/// Sum of per-heap sizes before the GC for generation `g`, or PerfView's estimate without them.
fn gen_size_before(
    gcs: &Rows<Gc>,
    raws: &Rows<GcRaw>,
    dropped_stats: Option<HeapStatsRaw>,
    i: usize,
    g: usize,
) -> u64 {
    let gc = &gcs[i];
    if g < gen_count(&gc.heaps) {
        return gc
            .heaps
            .iter()
            .map(|h| h.generations[g].size_before_bytes)
            .fold(0, u64::saturating_add);
    }
    // Without per-heap history only gen0 (from AllocationTick), and the previous GC's sizes, are known.
    let tick0 = if g == GEN0 {
        raws[i].alloc_tick.map_or(0, |t| t[0])
    } else {
        0
    };
    let earlier = raws.window(0, i).iter().rev().find_map(|r| r.heap_stats);
    let Some(prev) = earlier.or(dropped_stats) else {
        return tick0;
    };
    let cur = raws[i].heap_stats;
    match g {
        GEN0 => prev.size[0].max(tick0),
        LOH | POH => prev.size[g].max(cur.map_or(0, |c| c.size[g])),
        _ => prev.size[g],
    }
}

/// What the program allocated into gen0, LOH or POH since the previous GC (PerfView's UserAllocated).
fn user_allocated(gcs: &Rows<Gc>, raws: &Rows<GcRaw>, i: usize, g: usize) -> Option<u64> {
    let gc = &gcs[i];
    let tick = raws[i].alloc_tick.map(|t| {
        t[match g {
            GEN0 => 0,
            LOH => 1,
            _ => 2,
        }]
    });
    if gc.gc_type == GcType::Background && g == GEN0 {
        return tick;
    }
    match baseline(gcs, i) {
        Some(prev) if !gc.heaps.is_empty() => {
            if g >= gen_count(&gc.heaps) {
                return Some(0);
            }
            let mut total: i128 = 0;
            for (h, heap) in gc.heaps.iter().enumerate() {
                let before = heap.generations[g].obj_space_before_bytes;
                let mut prev_obj = 0;
                if let Some(pg) = prev.heaps.get(h).and_then(|ph| ph.generations.get(g)) {
                    prev_obj = pg.obj_size_after();
                    // A gen0 GC does not update LOH/POH "after" figures: use what it saw before.
                    if (g == LOH || g == POH) && prev_obj == 0 && prev.gen < GEN1 as u8 {
                        prev_obj = pg.obj_space_before_bytes;
                    }
                }
                total += before as i128 - prev_obj as i128;
            }
            Some(clamp(total))
        }
        _ => tick,
    }
}

/// How far back to look for a baseline GC (GCs overlap only around background GCs).
pub(crate) const BASELINE_LOOKBACK: usize = 16;

/// The GC whose "after" sizes are this GC's starting point: of the earlier GCs with per-heap
/// history that ended before this one's pause began, the one that ended last. PerfView takes the
/// GC just before in the list, which may be a background GC still running (whose records are
/// not in yet) when this GC started.
fn baseline(gcs: &Rows<Gc>, i: usize) -> Option<&Gc> {
    let start = gcs[i].start_ms;
    gcs.window(i.saturating_sub(BASELINE_LOOKBACK), i)
        .iter()
        .filter(|p| !p.heaps.is_empty())
        .filter_map(|p| p.end_ms.filter(|e| *e <= start).map(|e| (e, p)))
        .fold(None, |best: Option<(f64, &Gc)>, (e, p)| match best {
            Some((be, _)) if be >= e => best,
            _ => Some((e, p)),
        })
        .map(|(_, p)| p)
}

/// Recomputes every derived figure of GC `i` (`gcs[i]`, with its facts `raws[i]`) from it and the
/// rows around it. `dropped_stats` is the last GCHeapStats of the rows already dropped (for
/// look-backs past the rows held); `has_pin_events` says whether the trace reports pinned objects.
pub fn derive(
    gcs: &mut Rows<Gc>,
    raws: &Rows<GcRaw>,
    dropped_stats: Option<HeapStatsRaw>,
    has_pin_events: bool,
    i: usize,
) {
    let raw = &raws[i];

    // Sizes before (needs only this GC and earlier ones).
    let mut before = [0u64; 5];
    for (g, v) in before.iter_mut().enumerate() {
        *v = gen_size_before(gcs, raws, dropped_stats, i, g);
    }
    let alloc = [
        user_allocated(gcs, raws, i, GEN0),
        user_allocated(gcs, raws, i, LOH),
        user_allocated(gcs, raws, i, POH),
    ];
    let prev_stop = match i.checked_sub(1).and_then(|p| gcs.get(p)) {
        Some(p) => p.gc_start_ms + p.duration_ms.unwrap_or(0.0),
        None => gcs[i].gc_start_ms,
    };
    let prev_has_heaps = baseline(gcs, i).is_some();
    let before_total: u64 = before.iter().fold(0, |a, b| a.saturating_add(*b));

    // Peak: for a background GC, also the sizes before every GC that started while it ran.
    let mut peak = before_total;
    if gcs[i].gc_type == GcType::Background {
        let end = gcs[i].start_ms + gcs[i].duration_ms.unwrap_or(0.0);
        for later in gcs.from(i + 1) {
            if end < later.start_ms {
                break;
            }
            peak = peak.max(later.before_bytes.unwrap_or(0));
        }
    }

    let gc = &mut gcs[i];
    let mut missing: Vec<Name> = Vec::new();
    if raw.no_start {
        missing.push(Cow::Borrowed(reasons::MISSING_START));
    } else if raw.no_suspend {
        missing.push(Cow::Borrowed(reasons::MISSING_SUSPEND));
    }
    if !gc.complete {
        missing.push(Cow::Borrowed(reasons::MISSING_END));
    }
    if !raw.restart_seen && gc.gc_type != GcType::Background && !raw.no_start {
        missing.push(Cow::Borrowed(reasons::MISSING_RESTART));
    }
    if raw.heap_stats.is_none() {
        missing.push(Cow::Borrowed(reasons::MISSING_HEAP_STATS));
    }
    if !raw.global_seen {
        missing.push(Cow::Borrowed(reasons::MISSING_GLOBAL));
    }
    if gc.heaps.is_empty() {
        missing.push(Cow::Borrowed(reasons::MISSING_PER_HEAP));
    } else if i > 0 && !prev_has_heaps && gc.gc_type != GcType::Background {
        missing.push(Cow::Borrowed(reasons::MISSING_PREV_PER_HEAP));
    }
    gc.missing = missing;

    // Heap-stats figures.
    let ngen = gen_count(&gc.heaps);
    let hs = raw.heap_stats;
    // Payload values are untrusted: sums saturate rather than overflow.
    let total = |v: &[u64]| v.iter().fold(0u64, |a, b| a.saturating_add(*b));
    gc.after_bytes = hs.map(|h| total(&h.size));
    gc.promoted_bytes = hs.map(|h| total(&h.promoted));
    let measured = gc.complete && (hs.is_some() || ngen > 0);
    gc.before_bytes = measured.then_some(before_total);
    gc.peak_bytes = measured.then_some(peak);
    gc.peak_after_ratio = match gc.after_bytes {
        Some(a) if a > 0 && measured => Some(peak as f64 / a as f64),
        _ => None,
    };

    for g in 0..5 {
        let collected = if g >= LOH {
            gc.gen == 2
        } else {
            g as u8 <= gc.gen
        };
        let poh_known = g != POH || hs.is_some_and(|h| h.has_poh) || ngen > POH;
        let st = gc.generations.get_mut(g).expect("5 generations");
        st.size_after_bytes = hs.filter(|_| poh_known).map(|h| h.size[g]);
        st.promoted_bytes = hs.filter(|_| poh_known).map(|h| h.promoted[g]);
        if g < ngen {
            let sum = |f: fn(&HeapGen) -> u64| {
                gc.heaps
                    .iter()
                    .map(|h| f(&h.generations[g]))
                    .fold(0, u64::saturating_add)
            };
            let survived = sum(|x| x.survived_bytes);
            let obj_before = sum(|x| x.obj_space_before_bytes);
            let frag = sum(|x| x.fragmentation_bytes);
            st.size_before_bytes = Some(sum(|x| x.size_before_bytes));
            st.survived_bytes = Some(survived);
            st.survival_pct =
                (collected && obj_before > 0).then(|| survived as f64 * 100.0 / obj_before as f64);
            st.fragmentation_bytes = Some(frag);
            st.fragmentation_pct = match st.size_after_bytes {
                Some(a) if a > 0 => Some(frag as f64 * 100.0 / a as f64),
                _ => None,
            };
            st.budget_bytes = Some(sum(|x| x.new_allocation_bytes));
            st.in_bytes = Some(sum(|x| x.in_bytes));
        } else {
            st.size_before_bytes = None;
            st.survived_bytes = None;
            st.survival_pct = None;
            st.fragmentation_bytes = None;
            st.fragmentation_pct = None;
            st.budget_bytes = None;
            st.in_bytes = None;
        }
    }

    // Allocation.
    gc.gen0_allocated_bytes = alloc[0];
    gc.loh_allocated_bytes = alloc[1];
    gc.poh_allocated_bytes = alloc[2];
    gc.allocated_bytes = alloc[0].map(|a| {
        a.saturating_add(alloc[1].unwrap_or(0))
            .saturating_add(alloc[2].unwrap_or(0))
    });
    gc.alloc_tick_bytes = raw.alloc_tick.map(|t| total(&t));
    let since = gc.since_previous_gc_ms.filter(|s| *s > 0.0);
    gc.gen0_alloc_rate_bytes_per_s =
        since.and_then(|s| gc.gen0_allocated_bytes.map(|a| a as f64 * 1000.0 / s));
    gc.alloc_rate_bytes_per_s =
        since.and_then(|s| gc.allocated_bytes.map(|a| a as f64 * 1000.0 / s));

    // % of elapsed time paused.
    gc.pause_pct = match (gc.pause_ms, gc.gc_type) {
        (Some(p), GcType::Background) => gc.duration_ms.and_then(|d| {
            let total = gc.gc_start_ms + d - prev_stop;
            (total > 0.0).then(|| p * 100.0 / total)
        }),
        (Some(p), _) => gc.since_previous_gc_ms.and_then(|s| {
            let total = p + s;
            (total > 0.0).then(|| p * 100.0 / total)
        }),
        (None, _) => None,
    };

    // Heap count: GlobalHeapHistory's, or the number of per-heap events.
    if gc.heap_count.is_none() && !gc.heaps.is_empty() {
        gc.heap_count = Some(gc.heaps.len() as u32);
    }

    // Pinning.
    let obj_bytes: u64 = gc
        .pinned_objects
        .iter()
        .map(|p| p.size_bytes)
        .fold(0, u64::saturating_add);
    gc.pinned_objects_bytes =
        (has_pin_events || !gc.pinned_objects.is_empty()).then_some(obj_bytes);
    let objects = &gc.pinned_objects;
    let (mut plug_bytes, mut user_bytes) = (0u64, 0u64);
    for plug in gc.pinned_plugs.iter_mut() {
        plug.by_user = objects
            .iter()
            .any(|o| o.address >= plug.start && o.address < plug.end);
        let size = plug.end.saturating_sub(plug.start);
        plug_bytes = plug_bytes.saturating_add(size);
        if plug.by_user {
            user_bytes = user_bytes.saturating_add(size);
        }
    }
    let has_plugs = !gc.pinned_plugs.is_empty();
    gc.pinned_plug_bytes = has_plugs.then_some(plug_bytes);
    gc.user_pinned_plug_bytes = has_plugs.then_some(user_bytes);
    gc.pinned_object_pct = (plug_bytes > 0).then(|| obj_bytes as f64 * 100.0 / plug_bytes as f64);

    // Condemn reasons: the heap that decided the generation, merged with the global word.
    gc.condemn = deciding_heap(gc).map(|h| gc.heaps[h].condemn.clone());
    if let Some(global) = &raw.global_condemn {
        gc.condemn = Some(match gc.condemn.take() {
            None => global.clone(),
            Some(mut c) => {
                c.initial_gen = c.initial_gen.max(global.initial_gen);
                c.final_gen = c.final_gen.max(global.final_gen);
                c.alloc_budget_gen = c.alloc_budget_gen.max(global.alloc_budget_gen);
                c.time_tuning_gen = c.time_tuning_gen.max(global.time_tuning_gen);
                for n in &global.conditions {
                    if !c.conditions.contains(n) {
                        c.conditions.push(n.clone());
                    }
                }
                c
            }
        });
    }
}

/// PerfView's choice of heap: the first whose final generation is the GC's; for a blocking gen2
/// GC on server, the heap with the most reasons that force a blocking full GC.
fn deciding_heap(gc: &Gc) -> Option<usize> {
    if gc.heaps.is_empty() {
        return None;
    }
    let mut best = gc
        .heaps
        .iter()
        .position(|h| h.condemn.final_gen == gc.gen)
        .unwrap_or(0);
    if gc.heaps.len() > 1 && gc.gen == 2 && gc.gc_type != GcType::Background {
        const BLOCKING: [&str; 5] = [
            "expand_fullgc",
            "before_oom",
            "max_high_frag",
            "max_high_frag_m",
            "max_high_frag_vm",
        ];
        let factors = |h: &HeapHistory| {
            h.condemn
                .conditions
                .iter()
                .filter(|c| BLOCKING.contains(&c.as_ref()))
                .count()
        };
        let mut most = 0;
        for (k, h) in gc.heaps.iter().enumerate().skip(best) {
            let f = factors(h);
            if f > most {
                most = f;
                best = k;
            }
        }
    }
    Some(best)
}
