//! The tick lane: allocation ticks that came with their digest, held apart from the other buffered
//! events and released as [`TickBatch`]es (see [`Sorter::set_tick_lane`](super::Sorter::set_tick_lane)).
//!
//! A tick in the buffer costs the merging thread a 64-byte record copied in, sorted and gathered,
//! an `Event` built and dispatched, for a consumer (the GC model without insights) that only adds
//! it up, and ticks are most of a GC trace's events (docs/performance-log/journal.md, "What free
//! allocation ticks would buy"). In the lane a tick is a small record; at a flush the lane's ticks
//! are sorted on their own by key (timestamp, then file order) and the ticks between two other
//! events go out as one batch, in the place the buffer would have released them. Everything the
//! buffer decides (early flushes, the budget, late events) counts a lane tick as the record and
//! payload it replaces, so the events and batches come out exactly where the ticks would have.
//!
//! For the insights, which bin each tick by time and type, a batch also holds the ticks themselves
//! in that order ([`TickBatch::ticks`]), and the names of their types: a tick is taken only where
//! the merge has interned its name (its digest refers to the merge's table), and the first such
//! tick of a type leaves its name in the batch's table, so no later one needs its payload. For the
//! stacks, each tick also keeps its file stack id and thread ([`TickStack`]), and the batch's ticks
//! get their stack's table id where they are delivered, as an event's would be.

use super::radix::TimeOrder;
use super::{Emit, Pending, Release, Sorter, ARENA, NO_TICK};
use crate::clr::gc::TickDigest;
use crate::ticks::{BatchTick, TickBatch};
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

/// What a batch that holds each tick ([`TickBatch::ticks`]) needs of a lane tick besides its
/// [`LaneTick`]: apart, so that a lane for sums alone moves 32 bytes a tick, not 48
/// (docs/performance-log/journal.md, "The tick lane for the insights").
#[derive(Debug, Clone, Copy)]
pub(super) struct TickExtra {
    /// The raw AllocationKind.
    pub kind: u32,
    pub heap_index: Option<u32>,
    pub type_slot: u32,
}

/// What a batch for the stacks needs of a lane tick besides its [`TickExtra`]: apart, so that
/// the insights' lane does not move it.
#[derive(Debug, Clone, Copy)]
pub(super) struct TickStack {
    /// The file's stack id (resolved to the table's where the batch is delivered).
    pub raw: u32,
    pub thread_id: u64,
}

impl LaneTick {
    /// Whether it comes before the buffered event at index `i` with timestamp `ts`: an earlier
    /// timestamp, or the same one and pushed before it (file order breaks ties).
    #[inline]
    pub fn comes_before(&self, ts: i64, i: u32) -> bool {
        self.timestamp < ts || (self.timestamp == ts && self.before <= i)
    }
}

/// The lane: its ticks in file order, and what sorting them needs.
#[derive(Debug, Default)]
pub(super) struct Lane {
    pub ticks: Vec<LaneTick>,
    /// Where batches hold each tick, `ticks[i]`'s [`TickExtra`] (else empty).
    pub extra: Vec<TickExtra>,
    /// Where batches carry stacks, `ticks[i]`'s [`TickStack`] (else empty).
    pub stack: Vec<TickStack>,
    /// The trace's sync time, for each batch's latest tick ([`TickBatch::latest_since_sync`]).
    pub sync_time_qpc: i64,
    /// Batches hold each tick ([`TickBatch::ticks`]).
    pub each: bool,
    /// Each tick of a batch carries its stack and thread ([`crate::ticks::BatchTick::stack`]).
    pub stacks: bool,
    /// The trace's pointer size, where the type name is in a tick's payload.
    pub pointer_size: u8,
    /// Payload bytes of the ticks kept across a partial flush: the buffer's compaction copies the
    /// other events' payloads into its arena, and a lane tick must count for as much.
    pub kept_payload: usize,
    /// The ticks to release, in order (indices into `ticks`), and the sort's scratch.
    time: TimeOrder,
    /// The batch being gathered (reused).
    pub batch: TickBatch,
}

impl Lane {
    pub fn new(sync_time_qpc: i64, each: bool, stacks: bool, pointer_size: u8) -> Lane {
        Lane {
            sync_time_qpc,
            each,
            stacks: each && stacks,
            pointer_size,
            ..Lane::default()
        }
    }

    /// `order` = the ticks with a timestamp at most `upto`, sorted by (timestamp, file order).
    pub fn sort_upto(&mut self, upto: i64) {
        self.time
            .sort_upto(self.ticks.iter().map(|t| t.timestamp), upto);
    }

    /// The ticks [`sort_upto`](Self::sort_upto) put in order.
    pub fn order(&self) -> &[u32] {
        &self.time.order
    }

    /// Sets `order` to every tick in file order (they are in time order).
    pub fn keep_file_order(&mut self) {
        self.time.order.clear();
        self.time.order.extend(0..self.ticks.len() as u32);
    }

    /// Releases, as one batch, the ticks of `order` from `next` on that come before the buffered
    /// event `upto` (timestamp, index), or all of them for None.
    pub fn release_before(
        &mut self,
        next: &mut usize,
        upto: Option<(i64, u32)>,
        emit: &mut Emit<'_>,
    ) {
        while let Some(&j) = self.time.order.get(*next) {
            if upto.is_some_and(|(ts, i)| !self.ticks[j as usize].comes_before(ts, i)) {
                break;
            }
            self.gather(j);
            *next += 1;
        }
        if self.batch.count > 0 {
            emit(Release::Ticks(&mut self.batch));
            self.batch.clear();
        }
    }

