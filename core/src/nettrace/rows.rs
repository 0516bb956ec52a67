//! The rows of an EventBlock or MetadataBlock (V4+ layout): one loop reads every event header and
//! hands each event to a [`RowSink`]. The sequential decoder's sink ([`Direct`]) defines metadata,
//! counts and orders the events at once; a part's sink ([`super::part`]) records what they would
//! do, for the merge to do it in file order. One loop for both is what makes a trace decoded in
//! parts give exactly the sequential decoder's events.

use super::event_block::{self, Dialect, EventHeader};
use super::Decoder;
use crate::bytes::Cursor;
use crate::error::{Error, Result};
use crate::sink::{DecodeStats, Sink};
use crate::sort::{Pending, ARENA};

/// Delivered events of one block between two checks of the sort buffer's budget (7 MiB of records):
/// the runtime's blocks (~100 KB) hold fewer even of 2-byte events, so only a crafted block, which
/// can hold millions, is checked before its end.
pub const CHECK_EVERY: u32 = 1 << 17;

/// What the decoder knows of one metadata id when an event refers to it.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// Index of the metadata entry (the events' [`Pending::metadata`]).
    pub index: u32,
    /// The consumer's filter delivers its events.
    pub deliver: bool,
    pub version: u32,
}

/// Where the events of a block's rows go, in file order.
pub trait RowSink<'r> {
    /// The block's rows (what follows its header), before its first event.
    fn begin(&mut self, rows: &'r [u8]);
    /// An event with metadata id 0: a metadata definition (`at`: stream offset of the payload).
    fn define(&mut self, payload: &[u8], at: u64) -> Result<()>;
    /// The metadata of `id`, if it is defined.
    fn lookup(&self, id: u32) -> Option<Entry>;
    /// V6: the event version a label list overrides the metadata's with.
    fn v6_version(&self, label_list: u32) -> Option<u32>;
    /// V6: the OS thread id of a thread index.
    fn v6_thread(&self, index: u64) -> u64;
    /// A data event's capture thread and sequence number (every data event, known metadata or not).
    fn sequence(&mut self, capture_thread: u64, sequence: u32);
    /// A data event whose metadata id is not defined.
    fn unknown(&mut self);
    /// An event the consumer's filter skips.
    fn skip(&mut self, index: u32, version: u32, timestamp: i64, payload: &[u8]) -> Result<()>;
    /// An event to deliver; `p.payload_start` is the payload's position in the block's rows, `at`
    /// the stream offset of the event's header.
    fn deliver(&mut self, p: Pending, payload: &[u8], at: u64) -> Result<()>;
    /// After every [`CHECK_EVERY`] delivered events of the block.
    fn checkpoint(&mut self) -> Result<()>;
    /// The end of the block; `sorted_up_to`: the timestamp of its last delivered IsSorted event.
    fn end(&mut self, sorted_up_to: Option<i64>);
}

/// Reads the block header and every event of the block at `c` into `out`.
pub fn decode<'r>(c: &mut Cursor<'r>, dialect: Dialect, out: &mut impl RowSink<'r>) -> Result<()> {
    let compressed = event_block::read_block_header(c)?;
    let (rows, rows_pos) = (c.rest(), c.pos());
    out.begin(rows);
    // Timestamp of the last IsSorted event: nothing after it in the file is earlier.
    let mut sorted_up_to: Option<i64> = None;
    let mut delivered = 0u32;
    let mut h = EventHeader::default();
    while !c.is_empty() {
        let at = c.offset();
        // Uncompressed rows say where they end (payload plus padding); compressed rows end right
        // after the payload.
        let event_end = if compressed {
            h.read_compressed(c, dialect)?;
            None
        } else {
            Some(h.read_uncompressed(c, dialect)?)
        };
        let payload_pos = c.pos();
        let payload_at = c.offset();
        let payload = c.bytes(h.payload_size as usize, "event payload")?;
        if let Some(end) = event_end {
            if end < c.pos() {
                return Err(Error::malformed(
                    at,
                    "event size smaller than its header and payload",
                ));
            }
            c.skip(end - c.pos(), "event padding")?;
        }
        if h.metadata_id == 0 {
            out.define(payload, payload_at)?;
            continue;
        }
        out.sequence(h.capture_thread_id, h.sequence);
        let Some(m) = out.lookup(h.metadata_id) else {
            out.unknown();
            continue;
        };
        let mut version = m.version;
        if dialect == Dialect::V6 {
            if let Some(v) = out.v6_version(h.label_list) {
                version = v;
            }
        }
        if !m.deliver {
            out.skip(m.index, version, h.timestamp, payload)?;
            continue;
        }
        let (thread, capture) = if dialect == Dialect::V6 {
            (
                out.v6_thread(h.thread_id),
                out.v6_thread(h.capture_thread_id),
            )
        } else {
            (h.thread_id, h.capture_thread_id)
        };
        let p = Pending {
            timestamp: h.timestamp,
            thread_id: thread,
            capture_thread_id: capture,
            metadata: m.index,
            version,
            sequence: h.sequence,
            processor: h.processor,
            stack_id: h.stack_id,
            payload_start: (payload_pos - rows_pos) as u32,
            payload_len: h.payload_size,
            chunk: ARENA,
            tick: crate::sort::NO_TICK,
        };
        out.deliver(p, payload, at)?;
        if h.sorted {
            sorted_up_to = Some(h.timestamp);
        }
        delivered += 1;
        if delivered.is_multiple_of(CHECK_EVERY) {
            out.checkpoint()?;
        }
    }
    out.end(sorted_up_to);
    Ok(())
}

