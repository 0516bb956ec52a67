//! Whole-trace summaries: rollup by generation, condemn-reason breakdown, process facts.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use super::alloc_waits::AllocWaits;
use super::datas::DatasModel;
use super::handles::HandleTracker;
use super::pins::{PinRows, PinTracker};
use super::rows::Rows;
use super::types::*;

/// The builder's parts the model is made of: `gcs` the rows it still holds (those from
/// `handed_out` on are the model's), `dropped` the sums of the rows it dropped, its trackers, its
/// notes and the finished DATAS model.
pub(crate) struct Parts {
    pub(crate) gcs: Rows<Gc>,
    pub(crate) handed_out: usize,
    pub(crate) dropped: SummaryAcc,
    pub(crate) handles: HandleTracker,
    pub(crate) pins: PinTracker,
    pub(crate) process: ProcessFacts,
    /// The last GCHeapStats of the trace (`ModelBuilder::last_gc_end_ms`): where the GC span ends.
    pub(crate) last_heap_stats_ms: Option<f64>,
    pub(crate) notes: Vec<String>,
    pub(crate) datas: DatasModel,
    pub(crate) alloc_waits: AllocWaits,
}

/// The model from the builder's parts.
pub(crate) fn build(parts: Parts) -> GcModel {
    let Parts {
        gcs,
        handed_out,
        dropped,
        handles,
        pins,
        mut process,
        last_heap_stats_ms,
        mut notes,
        datas,
        alloc_waits,
    } = parts;
    // Rows handed out and dropped were summed as they went; the held ones are added now, in the
    // same (trace) order, so the sums are the same whether or not rows were dropped.
    let mut acc = dropped;
    let mut rows = gcs;
    let base = rows.base();
    let mut gcs = rows.take_held();
    for gc in &gcs {
        acc.add(gc);
    }
    // The model's rows are the ones not handed out yet (all of them unless rows were drained).
    let gcs = gcs.split_off(handed_out.saturating_sub(base).min(gcs.len()));

    // TraceEvent's GCStats.ProcessDuration (its "% Time paused" divides by it): first complete
    // GC's pause start to the trace's last GCHeapStats. TraceEvent computes it in each GC's
    // `OnEnd`, from the last GCHeapStats it has seen, and `Stats()` runs `OnEnd` again for every
    // complete GC once the trace is read: the last GCHeapStats of the trace wins, also when it is
    // a background GC's own (which completes that GC before it counts). Not the process's time
    // in the trace: with one GC it is shorter than that GC's pause (which ends at the restart
    // after the GC's end).
    process.gc_span_ms = match (acc.first_complete_start_ms, last_heap_stats_ms) {
        (Some(f), Some(l)) if l > f => l - f,
        _ => 0.0,
    };
    process.gc_count = acc.count;
    process.incomplete_gc_count = acc.incomplete;
    let end_ms = process.last_event_ms.unwrap_or(0.0);
    process.trace_duration_ms = end_ms.max(0.0);

    let (span, duration) = (process.gc_span_ms, process.trace_duration_ms);
    let rollup = acc
        .rollups
        .into_iter()
        .map(|r| r.finish(span, duration))
        .collect();
    let condemn_reasons = acc.condemn.finish();
    let handles = handles.summary(end_ms);
    let pinning = pins.summary(acc.pins);
    for (name, n) in &datas.unknown_events {
        notes.push(alloc::format!(
            "unknown dynamic event {name}: {n} GCDynamicEvent blobs this version does not decode"
        ));
    }
    GcModel {
        process,
        gcs,
        rollup,
        condemn_reasons,
        handles,
        pinning,
        notes,
        datas,
        alloc_waits,
    }
}

/// The summaries' running figures, fed one row at a time in trace order.
#[derive(Debug, Clone)]
pub(crate) struct SummaryAcc {
    count: u32,
    incomplete: u32,
    first_complete_start_ms: Option<f64>,
    /// All generations, then gen0, gen1, gen2.
    rollups: [RollupAcc; 4],
    condemn: CondemnAcc,
    pub(crate) pins: PinRows,
    /// Any GC (complete or not) was a background GC.
    pub(crate) any_background: bool,
}

impl Default for SummaryAcc {
    fn default() -> Self {
        SummaryAcc {
            count: 0,
            incomplete: 0,
            first_complete_start_ms: None,
            rollups: [None, Some(0), Some(1), Some(2)].map(RollupAcc::new),
            condemn: CondemnAcc::default(),
            pins: PinRows::default(),
            any_background: false,
        }
    }
}

impl SummaryAcc {
    /// GCs added and the total pause of the complete ones (the running figures a process picker
    /// shows).
    pub(crate) fn gcs_and_pause(&self) -> (u32, f64) {
        (self.count, self.rollups[0].r.total_pause_ms)
    }

    pub(crate) fn add(&mut self, gc: &Gc) {
        self.count += 1;
        self.incomplete += !gc.complete as u32;
        self.any_background |= gc.gc_type == GcType::Background;
        if gc.complete && self.first_complete_start_ms.is_none() {
            self.first_complete_start_ms = Some(gc.start_ms);
        }
        for r in &mut self.rollups {
            r.add(gc);
        }
        self.condemn.add(gc);
        self.pins.over_time.push(TimePoint {
            ms: gc.start_ms,
            value: gc.pinned_objects.len() as u64,
        });
        self.pins.gcs_with_pins += !gc.pinned_objects.is_empty() as u32;
    }
}

