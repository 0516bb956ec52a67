//! DATAS (Dynamic Adaptation To Application Sizes, server GC from .NET 8, the default from 9): the
//! heap count over the trace, each change, and the tuning decision behind it, from the GC's
//! dynamic events (SizeAdaptationSample / SizeAdaptationTuning / SizeAdaptationFullGCTuning on
//! .NET 9+, HeapCountSample / HeapCountTuning on .NET 8) and each GC's GCGlobalHeapHistory.
//!
//! A tuning decision made at GC N takes effect at the next GC: a change first seen at GC M is
//! explained by the last decision before M that chose M's heap count. [`explain`] turns each change
//! into a sentence: "why did my app grow to N heaps?".

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::clr::gc::tuning_codes::{
    AdjustMetric, ChangeDecision, ADJUSTMENT_REASONS, FREQUENCY_REASONS,
};
use crate::clr::gc::{DynamicPayload, GcDynamicEvent, SizeAdaptationTuning};

/// A name from a fixed table (as `gc::types::Name`; not imported from there: `types` holds a
/// `DatasModel`).
type Name = Cow<'static, str>;

/// How DATAS is turned on and which events carry it: what a view of a trace without DATAS says
/// (`gcscope datas` prints it).
pub const HOW_TO_ENABLE: &str = "\
DATAS is Server GC's heap-count adaptation: on by default for Server GC from .NET 9
(DOTNET_gcServer=1, or <ServerGarbageCollection>true</ServerGarbageCollection>; setting
GCHeapCount or DOTNET_GCDynamicAdaptationMode=0 turns it off), opt-in on .NET 8 with
DOTNET_GCDynamicAdaptationMode=1 (runtimeconfig System.GC.DynamicAdaptationMode: 1).
Its events (SizeAdaptationSample/Tuning, HeapCountSample/Tuning on .NET 8) need the GC keyword
at Informational level: --providers Microsoft-Windows-DotNETRuntime:0x1:4";

/// Samples, decisions and heap-count points kept at most (one of each per GC in practice); more
/// are counted in `dropped`.
const MAX_RECORDS: usize = 1 << 18;
/// Unknown dynamic event names listed at most.
const MAX_UNKNOWN_NAMES: usize = 16;

/// What DATAS measured at one GC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasSample {
    pub gc: u64,
    pub ms: f64,
    /// Heaps of that GC (its GCGlobalHeapHistory).
    pub heaps: Option<u32>,
    pub elapsed_between_gcs_us: u64,
    pub pause_us: u64,
    /// Time allocating threads waited for the allocation locks (small and large object heaps).
    pub msl_wait_us: u64,
    /// (pause + lock wait / heaps) / elapsed, %: the GC's throughput cost, as DATAS computes it.
    pub throughput_cost_pct: Option<f64>,
    /// Long-lived small-object bytes over all heaps (.NET 9+).
    pub soh_stable_bytes: Option<u64>,
    /// Gen0 budget per heap DATAS set (.NET 9+).
    pub gen0_budget_per_heap_bytes: Option<u64>,
}

/// One tuning decision (a SizeAdaptationTuning, SizeAdaptationFullGCTuning or HeapCountTuning).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasDecision {
    pub gc: u64,
    pub ms: f64,
    /// The dynamic event it came from.
    pub event: Name,
    pub heaps_before: Option<u32>,
    pub new_heap_count: u32,
    /// The median GC cost the decision looked at, % (of the last three GCs; gen2 GCs' for a
    /// SizeAdaptationFullGCTuning).
    pub median_tcp_pct: Option<f64>,
    /// The cost the decision used (.NET 9+: the median or a recent trend; .NET 8: smoothed median).
    pub tcp_considered_pct: Option<f64>,
    pub soh_stable_bytes: Option<u64>,
    /// Most / fewest heaps the gen0 budget DATAS computed for that size allows (0: not computed).
    pub max_heaps_by_budget: Option<u32>,
    pub min_heaps_by_budget: Option<u32>,
    pub gcs_since_last_change: Option<u32>,
    /// What was decided and why, in words ("increase: throughput cost above target", "keep: too
    /// few GCs since the last heap-count change"), from the event's codes ([`verdict`]).
    pub verdict: String,
    /// The codes of a SizeAdaptationTuning (.NET 9+), each number with the runtime's name; none
    /// for the events without codes.
    pub codes: Option<TuningCodes>,
    /// The event's other fields, raw (`name=value, ...`), and any bytes past its known layout.
    pub other_fields: String,
}