    /// Adds tick `i` to the batch being gathered.
    #[inline]
    fn gather(&mut self, i: u32) {
        let t = self.ticks[i as usize];
        let since = t.timestamp.wrapping_sub(self.sync_time_qpc);
        self.batch
            .add(t.metadata, t.timestamp, since, t.kind, t.amount);
        if let Some(x) = self.extra.get(i as usize) {
            let st = self.stack.get(i as usize);
            // (Its time, and its stack's table id, are filled in where the batch is delivered:
            // until then `stack` is the file's id.)
            self.batch.ticks.push(BatchTick {
                timestamp: t.timestamp,
                time_ms: 0.0,
                amount: t.amount,
                kind: x.kind,
                heap_index: x.heap_index,
                type_slot: x.type_slot,
                // (0: the file's id for no stack.)
                stack: st.map_or(0, |s| s.raw),
                thread_id: st.map_or(0, |s| s.thread_id),
            });
        }
    }

    /// Adds a tick (in file order), with its [`TickExtra`] where batches hold each tick.
    #[inline]
    pub fn push(&mut self, t: LaneTick, x: TickExtra, st: TickStack) {
        self.ticks.push(t);
        if self.each {
            self.extra.push(x);
        }
        if self.stacks {
            self.stack.push(st);
        }
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
            if let Some(&e) = self.extra.get(k) {
                self.extra[kept] = e;
            }
            if let Some(&e) = self.stack.get(k) {
                self.stack[kept] = e;
            }
            kept += 1;
        }
        self.ticks.truncate(kept);
        self.extra.truncate(kept);
        self.stack.truncate(kept);
    }

    /// Empties it (a full flush).
    pub fn clear(&mut self) {
        self.ticks.clear();
        self.extra.clear();
        self.stack.clear();
        self.kept_payload = 0;
    }
}

/// How ticks get into the lane: the sort buffer's side of it.
impl Sorter {
    /// From now on, ticks pushed with their digest ([`push_tick`](Self::push_tick)) go to the tick
    /// lane: they are released as [`Release::Ticks`], the ticks between two other events summed as
    /// one batch, in the place the buffer would have released each (see the module docs). For a consumer
    /// that only adds ticks up (the GC model without insights), or with `each` one that reads each
    /// tick in order ([`TickBatch::ticks`]: the insights), and with `stacks` as well each tick's
    /// stack and thread (the stacks). `sync_time_qpc`, `pointer_size`: the trace's.
    pub(crate) fn set_tick_lane(
        &mut self,
        sync_time_qpc: i64,
        each: bool,
        stacks: bool,
        pointer_size: u8,
    ) {
        if self.lane.is_none() {
            self.lane = Some(Lane::new(sync_time_qpc, each, stacks, pointer_size));
        }
    }

    /// Whether ticks go to the lane.
    pub(crate) fn has_tick_lane(&self) -> bool {
        self.lane.is_some()
    }

    /// [`push_at`](Self::push_at) of an event with its digest, if it has one; into the tick lane,
    /// if there is one.
    #[inline]
    pub fn push_tick(&mut self, mut p: Pending, tick: Option<TickDigest>) {
        if let Some((d, type_slot)) = tick.and_then(|d| Some((d, self.lane_takes(&p, &d)?))) {
            self.arrived(p.timestamp);
            let t = LaneTick {
                timestamp: p.timestamp,
                before: self.events.len() as u32,
                metadata: p.metadata,
                payload_len: p.payload_len,
                // A kind above 2 counts as the third, as the GC model counts it.
                kind: d.kind.min(2) as u8,
                amount: d.amount,
            };
            let x = TickExtra {
                kind: d.kind,
                heap_index: d.heap_index,
                type_slot,
            };
            let st = TickStack {
                raw: p.stack_id,
                thread_id: p.thread_id,
            };
            if let Some(lane) = self.lane.as_mut() {
                lane.push(t, x, st);
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

    /// Whether the lane takes tick `d` of event `p`, and its type name's slot there
    /// ([`BatchTick::type_slot`]). Without the lane, None. Where batches hold each tick, a tick is
    /// taken if its version has no type name, or the merge interned its name
    /// ([`TypeRef::in_merge`](crate::clr::gc::TypeRef::in_merge)), which the batch then holds
    /// (from the first such tick's payload: the merge's table has the same bytes); any other goes
    /// through the buffer as an event, whose payload the consumer reads the name from.
    #[inline]
    fn lane_takes(&mut self, p: &Pending, d: &TickDigest) -> Option<u32> {
        let lane = self.lane.as_ref()?;
        if !lane.each || d.type_name_len.is_none() {
            return Some(BatchTick::NO_NAME);
        }
        let slot = d.type_ref.in_merge()?;
        if !lane.batch.names.has(slot) {
            self.lane_name(p, d, slot)?;
        }
        Some(slot)
    }

    /// Stores the type name of tick `d` (event `p`) in the lane's batch at `slot`.
    #[cold]
    fn lane_name(&mut self, p: &Pending, d: &TickDigest, slot: u32) -> Option<()> {
        let bytes = match p.chunk {
            ARENA => &self.arena,
            c => self.adopted.get((c as usize).checked_sub(1)?)?.as_ref(),
        };
        let start = p.payload_start as usize;
        let payload = bytes.get(start..start.checked_add(p.payload_len as usize)?)?;
        let lane = self.lane.as_mut()?;
        let name = d.type_name(payload, lane.pointer_size)?;
        lane.batch.names.insert(slot, name.0).then_some(())
    }
}
