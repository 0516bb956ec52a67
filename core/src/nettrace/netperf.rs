//! NetPerf (V1-V3) events: fixed 56-byte headers with absolute timestamps and 32-bit thread ids,
//! payload, then an inline stack (`u32 size` + IPs), the whole padded to `EventSize + 4`.
//! Metadata events (metadata id 0) share the stream with data events. Files are written in order,
//! so events are delivered as read. Below the event format, the [`Decoder`](super::Decoder)'s side:
//! V3's event blocks and V1/V2's inline events.

use super::deliver::emit;
use super::{framing, metadata, Stage, Step};
use crate::bytes::Cursor;
use crate::error::{Error, Result};
use crate::sink::{DecodeStats, Sink};
use crate::sort::{Pending, Release, Released, ARENA};
use alloc::format;

/// Header bytes before the payload.
pub const HEADER_LEN: usize = 56;

#[derive(Debug, Clone, Copy, Default)]
pub struct NetperfEvent<'a> {
    pub metadata_id: u32,
    pub thread_id: u32,
    pub timestamp: i64,
    pub payload: &'a [u8],
    /// Stream offset of the payload.
    pub payload_offset: u64,
    /// The inline stack's addresses, leaf first (whole pointer-size addresses; a partial last one
    /// is ignored).
    pub stack: &'a [u8],
}

/// Size of the event at the start of `c` (EventSize + 4), without consuming anything.
pub fn peek_event_len(buf: &[u8]) -> Option<usize> {
    let b = buf.get(..4)?;
    Some((u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize).saturating_add(4))
}

/// Parses one event occupying exactly `c`'s remaining `len` bytes.
pub fn read_event<'a>(c: &mut Cursor<'a>) -> Result<NetperfEvent<'a>> {
    let start = c.pos();
    let at = c.offset();
    let size = c.u32("event size")? as usize;
    if size > c.remaining() {
        return Err(Error::truncated(at, "event"));
    }
    let end = start + 4 + size;
    if size < HEADER_LEN {
        return Err(Error::malformed(
            at,
            format!("event size {size} is smaller than the event header"),
        ));
    }
    let metadata_id = c.u32("metadata id")?;
    let thread_id = c.u32("thread id")?;
    let timestamp = c.i64("timestamp")?;
    c.skip(32, "activity ids")?;
    let payload_size = c.u32("payload size")? as usize;
    if payload_size > size - HEADER_LEN {
        return Err(Error::malformed(
            at,
            format!("payload of {payload_size} bytes does not fit in event of {size} bytes"),
        ));
    }
    let payload_offset = c.offset();
    let payload = c.bytes(payload_size, "event payload")?;
    let stack_at = c.offset();
    let stack_size = c.u32("stack size")? as usize;
    if stack_size > end - c.pos() {
        return Err(Error::malformed(
            stack_at,
            format!("stack of {stack_size} bytes overruns its event"),
        ));
    }
    let stack = c.bytes(stack_size, "stack")?;
    // Skip the alignment padding.
    c.skip(end - c.pos(), "event")?;
    Ok(NetperfEvent {
        metadata_id,
        thread_id,
        timestamp,
        payload,
        payload_offset,
        stack,
    })
}

impl super::Decoder {
    /// V3 EventBlock: back-to-back NetPerf events.
    pub(super) fn read_netperf_block(
        &mut self,
        c: &mut Cursor<'_>,
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        while !c.is_empty() {
            let event_at = c.offset();
            let e = read_event(c)?;
            self.netperf_event(&e, event_at, stats, sink)?;
        }
        Ok(())
    }

    pub(super) fn netperf_event(
        &mut self,
        e: &NetperfEvent<'_>,
        event_at: u64,
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        if e.metadata_id == 0 {
            if self.version < 3 {
                // V1/V2 metadata ids are the stream offset of the metadata event.
                let id = u32::try_from(event_at)
                    .map_err(|_| Error::malformed(event_at, "V1/V2 stream over 4 GiB"))?;
                let m = metadata::parse_payload_v1v2(
                    &mut self.meta,
                    e.payload,
                    e.payload_offset,
                    self.version,
                )?;
                self.meta.insert(id, event_at, m, true)?;
            } else {
                let (id, m) = metadata::parse_payload(&mut self.meta, e.payload, e.payload_offset)?;
                self.meta.insert(id, e.payload_offset, m, false)?;
            }
            stats.metadata += 1;
            return Ok(());
        }
        let (Some(index), Some(info)) = (self.meta.lookup(e.metadata_id), &self.info) else {
            stats.skipped_events += 1;
            return Ok(());
        };
        let m = self.meta.entry(index);
        // Unsorted formats: file order is delivery order.
        if self.tally.first.is_none() {
            self.tally.first = Some(e.timestamp);
        }
        if !m.deliver {
            let version = m.version;
            self.skip(index, version, e.timestamp, e.payload, stats);
            return Ok(());
        }
        // The stack comes inline: interned here, its table id stands for the file's (see
        // `StackTable::define_inline`).
        let stack_id = match &mut self.stacks {
            Some(t) if !e.stack.is_empty() => t.define_inline(e.stack, self.pointer_size),
            _ => 0,
        };
        let p = Pending {
            timestamp: e.timestamp,
            thread_id: e.thread_id as u64,
            capture_thread_id: e.thread_id as u64,
            metadata: index,
            version: m.version,
            sequence: 0,
            processor: u32::MAX,
            stack_id,
            payload_start: 0,
            payload_len: 0,
            chunk: ARENA,
            tick: crate::sort::NO_TICK,
        };
        stats.events += 1;
        emit(
            &self.meta,
            &mut self.tally,
            info,
            self.pointer_size,
            self.stacks.as_mut(),
            Release::Event(Released {
                event: &p,
                payload: e.payload,
                tick: None,
            }),
            sink,
        );
        Ok(())
    }

    /// V1/V2: one event at a time until the Trace object's EndObject tag.
    pub(super) fn step_inline_event(
        &mut self,
        buf: &[u8],
        base: u64,
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<Step> {
        if buf.len() < 8 {
            return Ok(Step::NeedMore(8));
        }
        // The event stream ends at the Trace object's EndObject tag, followed by the
        // FastSerialization trailer. An EndObject byte could also start an event size, so it is the end
        // only if what follows is not an event with known metadata.
        let metadata_id = u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]);
        if buf[0] == framing::tag::END_OBJECT
            && metadata_id != 0
            && self.meta.lookup(metadata_id).is_none()
        {
            self.stage = Stage::End;
            return Ok(Step::Consumed(buf.len()));
        }
        let len = peek_event_len(buf).unwrap_or(usize::MAX);
        if buf.len() < len {
            return Ok(Step::NeedMore(len));
        }
        let mut c = Cursor::new(&buf[..len], base);
        let e = read_event(&mut c)?;
        self.netperf_event(&e, base, stats, sink)?;
        Ok(Step::Consumed(len))
    }
}
