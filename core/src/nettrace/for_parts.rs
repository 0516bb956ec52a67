//! What the decoder offers decoding in parts (see [`crate::parts`]): the planner frames units with
//! [`Decoder::frame`], a part takes its context from [`Decoder::part_context`], and the merge gives
//! the decoder what a part recorded of a block with [`Decoder::apply_piece`].

use super::framing::{self, ObjectKind, Peek};
use super::Decoder;
use super::{part, stack, v6, Frame, Stage};
use crate::bytes::Cursor;
use crate::clr::gc::TickDigest;
use crate::error::Result;
use crate::sink::{DecodeStats, Sink};
use crate::sort::Pending;
use alloc::vec::Vec;

impl Decoder {
    /// What the unit at the start of `buf` (stream offset `base`) is, without decoding it. An error
    /// is the decoder's to report: the caller leaves the rest to [`step`](Self::step).
    pub fn frame(&self, buf: &[u8], base: u64) -> Result<Frame> {
        match self.stage {
            Stage::Start | Stage::StreamHeader => Ok(Frame::Step),
            Stage::InlineEvents | Stage::End => Ok(Frame::Sequential),
            Stage::Objects => {
                let Some(&first) = buf.first() else {
                    return Ok(Frame::NeedMore(1));
                };
                if first == framing::tag::NULL_REFERENCE {
                    return Ok(Frame::Sequential);
                }
                let h = match framing::peek_object_header(buf, base)? {
                    Peek::Ready(h) => h,
                    Peek::NeedMore(n) => return Ok(Frame::NeedMore(n)),
                };
                let kind = match h.kind {
                    _ if self.info.is_none() => return Ok(Frame::Step),
                    ObjectKind::EventBlock if self.version <= 3 => return Ok(Frame::Sequential),
                    ObjectKind::EventBlock => part::BlockKind::Events,
                    ObjectKind::StackBlock => part::BlockKind::Stacks,
                    _ => return Ok(Frame::Step),
                };
                let body = &buf[h.header_len..];
                // Only the size: the planner steps over the block without reading it, and the
                // part that reads it checks its end tag (see `parts::decode`).
                match framing::peek_block_size(body, base + h.header_len as u64)? {
                    Peek::Ready((start, len, total)) => Ok(Frame::Block {
                        kind,
                        len: h.header_len + total,
                        content_start: h.header_len + start,
                        content_len: len,
                    }),
                    Peek::NeedMore(n) => Ok(Frame::NeedMore(h.header_len + n)),
                }
            }
            Stage::V6Blocks => {
                if buf.len() < 4 {
                    return Ok(Frame::NeedMore(4));
                }
                let word = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]);
                let size = (word & 0x00ff_ffff) as usize;
                let kind = match (word >> 24) as u8 {
                    v6::kind::END_OF_STREAM => return Ok(Frame::Sequential),
                    _ if self.info.is_none() => return Ok(Frame::Step),
                    v6::kind::EVENT => part::BlockKind::Events,
                    v6::kind::STACK => part::BlockKind::Stacks,
                    _ => return Ok(Frame::Step),
                };
                // No end tag in V6: the part that reads the block finds it whole or not.
                Ok(Frame::Block {
                    kind,
                    len: 4 + size,
                    content_start: 4,
                    content_len: size,
                })
            }
        }
    }

    /// What a part needs to decode the blocks that follow on its own (see [`part`]).
    pub fn part_context(&self) -> part::PartContext {
        part::PartContext {
            v6: self.version == 6,
            pointer_size: self.pointer_size,
            sync_time_qpc: self.info.as_ref().map_or(0, |i| i.sync_time_qpc),
            meta: self.meta.view(),
            tables: self.v6.clone(),
        }
    }

    /// Changes so far of what [`part_context`](Self::part_context) holds: equal counts, equal
    /// contexts.
    pub fn part_context_changes(&self) -> u64 {
        self.meta.changes() + self.v6.changes() + u64::from(self.info.is_some())
    }

    /// Does to the decoder's state what decoding the block a part recorded as `piece` does (see
    /// [`part`]): `events` are its delivered events, their payloads in `payloads` (held by the sort
    /// buffer, not copied), `runs` and `skips` its sequence runs and skipped-event counts. Returns
    /// false, having changed nothing, where the record cannot stand for the block: the caller
    /// then decodes the block, and everything after it, sequentially.
    #[allow(clippy::too_many_arguments)]
    pub fn apply_piece(
        &mut self,
        piece: &part::BlockPiece,
        events: &[Pending],
        ticks: &[TickDigest],
        runs: &[part::SeqRun],
        skips: &[part::SkipCount],
        payloads: &alloc::rc::Rc<Vec<u8>>,
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> bool {
        let entries = self.meta.len() as u32;
        let fits = |p: &Pending| {
            p.metadata < entries
                && (p.payload_start as usize)
                    .checked_add(p.payload_len as usize)
                    .is_some_and(|end| end <= payloads.len())
        };
        if self.info.is_none()
            || (piece.events > 0 && !self.sorter.can_account(piece.rows_len as usize))
            || !events.iter().all(fits)
            || !skips.iter().all(|s| s.entry < entries)
        {
            return false;
        }
        if piece.kind == part::BlockKind::Stacks {
            return self.apply_stack_piece(piece, payloads, stats);
        }
        stats.blocks += 1;
        self.current = "EventBlock";
        for r in runs {
            self.seq.run(r.thread, r.first, r.last);
        }
        self.seq.dropped += piece.dropped;
        stats.skipped_events += piece.unknown;
        for s in skips {
            let provider = self.meta.entry(s.entry).provider;
            self.tally
                .skipped_many(s.entry, provider, s.count, s.earliest);
            stats.events += s.count;
            stats.filtered_events += s.count;
        }
        if let Some(d) = piece.skipped_last_since_sync {
            self.tally.saw_since(d);
        }
        if piece.events > 0 {
            self.tick_lane_ready();
            self.sorter.account(piece.rows_len as usize);
            let chunk = self.sorter.adopt(payloads);
            for p in events {
                let mut p = *p;
                p.chunk = chunk;
                // A digest the part did not make (a message from elsewhere) is not used.
                self.sorter
                    .push_tick(p, ticks.get(p.tick as usize).copied());
            }
        }
        self.end_block(piece.sorted_up_to, stats, sink);
        true
    }

    /// A stack block a part read: counted, and where the reader keeps stacks, read again from the
    /// part's bytes to intern its stacks here, in file order, as the sequential decoder does (the
    /// part has validated it; a record that does not fit the bytes changes nothing).
    fn apply_stack_piece(
        &mut self,
        piece: &part::BlockPiece,
        payloads: &[u8],
        stats: &mut DecodeStats,
    ) -> bool {
        if let Some(table) = &mut self.stacks {
            let start = piece.stack_start as usize;
            let Some(content) = start
                .checked_add(piece.stack_len as usize)
                .and_then(|end| payloads.get(start..end))
            else {
                return false;
            };
            let read = |t: Option<&mut crate::stacks::StackTable>| {
                stack::read_stack_block(&mut Cursor::new(content, 0), self.pointer_size, t)
            };
            if read(None).ok().map(u64::from) != Some(piece.stacks) {
                return false;
            }
            let _ = read(Some(table));
        }
        stats.blocks += 1;
        self.current = "StackBlock";
        stats.stacks += piece.stacks;
        true
    }
}
