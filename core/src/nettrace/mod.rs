//! Layer 2: the EventPipe formats. NetPerf V1-V3 and NetTrace V4/V5 share FastSerialization framing
//! ([`framing`]); V6 has its own block framing ([`v6`]). The [`Decoder`] is a pull parser over
//! whatever bytes are available: each [`Decoder::step`] consumes one complete unit (stream header,
//! object, block or V1/V2 event) or says how many bytes it needs, so the caller can buffer only
//! incomplete units.

mod deliver;
pub mod event_block;
mod for_parts;
pub mod framing;
pub mod metadata;
pub mod netperf;
pub mod part;
pub mod rows;
mod salvage;
pub mod sequence_point;
pub mod stack;
mod tick_lane;
pub mod trace;
mod units;
pub mod v6;

use crate::bytes::Cursor;
use crate::clr::gc::TypeIndex;
use crate::container::NETTRACE_MAGIC;
use crate::error::{Error, ErrorKind, Result};
use crate::event::TraceInfo;
use crate::filter::{EventCount, Filter, Tally};
use crate::sink::{DecodeStats, Sink};
use crate::sort::Sorter;
use crate::stacks::StackTable;
use crate::ticks::TickLane;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use deliver::{emit, renamed};
use event_block::Dialect;
use framing::{ObjectKind, Peek};
use metadata::MetadataStore;
use sequence_point::SequenceTracker;
use v6::V6State;

/// Highest Trace object version read (V5 files still write 4; 5 is accepted for forward compatibility).
const MAX_TRACE_VERSION: i32 = 5;

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// This many bytes were consumed.
    Consumed(usize),
    /// Nothing consumed: the unit at the start needs at least this many bytes.
    NeedMore(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Before the magic / stream header.
    Start,
    StreamHeader,
    /// FastSerialization objects (V3-V5, and V1/V2's Trace object envelope).
    Objects,
    /// V1/V2: events directly inside the Trace object.
    InlineEvents,
    V6Blocks,
    /// After the end-of-stream marker: the rest is ignored.
    End,
}

/// What the next unit of the stream is, for splitting the trace into parts ([`Decoder::frame`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// Not enough bytes to tell: at least this many are needed.
    NeedMore(usize),
    /// An event or stack block a part can decode on its own: the unit is `len` bytes, its content
    /// `content_start..content_start + content_len` of them. Framed from its header alone: the
    /// block may be cut off by the end of the file, and a V4/V5 block's end tag (its last byte) is
    /// not checked; the part that reads it does both.
    Block {
        kind: part::BlockKind,
        len: usize,
        content_start: usize,
        content_len: usize,
    },
    /// A unit the decoder steps over itself ([`Decoder::step`]): headers, metadata, sequence points.
    Step,
    /// What follows is for the sequential decoder alone: the end of the stream, NetPerf V1-V3
    /// events (their metadata comes among the events), and whatever the decoder would reject.
    Sequential,
}

/// The format decoder: framing state, metadata, ordering and sequence checking.
pub struct Decoder {
    stage: Stage,
    /// Trace object version (1-5), or 6.
    version: u32,
    info: Option<TraceInfo>,
    pointer_size: u8,
    meta: MetadataStore,
    sorter: Sorter,
    seq: SequenceTracker,
    v6: V6State,
    /// Counts of every event, delivered or skipped.
    tally: Tally,
    /// What the unit at the start of the unconsumed input is, for truncation messages.
    current: &'static str,
    /// Allocation ticks go to the sort buffer's tick lane (see [`Self::set_tick_lane`]).
    tick_lane: TickLane,
    /// The type names of the allocation ticks: the parts' names, renumbered into it by the
    /// reader's merge ([`crate::TraceReader`]; an .etl's too, the reader has one table), and with
    /// [`TickLane::EachTick`] those of the ticks decoded here. Digests refer to it with
    /// [`TypeRef::merged`], and so does the tick lane's [`crate::ticks::BatchTick::type_slot`].
    pub(crate) tick_types: TypeIndex,
    /// The trace's stacks, when the consumer keeps them ([`Self::set_keep_stacks`]).
    stacks: Option<StackTable>,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    pub fn new() -> Self {
        Decoder {
            stage: Stage::Start,
            version: 0,
            info: None,
            pointer_size: 8,
            meta: MetadataStore::default(),
            sorter: Sorter::new(),
            seq: SequenceTracker::default(),
            v6: V6State::default(),
            tally: Tally::default(),
            current: "stream header",
            tick_lane: TickLane::Off,
            tick_types: TypeIndex::default(),
            stacks: None,
        }
    }

