//! Decoding one trace in parts, on several threads or workers, with exactly the sequential result.
//!
//! NetTrace (V4+) is a sequence of length-prefixed blocks whose event headers are compressed per
//! block, and an .etl file a sequence of buffers framed (and compressed) one by one: so the event
//! blocks of different parts of a file can be decoded at the same time, provided each knows the
//! metadata defined before it. Three steps, none of which needs threads or I/O of core:
//!
//! 1. [`Planner`], the boundary pass: fed the file's bytes where it asks for them ([`Planner::want`]:
//!    block headers, and the small blocks that change what later blocks mean), it frames the file
//!    into units and cuts it into [`Task`]s: byte ranges of event (and stack) blocks, each with the
//!    decoding context it needs (metadata, V6 thread tables), plus the other units in between, kept
//!    whole. It runs ahead of the merge; it reads a few bytes per block of a plain file.
//! 2. [`decode`], one task at a time, anywhere: the task's bytes (read by whoever runs it, e.g. with
//!    `pread` or `Blob.slice`) into an [`Output`]: per block, the delivered events and what the block
//!    counted. Events the filter skips are only counted, as in the sequential path.
//! 3. [`merge`], the tasks in file order, into the one [`TraceReader`], which does with each block
//!    exactly what it does when it decodes the block itself (the same code orders, counts, checks
//!    sequence numbers and releases events, see [`crate::nettrace::part`] and [`crate::etl::part`]),
//!    and which decodes the other units itself. So the events, stats and errors are the sequential
//!    path's, whatever the number of parts.
//!
//! Whatever a part cannot do exactly as the sequential decoder would (a damaged block, metadata
//! defined inside an event block, NetPerf's inline metadata, the end of the file), it leaves: the
//! merge then says where the sequential decoding must go on ([`Merged::Sequential`]) and the caller
//! pushes the rest of the file into the reader as usual, as it does from [`Planner::tail`] at the
//! end. A compressed container (.zip, .gz) is not split: its whole stream is the tail.

pub mod wire;

use crate::container::{sniff, Kind};
use crate::decode::{DecodeStats, Sink};
use crate::error::Result;
use crate::etl;
use crate::filter::Interest;
use crate::nettrace::framing::tag::END_OBJECT;
use crate::nettrace::{self, part::PartContext, Frame, Step};
use crate::reader::TraceReader;
use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::sync::Arc;
use alloc::vec::Vec;

/// A filter parts can use on any thread: a plain function, as [`TraceReader::set_filter`] takes.
pub type FilterFn = fn(&str, u32, u32) -> Interest;

/// Bytes of event blocks in a task, once the first tasks are done (a 1 GiB trace makes 256).
pub const TASK_BYTES: u64 = 4 << 20;
/// The first task's bytes: small, so the first events (and GC rows) come out quickly.
pub const FIRST_TASK_BYTES: u64 = 256 << 10;
/// Bytes the planner asks for when it only needs a unit's header.
pub const HEADER_BYTES: usize = 64;
/// Bytes that tell the formats apart (as the reader decides).
const FORMAT_BYTES: u64 = 76;

/// The trace format of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Format {
    EventPipe,
    Etw,
}

/// One unit of a task, in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TaskStep {
    /// A unit the merge decodes itself: the next `len` bytes of [`Task::inline`].
    Inline { len: u32 },
    /// A block the part decodes: `len` bytes at `at` from [`Task::offset`]; for EventPipe, its content
    /// is `content_start..content_start + content_len` of them.
    Part {
        at: u64,
        len: u32,
        kind: nettrace::part::BlockKind,
        content_start: u32,
        content_len: u32,
    },
}

/// A piece of the trace for one part: a byte range of blocks, the context to decode them, and the
/// units in between that the merge decodes itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Tasks are numbered in file order from 0: merge them in this order.
    pub index: u64,
    pub format: Format,
    /// The bytes the part reads: `offset..offset + len` of the file (len 0: nothing to read).
    pub offset: u64,
    pub len: u64,
    pub steps: Vec<TaskStep>,
    /// The bytes of the inline steps, one after the other.
    pub inline: Vec<u8>,
    /// What EventPipe blocks need to be decoded on their own (shared by consecutive tasks).
    pub context: Option<Arc<PartContext>>,
}

