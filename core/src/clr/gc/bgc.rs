//! Background-GC detail events of the private provider (Microsoft-Windows-DotNETRuntimePrivate,
//! keyword GCPrivate). The phase markers (BGCBegin ... BGCSweepEnd) carry only ClrInstanceID and
//! decode as [`crate::clr::gc::lifecycle::GcNoUserData`].

use crate::clr::enums::BgcAllocWaitReason;
use crate::clr::payload::{PResult, PayloadCursor};

/// BGCDrainMark (private id 20).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BgcDrainMark {
    /// Objects drained from the mark list.
    pub objects: u64,
    pub clr_instance_id: u16,
}

impl BgcDrainMark {
    /// u64 Objects, u16 ClrInstanceID.
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(BgcDrainMark {
            objects: r.u64("BGCDrainMark.Objects")?,
            clr_instance_id: r.u16("BGCDrainMark.ClrInstanceID")?,
        })
    }
}

/// BGCRevisit (private id 21): pages/objects revisited because they changed during concurrent mark.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BgcRevisit {
    pub pages: u64,
    pub objects: u64,
    /// Nonzero for the large object heap.
    pub is_large: u32,
    pub clr_instance_id: u16,
}

impl BgcRevisit {
    /// u64 Pages, u64 Objects, u32 IsLarge, u16 ClrInstanceID.
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(BgcRevisit {
            pages: r.u64("BGCRevisit.Pages")?,
            objects: r.u64("BGCRevisit.Objects")?,
            is_large: r.u32("BGCRevisit.IsLarge")?,
            clr_instance_id: r.u16("BGCRevisit.ClrInstanceID")?,
        })
    }
}

/// BGCOverflow (private id 22): the background mark stack overflowed over an address range.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BgcOverflow {
    pub min: u64,
    pub max: u64,
    pub objects: u64,
    pub is_large: u32,
    pub clr_instance_id: u16,
    /// Version 1+.
    pub gen_number: Option<u32>,
}

impl BgcOverflow {
    /// u64 Min, u64 Max, u64 Objects, u32 IsLarge, u16 ClrInstanceID [, v1: u32 GenNumber].
    pub fn parse(payload: &[u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(BgcOverflow {
            min: r.u64("BGCOverflow.Min")?,
            max: r.u64("BGCOverflow.Max")?,
            objects: r.u64("BGCOverflow.Objects")?,
            is_large: r.u32("BGCOverflow.IsLarge")?,
            clr_instance_id: r.u16("BGCOverflow.ClrInstanceID")?,
            gen_number: if version >= 1 {
                Some(r.u32("BGCOverflow.GenNumber")?)
            } else {
                None
            },
        })
    }
}

/// BGCAllocWaitBegin / BGCAllocWaitEnd (private ids 23/24): an allocation waited for the BGC.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BgcAllocWait {
    pub reason: BgcAllocWaitReason,
    pub clr_instance_id: u16,
}

impl BgcAllocWait {
    /// u32 Reason, u16 ClrInstanceID.
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(BgcAllocWait {
            reason: BgcAllocWaitReason::from_raw(r.u32("BGCAllocWait.Reason")?),
            clr_instance_id: r.u16("BGCAllocWait.ClrInstanceID")?,
        })
    }
}

/// GCFullNotify (private id 25): a full-GC-approaching notification.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GcFullNotify {
    pub gen_number: u32,
    /// Nonzero when raised on allocation.
    pub is_alloc: u32,
    /// Version 1+.
    pub clr_instance_id: Option<u16>,
}

impl GcFullNotify {
    /// u32 GenNumber, u32 IsAlloc [, v1: u16 ClrInstanceID].
    pub fn parse(payload: &[u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(GcFullNotify {
            gen_number: r.u32("GCFullNotify.GenNumber")?,
            is_alloc: r.u32("GCFullNotify.IsAlloc")?,
            clr_instance_id: if version >= 1 {
                Some(r.u16("GCFullNotify.ClrInstanceID")?)
            } else {
                None
            },
        })
    }
}

/// BGC1stSweepEnd (private id 26): end of the first sweep phase of a BGC.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Bgc1stSweepEnd {
    pub gen_number: u32,
    pub clr_instance_id: u16,
}

impl Bgc1stSweepEnd {
    /// u32 GenNumber, u16 ClrInstanceID.
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(Bgc1stSweepEnd {
            gen_number: r.u32("BGC1stSweepEnd.GenNumber")?,
            clr_instance_id: r.u16("BGC1stSweepEnd.ClrInstanceID")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn private_bgc_events() {
        let d = BgcDrainMark::parse(&[5, 0, 0, 0, 0, 0, 0, 0, 3, 0], 0, 8).unwrap();
        assert_eq!((d.objects, d.clr_instance_id), (5, 3));
        assert!(BgcDrainMark::parse(&[5, 0, 0, 0, 0, 0, 0, 0, 3], 0, 8).is_err());

        let mut p = Vec::new();
        p.extend_from_slice(&2u64.to_le_bytes());
        p.extend_from_slice(&9u64.to_le_bytes());
        p.extend_from_slice(&1u32.to_le_bytes());
        p.extend_from_slice(&3u16.to_le_bytes());
        let v = BgcRevisit::parse(&p, 0, 8).unwrap();
        assert_eq!(
            (v.pages, v.objects, v.is_large, v.clr_instance_id),
            (2, 9, 1, 3)
        );

        let mut o = Vec::new();
        for x in [0x1000u64, 0x2000, 77] {
            o.extend_from_slice(&x.to_le_bytes());
        }
        o.extend_from_slice(&0u32.to_le_bytes());
        o.extend_from_slice(&3u16.to_le_bytes());
        o.extend_from_slice(&2u32.to_le_bytes());
        let b = BgcOverflow::parse(&o, 1, 8).unwrap();
        assert_eq!(
            (b.min, b.max, b.objects, b.gen_number),
            (0x1000, 0x2000, 77, Some(2))
        );
        assert_eq!(BgcOverflow::parse(&o[..30], 0, 8).unwrap().gen_number, None);
        assert_eq!(BgcOverflow::parse(&o[..31], 1, 8).unwrap_err().offset, 30);

        let w = BgcAllocWait::parse(&[11, 0, 0, 0, 3, 0], 0, 8).unwrap();
        assert_eq!(w.reason, BgcAllocWaitReason::AllocDuringBgc);
        let n = GcFullNotify::parse(&[2, 0, 0, 0, 1, 0, 0, 0, 3, 0], 1, 8).unwrap();
        assert_eq!(
            (n.gen_number, n.is_alloc, n.clr_instance_id),
            (2, 1, Some(3))
        );
        assert_eq!(
            GcFullNotify::parse(&[2, 0, 0, 0, 1, 0, 0, 0], 0, 8)
                .unwrap()
                .clr_instance_id,
            None
        );
        let s = Bgc1stSweepEnd::parse(&[2, 0, 0, 0, 3, 0], 0, 8).unwrap();
        assert_eq!((s.gen_number, s.clr_instance_id), (2, 3));
    }
}
