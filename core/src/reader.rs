//! The public entry point: feed file bytes in chunks of any size, get events in timestamp order.
//!
//! Pipeline: [`crate::container`] (sniff, unzip/gunzip) → the trace stream's format, told from its
//! first bytes: EventPipe (a small reassembly buffer that holds only the incomplete unit at the end of
//! the data seen so far → [`crate::nettrace::Decoder`], one unit per step → [`crate::sort`], per
//! sequence-point region) or ETW ([`crate::etl::Decoder`], buffers merged by timestamp) → the
//! caller's sink. Both formats come out the same way: the consumer does not care which it read.

use crate::clr::gc::{TickDigest, TypeIndex, TypeRef};
use crate::container::Unwrapper;
use crate::ctf;
use crate::error::{Error, ErrorKind, Result};
use crate::etl;
use crate::event::{Event, TraceInfo};
use crate::filter::{EventCount, Filter, Interest};
use crate::nettrace;
use crate::nettrace::Decoder;
use crate::ticks::{Consumer, TickLane};
use alloc::boxed::Box;
use alloc::vec::Vec;

// Defined below the decoders (which fill them) and re-exported here, where callers meet them.
pub use crate::sink::{DecodeStats, Sink};

mod heap_walk;
mod stream;
pub use heap_walk::{heap_walk, WalkReader};
use stream::{Format, Stream};

/// Streaming trace reader. See the crate docs for the layers.
pub struct TraceReader {
    unwrap: Unwrapper,
    stream: Stream,
    stats: DecodeStats,
    failed: Option<Error>,
    finished: bool,
    /// What reads the events ([`set_consumer`](Self::set_consumer)).
    consumer: Consumer,
}

impl Default for TraceReader {
    fn default() -> Self {
        Self::new()
    }
}

impl TraceReader {
    pub fn new() -> Self {
        Self::with_entry(0)
    }

    /// A reader for the `n`-th trace (0-based) of a .zip holding several; see
    /// [`trace_entries`](Self::trace_entries). Inputs that are not a .zip ignore `n`.
    pub fn with_entry(n: usize) -> Self {
        TraceReader {
            unwrap: Unwrapper::with_entry(n),
            stream: Stream {
                format: None,
                filter: None,
                etl: None,
                ctf: None,
                entry_next: false,
                decoder: Decoder::new(),
                pending: Vec::new(),
                need: 0,
                offset: 0,
            },
            stats: DecodeStats::default(),
            failed: None,
            finished: false,
            consumer: Consumer::EveryEvent,
        }
    }

    /// Delivers only the events of metadata for which `filter(provider, event_id, version)` says
    /// [`Interest::Deliver`]; the others are counted (in [`stats`](Self::stats) and
    /// [`event_counts`](Self::event_counts)) but never buffered, sorted or delivered. Set it before
    /// the first push. The default delivers everything. For a reader of
    /// [`Consumer::EveryEvent`] that reads only some events: the GC model's consumers come with
    /// their own ([`set_consumer`](Self::set_consumer)).
    pub fn set_filter(&mut self, filter: impl Fn(&str, u32, u32) -> Interest + 'static) {
        let filter = Some(Box::new(filter) as Box<Filter>);
        // Kept until the first bytes say which decoder reads the stream, or given to it now.
        match (
            &self.stream.format,
            &mut self.stream.etl,
            &mut self.stream.ctf,
        ) {
            (None, _, _) => self.stream.filter = filter,
            (Some(_), Some(etl), _) => etl.set_filter(filter),
            (Some(_), None, Some(ctf)) => ctf.set_filter(filter),
            (Some(_), None, None) => self.stream.decoder.set_filter(filter),
        }
    }

    /// Holds at most about `bytes` in the EventPipe time-ordering buffer instead of
    /// [`crate::sort::MAX_BUFFERED_BYTES`] (past it, the oldest events are released and later
    /// earlier ones counted as out of order: see [`crate::sort`]). Set it before the first push.
    pub fn set_sort_budget(&mut self, bytes: usize) {
        self.stream.decoder.set_sort_budget(bytes);
    }

    /// Keeps the trace's call stacks: each distinct stack interned once ([`crate::stacks`]), and
    /// each delivered event's [`Event::stack`] set. Set it before the first push; off by default.
    /// An .etl's stacks are its StackWalk events and stack trace extended items, matched to their
    /// events ([`crate::etl::stackwalk`]); an LTTng trace's events come without stacks.
    pub fn set_keep_stacks(&mut self, keep: bool) {
        self.stream.decoder.set_keep_stacks(keep);
        if let Some(etl) = &mut self.stream.etl {
            etl.set_keep_stacks(keep);
        }
    }