/// One code of a tuning event: the runtime's number and its name there (the number itself when
/// the runtime's tables we know do not have it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Code {
    pub value: u16,
    pub name: String,
}

/// The codes a SizeAdaptationTuning carries (`clr::gc::tuning_codes` names them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TuningCodes {
    /// Whether the cost let DATAS consider a change, or what stopped it (one value).
    pub change_decision: Code,
    /// Why the step was cut or turned into a budget adjustment (bit set).
    pub adjustment_reason: Code,
    /// How many times the usual spacing between heap-count changes DATAS waits (0: not computed).
    pub change_frequency_factor: u16,
    /// Why that spacing was widened (bit set).
    pub change_frequency_reason: Code,
    /// What was adjusted: nothing, the gen0 budget or the heap count.
    pub adjustment_metric: Code,
}

impl TuningCodes {
    fn of(t: &SizeAdaptationTuning) -> Self {
        TuningCodes {
            change_decision: Code {
                value: t.change_decision,
                name: t.decision().name(),
            },
            adjustment_reason: Code {
                value: t.adjustment_reason,
                name: ADJUSTMENT_REASONS.name(t.adjustment_reason),
            },
            change_frequency_factor: t.change_frequency_factor,
            change_frequency_reason: Code {
                value: t.change_frequency_reason,
                name: FREQUENCY_REASONS.name(t.change_frequency_reason),
            },
            adjustment_metric: Code {
                value: u16::from(t.adjustment_metric),
                name: t.metric().name(),
            },
        }
    }

    pub fn decision(&self) -> ChangeDecision {
        ChangeDecision::from_raw(self.change_decision.value)
    }

    pub fn metric(&self) -> AdjustMetric {
        u8::try_from(self.adjustment_metric.value)
            .map_or(AdjustMetric::Unknown(u8::MAX), AdjustMetric::from_raw)
    }
}

/// A GC whose heap count differs from the GC before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeapCountChange {
    pub gc: u64,
    pub ms: f64,
    pub from: u32,
    pub to: u32,
    /// The decision that chose it (an index into `decisions`).
    pub decision: Option<usize>,
}

/// One GC's heap count (its GCGlobalHeapHistory).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GcHeaps {
    pub gc: u64,
    pub ms: f64,
    pub heaps: u32,
}

/// GCs that ran with a given heap count.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HeapCountGcs {
    pub heaps: u32,
    pub gcs: u64,
}

/// Everything DATAS said in the trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DatasModel {
    /// Every GC's heap count, in GC order (kept when the trace has DATAS events or heap-count
    /// changes; the GC rows carry it too).
    pub per_gc: Vec<GcHeaps>,
    pub samples: Vec<DatasSample>,
    pub decisions: Vec<DatasDecision>,
    pub changes: Vec<HeapCountChange>,
    /// GCs per heap count (from GCGlobalHeapHistory), by heap count.
    pub gcs_by_heap_count: Vec<HeapCountGcs>,
    /// GCDynamicEvent names this version does not know, with their counts.
    pub unknown_events: Vec<(String, u64)>,
    /// Records beyond the kept maximum.
    pub dropped: u64,
}

/// Collects the DATAS records while the model is built.
#[derive(Debug, Clone, Default)]
pub(crate) struct DatasBuilder {
    model: DatasModel,
    /// Every GC's heap count in event order: (GC number, time, heaps).
    points: Vec<(u64, f64, u32)>,
}

