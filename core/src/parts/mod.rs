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
//! 3. [`merge`], the tasks in file order, into the one [`TraceReader`](crate::reader::TraceReader), which does with each block
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

mod merge;
mod plan;
pub mod wire;

pub use merge::{merge, merge_keeping, Merged};
pub use plan::Planner;

use crate::etl;
use crate::filter::Interest;
use crate::nettrace::framing::tag::END_OBJECT;
use crate::nettrace::{self, part::PartContext};
use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;

/// A filter parts can use on any thread: a plain function, as [`TraceReader::set_filter`](crate::reader::TraceReader::set_filter) takes.
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
    /// The part interns its allocation ticks' type names, for a merge that feeds the insights
    /// (see [`TypeRef`](crate::clr::gc::TypeRef)); a part for the GC model alone does not, since
    /// that model reads no type name and the interning would be work for nothing
    /// (docs/performance-log/journal.md, "Ticks without their payloads").
    pub intern_types: bool,
    /// The part matches an .etl's stacks to their events and interns them
    /// ([`crate::etl::part::EtlOutput::stacks`]), for a reader that keeps stacks.
    pub keep_stacks: bool,
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
#[derive(Clone)]
pub enum Output {
    EventPipe(nettrace::part::NetPart),
    Etw(Box<etl::part::EtlOutput>),
}

/// Decodes one task on its own: `bytes` are the file's `task.offset..task.offset + task.len`
/// (shorter if the file is: the part stops where they end). `filter` must be the planner's. An
/// EventPipe part keeps the bytes (its events' payloads point into them: nothing is copied).
pub fn decode(task: &Task, bytes: Vec<u8>, filter: Option<FilterFn>) -> Output {
    decode_reusing(task, bytes, filter, None)
}

/// [`decode`], into the vectors of `spare`, an output the merge is done with (see
/// [`merge_keeping`]): a caller that decodes task after task reuses their memory instead of growing
/// new vectors for each, whose pages would each be faulted in afresh
/// (docs/performance-log/journal.md, "Outputs decoded into again"). An .etl part's output is moved
/// into the merge whole, so only an EventPipe one is reused.
pub fn decode_reusing(
    task: &Task,
    bytes: Vec<u8>,
    filter: Option<FilterFn>,
    spare: Option<Output>,
) -> Output {
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
            let mut part = match spare {
                Some(Output::EventPipe(p)) => p.emptied(),
                _ => nettrace::part::NetPart::default(),
            };
            if task.intern_types {
                part.types = Some(Default::default());
            }
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
            if task.intern_types {
                part.intern_types();
            }
            if task.keep_stacks {
                part.keep_stacks();
            }
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
