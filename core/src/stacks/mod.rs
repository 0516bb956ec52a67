//! Call stacks: the addresses of every distinct stack the trace holds, interned once
//! ([`StackTable`]), the methods those addresses fall in ([`methods`]), and the stacks of the
//! events a user asks "who did this?" about, summed by stack into a call tree ([`view`]).
//!
//! An event carries the id of its stack ([`crate::event::Event::stack`]), never a copy of it. A
//! NetTrace (V4-V6) writes its stacks in StackBlocks, by ids that are valid until the next
//! sequence point (the runtime starts them again at 1 after each); the decoder maps each region's
//! ids to the table's ([`StackTable::begin_region`], [`StackTable::define_raw`],
//! [`StackTable::resolve_raw`]) when it hands an event out, so the sort buffer and the parts of a
//! file carry the file's small ids and a stack met in many regions is stored once. A NetPerf
//! (V1-V3) event carries its stack inline: the decoder interns it as it reads the event.
//!
//! Memory is bounded by the distinct stacks, not the events: a stack of `d` frames costs its
//! `8 d` bytes of addresses, 8 bytes of span, 4 of hash chain and one entry of the hash index
//! (about 24 bytes in a `BTreeMap` node), so about `36 + 8 d` bytes; the current region's map
//! adds 4 bytes per id the region defines, and is emptied at each sequence point.

pub mod caller;
pub mod chunks;
pub mod methods;
pub mod speedscope;
pub mod view;

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// [`crate::event::Event::stack`] of an event without a stack (or read by a reader that keeps
/// none: [`crate::TraceReader::set_keep_stacks`]).
pub const NO_STACK: u32 = 0;
/// [`crate::event::Event::stack`] of an event whose stack id names no stack of its region: the
/// trace lost the StackBlock, or the id is corrupt. Counted in [`StackTable::missing`].
pub const MISSING_STACK: u32 = u32::MAX;

/// Every distinct stack of a trace, leaf frame first, by id (1-based; [`NO_STACK`] and
/// [`MISSING_STACK`] are not ids of the table).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StackTable {
    /// Every stack's addresses, leaf first, one after another.
    addresses: Vec<u64>,
    /// Stack `id` is `addresses[spans[id - 1].0 ..][.. spans[id - 1].1]`.
    spans: Vec<(u32, u32)>,
    /// Hash of a stack's addresses → the last id with that hash; `chain[id - 1]` is the previous
    /// id with the same hash (0: none). Collisions are told apart by comparing addresses.
    index: BTreeMap<u64, u32>,
    chain: Vec<u32>,
    /// The current sequence-point region's ids: file id `first + i` is table id `region[i]` (0:
    /// not defined); ids outside one contiguous run go to `region_extra`.
    region_first: u32,
    region: Vec<u32>,
    region_extra: BTreeMap<u32, u32>,
    /// Events whose stack id named no stack of its region.
    missing: u64,
    /// StackBlock entries read (one per file id, repeated stacks included).
    entries: u64,
    /// Reused for reading inline stacks.
    scratch: Vec<u64>,
    /// ETW stack records that matched no delivered event (see [`Self::unmatched`]).
    unmatched: u64,
}

fn hash(addresses: &[u64]) -> u64 {
    // FNV-1a over the addresses' bytes: stable across platforms, so ids do not depend on where
    // the trace is read.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &a in addresses {
        for b in a.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h ^ addresses.len() as u64
}

