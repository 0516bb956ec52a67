//! Allocation sampling: GCAllocationTick (every ~100 KB of allocation per heap), the
//! randomized AllocationSampled of .NET 10, and the older GCSampledObjectAllocation.

use super::type_index::{TypeIndex, TypeRef};
use crate::clr::enums::GcAllocationKind;
use crate::clr::payload::{PResult, PayloadCursor, Utf16Str};

/// GCAllocationTick (id 10), versions 0-4.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcAllocationTick<'a> {
    /// Bytes allocated since the previous tick, truncated to 32 bits (use `allocation_amount64`
    /// when present).
    pub allocation_amount: u32,
    pub kind: GcAllocationKind,
    /// Version 1+.
    pub clr_instance_id: Option<u16>,
    /// Version 2+: bytes allocated since the previous tick.
    pub allocation_amount64: Option<u64>,
    /// Version 2+: MethodTable of the object whose allocation crossed the threshold.
    pub type_id: Option<u64>,
    /// Version 2+: its type name.
    pub type_name: Option<Utf16Str<'a>>,
    /// Version 2+: the heap that allocated it (server GC).
    pub heap_index: Option<u32>,
    /// Version 3+: the object's address.
    pub address: Option<u64>,
    /// Version 4+: the object's size in bytes.
    pub object_size: Option<u64>,
}

impl<'a> GcAllocationTick<'a> {
    /// v0: u32 AllocationAmount, u32 AllocationKind; v1: + u16 ClrInstanceID; v2: + u64
    /// AllocationAmount64, ptr TypeID, UTF-16 TypeName, u32 HeapIndex; v3: + ptr Address;
    /// v4: + u64 ObjectSize.
    pub fn parse(payload: &'a [u8], version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let mut t = GcAllocationTick {
            allocation_amount: r.u32("GCAllocationTick.AllocationAmount")?,
            kind: GcAllocationKind::from_raw(r.u32("GCAllocationTick.AllocationKind")?),
            clr_instance_id: None,
            allocation_amount64: None,
            type_id: None,
            type_name: None,
            heap_index: None,
            address: None,
            object_size: None,
        };
        if version >= 1 {
            t.clr_instance_id = Some(r.u16("GCAllocationTick.ClrInstanceID")?);
        }
        if version >= 2 {
            t.allocation_amount64 = Some(r.u64("GCAllocationTick.AllocationAmount64")?);
            t.type_id = Some(r.ptr("GCAllocationTick.TypeID")?);
            t.type_name = Some(r.utf16z("GCAllocationTick.TypeName")?);
            t.heap_index = Some(r.u32("GCAllocationTick.HeapIndex")?);
        }
        if version >= 3 {
            t.address = Some(r.ptr("GCAllocationTick.Address")?);
        }
        if version >= 4 {
            t.object_size = Some(r.u64("GCAllocationTick.ObjectSize")?);
        }
        Ok(t)
    }

    /// Bytes allocated since the previous tick, 64-bit when the payload has it.
    pub fn amount(&self) -> u64 {
        self.allocation_amount64
            .unwrap_or(u64::from(self.allocation_amount))
    }
}

/// What the GC model and its insights read of a GCAllocationTick, decoded where its block was
/// decoded: a part of the file on another thread ([`crate::parts`]) makes it, so the merging
/// thread, which every event goes through in order, does not decode the payload again: ticks are
/// most of a GC trace's events (docs/performance-log/journal.md, "Allocation ticks decoded in the
/// parts").
///
/// Made only where decoding gives exactly this and the model notes nothing else: the payload
/// decodes and is no longer than its layout (longer ones carry fields the model keeps raw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TickDigest {
    /// [`GcAllocationTick::amount`].
    pub amount: u64,
    /// The raw AllocationKind.
    pub kind: u32,
    pub heap_index: Option<u32>,
    /// Version 2+: the type name's bytes, `len` of them at its fixed offset (see
    /// [`type_name`](Self::type_name)).
    pub type_name_len: Option<u32>,
    /// That name in a table of names, where a part or the merge interned it (see [`TypeRef`]).
    pub type_ref: TypeRef,
}

impl TickDigest {
    /// The digest of a GCAllocationTick payload, or None where it does not decode or is longer
    /// than its layout (then decode it as any event).
    pub fn of(payload: &[u8], version: u32, pointer_size: u8) -> Option<TickDigest> {
        Self::of_known(payload, version, pointer_size, |_| None).map(|(d, _)| d)
    }