impl Task {
    /// Whether a part has anything to do (else merge it with an empty output).
    pub fn has_blocks(&self) -> bool {
        self.len > 0
    }

    /// The next inline step's bytes, `len` of them from `*at` (which moves past them); what the
    /// task does not hold is left out, as a task decoded from `wire` may claim more than it has.
    fn next_inline(&self, at: &mut usize, len: u32) -> &[u8] {
        let start = *at;
        *at = start.saturating_add(len as usize);
        self.inline.get(start..*at).unwrap_or(&[])
    }
}

/// What a part made of a task.
pub enum Output {
    EventPipe(nettrace::part::NetPart),
    Etw(Box<etl::part::EtlOutput>),
}

/// The boundary pass: frames the file into units and cuts it into [`Task`]s (see the module docs).
pub struct Planner {
    format: Option<Format>,
    /// A decoder of its own, which steps over every unit but the event and stack blocks: it knows
    /// the metadata and tables each block is decoded with.
    net: nettrace::Decoder,
    stats: DecodeStats,
    /// Stream offset of the next unit.
    pos: u64,
    /// Bytes needed at `pos` to go on.
    need: usize,
    /// Where the sequential decoder takes over, once the plan ends.
    tail: Option<u64>,
    task: Option<Task>,
    next_index: u64,
    /// The current tasks' size (grows from [`FIRST_TASK_BYTES`] to `max_task`).
    target: u64,
    /// Bytes the open task's blocks take once decoded beyond their bytes in the file (compressed
    /// ETL buffers): a task is full when its bytes plus these reach `target`, so a part holds about
    /// `target` bytes of records however well the file compresses (PerfView's merged files are
    /// 4-6x smaller than their records: sized by file bytes alone, 16 threads' tasks in flight held
    /// 1.7 GB on a 280 MB compressed file).
    decoded_extra: u64,
    max_task: u64,
    context: Option<(u64, Arc<PartContext>)>,
    /// The ETL file's buffers are framed: the first one (the logfile header) is done.
    etl_started: bool,
    /// Where the caller's piece of the file ends (see [`set_limit`](Self::set_limit)).
    limit: Option<u64>,
    /// The limit when the current task took its first block: its blocks end in that piece.
    task_limit: Option<u64>,
}

impl Planner {
    /// A planner for a reader filtered with `filter` (None: every event delivered). The merge's
    /// reader must be filtered the same way. Tasks grow from [`FIRST_TASK_BYTES`] to [`TASK_BYTES`].
    pub fn new(filter: Option<FilterFn>) -> Self {
        Self::build(filter, FIRST_TASK_BYTES, TASK_BYTES)
    }

    /// [`new`](Self::new) with every task of `bytes` bytes of blocks (at least one block).
    pub fn with_task_bytes(filter: Option<FilterFn>, bytes: u64) -> Self {
        Self::build(filter, bytes, bytes)
    }

    /// A planner whose tasks end where the caller's bytes do ([`set_limit`](Self::set_limit)): a
    /// caller that reads the file in pieces and hands each piece to a part whole (the app reads a
    /// `Blob` once and transfers its buffers to the workers) gets tasks that fit its pieces.
    pub fn cut_at_limits(filter: Option<FilterFn>) -> Self {
        let mut p = Self::build(filter, u64::MAX, u64::MAX);
        p.limit = Some(0);
        p
    }

    /// The caller's piece of the file (the one the bytes it gives end in) ends at `end`. A block
    /// that ends past it is not taken: [`want`](Self::want) asks for the whole block, for the
    /// caller to read it and give the end of the piece it ends in. A task's blocks all end in the
    /// piece its first block ended in: a block that ends past it starts the next task.
    pub fn set_limit(&mut self, end: u64) {
        self.limit = Some(end);
    }

