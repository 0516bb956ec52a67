//! The GC's own lifecycle events: start/end, suspension and restart of the runtime, triggers,
//! finalizers and the background GC thread.

use crate::clr::enums::{GcReason, GcSuspendEeReason, GcType};
use crate::clr::payload::{PResult, PayloadCursor, Utf16Str};

/// GCStart (id 1): a collection begins.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcStart {
    /// The GC's sequence number (1 for the first GC of the process).
    pub count: u32,
    /// Condemned generation (0, 1 or 2). `None` in version 0 payloads.
    pub depth: Option<u32>,
    pub reason: GcReason,
    /// `None` in version 0 payloads.
    pub gc_type: Option<GcType>,
    /// Version 1+.
    pub clr_instance_id: Option<u16>,
    /// Version 2+: the sequence number of the GC as seen by the client (ETW rundown); 0 usually.
    pub client_sequence_number: Option<u64>,
}

impl GcStart {
    /// Layouts: v0 = Count, Reason (8 bytes); v1 = Count, Depth, Reason, Type, ClrInstanceID (18);
    /// v2 = v1 + ClientSequenceNumber (26). Like TraceEvent, a version 0 payload of 16+ bytes is
    /// read with the v1 layout (some v0 events carried it).
    pub fn parse(payload: &[u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let count = r.u32("GCStart.Count")?;
        if version == 0 && payload.len() < 16 {
            let reason = GcReason::from_raw(r.u32("GCStart.Reason")?);
            return Ok(GcStart {
                count,
                depth: None,
                reason,
                gc_type: None,
                clr_instance_id: None,
                client_sequence_number: None,
            });
        }
        let depth = r.u32("GCStart.Depth")?;
        let reason = GcReason::from_raw(r.u32("GCStart.Reason")?);
        let gc_type = GcType::from_raw(r.u32("GCStart.Type")?);
        let clr_instance_id = if version >= 1 {
            Some(r.u16("GCStart.ClrInstanceID")?)
        } else {
            r.opt_u16("GCStart.ClrInstanceID")?
        };
        let client_sequence_number = if version >= 2 {
            Some(r.u64("GCStart.ClientSequenceNumber")?)
        } else {
            None
        };
        Ok(GcStart {
            count,
            depth: Some(depth),
            reason,
            gc_type: Some(gc_type),
            clr_instance_id,
            client_sequence_number,
        })
    }
}

/// GCEnd (id 2): a collection ends.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcEnd {
    pub count: u32,
    /// Condemned generation.
    pub depth: u32,
    /// Version 1+.
    pub clr_instance_id: Option<u16>,
}

impl GcEnd {
    /// v0 = Count u32, Depth **u16** (6 bytes); v1 = Count, Depth u32, ClrInstanceID (10).
    pub fn parse(payload: &[u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let count = r.u32("GCEnd.Count")?;
        if version == 0 {
            let depth = u32::from(r.u16("GCEnd.Depth")?);
            return Ok(GcEnd {
                count,
                depth,
                clr_instance_id: None,
            });
        }
        Ok(GcEnd {
            count,
            depth: r.u32("GCEnd.Depth")?,
            clr_instance_id: Some(r.u16("GCEnd.ClrInstanceID")?),
        })
    }
}

/// The events whose only field is ClrInstanceID (from version 1 on; version 0 is empty):
/// GCRestartEEEnd, GCRestartEEBegin, GCSuspendEEEnd, GCFinalizersBegin,
/// GCCreate/TerminateConcurrentThread and the private BGC phase markers.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GcNoUserData {
    pub clr_instance_id: Option<u16>,
}

impl GcNoUserData {
    pub fn parse(payload: &[u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let clr_instance_id = if version >= 1 {
            Some(r.u16("ClrInstanceID")?)
        } else {
            r.opt_u16("ClrInstanceID")?
        };
        Ok(GcNoUserData { clr_instance_id })
    }
}

/// GCSuspendEEBegin (id 9): the runtime starts suspending managed threads.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcSuspendEeBegin {
    pub reason: GcSuspendEeReason,
    /// The GC count the suspension is for; 0xFFFFFFFF (TraceEvent shows -1) when not for a GC.
    /// Version 1+.
    pub count: Option<u32>,
    pub clr_instance_id: Option<u16>,
}