    /// [`of`](Self::of), asking `known` first whether the type name is one it has seen (and which):
    /// a name equal to one made here before has no zero unit either, so only a new name is checked
    /// for one (most ticks repeat a few types, and the check is a pass over every byte of the
    /// name). `known` is asked only about names that fill their place in the layout exactly.
    pub fn of_known(
        payload: &[u8],
        version: u32,
        pointer_size: u8,
        known: impl FnOnce(&[u8]) -> Option<u32>,
    ) -> Option<(TickDigest, Option<u32>)> {
        // The fields at their offsets: the layout of [`GcAllocationTick::parse`], checked whole
        // once (a digest is made for every tick of a trace, on the parts' threads, where the
        // general reader would check each field and then walk the layout a second time).
        let ptr = usize::from(pointer_size);
        if ptr != 4 && ptr != 8 {
            return None;
        }
        let u32_at = |at: usize| -> Option<u32> {
            Some(u32::from_le_bytes(
                payload.get(at..at + 4)?.try_into().ok()?,
            ))
        };
        let amount32 = u32_at(0)?;
        let kind = u32_at(4)?;
        if version < 2 {
            // AllocationAmount, AllocationKind (+ ClrInstanceID from version 1).
            let len = if version == 0 { 8 } else { 10 };
            return (payload.len() == len).then_some((
                TickDigest {
                    amount: u64::from(amount32),
                    kind,
                    heap_index: None,
                    type_name_len: None,
                    type_ref: TypeRef::NONE,
                },
                None,
            ));
        }
        let amount = u64::from_le_bytes(payload.get(10..18)?.try_into().ok()?);
        let name_start = Self::name_start(pointer_size);
        // HeapIndex, then Address (version 3+) and ObjectSize (version 4+).
        let tail = 4 + if version >= 3 { ptr } else { 0 } + if version >= 4 { 8 } else { 0 };
        // The name is the only field of variable length, so the payload's length says where it
        // must end; the general reader's result (the first zero unit ends it, and the layout must
        // then fill the payload exactly) is this name where it has no zero unit before its end.
        let name_len = payload.len().checked_sub(name_start + 2 + tail)?;
        let heap_at = name_start + name_len + 2;
        let name = payload.get(name_start..name_start + name_len)?;
        if name_len % 2 != 0 || payload.get(heap_at - 2..heap_at)? != [0, 0] {
            return None;
        }
        let heap_index = Some(u32_at(heap_at)?);
        let seen = known(name);
        if seen.is_none() && has_zero_unit(name) {
            return None;
        }
        let digest = TickDigest {
            amount,
            kind,
            heap_index,
            type_name_len: Some(name_len as u32),
            type_ref: TypeRef::NONE,
        };
        Some((digest, seen))
    }

    /// [`of`](Self::of), with the type's name interned in `types` (a part's table: the digest
    /// refers to it with [`TypeRef::part`]). The name is hashed here, on the part's thread, and the
    /// zero-unit check of a name seen before is skipped as in [`of_known`](Self::of_known).
    pub fn of_interned(
        payload: &[u8],
        version: u32,
        pointer_size: u8,
        types: &mut TypeIndex,
    ) -> Option<TickDigest> {
        let (mut d, seen) = Self::of_known(payload, version, pointer_size, |n| types.find(n))?;
        d.type_ref = match seen {
            Some(i) => TypeRef::part(i),
            None => match d.type_name(payload, pointer_size) {
                Some(name) => TypeRef::part(types.index(name.0).0),
                None => TypeRef::NONE,
            },
        };
        Some(d)
    }

    /// Where version 2's TypeName starts: after AllocationAmount, AllocationKind, ClrInstanceID,
    /// AllocationAmount64 and TypeID.
    fn name_start(pointer_size: u8) -> usize {
        4 + 4 + 2 + 8 + usize::from(pointer_size)
    }

    /// The type name in `payload` (the one the digest was made of); None before version 2 or if
    /// `payload` is not that long.
    pub fn type_name<'a>(&self, payload: &'a [u8], pointer_size: u8) -> Option<Utf16Str<'a>> {
        let start = Self::name_start(pointer_size);
        let end = start.checked_add(self.type_name_len? as usize)?;
        payload.get(start..end).map(Utf16Str)
    }
}