    fn build(filter: Option<FilterFn>, first: u64, max: u64) -> Self {
        let mut net = nettrace::Decoder::new();
        if let Some(f) = filter {
            net.set_filter(Some(Box::new(f)));
        }
        let max_task = max.max(1);
        Planner {
            format: None,
            net,
            stats: DecodeStats::default(),
            pos: 0,
            need: FORMAT_BYTES as usize,
            tail: None,
            task: None,
            next_index: 0,
            target: first.clamp(1, max_task),
            decoded_extra: 0,
            max_task,
            context: None,
            etl_started: false,
            limit: None,
            task_limit: None,
        }
    }

    /// The bytes the planner needs next: at least `len` from offset `at` (more is welcome, and the
    /// rest of a unit it skips is never needed). None once the plan is complete.
    pub fn want(&self) -> Option<(u64, usize)> {
        match self.tail {
            Some(_) => None,
            None => Some((self.pos, self.need)),
        }
    }

    /// Where the sequential decoding takes over once every task is merged (the end of the
    /// stream, or what a part could not decode); known once [`want`](Self::want) is None.
    pub fn tail(&self) -> Option<u64> {
        self.tail
    }

    /// Feeds `data`, the file's bytes from `at` (which must be [`want`](Self::want)'s offset); the
    /// tasks completed go to `tasks`, in order.
    pub fn feed(&mut self, at: u64, data: &[u8], tasks: &mut Vec<Task>) {
        if self.tail.is_some() || at != self.pos {
            return;
        }
        let mut i = 0usize;
        while self.tail.is_none() {
            let Some(buf) = data.get(i..) else {
                // The last unit was skipped past the data: its successor's header is needed.
                self.need = HEADER_BYTES;
                return;
            };
            let more = match self.format {
                None => self.decide(buf, false),
                Some(Format::EventPipe) => self.eventpipe(buf, tasks),
                Some(Format::Etw) => self.etw(buf, tasks),
            };
            match more {
                Unit::Done(n) => i += n,
                Unit::Need(n) => {
                    self.need = n;
                    return;
                }
            }
        }
        self.close(tasks);
    }

    /// The file ends at [`want`](Self::want)'s offset plus the bytes last fed: what is left is the
    /// sequential decoder's (a cut-off unit, or nothing). Completes the plan.
    pub fn end_of_file(&mut self, tasks: &mut Vec<Task>) {
        if self.tail.is_none() {
            self.tail = Some(self.pos);
        }
        self.close(tasks);
    }

    /// At offset 0: splits only a plain trace stream (a .zip or .gz is read sequentially).
    fn decide(&mut self, head: &[u8], eof: bool) -> Unit {
        if (head.len() as u64) < FORMAT_BYTES && !eof {
            return Unit::Need(FORMAT_BYTES as usize);
        }
        match sniff(head, true) {
            Ok(Some(Kind::Trace)) => {}
            _ => {
                self.tail = Some(0);
                return Unit::Done(0);
            }
        }
        self.format = Some(if etl::looks_like_etl(head) {
            Format::Etw
        } else {
            Format::EventPipe
        });
        Unit::Done(0)
    }

    fn stop(&mut self) -> Unit {
        self.tail = Some(self.pos);
        Unit::Done(0)
    }

    fn eventpipe(&mut self, buf: &[u8], tasks: &mut Vec<Task>) -> Unit {
        let frame = match self.net.frame(buf, self.pos) {
            Ok(f) => f,
            Err(_) => return self.stop(),
        };
        match frame {
            Frame::NeedMore(n) => Unit::Need(n),
            Frame::Sequential => self.stop(),
            Frame::Block { len, .. } if self.past_limit(len as u64, tasks) => Unit::Need(len),
            Frame::Block {
                kind,
                len,
                content_start,
                content_len,
            } if self.pos >= FORMAT_BYTES => {
                let step = TaskStep::Part {
                    at: 0,
                    len: len as u32,
                    kind,
                    content_start: content_start as u32,
                    content_len: content_len as u32,
                };
                self.part_step(step, len as u64, 0, tasks);
                Unit::Done(len)
            }
            // The first bytes, the headers, metadata and sequence points: the merge steps over
            // them itself, and so does the planner, for the metadata the blocks after them need.
            _ => match self
                .net
                .step(buf, self.pos, &mut self.stats, &mut |_, _| {})
            {
                Ok(Step::Consumed(n)) => {
                    self.inline_step(&buf[..n]);
                    Unit::Done(n)
                }
                Ok(Step::NeedMore(n)) => Unit::Need(n),
                Err(_) => self.stop(),
            },
        }
    }

