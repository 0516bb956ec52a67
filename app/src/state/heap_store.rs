//! Each GC's per-heap histories (GCPerHeapHistory), kept packed and compressed beside the rows
//! rather than in them. A 32-heap server GC has 32 histories per GC: as `HeapHistory` structs they
//! are most of a row, and the messages and the tab grow by them with every GC
//! (docs/performance-log/journal.md, "Earlier (stop 12)"). Packed (core `gc::packed`) they are
//! several times smaller (docs/performance-log/journal.md, "Latest (stop 13)"), and LZ4 frames of
//! whole rows (`protocol::heaps`) shrink that again (the ratios:
//! docs/performance-log/journal.md, "A stall in the sort buffer"); they travel as
//! one byte string per batch (`protocol::heaps::HeapBatch`), and are decompressed and unpacked only
//! where a view needs them: the detail panel (one GC), the budgets (while the insights are finished,
//! one GC at a time; per heap for the rows shown). The last frame decompressed is kept, so reading
//! the rows in order decompresses each frame once. The text filter's words (per-heap condemn
//! conditions and mechanisms) are kept per GC as an interned set.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Mutex;

use gcscope_core::gc::packed::{self, HeapSource};
use gcscope_core::gc::HeapHistory;

use crate::protocol::heaps::{row_start, HeapBatch};

/// A batch as kept: its compressed frames and where its rows and frames end (see [`HeapBatch`]).
#[derive(Debug, Default)]
struct Block {
    first: usize,
    bytes: Vec<u8>,
    frame_ends: Vec<u32>,
    frame_rows: Vec<u32>,
    ends: Vec<u32>,
    counts: Vec<u32>,
}

/// The frame decompressed last: (block, frame) and its packed bytes.
#[derive(Debug, Default)]
struct Frame {
    at: Option<(usize, usize)>,
    bytes: Vec<u8>,
}

/// Every row's heaps, by row index (the page's side).
#[derive(Debug, Default)]
pub struct HeapStore {
    blocks: Vec<Block>,
    /// Per row: which word set (`sets`) it has.
    row_words: Vec<u32>,
    sets: Vec<Vec<String>>,
    set_ids: HashMap<Vec<String>, u32>,
    /// A Mutex, not a RefCell: the store lives in a `StoredValue`, which must be Sync (the page
    /// has one thread: it is never contended).
    frame: Mutex<Frame>,
}