/// Whether the UTF-16 code units of `name` (an even number of bytes) include a zero one. Every
/// allocation tick's type name is checked so: four units a word with no early exit, which the
/// compiler turns into vector code (SIMD natively and in wasm), where a scan for the first zero
/// unit stops at every word (docs/performance-log/journal.md, "Type names checked once per type").
fn has_zero_unit(name: &[u8]) -> bool {
    const ONES: u64 = 0x0001_0001_0001_0001;
    const HIGHS: u64 = 0x8000_8000_8000_8000;
    let words = name.chunks_exact(8);
    let rest = words.remainder();
    // A unit's HIGHS bit is set here only if some unit of the word is zero (a borrow starts only
    // at a zero unit, and a unit with its own high bit set cannot flag itself).
    let flags = words.fold(0u64, |acc, w| {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let x = u64::from_le_bytes(b);
        acc | (x.wrapping_sub(ONES) & !x & HIGHS)
    });
    flags != 0 || rest.chunks_exact(2).any(|u| u == [0, 0])
}

/// AllocationSampled (id 303, .NET 10, keyword AllocationSampling): a randomly sampled allocation
/// (replaces GCAllocationTick when that keyword is on).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AllocationSampled<'a> {
    pub kind: GcAllocationKind,
    pub clr_instance_id: u16,
    pub type_id: u64,
    pub type_name: Utf16Str<'a>,
    pub address: u64,
    /// Bytes.
    pub object_size: u64,
    /// Bytes between the sampling threshold and the start of this object.
    pub sampled_byte_offset: u64,
}

impl<'a> AllocationSampled<'a> {
    /// 0 u32 AllocationKind, 4 u16 ClrInstanceID, 6 ptr TypeID, UTF-16 TypeName, ptr Address,
    /// u64 ObjectSize, u64 SampledByteOffset.
    pub fn parse(payload: &'a [u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(AllocationSampled {
            kind: GcAllocationKind::from_raw(r.u32("AllocationSampled.AllocationKind")?),
            clr_instance_id: r.u16("AllocationSampled.ClrInstanceID")?,
            type_id: r.ptr("AllocationSampled.TypeID")?,
            type_name: r.utf16z("AllocationSampled.TypeName")?,
            address: r.ptr("AllocationSampled.Address")?,
            object_size: r.u64("AllocationSampled.ObjectSize")?,
            sampled_byte_offset: r.u64("AllocationSampled.SampledByteOffset")?,
        })
    }
}

/// GCSampledObjectAllocationHigh / Low (ids 20 / 32): objects of one type allocated since the
/// previous sample of that type.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GcSampledObjectAllocation {
    pub address: u64,
    pub type_id: u64,
    pub object_count_for_type_sample: u32,
    /// Bytes.
    pub total_size_for_type_sample: u64,
    pub clr_instance_id: u16,
}

