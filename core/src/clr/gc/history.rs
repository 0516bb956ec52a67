//! The per-GC history events: GCPerHeapHistory (one per heap per GC: allocation and condemn
//! details plus a record per generation) and GCGlobalHeapHistory (one per GC).

use crate::clr::enums::{
    compact_reason, expand_mechanism, CompactReason, CondemnReasons, ExpandMechanism, GcPauseMode,
    GcReason, GlobalMechanisms,
};
use crate::clr::payload::{PResult, PayloadCursor, PayloadError, U32Array};

/// Number of pointer-sized values in one generation record of GCPerHeapHistory_V3.
pub const GEN_DATA_FIELDS: usize = 10;

/// GCPerHeapHistory_V3 (id 204, version 3): one heap's view of one GC.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcPerHeapHistory<'a> {
    pub clr_instance_id: u16,
    /// Bytes allocated from free lists (into the older generation) during this GC.
    pub free_list_allocated: u64,
    /// Bytes of free-list items rejected (too small).
    pub free_list_rejected: u64,
    /// Bytes allocated at the end of the segment.
    pub end_of_seg_allocated: u64,
    /// Bytes allocated in condemned generations.
    pub condemned_allocated: u64,
    /// Bytes allocated because of pinning.
    pub pinned_allocated: u64,
    pub pinned_allocated_advance: u64,
    /// Percent.
    pub running_free_list_efficiency: u32,
    pub condemn_reasons: CondemnReasons,
    /// Raw mechanism word: 0 or `0x8000_0000 | 1 << reason`; see [`Self::compact_reason`].
    pub compact_mechanisms: u32,
    /// Raw mechanism word; see [`Self::expand_mechanism`].
    pub expand_mechanisms: u32,
    pub heap_index: u32,
    /// Bytes.
    pub extra_gen0_commit: u64,
    /// Number of generation records (4 before .NET 5: gen0-2 + LOH; 5 since: + POH).
    pub count: u32,
    /// Memory load (percent) the GC saw: only the .NET Framework private layout has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_pressure: Option<u32>,
    /// The generation records (`count` × 10 pointers); serialized as the list of [`GenData`].
    #[serde(rename = "generations")]
    gen_data: GenRecords<'a>,
}

/// The raw generation records of a GCPerHeapHistory event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct GenRecords<'a> {
    bytes: &'a [u8],
    pointer_size: u8,
}

impl GenRecords<'_> {
    fn get(&self, gen: usize) -> Option<GenData> {
        let p = usize::from(self.pointer_size);
        let stride = GEN_DATA_FIELDS * p;
        let start = gen.checked_mul(stride)?;
        let rec = self.bytes.get(start..start.checked_add(stride)?)?;
        let mut v = [0u64; GEN_DATA_FIELDS];
        for (i, slot) in v.iter_mut().enumerate() {
            let b = &rec[i * p..(i + 1) * p];
            *slot = if p == 4 {
                u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            } else {
                u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
            };
        }
        Some(GenData {
            size_before: v[0],
            free_list_space_before: v[1],
            free_obj_space_before: v[2],
            size_after: v[3],
            free_list_space_after: v[4],
            free_obj_space_after: v[5],
            in_bytes: v[6],
            pinned_surv: v[7],
            non_pinned_surv: v[8],
            new_allocation: v[9],
        })
    }
}

impl serde::Serialize for GenRecords<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..).map_while(|g| self.get(g)))
    }
}

/// One generation's record in GCPerHeapHistory (all values in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct GenData {
    pub size_before: u64,
    pub free_list_space_before: u64,
    pub free_obj_space_before: u64,
    pub size_after: u64,
    pub free_list_space_after: u64,
    pub free_obj_space_after: u64,
    /// Bytes promoted into this generation.
    pub in_bytes: u64,
    /// Bytes that survived pinned.
    pub pinned_surv: u64,
    /// Bytes that survived not pinned (the runtime's spelling: "NonePinnedSurv").
    pub non_pinned_surv: u64,
    /// The generation's new allocation budget.
    pub new_allocation: u64,
}

