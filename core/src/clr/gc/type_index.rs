//! Allocated types' names, interned by their raw UTF-16 bytes, and the reference to one that a
//! [`TickDigest`](super::TickDigest) carries.
//!
//! The parts of a trace decoded in parallel intern the names of the ticks they decode into tables
//! of their own ([`TypeRef::part`]); the merge renumbers those into one table for the trace
//! ([`TypeRef::merged`]) with a lookup per name, so the merging thread, which every tick goes
//! through, hashes no tick's name (docs/performance-log/journal.md, "Ticks without their
//! payloads").

use alloc::vec::Vec;

/// Which interned name a tick's type is, if a part or the merge has interned it: none, an index in
/// the table of the part that decoded the tick ([`part`](Self::part), meaningful only beside that
/// table), or an index in the table of the merge the tick went through ([`merged`](Self::merged),
/// one table per trace reader).
///
/// Four bytes, not an enum's eight: it rides in every tick's digest, which the sort buffer moves,
/// and eight would make the digest 40 bytes instead of 32 (docs/performance-log/journal.md, "Ticks
/// without their payloads").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TypeRef(u32);

/// The bit of [`TypeRef`] that says "merged"; the rest is the index + 1 (0: none).
const MERGED: u32 = 1 << 31;

impl TypeRef {
    pub const NONE: TypeRef = TypeRef(0);

    /// Index `i` of a part's table (None past the indices it can hold, which no table reaches).
    pub fn part(i: u32) -> TypeRef {
        Self::with(i, 0)
    }

    /// Index `i` of the merge's table.
    pub fn merged(i: u32) -> TypeRef {
        Self::with(i, MERGED)
    }

    fn with(i: u32, flag: u32) -> TypeRef {
        match i.checked_add(1) {
            Some(v) if v < MERGED => TypeRef(v | flag),
            _ => TypeRef::NONE,
        }
    }

    /// The index in the part's table, if it is one.
    pub fn in_part(self) -> Option<u32> {
        (self.0 != 0 && self.0 & MERGED == 0).then(|| self.0 - 1)
    }

    /// The index in the merge's table, if it is one.
    pub fn in_merge(self) -> Option<u32> {
        (self.0 & MERGED != 0).then(|| (self.0 & !MERGED) - 1)
    }
}

