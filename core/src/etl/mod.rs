//! Beside [`crate::nettrace`]: ETW log files (`.etl`, as written by PerfView, WPR, xperf and
//! relogged/merged by them). `docs/reference/formats.md`, "ETW .etl files", describes the bytes;
//! each structure has its module:
//!
//! * [`buffer`]: the 72-byte WMI_BUFFER_HEADER of every buffer;
//! * [`lz77`]: [MS-XCA] Plain LZ77, the per-buffer compression of EVENT_TRACE_COMPRESSED_MODE files;
//! * [`logfile`]: TRACE_LOGFILE_HEADER, the first record (buffer size, clock, pointer size, lost events);
//! * [`record`]: the record header kinds (EVENT_HEADER with its extended items, classic, system,
//!   compact and perfinfo headers), each sized exactly;
//! * [`names`] and [`catalog`]: provider and event names, TraceEvent's where cheap;
//! * [`interleave`]: the per-processor buffers merged by timestamp in a bounded window;
//! * [`kernel`]: the kernel's process events (name, command line), which name the processes.
//!
//! The [`Decoder`] is fed the file's bytes in chunks of any size; it holds at most one incomplete
//! buffer (16 MiB at most, only as its bytes arrive) plus the merge window. Every malformed input is
//! an `Err` with the byte offset of the buffer (or buffer header field) at fault, after the events of
//! every buffer before it are delivered. A record that cannot be read (an unknown header type, a size
//! past the buffer) ends its buffer only: the buffers are framed independently of their records, so
//! the rest of the file is still read, and the skipped records are counted.

pub mod buffer;
pub mod catalog;
mod counters;
pub mod guid;
pub mod interleave;
pub mod kernel;
pub mod logfile;
pub mod lz77;
pub mod names;
pub mod part;
pub mod record;
mod records;
pub mod stackwalk;

use crate::error::{Error, ErrorKind, Result};
use crate::event::{Event, TraceInfo};
use crate::filter::{EventCount, Filter};
use crate::sink::{DecodeStats, Sink};
use crate::stacks::StackTable;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use buffer::{BufferHeader, HEADER_LEN};
use catalog::Catalog;
use interleave::{Held, HeldBuffer, Window};
use logfile::LogfileHeader;
use record::Source;

pub use counters::{Counters, PidFiltered, MAX_FILTERED_PIDS};
pub(crate) use records::read_records;