    pub fn info(&self) -> Option<&TraceInfo> {
        self.info.as_ref()
    }

    pub fn dropped_events(&self) -> u64 {
        self.seq.dropped
    }

    /// Interns the trace's stacks and gives each delivered event its stack
    /// ([`crate::event::Event::stack`]); before the first block. Off by default: a consumer that
    /// reads no stacks pays only for validating the StackBlocks.
    pub fn set_keep_stacks(&mut self, keep: bool) {
        match (keep, &self.stacks) {
            (true, None) => self.stacks = Some(StackTable::new()),
            (false, Some(_)) => self.stacks = None,
            _ => {}
        }
    }

    /// The stacks read so far (None: not kept, see [`Self::set_keep_stacks`]).
    pub fn stacks(&self) -> Option<&StackTable> {
        self.stacks.as_ref()
    }

    /// Takes the stacks read (None: not kept).
    pub fn take_stacks(&mut self) -> Option<StackTable> {
        self.stacks.take()
    }

    pub fn metadata_count(&self) -> usize {
        self.meta.len()
    }

    /// Sets the consumer's filter (None: deliver everything). See [`crate::filter`].
    pub fn set_filter(&mut self, filter: Option<Box<Filter>>) {
        self.meta.set_filter(filter);
    }

    /// Bytes held in the time-ordering buffer (see [`crate::sort::Sorter::buffered_bytes`]).
    pub fn sorted_bytes(&self) -> usize {
        self.sorter.buffered_bytes()
    }

