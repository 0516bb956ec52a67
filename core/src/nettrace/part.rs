//! A part of an EventPipe trace, decoded on its own ([`crate::parts`] splits the file and merges the
//! parts back). A part decodes event blocks (and counts stack blocks) with the metadata and thread
//! tables the sequential decoder has before them ([`PartContext`]), through the same row loop
//! ([`super::rows`]), and records what each block does: its delivered events (their payloads stay
//! where they are, in the part's bytes) and its counts ([`BlockPiece`]). The merge ([`super::Decoder::apply_piece`]) then does, in file
//! order, exactly what the sequential decoder does with the block, so the events come out the same.
//!
//! What a part cannot reproduce from its context it leaves: at a metadata definition inside an event
//! block, an event of a payload-named entry skipped by the filter, a block big enough to reach the
//! sort buffer's budget checks, or any error, the part stops ([`NetPart::stopped`]) and the merge
//! decodes that block and everything after it sequentially.

use super::event_block::Dialect;
use super::metadata::MetaView;
use super::rows::{self, Entry, RowSink};
use super::sequence_point;
use super::stack;
use super::v6::V6State;
use crate::bytes::Cursor;
use crate::clr::gc::{TickDigest, TypeIndex};
use crate::error::{Error, Result};
use crate::sort::{Pending, ARENA, NO_TICK};
use alloc::boxed::Box;
use alloc::vec::Vec;

/// What a part needs to decode event blocks on its own: the sequential decoder's state before the
/// part's first block, as far as decoding rows reads it.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PartContext {
    /// NetTrace V6 rows and blocks (else V4/V5).
    pub v6: bool,
    pub pointer_size: u8,
    /// The trace header's sync time (for the latest-event figure of skipped events).
    pub sync_time_qpc: i64,
    pub meta: MetaView,
    pub tables: V6State,
}

/// Which kind of block a part decodes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BlockKind {
    #[default]
    Events,
    Stacks,
}

/// What one block did, for the merge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockPiece {
    pub kind: BlockKind,
    /// Bytes of the block's rows: what the sequential decoder copies into the sort buffer at the
    /// block's first delivered event (the budget counts them).
    pub rows_len: u32,
    /// Delivered events: the next this many of [`NetPart::events`].
    pub events: u32,
    /// Timestamp of the block's last delivered IsSorted event.
    pub sorted_up_to: Option<i64>,
    /// Capture threads seen: the next this many of [`NetPart::runs`].
    pub runs: u32,
    /// Events dropped between consecutive events of a capture thread inside the block.
    pub dropped: u64,
    /// Entries whose events the filter skipped: the next this many of [`NetPart::skips`].
    pub skips: u32,
    /// Largest `timestamp - sync time` (wrapping) of the skipped events.
    pub skipped_last_since_sync: Option<i64>,
    /// Events whose metadata id was not defined.
    pub unknown: u64,
    /// Stack blocks: the stacks in it.
    pub stacks: u64,
    /// Stack blocks: where the block's content lies in the part's bytes ([`NetPart::payloads`]),
    /// `stack_start..stack_start + stack_len`, for the merge to intern its stacks in file order
    /// where the reader keeps them.
    pub stack_start: u32,
    pub stack_len: u32,
}

/// The events of one capture thread in one block: sequence numbers `first` to `last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeqRun {
    pub thread: u64,
    pub first: u32,
    pub last: u32,
}

/// Skipped events of one metadata entry in one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkipCount {
    pub entry: u32,
    pub count: u64,
    pub earliest: i64,
}

/// A part's result: one piece per block, in file order, until the part stopped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NetPart {
    pub blocks: Vec<BlockPiece>,
    /// Delivered events; `payload_start` points into [`payloads`](Self::payloads), `tick` into
    /// [`ticks`](Self::ticks).
    pub events: Vec<Pending>,
    /// The delivered GCAllocationTicks decoded here, so the merging thread need not decode them
    /// (see [`TickDigest`]).
    pub ticks: Vec<TickDigest>,
    /// The ticks' type names ([`TypeRef::part`](crate::clr::gc::TypeRef::part) of `ticks` index
    /// it), which the merge renumbers into its own table; None: the part does not intern them
    /// ([`Task::intern_types`](crate::parts::Task::intern_types)).
    /// (Boxed: the part's output stays small to move.)
    pub types: Option<Box<TypeIndex>>,
    /// The part's bytes, which hold the payloads (not copied out of them).
    pub payloads: Vec<u8>,
    pub runs: Vec<SeqRun>,
    pub skips: Vec<SkipCount>,
    /// The block (index among the part's blocks) the part could not decode on its own: the merge
    /// decodes it and everything after it sequentially. None: every block is in `blocks`.
    pub stopped: Option<u32>,
}

