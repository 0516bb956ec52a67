//! Ordering. EventPipe only orders events per capture thread; across threads, every event between two
//! sequence points lies between those points' timestamps. So events are buffered per sequence-point
//! region and sorted by timestamp when the region closes (ties keep file order).
//!
//! Events flagged IsSorted promise that every later event in file order is at least as late, so
//! when the buffer grows past [`EARLY_FLUSH_BYTES`] such an event lets everything up to its timestamp
//! go out early; the output is the same as sorting the whole region (it is a prefix of that order).
//!
//! The buffer is lean: one fixed-size record per event (header fields, 64 bytes) plus the bytes of
//! the region's event blocks, appended to one arena `Vec<u8>` with one copy per block (records point
//! at their payloads in it: the compressed headers between payloads cost a few bytes per event and
//! save a copy per event). Both are reused, so steady-state decoding does not allocate. Events
//! decoded by a part of the file ([`crate::parts`]) point into that part's own payload bytes, which
//! the buffer holds ([`Sorter::adopt`]) instead of copying them; they are accounted as the block's
//! bytes all the same, so both paths make the same decisions at the same events. Such events may
//! come with the part's [`TickDigest`] of their allocation tick ([`Sorter::push_tick`]), handed on
//! with the event; and a part's bytes, once no event points into them, are kept for the caller to
//! read the next part into ([`Sorter::take_spent`]).
//!
//! **The tick lane.** For a consumer that only adds ticks up (the GC model without insights), a
//! tick that came with its digest can wait apart instead, in a small record, and go out with the
//! other ticks before the same event as one [`TickBatch`](crate::ticks::TickBatch) (`lane`, set by
//! the reader for its [`Consumer`](crate::ticks::Consumer)): released where each tick would have
//! been, and counted as the record it replaces, so every decision above is the same. For the
//! insights, which read each tick, a batch can hold them one by one, in the order they would have
//! come, and for the stacks each of those with its stack and thread.
//!
//! **Memory bound.** A region is bounded by the writer's sequence points, and a region of the
//! reference traces holds at most a few MB. A file without sequence points or IsSorted flags would
//! make the whole trace one region, and 2-byte events cost 64 bytes each here: so past
//! [`MAX_BUFFERED_BYTES`] the oldest events are released in timestamp order
//! ([`Sorter::budget_cut`]) until half of it is left, and every event buffered after that with a
//! timestamp earlier than one released is counted ([`Sorter::late`]): it is delivered out of order,
//! and the consumer can say so. Ordering wins below the budget (emitting unsorted would break every
//! consumer that pairs Start/Stop events); memory wins above it. Keeping stacks or activity ids per
//! event would multiply the buffer, which is why the records hold only what `Event` exposes.

mod lane;
mod radix;
mod records;

pub use records::{Emit, Pending, Release, Released, ARENA, NO_TICK};

use crate::clr::gc::TickDigest;
use alloc::rc::Rc;
use alloc::vec::Vec;
use lane::Lane;
use radix::TimeOrder;

/// Buffered bytes above which an IsSorted event triggers an early partial flush.
pub const EARLY_FLUSH_BYTES: usize = 1 << 20;

/// The sort buffer's budget (records plus the bytes they point into, as accounted by
/// [`Sorter::buffered_bytes`]): past it the oldest events are released (see the module docs).
/// 64 MiB is many times the largest region of the reference traces and of the generated traces.
pub const MAX_BUFFERED_BYTES: usize = 64 << 20;

/// Spent chunks kept for reuse (see [`Sorter::take_spent`]): a few tasks' bytes.
pub const SPENT_KEPT: usize = 4;

/// Events gathered at a time by [`Sorter::emit_gathered`]: enough reads in flight to hide their
/// latency, few enough that the batch stays in L1/L2 (16 KiB of records).
const GATHER: usize = 256;

