//! Call stacks in an .etl file, matched to their events and interned into a
//! [`StackTable`](crate::stacks::StackTable), so [`crate::event::Event::stack`] means the same as
//! for an EventPipe trace.
//!
//! Two places hold an event's stack:
//!
//! * The kernel's StackWalk/Stack event (group 0x18, opcode 32), which ETW logs right after the
//!   event it walked, on the same processor: `i64 EventTimeStamp` (the walked event's header
//!   timestamp), `u32 StackProcess`, `u32 StackThread`, then the frames, leaf first, each a
//!   pointer of the record's size, to the end of the payload. It is matched to the event of its
//!   buffer with that timestamp on that thread, the nearest one before it that has no stack yet;
//!   one that matches none (its event was filtered out or lies in another buffer, or the payload
//!   is malformed) is counted ([`crate::stacks::StackTable::unmatched`]).
//! * An EVENT_HEADER's stack trace extended item (EVENT_HEADER_EXT_TYPE_STACK_TRACE32/64: a u64
//!   MatchId, then the frames), which a session with stacks enabled for a user-mode provider
//!   writes into the event's own record ([`super::record::StackItem`]).
//!
//! A buffer's stacks are interned once the buffer is read, in the order of the events they
//! belong to, so a part of the file ([`super::part`]) that interns them into a table of its own
//! gives the merge the same order to renumber them in, and the ids are those of a sequential read.
//! The kernel's cached stacks (StackWalk/StackKeyKernel and StackKeyUser, opcodes 37 and 38,
//! whose frames come later in KeyDelete and KeyRundown) are not read: their events stay without
//! a stack.

use super::interleave::HeldBuffer;
use crate::stacks::StackTable;

/// HookId of StackWalk/Stack.
pub const STACK_WALK: u16 = 0x1820;

/// How many delivered events before a StackWalk record are searched for its event: ETW writes the
/// walk right after the event, so it is the last one of its thread, or nearly.
const SEARCH_BACK: usize = 64;

/// One stack found in a buffer, waiting to be interned: the held event it belongs to and where
/// its frames are in the buffer's record bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    pub event: u32,
    pub start: u32,
    pub len: u32,
    pub pointer_size: u8,
}

/// A StackWalk/Stack payload: the walked event's timestamp and thread, and the frames' offset
/// in the payload and length. None where it is too short or its frames are not whole pointers.
pub fn parse(payload: &[u8], pointer_size: u8) -> Option<(i64, u32, usize, usize)> {
    let head = payload.get(..16)?;
    let mut ts = [0u8; 8];
    ts.copy_from_slice(&head[..8]);
    let thread = u32::from_le_bytes([head[12], head[13], head[14], head[15]]);
    let frames = payload.len() - 16;
    let ptr = usize::from(pointer_size.max(1));
    if !frames.is_multiple_of(ptr) {
        return None;
    }
    Some((i64::from_le_bytes(ts), thread, 16, frames))
}

/// The held event a StackWalk record of `timestamp` and `thread` belongs to (see the module
/// docs), among the buffer's events so far; `pending` says which already have a stack.
pub fn find(held: &HeldBuffer, pending: &[Pending], timestamp: i64, thread: u32) -> Option<u32> {
    let n = held.events.len();
    for i in (n.saturating_sub(SEARCH_BACK)..n).rev() {
        let h = &held.events[i];
        if h.thread_id == thread && h.timestamp == timestamp {
            if pending.iter().rev().any(|p| p.event as usize == i) {
                continue;
            }
            return Some(i as u32);
        }
    }
    None
}

/// Interns the buffer's `pending` stacks (frames in `records`) in the order of their events, and
/// gives each event its id.
pub fn intern(
    table: &mut StackTable,
    held: &mut HeldBuffer,
    pending: &mut [Pending],
    records: &[u8],
) {
    pending.sort_by_key(|p| p.event);
    for p in pending.iter() {
        let (start, len) = (p.start as usize, p.len as usize);
        let Some(frames) = records.get(start..start.saturating_add(len)) else {
            table.add_unmatched(1);
            continue;
        };
        let id = table.intern_bytes(frames, p.pointer_size);
        if let Some(h) = held.events.get_mut(p.event as usize) {
            h.stack = id;
        }
    }
}