impl GcSuspendEeBegin {
    /// v0 = Reason **u16** (2 bytes); v1 = Reason u32, Count u32, ClrInstanceID (10).
    pub fn parse(payload: &[u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        if version == 0 {
            let reason = GcSuspendEeReason::from_raw(u32::from(r.u16("GCSuspendEE.Reason")?));
            return Ok(GcSuspendEeBegin {
                reason,
                count: None,
                clr_instance_id: None,
            });
        }
        Ok(GcSuspendEeBegin {
            reason: GcSuspendEeReason::from_raw(r.u32("GCSuspendEE.Reason")?),
            count: Some(r.u32("GCSuspendEE.Count")?),
            clr_instance_id: Some(r.u16("GCSuspendEE.ClrInstanceID")?),
        })
    }
}

/// GCTriggered (id 35): the thread that triggered a GC, just before GCStart.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcTriggered {
    pub reason: GcReason,
    pub clr_instance_id: u16,
}

impl GcTriggered {
    /// v0 = Reason u32, ClrInstanceID u16 (6 bytes).
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(GcTriggered {
            reason: GcReason::from_raw(r.u32("GCTriggered.Reason")?),
            clr_instance_id: r.u16("GCTriggered.ClrInstanceID")?,
        })
    }
}

/// GCFinalizersEnd (id 13): the finalizer thread finished a batch.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GcFinalizersEnd {
    /// Number of objects finalized.
    pub count: u32,
    pub clr_instance_id: Option<u16>,
}

impl GcFinalizersEnd {
    /// v0 = Count u32 (4 bytes); v1 = Count, ClrInstanceID (6).
    pub fn parse(payload: &[u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let count = r.u32("GCFinalizersEnd.Count")?;
        let clr_instance_id = if version >= 1 {
            Some(r.u16("GCFinalizersEnd.ClrInstanceID")?)
        } else {
            None
        };
        Ok(GcFinalizersEnd {
            count,
            clr_instance_id,
        })
    }
}

/// FinalizeObject (id 29) / private PrvFinalizeObject (id 192): the finalizer thread is about to
/// run an object's finalizer.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcFinalizeObject<'a> {
    /// MethodTable of the object.
    pub type_id: u64,
    pub object_id: u64,
    pub clr_instance_id: u16,
    /// Private provider only (the public event has no name: resolve `type_id` via BulkType).
    pub type_name: Option<Utf16Str<'a>>,
}