fn f(v: f32) -> Option<f64> {
    let v = f64::from(v);
    v.is_finite().then_some(v)
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

impl DatasBuilder {
    fn keep<T>(dropped: &mut u64, v: &mut Vec<T>, x: T) {
        if v.len() < MAX_RECORDS {
            v.push(x);
        } else {
            *dropped += 1;
        }
    }

    /// A GC's heap count (its GCGlobalHeapHistory).
    pub(crate) fn on_gc_heaps(&mut self, gc: u32, ms: f64, heaps: u32) {
        let m = &mut self.model;
        Self::keep(&mut m.dropped, &mut self.points, (u64::from(gc), ms, heaps));
    }

    /// A GCDynamicEvent; returns whether it was a DATAS event.
    pub(crate) fn on_dynamic(&mut self, ms: f64, d: &GcDynamicEvent<'_>) -> bool {
        let Ok(payload) = d.payload() else {
            return false;
        };
        let extra = d.extra();
        let extra = if extra.is_empty() {
            String::new()
        } else {
            format!(", bytes past the known layout: {}", hex(extra))
        };
        let m = &mut self.model;
        match payload {
            DynamicPayload::SizeAdaptationSample(s) => {
                let sample = DatasSample {
                    gc: s.gc_index,
                    ms,
                    heaps: None,
                    elapsed_between_gcs_us: u64::from(s.elapsed_between_gcs_us),
                    pause_us: u64::from(s.gc_pause_us),
                    msl_wait_us: u64::from(s.soh_msl_wait_us) + u64::from(s.uoh_msl_wait_us),
                    throughput_cost_pct: None,
                    soh_stable_bytes: Some(s.total_soh_stable_size),
                    gen0_budget_per_heap_bytes: Some(u64::from(s.gen0_budget_per_heap)),
                };
                Self::keep(&mut m.dropped, &mut m.samples, sample);
            }
            DynamicPayload::HeapCountSample(s) => {
                let sample = DatasSample {
                    gc: s.gc_index,
                    ms,
                    heaps: None,
                    elapsed_between_gcs_us: s.elapsed_between_gcs_us,
                    pause_us: s.gc_pause_us,
                    msl_wait_us: s.msl_wait_us,
                    throughput_cost_pct: None,
                    soh_stable_bytes: None,
                    gen0_budget_per_heap_bytes: None,
                };
                Self::keep(&mut m.dropped, &mut m.samples, sample);
            }
            DynamicPayload::SizeAdaptationTuning(t) => {
                let dec = DatasDecision {
                    gc: t.gc_index,
                    ms,
                    event: Cow::Borrowed("SizeAdaptationTuning"),
                    heaps_before: None,
                    new_heap_count: u32::from(t.new_heap_count),
                    median_tcp_pct: f(t.median_throughput_cost_pct),
                    tcp_considered_pct: f(t.tcp_to_consider_pct),
                    soh_stable_bytes: Some(t.total_soh_stable_size),
                    max_heaps_by_budget: Some(u32::from(t.max_heap_count_datas)),
                    min_heaps_by_budget: Some(u32::from(t.min_heap_count_datas)),
                    gcs_since_last_change: Some(t.gcs_since_last_change),
                    verdict: String::new(),
                    codes: Some(TuningCodes::of(&t)),
                    other_fields: format!(
                        "around_target_accumulation={}, recorded_tcp_count={}, \
                         recorded_tcp_slope={}, aggressiveness_factor={}{extra}",
                        t.current_around_target_accumulation,
                        t.recorded_tcp_count,
                        t.recorded_tcp_slope,
                        t.aggressiveness_factor,
                    ),
                };
                Self::keep(&mut m.dropped, &mut m.decisions, dec);
            }
            DynamicPayload::SizeAdaptationFullGcTuning(t) => {
                let samples: Vec<String> = t
                    .samples
                    .iter()
                    .map(|s| format!("{} GCs ago {}%", s.gcs_ago, s.gc_pct))
                    .collect();
                let dec = DatasDecision {
                    gc: t.gc_index,
                    ms,
                    event: Cow::Borrowed("SizeAdaptationFullGCTuning"),
                    heaps_before: None,
                    new_heap_count: u32::from(t.new_heap_count),
                    median_tcp_pct: f(t.median_gen2_tcp_pct),
                    tcp_considered_pct: None,
                    soh_stable_bytes: None,
                    max_heaps_by_budget: None,
                    min_heaps_by_budget: None,
                    gcs_since_last_change: Some(t.gen2_gcs_since_last_change),
                    verdict: String::new(),
                    codes: None,
                    other_fields: format!("gen2 samples: {}{extra}", samples.join(", ")),
                };
                Self::keep(&mut m.dropped, &mut m.decisions, dec);
            }
            DynamicPayload::HeapCountTuning(t) => {
                let dec = DatasDecision {
                    gc: t.gc_index,
                    ms,
                    event: Cow::Borrowed("HeapCountTuning"),
                    heaps_before: None,
                    new_heap_count: u32::from(t.new_heap_count),
                    median_tcp_pct: f(t.median_throughput_cost_pct),
                    tcp_considered_pct: f(t.smoothed_median_throughput_cost_pct),
                    soh_stable_bytes: None,
                    max_heaps_by_budget: None,
                    min_heaps_by_budget: None,
                    gcs_since_last_change: None,
                    verdict: String::new(),
                    codes: None,
                    other_fields: format!(
                        "tcp_reduction_per_step_up={}, tcp_increase_per_step_down={}, \
                         space_cost_increase_per_step_up={}, space_cost_decrease_per_step_down={}{extra}",
                        t.tcp_reduction_per_step_up,
                        t.tcp_increase_per_step_down,
                        t.space_cost_increase_per_step_up,
                        t.space_cost_decrease_per_step_down
                    ),
                };
                Self::keep(&mut m.dropped, &mut m.decisions, dec);
            }
            DynamicPayload::CommittedUsage(_) => return false,
            DynamicPayload::Other => {
                let name = d.name.to_string_lossy();
                let known = m.unknown_events.len();
                match m.unknown_events.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, c)) => *c += 1,
                    None if known < MAX_UNKNOWN_NAMES => m.unknown_events.push((name, 1)),
                    None => m.dropped += 1,
                }
                return false;
            }
        }
        true
    }

    /// GCs whose heap count differs from the GC before them, in GC order.
    pub(crate) fn heap_changes(&self) -> u32 {
        let v = one_per_gc(self.points.clone());
        v.windows(2).filter(|w| w[0].2 != w[1].2).count() as u32
    }

    /// Links samples and decisions to heap counts and decisions to the changes they caused.
    pub(crate) fn finish(self) -> DatasModel {
        let DatasBuilder { mut model, points } = self;
        // One heap count per GC, in GC order (a background GC's history can arrive after later
        // GCs').
        let ordered = one_per_gc(points);
        let heaps_of = |gc: u64| -> Option<u32> {
            let i = ordered.partition_point(|&(g, _, _)| g <= gc);
            (i > 0 && ordered[i - 1].0 == gc).then(|| ordered[i - 1].2)
        };
        for s in &mut model.samples {
            s.heaps = heaps_of(s.gc);
            s.throughput_cost_pct = match (s.heaps, s.elapsed_between_gcs_us) {
                (Some(h), e) if h > 0 && e > 0 => {
                    let cost = (s.msl_wait_us as f64 / f64::from(h) + s.pause_us as f64) * 100.0
                        / e as f64;
                    Some(cost.min(100.0))
                }
                _ => None,
            };
        }
        for d in &mut model.decisions {
            d.heaps_before = heaps_of(d.gc);
            d.verdict = verdict(d);
        }
        let mut last: Option<u32> = None;
        for &(gc, ms, heaps) in &ordered {
            if let Some(prev) = last.filter(|&p| p != heaps) {
                let decision = model
                    .decisions
                    .iter()
                    .rposition(|d| d.gc < gc && d.new_heap_count == heaps);
                model.changes.push(HeapCountChange {
                    gc,
                    ms,
                    from: prev,
                    to: heaps,
                    decision,
                });
            }
            last = Some(heaps);
            match model
                .gcs_by_heap_count
                .iter_mut()
                .find(|c| c.heaps == heaps)
            {
                Some(c) => c.gcs += 1,
                None => model.gcs_by_heap_count.push(HeapCountGcs { heaps, gcs: 1 }),
            }
        }
        model.gcs_by_heap_count.sort_by_key(|c| c.heaps);
        if model.has_events() || !model.changes.is_empty() {
            model.per_gc = ordered
                .into_iter()
                .map(|(gc, ms, heaps)| GcHeaps { gc, ms, heaps })
                .collect();
        }
        model
    }
}

