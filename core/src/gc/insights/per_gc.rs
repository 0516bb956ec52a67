//! Per-GC views: generation budgets, mark roots, compaction, suspensions and finalization. Records
//! are attributed to GCs by time ([`super::gc_at`]); figures the model already holds per GC
//! (per-heap histories, marked bytes, GCHeapStats) are read from it, not recomputed.

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::inputs::{InsightInputs, RangeEvent};
use super::types::*;
use super::{gc_at, gc_at_where, gc_ended_before, LOOKBACK};
use crate::clr::enums::{CondemnCondition, GcSuspendEeReason};
use crate::gc::packed::HeapSource;
use crate::gc::{reasons, CondemnReasons, Gc, GcType, HeapGen, HeapHistory, RootMarks};

/// GCReason AllocSmall: the gen0 budget was used up.
const REASON_ALLOC_SMALL: u32 = 0;
/// The condemn condition "gen1 budget exceeded, escalated to gen2".
const MAX_GEN1: &str = "max_gen1";
/// Generations whose objects are allocated directly (gen0, LOH, POH): their budget is consumed
/// by allocation, so "allocated since the previous GC" is meaningful for them.
const ALLOCATING_GENS: [usize; 3] = [0, 3, 4];

// ---------------------------------------------------------------------------------------------
// Budgets.

/// The generation the allocation budgets asked to condemn, read as TraceEvent's "Alloc_Exceeded"
/// group: CondemnReasons' budget generation, raised to 2 by the max_gen1 condition (gen1 over its
/// budget: gen2 is collected). The 2-bit field reads 0 both for "gen0" and "none": 0 counts only
/// when the trigger was AllocSmall (the gen0 budget).
fn budget_exceeded(c: &CondemnReasons, reason_code: u32) -> Option<u8> {
    let gen = if c.conditions.iter().any(|x| x == MAX_GEN1) {
        c.alloc_budget_gen.max(2)
    } else {
        c.alloc_budget_gen
    };
    if gen > 0 {
        Some(gen)
    } else {
        (reason_code == REASON_ALLOC_SMALL).then_some(0)
    }
}

fn gen_budget(g: &HeapGen) -> GenBudget {
    GenBudget {
        budget_bytes: g.new_allocation_bytes as i64,
        size_before_bytes: g.size_before_bytes,
        size_after_bytes: g.size_after_bytes,
        obj_size_before_bytes: g.obj_space_before_bytes,
        obj_size_after_bytes: g.obj_size_after(),
        survived_bytes: g.survived_bytes,
        in_bytes: g.in_bytes,
        fragmentation_bytes: g.fragmentation_bytes,
        allocated_since_previous_bytes: None,
        previous_budget_bytes: None,
        budget_used_pct: None,
    }
}

fn used_pct(allocated: u64, budget: i64) -> Option<f64> {
    (budget > 0).then(|| allocated as f64 * 100.0 / budget as f64)
}

/// The GC (with per-heap history) that ended last before GC `i` started.
fn previous_with_heaps(gcs: &[Gc], src: &dyn HeapSource, i: usize) -> Option<usize> {
    let start = gcs[i].start_ms;
    (i.saturating_sub(LOOKBACK)..i)
        .filter(|&j| src.has_heaps(j) && gcs[j].end_ms.is_some_and(|e| e <= start))
        .max_by(|&a, &b| {
            gcs[a]
                .end_ms
                .partial_cmp(&gcs[b].end_ms)
                .unwrap_or(core::cmp::Ordering::Equal)
        })
}