impl GenData {
    /// SizeBefore minus free space (TraceEvent's ObjSpaceBefore).
    pub fn obj_space_before(&self) -> u64 {
        self.size_before
            .wrapping_sub(self.free_list_space_before)
            .wrapping_sub(self.free_obj_space_before)
    }
    /// Free space after the GC (TraceEvent's Fragmentation).
    pub fn fragmentation(&self) -> u64 {
        self.free_list_space_after
            .wrapping_add(self.free_obj_space_after)
    }
    /// SizeAfter minus fragmentation (TraceEvent's ObjSizeAfter).
    pub fn obj_size_after(&self) -> u64 {
        self.size_after.wrapping_sub(self.fragmentation())
    }
    /// Bytes that survived (TraceEvent's Out).
    pub fn survived(&self) -> u64 {
        self.pinned_surv.wrapping_add(self.non_pinned_surv)
    }
    /// Survival rate in percent, truncated like TraceEvent's SurvRate (0 when nothing was there).
    pub fn survival_percent(&self) -> u64 {
        let before = self.obj_space_before();
        if before == 0 {
            0
        } else {
            (self.survived() as f64 * 100.0 / before as f64) as u64
        }
    }
}

impl<'a> GcPerHeapHistory<'a> {
    /// Version 3 layout (x64 offsets; x86 in brackets): 0 u16 ClrInstanceID, 2 ptr
    /// FreeListAllocated, 10 [6] FreeListRejected, 18 [10] EndOfSegAllocated, 26 [14]
    /// CondemnedAllocated, 34 [18] PinnedAllocated, 42 [22] PinnedAllocatedAdvance, 50 [26] u32
    /// RunningFreeListEfficiency, CondemnReasons0, CondemnReasons1, CompactMechanisms,
    /// ExpandMechanisms, HeapIndex, 74 [50] ptr ExtraGen0Commit, 82 [54] u32 Count, 86 [58] Count ×
    /// 10 ptr. Versions 0-2 are desktop-era private layouts we do not read.
    pub fn parse(payload: &'a [u8], version: u32, pointer_size: u8) -> PResult<Self> {
        if version < 3 {
            return Err(PayloadError::unsupported_version(version));
        }
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let clr_instance_id = r.u16("GCPerHeapHistory.ClrInstanceID")?;
        let free_list_allocated = r.ptr("GCPerHeapHistory.FreeListAllocated")?;
        let free_list_rejected = r.ptr("GCPerHeapHistory.FreeListRejected")?;
        let end_of_seg_allocated = r.ptr("GCPerHeapHistory.EndOfSegAllocated")?;
        let condemned_allocated = r.ptr("GCPerHeapHistory.CondemnedAllocated")?;
        let pinned_allocated = r.ptr("GCPerHeapHistory.PinnedAllocated")?;
        let pinned_allocated_advance = r.ptr("GCPerHeapHistory.PinnedAllocatedAdvance")?;
        let running_free_list_efficiency = r.u32("GCPerHeapHistory.RunningFreeListEfficiency")?;
        let reasons0 = r.u32("GCPerHeapHistory.CondemnReasons0")?;
        let reasons1 = r.u32("GCPerHeapHistory.CondemnReasons1")?;
        let compact_mechanisms = r.u32("GCPerHeapHistory.CompactMechanisms")?;
        let expand_mechanisms = r.u32("GCPerHeapHistory.ExpandMechanisms")?;
        let heap_index = r.u32("GCPerHeapHistory.HeapIndex")?;
        let extra_gen0_commit = r.ptr("GCPerHeapHistory.ExtraGen0Commit")?;
        let count = r.u32("GCPerHeapHistory.Count")?;
        let stride = GEN_DATA_FIELDS * usize::from(pointer_size);
        let len = (count as usize)
            .checked_mul(stride)
            .ok_or_else(|| PayloadError::truncated(r.pos(), "GCPerHeapHistory.GenData"))?;
        let gen_data = r.bytes(len, "GCPerHeapHistory.GenData")?;
        Ok(GcPerHeapHistory {
            clr_instance_id,
            free_list_allocated,
            free_list_rejected,
            end_of_seg_allocated,
            condemned_allocated,
            pinned_allocated,
            pinned_allocated_advance,
            running_free_list_efficiency,
            condemn_reasons: CondemnReasons { reasons0, reasons1 },
            compact_mechanisms,
            expand_mechanisms,
            heap_index,
            extra_gen0_commit,
            count,
            memory_pressure: None,
            gen_data: GenRecords {
                bytes: gen_data,
                pointer_size,
            },
        })
    }