    fn etw(&mut self, buf: &[u8], tasks: &mut Vec<Task>) -> Unit {
        if buf.len() < etl::buffer::HEADER_LEN {
            return Unit::Need(etl::buffer::HEADER_LEN);
        }
        let Ok(h) = etl::buffer::BufferHeader::parse(buf, self.pos) else {
            return self.stop();
        };
        let size = h.size as usize;
        if !self.etl_started {
            // The first buffer starts with the logfile header: the merge reads it itself.
            let Some(first) = buf.get(..size) else {
                return Unit::Need(size);
            };
            self.etl_started = true;
            self.inline_step(first);
            return Unit::Done(size);
        }
        if self.past_limit(size as u64, tasks) {
            return Unit::Need(size);
        }
        let step = TaskStep::Part {
            at: 0,
            len: size as u32,
            kind: nettrace::part::BlockKind::Events,
            content_start: 0,
            content_len: size as u32,
        };
        // A compressed buffer's records end at `offset` once decompressed (a damaged offset only
        // closes the task early: the part reports the damage as the sequential decoder does).
        let extra = u64::from(h.offset).saturating_sub(size as u64);
        self.part_step(step, size as u64, extra, tasks);
        Unit::Done(size)
    }

    /// Whether a block of `len` bytes at the position ends past the caller's piece (closing the
    /// current task first if it ends past that task's piece).
    fn past_limit(&mut self, len: u64, tasks: &mut Vec<Task>) -> bool {
        let end = self.pos + len;
        if self.task_limit.is_some_and(|l| end > l) {
            self.close(tasks);
        }
        self.limit.is_some_and(|l| end > l)
    }

    /// A unit the merge decodes itself (its bytes are `unit`).
    fn inline_step(&mut self, unit: &[u8]) {
        let task = self.open_task();
        task.steps.push(TaskStep::Inline {
            len: unit.len() as u32,
        });
        task.inline.extend_from_slice(unit);
        self.pos += unit.len() as u64;
    }

    /// A block a part decodes (`len` bytes at `pos`, `extra` more once decoded).
    fn part_step(&mut self, mut step: TaskStep, len: u64, extra: u64, tasks: &mut Vec<Task>) {
        let changes = self.net.part_context_changes();
        let context = match (self.format, &self.context) {
            (Some(Format::EventPipe), Some((c, ctx))) if *c == changes => Some(ctx.clone()),
            (Some(Format::EventPipe), _) => {
                let ctx = Arc::new(self.net.part_context());
                self.context = Some((changes, ctx.clone()));
                Some(ctx)
            }
            _ => None,
        };
        // A task's blocks share one context: a block after a change starts a new task.
        let changed = self.task.as_ref().is_some_and(|t| {
            t.len > 0
                && match (&t.context, &context) {
                    (Some(a), Some(b)) => !Arc::ptr_eq(a, b),
                    _ => false,
                }
        });
        if changed {
            self.close(tasks);
        }
        let pos = self.pos;
        if self.task.as_ref().is_none_or(|t| t.len == 0) {
            self.task_limit = self.limit;
        }
        self.decoded_extra = self.decoded_extra.saturating_add(extra);
        let decoded_extra = self.decoded_extra;
        let task = self.open_task();
        if task.len == 0 {
            task.offset = pos;
            task.context = context;
        }
        if let TaskStep::Part { at, .. } = &mut step {
            *at = pos - task.offset;
        }
        task.steps.push(step);
        task.len = pos + len - task.offset;
        let full = task.len.saturating_add(decoded_extra) >= self.target;
        self.pos += len;
        if full {
            self.close(tasks);
            self.target = (self.target * 2).min(self.max_task);
        }
    }

