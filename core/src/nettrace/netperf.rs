//! NetPerf (V1-V3) events: fixed 56-byte headers with absolute timestamps and 32-bit thread ids,
//! payload, then an inline stack (`u32 size` + IPs), the whole padded to `EventSize + 4`.
//! Metadata events (metadata id 0) share the stream with data events. Files are written in order,
//! so events are delivered as read.

use crate::error::{Error, Result};
use crate::read::Cursor;
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
    // Skip the stack and the alignment padding.
    c.skip(end - c.pos(), "event")?;
    Ok(NetperfEvent {
        metadata_id,
        thread_id,
        timestamp,
        payload,
        payload_offset,
    })
}
