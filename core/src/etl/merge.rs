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

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Reverse;

/// Bytes of held events (their payloads plus their index entries) above which the oldest are
/// released: 32 MiB, about 512 buffers of 64 KiB (the default buffer of PerfView and WPR), which
/// covers per-processor lag on machines with hundreds of processors. Events the consumer's filter
/// skips are never held, so the GC model's window holds only GC events.
pub const WINDOW_BYTES: usize = 32 << 20;

/// One held event: where its payload is in its buffer's bytes and what its header said.
#[derive(Debug, Clone, Copy)]
pub struct Held {
    pub timestamp: i64,
    /// Index of the decoder's name entry (provider, id, version, name).
    pub entry: u32,
    pub thread_id: u32,
    pub process_id: u32,
    pub pointer_size: u8,
    pub payload_start: u32,
    pub payload_len: u32,
}

/// The delivered events of one buffer, their payloads copied together.
#[derive(Default)]
pub struct HeldBuffer {
    pub bytes: Vec<u8>,
    pub events: Vec<Held>,
    pub processor: u32,
    /// Next event to release.
    next: usize,
}

impl HeldBuffer {
    /// Copies one event's payload in and records it.
    pub fn push(&mut self, mut h: Held, payload: &[u8]) {
        h.payload_start = self.bytes.len() as u32;
        h.payload_len = payload.len() as u32;
        self.bytes.extend_from_slice(payload);
        self.events.push(h);
    }

    fn cost(&self) -> usize {
        self.bytes.len() + self.events.len() * core::mem::size_of::<Held>()
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.events.clear();
        self.next = 0;
    }
}

/// The window of held buffers.
#[derive(Default)]
pub struct Window {
    slots: Vec<HeldBuffer>,
    /// Indexes of empty slots.
    free: Vec<usize>,
    /// Emptied buffers whose allocations the next ones reuse.
    spare: Vec<HeldBuffer>,
    /// (timestamp of the slot's next event, slot).
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
        self.bytes += buf.cost();
        let head = buf.events[0].timestamp;
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
        self.heap.push(Reverse((head, slot)));
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

    /// Releases the oldest events until at most `target` bytes are held. Each step takes the buffer
    /// with the oldest next event and releases its events up to the next buffer's head (a run), so
    /// the heap is touched once per run rather than once per event.
    fn release_until(&mut self, target: usize, release: &mut dyn FnMut(&HeldBuffer, &Held)) {
        while self.bytes > target {
            let Some(Reverse((_, slot))) = self.heap.pop() else {
                self.bytes = 0;
                return;
            };
            let bound = self.heap.peek().map_or(i64::MAX, |Reverse((t, _))| *t);
            let buf = &mut self.slots[slot];
            let per_event = core::mem::size_of::<Held>();
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
            match buf.events.get(buf.next) {
                Some(h) => {
                    let t = h.timestamp;
                    self.heap.push(Reverse((t, slot)));
                }
                None => {
                    let done = core::mem::take(buf);
                    self.free.push(slot);
                    self.recycle(done);
                }
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