    fn open_task(&mut self) -> &mut Task {
        let (format, index) = (self.format.unwrap_or(Format::EventPipe), self.next_index);
        self.task.get_or_insert_with(|| Task {
            index,
            format,
            offset: 0,
            len: 0,
            steps: Vec::new(),
            inline: Vec::new(),
            context: None,
        })
    }

    fn close(&mut self, tasks: &mut Vec<Task>) {
        self.task_limit = None;
        self.decoded_extra = 0;
        if let Some(t) = self.task.take() {
            self.next_index += 1;
            tasks.push(t);
        }
    }
}

/// What one step of the planner did.
enum Unit {
    /// Took this many bytes (0: the plan ended, or the format was decided).
    Done(usize),
    /// Needs this many bytes from its position.
    Need(usize),
}

/// Decodes one task on its own: `bytes` are the file's `task.offset..task.offset + task.len`
/// (shorter if the file is: the part stops where they end). `filter` must be the planner's. An
/// EventPipe part keeps the bytes (its events' payloads point into them: nothing is copied).
pub fn decode(task: &Task, bytes: Vec<u8>, filter: Option<FilterFn>) -> Output {
    let blocks = task.steps.iter().filter_map(|s| match *s {
        TaskStep::Part {
            at,
            len,
            content_start,
            content_len,
            kind,
        } => Some((at, len, content_start, content_len, kind)),
        TaskStep::Inline { .. } => None,
    });
    match task.format {
        Format::EventPipe => {
            let mut part = nettrace::part::NetPart::default();
            let Some(ctx) = &task.context else {
                part.stopped = Some(0);
                return Output::EventPipe(part);
            };
            for (at, len, start, content_len, kind) in blocks {
                let content = usize::try_from(at).ok().and_then(|at| {
                    let unit_end = at.checked_add(len as usize)?;
                    let from = at.checked_add(start as usize)?;
                    let to = from.checked_add(content_len as usize)?.min(unit_end);
                    // A V4/V5 block ends with an EndObject tag, which the planner did not read
                    // (it steps over blocks by their size): a block without it is the sequential
                    // decoder's, which says what is wrong there. (V6 blocks have no end tag.)
                    if to < unit_end && bytes.get(unit_end - 1) != Some(&END_OBJECT) {
                        return None;
                    }
                    Some((from, bytes.get(from..to)?))
                });
                let ok = match content {
                    Some((from, c)) => {
                        part.decode_block(ctx, kind, c, task.offset + at + u64::from(start), from)
                    }
                    None => false,
                };
                if !ok {
                    part.stopped = Some(part.blocks.len() as u32);
                    break;
                }
            }
            part.payloads = bytes;
            Output::EventPipe(part)
        }
        Format::Etw => {
            let mut part = etl::part::EtlPart::new(filter.map(|f| Box::new(f) as Box<_>));
            for (at, len, ..) in blocks {
                let unit = usize::try_from(at)
                    .ok()
                    .and_then(|at| bytes.get(at..at.checked_add(len as usize)?));
                let ok = match unit {
                    Some(u) => part.decode_buffer(u),
                    None => false,
                };
                if !ok {
                    break;
                }
            }
            Output::Etw(Box::new(part.finish()))
        }
    }
}

/// How a task's merge ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merged {
    /// Every unit of the task went through the reader: merge the next task.
    Done,
    /// The reader must decode the file from this offset on itself (push the file's bytes from
    /// there, then finish): a part stopped there. The tasks after this one are of no use.
    Sequential { from: u64 },
}

/// Hands a task and its part's output to `reader` (the merge's, filtered as the planner), which
/// delivers the events that become ready to `sink`, as it would have decoding the bytes itself.
/// Tasks must be merged in order. An `Err` is the reader's own error (as the sequential decoder
/// would have returned it there).
pub fn merge(
    reader: &mut TraceReader,
    task: &Task,
    output: Output,
    sink: &mut Sink<'_>,
) -> Result<Merged> {
    match output {
        Output::EventPipe(part) => merge_eventpipe(reader, task, part, sink),
        Output::Etw(part) => merge_etw(reader, task, *part, sink),
    }
}