/// The .etl decoder: buffer framing, decompression, records, names and the merge window.
pub struct Decoder {
    /// Bytes of the incomplete buffer at the end of the data so far.
    pending: Vec<u8>,
    /// Stream offset of the next buffer (of `pending[0]` when pending holds one).
    offset: u64,
    header: Option<LogfileHeader>,
    info: Option<TraceInfo>,
    catalog: Catalog,
    window: Window,
    /// Decompressed records of the current buffer (reused).
    scratch: Vec<u8>,
    counters: Counters,
    /// Reading the cut-off last buffer: its last record is cut, not damaged.
    salvaging: bool,
    /// A companion file began (see [`Decoder::begin_file`]): its first record is its own logfile
    /// header.
    new_file: bool,
    /// Files begun after the first (see [`Decoder::begin_file`]).
    companions: u32,
    /// The current companion is not part of the first file's recording: its buffers are skipped.
    skipping: bool,
    /// The companions left out: their number (1 = the first after the main file) and why.
    left_out: Vec<(u32, String)>,
    /// Events the companions read in full say they lost.
    companion_lost: u64,
    /// The trace's stacks, when kept ([`Decoder::set_keep_stacks`]).
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
            pending: Vec::new(),
            offset: 0,
            header: None,
            info: None,
            catalog: Catalog::default(),
            window: Window::default(),
            scratch: Vec::new(),
            counters: Counters::default(),
            salvaging: false,
            new_file: false,
            companions: 0,
            skipping: false,
            left_out: Vec::new(),
            companion_lost: 0,
            stacks: None,
        }
    }

    /// Matches the file's stacks to their events and interns them ([`stackwalk`]): each delivered
    /// event's [`Event::stack`] is set. Off by default.
    pub fn set_keep_stacks(&mut self, keep: bool) {
        match (keep, &self.stacks) {
            (true, None) => self.stacks = Some(StackTable::new()),
            (false, Some(_)) => self.stacks = None,
            _ => {}
        }
    }

    /// The stacks read so far (None: not kept).
    pub fn stacks(&self) -> Option<&StackTable> {
        self.stacks.as_ref()
    }

    /// Takes the stacks read (None: not kept).
    pub fn take_stacks(&mut self) -> Option<StackTable> {
        self.stacks.take()
    }

    /// For the merge of parts ([`part`]): the table a part's stack ids are renumbered into.
    pub(crate) fn stacks_mut(&mut self) -> Option<&mut StackTable> {
        self.stacks.as_mut()
    }

    /// The next bytes are another file of the same trace (PerfView's `.kernel.etl` /
    /// `.clrRundown.etl` companions of a `.etl` in one .zip). Its events cannot be merged with the
    /// ones already delivered (they start at the session's beginning again), so everything held is
    /// delivered first and the companion's events follow, in their own order, not counted as out of
    /// order. The trace's time origin stays the first file's. A companion whose logfile header shows
    /// another recording (see [`LogfileHeader::other_recording`]) is skipped, and listed by
    /// [`Decoder::left_out`].
    pub fn begin_file(&mut self, sink: &mut Sink<'_>) -> Result<()> {
        if !self.pending.is_empty() {
            let at = self.offset + self.pending.len() as u64;
            self.flush(sink);
            return Err(Error::truncated(at, "ETL buffer"));
        }
        self.flush(sink);
        self.window.restart();
        self.new_file = self.info.is_some();
        self.skipping = false;
        if self.new_file {
            self.companions += 1;
        }
        Ok(())
    }

    /// The companion files left out, by number (1 = the first file after the main one), with the
    /// reason.
    pub fn left_out(&self) -> &[(u32, String)] {
        &self.left_out
    }

    /// Sets the consumer's filter (None: deliver everything). See [`crate::filter`].
    pub fn set_filter(&mut self, filter: Option<Box<Filter>>) {
        self.catalog.set_filter(filter);
    }

    pub fn info(&self) -> Option<&TraceInfo> {
        self.info.as_ref()
    }

    /// The logfile header, once read.
    pub fn logfile_header(&self) -> Option<&LogfileHeader> {
        self.header.as_ref()
    }

    pub fn counters(&self) -> Counters {
        let mut c = self.counters.clone();
        c.out_of_order = self.window.out_of_order;
        c
    }

    /// Events lost by the session, as its logfile header says.
    pub fn lost_events(&self) -> u64 {
        self.header.map_or(0, |h| h.events_lost as u64) + self.companion_lost
    }

    /// Brings the counters into the reader's `stats` (the fields an .etl file has: its buffers are
    /// the blocks, the session's lost events the dropped ones).
    pub fn update_stats(&self, stats: &mut DecodeStats) {
        let c = self.counters();
        stats.events = c.events;
        stats.filtered_events = c.filtered_events;
        stats.blocks = c.buffers;
        stats.skipped_events = c.skipped_records;
        stats.out_of_order_events = c.out_of_order;
        stats.dropped_events = self.lost_events();
        stats.filtered_by_provider = self
            .skipped_by_provider()
            .map(|(p, n)| (String::from(p), n))
            .collect();
        if let Some(info) = &self.info {
            stats.first_event_ms = c.first_timestamp.map(|t| info.ms_since_start(t));
            stats.last_event_ms = c.last_timestamp.map(|t| info.ms_since_start(t));
            stats.filtered_by_process = c
                .filtered_by_pid
                .iter()
                .map(|p| crate::sink::FilteredProcess {
                    process_id: p.process_id,
                    events: p.events,
                    runtime_events: p.runtime_events,
                    first_event_ms: info.ms_since_start(p.first_timestamp),
                    last_event_ms: info.ms_since_start(p.last_timestamp),
                })
                .collect();
        }
    }

    /// Records seen per provider, id and name.
    pub fn event_counts(&self) -> Vec<EventCount<'_>> {
        self.catalog.event_counts()
    }

    /// Records the filter skipped, per provider.
    pub fn skipped_by_provider(&self) -> impl Iterator<Item = (&str, u64)> {
        self.catalog.skipped_by_provider()
    }

    /// Bytes held: an incomplete buffer plus the merge window.
    pub fn buffered_bytes(&self) -> usize {
        self.pending.len() + self.window.held_bytes()
    }

    /// Feeds the next bytes of the file.
    pub fn push(&mut self, mut data: &[u8], sink: &mut Sink<'_>) -> Result<()> {
        let r = (|| {
            while !data.is_empty() {
                if self.pending.is_empty() {
                    // Whole buffers straight from the caller's bytes; copy only an incomplete tail.
                    let used = self.buffers(data, sink)?;
                    self.pending.extend_from_slice(&data[used..]);
                    return Ok(());
                }
                let need = self.need(&self.pending)?;
                let take = (need - self.pending.len()).min(data.len());
                self.pending.extend_from_slice(&data[..take]);
                data = &data[take..];
                if self.pending.len() < self.need(&self.pending)? {
                    // The header is complete now but not the buffer, or the data ran out.
                    continue;
                }
                let buf = core::mem::take(&mut self.pending);
                let r = self.buffers(&buf, sink);
                let mut buf = buf;
                match r {
                    Ok(used) => {
                        buf.drain(..used);
                        self.pending = buf;
                    }
                    Err(e) => {
                        self.pending = buf;
                        return Err(e);
                    }
                }
            }
            Ok(())
        })();
        if r.is_err() {
            // Nothing after this can be read: deliver what the window holds.
            self.flush(sink);
        }
        r
    }

    /// End of the file: salvages the complete records of a cut-off last buffer, then delivers
    /// everything held. A file cut inside a buffer returns `Truncated` (after the delivery).
    pub fn finish(&mut self, sink: &mut Sink<'_>) -> Result<()> {
        let rest = core::mem::take(&mut self.pending);
        let mut result = Ok(());
        if !rest.is_empty() {
            let at = self.offset;
            if rest.len() >= HEADER_LEN && self.info.is_some() {
                if let Ok(h) = BufferHeader::parse(&rest, at) {
                    self.salvaging = true;
                    let _ = self.buffer(&rest, &h, at, true, sink);
                    self.salvaging = false;
                }
            }
            result = Err(Error::truncated(at + rest.len() as u64, "ETL buffer"));
        } else if self.info.is_none() {
            result = Err(Error::truncated(self.offset, "ETL logfile header"));
        }
        self.flush(sink);
        result
    }

    /// Whether a part may read the buffers that follow (see [`part`]): the logfile header is read
    /// and the next bytes start a buffer of the same file.
    pub fn splittable(&self) -> bool {
        self.info.is_some() && self.pending.is_empty() && !self.new_file
    }

    /// Adds a part's catalog to the decoder's (see [`catalog::Catalog::absorb`]); returns the index
    /// here of each of the part's entries.
    pub fn absorb_catalog(&mut self, part: &[(catalog::Key, u64)]) -> Vec<u32> {
        self.catalog.absorb(part)
    }

    /// Does what reading the next buffer (`size` bytes in the file) does, from what a part recorded
    /// of it: its counts, and its `events` (entries of this decoder's catalog) with their `bytes`
    /// into the merge window, which delivers what it releases to `sink`.
    pub fn apply_buffer(
        &mut self,
        piece: &part::BufferPiece,
        events: impl Iterator<Item = Held>,
        bytes: Vec<u8>,
        ticks: Vec<crate::clr::gc::TickDigest>,
        size: u64,
        sink: &mut Sink<'_>,
    ) {
        self.offset += size;
        self.counters.add(&piece.counters);
        let mut held = self.window.take_buffer();
        held.processor = piece.processor;
        held.events.clear();
        held.events.extend(events);
        // The part's allocations, moved: no copy of the payloads on the merging thread.
        held.bytes = bytes;
        held.ticks = ticks;
        let Decoder {
            window,
            catalog,
            info,
            ..
        } = self;
        let Some(info) = info else { return };
        window.push(held, &mut |b, h| emit(catalog, info, b, h, sink));
    }

    /// Delivers every held event now.
    pub fn flush(&mut self, sink: &mut Sink<'_>) {
        let Decoder {
            window,
            catalog,
            info,
            ..
        } = self;
        let Some(info) = info else { return };
        window.flush(&mut |b, h| emit(catalog, info, b, h, sink));
    }

    /// Bytes the buffer starting `pending` needs (its header first, then its size).
    fn need(&self, pending: &[u8]) -> Result<usize> {
        if pending.len() < HEADER_LEN {
            return Ok(HEADER_LEN);
        }
        Ok(BufferHeader::parse(pending, self.offset)?.size as usize)
    }

    /// Decodes the whole buffers at the start of `data`; returns the bytes they took.
    fn buffers(&mut self, data: &[u8], sink: &mut Sink<'_>) -> Result<usize> {
        let mut pos = 0;
        while data.len() - pos >= HEADER_LEN {
            let at = self.offset;
            let h = BufferHeader::parse(&data[pos..], at)?;
            let size = h.size as usize;
            if data.len() - pos < size {
                break;
            }
            self.buffer(&data[pos..pos + size], &h, at, false, sink)?;
            pos += size;
            self.offset += size as u64;
        }
        Ok(pos)
    }

    /// Decodes one buffer (`bytes` starts with its header; `cut`: the file ended inside it, so
    /// only the records wholly present count).
    fn buffer(
        &mut self,
        bytes: &[u8],
        h: &BufferHeader,
        at: u64,
        cut: bool,
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        if self.skipping {
            return Ok(());
        }
        self.counters.buffers += 1;
        let body = &bytes[HEADER_LEN..];
        let mut scratch = core::mem::take(&mut self.scratch);
        let records: &[u8] = if h.compressed() {
            let done = lz77::decompress(body, h.records_len(), &mut scratch).map_err(|e| {
                Error::malformed(
                    at + (HEADER_LEN + e.at) as u64,
                    format!("compressed ETL buffer: {}", e.what),
                )
            });
            match done {
                Ok(true) => {}
                Ok(false) if cut => {}
                Ok(false) => {
                    self.scratch = scratch;
                    return Err(Error::malformed(
                        at,
                        format!(
                            "compressed ETL buffer ends after {} of its {} bytes of records",
                            self.scratch.len(),
                            h.records_len()
                        ),
                    ));
                }
                Err(e) => {
                    self.scratch = scratch;
                    return Err(e);
                }
            }
            &scratch
        } else {
            &body[..h.records_len().min(body.len())]
        };
        let r = self.records(records, h, at, sink);
        self.scratch = scratch;
        r
    }

    fn records(
        &mut self,
        records: &[u8],
        h: &BufferHeader,
        at: u64,
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        // The first record of a file is its logfile header (of a companion file: its own).
        if self.info.is_none() && !records.is_empty() {
            let r = record::parse(records, 0).map_err(|e| {
                Error::malformed(at + HEADER_LEN as u64, format!("ETL record: {}", e.what))
            })?;
            self.read_logfile_header(records, &r, at + HEADER_LEN as u64)?;
        } else if self.new_file {
            self.new_file = false;
            if let Some(why) = self.companion_mismatch(records, at + HEADER_LEN as u64) {
                self.left_out.push((self.companions, why));
                self.skipping = true;
                return Ok(());
            }
        }
        let mut held: HeldBuffer = self.window.take_buffer();
        held.processor = h.processor as u32;
        read_records(
            &mut self.catalog,
            &mut self.counters,
            records,
            self.salvaging,
            &mut held,
            self.stacks.as_mut(),
        );
        let Decoder {
            window,
            catalog,
            info,
            ..
        } = self;
        let Some(info) = info else {
            return Err(Error::malformed(at, "ETL file without a logfile header"));
        };
        window.push(held, &mut |b, h| emit(catalog, info, b, h, sink));
        Ok(())
    }

    /// The first record of the file: the logfile header (a kernel record with HookId 0).
    /// Why the companion file whose first buffer holds `records` is not part of the first file's
    /// recording, or None when it is (then its lost events are counted).
    fn companion_mismatch(&mut self, records: &[u8], at: u64) -> Option<String> {
        let r = match record::parse(records, 0) {
            Ok(r) if r.source == (Source::Kernel { hook: 0 }) => r,
            _ => return Some(String::from("its first record is not a logfile header")),
        };
        let p = &records[r.payload_start..r.payload_start + r.payload_len];
        let lh = match LogfileHeader::parse(p, at) {
            Ok(lh) => lh,
            Err(e) => return Some(format!("its logfile header cannot be read: {e}")),
        };
        let why = self
            .header
            .as_ref()
            .and_then(|first| first.other_recording(&lh));
        if why.is_none() {
            self.companion_lost += lh.events_lost as u64;
        }
        why
    }

    fn read_logfile_header(&mut self, records: &[u8], r: &record::Record, at: u64) -> Result<()> {
        if r.source != (Source::Kernel { hook: 0 }) {
            return Err(Error::new(
                at,
                ErrorKind::NotATrace(String::from(
                    "an ETW file whose first record is not the logfile header",
                )),
            ));
        }
        let p = &records[r.payload_start..r.payload_start + r.payload_len];
        let lh = LogfileHeader::parse(p, at)?;
        self.info = Some(TraceInfo {
            format: format!(
                "etl{}",
                if lh.log_file_mode & logfile::COMPRESSED_MODE != 0 {
                    " (compressed)"
                } else {
                    ""
                }
            ),
            sync_time_utc: lh.start_utc(),
            // TraceEvent measures from the header event (its MSec 0).
            sync_time_qpc: r.timestamp,
            qpc_frequency: lh.ticks_per_second(),
            pointer_size: lh.pointer_size as u8,
            process_id: 0,
            processor_count: lh.processor_count,
            expected_cpu_sampling_rate: 0,
        });
        self.header = Some(lh);
        Ok(())
    }
}