impl GcSampledObjectAllocation {
    /// ptr Address, ptr TypeID, u32 ObjectCountForTypeSample, u64 TotalSizeForTypeSample,
    /// u16 ClrInstanceID.
    pub fn parse(payload: &[u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        Ok(GcSampledObjectAllocation {
            address: r.ptr("GCSampledObjectAllocation.Address")?,
            type_id: r.ptr("GCSampledObjectAllocation.TypeID")?,
            object_count_for_type_sample: r.u32("GCSampledObjectAllocation.ObjectCount")?,
            total_size_for_type_sample: r.u64("GCSampledObjectAllocation.TotalSize")?,
            clr_instance_id: r.u16("GCSampledObjectAllocation.ClrInstanceID")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn utf16z(s: &str) -> Vec<u8> {
        let mut v: Vec<u8> = s.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        v.extend_from_slice(&[0, 0]);
        v
    }

    /// Version 4 on x64 with the 3.0 baseline's first values (+ an ObjectSize).
    fn tick_v4(ptr: u8) -> Vec<u8> {
        let mut p = Vec::new();
        p.extend_from_slice(&0x196A0u32.to_le_bytes()); // 0 AllocationAmount
        p.extend_from_slice(&0u32.to_le_bytes()); // 4 AllocationKind Small
        p.extend_from_slice(&3u16.to_le_bytes()); // 8 ClrInstanceID
        p.extend_from_slice(&104_096u64.to_le_bytes()); // 10 AllocationAmount64
        let type_id = 0x0000_7FFE_A911_EA28u64;
        let address = 0x0000_019A_0001_7FE8u64;
        if ptr == 8 {
            p.extend_from_slice(&type_id.to_le_bytes()); // 18 TypeID
        } else {
            p.extend_from_slice(&(type_id as u32).to_le_bytes());
        }
        p.extend_from_slice(&utf16z("System.Object[]")); // TypeName
        p.extend_from_slice(&0u32.to_le_bytes()); // HeapIndex
        if ptr == 8 {
            p.extend_from_slice(&address.to_le_bytes()); // Address
        } else {
            p.extend_from_slice(&(address as u32).to_le_bytes());
        }
        p.extend_from_slice(&48u64.to_le_bytes()); // ObjectSize
        p
    }

    #[test]
    fn allocation_tick_v4_and_earlier() {
        let p = tick_v4(8);
        let t = GcAllocationTick::parse(&p, 4, 8).unwrap();
        assert_eq!(t.allocation_amount, 0x196A0);
        assert_eq!(t.kind, GcAllocationKind::Small);
        assert_eq!(t.clr_instance_id, Some(3));
        assert_eq!(t.allocation_amount64, Some(104_096));
        assert_eq!(t.amount(), 104_096);
        assert_eq!(t.type_id, Some(0x0000_7FFE_A911_EA28));
        assert!(t.type_name.unwrap().eq_str("System.Object[]"));
        assert_eq!(t.heap_index, Some(0));
        assert_eq!(t.address, Some(0x0000_019A_0001_7FE8));
        assert_eq!(t.object_size, Some(48));
        // Version 3 reads the same bytes and ignores the ObjectSize tail.
        let t3 = GcAllocationTick::parse(&p, 3, 8).unwrap();
        assert_eq!(t3.address, t.address);
        assert_eq!(t3.object_size, None);
        // Version 4 cut inside ObjectSize.
        let e = GcAllocationTick::parse(&p[..p.len() - 1], 4, 8).unwrap_err();
        assert_eq!(e.offset, p.len() - 8);
        // Version 1 / 0.
        let t1 = GcAllocationTick::parse(&p[..10], 1, 8).unwrap();
        assert_eq!((t1.clr_instance_id, t1.type_name), (Some(3), None));
        assert_eq!(t1.amount(), 0x196A0);
        let t0 = GcAllocationTick::parse(&p[..8], 0, 8).unwrap();
        assert_eq!(t0.clr_instance_id, None);
        // An unterminated TypeName is an error, never a panic.
        assert!(GcAllocationTick::parse(&p[..30], 2, 8).is_err());
    }

    #[test]
    fn allocation_sampled_and_sampled_object_allocation() {
        let mut p = Vec::new();
        p.extend_from_slice(&1u32.to_le_bytes()); // Large
        p.extend_from_slice(&7u16.to_le_bytes());
        p.extend_from_slice(&0x1111u64.to_le_bytes());
        p.extend_from_slice(&utf16z("System.Byte[]"));
        p.extend_from_slice(&0x2222u64.to_le_bytes());
        p.extend_from_slice(&90_000u64.to_le_bytes());
        p.extend_from_slice(&123u64.to_le_bytes());
        let a = AllocationSampled::parse(&p, 0, 8).unwrap();
        assert_eq!(a.kind, GcAllocationKind::Large);
        assert_eq!(
            (a.clr_instance_id, a.type_id, a.address),
            (7, 0x1111, 0x2222)
        );
        assert!(a.type_name.eq_str("System.Byte[]"));
        assert_eq!((a.object_size, a.sampled_byte_offset), (90_000, 123));
        assert_eq!(
            AllocationSampled::parse(&p[..p.len() - 1], 0, 8)
                .unwrap_err()
                .offset,
            p.len() - 8
        );

        // x86: 4 + 4 + 4 + 8 + 2 = 22 bytes.
        let mut q = Vec::new();
        q.extend_from_slice(&0x10u32.to_le_bytes());
        q.extend_from_slice(&0x20u32.to_le_bytes());
        q.extend_from_slice(&3u32.to_le_bytes());
        q.extend_from_slice(&72u64.to_le_bytes());
        q.extend_from_slice(&5u16.to_le_bytes());
        let s = GcSampledObjectAllocation::parse(&q, 0, 4).unwrap();
        assert_eq!(
            (
                s.address,
                s.type_id,
                s.object_count_for_type_sample,
                s.total_size_for_type_sample,
                s.clr_instance_id
            ),
            (0x10, 0x20, 3, 72, 5)
        );
        assert!(GcSampledObjectAllocation::parse(&q, 0, 8).is_err());
    }

    #[test]
    fn allocation_tick_x86() {
        let p = tick_v4(4);
        let t = GcAllocationTick::parse(&p, 4, 4).unwrap();
        assert_eq!(t.type_id, Some(0xA911_EA28));
        assert_eq!(t.address, Some(0x0001_7FE8));
        assert_eq!(t.object_size, Some(48));
        assert_eq!(t.type_name.unwrap().to_string_lossy(), "System.Object[]");
    }
}

#[cfg(test)]
mod digest_tests {
    use super::*;
    use crate::clr::layout::layout_len;
    use crate::clr::ClrEvent;
    use alloc::vec::Vec;

    /// The digest by its definition: what the general reader decodes, where the payload is no
    /// longer than the layout it decodes to.
    fn by_definition(p: &[u8], version: u32, ptr: u8) -> Option<TickDigest> {
        let t = GcAllocationTick::parse(p, version, ptr).ok()?;
        let d = TickDigest {
            amount: t.amount(),
            kind: t.kind.raw(),
            heap_index: t.heap_index,
            type_name_len: t.type_name.map(|n| n.0.len() as u32),
            type_ref: TypeRef::NONE,
        };
        match layout_len(&ClrEvent::GcAllocationTick(t), version, ptr) {
            Some(n) if n < p.len() => None,
            _ => Some(d),
        }
    }

    /// [`TickDigest::of_known`] as the insights call it: `name` (which has no zero unit) is
    /// known, every other name is not.
    fn of_known(p: &[u8], version: u32, ptr: u8, name: &[u8]) -> Option<TickDigest> {
        let (d, seen) = TickDigest::of_known(p, version, ptr, |n| (n == name).then_some(5))?;
        // Known exactly when the digest's name is that one.
        let digest_name = d.type_name(p, ptr).map(|n| n.0);
        assert_eq!(
            seen.is_some(),
            version >= 2 && digest_name == Some(name),
            "{p:?}"
        );
        Some(d)
    }

    #[test]
    fn digests_are_what_the_general_reader_decodes_on_every_cut_and_version() {
        let mut made = 0;
        for ptr in [4u8, 8, 3] {
            for version in 0..6u32 {
                for name in [
                    &[][..],
                    &[b'A', 0, b'b', 1][..],
                    &[0x3d, 0xd8, 0x00, 0xde][..],
                    // Eleven units: two whole words and three more.
                    &[
                        b'S', 0, b'y', 0, b's', 0, b't', 0, b'e', 0, b'm', 0, b'.', 0, 0, 1, b'I',
                        0, b'n', 0, 0x20, 0xac,
                    ][..],
                ] {
                    let mut p = Vec::new();
                    p.extend_from_slice(&0x1_2345u32.to_le_bytes());
                    p.extend_from_slice(&7u32.to_le_bytes());
                    p.extend_from_slice(&9u16.to_le_bytes());
                    p.extend_from_slice(&0x1_0000_0001u64.to_le_bytes());
                    p.extend(core::iter::repeat_n(0xab, usize::from(ptr)));
                    p.extend_from_slice(name);
                    p.extend_from_slice(&[0, 0]);
                    p.extend_from_slice(&3u32.to_le_bytes());
                    p.extend(core::iter::repeat_n(0xcd, usize::from(ptr) + 8));
                    // Every length from empty to two bytes more than written, and a zero unit
                    // put at every even and odd offset.
                    for len in 0..=p.len() + 2 {
                        let mut q = p.clone();
                        q.resize(len, 0);
                        let want = by_definition(&q, version, ptr);
                        assert_eq!(TickDigest::of(&q, version, ptr), want, "v{version} {q:?}");
                        assert_eq!(of_known(&q, version, ptr, name), want, "v{version} {q:?}");
                        if let Some(d) = want {
                            made += 1;
                            let t = GcAllocationTick::parse(&q, version, ptr).unwrap();
                            assert_eq!(d.type_name(&q, ptr), t.type_name);
                        }
                    }
                    for at in 0..p.len() {
                        let mut q = p.clone();
                        q[at] = 0;
                        if at + 1 < q.len() {
                            q[at + 1] = 0;
                        }
                        let want = by_definition(&q, version, ptr);
                        assert_eq!(TickDigest::of(&q, version, ptr), want, "v{version} {q:?}");
                        assert_eq!(of_known(&q, version, ptr, name), want, "v{version} {q:?}");
                    }
                }
            }
        }
        // Each version's exact payloads (of both pointer sizes) had a digest.
        assert!(made >= 2 * 6 * 3, "{made}");
    }
}
