//! GCDynamicEvent (id 39, .NET 7+): a named blob the GC uses for events added without a manifest
//! change. The blob starts with its own u16 version, then the event's arguments packed
//! little-endian with no padding (the GC's `gcevent_serializers.h`).
//!
//! The names and layouts are the GC's own (`gcevents.h` and the calls that fire them in the GC's
//! dynamic-heap-count code, dotnet/runtime), checked against real traces of .NET 8.0.30, 9.0.5 and
//! 10.0.11 (`fixtures/traces`: every blob of every known name has exactly its layout's length).
//! A newer version of a known name decodes its known prefix and keeps the rest as
//! [`GcDynamicEvent::extra`]; a name this decoder does not know is [`DynamicPayload::Other`].

use super::tuning_codes::{AdjustMetric, ChangeDecision};
use crate::clr::payload::{PResult, PayloadCursor, PayloadError, Utf16Str};

/// GCDynamicEvent: Name (UTF-16), u32 DataSize, Data, u16 ClrInstanceID.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcDynamicEvent<'a> {
    /// Which dynamic event this is (`CommittedUsage`, `SizeAdaptationSample`, ...).
    pub name: Utf16Str<'a>,
    /// The blob (`DataSize` bytes).
    #[serde(skip)]
    pub data: &'a [u8],
    pub clr_instance_id: u16,
}

/// The dynamic event names the runtime's GC fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum DynamicKind {
    /// .NET 8+: committed memory by purpose, at the start and end of blocking GCs and BGC start.
    CommittedUsage,
    /// .NET 9+ DATAS: one per GC, what the heap-count tuning measures.
    SizeAdaptationSample,
    /// .NET 9+ DATAS: a heap-count (or budget) decision from the last three samples.
    SizeAdaptationTuning,
    /// .NET 9+ DATAS: a heap-count decision from the gen2 GCs' cost.
    SizeAdaptationFullGcTuning,
    /// .NET 8 DATAS (renamed SizeAdaptationSample in 9).
    HeapCountSample,
    /// .NET 8 DATAS (renamed SizeAdaptationTuning in 9, new layout).
    HeapCountTuning,
    /// A name this decoder does not know.
    Unknown,
}

impl DynamicKind {
    const ALL: [(DynamicKind, &'static str); 6] = [
        (DynamicKind::CommittedUsage, "CommittedUsage"),
        (DynamicKind::SizeAdaptationSample, "SizeAdaptationSample"),
        (DynamicKind::SizeAdaptationTuning, "SizeAdaptationTuning"),
        (
            DynamicKind::SizeAdaptationFullGcTuning,
            "SizeAdaptationFullGCTuning",
        ),
        (DynamicKind::HeapCountSample, "HeapCountSample"),
        (DynamicKind::HeapCountTuning, "HeapCountTuning"),
    ];

    pub fn from_name(name: &Utf16Str<'_>) -> DynamicKind {
        Self::ALL
            .iter()
            .find(|(_, n)| name.eq_str(n))
            .map_or(DynamicKind::Unknown, |(k, _)| *k)
    }

    /// The runtime's name (`None` for [`DynamicKind::Unknown`]).
    pub fn name(self) -> Option<&'static str> {
        Self::ALL.iter().find(|(k, _)| *k == self).map(|(_, n)| *n)
    }

    /// The `Provider/EventName` name `gcscope events` counts it under: `GC/<name>` as current
    /// TraceEvent names decoded dynamic events, `GC/DynamicTraceEvent` for unknown names.
    pub fn event_name(self) -> &'static str {
        match self {
            DynamicKind::CommittedUsage => "GC/CommittedUsage",
            DynamicKind::SizeAdaptationSample => "GC/SizeAdaptationSample",
            DynamicKind::SizeAdaptationTuning => "GC/SizeAdaptationTuning",
            DynamicKind::SizeAdaptationFullGcTuning => "GC/SizeAdaptationFullGCTuning",
            DynamicKind::HeapCountSample => "GC/HeapCountSample",
            DynamicKind::HeapCountTuning => "GC/HeapCountTuning",
            DynamicKind::Unknown => "GC/DynamicTraceEvent",
        }
    }

    /// Bytes of the version-1 layout (the only version the runtime has fired), version included.
    pub fn layout_len(self) -> Option<usize> {
        match self {
            DynamicKind::CommittedUsage => Some(42),
            DynamicKind::SizeAdaptationSample => Some(38),
            DynamicKind::SizeAdaptationTuning => Some(56),
            DynamicKind::SizeAdaptationFullGcTuning => Some(44),
            DynamicKind::HeapCountSample => Some(34),
            DynamicKind::HeapCountTuning => Some(36),
            DynamicKind::Unknown => None,
        }
    }

    /// Whether the event belongs to DATAS (fired only when the server GC adapts its heap count).
    pub fn is_datas(self) -> bool {
        !matches!(self, DynamicKind::CommittedUsage | DynamicKind::Unknown)
    }
}