#[derive(Default)]
pub struct Sorter {
    events: Vec<Pending>,
    arena: Vec<u8>,
    /// The events to release, in order, and the sort's scratch.
    time: TimeOrder,
    /// Second arena for compaction after a partial flush.
    spare: Vec<u8>,
    /// Still in timestamp order as appended (then no sort is needed).
    in_order: bool,
    last_ts: i64,
    /// Payload bytes decoded by parts of the file, held rather than copied: chunk `i + 1`.
    adopted: Vec<Rc<Vec<u8>>>,
    /// The digests of buffered events that came with one ([`Pending::tick`]). Not counted in
    /// [`buffered_bytes`](Self::buffered_bytes): only parts make them, and both paths must make
    /// the same decisions at the same events (at most half a record's size per event).
    ticks: Vec<TickDigest>,
    /// [`emit_gathered`](Self::emit_gathered)'s batch of records and their digests (reused).
    gathered: Vec<Pending>,
    gathered_ticks: Vec<TickDigest>,
    /// The gathered records' indices (the lane's ties are broken by them).
    gathered_at: Vec<u32>,
    /// Adopted chunks let go of and held by nothing else: their allocations, for the caller to read
    /// the next parts into ([`take_spent`](Self::take_spent)); at most [`SPENT_KEPT`].
    spent: Vec<Vec<u8>>,
    /// What the adopted chunks count for in [`buffered_bytes`](Self::buffered_bytes): the bytes of the
    /// blocks their events came from, as the arena would have held them.
    adopted_accounted: usize,
    /// See [`MAX_BUFFERED_BYTES`].
    budget: usize,
    /// The latest timestamp released at the budget.
    released_upto: Option<i64>,
    /// Events buffered after a release at the budget with a timestamp before the latest one
    /// released: they come out after a later event.
    pub late: u64,
    /// The tick lane, once set ([`set_tick_lane`](Self::set_tick_lane)).
    lane: Option<Lane>,
    /// For [`keep_after`](Self::keep_after): how many events it kept before each index.
    kept_before: Vec<u32>,
}

impl Sorter {
    pub fn new() -> Self {
        Self::with_budget(MAX_BUFFERED_BYTES)
    }

    /// A sorter whose budget is `budget` bytes instead of [`MAX_BUFFERED_BYTES`] (tests).
    pub fn with_budget(budget: usize) -> Self {
        Sorter {
            in_order: true,
            last_ts: i64::MIN,
            budget,
            ..Default::default()
        }
    }

