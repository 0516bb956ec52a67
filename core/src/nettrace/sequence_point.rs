//! Sequence numbers and sequence points: per capture thread, events are numbered 1, 2, 3, ... including
//! those the runtime had to drop; a gap (or a sequence point listing a higher number) counts drops.

use crate::error::Result;
use crate::read::Cursor;
use alloc::vec::Vec;

/// Last sequence number seen per capture thread.
#[derive(Default)]
pub struct SequenceTracker {
    threads: Vec<(u64, u32)>,
    last: usize,
    pub dropped: u64,
}

impl SequenceTracker {
    #[inline]
    fn slot(&mut self, thread: u64) -> &mut u32 {
        if self.threads.get(self.last).map(|t| t.0) != Some(thread) {
            self.last = match self.threads.iter().position(|t| t.0 == thread) {
                Some(i) => i,
                None => {
                    // Sequence numbers start at 1, so a new thread's previous number is 0.
                    self.threads.push((thread, 0));
                    self.threads.len() - 1
                }
            };
        }
        &mut self.threads[self.last].1
    }

    /// An event numbered `seq` from `thread`.
    #[inline]
    pub fn event(&mut self, thread: u64, seq: u32) {
        let last = self.slot(thread);
        let gap = seq.wrapping_sub(last.wrapping_add(1));
        *last = seq;
        // A "negative" gap is not a drop (and not something to count as 4 billion drops).
        if gap != 0 && gap < 1 << 31 {
            self.dropped += gap as u64;
        }
    }

    /// A sequence point says `thread` had numbered events up to `seq`.
    pub fn checkpoint(&mut self, thread: u64, seq: u32) {
        let last = self.slot(thread);
        let gap = seq.wrapping_sub(*last);
        if gap != 0 && gap < 1 << 31 {
            *last = seq;
            self.dropped += gap as u64;
        }
    }

    pub fn remove(&mut self, thread: u64) {
        self.threads.retain(|t| t.0 != thread);
        self.last = 0;
    }

    pub fn clear(&mut self) {
        self.threads.clear();
        self.last = 0;
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
