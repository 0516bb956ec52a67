//! The decoder's side of the sort buffer's tick lane (see [`crate::sort::Sorter::set_tick_lane`]):
//! which allocation ticks go there, and the digest of one decoded here. The parts' ticks come
//! with theirs ([`Decoder::apply_piece`]).

use super::Decoder;
use crate::clr::gc::{TickDigest, TypeRef};
use crate::sort::Pending;
use crate::ticks::TickLane;

impl Decoder {
    /// Delivers the allocation ticks as [`crate::ticks::TickBatch`]es: the ticks between two other
    /// events as one (see [`crate::sort::Sorter::set_tick_lane`] and [`TickLane`]; the reader's
    /// consumer picks the mode, [`crate::ticks::Consumer`]). Those that parts of the file
    /// decoded ([`Self::apply_piece`]) come with their digests; for those decoded here the digest
    /// is made as the event is buffered (`lane_digest`).
    pub(crate) fn set_tick_lane(&mut self, lane: TickLane) {
        self.tick_lane = lane;
    }

    /// Whether ticks go to the sort buffer's lane: asked for, and the lane made once the trace's
    /// header is known.
    pub(super) fn tick_lane_ready(&mut self) -> bool {
        if self.tick_lane == TickLane::Off {
            return false;
        }
        if !self.sorter.has_tick_lane() {
            let Some(info) = &self.info else {
                return false;
            };
            let lane = self.tick_lane;
            let stacks = lane == TickLane::EachTickWithStacks;
            self.sorter
                .set_tick_lane(info.sync_time_qpc, lane.each(), stacks, self.pointer_size);
        }
        true
    }

    /// For the tick lane, the digest of an event decoded here (`p`, whose payload is `payload`),
    /// if it is an allocation tick that has one. Where batches hold each tick its type name is
    /// interned in [`Self::tick_types`], as the parts' names are, so the lane can take it.
    #[inline]
    pub(super) fn lane_digest(&mut self, p: &Pending, payload: &[u8]) -> Option<TickDigest> {
        if !self.meta.entry(p.metadata).alloc_tick || !self.tick_lane_ready() {
            return None;
        }
        let ptr = self.pointer_size;
        if self.tick_lane == TickLane::Sums {
            return TickDigest::of(payload, p.version, ptr);
        }
        let mut d = TickDigest::of_interned(payload, p.version, ptr, &mut self.tick_types)?;
        // (The table is the merge's: the index the part-style interning gave is a merged one.)
        if let Some(i) = d.type_ref.in_part() {
            d.type_ref = TypeRef::merged(i);
        }
        Some(d)
    }
}