impl StackTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Distinct stacks.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Events whose stack id named no stack (their [`crate::event::Event::stack`] is
    /// [`MISSING_STACK`]).
    pub fn missing(&self) -> u64 {
        self.missing
    }

    /// ETW stack records (StackWalk events) that matched no delivered event: the event was
    /// filtered out, lay in another buffer, or the record is malformed (the ETW decoder's
    /// `etl::stackwalk`).
    pub fn unmatched(&self) -> u64 {
        self.unmatched
    }

    /// Counts `n` more ETW stack records that matched no event.
    pub fn add_unmatched(&mut self, n: u64) {
        self.unmatched = self.unmatched.saturating_add(n);
    }

    /// Interns a stack given as `bytes` of whole `pointer_size`-byte addresses, leaf first (an
    /// ETW stack record's frames); returns its id.
    pub fn intern_bytes(&mut self, bytes: &[u8], pointer_size: u8) -> u32 {
        let mut scratch = core::mem::take(&mut self.scratch);
        read_addresses(bytes, pointer_size, &mut scratch);
        let id = self.intern(&scratch);
        self.scratch = scratch;
        id
    }

    /// StackBlock entries read, a stack repeated in several regions counted each time.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// Bytes the table holds (the estimate of the module docs), for the docs' memory figure.
    pub fn approx_bytes(&self) -> usize {
        self.addresses.len() * 8 + self.spans.len() * 36 + self.region.len() * 4
    }

    /// The stack `id`'s addresses, leaf first (None: not an id of this table).
    pub fn addresses(&self, id: u32) -> Option<&[u64]> {
        let &(start, len) = self.spans.get((id as usize).checked_sub(1)?)?;
        self.addresses
            .get(start as usize..start as usize + len as usize)
    }

    /// The id of the stack `addresses` (leaf first), added if new. The id of a stack is the
    /// order it was first met in, so reading a file again gives it the same ids.
    pub fn intern(&mut self, addresses: &[u64]) -> u32 {
        let h = hash(addresses);
        let mut id = self.index.get(&h).copied().unwrap_or(0);
        while id != 0 {
            if self.addresses(id) == Some(addresses) {
                return id;
            }
            id = self.chain[id as usize - 1];
        }
        let start = self.addresses.len();
        if start + addresses.len() > u32::MAX as usize
            || self.spans.len() >= (u32::MAX - 1) as usize
        {
            // Past 4 G addresses the spans cannot name it: the event is left without a stack.
            return MISSING_STACK;
        }
        self.addresses.extend_from_slice(addresses);
        self.spans.push((start as u32, addresses.len() as u32));
        let new = self.spans.len() as u32;
        self.chain.push(self.index.insert(h, new).unwrap_or(0));
        new
    }

    /// A sequence point: the file's stack ids of the region before it are no longer valid.
    pub fn begin_region(&mut self) {
        self.region.clear();
        self.region_extra.clear();
        self.region_first = 0;
    }

    /// File id `raw` of the current region is the stack `addresses` (leaf first).
    pub fn define_raw(&mut self, raw: u32, addresses: &[u64]) {
        self.entries += 1;
        let id = self.intern(addresses);
        self.map_raw(raw, id);
    }

    /// A NetPerf event's inline stack (`bytes` of whole `pointer_size`-byte addresses, leaf
    /// first): interned, and its table id made a file id of the one region a NetPerf file is, so
    /// the event goes through [`Self::resolve_raw`] as a NetTrace's does. Returns the id.
    pub fn define_inline(&mut self, bytes: &[u8], pointer_size: u8) -> u32 {
        let mut scratch = core::mem::take(&mut self.scratch);
        read_addresses(bytes, pointer_size, &mut scratch);
        let id = self.intern(&scratch);
        self.scratch = scratch;
        if id != MISSING_STACK {
            self.map_raw(id, id);
        }
        id
    }

    fn map_raw(&mut self, raw: u32, id: u32) {
        if self.region.is_empty() && self.region_extra.is_empty() {
            self.region_first = raw;
        }
        match raw.checked_sub(self.region_first) {
            Some(i) if i as usize == self.region.len() => self.region.push(id),
            Some(i) if (i as usize) < self.region.len() => self.region[i as usize] = id,
            _ => {
                self.region_extra.insert(raw, id);
            }
        }
    }

    /// The table id of the current region's file id `raw` ([`NO_STACK`] for 0;
    /// [`MISSING_STACK`], counted, for an id the region did not define).
    #[inline]
    pub fn resolve_raw(&mut self, raw: u32) -> u32 {
        if raw == 0 {
            return NO_STACK;
        }
        let found = match raw.checked_sub(self.region_first) {
            Some(i) if (i as usize) < self.region.len() => self.region[i as usize],
            _ => self.region_extra.get(&raw).copied().unwrap_or(0),
        };
        if found == 0 {
            self.missing += 1;
            return MISSING_STACK;
        }
        found
    }
}

/// Reads the addresses of one stack: `bytes` holds whole `pointer_size`-byte addresses, leaf
/// first (the caller has checked the size is a multiple), into `out` (emptied first).
pub fn read_addresses(bytes: &[u8], pointer_size: u8, out: &mut Vec<u64>) {
    out.clear();
    if pointer_size == 4 {
        out.extend(
            bytes
                .chunks_exact(4)
                .map(|c| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
        );
    } else {
        out.extend(bytes.chunks_exact(8).map(|c| {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            u64::from_le_bytes(a)
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_gives_one_id_per_distinct_stack() {
        let mut t = StackTable::new();
        assert_eq!(t.intern(&[1, 2, 3]), 1);
        assert_eq!(t.intern(&[]), 2);
        assert_eq!(t.intern(&[1, 2, 3]), 1);
        assert_eq!(t.intern(&[1, 2]), 3);
        assert_eq!(t.addresses(1), Some(&[1u64, 2, 3][..]));
        assert_eq!(t.addresses(2), Some(&[][..]));
        assert_eq!(t.addresses(4), None);
        assert_eq!(t.addresses(0), None);
    }

    #[test]
    fn region_ids_restart_and_unknown_ids_are_counted() {
        let mut t = StackTable::new();
        t.define_raw(1, &[10]);
        t.define_raw(2, &[20]);
        assert_eq!(t.resolve_raw(2), 2);
        assert_eq!(t.resolve_raw(0), NO_STACK);
        assert_eq!(t.resolve_raw(3), MISSING_STACK);
        t.begin_region();
        // The same file id now names another stack; a repeated stack keeps its table id.
        t.define_raw(1, &[20]);
        t.define_raw(7, &[30]);
        assert_eq!(t.resolve_raw(1), 2);
        assert_eq!(t.resolve_raw(7), 3);
        assert_eq!(t.resolve_raw(2), MISSING_STACK);
        assert_eq!(t.missing(), 2);
        assert_eq!(t.len(), 3);
        assert_eq!(t.entries(), 4);
    }
}
