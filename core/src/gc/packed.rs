//! Per-heap histories packed into bytes, for viewers that keep every GC's heaps: a 32-heap server
//! GC has 32 [`HeapHistory`] per GC (~0.7 KB each in memory or as bincode), most of the model's
//! size. Packed, a heap is its GCPerHeapHistory's raw numbers as varints (~0.1-0.2 KB), and
//! [`unpack`] rebuilds exactly what the builder made: condemn reasons and the derived per-generation
//! figures are recomputed from the raw values by the same functions ([`reasons::decode_condemn`],
//! `derive::heap_gen`).
//!
//! [`HeapSource`] lets the per-GC insights read heaps from wherever they are kept: the rows
//! themselves ([`InRows`]) or a packed store beside them.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::{derive, reasons, Gc, HeapGen, HeapHistory, Name};
use crate::bytes::Cursor;
use crate::clr::enums::{CompactReason, ExpandMechanism};
use crate::error::{Error, Result};

/// Mechanism byte: none, a named value (1 + its place in the enum's `ALL`), or a string.
const MECH_NONE: u8 = 0;
const MECH_TEXT: u8 = 0xff;

/// Where the per-GC insights read GC `i`'s per-heap histories (`i` indexes the rows they get).
pub trait HeapSource {
    /// How many per-heap histories GC `i` has (cheap: no unpacking).
    fn heap_count(&self, i: usize) -> usize;
    fn has_heaps(&self, i: usize) -> bool {
        self.heap_count(i) > 0
    }
    /// GC `i`'s per-heap histories, in heap order (empty when it has none).
    fn heaps(&self, i: usize) -> Cow<'_, [HeapHistory]>;
}

/// The histories held in the rows (`Gc::heaps`): the model as the builder makes it.
pub struct InRows<'a>(pub &'a [Gc]);

impl HeapSource for InRows<'_> {
    fn heap_count(&self, i: usize) -> usize {
        self.0.get(i).map_or(0, |g| g.heaps.len())
    }
    fn heaps(&self, i: usize) -> Cow<'_, [HeapHistory]> {
        Cow::Borrowed(self.0.get(i).map_or(&[][..], |g| &g.heaps[..]))
    }
}

/// Every row's heaps packed back to back, by row index: for a reader that keeps every GC of a trace
/// in one place and reads the heaps only now and then (the CLI's views: `budgets` reads each GC's
/// once or twice). A 32-heap server GC's heaps are ~23 KB as [`HeapHistory`] structs and ~3 KB
/// packed; the page keeps its own store, compressed as the rows came over the wire
/// (`app/src/state/heap_store.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackedHeaps {
    bytes: Vec<u8>,
    /// Where each row's packed heaps end in `bytes`.
    ends: Vec<usize>,
    /// Each row's heap count (read without unpacking).
    counts: Vec<u32>,
}

impl PackedHeaps {
    /// Appends the next row's heaps.
    pub fn push(&mut self, heaps: &[HeapHistory]) {
        pack(heaps, &mut self.bytes);
        self.ends.push(self.bytes.len());
        self.counts
            .push(u32::try_from(heaps.len()).unwrap_or(u32::MAX));
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Bytes the packed heaps take.
    pub fn packed_bytes(&self) -> usize {
        self.bytes.len()
    }
}

impl HeapSource for PackedHeaps {
    fn heap_count(&self, i: usize) -> usize {
        self.counts.get(i).map_or(0, |&n| n as usize)
    }
    fn heaps(&self, i: usize) -> Cow<'_, [HeapHistory]> {
        let Some(&end) = self.ends.get(i) else {
            return Cow::Borrowed(&[]);
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        // The bytes are `pack`'s own: an error would be a bug, shown as no heaps.
        Cow::Owned(unpack(&self.bytes[start..end]).unwrap_or_default())
    }
}

fn put_var(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// NewAllocation is signed (negative: the budget was exceeded): zig-zag keeps small negatives short.
fn put_signed(out: &mut Vec<u8>, v: u64) {
    let s = v as i64;
    put_var(out, ((s << 1) ^ (s >> 63)) as u64);
}

fn put_mechanism(
    out: &mut Vec<u8>,
    name: Option<&str>,
    mut names: impl Iterator<Item = &'static str>,
) {
    match name {
        None => out.push(MECH_NONE),
        Some(n) => match names.position(|k| k == n) {
            Some(k) if k + 1 < MECH_TEXT as usize => out.push(k as u8 + 1),
            _ => {
                out.push(MECH_TEXT);
                put_var(out, n.len() as u64);
                out.extend_from_slice(n.as_bytes());
            }
        },
    }
}

fn compact_names() -> impl Iterator<Item = &'static str> {
    CompactReason::ALL.iter().map(|r| r.name())
}

fn expand_names() -> impl Iterator<Item = &'static str> {
    ExpandMechanism::ALL.iter().map(|r| r.name())
}