fn why(gc: &Gc, initial: Option<u8>, exceeded: Option<u8>, tuning: Option<u8>) -> String {
    let mut s = format!("triggered by {}", gc.reason);
    match initial {
        Some(i) if i < gc.gen => {
            s.push_str(&format!("; chosen as gen{i}, raised to gen{}", gc.gen))
        }
        Some(_) => s.push_str(&format!("; gen{} as chosen", gc.gen)),
        None => {}
    }
    let mut because: Vec<String> = Vec::new();
    // The budget field itself (max_gen1's escalation is told by its condition below).
    match gc.condemn.as_ref().map(|c| c.alloc_budget_gen) {
        Some(f) if f > 0 => because.push(format!("gen{f} budget exceeded")),
        _ if exceeded == Some(0) => because.push(String::from("gen0 budget used up")),
        _ => {}
    }
    if let Some(t) = tuning.filter(|&t| t > 0) {
        because.push(format!("gen{t} not collected for too long"));
    }
    if let Some(c) = &gc.condemn {
        for cond in &c.conditions {
            let help = CondemnCondition::ALL
                .iter()
                .find(|k| k.name() == cond.as_ref())
                .map(|k| reasons::condition_help(*k));
            because.push(match help {
                Some(h) => format!("{cond} ({h})"),
                None => String::from(cond.as_ref()),
            });
        }
    }
    if gc.induced {
        because.push(String::from("induced by the program"));
    }
    if !because.is_empty() {
        s.push_str(": ");
        s.push_str(&because.join(", "));
    }
    s
}

/// Every GC's budgets, per heap too when `per_heap` (a viewer that keeps 32 heaps' budgets for
/// every GC holds far more than the rows; it asks for one GC's with [`budget_of`] instead).
pub(crate) fn budgets(gcs: &[Gc], src: &dyn HeapSource, per_heap: bool) -> Vec<GcBudget> {
    budgets_in(gcs, src, per_heap, 0..gcs.len()).collect()
}

/// [`budgets`] of the GCs `range` indexes (their previous GCs may lie before it), one GC at a
/// time: for a reader that writes each out and lets it go, or makes several ranges at once (the
/// CLI's `budgets --json`: 32 heaps' budgets of every GC of a 1 GiB trace are ~230 MB held at
/// once, and writing them is most of its time).
pub fn budgets_in<'a>(
    gcs: &'a [Gc],
    src: &'a dyn HeapSource,
    per_heap: bool,
    range: core::ops::Range<usize>,
) -> impl Iterator<Item = GcBudget> + 'a {
    // The previous GC's heaps are usually the last ones read: keep them rather than read again.
    let mut last: Option<(usize, Cow<'a, [HeapHistory]>)> = None;
    let range = range.start.min(gcs.len())..range.end.min(gcs.len());
    range.filter_map(move |i| {
        if !src.has_heaps(i) {
            return None;
        }
        let heaps = src.heaps(i);
        let prev = previous_with_heaps(gcs, src, i).map(|p| match &last {
            Some((j, h)) if *j == p => Cow::Borrowed(h.as_ref()),
            _ => src.heaps(p),
        });
        let b = budget(&gcs[i], &heaps, prev.as_deref(), per_heap);
        last = Some((i, heaps));
        Some(b)
    })
}

/// GC `i`'s budgets, per heap included (`None` when it has no per-heap history).
pub fn budget_of(gcs: &[Gc], src: &dyn HeapSource, i: usize) -> Option<GcBudget> {
    if i >= gcs.len() || !src.has_heaps(i) {
        return None;
    }
    let prev = previous_with_heaps(gcs, src, i).map(|p| src.heaps(p));
    Some(budget(&gcs[i], &src.heaps(i), prev.as_deref(), true))
}

