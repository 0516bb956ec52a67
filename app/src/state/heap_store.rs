//! Each GC's per-heap histories (GCPerHeapHistory), kept packed beside the rows rather than in
//! them. A 32-heap server GC has 32 histories per GC: as `HeapHistory` structs they were 97% of a
//! row (~25 KB in the page, ~21 KB as bincode, the wire format then), 280 MB of messages and 520+ MiB of tab for a
//! 1 GiB trace. Packed (core `gc::packed`) they are ~5x smaller, travel as one byte string per
//! batch (`protocol::heaps::HeapBatch`), and are unpacked only where a view needs them: the detail panel (one GC), the budgets
//! (while the insights are finished, one GC at a time; per heap for the rows shown). The text
//! filter's words (per-heap condemn conditions and mechanisms) are kept per GC as an interned set.

use std::borrow::Cow;
use std::collections::HashMap;

use gcscope_core::gc::packed::{self, HeapSource};
use gcscope_core::gc::HeapHistory;

use crate::protocol::heaps::HeapBatch;

/// A batch as kept: its bytes and where each row's end.
#[derive(Debug, Default)]
struct Block {
    first: usize,
    bytes: Vec<u8>,
    ends: Vec<u32>,
}

/// Every row's heaps, by row index (the page's side).
#[derive(Debug, Default)]
pub struct HeapStore {
    blocks: Vec<Block>,
    /// Per row: which word set (`sets`) it has.
    row_words: Vec<u32>,
    sets: Vec<Vec<String>>,
    set_ids: HashMap<Vec<String>, u32>,
}

impl HeapStore {
    /// Appends a batch; its rows are the next `batch.ends.len()` rows.
    pub fn push(&mut self, batch: HeapBatch) {
        let HeapBatch {
            mut bytes,
            ends,
            words,
        } = batch;
        for w in words {
            let set: Vec<String> = w.into_iter().map(Cow::into_owned).collect();
            let next = self.sets.len() as u32;
            let id = *self.set_ids.entry(set.clone()).or_insert(next);
            if id == next {
                self.sets.push(set);
            }
            self.row_words.push(id);
        }
        if !ends.is_empty() {
            bytes.shrink_to_fit();
            let first = self.blocks.last().map_or(0, |b| b.first + b.ends.len());
            self.blocks.push(Block { first, bytes, ends });
        }
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.blocks.last().map_or(0, |b| b.first + b.ends.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held by the packed heaps (for the benchmark's notes and tests).
    pub fn packed_bytes(&self) -> usize {
        self.blocks.iter().map(|b| b.bytes.len()).sum()
    }

    /// Row `i`'s packed heaps (empty past the end).
    fn packed(&self, i: usize) -> &[u8] {
        let k = self.blocks.partition_point(|b| b.first <= i);
        let Some(b) = k.checked_sub(1).and_then(|k| self.blocks.get(k)) else {
            return &[];
        };
        let j = i - b.first;
        let Some(&end) = b.ends.get(j) else {
            return &[];
        };
        let start = if j == 0 { 0 } else { b.ends[j - 1] };
        b.bytes.get(start as usize..end as usize).unwrap_or(&[])
    }

    /// Row `i`'s heaps, in heap order (empty when it has none, or past the end).
    pub fn unpack(&self, i: usize) -> Vec<HeapHistory> {
        // The bytes come from the worker's `pack`: an error means a bug, shown as no heaps.
        packed::unpack(self.packed(i)).unwrap_or_default()
    }

    /// Row `i`'s words for the text filter.
    pub fn words(&self, i: usize) -> &[String] {
        self.row_words
            .get(i)
            .and_then(|&s| self.sets.get(s as usize))
            .map_or(&[], Vec::as_slice)
    }
}

impl HeapSource for HeapStore {
    fn heap_count(&self, i: usize) -> usize {
        packed::count(self.packed(i))
    }
    fn heaps(&self, i: usize) -> Cow<'_, [HeapHistory]> {
        Cow::Owned(self.unpack(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_core::gc::insights::analyze_with_insights;
    use gcscope_core::gc::Gc;

    fn server_rows() -> Vec<Gc> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/traces/net8.0/server.nettrace"
        );
        let bytes = std::fs::read(path).expect("the server fixture");
        let (model, _) = analyze_with_insights(&bytes).expect("it decodes");
        assert!(model.gcs.iter().any(|g| g.heaps.len() > 1));
        model.gcs
    }

    #[test]
    fn rows_in_batches_keep_their_heaps_and_words_by_index() {
        let rows = server_rows();
        let mut store = HeapStore::default();
        // Batches of 1, 2, 3, ... rows, and an empty one.
        let mut at = 0;
        let mut size = 1;
        store.push(HeapBatch::take(&mut []));
        while at < rows.len() {
            let end = (at + size).min(rows.len());
            let mut batch = rows[at..end].to_vec();
            let b = HeapBatch::take(&mut batch);
            assert!(batch.iter().all(|g| g.heaps.is_empty()), "moved out");
            store.push(b);
            at = end;
            size += 1;
        }
        assert_eq!(store.len(), rows.len());
        for (i, g) in rows.iter().enumerate() {
            assert_eq!(store.unpack(i), g.heaps, "GC {}", g.number);
            assert_eq!(store.heap_count(i), g.heaps.len());
            let mut want: Vec<String> = Vec::new();
            for h in &g.heaps {
                for w in h
                    .condemn
                    .conditions
                    .iter()
                    .chain(&h.compact_mechanism)
                    .chain(&h.expand_mechanism)
                {
                    if !want.contains(&w.to_string()) {
                        want.push(w.to_string());
                    }
                }
            }
            assert_eq!(store.words(i), &want[..], "GC {}", g.number);
        }
        assert!(store.unpack(rows.len()).is_empty() && store.words(rows.len()).is_empty());
        // Few distinct word sets, however many rows.
        assert!(store.sets.len() < rows.len());
        // Much smaller than the same heaps as structs in the page (what the rows carried before:
        // counted here without the strings' own bytes, so a lower bound), and than the same heaps
        // in the wire format (postcard: its varints already shrink them about half as much as
        // packing does; bincode's fixed-width integers were 3x the packed bytes).
        let structs: usize = rows
            .iter()
            .flat_map(|g| &g.heaps)
            .map(|h| {
                std::mem::size_of::<HeapHistory>()
                    + h.generations.len() * std::mem::size_of::<gcscope_core::gc::HeapGen>()
                    + h.condemn.conditions.len() * std::mem::size_of::<gcscope_core::gc::Name>()
            })
            .sum();
        let wire: usize = rows
            .iter()
            .map(|g| crate::protocol::wire::encoded_len(&g.heaps).unwrap())
            .sum();
        let packed = store.packed_bytes();
        assert!(
            packed * 3 < structs,
            "{packed} packed, {structs} as structs"
        );
        assert!(
            packed * 3 < wire * 2,
            "{packed} packed, {wire} in the wire format"
        );
    }
}
