//! An output's allocation ticks on the wire: their digests, the part's table of type names, and
//! the payload bytes a merge for the GC model needs ([`super::output_to_bytes_for_model`]).

use super::{count, W};
use crate::bytes::Cursor;
use crate::clr::gc::{TickDigest, TypeIndex, TypeRef};
use crate::error::{Error, Result};
use crate::nettrace::part::NetPart;
use alloc::vec::Vec;

/// Bytes of one [`TickDigest`].
pub(super) const TICK_RECORD: usize = 25;

pub(super) fn ticks_to_bytes(w: &mut W, ticks: &[TickDigest]) {
    w.len(ticks.len());
    for d in ticks {
        // Only parts make digests, and only with their own table.
        let part = d.type_ref.in_part();
        w.u64(d.amount);
        w.u32(d.kind);
        w.u8(u8::from(d.heap_index.is_some())
            | u8::from(d.type_name_len.is_some()) << 1
            | u8::from(part.is_some()) << 2);
        w.u32(d.heap_index.unwrap_or(0));
        w.u32(d.type_name_len.unwrap_or(0));
        w.u32(part.unwrap_or(0));
    }
}

pub(super) fn ticks_from_bytes(c: &mut Cursor<'_>) -> Result<Vec<TickDigest>> {
    let n = count(c, TICK_RECORD)?;
    let records = c.bytes(n * TICK_RECORD, "ticks")?;
    let mut ticks = Vec::with_capacity(n);
    for r in records.chunks_exact(TICK_RECORD) {
        let u32_at = |i: usize| u32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
        let mut amount = [0u8; 8];
        amount.copy_from_slice(&r[0..8]);
        let flags = r[12];
        ticks.push(TickDigest {
            amount: u64::from_le_bytes(amount),
            kind: u32_at(8),
            heap_index: (flags & 1 != 0).then(|| u32_at(13)),
            type_name_len: (flags & 2 != 0).then(|| u32_at(17)),
            type_ref: if flags & 4 != 0 {
                TypeRef::part(u32_at(21))
            } else {
                TypeRef::NONE
            },
        });
    }
    Ok(ticks)
}

pub(super) fn types_to_bytes(w: &mut W, types: Option<&TypeIndex>) {
    let Some(types) = types else {
        return w.u8(0);
    };
    w.u8(1);
    w.len(types.len());
    for name in types.names() {
        w.len(name.len());
        w.0.extend_from_slice(name);
    }
}

pub(super) fn types_from_bytes(c: &mut Cursor<'_>) -> Result<Option<TypeIndex>> {
    if c.u8("types")? == 0 {
        return Ok(None);
    }
    let mut types = TypeIndex::default();
    for _ in 0..count(c, 4)? {
        let at = c.offset();
        let len = c.u32("type name length")? as usize;
        let name = c.bytes(len, "type name")?;
        // The part's indices are the order of its names: a name twice would shift the rest.
        if !types.index(name).1 {
            return Err(Error::malformed(at, "type name given twice"));
        }
    }
    Ok(Some(types))
}

/// The payload bytes [`output_to_bytes_for_model`](super::output_to_bytes_for_model) sends, with
/// the events pointed into them.
pub(super) fn payloads_for_model(p: &mut NetPart) -> Vec<u8> {
    let mut out = Vec::new();
    // Per type of the part's table: the first tick's payload in `out` (start, length).
    let mut first: Vec<Option<(u32, u32)>> =
        alloc::vec![None; p.types.as_ref().map_or(0, |t| t.len())];
    for e in &mut p.events {
        let (start, len) = (e.payload_start as usize, e.payload_len as usize);
        // Never so in a part's own output; left for the merge to refuse.
        let Some(src) = p.payloads.get(start..).and_then(|s| s.get(..len)) else {
            continue;
        };
        let ty = p
            .ticks
            .get(e.tick as usize)
            .and_then(|d| d.type_ref.in_part())
            .and_then(|t| first.get_mut(t as usize));
        match ty {
            Some(Some((at, n))) if *n == e.payload_len => e.payload_start = *at,
            ty => {
                let at = out.len() as u32;
                out.extend_from_slice(src);
                e.payload_start = at;
                if let Some(slot @ None) = ty {
                    *slot = Some((at, e.payload_len));
                }
            }
        }
    }
    out
}