impl<'a> GcFinalizeObject<'a> {
    /// ptr TypeID, ptr ObjectID, u16 ClrInstanceID [, private: UTF-16 TypeName].
    pub fn parse(
        payload: &'a [u8],
        with_type_name: bool,
        _version: u32,
        pointer_size: u8,
    ) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(GcFinalizeObject {
            type_id: r.ptr("FinalizeObject.TypeID")?,
            object_id: r.ptr("FinalizeObject.ObjectID")?,
            clr_instance_id: r.u16("FinalizeObject.ClrInstanceID")?,
            type_name: if with_type_name {
                Some(r.utf16z("FinalizeObject.TypeName")?)
            } else {
                None
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clr::payload::PayloadErrorKind;

    #[test]
    fn gc_start_versions() {
        // v2: 0 Count=7, 4 Depth=1, 8 Reason=4 (AllocLarge), 12 Type=1 (BGC), 16 ClrInstanceID=3,
        // 18 ClientSequenceNumber=0x1122334455667788.
        let mut p = [0u8; 26];
        p[0] = 7;
        p[4] = 1;
        p[8] = 4;
        p[12] = 1;
        p[16] = 3;
        p[18..26].copy_from_slice(&0x1122_3344_5566_7788u64.to_le_bytes());
        let s = GcStart::parse(&p, 2, 8).unwrap();
        assert_eq!(s.count, 7);
        assert_eq!(s.depth, Some(1));
        assert_eq!(s.reason, GcReason::AllocLarge);
        assert_eq!(s.gc_type, Some(GcType::Background));
        assert_eq!(s.clr_instance_id, Some(3));
        assert_eq!(s.client_sequence_number, Some(0x1122_3344_5566_7788));
        // v1 is the first 18 bytes; a longer v1 (future tail) still decodes.
        let s1 = GcStart::parse(&p[..18], 1, 8).unwrap();
        assert_eq!(s1.client_sequence_number, None);
        assert_eq!(s1.clr_instance_id, Some(3));
        assert_eq!(GcStart::parse(&p, 1, 8).unwrap(), s1);
        // Too short: the error names the field and its offset.
        let e = GcStart::parse(&p[..20], 2, 8).unwrap_err();
        assert_eq!(e.offset, 18);
        assert_eq!(
            e.kind,
            PayloadErrorKind::Truncated {
                field: "GCStart.ClientSequenceNumber"
            }
        );
        // v0: Count, Reason.
        let v0 = [2u8, 0, 0, 0, 1, 0, 0, 0];
        let s0 = GcStart::parse(&v0, 0, 4).unwrap();
        assert_eq!(
            (s0.count, s0.reason, s0.depth),
            (2, GcReason::Induced, None)
        );
        // v0 carrying the v1 layout (>= 16 bytes).
        let s0b = GcStart::parse(&p[..18], 0, 8).unwrap();
        assert_eq!(s0b.depth, Some(1));
        assert_eq!(s0b.reason, GcReason::AllocLarge);
        assert!(GcStart::parse(&v0[..6], 0, 8).is_err());
    }

    #[test]
    fn gc_end_versions() {
        // v0: Count u32 = 5, Depth u16 = 2.
        let e0 = GcEnd::parse(&[5, 0, 0, 0, 2, 0], 0, 8).unwrap();
        assert_eq!((e0.count, e0.depth, e0.clr_instance_id), (5, 2, None));
        // v1: Count, Depth u32 = 1, ClrInstanceID = 9.
        let e1 = GcEnd::parse(&[5, 0, 0, 0, 1, 0, 0, 0, 9, 0], 1, 8).unwrap();
        assert_eq!((e1.count, e1.depth, e1.clr_instance_id), (5, 1, Some(9)));
        assert_eq!(
            GcEnd::parse(&[5, 0, 0, 0, 1, 0, 0, 0, 9], 1, 8)
                .unwrap_err()
                .offset,
            8
        );
    }

    #[test]
    fn finalize_object() {
        let mut p = alloc::vec::Vec::new();
        p.extend_from_slice(&0x5651_7547_8628u64.to_le_bytes());
        p.extend_from_slice(&0x7F51_6644_5EB8u64.to_le_bytes());
        p.extend_from_slice(&0u16.to_le_bytes());
        let f = GcFinalizeObject::parse(&p, false, 0, 8).unwrap();
        assert_eq!(
            (f.type_id, f.object_id, f.clr_instance_id),
            (0x5651_7547_8628, 0x7F51_6644_5EB8, 0)
        );
        assert_eq!(f.type_name, None);
        // Private: a UTF-16 TypeName follows.
        p.extend("Foo".encode_utf16().flat_map(|u| u.to_le_bytes()));
        p.extend_from_slice(&[0, 0]);
        let f = GcFinalizeObject::parse(&p, true, 0, 8).unwrap();
        assert!(f.type_name.unwrap().eq_str("Foo"));
        assert_eq!(
            GcFinalizeObject::parse(&p[..17], false, 0, 8)
                .unwrap_err()
                .offset,
            16
        );
    }

    #[test]
    fn suspend_and_small_events() {
        // SuspendEEBegin v1: Reason=1 (ForGC), Count=0xFFFFFFFF, ClrInstanceID=3.
        let p = [1u8, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 3, 0];
        let s = GcSuspendEeBegin::parse(&p, 1, 8).unwrap();
        assert_eq!(s.reason, GcSuspendEeReason::ForGc);
        assert_eq!(s.count, Some(u32::MAX));
        assert_eq!(s.clr_instance_id, Some(3));
        // v0: Reason u16 = 6.
        let s0 = GcSuspendEeBegin::parse(&[6, 0], 0, 8).unwrap();
        assert_eq!(s0.reason, GcSuspendEeReason::ForGcPrep);
        assert!(GcSuspendEeBegin::parse(&[6], 0, 8).is_err());

        assert_eq!(
            GcNoUserData::parse(&[], 0, 8).unwrap().clr_instance_id,
            None
        );
        assert_eq!(
            GcNoUserData::parse(&[4, 0], 1, 8).unwrap().clr_instance_id,
            Some(4)
        );
        assert!(GcNoUserData::parse(&[4], 1, 8).is_err());

        let t = GcTriggered::parse(&[10, 0, 0, 0, 3, 0], 0, 8).unwrap();
        assert_eq!(t.reason, GcReason::InducedCompacting);
        assert_eq!(t.clr_instance_id, 3);
        assert!(GcTriggered::parse(&[10, 0, 0, 0, 3], 0, 8).is_err());

        let f = GcFinalizersEnd::parse(&[3, 1, 0, 0, 3, 0], 1, 8).unwrap();
        assert_eq!((f.count, f.clr_instance_id), (259, Some(3)));
        assert_eq!(
            GcFinalizersEnd::parse(&[3, 1, 0, 0], 0, 8)
                .unwrap()
                .clr_instance_id,
            None
        );
    }
}
