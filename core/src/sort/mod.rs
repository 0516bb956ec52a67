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
//! other ticks before the same event as one [`TickBatch`] ([`Sorter::set_tick_lane`], `lane`):
//! released where each tick would have been, and counted as the record it replaces, so every
//! decision above is the same.
//!
//! **Memory bound.** A region is bounded by the writer's sequence points, and real traces hold at
//! most a few MB (the reference traces: 4.8 MB and 14k events; the 29 MB HeartRateMonitor trace
//! decodes in 8.5 MB RSS). A file without sequence points or IsSorted flags would make the whole
//! trace one region, and 2-byte events cost 64 bytes each here: so past [`MAX_BUFFERED_BYTES`] the
//! oldest events are released in timestamp order ([`Sorter::budget_cut`]) until half of it is left,
//! and every event buffered after that with a timestamp earlier than one released is counted
//! ([`Sorter::late`]): it is delivered out of order, and the consumer can say so. Ordering wins
//! below the budget (emitting unsorted would break every consumer that pairs Start/Stop events);
//! memory wins above it. Keeping stacks or activity ids per event would multiply the buffer, which
//! is why the records hold only what `Event` exposes.

mod lane;
mod radix;

use crate::clr::gc::TickDigest;
use crate::event::TickBatch;
use alloc::rc::Rc;
use alloc::vec::Vec;
use lane::{Lane, LaneTick};
use radix::radix_sort;

/// Buffered bytes above which an IsSorted event triggers an early partial flush.
pub const EARLY_FLUSH_BYTES: usize = 1 << 20;

/// The sort buffer's budget (records plus the bytes they point into, as accounted by
/// [`Sorter::buffered_bytes`]): past it the oldest events are released (see the module docs).
/// 64 MiB is 13x the largest region of the reference traces and 9x the generated traces' regions.
pub const MAX_BUFFERED_BYTES: usize = 64 << 20;

/// Chunk number of the sorter's own arena in [`Pending::chunk`]; adopted chunks count from 1.
pub const ARENA: u32 = 0;

/// A buffered event as the buffer releases it: its record, its payload and its digest if it
/// came with one.
#[derive(Debug, Clone, Copy)]
pub struct Released<'a> {
    pub event: &'a Pending,
    pub payload: &'a [u8],
    pub tick: Option<&'a TickDigest>,
}

/// What the buffer releases: an event, or the lane's ticks between two events as one batch (see
/// [`Sorter::set_tick_lane`]).
pub enum Release<'a> {
    Event(Released<'a>),
    Ticks(&'a mut TickBatch),
}

/// What the buffer hands each event (or batch of ticks) it releases to.
pub type Emit<'a> = dyn FnMut(Release<'_>) + 'a;

/// Spent chunks kept for reuse (see [`Sorter::take_spent`]): a few tasks' bytes.
pub const SPENT_KEPT: usize = 4;

/// Events gathered at a time by [`Sorter::emit_gathered`]: enough reads in flight to hide their
/// latency, few enough that the batch stays in L1/L2 (16 KiB of records).
const GATHER: usize = 256;

/// [`Pending::tick`] of an event without a [`TickDigest`].
pub const NO_TICK: u32 = u32::MAX;

/// One buffered event: everything an [`crate::event::Event`] needs except the interned strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    pub timestamp: i64,
    pub thread_id: u64,
    pub capture_thread_id: u64,
    /// Metadata entry index (see `nettrace::metadata::MetadataStore`).
    pub metadata: u32,
    pub version: u32,
    pub sequence: u32,
    pub processor: u32,
    pub stack_id: u32,
    pub payload_start: u32,
    pub payload_len: u32,
    /// Which bytes hold the payload: [`ARENA`], or a chunk adopted from a part ([`Sorter::adopt`]).
    pub chunk: u32,
    /// The event's [`TickDigest`], made by the part that decoded it: an index into the sorter's
    /// digests once pushed with [`Sorter::push_tick`] (into the part's own before), or [`NO_TICK`].
    pub tick: u32,
}