impl NetPart {
    /// This output with nothing in it and its vectors' memory kept, to decode another task into
    /// (see [`crate::parts::decode_reusing`]).
    /// Only the vectors of records are kept; every other field (a field added later included)
    /// starts from the default, as in a new output.
    pub fn emptied(self) -> NetPart {
        let NetPart {
            mut blocks,
            mut events,
            mut ticks,
            mut runs,
            mut skips,
            ..
        } = self;
        blocks.clear();
        events.clear();
        ticks.clear();
        runs.clear();
        skips.clear();
        NetPart {
            blocks,
            events,
            ticks,
            runs,
            skips,
            ..NetPart::default()
        }
    }

    /// Decodes the next block of the part: `kind`, its content `content` at stream offset `at`,
    /// `content_offset` bytes into the part's bytes (which become [`payloads`](Self::payloads)).
    /// Returns false (and records nothing of it) if the part must stop here.
    pub fn decode_block(
        &mut self,
        ctx: &PartContext,
        kind: BlockKind,
        content: &[u8],
        at: u64,
        content_offset: usize,
    ) -> bool {
        if self.stopped.is_some() {
            return false;
        }
        if content_offset.saturating_add(content.len()) > u32::MAX as usize {
            self.stopped = Some(self.blocks.len() as u32);
            return false;
        }
        let marks = (
            self.events.len(),
            self.runs.len(),
            self.skips.len(),
            self.ticks.len(),
        );
        let mut c = Cursor::new(content, at);
        let piece = match kind {
            BlockKind::Stacks => {
                stack::read_stack_block(&mut c, ctx.pointer_size, None).map(|n| BlockPiece {
                    kind: BlockKind::Stacks,
                    stacks: n as u64,
                    stack_start: content_offset as u32,
                    stack_len: content.len() as u32,
                    ..Default::default()
                })
            }
            BlockKind::Events => {
                let dialect = if ctx.v6 { Dialect::V6 } else { Dialect::V4 };
                let mut out = Recorder {
                    ctx,
                    part: self,
                    piece: BlockPiece::default(),
                    last_run: None,
                    last_skip: None,
                    content_end: (content_offset + content.len()) as u32,
                    rows_base: 0,
                };
                rows::decode(&mut c, dialect, &mut out).map(|()| out.piece)
            }
        };
        match piece {
            Ok(p) => {
                self.blocks.push(p);
                true
            }
            Err(_) => {
                // The sequential decoder reads this block again and says what is wrong with it.
                self.events.truncate(marks.0);
                self.runs.truncate(marks.1);
                self.skips.truncate(marks.2);
                self.ticks.truncate(marks.3);
                self.stopped = Some(self.blocks.len() as u32);
                false
            }
        }
    }
}

/// Why a part stops at a block (never shown: the sequential decoder decodes the block again).
fn leave(at: u64) -> Error {
    Error::malformed(at, "left to the sequential decoder")
}

/// The part's [`RowSink`]: records each block's effects.
struct Recorder<'c, 'p> {
    ctx: &'c PartContext,
    part: &'p mut NetPart,
    piece: BlockPiece,
    /// Index in `part.runs` of the last capture thread seen in this block.
    last_run: Option<usize>,
    /// Index in `part.skips` of the last entry skipped in this block.
    last_skip: Option<usize>,
    /// Where the block's content ends in the part's bytes, and where its rows start.
    content_end: u32,
    rows_base: u32,
}

impl<'r> RowSink<'r> for Recorder<'_, '_> {
    fn begin(&mut self, rows: &'r [u8]) {
        self.piece.rows_len = rows.len() as u32;
        // The rows are the end of the block's content.
        self.rows_base = self.content_end - rows.len() as u32;
    }

