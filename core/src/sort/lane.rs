//! The tick lane: allocation ticks that came with their digest, held apart from the other buffered
//! events and released as [`TickBatch`]es (see [`Sorter::set_tick_lane`](super::Sorter::set_tick_lane)).
//!
//! A tick in the buffer cost the merging thread a 64-byte record copied in, sorted and gathered,
//! an `Event` built and dispatched, for a consumer (the GC model without insights) that only adds
//! it up: ticks were ~80% of its work (docs/performance.md, "What free allocation ticks would
//! buy"). In the lane a tick is a small record; at a flush the lane's ticks are sorted on their
//! own by key (timestamp, then file order) and the ticks between two other events go out as one
//! batch, in the place the buffer would have released them. Everything the buffer decides (early
//! flushes, the budget, late events) counts a lane tick as the record and payload it replaces, so
//! the events and batches come out exactly where the ticks would have.

use super::radix::radix_sort;
use crate::event::TickBatch;
use alloc::vec::Vec;

/// A tick in the lane.
#[derive(Debug, Clone, Copy)]
pub(super) struct LaneTick {
    pub timestamp: i64,
    /// The buffer's other events pushed before this tick: its place among them in file order
    /// (between event `before - 1` and event `before`).
    pub before: u32,
    pub metadata: u32,
    /// Its payload's length: what it counts for in the buffer's bytes, as the record it replaces.
    pub payload_len: u32,
    /// Allocation kind as the GC model counts it (see [`TickBatch::bytes_by_kind`]).
    pub kind: u8,
    pub amount: u64,
}

/// The lane: its ticks in file order, and what sorting them needs.
#[derive(Debug, Default)]
pub(super) struct Lane {
    pub ticks: Vec<LaneTick>,
    /// The trace's sync time, for each batch's latest tick ([`TickBatch::latest_since_sync`]).
    pub sync_time_qpc: i64,
    /// Payload bytes of the ticks kept across a partial flush: the buffer's compaction copies the
    /// other events' payloads into its arena, and a lane tick must count for as much.
    pub kept_payload: usize,
    /// The ticks to release, in order (indices into `ticks`), and scratch for sorting them.
    pub order: Vec<u32>,
    keys: Vec<u64>,
    keys_tmp: Vec<u64>,
    pairs: Vec<(i64, u32)>,
    /// The batch being gathered (reused).
    pub batch: TickBatch,
}

impl Lane {
    pub fn new(sync_time_qpc: i64) -> Lane {
        Lane {
            sync_time_qpc,
            ..Lane::default()
        }
    }

    /// `order` = the ticks with a timestamp at most `upto`, sorted by (timestamp, file order).
    pub fn sort_upto(&mut self, upto: i64) {
        self.order.clear();
        let n = self.ticks.len();
        let (mut min, mut max, mut all) = (i64::MAX, i64::MIN, true);
        for t in &self.ticks {
            if t.timestamp <= upto {
                min = min.min(t.timestamp);
                max = max.max(t.timestamp);
            } else {
                all = false;
            }
        }
        if min > max {
            return;
        }
        let idx_bits = usize::BITS - n.leading_zeros();
        let span = (max as i128 - min as i128) as u128;
        if idx_bits < 64 && span < (1u128 << (64 - idx_bits)) {
            // As the buffer's own sort: (timestamp - min, index) packed, radix-sorted, the index
            // bits (already ascending) not sorted on.
            self.keys.clear();
            self.keys.extend(
                self.ticks
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| all || t.timestamp <= upto)
                    .map(|(i, t)| ((t.timestamp.wrapping_sub(min) as u64) << idx_bits) | i as u64),
            );
            radix_sort(&mut self.keys, &mut self.keys_tmp, idx_bits);
            let mask = (1u64 << idx_bits) - 1;
            self.order
                .extend(self.keys.iter().map(|&k| (k & mask) as u32));
        } else {
            self.pairs.clear();
            self.pairs.extend(
                self.ticks
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.timestamp <= upto)
                    .map(|(i, t)| (t.timestamp, i as u32)),
            );
            self.pairs.sort_unstable();
            self.order.extend(self.pairs.iter().map(|&(_, i)| i));
        }
    }

    /// Adds tick `i` to the batch being gathered.
    #[inline]
    pub fn gather(&mut self, i: u32) {
        let t = self.ticks[i as usize];
        let since = t.timestamp.wrapping_sub(self.sync_time_qpc);
        self.batch
            .add(t.metadata, t.timestamp, since, t.kind, t.amount);
    }

    /// Keeps the ticks later than `t` (all for None), their `before` renumbered for the buffer's
    /// kept events: `kept_before[i]` is how many of its events before old index `i` it kept.
    pub fn keep_after(&mut self, t: Option<i64>, kept_before: &[u32]) {
        self.kept_payload = 0;
        let mut kept = 0;
        for k in 0..self.ticks.len() {
            let mut x = self.ticks[k];
            if t.is_some_and(|t| x.timestamp <= t) {
                continue;
            }
            // (`kept_before` has an entry for every event index and one past the last.)
            x.before = kept_before.get(x.before as usize).copied().unwrap_or(0);
            self.kept_payload += x.payload_len as usize;
            self.ticks[kept] = x;
            kept += 1;
        }
        self.ticks.truncate(kept);
    }

    /// Empties it (a full flush).
    pub fn clear(&mut self) {
        self.ticks.clear();
        self.kept_payload = 0;
    }
}
