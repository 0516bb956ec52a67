//! A batch of rows' per-heap histories, packed (core `gc::packed`) and LZ4-compressed in frames of
//! whole rows, as it travels beside the rows (`ToUi::Gcs`); the page keeps them so in
//! `heap_store::HeapStore` and decompresses a frame when a view reads one of its rows.
//!
//! Why compressed: a Server GC's packed heaps grow with its heap count and are most of the page's
//! memory on a long trace. Consecutive heaps and GCs repeat most of their numbers, which LZ4 finds,
//! and a frame decompresses quickly (the ratios and sizes:
//! docs/performance-log/journal.md, "A stall in the sort buffer"). Frames of about
//! [`FRAME_BYTES`] keep a visit to one GC (the detail panel) cheap.

use gcscope_core::gc::packed;
use gcscope_core::gc::{Gc, Name};
use serde::{Deserialize, Serialize};

/// Packed bytes compressed together (a frame ends after the row that reaches this many).
pub const FRAME_BYTES: usize = 32 << 10;

/// One batch of rows' heaps, in the rows' order (`ToUi::Gcs`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeapBatch {
    /// The frames, one after the other: each the LZ4 block of its rows' packed heaps.
    #[serde(with = "super::wire::byte_chunks")]
    pub bytes: Vec<u8>,
    /// Where each frame ends in `bytes`.
    pub frame_ends: Vec<u32>,
    /// Where each frame's rows end: the index (in the batch) of the row after its last.
    pub frame_rows: Vec<u32>,
    /// Where each row's packed heaps end in the batch's packed bytes (before compression).
    pub ends: Vec<u32>,
    /// Each row's number of heaps: read for every row by the insights (which GC before this one
    /// has heaps), so without decompressing a frame.
    pub counts: Vec<u32>,
    /// Each row's words for the text filter (`packed::heap_words`).
    pub words: Vec<Vec<Name>>,
}

/// Where row `j`'s packed heaps start in the batch's packed bytes.
pub fn row_start(ends: &[u32], j: usize) -> u32 {
    j.checked_sub(1)
        .and_then(|k| ends.get(k))
        .copied()
        .unwrap_or(0)
}

impl HeapBatch {
    /// Moves the heaps out of `rows` (the worker's side), packed and compressed.
    pub fn take(rows: &mut [Gc]) -> HeapBatch {
        let mut b = HeapBatch {
            ends: Vec::with_capacity(rows.len()),
            counts: Vec::with_capacity(rows.len()),
            words: Vec::with_capacity(rows.len()),
            ..HeapBatch::default()
        };
        // The current frame's packed bytes, and the batch's packed bytes before it.
        let mut frame = Vec::new();
        let mut base = 0u32;
        let last = rows.len().saturating_sub(1);
        for (j, g) in rows.iter_mut().enumerate() {
            let heaps = std::mem::take(&mut g.heaps);
            packed::pack(&heaps, &mut frame);
            b.ends.push(base + frame.len() as u32);
            b.counts.push(heaps.len() as u32);
            b.words.push(packed::heap_words(&heaps));
            if frame.len() >= FRAME_BYTES || j == last {
                b.bytes
                    .extend_from_slice(&lz4_flex::block::compress(&frame));
                b.frame_ends.push(b.bytes.len() as u32);
                b.frame_rows.push(j as u32 + 1);
                base += frame.len() as u32;
                frame.clear();
            }
        }
        b
    }
}