#[derive(Default)]
pub struct Sorter {
    events: Vec<Pending>,
    arena: Vec<u8>,
    order: Vec<(i64, u32)>,
    keys: Vec<u64>,
    /// Scratch for [`radix_sort`] of `keys`.
    keys_tmp: Vec<u64>,
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

    /// From now on, ticks pushed with their digest ([`push_tick`](Self::push_tick)) go to the tick
    /// lane: they are released as [`Release::Ticks`], the ticks between two other events summed as
    /// one batch, in the place the buffer would have released each (see `lane`). For a consumer
    /// that only adds ticks up (the GC model without insights). `sync_time_qpc`: the trace's.
    pub fn set_tick_lane(&mut self, sync_time_qpc: i64) {
        if self.lane.is_none() {
            self.lane = Some(Lane::new(sync_time_qpc));
        }
    }

    /// Whether ticks go to the lane.
    pub fn has_tick_lane(&self) -> bool {
        self.lane.is_some()
    }

    /// `order` = every buffered event's (timestamp, index), sorted: the order they are released in.
    fn sort_order(&mut self) {
        self.order.clear();
        self.order.extend(
            self.events
                .iter()
                .enumerate()
                .map(|(i, p)| (p.timestamp, i as u32)),
        );
        self.order.sort_unstable();
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

    /// [`push_at`](Self::push_at) of an event with its digest, if it has one; into the tick lane,
    /// if there is one.
    #[inline]
    pub fn push_tick(&mut self, mut p: Pending, tick: Option<TickDigest>) {
        if let Some(d) = tick.filter(|_| self.lane.is_some()) {
            self.arrived(p.timestamp);
            let x = LaneTick {
                timestamp: p.timestamp,
                before: self.events.len() as u32,
                metadata: p.metadata,
                payload_len: p.payload_len,
                kind: d.kind.min(2) as u8,
                amount: d.amount,
            };
            if let Some(lane) = self.lane.as_mut() {
                lane.ticks.push(x);
            }
            return;
        }
        p.tick = match tick {
            Some(d) => {
                self.ticks.push(d);
                (self.ticks.len() - 1) as u32
            }
            None => NO_TICK,
        };
        self.push_at(p);
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
        self.order.clear();
        self.order.extend(
            self.events
                .iter()
                .enumerate()
                .filter(|(_, p)| p.timestamp <= t)
                .map(|(i, p)| (p.timestamp, i as u32)),
        );
        let lane_all = match self.lane.as_mut() {
            Some(l) => {
                l.sort_upto(t);
                l.order.len() == l.ticks.len()
            }
            None => true,
        };
        if self.order.len() == self.events.len() && lane_all {
            return self.flush(emit);
        }
        self.order.sort_unstable();
        let order = core::mem::take(&mut self.order);
        self.emit_gathered(order.iter().map(|&(_, i)| i as usize), emit);
        self.order = order;
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
        self.sort_order();
        if let Some(l) = self.lane.as_mut() {
            l.sort_upto(i64::MAX);
        }
        // Keep the latest events (the lane's ticks among them) while they fit in half the budget;
        // release the rest, with every event of the last released timestamp (a cut is a timestamp).
        let mut kept = 0usize;
        let mut cut = None;
        let (mut a, mut b) = (
            self.order.len(),
            self.lane.as_ref().map_or(0, |l| l.order.len()),
        );
        while a > 0 || b > 0 {
            // The later of the last event and the last tick not counted yet.
            let tick = self
                .lane
                .as_ref()
                .filter(|_| b > 0)
                .map(|l| l.ticks[l.order[b - 1] as usize]);
            let event = (a > 0).then(|| self.order[a - 1]);
            let (ts, len) = match (event, tick) {
                (Some((ts, i)), Some(x)) if lane_tick_first(&x, ts, i) => {
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
    /// the consumer, each cache miss was waited for alone (a third of the merging thread's time on
    /// a 1 GiB trace, most of it stalled on these two loads).
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
                at.push(i as u32);
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
            for (p, &i) in batch.iter().zip(&at) {
                if let Some(l) = lane.as_mut() {
                    release_ticks(l, &mut next_tick, Some((p.timestamp, i)), emit);
                }
                emit(Release::Event(Released {
                    event: p,
                    payload: self.payload(p),
                    tick: ticks.get(p.tick as usize),
                }));
            }
        }
        if let Some(l) = lane.as_mut() {
            release_ticks(l, &mut next_tick, None, emit);
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
                l.order.clear();
                l.order.extend(0..l.ticks.len() as u32);
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
            let min = self.events.iter().map(|p| p.timestamp).min().unwrap_or(0);
            let max = self.events.iter().map(|p| p.timestamp).max().unwrap_or(0);
            let n = self.events.len();
            let idx_bits = usize::BITS - n.leading_zeros();
            let span = (max as i128 - min as i128) as u128;
            if idx_bits < 64 && span < (1u128 << (64 - idx_bits)) {
                // Pack (timestamp - min, index) into one u64 key: unique keys, sorted by radix
                // (a few linear passes; half the instructions of a comparison sort here).
                self.keys.clear();
                self.keys.extend(
                    self.events.iter().enumerate().map(|(i, p)| {
                        ((p.timestamp.wrapping_sub(min) as u64) << idx_bits) | i as u64
                    }),
                );
                // The keys are made in index order: the index bits need no pass.
                radix_sort(&mut self.keys, &mut self.keys_tmp, idx_bits);
                let mask = (1u64 << idx_bits) - 1;
                let keys = core::mem::take(&mut self.keys);
                self.emit_gathered(keys.iter().map(|&k| (k & mask) as usize), emit);
                self.keys = keys;
            } else {
                self.sort_order();
                let order = core::mem::take(&mut self.order);
                self.emit_gathered(order.iter().map(|&(_, i)| i as usize), emit);
                self.order = order;
            }
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

/// Whether lane tick `x` comes before the buffered event at index `i` with timestamp `ts`: an
/// earlier timestamp, or the same one and pushed before it (file order breaks ties).
#[inline]
fn lane_tick_first(x: &LaneTick, ts: i64, i: u32) -> bool {
    x.timestamp < ts || (x.timestamp == ts && x.before <= i)
}

/// Releases, as one batch, the lane's ticks of its `order` from `next` on that come before the event
/// `upto` (timestamp, index), or all of them for None.
fn release_ticks(l: &mut Lane, next: &mut usize, upto: Option<(i64, u32)>, emit: &mut Emit<'_>) {
    while let Some(&j) = l.order.get(*next) {
        if let Some((ts, i)) = upto {
            if !lane_tick_first(&l.ticks[j as usize], ts, i) {
                break;
            }
        }
        l.gather(j);
        *next += 1;
    }
    if l.batch.count > 0 {
        emit(Release::Ticks(&mut l.batch));
        l.batch.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(ts: i64, tid: u64) -> Pending {
        Pending {
            timestamp: ts,
            thread_id: tid,
            capture_thread_id: tid,
            metadata: 0,
            version: 0,
            sequence: 0,
            processor: 0,
            stack_id: 0,
            payload_start: 0,
            payload_len: 0,
            chunk: ARENA,
            tick: crate::sort::NO_TICK,
        }
    }

    #[test]
    fn sorts_by_timestamp_keeping_file_order_on_ties() {
        let mut s = Sorter::new();
        s.push(p(5, 1), b"a");
        s.push(p(3, 2), b"bb");
        s.push(p(5, 3), b"");
        s.push(p(1, 4), b"dddd");
        let mut out = Vec::new();
        s.flush(&mut |r| {
            let Release::Event(r) = r else { unreachable!() };
            out.push((r.event.timestamp, r.event.thread_id, r.payload.to_vec()))
        });
        assert_eq!(
            out,
            alloc::vec![
                (1, 4, b"dddd".to_vec()),
                (3, 2, b"bb".to_vec()),
                (5, 1, b"a".to_vec()),
                (5, 3, alloc::vec![])
            ]
        );
        assert!(s.is_empty());
        let mut n = 0;
        s.flush(&mut |_| n += 1);
        assert_eq!(n, 0);
    }

    #[test]
    fn sorts_timestamps_spanning_the_whole_range() {
        // Too wide a span for packed keys: the (timestamp, index) fallback must give the same order.
        let mut s = Sorter::new();
        for (ts, tid) in [(i64::MAX, 1), (0, 2), (i64::MIN, 3), (0, 4), (-5, 5)] {
            s.push(p(ts, tid), &[]);
        }
        let mut out = Vec::new();
        s.flush(&mut |r| {
            let Release::Event(r) = r else { unreachable!() };
            out.push(r.event.thread_id)
        });
        assert_eq!(out, [3, 5, 2, 4, 1]);
    }

    #[test]
    fn partial_flush_emits_a_prefix_of_the_full_order() {
        let input = [(5, 1u64), (9, 2), (3, 3), (7, 4), (6, 5)];
        let mut full = Sorter::new();
        let mut part = Sorter::new();
        for (ts, tid) in input {
            full.push(p(ts, tid), &[tid as u8; 3]);
            part.push(p(ts, tid), &[tid as u8; 3]);
        }
        let mut a = Vec::new();
        full.flush(&mut |r| {
            let Release::Event(r) = r else { unreachable!() };
            a.push((r.event.timestamp, r.payload.to_vec()))
        });
        let mut b = Vec::new();
        part.flush_upto(6, &mut |r| {
            let Release::Event(r) = r else { unreachable!() };
            b.push((r.event.timestamp, r.payload.to_vec()))
        });
        assert_eq!(b.len(), 3);
        part.push(p(8, 6), &[6; 3]);
        a.insert(4, (8, alloc::vec![6; 3]));
        part.flush(&mut |r| {
            let Release::Event(r) = r else { unreachable!() };
            b.push((r.event.timestamp, r.payload.to_vec()))
        });
        assert_eq!(a, b);
        let mut n = 0;
        part.flush(&mut |_| n += 1);
        assert_eq!(n, 0);
    }

    /// What a sorter released, a batch of ticks as the lane makes them: its count, its bytes per
    /// kind, its first timestamp, its latest `timestamp - sync` and its ticks per metadata entry.
    #[derive(Debug, PartialEq)]
    enum Out {
        Event(i64, u64, Vec<u8>),
        Ticks(u64, [u64; 3], i64, i64, Vec<(u32, u64)>),
    }

    /// Collects what `s` releases: events as they are; ticks (lane batches, or events with a
    /// digest from a sorter without the lane) summed between two events of one release, as a
    /// lane batch sums them.
    struct Collect {
        out: Vec<Out>,
        open: Option<crate::event::TickBatch>,
    }

    const SYNC: i64 = -7;

    impl Collect {
        fn take(&mut self, r: Release<'_>) {
            match r {
                Release::Event(r) => match r.tick {
                    Some(d) => {
                        let b = self.open.get_or_insert_with(Default::default);
                        let since = r.event.timestamp.wrapping_sub(SYNC);
                        b.add(
                            r.event.metadata,
                            r.event.timestamp,
                            since,
                            d.kind.min(2) as u8,
                            d.amount,
                        );
                    }
                    None => {
                        self.close();
                        self.out.push(Out::Event(
                            r.event.timestamp,
                            r.event.thread_id,
                            r.payload.to_vec(),
                        ));
                    }
                },
                Release::Ticks(b) => {
                    assert!(self.open.is_none());
                    assert!(b.count > 0);
                    self.out.push(Out::Ticks(
                        b.count,
                        b.bytes_by_kind,
                        b.first_timestamp,
                        b.latest_since_sync,
                        b.per_entry.clone(),
                    ));
                }
            }
        }
        fn close(&mut self) {
            if let Some(b) = self.open.take() {
                self.out.push(Out::Ticks(
                    b.count,
                    b.bytes_by_kind,
                    b.first_timestamp,
                    b.latest_since_sync,
                    b.per_entry,
                ));
            }
        }
    }

    /// Random pushes of events and ticks (timestamps out of order and tied), early flushes, budget
    /// cuts and full flushes into a sorter with the tick lane and one without: the same events in
    /// the same places, each run of ticks between them as one batch, and the same accounting (bytes
    /// held, events late) after every step, so both decide the same.
    #[test]
    fn the_tick_lane_releases_ticks_where_the_buffer_would() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut rnd = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let (mut laned, mut batches) = (0u64, 0u64);
        for round in 0..300 {
            let budget = [1 << 12, 1 << 14, 1 << 20][round % 3];
            let mut plain = Sorter::with_budget(budget);
            let mut lane = Sorter::with_budget(budget);
            lane.set_tick_lane(SYNC);
            let (mut a, mut b) = (
                Collect {
                    out: Vec::new(),
                    open: None,
                },
                Collect {
                    out: Vec::new(),
                    open: None,
                },
            );
            let mut clock = 0i64;
            for step in 0..400 {
                let op = rnd(100);
                if op < 80 {
                    // Mostly forward, now and then back, often tied.
                    clock += rnd(4) as i64;
                    let ts = clock - if rnd(5) == 0 { rnd(20) as i64 } else { 0 };
                    let mut e = p(ts, step);
                    e.metadata = rnd(3) as u32;
                    let payload: Vec<u8> = (0..rnd(40)).map(|i| i as u8 ^ step as u8).collect();
                    if op < 55 {
                        let d = TickDigest {
                            amount: rnd(1 << 20) + if rnd(50) == 0 { u64::MAX / 2 } else { 0 },
                            kind: rnd(4) as u32,
                            ..TickDigest::default()
                        };
                        for s in [&mut plain, &mut lane] {
                            let at = s.append(&payload).unwrap();
                            let mut e = e;
                            e.payload_start = at;
                            e.payload_len = payload.len() as u32;
                            s.push_tick(e, Some(d));
                        }
                    } else {
                        assert!(plain.push(e, &payload) && lane.push(e, &payload));
                    }
                } else if op < 88 {
                    let t = clock - rnd(10) as i64;
                    plain.flush_upto(t, &mut |r| a.take(r));
                    a.close();
                    lane.flush_upto(t, &mut |r| b.take(r));
                } else if op < 98 {
                    let (ca, cb) = (plain.budget_cut(), lane.budget_cut());
                    assert_eq!(ca, cb, "round {round} step {step}: budget cut");
                    if let Some(t) = ca {
                        plain.flush_upto(t, &mut |r| a.take(r));
                        a.close();
                        plain.released(t);
                        lane.flush_upto(t, &mut |r| b.take(r));
                        lane.released(t);
                    }
                } else {
                    plain.flush(&mut |r| a.take(r));
                    a.close();
                    lane.flush(&mut |r| b.take(r));
                }
                assert_eq!(
                    plain.buffered_bytes(),
                    lane.buffered_bytes(),
                    "round {round} step {step}: bytes held"
                );
                assert_eq!(
                    plain.len(),
                    lane.len(),
                    "round {round} step {step}: events held"
                );
                assert_eq!(plain.late, lane.late, "round {round} step {step}: late");
                assert_eq!(
                    plain.min_timestamp_upto(clock),
                    lane.min_timestamp_upto(clock)
                );
                assert_eq!(a.out, b.out, "round {round} step {step}: released");
            }
            plain.flush(&mut |r| a.take(r));
            a.close();
            lane.flush(&mut |r| b.take(r));
            assert_eq!(a.out, b.out, "round {round}: released at the end");
            for o in &b.out {
                if let Out::Ticks(n, ..) = o {
                    laned += n;
                    batches += 1;
                }
            }
        }
        // Not a test that passes because nothing went through the lane.
        assert!(
            laned > 10_000 && batches > 1_000,
            "{laned} ticks in {batches} batches"
        );
    }
}