fn merge_eventpipe(
    reader: &mut TraceReader,
    task: &Task,
    part: nettrace::part::NetPart,
    sink: &mut Sink<'_>,
) -> Result<Merged> {
    let nettrace::part::NetPart {
        blocks,
        events,
        payloads,
        runs,
        skips,
        ..
    } = part;
    let payloads = Rc::new(payloads);
    let (mut block, mut ev, mut run, mut skip, mut inline) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    for step in &task.steps {
        match *step {
            TaskStep::Inline { len } => {
                reader.push_with_info(task.next_inline(&mut inline, len), sink)?;
            }
            TaskStep::Part { at, len, .. } => {
                let from = task.offset + at;
                let Some(piece) = blocks.get(block) else {
                    return Ok(Merged::Sequential { from });
                };
                let n = |start: usize, count: u32| start.checked_add(count as usize);
                let (Some(ev_end), Some(run_end), Some(skip_end)) = (
                    n(ev, piece.events),
                    n(run, piece.runs),
                    n(skip, piece.skips),
                ) else {
                    return Ok(Merged::Sequential { from });
                };
                let (Some(e), Some(r), Some(s)) = (
                    events.get(ev..ev_end),
                    runs.get(run..run_end),
                    skips.get(skip..skip_end),
                ) else {
                    return Ok(Merged::Sequential { from });
                };
                if !reader.apply_net_piece(piece, e, r, s, &payloads, u64::from(len), sink) {
                    return Ok(Merged::Sequential { from });
                }
                (block, ev, run, skip) = (block + 1, ev_end, run_end, skip_end);
            }
        }
    }
    Ok(Merged::Done)
}

fn merge_etw(
    reader: &mut TraceReader,
    task: &Task,
    part: etl::part::EtlOutput,
    sink: &mut Sink<'_>,
) -> Result<Merged> {
    let etl::part::EtlOutput {
        buffers,
        events,
        bytes,
        catalog,
        ..
    } = part;
    // The part's catalog counts every buffer it read: it is merged whole, before its first buffer,
    // so every buffer is checked first and a part that does not hold together is not used at all.
    let entries = catalog.len() as u32;
    let mut pieces = Vec::with_capacity(buffers.len());
    let mut bytes = bytes.into_iter();
    let mut ev = 0usize;
    for piece in &buffers {
        let ev_end = ev.saturating_add(piece.events as usize);
        let (Some(held), Some(payloads)) = (events.get(ev..ev_end), bytes.next()) else {
            break;
        };
        let fits = held.iter().all(|h| {
            h.entry < entries
                && (h.payload_start as usize).saturating_add(h.payload_len as usize)
                    <= payloads.len()
        });
        if !fits {
            break;
        }
        pieces.push((piece, held, payloads));
        ev = ev_end;
    }
    let whole = pieces.len() == buffers.len();
    let mut pieces = pieces.into_iter();
    let mut remap: Option<Vec<u32>> = None;
    let mut inline = 0usize;
    for step in &task.steps {
        match *step {
            TaskStep::Inline { len } => {
                reader.push_with_info(task.next_inline(&mut inline, len), sink)?;
            }
            TaskStep::Part { at, len, .. } => {
                let from = task.offset + at;
                let Some((piece, held, payloads)) = pieces.next().filter(|_| whole) else {
                    return Ok(Merged::Sequential { from });
                };
                if remap.is_none() && !reader.etl_splittable() {
                    return Ok(Merged::Sequential { from });
                }
                let map = remap.get_or_insert_with(|| reader.absorb_etl_catalog(&catalog));
                let held = held.iter().map(|h| etl::merge::Held {
                    entry: map[h.entry as usize],
                    ..*h
                });
                reader.apply_etl_buffer(piece, held, payloads, u64::from(len), sink);
            }
        }
    }
    Ok(Merged::Done)
}