    pub fn len(&self) -> usize {
        self.events.len() + self.lane.as_ref().map_or(0, |l| l.ticks.len())
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes currently held (records + payloads), adopted chunks counted as the blocks they stand for,
    /// and a lane tick as the record and payload it stands for.
    pub fn buffered_bytes(&self) -> usize {
        let lane = self.lane.as_ref().map_or(0, |l| {
            l.ticks.len() * core::mem::size_of::<Pending>() + l.kept_payload
        });
        self.events.len() * core::mem::size_of::<Pending>()
            + self.arena.len()
            + self.adopted_accounted
            + lane
    }

    /// `time.order` = the buffered events with a timestamp at most `upto`, in the order they are
    /// released in (timestamp, then file order).
    fn sort_upto(&mut self, upto: i64) {
        self.time
            .sort_upto(self.events.iter().map(|p| p.timestamp), upto);
    }

    /// Emits the buffered events in the order of `time.order` (see
    /// [`emit_gathered`](Self::emit_gathered)).
    fn emit_sorted(&mut self, emit: &mut Emit<'_>) {
        let order = core::mem::take(&mut self.time.order);
        self.emit_gathered(order.iter().map(|&i| i as usize), emit);
        self.time.order = order;
    }

    /// The payload of a buffered event.
    #[inline]
    fn payload(&self, p: &Pending) -> &[u8] {
        let bytes = match p.chunk {
            ARENA => &self.arena,
            c => &self.adopted[c as usize - 1],
        };
        &bytes[p.payload_start as usize..(p.payload_start + p.payload_len) as usize]
    }

    /// The smallest buffered timestamp that is <= `t`.
    pub fn min_timestamp_upto(&self, t: i64) -> Option<i64> {
        let lane = self
            .lane
            .iter()
            .flat_map(|l| l.ticks.iter().map(|x| x.timestamp));
        self.events
            .iter()
            .map(|p| p.timestamp)
            .chain(lane)
            .filter(|&ts| ts <= t)
            .min()
    }

    /// Copies a block's event rows into the arena; events then point into them with
    /// [`push_at`](Self::push_at). Returns the arena offset of `bytes[0]`, or None if the region's
    /// arena would pass 4 GiB.
    #[inline]
    pub fn append(&mut self, bytes: &[u8]) -> Option<u32> {
        let start = self.arena.len();
        if start + self.adopted_accounted + bytes.len() > u32::MAX as usize {
            return None;
        }
        self.arena.extend_from_slice(bytes);
        Some(start as u32)
    }

    /// What [`append`](Self::append) of a block of `len` bytes does to the accounting, for a block
    /// whose payloads are in an adopted chunk: false (and nothing counted) where `append` would fail.
    pub fn account(&mut self, len: usize) -> bool {
        if !self.can_account(len) {
            return false;
        }
        self.adopted_accounted += len;
        true
    }

    /// Whether [`account`](Self::account) of `len` bytes would succeed.
    pub fn can_account(&self, len: usize) -> bool {
        self.arena.len() + self.adopted_accounted + len <= u32::MAX as usize
    }

    /// Holds `bytes` (a part's payloads) for the events that point into them; returns their chunk
    /// number. The same bytes adopted twice in a row are held once.
    pub fn adopt(&mut self, bytes: &Rc<Vec<u8>>) -> u32 {
        if !self.adopted.last().is_some_and(|c| Rc::ptr_eq(c, bytes)) {
            self.adopted.push(bytes.clone());
        }
        self.adopted.len() as u32
    }

    /// Buffers an event whose payload is `arena[payload_start..][..payload_len]` (from `append`).
    #[inline]
    pub fn push_at(&mut self, p: Pending) {
        debug_assert!(
            p.chunk != ARENA
                || p.payload_start as usize + p.payload_len as usize <= self.arena.len()
        );
        self.arrived(p.timestamp);
        self.events.push(p);
    }

    /// Notes an event (or lane tick) of timestamp `ts` coming in: late after a release at the
    /// budget, or out of order.
    #[inline]
    fn arrived(&mut self, ts: i64) {
        if self.released_upto.is_some_and(|t| ts < t) {
            self.late += 1;
        }
        if ts < self.last_ts {
            self.in_order = false;
        } else {
            self.last_ts = ts;
        }
    }

    /// Lets go of the adopted chunks, keeping the allocations nothing else holds (see
    /// [`take_spent`](Self::take_spent)).
    fn release_adopted(&mut self) {
        let mut adopted = core::mem::take(&mut self.adopted);
        for c in adopted.drain(..) {
            if let Ok(bytes) = Rc::try_unwrap(c) {
                self.recycle(bytes);
            }
        }
        // The list's own allocation is kept.
        self.adopted = adopted;
    }

    /// Keeps `bytes` (a part's, no longer needed) for [`take_spent`](Self::take_spent), if fewer
    /// than [`SPENT_KEPT`] are kept; else lets it go.
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        if self.spent.len() < SPENT_KEPT {
            self.spent.push(bytes);
        }
    }

    /// A part's bytes the buffer no longer needs: an allocation (and pages) to read the next
    /// part into, instead of a new one per part.
    pub fn take_spent(&mut self) -> Option<Vec<u8>> {
        self.spent.pop()
    }

    #[inline]
    fn release<'s>(&'s self, p: &'s Pending) -> Released<'s> {
        Released {
            event: p,
            payload: self.payload(p),
            tick: self.tick(p),
        }
    }

    /// The digest of a buffered event, if it has one.
    #[inline]
    fn tick(&self, p: &Pending) -> Option<&TickDigest> {
        self.ticks.get(p.tick as usize)
    }

    /// Buffers one event, copying its payload. Returns false (and buffers nothing) if the region's
    /// arena would pass 4 GiB.
    #[inline]
    pub fn push(&mut self, mut p: Pending, payload: &[u8]) -> bool {
        let start = self.arena.len();
        if start + self.adopted_accounted + payload.len() > u32::MAX as usize {
            return false;
        }
        p.payload_start = start as u32;
        p.payload_len = payload.len() as u32;
        p.chunk = ARENA;
        p.tick = NO_TICK;
        self.arena.extend_from_slice(payload);
        self.push_at(p);
        true
    }