/// One generation's rollup (or all generations'), summed over complete GCs.
#[derive(Debug, Clone)]
struct RollupAcc {
    gen: Option<u8>,
    r: GenRollup,
    peak_sum: f64,
    after_sum: f64,
}

impl RollupAcc {
    fn new(gen: Option<u8>) -> RollupAcc {
        let name = match gen {
            None => Cow::Borrowed("all"),
            Some(0) => Cow::Borrowed("0"),
            Some(1) => Cow::Borrowed("1"),
            Some(_) => Cow::Borrowed("2"),
        };
        RollupAcc {
            gen,
            r: GenRollup {
                gen: name,
                ..GenRollup::default()
            },
            peak_sum: 0.0,
            after_sum: 0.0,
        }
    }

    fn add(&mut self, gc: &Gc) {
        if !gc.complete || self.gen.is_some_and(|x| gc.gen != x) {
            return;
        }
        let r = &mut self.r;
        r.count += 1;
        r.induced_count += gc.induced as u32;
        r.background_count += (gc.gc_type == GcType::Background) as u32;
        let pause = gc.pause_ms.unwrap_or(0.0);
        r.total_pause_ms += pause;
        r.max_pause_ms = r.max_pause_ms.max(pause);
        r.max_suspend_ms = r.max_suspend_ms.max(gc.suspend_ms.unwrap_or(0.0));
        r.total_duration_ms += gc.duration_ms.unwrap_or(0.0);
        r.max_peak_bytes = r.max_peak_bytes.max(gc.peak_bytes.unwrap_or(0));
        self.peak_sum += gc.peak_bytes.unwrap_or(0) as f64;
        self.after_sum += gc.after_bytes.unwrap_or(0) as f64;
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

    /// `span_ms`: the GC span (TraceEvent's ProcessDuration); `duration_ms`: the process's time in
    /// the trace (the trace's length).
    fn finish(self, span_ms: f64, duration_ms: f64) -> GenRollup {
        let mut r = self.r;
        if r.count > 0 {
            let n = r.count as f64;
            r.mean_pause_ms = r.total_pause_ms / n;
            r.mean_peak_bytes = self.peak_sum / n;
            r.mean_after_bytes = self.after_sum / n;
        }
        r.allocated_per_pause_ms_bytes =
            (r.total_pause_ms > 0.0).then(|| r.total_allocated_bytes as f64 / r.total_pause_ms);
        r.promoted_per_gc_ms_bytes = (r.total_duration_ms > 0.0)
            .then(|| r.total_promoted_bytes as f64 / r.total_duration_ms);
        // Pauses lie inside the trace, so this stays under 100% (clamped against rounding).
        r.pause_time_pct =
            (duration_ms > 0.0).then(|| (r.total_pause_ms * 100.0 / duration_ms).clamp(0.0, 100.0));
        r.gc_span_pause_pct = (span_ms > 0.0).then(|| r.total_pause_ms * 100.0 / span_ms);
        r
    }
}

/// Generation-valued reasons counted when they name the GC's own generation (PerfView's rule).
pub const ALLOC_BUDGET: &str = "alloc_budget_exceeded";
pub const TIME_TUNING: &str = "time_tuning";

/// Condemn reasons counted per generation collected, over complete GCs.
#[derive(Debug, Clone, Default)]
struct CondemnAcc {
    by_trigger: Vec<ReasonCount>,
    by_condition: Vec<ReasonCount>,
    without_history: [u32; 3],
}

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

impl CondemnAcc {
    fn add(&mut self, gc: &Gc) {
        if !gc.complete {
            return;
        }
        let g = gc.gen.min(2) as usize;
        bump(&mut self.by_trigger, &gc.reason, g);
        let Some(c) = &gc.condemn else {
            self.without_history[g] += 1;
            return;
        };
        // The 2-bit field reads 0 both for "gen0 budget exceeded" and "none": an induced gen0
        // GC is not counted as a budget GC (PerfView counts it).
        if c.alloc_budget_gen == gc.gen && (gc.gen > 0 || !gc.induced) {
            bump(&mut self.by_condition, &Cow::Borrowed(ALLOC_BUDGET), g);
        }
        if c.time_tuning_gen == gc.gen && c.time_tuning_gen > 0 {
            bump(&mut self.by_condition, &Cow::Borrowed(TIME_TUNING), g);
        }
        for cond in &c.conditions {
            bump(&mut self.by_condition, cond, g);
        }
    }

    fn finish(mut self) -> CondemnBreakdown {
        let order = |v: &mut Vec<ReasonCount>| {
            v.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.reason.cmp(&b.reason)))
        };
        order(&mut self.by_trigger);
        order(&mut self.by_condition);
        CondemnBreakdown {
            by_trigger: self.by_trigger,
            by_condition: self.by_condition,
            without_history: self.without_history,
        }
    }
}
