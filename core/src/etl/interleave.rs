//! Merging the per-processor buffers of an .etl file into one timestamp order, in bounded memory.
//!
//! ETW writes each processor's events into that processor's buffers, in time order, and flushes a
//! buffer when it is full or the session stops: so the file interleaves processors, and a quiet
//! processor's buffer can come long after busier ones (gcevents.etl's last buffer holds its earliest
//! CLR events). Windows' own reader seeks; a stream cannot. So the decoded events of the buffers
//! read so far are held in a window, merged k-ways by timestamp (each buffer's events are in time
//! order; one that is not is sorted first), and released oldest first only when the window holds
//! more than [`WINDOW_BYTES`] (and all of them at the end of the file). A file whose buffers are no
//! more than that out of place comes out exactly in timestamp order. An event that arrives after
//! later events were already released is delivered at the next release and counted in
//! [`Window::out_of_order`]: memory stays bounded whatever the file does.

use crate::clr::gc::TickDigest;
use alloc::collections::{BTreeMap, BinaryHeap, VecDeque};
use alloc::vec::Vec;
use core::cmp::Reverse;

/// Bytes of held events (their payloads plus their index entries) above which the oldest are
/// released: 32 MiB, about 512 buffers of 64 KiB (the default buffer of PerfView and WPR), which
/// covers per-processor lag on machines with hundreds of processors. Events the consumer's filter
/// skips are never held, so the GC model's window holds only GC events.
pub const WINDOW_BYTES: usize = 32 << 20;

/// One held event: where its payload is in its buffer's bytes and what its header said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    pub timestamp: i64,
    /// Index of the decoder's name entry (provider, id, version, name).
    pub entry: u32,
    pub thread_id: u32,
    pub process_id: u32,
    pub pointer_size: u8,
    pub payload_start: u32,
    pub payload_len: u32,
    /// Its [`TickDigest`] in [`HeldBuffer::ticks`], made by the part that read the buffer, or
    /// [`crate::sort::NO_TICK`].
    pub tick: u32,
    /// Its stack's id in the reading's [`crate::stacks::StackTable`] (a part's own, until the
    /// merge renumbers it), or [`crate::stacks::NO_STACK`] ([`super::stackwalk`]).
    pub stack: u32,
}

/// The delivered events of one buffer, their payloads copied together.
#[derive(Default)]
pub struct HeldBuffer {
    pub bytes: Vec<u8>,
    pub events: Vec<Held>,
    /// The digests of the GCAllocationTicks a part decoded (see [`Held::tick`]); none otherwise.
    pub ticks: Vec<TickDigest>,
    pub processor: u32,
    /// Next event to release.
    next: usize,
    /// Bytes held besides the payloads (record headers when the whole records were kept): given
    /// back when the buffer's last event is released.
    overhead: usize,
}

impl HeldBuffer {
    /// Copies one event's payload in and records it.
    pub fn push(&mut self, mut h: Held, payload: &[u8]) {
        h.payload_start = self.bytes.len() as u32;
        h.payload_len = payload.len() as u32;
        self.bytes.extend_from_slice(payload);
        self.events.push(h);
    }

    /// Copies the payloads of `events` (whose positions are still in `records`, the buffer's
    /// records) into the buffer's own bytes: the whole records at once when the payloads are most of
    /// them (one copy instead of one per event), else each payload, packed (a filtered reader keeps
    /// a few events of a buffer and should not hold the rest).
    pub fn take_payloads(&mut self, records: &[u8]) {
        let payload: usize = self.events.iter().map(|h| h.payload_len as usize).sum();
        self.bytes.clear();
        if payload * 2 >= records.len() {
            self.bytes.extend_from_slice(records);
            return;
        }
        // Sized once: a part hands each buffer's bytes on and starts the next from an empty Vec.
        self.bytes.reserve(payload);
        for h in &mut self.events {
            let (start, len) = (h.payload_start as usize, h.payload_len as usize);
            h.payload_start = self.bytes.len() as u32;
            self.bytes.extend_from_slice(&records[start..start + len]);
        }
    }

    /// The digest of one of the buffer's events, if a part made one.
    #[inline]
    pub fn tick(&self, h: &Held) -> Option<&TickDigest> {
        self.ticks.get(h.tick as usize)
    }