/// The dynamic payloads we understand.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum DynamicPayload {
    CommittedUsage(CommittedUsage),
    SizeAdaptationSample(SizeAdaptationSample),
    SizeAdaptationTuning(SizeAdaptationTuning),
    SizeAdaptationFullGcTuning(SizeAdaptationFullGcTuning),
    HeapCountSample(HeapCountSample),
    HeapCountTuning(HeapCountTuning),
    /// A name we do not decode ("unknown dynamic event NAME").
    Other,
}

/// CommittedUsage (.NET 8+), fired at the start/end of blocking GCs and at BGC start: the GC's
/// committed memory by purpose, in bytes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CommittedUsage {
    /// Layout version inside the blob (1).
    pub version: u16,
    pub total_committed_in_use: u64,
    pub total_committed_in_global_decommit: u64,
    pub total_committed_in_free: u64,
    pub total_committed_in_global_free: u64,
    pub total_bookkeeping_committed: u64,
}

impl CommittedUsage {
    /// Blob: 0 u16 Version, 2 u64 TotalCommittedInUse, 10 InGlobalDecommit, 18 InFree,
    /// 26 InGlobalFree, 34 TotalBookkeepingCommitted (42 bytes). Offsets are within the blob.
    pub fn parse(data: &[u8]) -> PResult<Self> {
        let mut r = PayloadCursor::new(data, 8)?;
        Ok(CommittedUsage {
            version: r.u16("CommittedUsage.Version")?,
            total_committed_in_use: r.u64("CommittedUsage.TotalCommittedInUse")?,
            total_committed_in_global_decommit: r
                .u64("CommittedUsage.TotalCommittedInGlobalDecommit")?,
            total_committed_in_free: r.u64("CommittedUsage.TotalCommittedInFree")?,
            total_committed_in_global_free: r.u64("CommittedUsage.TotalCommittedInGlobalFree")?,
            total_bookkeeping_committed: r.u64("CommittedUsage.TotalBookkeepingCommitted")?,
        })
    }

    /// Sum of all committed bytes the GC accounts for.
    pub fn total(&self) -> u64 {
        [
            self.total_committed_in_use,
            self.total_committed_in_global_decommit,
            self.total_committed_in_free,
            self.total_committed_in_global_free,
            self.total_bookkeeping_committed,
        ]
        .iter()
        .fold(0u64, |a, &b| a.wrapping_add(b))
    }
}

/// SizeAdaptationSample (.NET 9+), one per GC while DATAS is on: what the GC measured for the
/// heap-count tuning. Times in microseconds, sizes in bytes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SizeAdaptationSample {
    pub version: u16,
    /// The GC's number (GCStart's Count).
    pub gc_index: u64,
    /// From the end of the previous suspension to this GC's end of work.
    pub elapsed_between_gcs_us: u32,
    pub gc_pause_us: u32,
    /// Time allocating threads waited for the small / large object heap's allocation lock.
    pub soh_msl_wait_us: u32,
    pub uoh_msl_wait_us: u32,
    /// What the GC considers the small object heap's long-lived size, over all heaps.
    pub total_soh_stable_size: u64,
    /// The gen0 allocation budget DATAS gives each heap.
    pub gen0_budget_per_heap: u32,
}

impl SizeAdaptationSample {
    /// Blob: 0 u16 Version, 2 u64 GCIndex, 10 u32 ElapsedTimeBetweenGCs, 14 u32 GCPauseTime,
    /// 18 u32 SOHMSLWaitTime, 22 u32 UOHMSLWaitTime, 26 u64 TotalSOHStableSize,
    /// 34 u32 Gen0BudgetPerHeap (38 bytes).
    pub fn parse(data: &[u8]) -> PResult<Self> {
        let mut r = PayloadCursor::new(data, 8)?;
        Ok(SizeAdaptationSample {
            version: r.u16("SizeAdaptationSample.Version")?,
            gc_index: r.u64("SizeAdaptationSample.GCIndex")?,
            elapsed_between_gcs_us: r.u32("SizeAdaptationSample.ElapsedTimeBetweenGCs")?,
            gc_pause_us: r.u32("SizeAdaptationSample.GCPauseTime")?,
            soh_msl_wait_us: r.u32("SizeAdaptationSample.SOHMSLWaitTime")?,
            uoh_msl_wait_us: r.u32("SizeAdaptationSample.UOHMSLWaitTime")?,
            total_soh_stable_size: r.u64("SizeAdaptationSample.TotalSOHStableSize")?,
            gen0_budget_per_heap: r.u32("SizeAdaptationSample.Gen0BudgetPerHeap")?,
        })
    }
}

