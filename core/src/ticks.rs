//! The allocation ticks' special case, its types in one place: how an [`Event`](crate::event::Event)
//! carries ticks already decoded ([`Ticks`]), the batch a reader for the GC model delivers the
//! ticks between two other events as ([`TickBatch`], [`BatchTick`]), and the modes of the reader
//! (`TickLane`, crate-private), and what a reader's caller consumes ([`Consumer`]), which the
//! reader is set up for in one place (`consumer.rs`: the filter, the mode, the parts' interning).
//!
//! The mechanism lives in the layers that hold the ticks: the sort buffer keeps ticks apart from
//! the other events and releases them as batches where it would have released each
//! ([`crate::sort`]'s lane), the NetTrace decoder sends its ticks there
//! ([`crate::nettrace::Decoder`]), and the GC model and insights read a batch as the ticks it
//! stands for ([`crate::gc::feed`]).

use crate::clr::gc::TickDigest;

/// What reads the events a [`crate::TraceReader`] delivers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Consumer {
    /// Every event, one by one, as the trace holds it: an allocation tick is an event of its own
    /// (with [`Ticks::One`], its digest, where a part of the file
    /// decoded it). Nothing is filtered out (a caller may narrow it,
    /// [`crate::TraceReader::set_filter`]).
    #[default]
    EveryEvent,
    /// The GC model alone ([`crate::gc::ModelBuilder::on_event`]): only the events the model
    /// reads are delivered ([`crate::gc::interest`]; the others are counted), and the allocation
    /// ticks between two other events come as one batch of their sums
    /// ([`Ticks::Batch`]), since the model only adds them up.
    Model,
    /// The GC model and its insights ([`crate::gc::feed`]): as [`Model`](Self::Model), each batch
    /// also holding its ticks one by one, which the insights bin by time and type; the parts of the
    /// file intern the ticks' type names, so that the merge need not hash them.
    ModelAndInsights,
    /// The call stacks ([`crate::stacks::view::StackSamplesBuilder::on_event`]): only the method
    /// and module events and the events whose stacks it sums are delivered
    /// ([`crate::stacks::view::interest`]), the reader keeps the trace's stacks
    /// ([`crate::TraceReader::set_keep_stacks`]), and the allocation ticks come as batches that
    /// hold each tick with its stack and thread, as for the insights
    /// ([`ModelAndInsights`](Self::ModelAndInsights)): the builder sums a tick by its stack.
    Stacks,
}

/// What the reader does with the allocation ticks that come with their digest: the mode
/// [`Consumer`] picks for its consumer (nowhere else chooses it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum TickLane {
    /// Each is delivered as an event of its own ([`Ticks::One`]).
    #[default]
    Off,
    /// The ticks between two other events are delivered as one [`TickBatch`] of their sums: for a
    /// consumer that only adds them up (the GC model without insights).
    Sums,
    /// As [`Sums`](Self::Sums), the batch also holding each tick in order
    /// ([`TickBatch::ticks`]): for the insights, which bin every tick by time and type.
    EachTick,
    /// As [`EachTick`](Self::EachTick), each tick with its stack and thread
    /// ([`BatchTick::stack`], [`BatchTick::thread_id`]): for the stacks.
    EachTickWithStacks,
}

impl TickLane {
    /// Whether batches hold each tick.
    pub(crate) fn each(self) -> bool {
        matches!(self, TickLane::EachTick | TickLane::EachTickWithStacks)
    }
}

/// The allocation ticks an [`Event`](crate::event::Event) is, already decoded
/// ([`Event::ticks`](crate::event::Event::ticks)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ticks<'a> {
    /// One GCAllocationTick, decoded by the part of the file that read it (parallel decoding,
    /// [`crate::parts`]): what [`crate::clr::decode`] gives of the event's payload, for the GC
    /// model and insights to read without decoding it again.
    One(&'a TickDigest),
    /// Several GCAllocationTicks delivered as one, by a reader for the GC model
    /// ([`Consumer::Model`], [`Consumer::ModelAndInsights`]):
    /// the event's other fields are the first tick's (its provider, name, time), its payload empty.
    Batch(&'a TickBatch),
}

/// One tick of a [`TickBatch`] (a reader for the insights,
/// [`Consumer::ModelAndInsights`]): the fields of its
/// [`TickDigest`] and event that the insights read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchTick {
    pub timestamp: i64,
    /// Milliseconds since the trace's start, as [`Event::time_ms`](crate::event::Event::time_ms).
    pub time_ms: f64,
    pub amount: u64,
    /// The raw AllocationKind.
    pub kind: u32,
    pub heap_index: Option<u32>,
    /// Its type name's slot in the batch ([`TickBatch::type_name`]); [`BatchTick::NO_NAME`] for a
    /// tick whose version has no type name (0 and 1).
    pub type_slot: u32,
    /// Its stack's table id, as [`Event::stack`](crate::event::Event::stack), where the reader
    /// keeps stacks for the stacks ([`Consumer::Stacks`]); else
    /// [`NO_STACK`](crate::stacks::NO_STACK).
    pub stack: u32,
    /// Its thread, where the stacks read the ticks ([`Consumer::Stacks`]); else 0.
    pub thread_id: u64,
}