    fn cost(&self) -> usize {
        self.bytes.len() + self.events.len() * core::mem::size_of::<Held>()
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.events.clear();
        self.ticks.clear();
        self.next = 0;
        self.overhead = 0;
    }
}

/// Buffers of one processor that follow each other in time: merged as one sorted sequence, so
/// the merge compares processors, not buffers.
#[derive(Default)]
struct Run {
    /// Slots, oldest first.
    slots: VecDeque<usize>,
    /// Timestamp of the last event of the last buffer.
    last: i64,
}

/// The window of held buffers.
#[derive(Default)]
pub struct Window {
    slots: Vec<HeldBuffer>,
    /// Indexes of empty slots.
    free: Vec<usize>,
    /// Emptied buffers whose allocations the next ones reuse.
    spare: Vec<HeldBuffer>,
    runs: Vec<Run>,
    /// Indexes of empty runs.
    free_runs: Vec<usize>,
    /// Per processor: the run its next buffer extends, if that buffer starts no earlier than the
    /// run ends (else the buffer starts a run of its own: relogged files need not keep per-processor
    /// order, and then the merge just has more runs to compare).
    current: BTreeMap<u32, usize>,
    /// (timestamp of the run's next event, run) for every run holding events.
    heap: BinaryHeap<Reverse<(i64, usize)>>,
    bytes: usize,
    /// Timestamp of the latest event released.
    released_upto: Option<i64>,
    /// Events that arrived after a later event had been released.
    pub out_of_order: u64,
}

impl Window {
    /// An empty buffer to fill (a reused allocation when one is free).
    pub fn take_buffer(&mut self) -> HeldBuffer {
        self.spare.pop().unwrap_or_default()
    }

    /// Adds a filled buffer, then releases the oldest events while the window is over budget.
    pub fn push(&mut self, mut buf: HeldBuffer, release: &mut dyn FnMut(&HeldBuffer, &Held)) {
        if buf.events.is_empty() {
            self.recycle(buf);
            return;
        }
        if !buf
            .events
            .windows(2)
            .all(|w| w[0].timestamp <= w[1].timestamp)
        {
            buf.events.sort_by_key(|h| h.timestamp);
        }
        if let Some(upto) = self.released_upto {
            self.out_of_order +=
                buf.events.iter().take_while(|h| h.timestamp < upto).count() as u64;
        }
        let payloads: usize = buf.events.iter().map(|h| h.payload_len as usize).sum();
        buf.overhead = buf.bytes.len().saturating_sub(payloads);
        self.bytes += buf.cost();
        let (head, last, processor) = (
            buf.events[0].timestamp,
            buf.events[buf.events.len() - 1].timestamp,
            buf.processor,
        );
        let slot = match self.free.pop() {
            Some(i) => {
                self.slots[i] = buf;
                i
            }
            None => {
                self.slots.push(buf);
                self.slots.len() - 1
            }
        };
        let extend = self
            .current
            .get(&processor)
            .copied()
            .filter(|&r| !self.runs[r].slots.is_empty() && self.runs[r].last <= head);
        match extend {
            Some(r) => {
                // Its events follow the run's: the run's head (and its heap entry) stay.
                self.runs[r].slots.push_back(slot);
                self.runs[r].last = last;
            }
            None => {
                let r = match self.free_runs.pop() {
                    Some(r) => r,
                    None => {
                        self.runs.push(Run::default());
                        self.runs.len() - 1
                    }
                };
                self.runs[r].slots.push_back(slot);
                self.runs[r].last = last;
                self.current.insert(processor, r);
                self.heap.push(Reverse((head, r)));
            }
        }
        if self.bytes > WINDOW_BYTES {
            self.release_until(WINDOW_BYTES / 4 * 3, release);
        }
    }

    /// Releases every held event, in timestamp order.
    pub fn flush(&mut self, release: &mut dyn FnMut(&HeldBuffer, &Held)) {
        self.release_until(0, release);
    }

    /// After a flush: the next events start a new order (a companion file), so none of them is
    /// late.
    pub fn restart(&mut self) {
        self.released_upto = None;
    }

    /// Bytes held now.
    pub fn held_bytes(&self) -> usize {
        self.bytes
    }

