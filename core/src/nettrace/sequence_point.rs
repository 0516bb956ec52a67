//! Sequence numbers and sequence points: per capture thread, events are numbered 1, 2, 3, ... including
//! those the runtime had to drop; a gap (or a sequence point listing a higher number) counts drops.

use crate::bytes::Cursor;
use crate::error::Result;
use alloc::collections::BTreeMap;

/// Last sequence number seen per capture thread. A map (not a list) so that a file with very many
/// capture threads costs log time per lookup; the last thread is cached, since consecutive events
/// usually come from the same one.
#[derive(Default)]
pub struct SequenceTracker {
    threads: BTreeMap<u64, u32>,
    last: Option<(u64, u32)>,
    pub dropped: u64,
}

impl SequenceTracker {
    /// An event numbered `seq` from `thread`.
    #[inline]
    pub fn event(&mut self, thread: u64, seq: u32) {
        let prev = match self.last {
            Some((t, s)) if t == thread => s,
            // Sequence numbers start at 1, so a new thread's previous number is 0.
            _ => self.threads.get(&thread).copied().unwrap_or(0),
        };
        self.dropped += gap(prev, seq);
        if let Some((t, s)) = self.last {
            if t != thread {
                self.threads.insert(t, s);
            }
        }
        self.last = Some((thread, seq));
    }

    /// Events numbered `first` to `last` from `thread`, with the drops between them already counted
    /// (a part of the trace counts those; see [`crate::parts`]): the same as calling
    /// [`event`](Self::event) for each.
    pub fn run(&mut self, thread: u64, first: u32, last: u32) {
        self.event(thread, first);
        self.last = Some((thread, last));
    }

    fn sync(&mut self) {
        if let Some((t, s)) = self.last.take() {
            self.threads.insert(t, s);
        }
    }

    /// A sequence point says `thread` had numbered events up to `seq`.
    pub fn checkpoint(&mut self, thread: u64, seq: u32) {
        self.sync();
        let last = self.threads.entry(thread).or_insert(0);
        let gap = seq.wrapping_sub(*last);
        if gap != 0 && gap < 1 << 31 {
            *last = seq;
            self.dropped += gap as u64;
        }
    }

    pub fn remove(&mut self, thread: u64) {
        self.sync();
        self.threads.remove(&thread);
    }

    pub fn clear(&mut self) {
        self.threads.clear();
        self.last = None;
    }
}

/// Events dropped between two consecutive events of a capture thread numbered `prev` and `seq`.
#[inline]
pub fn gap(prev: u32, seq: u32) -> u64 {
    let gap = seq.wrapping_sub(prev.wrapping_add(1));
    // A "negative" gap is not a drop (and not something to count as 4 billion drops).
    if gap != 0 && gap < 1 << 31 {
        gap as u64
    } else {
        0
    }
}

/// V4/V5 SPBlock: `i64 timestamp, u32 count`, then count × `{u64 capture thread, u32 sequence}`.
pub fn read_sequence_point_v4(c: &mut Cursor<'_>, seq: &mut SequenceTracker) -> Result<i64> {
    let ts = c.i64("sequence point timestamp")?;
    let count = c.u32("sequence point thread count")?;
    for _ in 0..count {
        let thread = c.u64("capture thread id")?;
        let n = c.u32("sequence number")?;
        seq.checkpoint(thread, n);
    }
    Ok(ts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_and_checkpoints_count_drops() {
        let mut s = SequenceTracker::default();
        s.event(7, 1);
        s.event(7, 2);
        s.event(7, 5); // 3 and 4 dropped
        s.event(9, 3); // 1 and 2 dropped on a new thread
        s.checkpoint(7, 8); // 6, 7, 8 dropped
        s.checkpoint(9, 3); // nothing
        s.event(7, 9);
        assert_eq!(s.dropped, 2 + 2 + 3);
        // Wrap-around is not a drop, nor is a first number too far ahead to be a real gap.
        s.event(1, u32::MAX);
        s.event(1, 0);
        assert_eq!(s.dropped, 7);
    }
}
