//! Per-heap detail events of .NET 6+: LOH compaction timing (GCLOHCompact) and free-list / plug
//! size buckets (GCFitBucketInfo). Their element arrays are copied raw from native structs, so
//! they include C struct padding.

use crate::clr::enums::GcBucketKind;
use crate::clr::payload::{PResult, PayloadCursor, PayloadError};

/// GCLOHCompact (id 208): LOH compaction, one element per heap.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcLohCompact<'a> {
    pub clr_instance_id: u16,
    /// Number of elements (heaps).
    pub count: u16,
    /// Serialized as the list of [`LohCompactHeap`].
    #[serde(rename = "heaps")]
    values: LohHeaps<'a>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LohHeaps<'a> {
    bytes: &'a [u8],
    pointer_size: u8,
}

impl<'a> LohHeaps<'a> {
    fn iter(self) -> impl Iterator<Item = LohCompactHeap> + 'a {
        let ptr = self.pointer_size;
        self.bytes
            .chunks_exact(GcLohCompact::stride(ptr))
            .map_while(move |c| {
                let mut r = PayloadCursor::new(c, ptr).ok()?;
                let time_plan = r.u32("TimePlan").ok()?;
                let time_compact = r.u32("TimeCompact").ok()?;
                let time_relocate = r.u32("TimeRelocate").ok()?;
                if ptr == 8 {
                    r.u32("padding").ok()?;
                }
                Some(LohCompactHeap {
                    time_plan,
                    time_compact,
                    time_relocate,
                    total_refs: r.ptr("TotalRefs").ok()?,
                    zero_refs: r.ptr("ZeroRefs").ok()?,
                })
            })
    }
}

impl serde::Serialize for LohHeaps<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// One heap's LOH compaction record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LohCompactHeap {
    pub time_plan: u32,
    pub time_compact: u32,
    pub time_relocate: u32,
    pub total_refs: u64,
    pub zero_refs: u64,
}

impl<'a> GcLohCompact<'a> {
    /// Element stride: 3 × u32, then the pointer-aligned pointers (4 bytes padding on x64):
    /// 32 bytes on x64, 20 on x86.
    pub fn stride(pointer_size: u8) -> usize {
        if pointer_size == 8 {
            32
        } else {
            20
        }
    }

    /// 0 u16 ClrInstanceID, 2 u16 Count, 4 Count × element.
    pub fn parse(payload: &'a [u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let clr_instance_id = r.u16("GCLOHCompact.ClrInstanceID")?;
        let count = r.u16("GCLOHCompact.Count")?;
        let values = r.bytes(
            usize::from(count) * Self::stride(pointer_size),
            "GCLOHCompact.Values",
        )?;
        Ok(GcLohCompact {
            clr_instance_id,
            count,
            values: LohHeaps {
                bytes: values,
                pointer_size,
            },
        })
    }

    pub fn heaps(&self) -> impl Iterator<Item = LohCompactHeap> + 'a {
        self.values.iter()
    }
}

/// GCFitBucketInfo (id 209): size buckets of free-list items or plugs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcFitBucketInfo<'a> {
    pub clr_instance_id: u16,
    pub bucket_kind: GcBucketKind,
    /// Bytes.
    pub total_size: u64,
    pub count: u16,
    /// Serialized as the list of [`FitBucket`].
    #[serde(rename = "buckets")]
    values: FitBuckets<'a>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FitBuckets<'a> {
    bytes: &'a [u8],
    pointer_size: u8,
}

impl<'a> FitBuckets<'a> {
    fn iter(self) -> impl Iterator<Item = FitBucket> + 'a {
        let ptr = self.pointer_size;
        self.bytes
            .chunks_exact(GcFitBucketInfo::stride(ptr))
            .map_while(move |c| {
                let mut r = PayloadCursor::new(c, ptr).ok()?;
                // Index is a u16 followed by 2 bytes of (uninitialised) padding.
                let index = r.u16("Index").ok()?;
                r.u16("padding").ok()?;
                Some(FitBucket {
                    index,
                    count: r.u32("Count").ok()?,
                    size: r.ptr("Size").ok()?,
                })
            })
    }
}

impl serde::Serialize for FitBuckets<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// One bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct FitBucket {
    /// Bucket index (size class).
    pub index: u16,
    /// Items in the bucket.
    pub count: u32,
    /// Bytes in the bucket.
    pub size: u64,
}

impl<'a> GcFitBucketInfo<'a> {
    /// Element stride: u16 Index, 2 bytes padding, u32 Count, ptr Size: 16 on x64, 12 on x86.
    pub fn stride(pointer_size: u8) -> usize {
        8 + usize::from(pointer_size)
    }

