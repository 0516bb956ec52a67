//! The boundary pass ([`Planner`]): frames the file into units and cuts it into [`Task`]s, reading
//! only block headers and the small blocks that change what later blocks mean (see the module docs
//! of [`crate::parts`]).

use super::{Format, Task, TaskStep, FIRST_TASK_BYTES, FORMAT_BYTES, HEADER_BYTES, TASK_BYTES};
use crate::container::{sniff, Kind};
use crate::etl;
use crate::nettrace::{self, part::PartContext, Frame, Step};
use crate::sink::DecodeStats;
use crate::ticks::Consumer;
use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;

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
    /// `target` bytes of records however well the file compresses (sized by file bytes alone, the
    /// tasks in flight of a compressed file hold several times their bytes in the file:
    /// docs/performance-log/journal.md, "Sixteen cores").
    decoded_extra: u64,
    max_task: u64,
    context: Option<(u64, Arc<PartContext>)>,
    /// The ETL file's buffers are framed: the first one (the logfile header) is done.
    etl_started: bool,
    /// Where the caller's piece of the file ends (see [`set_limit`](Self::set_limit)).
    limit: Option<u64>,
    /// The limit when the current task took its first block: its blocks end in that piece.
    task_limit: Option<u64>,
    /// [`Task::intern_types`] of every task.
    intern_types: bool,
    /// [`Task::keep_stacks`] of every task.
    keep_stacks: bool,
}

impl Planner {
    /// A planner for a reader of `consumer` ([`crate::TraceReader::consumer`]): its tasks are
    /// decoded with the consumer's filter ([`Consumer::filter`], which the parts are given too) and,
    /// for the insights, intern their ticks' type names ([`Task::intern_types`]). The merge's
    /// reader must be filtered the same way. Tasks grow from [`FIRST_TASK_BYTES`] to [`TASK_BYTES`].
    pub fn for_consumer(consumer: Consumer) -> Self {
        Self::build(consumer, FIRST_TASK_BYTES, TASK_BYTES)
    }

    /// [`for_consumer`](Self::for_consumer) with every task of `bytes` bytes of blocks (at least
    /// one block).
    pub fn with_task_bytes(consumer: Consumer, bytes: u64) -> Self {
        Self::build(consumer, bytes, bytes)
    }

    /// A planner whose tasks end where the caller's bytes do ([`set_limit`](Self::set_limit)): a
    /// caller that reads the file in pieces and hands each piece to a part whole (the app reads a
    /// `Blob` once and transfers its buffers to the workers) gets tasks that fit its pieces.
    pub fn cut_at_limits(consumer: Consumer) -> Self {
        let mut p = Self::build(consumer, u64::MAX, u64::MAX);
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

    fn build(consumer: Consumer, first: u64, max: u64) -> Self {
        let mut net = nettrace::Decoder::new();
        if let Some(f) = consumer.filter() {
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
            intern_types: consumer.interns_types(),
            keep_stacks: consumer == Consumer::Stacks,
        }
    }

    /// Whether the tasks' parts match an .etl's stacks to their events ([`Task::keep_stacks`]):
    /// set for [`Consumer::Stacks`]; a caller whose reader keeps stacks for another consumer
    /// ([`crate::TraceReader::set_keep_stacks`]) sets it too, or the merge reads the file's ETW
    /// buffers itself.
    pub fn set_keep_stacks(&mut self, keep: bool) {
        self.keep_stacks = keep;
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
        let (intern_types, keep_stacks) = (self.intern_types, self.keep_stacks);
        self.task.get_or_insert_with(|| Task {
            index,
            format,
            offset: 0,
            len: 0,
            steps: Vec::new(),
            inline: Vec::new(),
            context: None,
            intern_types,
            keep_stacks,
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
