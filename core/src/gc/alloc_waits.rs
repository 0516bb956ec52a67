//! Threads that waited to allocate on the large object heap while a background GC ran: the
//! private provider's BGCAllocWaitBegin/End, paired per thread as TraceEvent pairs them
//! (`TraceGC.AddLOHWaitThreadInfo`): a thread waits while the background GC threads its free lists
//! (GetLOHSeg, AllocDuringSweep) or after allocating too much during it (AllocDuringBGC).
//! Bounded: the longest waits are kept, the rest counted.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::clr::enums::BgcAllocWaitReason;

/// Waits kept (the longest); every wait is counted.
pub const MAX_KEPT: usize = 256;

/// One thread's wait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllocWait {
    pub thread: u64,
    /// GetLOHSeg, AllocDuringSweep or AllocDuringBGC.
    pub reason: String,
    pub begin_ms: f64,
    pub end_ms: f64,
    pub wait_ms: f64,
    /// The background GC running when the wait began.
    pub bgc: Option<u32>,
}

/// Every LOH allocation wait during background GCs in the trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AllocWaits {
    /// The trace has BGCAllocWaitBegin or End events.
    pub has_events: bool,
    /// Waits with a begin and an end.
    pub waits: u64,
    pub total_wait_ms: f64,
    /// Begins without an end (the trace ended, or the end was lost) and ends without a begin.
    pub unpaired: u64,
    /// The longest waits, longest first (at most [`MAX_KEPT`]).
    pub longest: Vec<AllocWait>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct AllocWaitTracker {
    waits: AllocWaits,
    /// Waits begun and not ended: (thread, reason, begin, background GC).
    open: Vec<(u64, u32, f64, Option<u32>)>,
}

impl AllocWaitTracker {
    pub fn on_begin(&mut self, ms: f64, thread: u64, reason: u32, bgc: Option<u32>) {
        self.waits.has_events = true;
        // A second begin on a thread already waiting: the window between the sweep ending and the
        // background GC ending; TraceEvent keeps the first.
        if !self.open.iter().any(|o| o.0 == thread) {
            self.open.push((thread, reason, ms, bgc));
        }
    }

    pub fn on_end(&mut self, ms: f64, thread: u64) {
        self.waits.has_events = true;
        let Some(i) = self.open.iter().position(|o| o.0 == thread) else {
            self.waits.unpaired += 1;
            return;
        };
        let (thread, reason, begin_ms, bgc) = self.open.swap_remove(i);
        let wait_ms = (ms - begin_ms).max(0.0);
        self.waits.waits += 1;
        self.waits.total_wait_ms += wait_ms;
        self.waits.longest.push(AllocWait {
            thread,
            reason: String::from(BgcAllocWaitReason::from_raw(reason).name()),
            begin_ms,
            end_ms: ms,
            wait_ms,
            bgc,
        });
        if self.waits.longest.len() >= 2 * MAX_KEPT {
            self.keep_longest();
        }
    }

    fn keep_longest(&mut self) {
        let l = &mut self.waits.longest;
        l.sort_by(|a, b| {
            b.wait_ms
                .total_cmp(&a.wait_ms)
                .then(a.begin_ms.total_cmp(&b.begin_ms))
        });
        l.truncate(MAX_KEPT);
    }

    pub fn finish(mut self) -> AllocWaits {
        self.keep_longest();
        self.waits.unpaired += self.open.len() as u64;
        self.waits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_pair_per_thread_and_stay_bounded() {
        let mut t = AllocWaitTracker::default();
        t.on_begin(10.0, 1, 10, Some(5));
        t.on_begin(11.0, 2, 9, Some(5));
        t.on_begin(12.0, 1, 10, Some(5)); // thread 1 already waits: kept from 10.0
        t.on_end(250.0, 1);
        t.on_end(20.0, 2);
        t.on_end(30.0, 3); // never began
        t.on_begin(40.0, 4, 11, None); // never ends
        for i in 0..(3 * MAX_KEPT as u64) {
            t.on_begin(1000.0 + i as f64, 100 + i, 11, None);
            t.on_end(1000.5 + i as f64, 100 + i);
        }
        let w = t.finish();
        assert_eq!(w.waits, 2 + 3 * MAX_KEPT as u64);
        assert_eq!(w.unpaired, 2);
        assert_eq!(w.longest.len(), MAX_KEPT);
        let first = &w.longest[0];
        assert_eq!(
            (
                first.thread,
                first.wait_ms,
                first.reason.as_str(),
                first.bgc
            ),
            (1, 240.0, "AllocDuringSweep", Some(5))
        );
        assert_eq!(w.longest[1].wait_ms, 9.0);
        assert!((w.total_wait_ms - (240.0 + 9.0 + 0.5 * 3.0 * MAX_KEPT as f64)).abs() < 1e-6);
    }
}