/// SizeAdaptationTuning (.NET 9+): DATAS's decision after three samples: change the heap count,
/// change the budget, or neither. Percentages are the GC's throughput cost: time in GC (plus
/// allocation-lock waits per heap) as a share of the elapsed time.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SizeAdaptationTuning {
    pub version: u16,
    /// The heap count from this decision on (the current one when it did not change).
    pub new_heap_count: u16,
    /// Most heaps the gen0 budget DATAS computes for the current size allows (0: not computed).
    pub max_heap_count_datas: u16,
    /// Fewest heaps that budget calls for (0: not computed).
    pub min_heap_count_datas: u16,
    pub gc_index: u64,
    pub total_soh_stable_size: u64,
    /// Median throughput cost of the last three samples, %.
    pub median_throughput_cost_pct: f32,
    /// The throughput cost the decision used (the median, or a recent trend), %.
    pub tcp_to_consider_pct: f32,
    /// How far above/below target the cost has accumulated since the last change.
    pub current_around_target_accumulation: f32,
    pub recorded_tcp_count: u16,
    pub recorded_tcp_slope: f32,
    pub gcs_since_last_change: u32,
    /// How much the step was multiplied when growing.
    pub aggressiveness_factor: u8,
    /// Why DATAS considered a change or what stopped it ([`Self::decision`]); the runtime's codes
    /// are kept raw here and named in [`super::tuning_codes`].
    pub change_decision: u16,
    pub adjustment_reason: u16,
    pub change_frequency_factor: u16,
    pub change_frequency_reason: u16,
    /// What was adjusted ([`Self::metric`]): nothing, the gen0 budget or the heap count.
    pub adjustment_metric: u8,
}

impl SizeAdaptationTuning {
    pub fn decision(&self) -> ChangeDecision {
        ChangeDecision::from_raw(self.change_decision)
    }

    pub fn metric(&self) -> AdjustMetric {
        AdjustMetric::from_raw(self.adjustment_metric)
    }

    /// Blob: 0 u16 Version, 2 u16 NewNHeaps, 4 u16 MaxHeapCountDatas, 6 u16 MinHeapCountDatas,
    /// 8 u64 CurrentGCIndex, 16 u64 TotalSOHStableSize, 24 f32 MedianThroughputCostPercent,
    /// 28 f32 TcpToConsider, 32 f32 CurrentAroundTargetAccumulation, 36 u16 RecordedTcpCount,
    /// 38 f32 RecordedTcpSlope, 42 u32 NumGcsSinceLastChange, 46 u8 AggFactor,
    /// 47 u16 ChangeDecision, 49 u16 AdjReason, 51 u16 HcChangeFreqFactor, 53 u16 HcFreqReason,
    /// 55 u8 AdjMetric (56 bytes).
    pub fn parse(data: &[u8]) -> PResult<Self> {
        let mut r = PayloadCursor::new(data, 8)?;
        Ok(SizeAdaptationTuning {
            version: r.u16("SizeAdaptationTuning.Version")?,
            new_heap_count: r.u16("SizeAdaptationTuning.NewNHeaps")?,
            max_heap_count_datas: r.u16("SizeAdaptationTuning.MaxHeapCountDatas")?,
            min_heap_count_datas: r.u16("SizeAdaptationTuning.MinHeapCountDatas")?,
            gc_index: r.u64("SizeAdaptationTuning.CurrentGCIndex")?,
            total_soh_stable_size: r.u64("SizeAdaptationTuning.TotalSOHStableSize")?,
            median_throughput_cost_pct: r
                .f32("SizeAdaptationTuning.MedianThroughputCostPercent")?,
            tcp_to_consider_pct: r.f32("SizeAdaptationTuning.TcpToConsider")?,
            current_around_target_accumulation: r
                .f32("SizeAdaptationTuning.CurrentAroundTargetAccumulation")?,
            recorded_tcp_count: r.u16("SizeAdaptationTuning.RecordedTcpCount")?,
            recorded_tcp_slope: r.f32("SizeAdaptationTuning.RecordedTcpSlope")?,
            gcs_since_last_change: r.u32("SizeAdaptationTuning.NumGcsSinceLastChange")?,
            aggressiveness_factor: r.u8("SizeAdaptationTuning.AggFactor")?,
            change_decision: r.u16("SizeAdaptationTuning.ChangeDecision")?,
            adjustment_reason: r.u16("SizeAdaptationTuning.AdjReason")?,
            change_frequency_factor: r.u16("SizeAdaptationTuning.HcChangeFreqFactor")?,
            change_frequency_reason: r.u16("SizeAdaptationTuning.HcFreqReason")?,
            adjustment_metric: r.u8("SizeAdaptationTuning.AdjMetric")?,
        })
    }
}

