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
//! * The runtime's own ClrStack/Walk event (Microsoft-Windows-DotNETRuntime, id 82, keyword
//!   0x40000000), which the CLR logs right after its event on the same thread: `u16
//!   ClrInstanceID`, two reserved bytes, `u32 FrameCount`, then that many pointers, leaf first.
//!   .NET Framework sessions with the runtime's Stack keyword carry these for the GC events. It
//!   is matched to the record of its thread just before it in the same buffer ([`LastOnThread`]),
//!   as TraceEvent's TraceLog attaches it to the thread's previous event. Where that record was
//!   not delivered (filtered out), already has a stack (a kernel walk or an extended item comes
//!   first and is kept: it holds the native frames too), lies in another buffer or the payload
//!   is malformed, the walk is counted as unmatched.
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

/// ClrStack/Walk's event id in the runtime provider.
pub const CLR_STACK_WALK: u16 = 82;

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

/// A ClrStack/Walk payload: its frames' offset in the payload and length. None where it is too
/// short for the frame count it states.
pub fn parse_clr(payload: &[u8], pointer_size: u8) -> Option<(usize, usize)> {
    let count = payload.get(4..8)?;
    let count = u32::from_le_bytes([count[0], count[1], count[2], count[3]]) as usize;
    let len = count.checked_mul(usize::from(pointer_size.max(1)))?;
    (len <= payload.len() - 8).then_some((8, len))
}

/// Per thread, the buffer's last record before the current one: the held event it became, or
/// none where it was not delivered. For ClrStack/Walk, which belongs to that record. A buffer is
/// one processor's, so it sees few threads and a list searched from its end is enough.
#[derive(Debug, Default)]
pub struct LastOnThread {
    last: alloc::vec::Vec<(u32, Option<u32>)>,
}

impl LastOnThread {
    pub fn set(&mut self, thread: u32, held: Option<u32>) {
        match self.last.iter_mut().rev().find(|(t, _)| *t == thread) {
            Some(slot) => slot.1 = held,
            None => self.last.push((thread, held)),
        }
    }

    /// The held event a ClrStack/Walk on `thread` belongs to, if it was delivered and has no
    /// stack yet (`pending`).
    pub fn event_for_walk(&self, thread: u32, pending: &[Pending]) -> Option<u32> {
        let (_, held) = self.last.iter().rev().find(|(t, _)| *t == thread)?;
        let i = (*held)?;
        let taken = pending.iter().rev().take(SEARCH_BACK).any(|p| p.event == i);
        (!taken).then_some(i)
    }
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