/// Appends `heaps` to `out`: a count, then per heap its raw GCPerHeapHistory numbers.
pub fn pack(heaps: &[HeapHistory], out: &mut Vec<u8>) {
    put_var(out, heaps.len() as u64);
    for h in heaps {
        put_var(out, u64::from(h.heap));
        put_var(out, u64::from(h.condemn.raw0));
        put_var(out, u64::from(h.condemn.raw1));
        put_mechanism(out, h.compact_mechanism.as_deref(), compact_names());
        put_mechanism(out, h.expand_mechanism.as_deref(), expand_names());
        for v in [
            h.free_list_allocated_bytes,
            h.free_list_rejected_bytes,
            h.end_of_seg_allocated_bytes,
            h.condemned_allocated_bytes,
            h.pinned_allocated_bytes,
            h.pinned_allocated_advance_bytes,
            u64::from(h.running_free_list_efficiency_pct),
            h.extra_gen0_commit_bytes,
        ] {
            put_var(out, v);
        }
        put_var(out, h.generations.len() as u64);
        for g in &h.generations {
            for v in raw_gen(g) {
                put_var(out, v);
            }
            put_signed(out, g.new_allocation_bytes);
        }
    }
}

/// The nine unsigned raw values of a generation (NewAllocation is written apart, signed).
fn raw_gen(g: &HeapGen) -> [u64; 9] {
    [
        g.size_before_bytes,
        g.free_list_before_bytes,
        g.free_obj_before_bytes,
        g.size_after_bytes,
        g.free_list_after_bytes,
        g.free_obj_after_bytes,
        g.in_bytes,
        g.pinned_survived_bytes,
        g.non_pinned_survived_bytes,
    ]
}

/// The number of heaps in packed bytes (reads only the count).
pub fn count(bytes: &[u8]) -> usize {
    Cursor::new(bytes, 0)
        .varu64("heap count")
        .map_or(0, |n| n as usize)
}

fn mechanism(
    c: &mut Cursor<'_>,
    names: impl Iterator<Item = &'static str>,
) -> Result<Option<Name>> {
    let at = c.offset();
    match c.u8("mechanism")? {
        MECH_NONE => Ok(None),
        MECH_TEXT => Ok(Some(Cow::Owned(c.var_utf8("mechanism name")?))),
        k => names
            .into_iter()
            .nth(usize::from(k) - 1)
            .map(|n| Some(Cow::Borrowed(n)))
            .ok_or_else(|| Error::malformed(at, alloc::format!("mechanism code {k}"))),
    }
}

fn u32_of(c: &mut Cursor<'_>, what: &'static str) -> Result<u32> {
    let at = c.offset();
    let v = c.varu64(what)?;
    u32::try_from(v).map_err(|_| Error::malformed(at, alloc::format!("{what} {v} over 32 bits")))
}

/// Rebuilds the histories [`pack`] wrote. Errors (bytes that [`pack`] did not write) say where.
pub fn unpack(bytes: &[u8]) -> Result<Vec<HeapHistory>> {
    let mut c = Cursor::new(bytes, 0);
    let n = c.varu64("heap count")?;
    // Each heap takes at least 14 bytes: a larger count is not from `pack`.
    if n > (bytes.len() / 14) as u64 {
        return Err(Error::malformed(
            0,
            alloc::format!("{n} heaps in {} bytes", bytes.len()),
        ));
    }
    let mut heaps = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let heap = u32_of(&mut c, "heap index")?;
        let raw0 = u32_of(&mut c, "condemn reasons")?;
        let raw1 = u32_of(&mut c, "condemn reasons")?;
        let compact_mechanism = mechanism(&mut c, compact_names())?;
        let expand_mechanism = mechanism(&mut c, expand_names())?;
        let mut v = [0u64; 8];
        for x in &mut v {
            *x = c.varu64("heap figure")?;
        }
        let efficiency = u32::try_from(v[6]).unwrap_or(u32::MAX);
        let ngen = c.varu64("generation count")?;
        if ngen > c.remaining() as u64 {
            return Err(Error::malformed(
                c.offset(),
                alloc::format!("{ngen} generations"),
            ));
        }
        let mut generations = Vec::with_capacity(ngen as usize);
        for _ in 0..ngen {
            let mut g = [0u64; 10];
            for x in &mut g[..9] {
                *x = c.varu64("generation figure")?;
            }
            g[9] = c.vari64("new allocation")? as u64;
            generations.push(derive::heap_gen(&g));
        }
        heaps.push(HeapHistory {
            heap,
            condemn: reasons::decode_condemn(raw0, raw1),
            compact_mechanism,
            expand_mechanism,
            free_list_allocated_bytes: v[0],
            free_list_rejected_bytes: v[1],
            end_of_seg_allocated_bytes: v[2],
            condemned_allocated_bytes: v[3],
            pinned_allocated_bytes: v[4],
            pinned_allocated_advance_bytes: v[5],
            running_free_list_efficiency_pct: efficiency,
            extra_gen0_commit_bytes: v[7],
            generations,
        });
    }
    if !c.is_empty() {
        return Err(Error::malformed(c.offset(), "bytes after the last heap"));
    }
    Ok(heaps)
}

