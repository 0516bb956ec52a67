//! What goes into the sort buffer and what comes out of it: the buffered event's record
//! ([`Pending`]), an event as released ([`Released`]), and a release of either kind ([`Release`]).

use crate::clr::gc::TickDigest;
use crate::ticks::TickBatch;

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
/// the tick lane in the [`crate::sort`] docs).
pub enum Release<'a> {
    Event(Released<'a>),
    Ticks(&'a mut TickBatch),
}

/// What the buffer hands each event (or batch of ticks) it releases to.
pub type Emit<'a> = dyn FnMut(Release<'_>) + 'a;

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
    /// Which bytes hold the payload: [`ARENA`], or a chunk adopted from a part ([`Sorter::adopt`](super::Sorter::adopt)).
    pub chunk: u32,
    /// The event's [`TickDigest`], made by the part that decoded it: an index into the sorter's
    /// digests once pushed with [`Sorter::push_tick`](super::Sorter::push_tick) (into the part's own before), or [`NO_TICK`].
    pub tick: u32,
}