    /// See [`crate::sort::Sorter::recycle`] and [`crate::sort::Sorter::take_spent`].
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        self.sorter.recycle(bytes);
    }
    pub fn take_spent(&mut self) -> Option<Vec<u8>> {
        self.sorter.take_spent()
    }

    /// Sets the sort buffer's budget (see [`crate::sort::MAX_BUFFERED_BYTES`]); before any event.
    pub fn set_sort_budget(&mut self, bytes: usize) {
        if self.sorter.is_empty() {
            self.sorter = Sorter::with_budget(bytes);
        }
    }

    /// Brings the counters that are kept elsewhere into `stats`.
    pub fn update_stats(&self, stats: &mut DecodeStats) {
        stats.dropped_events = self.seq.dropped;
        stats.out_of_order_events = self.sorter.late;
        let Some(info) = &self.info else { return };
        let t = &self.tally;
        stats.first_event_ms = t.first.map(|ts| info.ms_since_start(ts));
        stats.last_event_ms = t
            .last_since_sync
            .map(|d| info.ms_since_start(info.sync_time_qpc.wrapping_add(d)));
        let skipped = t.skipped_per_provider.iter().filter(|&&n| n > 0).count();
        if stats.filtered_by_provider.len() != skipped {
            stats.filtered_by_provider.clear();
            for (i, &n) in t.skipped_per_provider.iter().enumerate() {
                if n > 0 {
                    stats
                        .filtered_by_provider
                        .push((String::from(self.meta.provider(i as u32)), n));
                }
            }
        } else {
            let counts = t.skipped_per_provider.iter().filter(|&&n| n > 0);
            for (line, &n) in stats.filtered_by_provider.iter_mut().zip(counts) {
                line.1 = n;
            }
        }
    }

    /// Events seen so far (delivered or skipped) per provider, id and name, sorted by them.
    pub fn event_counts(&self) -> Vec<EventCount<'_>> {
        let mut by_key: BTreeMap<(&str, &str, u32), u64> = BTreeMap::new();
        let mut add = |index: u32, name: Option<&'static str>, n: u64| {
            if n == 0 || index as usize >= self.meta.len() {
                return;
            }
            let m = self.meta.entry(index);
            let key = (
                self.meta.provider(m.provider),
                name.unwrap_or(m.name.as_str()),
                m.event_id,
            );
            *by_key.entry(key).or_insert(0) += n;
        };
        for (i, &n) in self.tally.per_entry.iter().enumerate() {
            add(i as u32, None, n);
        }
        for &(i, name, n) in &self.tally.renamed {
            add(i, Some(name), n);
        }
        crate::filter::count_lines(by_key)
    }

    /// Decodes one unit from the start of `buf` (stream offset `base`).
    pub fn step(
        &mut self,
        buf: &[u8],
        base: u64,
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<Step> {
        match self.stage {
            Stage::Start => self.step_start(buf, base),
            Stage::StreamHeader => {
                if buf.len() < framing::STREAM_HEADER_LEN {
                    return Ok(Step::NeedMore(framing::STREAM_HEADER_LEN));
                }
                framing::read_stream_header(&mut Cursor::new(buf, base))?;
                self.stage = Stage::Objects;
                self.current = "Trace object";
                Ok(Step::Consumed(framing::STREAM_HEADER_LEN))
            }
            Stage::Objects => self.step_object(buf, base, stats, sink),
            Stage::InlineEvents => self.step_inline_event(buf, base, stats, sink),
            Stage::V6Blocks => self.step_v6_block(buf, base, stats, sink),
            Stage::End => Ok(Step::Consumed(buf.len())),
        }
    }

    /// End of input. `rest` holds the bytes of an incomplete unit (empty if the input ended cleanly).
    /// Delivers everything buffered, including the complete events of a cut-off event block, then
    /// reports the cut.
    pub fn finish(
        &mut self,
        rest: &[u8],
        base: u64,
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        let end = base + rest.len() as u64;
        let clean = rest.is_empty()
            && matches!(
                self.stage,
                Stage::Objects | Stage::V6Blocks | Stage::End | Stage::InlineEvents
            );
        if !clean && self.info.is_some() {
            // Salvage the complete events of a cut-off EventBlock.
            let _ = match self.stage {
                Stage::Objects => self.salvage_event_block(rest, base, stats, sink),
                Stage::V6Blocks => self.salvage_event_block_v6(rest, base, stats, sink),
                _ => Ok(()),
            };
        }
        self.flush(stats, sink);
        // A writer ends every NetTrace stream with blocks after its Trace object (metadata at
        // least) and an end tag: one that ends right after the Trace object was cut off there (an
        // aborted `dotnet-trace`), however cleanly, and says so rather than read as an empty trace.
        if clean
            && matches!(self.stage, Stage::Objects | Stage::V6Blocks)
            && self.info.is_some()
            && stats.blocks == 0
        {
            return Err(Error::truncated(
                end,
                "the first block after the Trace object",
            ));
        }
        if clean {
            return Ok(());
        }
        if self.stage == Stage::Start && rest.is_empty() {
            return Err(Error::new(
                0,
                ErrorKind::NotATrace("the trace stream is empty".into()),
            ));
        }
        Err(Error::truncated(end, self.current))
    }

    /// Delivers every buffered event now (after an error: nothing later can reorder them).
    pub fn flush_buffered(&mut self, stats: &mut DecodeStats, sink: &mut Sink<'_>) {
        self.flush(stats, sink);
    }

    fn flush_upto(&mut self, t: i64, stats: &mut DecodeStats, sink: &mut Sink<'_>) {
        let (meta, info, tally) = (&self.meta, &self.info, &mut self.tally);
        let Some(info) = info else { return };
        if tally.first.is_none() {
            tally.before_flush(t, self.sorter.min_timestamp_upto(t));
        }
        let ptr = self.pointer_size;
        let stacks = &mut self.stacks;
        self.sorter.flush_upto(t, &mut |r| {
            stats.events += emit(meta, tally, info, ptr, stacks.as_mut(), r, sink);
        });
    }

    fn flush(&mut self, stats: &mut DecodeStats, sink: &mut Sink<'_>) {
        let (meta, info, tally) = (&self.meta, &self.info, &mut self.tally);
        let Some(info) = info else { return };
        if tally.first.is_none() {
            tally.before_flush(i64::MAX, self.sorter.min_timestamp_upto(i64::MAX));
        }
        let ptr = self.pointer_size;
        let stacks = &mut self.stacks;
        self.sorter.flush(&mut |r| {
            stats.events += emit(meta, tally, info, ptr, stacks.as_mut(), r, sink);
        });
    }

    /// Counts an event the consumer's filter skips (entry `index`, in `payload`).
    fn skip(
        &mut self,
        index: u32,
        version: u32,
        timestamp: i64,
        payload: &[u8],
        stats: &mut DecodeStats,
    ) {
        stats.events += 1;
        stats.filtered_events += 1;
        let m = self.meta.entry(index);
        match renamed(&self.meta, index, version, self.pointer_size, payload) {
            Some(name) => self.tally.count_renamed(index, name),
            None => self.tally.count(index),
        }
        self.tally.skipped(m.provider, timestamp);
        if let Some(info) = &self.info {
            self.tally.saw(timestamp, info.sync_time_qpc);
        }
    }

    /// Events of an EventBlock or MetadataBlock (V4+ layout), ordered at once.
    fn read_event_block(
        &mut self,
        c: &mut Cursor<'_>,
        dialect: Dialect,
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        let mut out = rows::Direct {
            d: self,
            stats,
            sink,
            rows: &[],
            arena_base: None,
        };
        rows::decode(c, dialect, &mut out)
    }

    /// The end of an event block: an early flush up to its last IsSorted event once the buffer is
    /// big enough (see [`crate::sort`]), then the budget.
    fn end_block(
        &mut self,
        sorted_up_to: Option<i64>,
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) {
        if let Some(t) = sorted_up_to {
            if self.sorter.buffered_bytes() >= crate::sort::EARLY_FLUSH_BYTES {
                self.flush_upto(t, stats, sink);
            }
        }
        self.enforce_budget(stats, sink);
    }

    /// Past the sort buffer's budget, releases the oldest events (see [`crate::sort`]).
    fn enforce_budget(&mut self, stats: &mut DecodeStats, sink: &mut Sink<'_>) {
        if let Some(t) = self.sorter.budget_cut() {
            self.flush_upto(t, stats, sink);
            self.sorter.released(t);
        }
    }

    fn define_metadata_v4(
        &mut self,
        payload: &[u8],
        at: u64,
        stats: &mut DecodeStats,
    ) -> Result<()> {
        let defined = metadata::parse_payload(&mut self.meta, payload, at)?;
        self.define(defined, at, false, stats)
    }

    /// Registers metadata read at `at` (V4/V5 metadata events, V6 metadata rows): id 0 is reserved;
    /// `allow_redefine` as [`MetadataStore::insert`] takes it.
    fn define(
        &mut self,
        (id, m): (u32, metadata::Metadata),
        at: u64,
        allow_redefine: bool,
        stats: &mut DecodeStats,
    ) -> Result<()> {
        if id == 0 {
            return Err(Error::malformed(at, "metadata id 0 is reserved"));
        }
        self.meta.insert(id, at, m, allow_redefine)?;
        stats.metadata += 1;
        Ok(())
    }
}