    fn recycle(&mut self, mut buf: HeldBuffer) {
        /// Emptied buffers kept for reuse: enough for a steady stream, not a window's worth.
        const SPARE: usize = 16;
        if self.spare.len() < SPARE {
            buf.clear();
            self.spare.push(buf);
        }
    }

    /// Releases the oldest events until at most `target` bytes are held. Each step takes the run
    /// with the oldest next event and releases its events up to the next run's head, across its
    /// buffers, so the heap (one entry per run: per processor, normally) is touched once per stretch
    /// rather than once per event.
    fn release_until(&mut self, target: usize, release: &mut dyn FnMut(&HeldBuffer, &Held)) {
        let per_event = core::mem::size_of::<Held>();
        while self.bytes > target {
            let Some(Reverse((_, r))) = self.heap.pop() else {
                self.bytes = 0;
                return;
            };
            let bound = self.heap.peek().map_or(i64::MAX, |Reverse((t, _))| *t);
            let mut next_head = None;
            while let Some(&slot) = self.runs[r].slots.front() {
                let buf = &mut self.slots[slot];
                while let Some(h) = buf.events.get(buf.next) {
                    if h.timestamp > bound || (self.bytes <= target && target > 0) {
                        break;
                    }
                    release(buf, h);
                    self.released_upto = Some(
                        self.released_upto
                            .map_or(h.timestamp, |u| u.max(h.timestamp)),
                    );
                    self.bytes = self
                        .bytes
                        .saturating_sub(h.payload_len as usize + per_event);
                    buf.next += 1;
                }
                if let Some(h) = buf.events.get(buf.next) {
                    next_head = Some(h.timestamp);
                    break;
                }
                // The buffer is done: free it and go on with the run's next one.
                self.bytes = self.bytes.saturating_sub(buf.overhead);
                let done = core::mem::take(buf);
                self.free.push(slot);
                self.recycle(done);
                self.runs[r].slots.pop_front();
            }
            match next_head {
                Some(t) => self.heap.push(Reverse((t, r))),
                None => self.free_runs.push(r),
            }
        }
        if self.heap.is_empty() {
            self.bytes = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(w: &mut Window, times: &[i64]) -> HeldBuffer {
        let mut b = w.take_buffer();
        for &t in times {
            b.push(
                Held {
                    timestamp: t,
                    entry: 0,
                    thread_id: 0,
                    process_id: 0,
                    pointer_size: 8,
                    payload_start: 0,
                    payload_len: 0,
                    tick: crate::sort::NO_TICK,
                    stack: 0,
                },
                &t.to_le_bytes(),
            );
        }
        b
    }

    #[test]
    fn merges_buffers_by_time() {
        let mut w = Window::default();
        let mut out = Vec::new();
        let mut rel = |b: &HeldBuffer, h: &Held| {
            let p = &b.bytes[h.payload_start as usize..][..8];
            assert_eq!(i64::from_le_bytes(p.try_into().unwrap()), h.timestamp);
            out.push(h.timestamp);
        };
        for times in [&[5, 7, 9][..], &[1, 2, 8], &[3, 4], &[], &[6, 10, 11]] {
            let b = buffer(&mut w, times);
            w.push(b, &mut rel);
        }
        w.flush(&mut rel);
        assert_eq!(out, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(w.out_of_order, 0);
        assert_eq!(w.held_bytes(), 0);
    }

    #[test]
    fn bounded_window_counts_late_events() {
        let mut w = Window::default();
        let mut out = Vec::new();
        let mut rel = |_: &HeldBuffer, h: &Held| out.push(h.timestamp);
        // Enough events to pass the budget several times, then one late buffer.
        let per = WINDOW_BYTES / (core::mem::size_of::<Held>() + 8) / 8;
        let mut t = 1000i64;
        for _ in 0..16 {
            let times: Vec<i64> = (0..per).map(|i| t + i as i64).collect();
            t += per as i64;
            let b = buffer(&mut w, &times);
            w.push(b, &mut rel);
            assert!(w.held_bytes() <= WINDOW_BYTES);
        }
        let late = buffer(&mut w, &[1, 2]);
        w.push(late, &mut rel);
        w.flush(&mut rel);
        assert_eq!(w.out_of_order, 2);
        assert_eq!(out.len(), 16 * per + 2);
    }
}