/// Type indices by the name's raw UTF-16 bytes: a tick's type is found without decoding or
/// allocating, with one hash of the bytes and (nearly always) one comparison. Every tick carries its
/// type's name, so this is on the hot path: an ordered map of byte strings compared several names
/// per tick (a tenth of the browser worker's time on a 1 GiB trace).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypeIndex {
    /// Open addressing, a power of two long, at most half full: 0 is empty, else index + 1.
    slots: Vec<u32>,
    /// The names' bytes back to back; name `i` ends at `ends[i]`.
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl TypeIndex {
    /// How many names it holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The names in index order.
    pub fn names(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.ends.len()).map(|i| self.name(i))
    }

    /// The bytes of name `i`.
    fn name(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    /// The index of `name` if it has one.
    pub fn find(&self, name: &[u8]) -> Option<u32> {
        self.slot(name).1
    }

    /// Where `name` is in `slots`: its slot and index, or the empty slot it would take (slot 0
    /// while there are none: [`index`](Self::index) grows the table first).
    fn slot(&self, name: &[u8]) -> (usize, Option<u32>) {
        if self.slots.is_empty() {
            return (0, None);
        }
        let mask = self.slots.len() - 1;
        let mut at = hash(name) as usize & mask;
        loop {
            match self.slots[at] {
                0 => return (at, None),
                s if same(self.name(s as usize - 1), name) => return (at, Some(s - 1)),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// The index of `name`, and whether it was new (indices are given out 0, 1, 2, ...).
    pub fn index(&mut self, name: &[u8]) -> (u32, bool) {
        if (self.ends.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let at = match self.slot(name) {
            (_, Some(i)) => return (i, false),
            (at, None) => at,
        };
        let i = self.ends.len() as u32;
        self.bytes.extend_from_slice(name);
        self.ends.push(self.bytes.len());
        self.slots[at] = i + 1;
        (i, true)
    }

    #[cold]
    fn grow(&mut self) {
        let len = (self.slots.len() * 2).max(64);
        self.slots.clear();
        self.slots.resize(len, 0);
        for i in 0..self.ends.len() {
            let mut at = hash(self.name(i)) as usize & (len - 1);
            while self.slots[at] != 0 {
                at = (at + 1) & (len - 1);
            }
            self.slots[at] = i as u32 + 1;
        }
    }
}

/// A hash of a type name from its length and its first, middle and last eight bytes (names differ
/// there; hashing every byte of long generic names would cost more than the table saves).
fn hash(b: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let word = |s: &[u8]| {
        // Nearly every name is longer than four UTF-16 units: one load, where a copy of a variable
        // length is a call to the library's memcpy, three a tick (docs/performance-log/journal.md,
        // "Type names checked once per type").
        if s.len() >= 8 {
            return word_at(s, 0);
        }
        let mut a = [0u8; 8];
        a[..s.len()].copy_from_slice(s);
        u64::from_le_bytes(a)
    };
    let first = word(b);
    let middle = word(&b[b.len() / 2..]);
    let last = word(&b[b.len().saturating_sub(8)..]);
    let h = (b.len() as u64 ^ first).wrapping_mul(K);
    let h = (h.rotate_left(23) ^ middle).wrapping_mul(K);
    let h = (h.rotate_left(23) ^ last).wrapping_mul(K);
    h ^ (h >> 29)
}

/// `a == b`, eight bytes at a time in a plain loop (the byte-wise slice comparison is a call to a
/// byte loop in WebAssembly, and iterator adapters over chunks cost three times the loads here;
/// every tick's name is compared once).
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    let mut at = 0;
    while at + 8 < n {
        if word_at(a, at) != word_at(b, at) {
            return false;
        }
        at += 8;
    }
    // The last eight bytes, overlapping the word before where `n` is not a multiple of eight.
    word_at(a, n - 8) == word_at(b, n - 8)
}

/// The eight bytes of `s` at `at`, as one load.
#[inline]
fn word_at(s: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&s[at..at + 8]);
    u64::from_le_bytes(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_is_byte_equality_at_every_length_and_difference() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
            assert!(same(&a, &a.clone()), "{n}");
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x80;
                assert!(!same(&a, &b), "{n} {at}");
            }
            let mut longer = a.clone();
            longer.push(0);
            assert!(!same(&a, &longer) && !same(&longer, &a), "{n}");
        }
    }

    #[test]
    fn type_index_matches_a_map() {
        // Names of every length around the 8-byte words, duplicates, the empty name, growth.
        let mut reference = alloc::collections::BTreeMap::<Vec<u8>, u32>::new();
        let mut ix = TypeIndex::default();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for round in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 40) as usize;
            let name: Vec<u8> = (0..len).map(|i| (x >> (i % 8)) as u8 % 3).collect();
            let next = reference.len() as u32;
            let want = *reference.entry(name.clone()).or_insert(next);
            assert_eq!(ix.index(&name), (want, want == next), "round {round}");
        }
        assert!(
            reference.len() > 1000,
            "too few distinct names to test growth"
        );
        for (name, &i) in &reference {
            assert_eq!(ix.index(name), (i, false));
        }
    }

    #[test]
    fn type_refs_keep_their_kind_and_index() {
        assert_eq!(
            (TypeRef::NONE.in_part(), TypeRef::NONE.in_merge()),
            (None, None)
        );
        for i in [0, 1, 77, MERGED - 2] {
            assert_eq!(
                (TypeRef::part(i).in_part(), TypeRef::part(i).in_merge()),
                (Some(i), None)
            );
            assert_eq!(
                (TypeRef::merged(i).in_part(), TypeRef::merged(i).in_merge()),
                (None, Some(i))
            );
        }
        assert_eq!(TypeRef::part(MERGED - 1), TypeRef::NONE);
        assert_eq!(TypeRef::merged(u32::MAX), TypeRef::NONE);
    }
}
