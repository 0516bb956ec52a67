//! Heap shape: per-GC heap statistics, segments and generation ranges, memory pressure, and the
//! GC settings reported at rundown.

use crate::clr::enums::GcSegmentType;
use crate::clr::payload::{PResult, PayloadCursor};

/// GCHeapStats (id 4): heap sizes right after a GC.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GcHeapStats {
    /// Size in bytes of gen0, gen1, gen2 and the large object heap after the GC.
    pub generation_size: [u64; 4],
    /// Bytes promoted out of gen0, gen1, gen2 and the LOH by this GC (0 for generations it did
    /// not condemn).
    pub total_promoted_size: [u64; 4],
    /// Pinned object heap size in bytes (version 2+, .NET 5+).
    pub poh_size: Option<u64>,
    /// Bytes promoted in the pinned object heap (version 2+).
    pub poh_promoted_size: Option<u64>,
    /// Bytes of objects kept alive only because they are ready for finalization.
    pub finalization_promoted_size: u64,
    pub finalization_promoted_count: u64,
    pub pinned_object_count: u32,
    pub sink_block_count: u32,
    pub gc_handle_count: u32,
    /// Version 1+.
    pub clr_instance_id: Option<u16>,
}

impl GcHeapStats {
    /// v0: 4 × (u64 GenerationSize, u64 TotalPromotedSize), u64 FinalizationPromotedSize,
    /// u64 FinalizationPromotedCount, 3 × u32 = 92 bytes; v1 adds ClrInstanceID at 92; v2 appends
    /// GenerationSize4 (94) and TotalPromotedSize4 (102) **after** ClrInstanceID = 110 bytes.
    pub fn parse(payload: &[u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let mut generation_size = [0u64; 4];
        let mut total_promoted_size = [0u64; 4];
        for g in 0..4 {
            generation_size[g] = r.u64("GCHeapStats.GenerationSize")?;
            total_promoted_size[g] = r.u64("GCHeapStats.TotalPromotedSize")?;
        }
        let finalization_promoted_size = r.u64("GCHeapStats.FinalizationPromotedSize")?;
        let finalization_promoted_count = r.u64("GCHeapStats.FinalizationPromotedCount")?;
        let pinned_object_count = r.u32("GCHeapStats.PinnedObjectCount")?;
        let sink_block_count = r.u32("GCHeapStats.SinkBlockCount")?;
        let gc_handle_count = r.u32("GCHeapStats.GCHandleCount")?;
        let clr_instance_id = if version >= 1 {
            Some(r.u16("GCHeapStats.ClrInstanceID")?)
        } else {
            None
        };
        let (poh_size, poh_promoted_size) = if version >= 2 {
            (
                Some(r.u64("GCHeapStats.GenerationSize4")?),
                Some(r.u64("GCHeapStats.TotalPromotedSize4")?),
            )
        } else {
            (None, None)
        };
        Ok(GcHeapStats {
            generation_size,
            total_promoted_size,
            poh_size,
            poh_promoted_size,
            finalization_promoted_size,
            finalization_promoted_count,
            pinned_object_count,
            sink_block_count,
            gc_handle_count,
            clr_instance_id,
        })
    }

    /// Sum of all generation sizes including POH (TraceEvent's TotalHeapSize).
    pub fn total_heap_size(&self) -> u64 {
        self.generation_size
            .iter()
            .fold(self.poh_size.unwrap_or(0), |a, &b| a.wrapping_add(b))
    }

    /// Sum of all promoted sizes including POH (TraceEvent's TotalPromoted).
    pub fn total_promoted(&self) -> u64 {
        self.total_promoted_size
            .iter()
            .fold(self.poh_promoted_size.unwrap_or(0), |a, &b| {
                a.wrapping_add(b)
            })
    }
}

/// GCCreateSegment (id 5).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcCreateSegment {
    /// Segment start address.
    pub address: u64,
    /// Reserved size in bytes.
    pub size: u64,
    pub segment_type: GcSegmentType,
    pub clr_instance_id: Option<u16>,
}