    /// The .NET Framework 4.5.x layout of the private provider's GCPerHeapHistory (id 4, version
    /// 2): five generation records of 10 pointers (gen0-2, LOH and a fifth), then u32
    /// CondemnReasons0, CondemnReasons1, MemoryPressure, ExpandMechanisms, CompactMechanisms (in
    /// TraceEvent's order), u32 HeapIndex, on .NET 4.5.2 a u64 ExtraGen0Commit (50 pointers + 33
    /// bytes; .NET 4.5: + 25), and ClrInstanceID as the last byte. The fields follow each other:
    /// TraceEvent reads HeapIndex one byte earlier (14 bytes before the end, as if ClrInstanceID
    /// took two), across CompactMechanisms' last byte, which makes PerfView's own workstation GC in
    /// net.4.5.2.x64 (CompactMechanisms 0x80000001) heap 128, against its GC/Settings (no ServerGC)
    /// and its GCGlobalHeapHistory (1 heap). The free-list and pinned-allocation figures of version
    /// 3 are not in it (0 here). Version 0 (.NET 4.0) orders its records differently and is not
    /// read.
    pub fn parse_framework(payload: &'a [u8], version: u32, pointer_size: u8) -> PResult<Self> {
        if version != 2 {
            return Err(PayloadError::unsupported_version(version));
        }
        let p = usize::from(pointer_size);
        if p != 4 && p != 8 {
            return Err(PayloadError::truncated(0, "GCPerHeapHistory pointer size"));
        }
        let records = 5 * GEN_DATA_FIELDS * p;
        let len = payload.len();
        let heap_at = records + 20;
        let extra_at = if len == records + 33 {
            Some(heap_at + 4)
        } else if len == records + 25 {
            None
        } else {
            return Err(PayloadError::truncated(
                len.min(records + 25),
                "GCPerHeapHistory (.NET Framework layout)",
            ));
        };
        let u32_at = |i: usize| {
            u32::from_le_bytes([payload[i], payload[i + 1], payload[i + 2], payload[i + 3]])
        };
        Ok(GcPerHeapHistory {
            clr_instance_id: u16::from(payload[len - 1]),
            free_list_allocated: 0,
            free_list_rejected: 0,
            end_of_seg_allocated: 0,
            condemned_allocated: 0,
            pinned_allocated: 0,
            pinned_allocated_advance: 0,
            running_free_list_efficiency: 0,
            condemn_reasons: CondemnReasons {
                reasons0: u32_at(records),
                reasons1: u32_at(records + 4),
            },
            compact_mechanisms: u32_at(records + 16),
            expand_mechanisms: u32_at(records + 12),
            heap_index: u32_at(heap_at),
            extra_gen0_commit: extra_at
                .map_or(0, |i| u64::from(u32_at(i)) | u64::from(u32_at(i + 4)) << 32),
            count: 5,
            memory_pressure: Some(u32_at(records + 8)),
            gen_data: GenRecords {
                bytes: &payload[..records],
                pointer_size,
            },
        })
    }

    /// Why this heap compacted, `None` if it did not.
    pub fn compact_reason(&self) -> Option<CompactReason> {
        compact_reason(self.compact_mechanisms)
    }

    /// How this heap expanded, `None` if it did not.
    pub fn expand_mechanism(&self) -> Option<ExpandMechanism> {
        expand_mechanism(self.expand_mechanisms)
    }

    /// The record of generation `gen` (0-2, 3 = LOH, 4 = POH), if present.
    pub fn generation(&self, gen: usize) -> Option<GenData> {
        self.gen_data.get(gen)
    }

    /// All generation records, gen0 first.
    pub fn generations(&self) -> impl Iterator<Item = GenData> + '_ {
        (0..self.count as usize).map_while(move |g| self.generation(g))
    }
}

/// GCGlobalHeapHistory (id 205, versions 2-4; private provider id 5, versions 0-1): one per GC.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcGlobalHeapHistory<'a> {
    /// Gen0 allocation budget after this GC, bytes.
    pub final_youngest_desired: u64,
    pub num_heaps: u32,
    pub condemned_generation: u32,
    pub gen0_reduction_count: u32,
    pub reason: GcReason,
    pub global_mechanisms: GlobalMechanisms,
    /// Version 1+.
    pub clr_instance_id: Option<u16>,
    /// Version 2+.
    pub pause_mode: Option<GcPauseMode>,
    /// Version 2+: memory load (percent) the GC saw.
    pub memory_pressure: Option<u32>,
    /// Version 3+: the reasons merged over all heaps.
    pub condemn_reasons: Option<CondemnReasons>,
    /// Version 4+: per-phase times as the GC recorded them, in microseconds, clamped to 32 bits;
    /// read them with [`Self::phase_time`]. The GC sends 5 for a background GC (mark phases),
    /// 7 for a sweeping GC (+ plan, sweep), 8 for a compacting one (+ plan, relocate, compact).
    /// Runtime quirk seen in .NET 8 traces: for gen1/gen2 compacting GCs the compact slot often
    /// holds a raw timestamp instead of a duration (values ~5e8, far above the GC's length).
    pub phase_times: Option<U32Array<'a>>,
}