/// One gen2 sample of a [`SizeAdaptationFullGcTuning`]: how many GCs ago it was and its cost.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Gen2Sample {
    pub gcs_ago: u32,
    pub gc_pct: f32,
}

/// SizeAdaptationFullGCTuning (.NET 9+): DATAS's decision from the cost of the last gen2 GCs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SizeAdaptationFullGcTuning {
    pub version: u16,
    pub new_heap_count: u16,
    pub gc_index: u64,
    /// Median cost of the last three gen2 GCs, %.
    pub median_gen2_tcp_pct: f32,
    pub gen2_gcs_since_last_change: u32,
    pub samples: [Gen2Sample; 3],
}

impl SizeAdaptationFullGcTuning {
    /// Blob: 0 u16 Version, 2 u16 NewNHeaps, 4 u64 CurrentGCIndex, 12 f32 MedianGen2Tcp,
    /// 16 u32 NumGen2sSinceLastChange, then three (u32 GC-index distance, f32 GC %) at 20, 28, 36
    /// (44 bytes).
    pub fn parse(data: &[u8]) -> PResult<Self> {
        let mut r = PayloadCursor::new(data, 8)?;
        let version = r.u16("SizeAdaptationFullGCTuning.Version")?;
        let new_heap_count = r.u16("SizeAdaptationFullGCTuning.NewNHeaps")?;
        let gc_index = r.u64("SizeAdaptationFullGCTuning.CurrentGCIndex")?;
        let median_gen2_tcp_pct = r.f32("SizeAdaptationFullGCTuning.MedianGen2Tcp")?;
        let gen2_gcs_since_last_change =
            r.u32("SizeAdaptationFullGCTuning.NumGen2sSinceLastChange")?;
        let mut samples = [Gen2Sample {
            gcs_ago: 0,
            gc_pct: 0.0,
        }; 3];
        for s in samples.iter_mut() {
            s.gcs_ago = r.u32("SizeAdaptationFullGCTuning.DiffSamples")?;
            s.gc_pct = r.f32("SizeAdaptationFullGCTuning.GcPercent")?;
        }
        Ok(SizeAdaptationFullGcTuning {
            version,
            new_heap_count,
            gc_index,
            median_gen2_tcp_pct,
            gen2_gcs_since_last_change,
            samples,
        })
    }
}

/// HeapCountSample (.NET 8 DATAS): one per GC. Times in microseconds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HeapCountSample {
    pub version: u16,
    pub gc_index: u64,
    pub elapsed_between_gcs_us: u64,
    pub gc_pause_us: u64,
    pub msl_wait_us: u64,
}

impl HeapCountSample {
    /// Blob: 0 u16 Version, 2 u64 GCIndex, 10 u64 ElapsedBetweenGCs, 18 u64 GCPauseTime,
    /// 26 u64 MslWaitTime (34 bytes). The order after GCIndex follows 9.0's SizeAdaptationSample
    /// (elapsed, pause, waits); 8.0.30 traces agree (the index counts GCs, pause < elapsed).
    pub fn parse(data: &[u8]) -> PResult<Self> {
        let mut r = PayloadCursor::new(data, 8)?;
        Ok(HeapCountSample {
            version: r.u16("HeapCountSample.Version")?,
            gc_index: r.u64("HeapCountSample.GCIndex")?,
            elapsed_between_gcs_us: r.u64("HeapCountSample.ElapsedBetweenGCs")?,
            gc_pause_us: r.u64("HeapCountSample.GCPauseTime")?,
            msl_wait_us: r.u64("HeapCountSample.MslWaitTime")?,
        })
    }
}

/// HeapCountTuning (.NET 8 DATAS): the heap-count decision. Percentages of time in GC.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HeapCountTuning {
    pub version: u16,
    pub new_heap_count: u16,
    pub gc_index: u64,
    pub median_throughput_cost_pct: f32,
    pub smoothed_median_throughput_cost_pct: f32,
    pub tcp_reduction_per_step_up: f32,
    pub tcp_increase_per_step_down: f32,
    pub space_cost_increase_per_step_up: f32,
    pub space_cost_decrease_per_step_down: f32,
}