impl GcCreateSegment {
    /// u64 Address, u64 Size, u32 Type [, v1: u16 ClrInstanceID]: 20 / 22 bytes.
    pub fn parse(payload: &[u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(GcCreateSegment {
            address: r.u64("GCCreateSegment.Address")?,
            size: r.u64("GCCreateSegment.Size")?,
            segment_type: GcSegmentType::from_raw(r.u32("GCCreateSegment.Type")?),
            clr_instance_id: if version >= 1 {
                Some(r.u16("GCCreateSegment.ClrInstanceID")?)
            } else {
                None
            },
        })
    }
}

/// GCFreeSegment (id 6).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GcFreeSegment {
    pub address: u64,
    pub clr_instance_id: Option<u16>,
}

impl GcFreeSegment {
    /// u64 Address [, v1: u16 ClrInstanceID]: 8 / 10 bytes.
    pub fn parse(payload: &[u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(GcFreeSegment {
            address: r.u64("GCFreeSegment.Address")?,
            clr_instance_id: if version >= 1 {
                Some(r.u16("GCFreeSegment.ClrInstanceID")?)
            } else {
                None
            },
        })
    }
}

/// GCGenerationRange (id 23): one generation's address range, at the start and end of a GC when
/// the GCHeapSurvivalAndMovement keyword is on.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GcGenerationRange {
    /// 0-2, 3 = LOH, 4 = POH.
    pub generation: u8,
    pub range_start: u64,
    /// Bytes in use.
    pub range_used_length: u64,
    /// Bytes reserved.
    pub range_reserved_length: u64,
    pub clr_instance_id: u16,
}

impl GcGenerationRange {
    /// u8 Generation, ptr RangeStart, u64 RangeUsedLength, u64 RangeReservedLength, u16
    /// ClrInstanceID: 27 bytes on x64, 23 on x86.
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(GcGenerationRange {
            generation: r.u8("GCGenerationRange.Generation")?,
            range_start: r.ptr("GCGenerationRange.RangeStart")?,
            range_used_length: r.u64("GCGenerationRange.RangeUsedLength")?,
            range_reserved_length: r.u64("GCGenerationRange.RangeReservedLength")?,
            clr_instance_id: r.u16("GCGenerationRange.ClrInstanceID")?,
        })
    }
}

/// IncreaseMemoryPressure (id 200) / DecreaseMemoryPressure (id 201): GC.Add/RemoveMemoryPressure.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MemoryPressure {
    /// Bytes added (Increase: BytesAllocated) or removed (Decrease: BytesFreed).
    pub bytes: u64,
    pub clr_instance_id: u16,
}

impl MemoryPressure {
    /// u64 Bytes, u16 ClrInstanceID: 10 bytes.
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(MemoryPressure {
            bytes: r.u64("MemoryPressure.Bytes")?,
            clr_instance_id: r.u16("MemoryPressure.ClrInstanceID")?,
        })
    }
}

/// GCSettings (private provider id 2): how the GC is set up. .NET Framework fires it (in the
/// shared net.4.5.2 traces for the process already running when the session began, not for the
/// one started during it); CoreCLR declares it but does not fire it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GcSettings {
    /// Size of the small-object-heap segments, bytes.
    pub segment_size: u64,
    /// Size of the large-object-heap segments, bytes.
    pub large_object_segment_size: u64,
    /// Server GC (a 4-byte Boolean).
    pub server_gc: bool,
    pub clr_instance_id: Option<u16>,
}

impl GcSettings {
    /// u64 SegmentSize, u64 LargeObjectSegmentSize, u32 ServerGC [, v1: u16 ClrInstanceID]:
    /// 20 / 22 bytes.
    pub fn parse(payload: &[u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(GcSettings {
            segment_size: r.u64("GCSettings.SegmentSize")?,
            large_object_segment_size: r.u64("GCSettings.LargeObjectSegmentSize")?,
            server_gc: r.u32("GCSettings.ServerGC")? != 0,
            clr_instance_id: if version >= 1 {
                Some(r.u16("GCSettings.ClrInstanceID")?)
            } else {
                None
            },
        })
    }
}

/// GCSettingsRundown (rundown provider id 10, .NET 7+): the GC configuration.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GcSettingsRundown {
    /// GCHeapHardLimit in bytes (0 = none).
    pub hard_limit: u64,
    /// Objects of at least this many bytes go to the LOH.
    pub loh_threshold: u64,
    pub physical_memory_config: u64,
    pub gen0_min_budget_config: u64,
    pub gen0_max_budget_config: u64,
    pub high_mem_percent_config: u32,
    /// Bits: 0x1 concurrent, 0x2 large pages, 0x4 frozen segments, 0x8 hard limit configured,
    /// 0x10 no affinitize.
    pub bit_settings: u32,
    pub clr_instance_id: u16,
}