fn budget(
    gc: &Gc,
    gc_heaps: &[HeapHistory],
    prev: Option<&[HeapHistory]>,
    per_heap: bool,
) -> GcBudget {
    let prev_heap = |heap: u32| -> Option<&HeapHistory> { prev?.iter().find(|h| h.heap == heap) };
    let mut total = GenBudgets::default();
    let mut total_alloc = [None::<u64>; 5];
    let mut total_prev_budget = [None::<i64>; 5];
    let mut heaps = Vec::with_capacity(if per_heap { gc_heaps.len() } else { 0 });
    for h in gc_heaps {
        let mut gens = GenBudgets::default();
        for (g, hg) in h.generations.iter().enumerate().take(5) {
            let mut b = gen_budget(hg);
            if ALLOCATING_GENS.contains(&g) {
                if let Some(p) = prev_heap(h.heap).and_then(|p| p.generations.get(g)) {
                    let alloc = hg.obj_space_before_bytes.saturating_sub(p.obj_size_after());
                    let budget = p.new_allocation_bytes as i64;
                    b.allocated_since_previous_bytes = Some(alloc);
                    b.previous_budget_bytes = Some(budget);
                    b.budget_used_pct = used_pct(alloc, budget);
                    total_alloc[g] = Some(total_alloc[g].unwrap_or(0).saturating_add(alloc));
                    total_prev_budget[g] =
                        Some(total_prev_budget[g].unwrap_or(0).saturating_add(budget));
                }
            }
            if let Some(t) = total.get_mut(g) {
                t.budget_bytes = t.budget_bytes.saturating_add(b.budget_bytes);
                // Payload values are untrusted: saturate rather than overflow (fuzz finding).
                t.size_before_bytes = t.size_before_bytes.saturating_add(b.size_before_bytes);
                t.size_after_bytes = t.size_after_bytes.saturating_add(b.size_after_bytes);
                t.obj_size_before_bytes = t
                    .obj_size_before_bytes
                    .saturating_add(b.obj_size_before_bytes);
                t.obj_size_after_bytes = t
                    .obj_size_after_bytes
                    .saturating_add(b.obj_size_after_bytes);
                t.survived_bytes = t.survived_bytes.saturating_add(b.survived_bytes);
                t.in_bytes = t.in_bytes.saturating_add(b.in_bytes);
                t.fragmentation_bytes = t.fragmentation_bytes.saturating_add(b.fragmentation_bytes);
            }
            if let Some(slot) = gens.get_mut(g) {
                *slot = b;
            }
        }
        if per_heap {
            heaps.push(HeapBudgets {
                heap: h.heap,
                budget_exceeded_gen: budget_exceeded(&h.condemn, gc.reason_code),
                generations: gens,
            });
        }
    }
    for g in ALLOCATING_GENS {
        if let Some(t) = total.get_mut(g) {
            t.allocated_since_previous_bytes = total_alloc[g];
            t.previous_budget_bytes = total_prev_budget[g];
            t.budget_used_pct = match (total_alloc[g], total_prev_budget[g]) {
                (Some(a), Some(b)) => used_pct(a, b),
                _ => None,
            };
        }
    }
    let c = gc.condemn.as_ref();
    let initial = c.map(|c| c.initial_gen);
    let exceeded = c.and_then(|c| budget_exceeded(c, gc.reason_code));
    let tuning = c.map(|c| c.time_tuning_gen);
    GcBudget {
        gc_number: gc.number,
        gen: gc.gen,
        start_ms: gc.start_ms,
        reason: gc.reason.clone(),
        induced: gc.induced,
        initial_gen: initial,
        budget_exceeded_gen: exceeded,
        time_tuning_gen: tuning,
        conditions: c.map(|c| c.conditions.clone()).unwrap_or_default(),
        escalated: initial.is_some_and(|i| i < gc.gen),
        why: why(gc, initial, exceeded, tuning),
        total,
        heaps,
    }
}

// ---------------------------------------------------------------------------------------------
// Mark roots.

/// Root kinds in GCRootKind order, named as the `RootMarks` fields.
pub const ROOT_KINDS: [&str; 10] = [
    "stack",
    "finalize_queue",
    "handles",
    "older",
    "sized_ref",
    "overflow",
    "dependent_handles",
    "new_finalize_queue",
    "steal",
    "bgc",
];

/// A `RootMarks` as values in [`ROOT_KINDS`] order.
pub fn root_values(m: &RootMarks) -> [u64; 10] {
    [
        m.stack,
        m.finalize_queue,
        m.handles,
        m.older,
        m.sized_ref,
        m.overflow,
        m.dependent_handles,
        m.new_finalize_queue,
        m.steal,
        m.bgc,
    ]
}