impl BatchTick {
    pub const NO_NAME: u32 = u32::MAX;
}

/// The type names a batch's ticks refer to, by slot (the index of the name in the reader's table of
/// the parts' names). Kept from batch to batch: a name is stored once, when the first tick naming it
/// reaches the tick lane.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TickNames {
    /// Per slot, the name's start and end in `bytes` (start > end: not stored).
    spans: alloc::vec::Vec<(u32, u32)>,
    bytes: alloc::vec::Vec<u8>,
}

impl TickNames {
    pub fn get(&self, slot: u32) -> Option<&[u8]> {
        let &(start, end) = self.spans.get(slot as usize)?;
        self.bytes.get(start as usize..end as usize)
    }

    pub fn has(&self, slot: u32) -> bool {
        self.get(slot).is_some()
    }

    /// Stores `name` at `slot`; false where it cannot (a slot or bytes past what 32 bits count,
    /// which no trace's few thousand type names reach): then the tick is not taken into the lane.
    pub fn insert(&mut self, slot: u32, name: &[u8]) -> bool {
        let start = self.bytes.len();
        let (Ok(s), Ok(e), Some(need)) = (
            u32::try_from(start),
            u32::try_from(start + name.len()),
            (slot as usize).checked_add(1),
        ) else {
            return false;
        };
        if slot == BatchTick::NO_NAME {
            return false;
        }
        if self.spans.len() < need {
            self.spans.resize(need, (1, 0));
        }
        self.bytes.extend_from_slice(name);
        self.spans[slot as usize] = (s, e);
        true
    }
}

/// The GCAllocationTicks that come between two other events, in the order the reader delivers
/// events, as one (a reader for the GC model, [`Ticks::Batch`]): what the GC model reads of them,
/// summed, and for the insights each of them. Each came with its digest
/// ([`TickDigest`]), made by the part of the file that decoded it or by the reader.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TickBatch {
    pub count: u64,
    /// The ticks' amounts per allocation kind (small, large, pinned; a kind above 2 counts as the
    /// third, as the GC model counts it), saturating.
    pub bytes_by_kind: [u64; 3],
    /// The first tick's time (in delivery order), ms since the trace's start.
    pub first_ms: f64,
    /// The latest tick's: the one with the largest `timestamp - sync time` (wrapping, as
    /// [`TraceInfo::ms_since_start`](crate::event::TraceInfo::ms_since_start) computes it).
    pub latest_since_sync: i64,
    pub latest_ms: f64,
    pub(crate) first_timestamp: i64,
    pub(crate) latest_timestamp: i64,
    /// Ticks per metadata entry, for the reader's counts.
    pub(crate) per_entry: alloc::vec::Vec<(u32, u64)>,
    /// For the insights, each tick in delivery order (`count` of them); else empty.
    pub ticks: alloc::vec::Vec<BatchTick>,
    /// The names the ticks refer to (see [`type_name`](Self::type_name)).
    pub(crate) names: TickNames,
}

impl TickBatch {
    /// Empties it, keeping its memory.
    pub(crate) fn clear(&mut self) {
        self.count = 0;
        self.bytes_by_kind = [0; 3];
        self.per_entry.clear();
        self.ticks.clear();
    }

    /// The type name (raw UTF-16 bytes) of a tick's [`BatchTick::type_slot`]: the name in its
    /// payload. None for [`BatchTick::NO_NAME`].
    pub fn type_name(&self, slot: u32) -> Option<&[u8]> {
        self.names.get(slot)
    }

    /// Adds one tick of metadata entry `metadata`, `since_sync` after the sync time (wrapping).
    #[inline]
    pub(crate) fn add(
        &mut self,
        metadata: u32,
        timestamp: i64,
        since_sync: i64,
        kind: u8,
        amount: u64,
    ) {
        if self.count == 0 {
            self.first_timestamp = timestamp;
            self.latest_timestamp = timestamp;
            self.latest_since_sync = since_sync;
        } else if since_sync > self.latest_since_sync {
            self.latest_timestamp = timestamp;
            self.latest_since_sync = since_sync;
        }
        self.count += 1;
        let k = &mut self.bytes_by_kind[kind as usize];
        *k = k.saturating_add(amount);
        match self.per_entry.last_mut() {
            Some((m, n)) if *m == metadata => *n += 1,
            _ => match self.per_entry.iter_mut().find(|(m, _)| *m == metadata) {
                Some((_, n)) => *n += 1,
                None => self.per_entry.push((metadata, 1)),
            },
        }
    }
}