impl GcSettingsRundown {
    pub const CONCURRENT: u32 = 0x1;
    pub const LARGE_PAGES: u32 = 0x2;
    pub const FROZEN_SEGS: u32 = 0x4;
    pub const HARD_LIMIT_CONFIG: u32 = 0x8;
    pub const NO_AFFINITIZE: u32 = 0x10;

    /// 5 × u64, 2 × u32, u16: 50 bytes.
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(GcSettingsRundown {
            hard_limit: r.u64("GCSettingsRundown.HardLimit")?,
            loh_threshold: r.u64("GCSettingsRundown.LOHThreshold")?,
            physical_memory_config: r.u64("GCSettingsRundown.PhysicalMemoryConfig")?,
            gen0_min_budget_config: r.u64("GCSettingsRundown.Gen0MinBudgetConfig")?,
            gen0_max_budget_config: r.u64("GCSettingsRundown.Gen0MaxBudgetConfig")?,
            high_mem_percent_config: r.u32("GCSettingsRundown.HighMemPercentConfig")?,
            bit_settings: r.u32("GCSettingsRundown.BitSettings")?,
            clr_instance_id: r.u16("GCSettingsRundown.ClrInstanceID")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn heap_stats_v2() -> Vec<u8> {
        let mut p = Vec::new();
        // 0..64: gen0 size 0x18, promoted 0x2AD90, gen1 0x331C8/0, gen2 0x18/0, LOH 0x8CB0/0.
        for v in [0x18u64, 0x2AD90, 0x331C8, 0, 0x18, 0, 0x8CB0, 0] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        p.extend_from_slice(&11u64.to_le_bytes()); // 64 FinalizationPromotedSize
        p.extend_from_slice(&1u64.to_le_bytes()); // 72 FinalizationPromotedCount
        p.extend_from_slice(&2u32.to_le_bytes()); // 80 PinnedObjectCount
        p.extend_from_slice(&14u32.to_le_bytes()); // 84 SinkBlockCount
        p.extend_from_slice(&55u32.to_le_bytes()); // 88 GCHandleCount
        p.extend_from_slice(&3u16.to_le_bytes()); // 92 ClrInstanceID
        p.extend_from_slice(&0x100u64.to_le_bytes()); // 94 GenerationSize4
        p.extend_from_slice(&0x10u64.to_le_bytes()); // 102 TotalPromotedSize4
        assert_eq!(p.len(), 110);
        p
    }

    #[test]
    fn heap_stats_versions() {
        let p = heap_stats_v2();
        let h = GcHeapStats::parse(&p, 2, 8).unwrap();
        assert_eq!(h.generation_size, [0x18, 0x331C8, 0x18, 0x8CB0]);
        assert_eq!(h.total_promoted_size, [0x2AD90, 0, 0, 0]);
        assert_eq!(h.poh_size, Some(0x100));
        assert_eq!(h.poh_promoted_size, Some(0x10));
        assert_eq!(h.finalization_promoted_size, 11);
        assert_eq!(h.finalization_promoted_count, 1);
        assert_eq!(
            (h.pinned_object_count, h.sink_block_count, h.gc_handle_count),
            (2, 14, 55)
        );
        assert_eq!(h.clr_instance_id, Some(3));
        // Totals as TraceEvent computes them (3.0 baseline: 0x3BEA8 / 0x2AD90 without POH).
        assert_eq!(h.total_heap_size(), 0x3BEA8 + 0x100);
        assert_eq!(h.total_promoted(), 0x2AD90 + 0x10);
        let h1 = GcHeapStats::parse(&p[..94], 1, 8).unwrap();
        assert_eq!((h1.poh_size, h1.clr_instance_id), (None, Some(3)));
        assert_eq!(h1.total_heap_size(), 0x3BEA8);
        let h0 = GcHeapStats::parse(&p[..92], 0, 8).unwrap();
        assert_eq!(h0.clr_instance_id, None);
        assert_eq!(GcHeapStats::parse(&p[..109], 2, 8).unwrap_err().offset, 102);
        assert_eq!(GcHeapStats::parse(&p[..93], 1, 8).unwrap_err().offset, 92);
    }

    #[test]
    fn segments_ranges_pressure() {
        let mut p = Vec::new();
        p.extend_from_slice(&0x1_0000_0000u64.to_le_bytes());
        p.extend_from_slice(&0x1000u64.to_le_bytes());
        p.extend_from_slice(&3u32.to_le_bytes());
        p.extend_from_slice(&7u16.to_le_bytes());
        let s = GcCreateSegment::parse(&p, 1, 4).unwrap();
        assert_eq!(s.address, 0x1_0000_0000);
        assert_eq!(s.size, 0x1000);
        assert_eq!(s.segment_type, GcSegmentType::PinnedObjectHeap);
        assert_eq!(s.clr_instance_id, Some(7));
        assert_eq!(
            GcCreateSegment::parse(&p[..20], 0, 4)
                .unwrap()
                .clr_instance_id,
            None
        );
        assert!(GcCreateSegment::parse(&p[..21], 1, 4).is_err());
        let f = GcFreeSegment::parse(&p[..10], 1, 8).unwrap();
        assert_eq!(f.address, 0x1_0000_0000);
        assert_eq!(f.clr_instance_id, Some(0x1000));

        // GenerationRange x86 (23 bytes): gen 3, start 0x07F21000, used 0x4250, reserved
        // 0xFFF000, ClrInstanceID 2 (the 2.1 x86 baseline's first event).
        let mut g = Vec::new();
        g.push(3u8);
        g.extend_from_slice(&0x07F2_1000u32.to_le_bytes());
        g.extend_from_slice(&0x4250u64.to_le_bytes());
        g.extend_from_slice(&0x00FF_F000u64.to_le_bytes());
        g.extend_from_slice(&2u16.to_le_bytes());
        assert_eq!(g.len(), 23);
        let r = GcGenerationRange::parse(&g, 0, 4).unwrap();
        assert_eq!(
            (
                r.generation,
                r.range_start,
                r.range_used_length,
                r.range_reserved_length,
                r.clr_instance_id
            ),
            (3, 0x07F2_1000, 0x4250, 0x00FF_F000, 2)
        );
        // Read with 8-byte pointers the payload runs out inside RangeReservedLength (at 17).
        assert_eq!(GcGenerationRange::parse(&g, 0, 8).unwrap_err().offset, 17);

        let m = MemoryPressure::parse(&[0xC8, 0x0E, 0, 0, 0, 0, 0, 0, 3, 0], 0, 8).unwrap();
        assert_eq!((m.bytes, m.clr_instance_id), (3784, 3));
        assert!(MemoryPressure::parse(&[0; 9], 0, 8).is_err());
    }

    #[test]
    fn framework_settings() {
        // 256 MiB segments, 128 MiB LOH segments, ServerGC 1, ClrInstanceID 9.
        let mut p = Vec::new();
        p.extend_from_slice(&(256u64 << 20).to_le_bytes());
        p.extend_from_slice(&(128u64 << 20).to_le_bytes());
        p.extend_from_slice(&1u32.to_le_bytes());
        p.extend_from_slice(&9u16.to_le_bytes());
        let s = GcSettings::parse(&p, 1, 8).unwrap();
        assert_eq!(
            (s.segment_size, s.large_object_segment_size, s.server_gc),
            (256 << 20, 128 << 20, true)
        );
        assert_eq!(s.clr_instance_id, Some(9));
        let v0 = GcSettings::parse(&p[..20], 0, 4).unwrap();
        assert_eq!((v0.server_gc, v0.clr_instance_id), (true, None));
        assert_eq!(GcSettings::parse(&p[..19], 0, 8).unwrap_err().offset, 16);
        assert_eq!(GcSettings::parse(&p[..21], 1, 8).unwrap_err().offset, 20);
    }

    #[test]
    fn settings_rundown() {
        let mut p = Vec::new();
        for v in [0u64, 85000, 0, 0, 0] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(&0x11u32.to_le_bytes());
        p.extend_from_slice(&8u16.to_le_bytes());
        assert_eq!(p.len(), 50);
        let s = GcSettingsRundown::parse(&p, 0, 8).unwrap();
        assert_eq!(s.loh_threshold, 85000);
        assert_eq!(
            s.bit_settings,
            GcSettingsRundown::CONCURRENT | GcSettingsRundown::NO_AFFINITIZE
        );
        assert_eq!(s.clr_instance_id, 8);
        assert_eq!(
            GcSettingsRundown::parse(&p[..49], 0, 8).unwrap_err().offset,
            48
        );
    }
}