    fn define(&mut self, _payload: &[u8], at: u64) -> crate::error::Result<()> {
        // Later parts were given the metadata without this definition.
        Err(leave(at))
    }

    #[inline]
    fn lookup(&self, id: u32) -> Option<Entry> {
        let index = self.ctx.meta.lookup(id)?;
        let m = self.ctx.meta.entry(index)?;
        Some(Entry {
            index,
            deliver: m.deliver,
            version: m.version,
        })
    }

    #[inline]
    fn v6_version(&self, label_list: u32) -> Option<u32> {
        self.ctx.tables.version_override(label_list).map(u32::from)
    }

    #[inline]
    fn v6_thread(&self, index: u64) -> u64 {
        self.ctx.tables.os_thread(index)
    }

    #[inline]
    fn sequence(&mut self, thread: u64, seq: u32) {
        let runs = &mut self.part.runs;
        let first = runs.len() - self.piece.runs as usize;
        let i = match self.last_run {
            Some(i) if runs[i].thread == thread => Some(i),
            _ => (first..runs.len()).find(|&i| runs[i].thread == thread),
        };
        match i {
            Some(i) => {
                self.piece.dropped += sequence_point::gap(runs[i].last, seq);
                runs[i].last = seq;
                self.last_run = Some(i);
            }
            None => {
                runs.push(SeqRun {
                    thread,
                    first: seq,
                    last: seq,
                });
                self.piece.runs += 1;
                self.last_run = Some(runs.len() - 1);
            }
        }
    }

    fn unknown(&mut self) {
        self.piece.unknown += 1;
    }

    #[inline]
    fn skip(&mut self, index: u32, _version: u32, timestamp: i64, _payload: &[u8]) -> Result<()> {
        if self.ctx.meta.entry(index).is_none_or(|m| m.payload_named) {
            // Its name depends on the payload: the sequential decoder counts it.
            return Err(leave(0));
        }
        let d = timestamp.wrapping_sub(self.ctx.sync_time_qpc);
        if self.piece.skipped_last_since_sync.is_none_or(|l| d > l) {
            self.piece.skipped_last_since_sync = Some(d);
        }
        let skips = &mut self.part.skips;
        let first = skips.len() - self.piece.skips as usize;
        let i = match self.last_skip {
            Some(i) if skips[i].entry == index => Some(i),
            _ => (first..skips.len()).find(|&i| skips[i].entry == index),
        };
        match i {
            Some(i) => {
                skips[i].count += 1;
                skips[i].earliest = skips[i].earliest.min(timestamp);
                self.last_skip = Some(i);
            }
            None => {
                skips.push(SkipCount {
                    entry: index,
                    count: 1,
                    earliest: timestamp,
                });
                self.piece.skips += 1;
                self.last_skip = Some(skips.len() - 1);
            }
        }
        Ok(())
    }

    #[inline]
    fn deliver(&mut self, mut p: Pending, payload: &[u8], _at: u64) -> Result<()> {
        // The payload stays in the part's bytes (the block's rows start at `rows_base` in them).
        p.payload_start += self.rows_base;
        p.chunk = ARENA;
        p.tick = NO_TICK;
        if self
            .ctx
            .meta
            .entry(p.metadata)
            .is_some_and(|m| m.alloc_tick)
        {
            let (version, ptr) = (p.version, self.ctx.pointer_size);
            let digest = match self.part.types.as_deref_mut() {
                Some(types) => TickDigest::of_interned(payload, version, ptr, types),
                None => TickDigest::of(payload, version, ptr),
            };
            if let Some(d) = digest {
                p.tick = self.part.ticks.len() as u32;
                self.part.ticks.push(d);
            }
        }
        self.part.events.push(p);
        self.piece.events += 1;
        Ok(())
    }

    fn checkpoint(&mut self) -> Result<()> {
        // The budget check in the middle of a block reads the sort buffer: the sequential decoder's.
        Err(leave(0))
    }

    fn end(&mut self, sorted_up_to: Option<i64>) {
        self.piece.sorted_up_to = sorted_up_to;
    }
}
