//! GC handles and pinning: handle creation/destruction, objects pinned by handles at GC time,
//! and pinned plugs (private provider).

use crate::clr::enums::GcHandleKind;
use crate::clr::payload::{PResult, PayloadCursor, Utf16Str};

/// SetGCHandle (id 30; private PrvSetGCHandle id 194): a handle was created or set.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SetGcHandle {
    pub handle_id: u64,
    pub object_id: u64,
    pub kind: GcHandleKind,
    /// Generation of the object.
    pub generation: u32,
    pub app_domain_id: u64,
    pub clr_instance_id: u16,
}

impl SetGcHandle {
    /// ptr HandleID, ptr ObjectID, u32 Kind, u32 Generation, u64 AppDomainID, u16
    /// ClrInstanceID: 34 bytes on x64, 26 on x86.
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(SetGcHandle {
            handle_id: r.ptr("SetGCHandle.HandleID")?,
            object_id: r.ptr("SetGCHandle.ObjectID")?,
            kind: GcHandleKind::from_raw(r.u32("SetGCHandle.Kind")?),
            generation: r.u32("SetGCHandle.Generation")?,
            app_domain_id: r.u64("SetGCHandle.AppDomainID")?,
            clr_instance_id: r.u16("SetGCHandle.ClrInstanceID")?,
        })
    }
}

/// DestroyGCHandle (id 31; private PrvDestroyGCHandle id 195).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DestroyGcHandle {
    pub handle_id: u64,
    pub clr_instance_id: u16,
}

impl DestroyGcHandle {
    /// ptr HandleID, u16 ClrInstanceID.
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(DestroyGcHandle {
            handle_id: r.ptr("DestroyGCHandle.HandleID")?,
            clr_instance_id: r.u16("DestroyGCHandle.ClrInstanceID")?,
        })
    }
}

/// PinObjectAtGCTime (id 33): an object pinned by a handle when a GC started.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PinObjectAtGcTime<'a> {
    pub handle_id: u64,
    pub object_id: u64,
    /// Bytes.
    pub object_size: u64,
    pub type_name: Utf16Str<'a>,
    pub clr_instance_id: u16,
}

impl<'a> PinObjectAtGcTime<'a> {
    /// ptr HandleID, ptr ObjectID, u64 ObjectSize, UTF-16 TypeName, u16 ClrInstanceID.
    pub fn parse(payload: &'a [u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(PinObjectAtGcTime {
            handle_id: r.ptr("PinObjectAtGCTime.HandleID")?,
            object_id: r.ptr("PinObjectAtGCTime.ObjectID")?,
            object_size: r.u64("PinObjectAtGCTime.ObjectSize")?,
            type_name: r.utf16z("PinObjectAtGCTime.TypeName")?,
            clr_instance_id: r.u16("PinObjectAtGCTime.ClrInstanceID")?,
        })
    }
}

/// PinPlugAtGCTime (private id 199): a pinned plug (run of live objects) the GC could not move.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PinPlugAtGcTime {
    pub plug_start: u64,
    pub plug_end: u64,
    /// Size of the gap before the plug, in bytes.
    pub gap_before_size: u64,
    pub clr_instance_id: u16,
}