    /// 0 u16 ClrInstanceID, 2 u16 BucketKind, 4 u64 TotalSize, 12 u16 Count, 14 Count × element.
    pub fn parse(payload: &'a [u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let clr_instance_id = r.u16("GCFitBucketInfo.ClrInstanceID")?;
        let bucket_kind = GcBucketKind::from_raw(r.u16("GCFitBucketInfo.BucketKind")?);
        let total_size = r.u64("GCFitBucketInfo.TotalSize")?;
        let count = r.u16("GCFitBucketInfo.Count")?;
        let len = usize::from(count)
            .checked_mul(Self::stride(pointer_size))
            .ok_or_else(|| PayloadError::truncated(r.pos(), "GCFitBucketInfo.Values"))?;
        let values = r.bytes(len, "GCFitBucketInfo.Values")?;
        Ok(GcFitBucketInfo {
            clr_instance_id,
            bucket_kind,
            total_size,
            count,
            values: FitBuckets {
                bytes: values,
                pointer_size,
            },
        })
    }

    pub fn buckets(&self) -> impl Iterator<Item = FitBucket> + 'a {
        self.values.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn loh_compact_strides() {
        for ptr in [8u8, 4] {
            let mut p = Vec::new();
            p.extend_from_slice(&5u16.to_le_bytes());
            p.extend_from_slice(&2u16.to_le_bytes());
            for h in 0..2u32 {
                p.extend_from_slice(&(10 + h).to_le_bytes());
                p.extend_from_slice(&(20 + h).to_le_bytes());
                p.extend_from_slice(&(30 + h).to_le_bytes());
                if ptr == 8 {
                    p.extend_from_slice(&[0xEE; 4]); // padding
                    p.extend_from_slice(&(400 + u64::from(h)).to_le_bytes());
                    p.extend_from_slice(&(500 + u64::from(h)).to_le_bytes());
                } else {
                    p.extend_from_slice(&(400 + h).to_le_bytes());
                    p.extend_from_slice(&(500 + h).to_le_bytes());
                }
            }
            assert_eq!(p.len(), 4 + 2 * GcLohCompact::stride(ptr));
            let c = GcLohCompact::parse(&p, 0, ptr).unwrap();
            assert_eq!((c.clr_instance_id, c.count), (5, 2));
            let heaps: Vec<_> = c.heaps().collect();
            assert_eq!(heaps.len(), 2);
            assert_eq!(
                heaps[1],
                LohCompactHeap {
                    time_plan: 11,
                    time_compact: 21,
                    time_relocate: 31,
                    total_refs: 401,
                    zero_refs: 501
                }
            );
            assert_eq!(
                GcLohCompact::parse(&p[..p.len() - 1], 0, ptr)
                    .unwrap_err()
                    .offset,
                4
            );
        }
    }

    #[test]
    fn fit_bucket_strides() {
        for ptr in [8u8, 4] {
            let mut p = Vec::new();
            p.extend_from_slice(&5u16.to_le_bytes());
            p.extend_from_slice(&1u16.to_le_bytes()); // PlugsInCondemned
            p.extend_from_slice(&4096u64.to_le_bytes());
            p.extend_from_slice(&2u16.to_le_bytes());
            for b in 0..2u16 {
                p.extend_from_slice(&(7 + b).to_le_bytes());
                p.extend_from_slice(&[0xCD, 0xCD]); // padding
                p.extend_from_slice(&(3 + u32::from(b)).to_le_bytes());
                if ptr == 8 {
                    p.extend_from_slice(&(2048 + u64::from(b)).to_le_bytes());
                } else {
                    p.extend_from_slice(&(2048 + u32::from(b)).to_le_bytes());
                }
            }
            assert_eq!(p.len(), 14 + 2 * GcFitBucketInfo::stride(ptr));
            let f = GcFitBucketInfo::parse(&p, 0, ptr).unwrap();
            assert_eq!(f.bucket_kind, GcBucketKind::PlugsInCondemned);
            assert_eq!((f.total_size, f.count), (4096, 2));
            let b: Vec<_> = f.buckets().collect();
            assert_eq!(
                b,
                [
                    FitBucket {
                        index: 7,
                        count: 3,
                        size: 2048
                    },
                    FitBucket {
                        index: 8,
                        count: 4,
                        size: 2049
                    }
                ]
            );
            assert!(GcFitBucketInfo::parse(&p[..p.len() - 1], 0, ptr).is_err());
        }
    }
}