/// The heap-count points in GC order, one per GC: the last GCGlobalHeapHistory the model gave
/// it, as its row keeps. A background GC can be given more than one (the model gives it the
/// history of the GC that runs first inside its suspension, and any from its own thread): listed
/// once per history, it would show several times and count its changes twice.
fn one_per_gc(mut points: Vec<(u64, f64, u32)>) -> Vec<(u64, f64, u32)> {
    // Stable: a GC's histories stay in event order, so the last one is its last.
    points.sort_by_key(|p| p.0);
    let mut out: Vec<(u64, f64, u32)> = Vec::with_capacity(points.len());
    for p in points {
        match out.last_mut() {
            Some(last) if last.0 == p.0 => *last = p,
            _ => out.push(p),
        }
    }
    out
}

impl DatasModel {
    /// True when the trace has DATAS events.
    pub fn has_events(&self) -> bool {
        !self.samples.is_empty() || !self.decisions.is_empty()
    }
}

/// What a decision decided and why, in words: `ACTION: WHY`. For a SizeAdaptationTuning both
/// come from its codes as the runtime sets them: the action from what it adjusted (the heap count
/// up or down, the gen0 budget, or nothing: keep), and a heap-count step follows the cost's side of
/// the target (it grows when the cost is above it); the reasons say what stopped, cut, delayed or
/// replaced the step. The events without codes (.NET 8's HeapCountTuning,
/// SizeAdaptationFullGCTuning) say only how the count moved.
pub fn verdict(d: &DatasDecision) -> String {
    use core::cmp::Ordering;
    let moved = d.heaps_before.map(|b| d.new_heap_count.cmp(&b));
    let Some(c) = &d.codes else {
        return match moved {
            Some(Ordering::Greater) => "increase",
            Some(Ordering::Less) => "decrease",
            Some(Ordering::Equal) => "keep",
            None => "set the heap count",
        }
        .into();
    };
    let decision = c.decision();
    let mut why: Vec<String> = Vec::new();
    let action = match c.metric() {
        AdjustMetric::HeapCount => match moved {
            Some(Ordering::Greater) => {
                why.push("throughput cost above target".into());
                "increase".into()
            }
            Some(Ordering::Less) => {
                why.push("throughput cost below target".into());
                "decrease".into()
            }
            _ => {
                why.push(decision.words());
                String::from("change the heap count")
            }
        },
        AdjustMetric::Budget => {
            why.push(decision.words());
            "adjust gen0 budget".into()
        }
        AdjustMetric::NotAdjusted => {
            why.push(decision.words());
            if decision == ChangeDecision::Considered && c.adjustment_reason.value == 0 {
                why.push("the step rounds to no heap".into());
            }
            "keep".into()
        }
        AdjustMetric::Unknown(_) => {
            why.push(decision.words());
            format!("unknown adjustment {}", c.adjustment_metric.value)
        }
    };
    why.extend(ADJUSTMENT_REASONS.words(c.adjustment_reason.value));
    why.extend(FREQUENCY_REASONS.words(c.change_frequency_reason.value));
    format!("{action}: {}", why.join("; "))
}