impl HeapCountTuning {
    /// Blob: 0 u16 Version, 2 u16 NewHeapCount, 4 u64 GCIndex, then six f32 at 12..36:
    /// MedianPercentOverhead, SmoothedMedianPercentOverhead, OverheadReductionPerStepUp,
    /// OverheadIncreasePerStepDown, SpaceCostIncreasePerStepUp, SpaceCostDecreasePerStepDown
    /// (36 bytes).
    pub fn parse(data: &[u8]) -> PResult<Self> {
        let mut r = PayloadCursor::new(data, 8)?;
        Ok(HeapCountTuning {
            version: r.u16("HeapCountTuning.Version")?,
            new_heap_count: r.u16("HeapCountTuning.NewHeapCount")?,
            gc_index: r.u64("HeapCountTuning.GCIndex")?,
            median_throughput_cost_pct: r.f32("HeapCountTuning.MedianPercentOverhead")?,
            smoothed_median_throughput_cost_pct: r
                .f32("HeapCountTuning.SmoothedMedianPercentOverhead")?,
            tcp_reduction_per_step_up: r.f32("HeapCountTuning.OverheadReductionPerStepUp")?,
            tcp_increase_per_step_down: r.f32("HeapCountTuning.OverheadIncreasePerStepDown")?,
            space_cost_increase_per_step_up: r.f32("HeapCountTuning.SpaceCostIncreasePerStepUp")?,
            space_cost_decrease_per_step_down: r
                .f32("HeapCountTuning.SpaceCostDecreasePerStepDown")?,
        })
    }
}

impl<'a> GcDynamicEvent<'a> {
    pub fn parse(payload: &'a [u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let name = r.utf16z("GCDynamicEvent.Name")?;
        let size_at = r.pos();
        let size = r.u32("GCDynamicEvent.DataSize")?;
        let data = r
            .bytes(size as usize, "GCDynamicEvent.Data")
            .map_err(|_| PayloadError::truncated(size_at + 4, "GCDynamicEvent.Data"))?;
        let clr_instance_id = r.u16("GCDynamicEvent.ClrInstanceID")?;
        Ok(GcDynamicEvent {
            name,
            data,
            clr_instance_id,
        })
    }

    pub fn kind(&self) -> DynamicKind {
        DynamicKind::from_name(&self.name)
    }

    /// The blob's own version (its first two bytes), if it has them.
    pub fn blob_version(&self) -> Option<u16> {
        Some(u16::from_le_bytes([
            *self.data.first()?,
            *self.data.get(1)?,
        ]))
    }

    /// Bytes past the known layout of a known name (a newer version's appended fields), kept so
    /// they can be shown raw; empty when the blob is exactly its layout or the name is unknown.
    pub fn extra(&self) -> &'a [u8] {
        match self.kind().layout_len() {
            Some(n) => self.data.get(n..).unwrap_or(&[]),
            None => &[],
        }
    }

    /// Decodes the blob by name. Errors in a known layout are reported with offsets relative to
    /// the blob.
    pub fn payload(&self) -> PResult<DynamicPayload> {
        let d = self.data;
        Ok(match self.kind() {
            DynamicKind::CommittedUsage => {
                DynamicPayload::CommittedUsage(CommittedUsage::parse(d)?)
            }
            DynamicKind::SizeAdaptationSample => {
                DynamicPayload::SizeAdaptationSample(SizeAdaptationSample::parse(d)?)
            }
            DynamicKind::SizeAdaptationTuning => {
                DynamicPayload::SizeAdaptationTuning(SizeAdaptationTuning::parse(d)?)
            }
            DynamicKind::SizeAdaptationFullGcTuning => {
                DynamicPayload::SizeAdaptationFullGcTuning(SizeAdaptationFullGcTuning::parse(d)?)
            }
            DynamicKind::HeapCountSample => {
                DynamicPayload::HeapCountSample(HeapCountSample::parse(d)?)
            }
            DynamicKind::HeapCountTuning => {
                DynamicPayload::HeapCountTuning(HeapCountTuning::parse(d)?)
            }
            DynamicKind::Unknown => DynamicPayload::Other,
        })
    }
}

/// A GCDynamicEvent payload around `data` (for tests here and in `gc::datas`).
#[cfg(test)]
pub(crate) fn test_payload(name: &str, data: &[u8]) -> alloc::vec::Vec<u8> {
    tests::dynamic(name, data)
}

#[cfg(test)]
mod tests;