/// Hands one held event to the sink.
#[inline]
fn emit(catalog: &Catalog, info: &TraceInfo, b: &HeldBuffer, h: &Held, sink: &mut Sink<'_>) {
    let e = catalog.entry(h.entry);
    let start = h.payload_start as usize;
    let mut ev = Event {
        provider: catalog.provider(e.provider),
        event_id: e.event_id,
        version: e.version,
        name: &e.name,
        timestamp: h.timestamp,
        time_ms: info.ms_since_start(h.timestamp),
        thread_id: h.thread_id as u64,
        capture_thread_id: h.thread_id as u64,
        sequence: 0,
        processor: b.processor,
        stack_id: 0,
        stack: h.stack,
        pointer_size: h.pointer_size,
        process_id: h.process_id,
        payload: &b.bytes[start..start + h.payload_len as usize],
        ticks: b.tick(h).map(crate::ticks::Ticks::One),
    };
    // GCDynamicEvent is named by its payload (`GC/SizeAdaptationTuning`, ...), as the EventPipe
    // decoder names it (`nettrace::deliver`), so both formats count the same kinds.
    if ev.event_id == crate::clr::ids::runtime::GC_DYNAMIC_EVENT {
        if let Some(name) = crate::clr::event_name_for(&ev) {
            ev.name = name;
        }
    }
    sink(info, &ev);
}

/// Whether `head` (at least 76 bytes) starts like an .etl file: a buffer whose first record is a
/// SYSTEM record (type 0x01/0x02 with the 0xC0 marker flags), as the logfile header always is.
pub fn looks_like_etl(head: &[u8]) -> bool {
    head.len() >= 76 && matches!(head[74], 0x01 | 0x02) && head[75] == 0xc0
}