pub(crate) fn roots(event_count: u64, gcs: &[Gc]) -> Roots {
    let mut r = Roots {
        has_events: event_count > 0,
        event_count,
        ..Roots::default()
    };
    let mut gcs_with = [0u32; 10];
    for gc in gcs {
        let Some(m) = &gc.marked_bytes else { continue };
        let v = root_values(m);
        for (k, &bytes) in v.iter().enumerate() {
            r.total.add(k as u32, bytes);
            gcs_with[k] += (bytes > 0) as u32;
        }
        let total_bytes = v.iter().fold(0u64, |a, &b| a.saturating_add(b));
        r.per_gc.push(GcRoots {
            gc_number: gc.number,
            gen: gc.gen,
            start_ms: gc.start_ms,
            marked: m.clone(),
            total_bytes,
        });
    }
    let v = root_values(&r.total);
    r.total_bytes = v.iter().fold(0u64, |a, &b| a.saturating_add(b));
    for (k, &bytes) in v.iter().enumerate() {
        r.by_kind.push(RootKindTotal {
            kind: Cow::Borrowed(ROOT_KINDS[k]),
            bytes,
            pct: if r.total_bytes > 0 {
                bytes as f64 * 100.0 / r.total_bytes as f64
            } else {
                0.0
            },
            gcs: gcs_with[k],
        });
    }
    r.by_kind
        .sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.kind.cmp(&b.kind)));
    r
}

// ---------------------------------------------------------------------------------------------
// Compaction.

pub(crate) fn compaction(events: &[RangeEvent], gcs: &[Gc]) -> Compaction {
    let mut c = Compaction {
        has_events: !events.is_empty(),
        ..Compaction::default()
    };
    let mut per: BTreeMap<usize, GcCompaction> = BTreeMap::new();
    for e in events {
        if e.moved {
            c.moved_events += 1;
            c.moved_bytes = c.moved_bytes.saturating_add(e.bytes);
            c.relocated_bytes = c.relocated_bytes.saturating_add(e.relocated_bytes);
        } else {
            c.surviving_events += 1;
            c.surviving_bytes = c.surviving_bytes.saturating_add(e.bytes);
        }
        let Some(i) = gc_at(gcs, e.ms) else {
            c.unattributed_events += 1;
            continue;
        };
        let g = per.entry(i).or_insert_with(|| GcCompaction {
            gc_number: gcs[i].number,
            gen: gcs[i].gen,
            ..GcCompaction::default()
        });
        if e.moved {
            g.moved_ranges += e.ranges;
            g.moved_bytes = g.moved_bytes.saturating_add(e.bytes);
            g.relocated_bytes = g.relocated_bytes.saturating_add(e.relocated_bytes);
        } else {
            g.surviving_ranges += e.ranges;
            g.surviving_bytes = g.surviving_bytes.saturating_add(e.bytes);
        }
    }
    c.per_gc = per.into_values().collect();
    c
}

// ---------------------------------------------------------------------------------------------
// Suspensions.

/// The GC a suspension for GC belongs to: the first GC whose GCStart falls inside it (ForGC), or
/// the background GC running when it began (ForGCPrep).
fn suspension_gc(gcs: &[Gc], s: &Suspension) -> Option<usize> {
    let end = s.begin_ms + s.pause_ms.unwrap_or(f64::INFINITY);
    let first = gcs.partition_point(|g| g.gc_start_ms < s.begin_ms);
    if let Some(i) = (first..gcs.len().min(first + LOOKBACK))
        .find(|&i| gcs[i].gc_start_ms >= s.begin_ms && gcs[i].gc_start_ms <= end)
    {
        return Some(i);
    }
    gc_at_where(gcs, s.begin_ms, |g| g.gc_type == GcType::Background)
}