    /// The stacks read so far, where kept ([`set_keep_stacks`](Self::set_keep_stacks)) and the
    /// trace is an EventPipe or ETW one.
    pub fn stacks(&self) -> Option<&crate::stacks::StackTable> {
        match (&self.stream.format, &self.stream.etl) {
            (Some(Format::Etw), Some(etl)) => etl.stacks(),
            (Some(Format::Etw), None) => None,
            _ => self.stream.decoder.stacks(),
        }
    }

    /// Takes the stacks read (see [`stacks`](Self::stacks)).
    pub fn take_stacks(&mut self) -> Option<crate::stacks::StackTable> {
        match (&self.stream.format, &mut self.stream.etl) {
            (Some(Format::Etw), Some(etl)) => etl.take_stacks(),
            (Some(Format::Etw), None) => None,
            _ => self.stream.decoder.take_stacks(),
        }
    }

    /// For [`Consumer`]'s setup of the reader (`consumer.rs`): notes the consumer and the mode of
    /// the tick lane it reads with.
    pub(crate) fn note_consumer(&mut self, consumer: Consumer, lane: TickLane) {
        self.consumer = consumer;
        self.stream.decoder.set_tick_lane(lane);
    }

    /// What reads the events ([`set_consumer`](Self::set_consumer)): parts of the file are
    /// decoded for it too ([`crate::parts::Planner::for_consumer`], [`Consumer::filter`]).
    pub fn consumer(&self) -> Consumer {
        self.consumer
    }

    /// [`set_filter`](Self::set_filter), builder style.
    pub fn with_filter(mut self, filter: impl Fn(&str, u32, u32) -> Interest + 'static) -> Self {
        self.set_filter(filter);
        self
    }