impl<'a> GcGlobalHeapHistory<'a> {
    /// 0 u64 FinalYoungestDesired, 8 i32 NumHeaps, 12 u32 CondemnedGeneration, 16 u32
    /// Gen0ReductionCount, 20 u32 Reason, 24 u32 GlobalMechanisms, 28 u16 ClrInstanceID (v1),
    /// 30 u32 PauseMode, 34 u32 MemoryPressure (v2), 38 u32 CondemnReasons0, 42 u32
    /// CondemnReasons1 (v3), 46 u32 Count, 50 Count × u32 (v4).
    pub fn parse(payload: &'a [u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let mut h = GcGlobalHeapHistory {
            final_youngest_desired: r.u64("GCGlobalHeapHistory.FinalYoungestDesired")?,
            num_heaps: r.u32("GCGlobalHeapHistory.NumHeaps")?,
            condemned_generation: r.u32("GCGlobalHeapHistory.CondemnedGeneration")?,
            gen0_reduction_count: r.u32("GCGlobalHeapHistory.Gen0ReductionCount")?,
            reason: GcReason::from_raw(r.u32("GCGlobalHeapHistory.Reason")?),
            global_mechanisms: GlobalMechanisms(r.u32("GCGlobalHeapHistory.GlobalMechanisms")?),
            clr_instance_id: None,
            pause_mode: None,
            memory_pressure: None,
            condemn_reasons: None,
            phase_times: None,
        };
        if version >= 1 {
            h.clr_instance_id = Some(r.u16("GCGlobalHeapHistory.ClrInstanceID")?);
        }
        if version >= 2 {
            h.pause_mode = Some(GcPauseMode::from_raw(
                r.u32("GCGlobalHeapHistory.PauseMode")?,
            ));
            h.memory_pressure = Some(r.u32("GCGlobalHeapHistory.MemoryPressure")?);
        }
        if version >= 3 {
            let reasons0 = r.u32("GCGlobalHeapHistory.CondemnReasons0")?;
            let reasons1 = r.u32("GCGlobalHeapHistory.CondemnReasons1")?;
            h.condemn_reasons = Some(CondemnReasons { reasons0, reasons1 });
        }
        if version >= 4 {
            let count = r.u32("GCGlobalHeapHistory.Count")?;
            let len = (count as usize)
                .checked_mul(4)
                .ok_or_else(|| PayloadError::truncated(r.pos(), "GCGlobalHeapHistory.Times"))?;
            h.phase_times = Some(U32Array(r.bytes(len, "GCGlobalHeapHistory.Times")?));
        }
        Ok(h)
    }
}

/// The GC phases timed by GCGlobalHeapHistory version 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum GcPhase {
    MarkSizedRef,
    MarkRoots,
    MarkShortWeak,
    MarkScanFinalization,
    MarkLongWeak,
    Plan,
    Relocate,
    Sweep,
    Compact,
}

impl GcPhase {
    pub const ALL: [GcPhase; 9] = [
        GcPhase::MarkSizedRef,
        GcPhase::MarkRoots,
        GcPhase::MarkShortWeak,
        GcPhase::MarkScanFinalization,
        GcPhase::MarkLongWeak,
        GcPhase::Plan,
        GcPhase::Relocate,
        GcPhase::Sweep,
        GcPhase::Compact,
    ];
}

impl GcGlobalHeapHistory<'_> {
    /// The time of `phase` in microseconds, if this event timed it. Slots 0-4 are the mark
    /// phases, 5 plan; slot 6 is relocate when 8 times were sent (compacting GC) and sweep when 7
    /// were; slot 7 is compact (the GC's `gc_time_info` order; counts as in `fire_pevents`).
    pub fn phase_time(&self, phase: GcPhase) -> Option<u32> {
        let times = self.phase_times?;
        let n = times.len();
        let slot = match phase {
            GcPhase::MarkSizedRef => 0,
            GcPhase::MarkRoots => 1,
            GcPhase::MarkShortWeak => 2,
            GcPhase::MarkScanFinalization => 3,
            GcPhase::MarkLongWeak => 4,
            GcPhase::Plan if n >= 7 => 5,
            GcPhase::Sweep if n == 7 => 6,
            GcPhase::Relocate if n >= 8 => 6,
            GcPhase::Compact if n >= 8 => 7,
            _ => return None,
        };
        times.get(slot)
    }
}

#[cfg(test)]
mod tests;