    /// Emits, in order, every buffered event with timestamp <= `t` (an IsSorted event's timestamp: no
    /// later event can be earlier) and keeps the rest.
    pub fn flush_upto(&mut self, t: i64, emit: &mut Emit<'_>) {
        if self.in_order && self.last_ts <= t {
            return self.flush(emit);
        }
        self.sort_upto(t);
        let lane_all = match self.lane.as_mut() {
            Some(l) => {
                l.sort_upto(t);
                l.order().len() == l.ticks.len()
            }
            None => true,
        };
        if self.time.order.len() == self.events.len() && lane_all {
            return self.flush(emit);
        }
        self.emit_sorted(emit);
        self.keep_after(Some(t));
    }

    /// Keeps the events later than `t` (all of them for None), their payloads compacted into the
    /// arena; the adopted chunks are let go.
    fn keep_after(&mut self, t: Option<i64>) {
        let mut arena = core::mem::take(&mut self.spare);
        arena.clear();
        // Digests are kept in place: a kept event's digest moves to an index no later than its own.
        let mut ticks = 0usize;
        self.last_ts = i64::MIN;
        self.in_order = true;
        let mut kept = 0;
        self.kept_before.clear();
        for k in 0..self.events.len() {
            self.kept_before.push(kept as u32);
            let mut p = self.events[k];
            if t.is_some_and(|t| p.timestamp <= t) {
                continue;
            }
            let payload = self.payload(&p);
            p.payload_start = arena.len() as u32;
            p.chunk = ARENA;
            arena.extend_from_slice(payload);
            if let Some(&d) = self.tick(&p) {
                self.ticks[ticks] = d;
                p.tick = ticks as u32;
                ticks += 1;
            }
            if p.timestamp < self.last_ts {
                self.in_order = false;
            } else {
                self.last_ts = p.timestamp;
            }
            self.events[kept] = p;
            kept += 1;
        }
        self.kept_before.push(kept as u32);
        self.events.truncate(kept);
        self.ticks.truncate(ticks);
        if let Some(lane) = self.lane.as_mut() {
            lane.keep_after(t, &self.kept_before);
            if !lane.ticks.is_empty() {
                // Whether the kept ticks and events are in order together is not worked out: the
                // sort then finds out (being in order only spares it).
                self.in_order = false;
            }
        }
        self.spare = core::mem::replace(&mut self.arena, arena);
        self.release_adopted();
        self.adopted_accounted = 0;
    }

    /// Past the budget: the timestamp up to which the oldest events should be released
    /// ([`flush_upto`](Self::flush_upto) then [`released`](Self::released)) to bring the buffer
    /// down to half the budget; None within the budget (or when compacting the payloads was enough).
    pub fn budget_cut(&mut self) -> Option<i64> {
        if self.buffered_bytes() <= self.budget {
            return None;
        }
        let record = core::mem::size_of::<Pending>();
        self.sort_upto(i64::MAX);
        if let Some(l) = self.lane.as_mut() {
            l.sort_upto(i64::MAX);
        }
        // Keep the latest events (the lane's ticks among them) while they fit in half the budget;
        // release the rest, with every event of the last released timestamp (a cut is a timestamp).
        let mut kept = 0usize;
        let mut cut = None;
        let (mut a, mut b) = (
            self.time.order.len(),
            self.lane.as_ref().map_or(0, |l| l.order().len()),
        );
        while a > 0 || b > 0 {
            // The later of the last event and the last tick not counted yet.
            let tick = self
                .lane
                .as_ref()
                .filter(|_| b > 0)
                .map(|l| l.ticks[l.order()[b - 1] as usize]);
            let event = (a > 0).then(|| {
                let i = self.time.order[a - 1];
                (self.events[i as usize].timestamp, i)
            });
            let (ts, len) = match (event, tick) {
                (Some((ts, i)), Some(x)) if x.comes_before(ts, i) => {
                    a -= 1;
                    (ts, self.events[i as usize].payload_len)
                }
                (_, Some(x)) => {
                    b -= 1;
                    (x.timestamp, x.payload_len)
                }
                (Some((ts, i)), None) => {
                    a -= 1;
                    (ts, self.events[i as usize].payload_len)
                }
                (None, None) => break,
            };
            let cost = record + len as usize;
            if kept + cost > self.budget / 2 {
                cut = Some(ts);
                break;
            }
            kept += cost;
        }
        if cut.is_none() {
            // The records and their payloads fit: what was over is the rest of their blocks'
            // bytes (events a filter skipped), which compacting drops.
            self.keep_after(None);
        }
        cut
    }

