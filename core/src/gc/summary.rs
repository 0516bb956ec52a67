//! Whole-trace summaries: rollup by generation, condemn-reason breakdown, process facts.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::builder::ModelBuilder;
use super::types::*;

pub(crate) fn build(b: ModelBuilder) -> GcModel {
    let ModelBuilder {
        gcs,
        handles,
        pins,
        mut process,
        notes,
        ..
    } = b;

    // PerfView's process duration: first complete GC's pause start to the last GC's end.
    let first = gcs.iter().find(|g| g.complete).map(|g| g.start_ms);
    let last_end = gcs
        .iter()
        .map(|g| g.end_ms.unwrap_or(g.start_ms))
        .reduce(f64::max);
    process.gc_span_ms = match (first, last_end) {
        (Some(f), Some(l)) if l > f => l - f,
        _ => 0.0,
    };
    process.gc_count = gcs.len() as u32;
    process.incomplete_gc_count = gcs.iter().filter(|g| !g.complete).count() as u32;
    let end_ms = process.last_event_ms.unwrap_or(0.0);
    process.trace_duration_ms = end_ms.max(0.0);

    let mut rollup = Vec::with_capacity(4);
    rollup.push(gen_rollup(&gcs, None, process.gc_span_ms));
    for g in 0..3u8 {
        rollup.push(gen_rollup(&gcs, Some(g), process.gc_span_ms));
    }
    let condemn_reasons = condemn_breakdown(&gcs);
    let handles = handles.summary(end_ms);
    let pinning = pins.summary(&gcs);
    GcModel {
        process,
        gcs,
        rollup,
        condemn_reasons,
        handles,
        pinning,
        notes,
    }
}

fn gen_rollup(gcs: &[Gc], gen: Option<u8>, span_ms: f64) -> GenRollup {
    let name = match gen {
        None => Cow::Borrowed("all"),
        Some(0) => Cow::Borrowed("0"),
        Some(1) => Cow::Borrowed("1"),
        Some(_) => Cow::Borrowed("2"),
    };
    let mut r = GenRollup {
        gen: name,
        ..GenRollup::default()
    };
    let (mut peak_sum, mut after_sum) = (0f64, 0f64);
    for gc in gcs
        .iter()
        .filter(|g| g.complete && gen.is_none_or(|x| g.gen == x))
    {
        r.count += 1;
        r.induced_count += gc.induced as u32;
        r.background_count += (gc.gc_type == GcType::Background) as u32;
        let pause = gc.pause_ms.unwrap_or(0.0);
        r.total_pause_ms += pause;
        r.max_pause_ms = r.max_pause_ms.max(pause);
        r.max_suspend_ms = r.max_suspend_ms.max(gc.suspend_ms.unwrap_or(0.0));
        r.total_duration_ms += gc.duration_ms.unwrap_or(0.0);
        r.max_peak_bytes = r.max_peak_bytes.max(gc.peak_bytes.unwrap_or(0));
        peak_sum += gc.peak_bytes.unwrap_or(0) as f64;
        after_sum += gc.after_bytes.unwrap_or(0) as f64;
        r.total_allocated_bytes = r
            .total_allocated_bytes
            .saturating_add(gc.allocated_bytes.unwrap_or(0));
        r.max_alloc_rate_bytes_per_s = r
            .max_alloc_rate_bytes_per_s
            .max(gc.alloc_rate_bytes_per_s.unwrap_or(0.0));
        r.total_promoted_bytes = r
            .total_promoted_bytes
            .saturating_add(gc.promoted_bytes.unwrap_or(0));
    }
    if r.count > 0 {
        let n = r.count as f64;
        r.mean_pause_ms = r.total_pause_ms / n;
        r.mean_peak_bytes = peak_sum / n;
        r.mean_after_bytes = after_sum / n;
    }
    r.allocated_per_pause_ms_bytes =
        (r.total_pause_ms > 0.0).then(|| r.total_allocated_bytes as f64 / r.total_pause_ms);
    r.promoted_per_gc_ms_bytes =
        (r.total_duration_ms > 0.0).then(|| r.total_promoted_bytes as f64 / r.total_duration_ms);
    r.pause_time_pct = (span_ms > 0.0).then(|| r.total_pause_ms * 100.0 / span_ms);
    r
}

/// Generation-valued reasons counted when they name the GC's own generation (PerfView's rule).
pub const ALLOC_BUDGET: &str = "alloc_budget_exceeded";
pub const TIME_TUNING: &str = "time_tuning";

fn condemn_breakdown(gcs: &[Gc]) -> CondemnBreakdown {
    let mut by_trigger: Vec<ReasonCount> = Vec::new();
    let mut by_condition: Vec<ReasonCount> = Vec::new();
    let mut without_history = [0u32; 3];
    fn bump(v: &mut Vec<ReasonCount>, name: &Name, gen: usize) {
        let i = match v.iter().position(|r| r.reason == *name) {
            Some(i) => i,
            None => {
                v.push(ReasonCount {
                    reason: name.clone(),
                    per_gen: [0; 3],
                    total: 0,
                });
                v.len() - 1
            }
        };
        v[i].per_gen[gen] += 1;
        v[i].total += 1;
    }
    for gc in gcs.iter().filter(|g| g.complete) {
        let g = gc.gen.min(2) as usize;
        bump(&mut by_trigger, &gc.reason, g);
        let Some(c) = &gc.condemn else {
            without_history[g] += 1;
            continue;
        };
        // The 2-bit field reads 0 both for "gen0 budget exceeded" and "none": an induced gen0
        // GC is not counted as a budget GC (PerfView counts it).
        if c.alloc_budget_gen == gc.gen && (gc.gen > 0 || !gc.induced) {
            bump(&mut by_condition, &Cow::Borrowed(ALLOC_BUDGET), g);
        }
        if c.time_tuning_gen == gc.gen && c.time_tuning_gen > 0 {
            bump(&mut by_condition, &Cow::Borrowed(TIME_TUNING), g);
        }
        for cond in &c.conditions {
            bump(&mut by_condition, cond, g);
        }
    }
    let order = |v: &mut Vec<ReasonCount>| {
        v.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.reason.cmp(&b.reason)))
    };
    order(&mut by_trigger);
    order(&mut by_condition);
    CondemnBreakdown {
        by_trigger,
        by_condition,
        without_history,
    }
}
