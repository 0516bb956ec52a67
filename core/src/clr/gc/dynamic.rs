//! GCDynamicEvent (id 39, .NET 7+): a named blob the GC uses for events added without a manifest
//! change. The blob starts with its own u16 version, then packed fields.

use crate::clr::payload::{PResult, PayloadError, Reader, Utf16Str};

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

/// The dynamic payloads we understand.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum DynamicPayload {
    CommittedUsage(CommittedUsage),
    /// A name we do not decode (or a known name with a blob too short for its layout).
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
        let mut r = Reader::new(data, 8)?;
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

impl<'a> GcDynamicEvent<'a> {
    pub fn parse(payload: &'a [u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = Reader::new(payload, pointer_size)?;
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

    /// Decodes the blob by name. Errors in a known layout are reported with offsets relative to
    /// the blob.
    pub fn payload(&self) -> PResult<DynamicPayload> {
        if self.name.eq_str("CommittedUsage") {
            return CommittedUsage::parse(self.data).map(DynamicPayload::CommittedUsage);
        }
        Ok(DynamicPayload::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn dynamic(name: &str, data: &[u8]) -> Vec<u8> {
        let mut p: Vec<u8> = name.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        p.extend_from_slice(&[0, 0]);
        p.extend_from_slice(&(data.len() as u32).to_le_bytes());
        p.extend_from_slice(data);
        p.extend_from_slice(&8u16.to_le_bytes());
        p
    }

    #[test]
    fn committed_usage() {
        let mut d = Vec::new();
        d.extend_from_slice(&1u16.to_le_bytes());
        for v in [1000u64, 20, 300, 4, 50] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(d.len(), 42);
        let p = dynamic("CommittedUsage", &d);
        let e = GcDynamicEvent::parse(&p, 0, 8).unwrap();
        assert!(e.name.eq_str("CommittedUsage"));
        assert_eq!(e.data.len(), 42);
        assert_eq!(e.clr_instance_id, 8);
        let DynamicPayload::CommittedUsage(c) = e.payload().unwrap() else {
            panic!("not CommittedUsage");
        };
        assert_eq!(c.version, 1);
        assert_eq!(c.total_committed_in_use, 1000);
        assert_eq!(c.total_committed_in_global_decommit, 20);
        assert_eq!(c.total_committed_in_free, 300);
        assert_eq!(c.total_committed_in_global_free, 4);
        assert_eq!(c.total_bookkeeping_committed, 50);
        assert_eq!(c.total(), 1374);
        // A blob too short for the layout is an error in the blob, not a panic.
        let short = dynamic("CommittedUsage", &d[..41]);
        let e = GcDynamicEvent::parse(&short, 0, 8).unwrap();
        assert_eq!(e.payload().unwrap_err().offset, 34);
    }

    #[test]
    fn other_names_and_bounds() {
        let p = dynamic("SizeAdaptationSample", &[1, 0, 9, 9]);
        let e = GcDynamicEvent::parse(&p, 0, 8).unwrap();
        assert_eq!(e.payload().unwrap(), DynamicPayload::Other);
        assert_eq!(e.data, &[1, 0, 9, 9]);
        // DataSize larger than the payload.
        let mut bad = p.clone();
        let at = "SizeAdaptationSample".len() * 2 + 2;
        bad[at..at + 4].copy_from_slice(&1000u32.to_le_bytes());
        assert_eq!(
            GcDynamicEvent::parse(&bad, 0, 8).unwrap_err().offset,
            at + 4
        );
        // Missing ClrInstanceID.
        assert!(GcDynamicEvent::parse(&p[..p.len() - 1], 0, 8).is_err());
    }
}