impl HeapStore {
    /// Appends a batch; its rows are the next `batch.ends.len()` rows.
    pub fn push(&mut self, batch: HeapBatch) {
        let HeapBatch {
            mut bytes,
            frame_ends,
            frame_rows,
            ends,
            counts,
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
            self.blocks.push(Block {
                first,
                bytes,
                frame_ends,
                frame_rows,
                ends,
                counts,
            });
        }
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.blocks.last().map_or(0, |b| b.first + b.ends.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held by the compressed heaps (for the benchmark's notes and tests).
    pub fn packed_bytes(&self) -> usize {
        self.blocks.iter().map(|b| b.bytes.len()).sum()
    }

    /// Calls `f` with row `i`'s packed heaps (empty past the end, or if its frame does not
    /// decompress: the bytes come from the worker, so that would be a bug, shown as no heaps).
    fn with_packed<R>(&self, i: usize, f: impl FnOnce(&[u8]) -> R) -> R {
        let k = self.blocks.partition_point(|b| b.first <= i);
        let Some((k, b)) = k
            .checked_sub(1)
            .and_then(|k| Some((k, self.blocks.get(k)?)))
        else {
            return f(&[]);
        };
        let j = i - b.first;
        let Some(&end) = b.ends.get(j) else {
            return f(&[]);
        };
        let n = b.frame_rows.partition_point(|&r| r as usize <= j);
        let Some(&frame_end_row) = b.frame_rows.get(n) else {
            return f(&[]);
        };
        let first_row = if n == 0 {
            0
        } else {
            b.frame_rows[n - 1] as usize
        };
        let frame_start = row_start(&b.ends, first_row);
        let frame_len = row_start(&b.ends, frame_end_row as usize).saturating_sub(frame_start);
        let mut frame = self.frame.lock().unwrap_or_else(|e| e.into_inner());
        if frame.at != Some((k, n)) {
            frame.at = None;
            frame.bytes.clear();
            frame.bytes.resize(frame_len as usize, 0);
            let from = if n == 0 {
                0
            } else {
                b.frame_ends[n - 1] as usize
            };
            let to = b.frame_ends[n] as usize;
            let done = b
                .bytes
                .get(from..to)
                .map(|c| lz4_flex::block::decompress_into(c, &mut frame.bytes));
            if !matches!(done, Some(Ok(len)) if len == frame_len as usize) {
                frame.bytes.clear();
                return f(&[]);
            }
            frame.at = Some((k, n));
        }
        let start = (row_start(&b.ends, j) - frame_start) as usize;
        f(frame
            .bytes
            .get(start..(end - frame_start) as usize)
            .unwrap_or(&[]))
    }

    /// Row `i`'s heaps, in heap order (empty when it has none, or past the end).
    pub fn unpack(&self, i: usize) -> Vec<HeapHistory> {
        // The bytes come from the worker's `pack`: an error means a bug, shown as no heaps.
        self.with_packed(i, |p| packed::unpack(p).unwrap_or_default())
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
        let k = self.blocks.partition_point(|b| b.first <= i);
        k.checked_sub(1)
            .and_then(|k| self.blocks.get(k))
            .and_then(|b| b.counts.get(i - b.first))
            .map_or(0, |&n| n as usize)
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
    fn rows_over_many_frames_read_back_in_any_order_and_a_damaged_frame_reads_as_none() {
        // 25 copies of the fixture's rows: several frames per batch, read back in order, backwards
        // and hopping between frames (each read may decompress another frame).
        let one = server_rows();
        let rows: Vec<Gc> = (0..25).flat_map(|_| one.iter().cloned()).collect();
        let mut store = HeapStore::default();
        let (a, b) = rows.split_at(rows.len() / 3);
        let mut batches = Vec::new();
        for part in [a, b] {
            let mut part = part.to_vec();
            batches.push(HeapBatch::take(&mut part));
        }
        assert!(
            batches[1].frame_rows.len() > 2,
            "{:?}",
            batches[1].frame_rows
        );
        for batch in batches {
            store.push(batch);
        }
        assert_eq!(store.len(), rows.len());
        let n = rows.len();
        let order = (0..n)
            .chain((0..n).rev())
            .chain((0..n).map(|k| k * 7919 % n));
        for i in order {
            assert_eq!(store.unpack(i), rows[i].heaps, "row {i}");
            assert_eq!(store.heap_count(i), rows[i].heaps.len(), "row {i}");
        }
        let raw: usize = rows
            .iter()
            .map(|g| {
                let mut p = Vec::new();
                packed::pack(&g.heaps, &mut p);
                p.len()
            })
            .sum();
        assert!(
            store.packed_bytes() * 2 < raw,
            "{} compressed of {raw}",
            store.packed_bytes()
        );
        // A frame whose bytes are not LZ4 (a bug, not input): its rows have no heaps, the others
        // still read.
        let last = store.blocks.len() - 1;
        let b = &mut store.blocks[last];
        let cut = b.frame_ends[0] as usize;
        b.bytes[..cut].fill(0xff);
        let first_row = b.first;
        let next_frame_row = b.first + b.frame_rows[0] as usize;
        *store.frame.lock().unwrap() = Frame::default();
        assert!(store.unpack(first_row).is_empty());
        assert_eq!(store.unpack(next_frame_row), rows[next_frame_row].heaps);
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
        // Much smaller than the same heaps as structs in the page (as a `Gc` row holds them:
        // counted here without the strings' own bytes, so a lower bound), and than the same heaps
        // in the wire format (postcard: its varints shrink them too, less than packing does).
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