pub(crate) fn suspensions(all: Vec<Suspension>, gcs: &[Gc]) -> Suspensions {
    let mut out = Suspensions {
        has_events: !all.is_empty(),
        count: all.len() as u64,
        ..Suspensions::default()
    };
    let mut per: BTreeMap<usize, GcSuspension> = BTreeMap::new();
    for mut s in all {
        // By reason.
        let i = match out.by_reason.iter().position(|r| r.reason == s.reason) {
            Some(i) => i,
            None => {
                out.by_reason.push(SuspendReasonStats {
                    reason: s.reason.clone(),
                    count: 0,
                    total_suspend_ms: 0.0,
                    max_suspend_ms: 0.0,
                    total_pause_ms: 0.0,
                    max_pause_ms: 0.0,
                });
                out.by_reason.len() - 1
            }
        };
        let r = &mut out.by_reason[i];
        r.count += 1;
        let (sus, pause) = (s.suspend_ms.unwrap_or(0.0), s.pause_ms.unwrap_or(0.0));
        r.total_suspend_ms += sus;
        r.max_suspend_ms = r.max_suspend_ms.max(sus);
        r.total_pause_ms += pause;
        r.max_pause_ms = r.max_pause_ms.max(pause);

        if !is_for_gc(s.reason_code) {
            out.not_for_gc.push(s);
            continue;
        }
        if let Some(i) = suspension_gc(gcs, &s) {
            s.gc_number = Some(gcs[i].number);
            let g = per.entry(i).or_insert_with(|| GcSuspension {
                gc_number: gcs[i].number,
                gen: gcs[i].gen,
                count: 0,
                reasons: Vec::new(),
                total_suspend_ms: 0.0,
                max_suspend_ms: 0.0,
                total_pause_ms: 0.0,
            });
            g.count += 1;
            if !g.reasons.contains(&s.reason) {
                g.reasons.push(s.reason.clone());
            }
            g.total_suspend_ms += sus;
            g.max_suspend_ms = g.max_suspend_ms.max(sus);
            g.total_pause_ms += pause;
        }
        out.for_gc.push(s);
    }
    out.by_reason
        .sort_by(|a, b| b.count.cmp(&a.count).then(a.reason.cmp(&b.reason)));
    out.per_gc = per.into_values().collect();
    out
}

// ---------------------------------------------------------------------------------------------
// Finalization.

pub(crate) fn finalization(b: &InsightInputs, gcs: &[Gc]) -> Finalization {
    let has_runs = !b.finalizer_ends.is_empty();
    let mut run_counts: BTreeMap<usize, u64> = BTreeMap::new();
    let mut runs = Vec::with_capacity(b.finalizer_ends.len());
    let mut total = 0u64;
    for f in &b.finalizer_ends {
        let after = gc_ended_before(gcs, f.begin_ms.unwrap_or(f.end_ms));
        if let Some(i) = after {
            *run_counts.entry(i).or_insert(0) += u64::from(f.count);
        }
        total += u64::from(f.count);
        runs.push(FinalizerRun {
            begin_ms: f.begin_ms,
            end_ms: f.end_ms,
            duration_ms: f.begin_ms.map(|s| f.end_ms - s),
            count: f.count,
            after_gc: after.map(|i| gcs[i].number),
        });
    }
    let per_gc = gcs
        .iter()
        .enumerate()
        .filter(|(_, g)| {
            g.finalization_promoted_count.is_some() || g.finalization_promoted_bytes.is_some()
        })
        .map(|(i, g)| GcFinalization {
            gc_number: g.number,
            gen: g.gen,
            promoted_bytes: g.finalization_promoted_bytes,
            promoted_count: g.finalization_promoted_count,
            finalizers_run: has_runs.then(|| run_counts.get(&i).copied().unwrap_or(0)),
        })
        .collect::<Vec<_>>();
    Finalization {
        has_events: has_runs || !per_gc.is_empty() || b.finalize_object_events > 0,
        finalizers_run: total,
        runs,
        per_gc,
        finalize_object_events: 0,
        by_type: Vec::new(),
    }
}

/// Suspension reasons that belong to a GC.
fn is_for_gc(code: u32) -> bool {
    matches!(
        GcSuspendEeReason::from_raw(code),
        GcSuspendEeReason::ForGc | GcSuspendEeReason::ForGcPrep
    )
}
