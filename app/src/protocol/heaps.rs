//! A batch of rows' per-heap histories, packed (core `gc::packed`), as it travels beside the rows
//! (`ToUi::Gcs`); the page keeps them in `heap_store::HeapStore`.

use gcscope_core::gc::packed;
use gcscope_core::gc::{Gc, Name};
use serde::{Deserialize, Serialize};

/// One batch of rows' heaps, in the rows' order (`ToUi::Gcs`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeapBatch {
    /// Every row's packed heaps, one after the other.
    #[serde(with = "super::wire::byte_chunks")]
    pub bytes: Vec<u8>,
    /// Where each row's packed heaps end in `bytes`.
    pub ends: Vec<u32>,
    /// Each row's words for the text filter (`packed::heap_words`).
    pub words: Vec<Vec<Name>>,
}

impl HeapBatch {
    /// Moves the heaps out of `rows` (the worker's side).
    pub fn take(rows: &mut [Gc]) -> HeapBatch {
        let mut b = HeapBatch {
            bytes: Vec::new(),
            ends: Vec::with_capacity(rows.len()),
            words: Vec::with_capacity(rows.len()),
        };
        for g in rows {
            let heaps = std::mem::take(&mut g.heaps);
            packed::pack(&heaps, &mut b.bytes);
            b.ends.push(b.bytes.len() as u32);
            b.words.push(packed::heap_words(&heaps));
        }
        b
    }
}