    /// Every event decoded so far, delivered or skipped, counted per provider, id and name (the name
    /// events are delivered under), sorted by provider, name, id.
    pub fn event_counts(&self) -> Vec<EventCount<'_>> {
        if let Some(ctf) = &self.stream.ctf {
            return ctf.event_counts();
        }
        match &self.stream.etl {
            Some(etl) => etl.event_counts(),
            None => self.stream.decoder.event_counts(),
        }
    }

    /// For an LTTng trace: its decoder (packets, lost events), once known.
    pub fn ctf(&self) -> Option<&ctf::Decoder> {
        self.stream.ctf.as_deref()
    }

    /// For an ETW file: its decoder (the logfile header's facts, lost events), once known.
    pub fn etl(&self) -> Option<&etl::Decoder> {
        self.stream.etl.as_deref()
    }

    /// Feeds the next chunk (any size). Calls `sink` for every event that became available, in
    /// timestamp order (sorted per sequence-point region). After an error, every later call returns it.
    pub fn push(&mut self, chunk: &[u8], sink: &mut dyn FnMut(&Event<'_>)) -> Result<()> {
        self.push_with_info(chunk, &mut |_, e| sink(e))
    }

    /// [`push`](Self::push), with the trace header's facts passed along with each event.
    pub fn push_with_info(&mut self, chunk: &[u8], sink: &mut Sink<'_>) -> Result<()> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.finished {
            return Err(Error::malformed(
                self.stats.bytes_in,
                "data pushed after finish()",
            ));
        }
        self.stats.bytes_in += chunk.len() as u64;
        let TraceReader {
            unwrap,
            stream,
            stats,
            ..
        } = self;
        let r = unwrap.push(chunk, &mut |data| stream.feed(data, stats, sink));
        if r.is_err() {
            // Nothing more will be read: the events buffered for ordering are complete, deliver them.
            match &mut stream.etl {
                Some(etl) => etl.flush(sink),
                None => stream.decoder.flush_buffered(stats, sink),
            }
        }
        self.stream.update_stats(&mut self.stats);
        self.note_left_out();
        r.map_err(|e| self.fail(e))
    }

    /// A pause in a live stream (an EventPipe session read from the runtime's socket, which has no
    /// end yet): delivers every event held for ordering now, rather than at the next sequence
    /// point, which a quiet session may not write for minutes. The runtime's session writes, at
    /// each of its flushes, every event older than the flush's time, so between two flushes no
    /// event to come sorts before the ones held: called when the stream pauses, the order is the
    /// one a whole read gives. Bytes of an incomplete unit stay pending; nothing ends, and
    /// [`push`](Self::push) goes on. A no-op for ETW files (not a live format) and after an error.
    pub fn release(&mut self, sink: &mut dyn FnMut(&Event<'_>)) {
        self.release_with_info(&mut |_, e| sink(e))
    }

    /// [`release`](Self::release), with the trace header's facts passed along with each event.
    pub fn release_with_info(&mut self, sink: &mut Sink<'_>) {
        if self.failed.is_some() || self.finished || self.stream.etl.is_some() {
            return;
        }
        self.stream.decoder.flush_buffered(&mut self.stats, sink);
        self.stream.update_stats(&mut self.stats);
    }

    /// End of input: flushes what is buffered. A stream cut off mid-unit returns `Truncated` after
    /// delivering every complete event before the cut; a clean end at an object boundary is fine.
    pub fn finish(&mut self, sink: &mut dyn FnMut(&Event<'_>)) -> Result<()> {
        self.finish_with_info(&mut |_, e| sink(e))
    }

    /// [`finish`](Self::finish), with the trace header's facts passed along with each event.
    pub fn finish_with_info(&mut self, sink: &mut Sink<'_>) -> Result<()> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        let TraceReader {
            unwrap,
            stream,
            stats,
            ..
        } = self;
        let container = unwrap.finish(&mut |data| stream.feed(data, stats, sink));
        let trace = stream.finish(stats, sink);
        self.stream.update_stats(&mut self.stats);
        self.note_left_out();
        container.and(trace).map_err(|e| self.fail(e))?;
        if self.info().is_none() {
            let e = Error::new(
                self.stats.trace_bytes,
                ErrorKind::Truncated {
                    what: "trace header",
                },
            );
            return Err(self.fail(e));
        }
        Ok(())
    }

    /// Names the companion files the ETL decoder left out, in [`DecodeStats::left_out_files`].
    fn note_left_out(&mut self) {
        let Some(etl) = &self.stream.etl else {
            return;
        };
        if etl.left_out().len() == self.stats.left_out_files.len() {
            return;
        }
        let members = self.unwrap.members().unwrap_or(&[]);
        self.stats.left_out_files = etl
            .left_out()
            .iter()
            .map(|(n, why)| {
                let name = members.get(*n as usize).map_or_else(
                    || alloc::format!("file {}", n + 1),
                    |m| alloc::format!("'{m}'"),
                );
                alloc::format!(
                    "{name} is left out: {why}; gcscope reads it on its own if it is a trace alone"
                )
            })
            .collect();
    }

    fn fail(&mut self, e: Error) -> Error {
        self.failed = Some(e.clone());
        e
    }

    /// For a .zip: the names of its trace entries, in archive order (complete after `finish`). More
    /// than one means the user may want another: open it with [`with_entry`](Self::with_entry).
    pub fn trace_entries(&self) -> Option<&[alloc::string::String]> {
        self.unwrap.trace_entries()
    }

    /// The trace header's facts, once read.
    pub fn info(&self) -> Option<&TraceInfo> {
        if let Some(ctf) = &self.stream.ctf {
            return ctf.info();
        }
        match &self.stream.etl {
            Some(etl) => etl.info(),
            None => self.stream.decoder.info(),
        }
    }

    pub fn stats(&self) -> &DecodeStats {
        &self.stats
    }

    /// For [`crate::parts`]: whether what a part decoded may be merged now (a plain trace stream,
    /// read up to a unit boundary, not failed).
    fn takes_parts(&self) -> bool {
        self.failed.is_none()
            && !self.finished
            && self.stream.pending.is_empty()
            && matches!(self.unwrap.kind(), Some(crate::container::Kind::Trace))
    }

    /// For [`crate::parts`]: the `len` bytes of an EventPipe block a part decoded (see
    /// [`crate::nettrace::Decoder::apply_piece`]). False, and nothing changed, where the block must
    /// be decoded sequentially.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn apply_net_piece(
        &mut self,
        piece: &nettrace::part::BlockPiece,
        events: &[crate::sort::Pending],
        ticks: &[crate::clr::gc::TickDigest],
        runs: &[nettrace::part::SeqRun],
        skips: &[nettrace::part::SkipCount],
        payloads: &alloc::rc::Rc<Vec<u8>>,
        len: u64,
        sink: &mut Sink<'_>,
    ) -> bool {
        if !self.takes_parts() || self.stream.format != Some(Format::EventPipe) {
            return false;
        }
        let applied = self.stream.decoder.apply_piece(
            piece,
            events,
            ticks,
            runs,
            skips,
            payloads,
            &mut self.stats,
            sink,
        );
        if applied {
            self.stream.offset += len;
            self.advance(len);
        }
        applied
    }

    /// For [`crate::parts`]: whether the next buffers of an ETW file may come from parts.
    pub(crate) fn etl_splittable(&self) -> bool {
        self.takes_parts() && self.stream.etl.as_ref().is_some_and(|e| e.splittable())
    }

    /// For [`crate::parts`]: the table an ETW part's stack ids are renumbered into (None: the
    /// reader keeps no stacks).
    pub(crate) fn etl_stacks_mut(&mut self) -> Option<&mut crate::stacks::StackTable> {
        self.stream.etl.as_mut().and_then(|e| e.stacks_mut())
    }

    /// For [`crate::parts`]: see [`etl::Decoder::absorb_catalog`].
    pub(crate) fn absorb_etl_catalog(&mut self, part: &[(etl::catalog::Key, u64)]) -> Vec<u32> {
        match &mut self.stream.etl {
            Some(e) => e.absorb_catalog(part),
            None => Vec::new(),
        }
    }

    /// For [`crate::parts`]: an ETW buffer of `len` bytes a part read (see
    /// [`etl::Decoder::apply_buffer`]); only after [`etl_splittable`](Self::etl_splittable).
    pub(crate) fn apply_etl_buffer(
        &mut self,
        piece: &etl::part::BufferPiece,
        events: impl Iterator<Item = etl::interleave::Held>,
        bytes: Vec<u8>,
        ticks: Vec<crate::clr::gc::TickDigest>,
        len: u64,
        sink: &mut Sink<'_>,
    ) {
        if let Some(e) = &mut self.stream.etl {
            e.apply_buffer(piece, events, bytes, ticks, len, sink);
            self.advance(len);
        }
    }

    /// `len` bytes of the stream went through a part: the counters say so, as if they were pushed.
    fn advance(&mut self, len: u64) {
        self.unwrap.skip_raw(len);
        self.stats.bytes_in += len;
        self.stats.trace_bytes += len;
        self.stream.update_stats(&mut self.stats);
        self.note_left_out();
    }

    /// The bytes of a part (an EventPipe task's, see [`crate::parts`]) that the reader no longer
    /// needs, to read the next task into: a caller decoding in parts reuses a few allocations
    /// instead of making (and zeroing, and faulting in) one per task.
    pub fn take_spent_buffer(&mut self) -> Option<Vec<u8>> {
        self.stream.decoder.take_spent()
    }

    /// For [`crate::parts`]: renumbers the type references of a part's `ticks` from the part's
    /// table `part` into this reader's, a lookup per name (so the merging thread, which every
    /// tick goes through, need not hash the tick's name). A reference outside the part's table
    /// (never made) is dropped: the name is then read from the payload.
    pub(crate) fn merge_types<'a>(
        &mut self,
        part: &TypeIndex,
        ticks: impl IntoIterator<Item = &'a mut TickDigest>,
    ) {
        if part.is_empty() {
            return;
        }
        // The table is the nettrace decoder's, whose own ticks refer to it too (those it batches).
        let types = &mut self.stream.decoder.tick_types;
        let map: Vec<u32> = part.names().map(|n| types.index(n).0).collect();
        for d in ticks {
            if let Some(i) = d.type_ref.in_part() {
                d.type_ref = map
                    .get(i as usize)
                    .map_or(TypeRef::NONE, |&m| TypeRef::merged(m));
            }
        }
    }

    /// For [`crate::parts`]: `bytes` of a part, no longer needed (see
    /// [`take_spent_buffer`](Self::take_spent_buffer)).
    pub(crate) fn recycle(&mut self, bytes: Vec<u8>) {
        self.stream.decoder.recycle(bytes);
    }

    /// Bytes currently buffered: an incomplete unit, and the events held for ordering (EventPipe's
    /// time-ordering buffer, as it counts itself; an ETW file's merge window).
    pub fn buffered_bytes(&self) -> usize {
        self.stream.pending.len()
            + self.stream.ctf.as_ref().map_or(0, |c| c.buffered_bytes())
            + match &self.stream.etl {
                Some(e) => e.buffered_bytes(),
                None => self.stream.decoder.sorted_bytes(),
            }
    }
}

/// Decodes a whole trace held in memory. Convenience over [`TraceReader`].
pub fn decode_all(bytes: &[u8], sink: &mut dyn FnMut(&Event<'_>)) -> Result<TraceInfo> {
    let mut r = TraceReader::new();
    r.push(bytes, sink)?;
    r.finish(sink)?;
    r.info()
        .cloned()
        .ok_or_else(|| Error::truncated(0, "trace header"))
}