    /// Events up to `t` were released at the budget: any buffered later with an earlier timestamp is
    /// counted in [`late`](Self::late).
    pub fn released(&mut self, t: i64) {
        self.released_upto = Some(self.released_upto.map_or(t, |u| u.max(t)));
    }

    /// Emits the buffered events at the indices `order` gives, in that order, with the lane's ticks
    /// of its `order` (prepared by the caller) between them as batches. The records (and their
    /// digests) are first copied out [`GATHER`] at a time in a loop that does nothing else, so the
    /// CPU has many of these random reads in flight at once; read one at a time between calls to
    /// the consumer, each cache miss would be waited for alone (docs/performance-log/journal.md, "A
    /// stall in the sort buffer, rows on their own thread, compressed per-heap histories").
    fn emit_gathered(&mut self, order: impl Iterator<Item = usize>, emit: &mut Emit<'_>) {
        let mut batch = core::mem::take(&mut self.gathered);
        let mut ticks = core::mem::take(&mut self.gathered_ticks);
        let mut at = core::mem::take(&mut self.gathered_at);
        let mut lane = self.lane.take();
        let mut next_tick = 0;
        let mut order = order.peekable();
        while order.peek().is_some() {
            batch.clear();
            at.clear();
            for i in order.by_ref().take(GATHER) {
                // Their indices only break ties with the lane's ticks.
                if lane.is_some() {
                    at.push(i as u32);
                }
                batch.push(self.events[i]);
            }
            ticks.clear();
            if !self.ticks.is_empty() {
                for p in batch.iter_mut() {
                    if let Some(&d) = self.ticks.get(p.tick as usize) {
                        p.tick = ticks.len() as u32;
                        ticks.push(d);
                    }
                }
            }
            for (k, p) in batch.iter().enumerate() {
                if let Some(l) = lane.as_mut() {
                    l.release_before(&mut next_tick, Some((p.timestamp, at[k])), emit);
                }
                emit(Release::Event(Released {
                    event: p,
                    payload: self.payload(p),
                    tick: ticks.get(p.tick as usize),
                }));
            }
        }
        if let Some(l) = lane.as_mut() {
            l.release_before(&mut next_tick, None, emit);
        }
        self.lane = lane;
        self.gathered = batch;
        self.gathered_ticks = ticks;
        self.gathered_at = at;
    }

    /// Emits every buffered event in timestamp order (stable) and empties the buffer.
    pub fn flush(&mut self, emit: &mut Emit<'_>) {
        if let Some(l) = self.lane.as_mut() {
            if self.in_order {
                l.keep_file_order();
            } else {
                l.sort_upto(i64::MAX);
            }
        }
        if self.in_order {
            if self.lane.is_some() {
                self.emit_gathered(0..self.events.len(), emit);
            } else {
                for p in &self.events {
                    emit(Release::Event(self.release(p)));
                }
            }
        } else {
            self.sort_upto(i64::MAX);
            self.emit_sorted(emit);
        }
        self.events.clear();
        self.ticks.clear();
        self.arena.clear();
        if let Some(l) = self.lane.as_mut() {
            l.clear();
        }
        self.release_adopted();
        self.adopted_accounted = 0;
        self.in_order = true;
        self.last_ts = i64::MIN;
    }
}

#[cfg(test)]
mod tests;