/// The sequential decoder's sink: every event goes straight into the decoder's state.
pub(super) struct Direct<'d, 's, 'k, 'r> {
    pub d: &'d mut Decoder,
    pub stats: &'s mut DecodeStats,
    pub sink: &'s mut Sink<'k>,
    pub rows: &'r [u8],
    /// Where the rows are in the sort buffer's arena, once copied (at the first delivered event).
    pub arena_base: Option<u32>,
}

impl<'r> RowSink<'r> for Direct<'_, '_, '_, 'r> {
    fn begin(&mut self, rows: &'r [u8]) {
        self.rows = rows;
        self.arena_base = None;
    }

    fn define(&mut self, payload: &[u8], at: u64) -> Result<()> {
        self.d.define_metadata_v4(payload, at, self.stats)
    }

    #[inline]
    fn lookup(&self, id: u32) -> Option<Entry> {
        let index = self.d.meta.lookup(id)?;
        let m = self.d.meta.entry(index);
        Some(Entry {
            index,
            deliver: m.deliver,
            version: m.version,
        })
    }

    #[inline]
    fn v6_version(&self, label_list: u32) -> Option<u32> {
        self.d.v6.version_override(label_list).map(u32::from)
    }

    #[inline]
    fn v6_thread(&self, index: u64) -> u64 {
        self.d.v6.os_thread(index)
    }

    #[inline]
    fn sequence(&mut self, capture_thread: u64, sequence: u32) {
        self.d.seq.event(capture_thread, sequence);
    }

    fn unknown(&mut self) {
        self.stats.skipped_events += 1;
    }

    #[inline]
    fn skip(&mut self, index: u32, version: u32, timestamp: i64, payload: &[u8]) -> Result<()> {
        self.d.skip(index, version, timestamp, payload, self.stats);
        Ok(())
    }

    #[inline]
    fn deliver(&mut self, mut p: Pending, payload: &[u8], at: u64) -> Result<()> {
        // The rows are copied into the sort buffer once, as a whole, at the first delivered
        // event; events then refer to their payloads by offset (no per-event copy).
        let base = match self.arena_base {
            Some(b) => b,
            None => {
                let b = match self.d.sorter.append(self.rows) {
                    Some(b) => b,
                    None => {
                        // A region over 4 GiB: deliver what is buffered early rather than fail.
                        self.d.flush(self.stats, self.sink);
                        self.d
                            .sorter
                            .append(self.rows)
                            .ok_or_else(|| Error::malformed(at, "event block over 4 GiB"))?
                    }
                };
                self.arena_base = Some(b);
                b
            }
        };
        p.payload_start += base;
        // An allocation tick waits in the tick lane, if the reader has one (see `Decoder::lane_digest`).
        match self.d.lane_digest(&p, payload) {
            Some(d) => self.d.sorter.push_tick(p, Some(d)),
            None => self.d.sorter.push_at(p),
        }
        Ok(())
    }

    fn checkpoint(&mut self) -> Result<()> {
        self.d.enforce_budget(self.stats, self.sink);
        Ok(())
    }

    fn end(&mut self, sorted_up_to: Option<i64>) {
        self.d.end_block(sorted_up_to, self.stats, self.sink);
    }
}
