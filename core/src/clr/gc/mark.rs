//! Mark-phase events: bytes marked per root kind, the older per-kind mark events, and server-GC
//! join points.

use crate::clr::enums::{GcJoinTime, GcJoinType, GcRootKind};
use crate::clr::payload::{PResult, PayloadCursor};

/// GCMarkWithType (id 202): bytes marked from one kind of root on one heap.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcMarkWithType {
    pub heap_num: u32,
    pub clr_instance_id: u16,
    /// Which roots were marked (TraceEvent prints it as the number `Type`).
    pub root_kind: GcRootKind,
    /// Bytes promoted (marked) from these roots (TraceEvent's `Promoted`).
    pub bytes: u64,
}

impl GcMarkWithType {
    /// 0 u32 HeapNum, 4 u16 ClrInstanceID, 6 u32 Type, 10 u64 Bytes: 18 bytes.
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(GcMarkWithType {
            heap_num: r.u32("GCMarkWithType.HeapNum")?,
            clr_instance_id: r.u16("GCMarkWithType.ClrInstanceID")?,
            root_kind: GcRootKind::from_raw(r.u32("GCMarkWithType.Type")?),
            bytes: r.u64("GCMarkWithType.Bytes")?,
        })
    }
}

/// GCMarkStackRoots / FinalizeQueueRoots / Handles / OlderGenerationRoots (ids 25-28; private
/// 7-10): the pre-GCMarkWithType per-kind mark events. The kind comes from the event id.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcMark {
    pub root_kind: GcRootKind,
    pub heap_num: u32,
    pub clr_instance_id: Option<u16>,
}

impl GcMark {
    /// u32 HeapNum [, u16 ClrInstanceID].
    pub fn parse(
        payload: &[u8],
        root_kind: GcRootKind,
        _version: u32,
        pointer_size: u8,
    ) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(GcMark {
            root_kind,
            heap_num: r.u32("GCMark.HeapNum")?,
            clr_instance_id: r.opt_u16("GCMark.ClrInstanceID")?,
        })
    }
}

/// GCJoin (id 203 version 2; private id 6 versions 0/1): a server-GC thread reaching or leaving a
/// join point.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcJoin {
    pub heap: u32,
    pub join_time: GcJoinTime,
    pub join_type: GcJoinType,
    pub clr_instance_id: Option<u16>,
    /// Identifies the join point in gc.cpp (version 2+).
    pub join_id: Option<u32>,
}

impl GcJoin {
    /// 0 u32 Heap, 4 u32 JoinTime, 8 u32 JoinType, [12 u16 ClrInstanceID (v1+)], [14 u32 JoinID (v2)].
    pub fn parse(payload: &[u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let heap = r.u32("GCJoin.Heap")?;
        let join_time = GcJoinTime::from_raw(r.u32("GCJoin.JoinTime")?);
        let join_type = GcJoinType::from_raw(r.u32("GCJoin.JoinType")?);
        let clr_instance_id = if version >= 1 {
            Some(r.u16("GCJoin.ClrInstanceID")?)
        } else {
            None
        };
        let join_id = if version >= 2 {
            Some(r.u32("GCJoin.JoinID")?)
        } else {
            None
        };
        Ok(GcJoin {
            heap,
            join_time,
            join_type,
            clr_instance_id,
            join_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mark_with_type_packed_layout() {
        // HeapNum 0, ClrInstanceID 3, Type 0 (Stack), Bytes 104989 at offset 10 (unaligned):
        // the 3.0 baseline's first GC/MarkWithType.
        let mut p = [0u8; 18];
        p[4] = 3;
        p[10..18].copy_from_slice(&104_989u64.to_le_bytes());
        let m = GcMarkWithType::parse(&p, 0, 8).unwrap();
        assert_eq!(m.heap_num, 0);
        assert_eq!(m.clr_instance_id, 3);
        assert_eq!(m.root_kind, GcRootKind::Stack);
        assert_eq!(m.bytes, 104_989);
        p[6] = 9;
        assert_eq!(
            GcMarkWithType::parse(&p, 0, 8).unwrap().root_kind,
            GcRootKind::Bgc
        );
        assert_eq!(
            GcMarkWithType::parse(&p[..17], 0, 8).unwrap_err().offset,
            10
        );
    }

    #[test]
    fn mark_and_join() {
        let m = GcMark::parse(&[2, 0, 0, 0, 5, 0], GcRootKind::Handle, 0, 8).unwrap();
        assert_eq!((m.heap_num, m.clr_instance_id), (2, Some(5)));
        assert_eq!(
            GcMark::parse(&[2, 0, 0, 0], GcRootKind::Older, 0, 8)
                .unwrap()
                .clr_instance_id,
            None
        );
        // V2: Heap 1, JoinTime 1 (End), JoinType 3 (FirstJoin), ClrInstanceID 4, JoinID 0x20.
        let p = [1u8, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0x20, 0, 0, 0];
        let j = GcJoin::parse(&p, 2, 8).unwrap();
        assert_eq!(j.heap, 1);
        assert_eq!(j.join_time, GcJoinTime::End);
        assert_eq!(j.join_type, GcJoinType::FirstJoin);
        assert_eq!((j.clr_instance_id, j.join_id), (Some(4), Some(0x20)));
        assert_eq!(GcJoin::parse(&p[..14], 1, 8).unwrap().join_id, None);
        assert_eq!(GcJoin::parse(&p[..17], 2, 8).unwrap_err().offset, 14);
        assert_eq!(GcJoin::parse(&p[..12], 0, 8).unwrap().clr_instance_id, None);
    }
}