impl PinPlugAtGcTime {
    /// ptr PlugStart, ptr PlugEnd, ptr GapBeforeSize, u16 ClrInstanceID.
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(PinPlugAtGcTime {
            plug_start: r.ptr("PinPlugAtGCTime.PlugStart")?,
            plug_end: r.ptr("PinPlugAtGCTime.PlugEnd")?,
            gap_before_size: r.ptr("PinPlugAtGCTime.GapBeforeSize")?,
            clr_instance_id: r.u16("PinPlugAtGCTime.ClrInstanceID")?,
        })
    }

    /// Plug length in bytes.
    pub fn len(&self) -> u64 {
        self.plug_end.saturating_sub(self.plug_start)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn set_and_destroy_handle() {
        // x64: HandleID 0x6EB657D4D8, ObjectID 0x19A0001B408, Kind 3 (Pinned), Generation 2,
        // AppDomainID 0x1234, ClrInstanceID 3: 34 bytes.
        let mut p = Vec::new();
        p.extend_from_slice(&0x6E_B657_D4D8u64.to_le_bytes());
        p.extend_from_slice(&0x19A_0001_B408u64.to_le_bytes());
        p.extend_from_slice(&3u32.to_le_bytes());
        p.extend_from_slice(&2u32.to_le_bytes());
        p.extend_from_slice(&0x1234u64.to_le_bytes());
        p.extend_from_slice(&3u16.to_le_bytes());
        assert_eq!(p.len(), 34);
        let h = SetGcHandle::parse(&p, 0, 8).unwrap();
        assert_eq!(h.handle_id, 0x6E_B657_D4D8);
        assert_eq!(h.object_id, 0x19A_0001_B408);
        assert_eq!(h.kind, GcHandleKind::Pinned);
        assert_eq!(
            (h.generation, h.app_domain_id, h.clr_instance_id),
            (2, 0x1234, 3)
        );
        assert_eq!(SetGcHandle::parse(&p[..33], 0, 8).unwrap_err().offset, 32);
        // x86: 26 bytes.
        let mut q = Vec::new();
        q.extend_from_slice(&0x005E_12ECu32.to_le_bytes());
        q.extend_from_slice(&0x07F2_3260u32.to_le_bytes());
        q.extend_from_slice(&p[16..]);
        assert_eq!(q.len(), 26);
        let h = SetGcHandle::parse(&q, 0, 4).unwrap();
        assert_eq!(
            (h.handle_id, h.object_id, h.clr_instance_id),
            (0x005E_12EC, 0x07F2_3260, 3)
        );

        let d = DestroyGcHandle::parse(&p[..10], 0, 8).unwrap();
        assert_eq!((d.handle_id, d.clr_instance_id), (0x6E_B657_D4D8, 0xB408));
        assert!(DestroyGcHandle::parse(&p[..5], 0, 4).is_err());
    }

    #[test]
    fn pin_object_and_plug() {
        // The 2.1 x86 baseline's first PinObjectAtGCTime: HandleID 0x005E12EC, ObjectID
        // 0x07F23260, ObjectSize 8172, TypeName System.Object[], ClrInstanceID 2.
        let mut p = Vec::new();
        p.extend_from_slice(&0x005E_12ECu32.to_le_bytes());
        p.extend_from_slice(&0x07F2_3260u32.to_le_bytes());
        p.extend_from_slice(&8172u64.to_le_bytes());
        p.extend(
            "System.Object[]"
                .encode_utf16()
                .flat_map(|u| u.to_le_bytes()),
        );
        p.extend_from_slice(&[0, 0]);
        p.extend_from_slice(&2u16.to_le_bytes());
        let o = PinObjectAtGcTime::parse(&p, 0, 4).unwrap();
        assert_eq!(
            (o.handle_id, o.object_id, o.object_size),
            (0x005E_12EC, 0x07F2_3260, 8172)
        );
        assert_eq!(o.type_name.to_string_lossy(), "System.Object[]");
        assert_eq!(o.clr_instance_id, 2);
        assert_eq!(
            PinObjectAtGcTime::parse(&p[..p.len() - 1], 0, 4)
                .unwrap_err()
                .offset,
            p.len() - 2
        );

        let mut q = Vec::new();
        for v in [0x0000_019A_0000_1048u64, 0x0000_019A_0000_1348, 0x18] {
            q.extend_from_slice(&v.to_le_bytes());
        }
        q.extend_from_slice(&3u16.to_le_bytes());
        let g = PinPlugAtGcTime::parse(&q, 0, 8).unwrap();
        assert_eq!(g.plug_start, 0x0000_019A_0000_1048);
        assert_eq!(g.plug_end, 0x0000_019A_0000_1348);
        assert_eq!(
            (g.gap_before_size, g.clr_instance_id, g.len()),
            (0x18, 3, 0x300)
        );
        assert!(PinPlugAtGcTime::parse(&q[..25], 0, 8).is_err());
    }
}