/// The words a text search finds in a GC's heaps: each heap's condemn conditions and compact and
/// expand mechanisms, each word once, in first-seen order.
pub fn heap_words(heaps: &[HeapHistory]) -> Vec<Name> {
    let mut out: Vec<Name> = Vec::new();
    for h in heaps {
        let words = h.condemn.conditions.iter().cloned();
        let mech = [&h.compact_mechanism, &h.expand_mechanism]
            .into_iter()
            .flatten()
            .cloned();
        for w in words.chain(mech) {
            if !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gc::CondemnReasons;
    use alloc::string::String;
    use alloc::vec;

    fn heap(i: u32, new_alloc: i64) -> HeapHistory {
        let g = |k: u64| {
            derive::heap_gen(&[
                1000 * k,
                10,
                20,
                800 * k,
                5,
                7,
                3,
                100,
                k * 1_000_000_007,
                new_alloc as u64,
            ])
        };
        HeapHistory {
            heap: i,
            condemn: reasons::decode_condemn(0x0000_0123, 0x5),
            compact_mechanism: Some(Cow::Borrowed(CompactReason::ALL[3].name())),
            expand_mechanism: Some(Cow::Owned(String::from("not a known name"))),
            free_list_allocated_bytes: u64::MAX,
            free_list_rejected_bytes: 0,
            end_of_seg_allocated_bytes: 1,
            condemned_allocated_bytes: 127,
            pinned_allocated_bytes: 128,
            pinned_allocated_advance_bytes: 1 << 40,
            running_free_list_efficiency_pct: 99,
            extra_gen0_commit_bytes: 3,
            generations: vec![g(0), g(1), g(2), g(3), g(4)],
        }
    }

    #[test]
    fn packed_heaps_unpack_to_what_was_packed() {
        let heaps = vec![heap(0, -5), heap(7, i64::MIN), heap(31, 1 << 50)];
        let mut out = vec![0xAA];
        pack(&heaps, &mut out);
        assert_eq!(count(&out[1..]), 3);
        assert_eq!(unpack(&out[1..]).unwrap(), heaps);
        // None and an empty list.
        let mut none = heaps[..1].to_vec();
        none[0].compact_mechanism = None;
        none[0].expand_mechanism = None;
        none[0].condemn = CondemnReasons::default();
        let mut out = Vec::new();
        pack(&none, &mut out);
        assert_eq!(unpack(&out).unwrap(), none);
        let mut out = Vec::new();
        pack(&[], &mut out);
        assert_eq!((out.len(), unpack(&out).unwrap()), (1, vec![]));
    }

    #[test]
    fn a_store_of_rows_gives_back_each_rows_heaps() {
        let rows = [
            vec![heap(0, 1), heap(1, -1)],
            vec![],
            vec![heap(5, i64::MAX)],
            (0..32).map(|i| heap(i, i64::from(i) - 16)).collect(),
        ];
        let mut store = PackedHeaps::default();
        for r in &rows {
            store.push(r);
        }
        assert_eq!(store.len(), rows.len());
        for (i, r) in rows.iter().enumerate().rev() {
            assert_eq!(store.heap_count(i), r.len(), "row {i}");
            assert_eq!(store.has_heaps(i), !r.is_empty(), "row {i}");
            assert_eq!(store.heaps(i).as_ref(), &r[..], "row {i}");
        }
        assert_eq!((store.heap_count(4), store.heaps(4).len()), (0, 0));
        let unpacked: usize = rows.iter().flatten().count() * core::mem::size_of::<HeapHistory>();
        assert!(store.packed_bytes() < unpacked, "{}", store.packed_bytes());
    }

    #[test]
    fn bytes_not_from_pack_are_errors_with_offsets() {
        let mut out = Vec::new();
        pack(&[heap(1, 1)], &mut out);
        for cut in 0..out.len() {
            assert!(unpack(&out[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = out.clone();
        extra.push(0);
        assert_eq!(unpack(&extra).unwrap_err().offset, out.len() as u64);
        assert!(unpack(&[0xff; 40]).is_err());
        assert!(unpack(&[100]).is_err(), "100 heaps in one byte");
    }

    #[test]
    fn heap_words_lists_each_word_once() {
        let a = heap(0, 1);
        let w = heap_words(&[a.clone(), a.clone()]);
        let mut expect: Vec<Name> = a.condemn.conditions.clone();
        expect.push(a.compact_mechanism.clone().unwrap());
        expect.push(a.expand_mechanism.clone().unwrap());
        assert!(expect.len() >= 3);
        assert_eq!(w, expect);
    }
}