fn mb(b: u64) -> String {
    format!("{:.1} MB", b as f64 / 1e6)
}

/// One sentence per heap-count change: when, from and to, and the decision behind it with what it
/// measured (the GC's cost, the size and the budget). "Why did my app grow to N heaps?" is the
/// sentence of the change that reached N.
pub fn explain(m: &DatasModel) -> Vec<String> {
    m.changes.iter().map(|c| explain_change(m, c)).collect()
}

/// The sentence for one change (see [`explain`]).
pub fn explain_change(m: &DatasModel, c: &HeapCountChange) -> String {
    let verb = if c.to > c.from { "grew" } else { "shrank" };
    let mut s = format!(
        "GC {} ({:.1} ms): {verb} from {} to {} heaps",
        c.gc, c.ms, c.from, c.to
    );
    let Some(d) = c.decision.and_then(|i| m.decisions.get(i)) else {
        s.push_str("; no tuning event before it chose this count (the GC keyword at Informational level captures them)");
        return s;
    };
    s.push_str(&format!(
        ", decided at GC {} ({}: {})",
        d.gc, d.event, d.verdict
    ));
    if let Some(t) = d.median_tcp_pct {
        let what = if d.event == "SizeAdaptationFullGCTuning" {
            "gen2 GCs cost"
        } else {
            "GCs cost"
        };
        s.push_str(&format!(
            ": {what} {t:.1}% of the time (median of the last 3)"
        ));
    }
    if let Some(t) = d
        .tcp_considered_pct
        .filter(|t| Some(*t) != d.median_tcp_pct)
    {
        s.push_str(&format!(", {t:.1}% considered"));
    }
    if let Some(n) = d.gcs_since_last_change {
        s.push_str(&format!(", {n} GCs since the last change"));
    }
    if let (Some(size), Some(max)) = (d.soh_stable_bytes, d.max_heaps_by_budget) {
        s.push_str(&format!(
            "; {} of long-lived small objects, a budget that allows up to {max} heaps",
            mb(size)
        ));
    }
    let budget = m
        .samples
        .iter()
        .rev()
        .find(|x| x.gc <= d.gc)
        .and_then(|x| x.gen0_budget_per_heap_bytes);
    if let Some(b) = budget {
        s.push_str(&format!(" (gen0 budget {} per heap)", mb(b)));
    }
    s
}

#[cfg(test)]
mod tests;
