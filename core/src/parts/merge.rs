//! The merge ([`merge`]): each task's part output handed to the one reader in file order, which does
//! with each block what it does when it decodes the block itself (see the module docs of
//! [`crate::parts`]).

use super::{Output, Task, TaskStep};
use crate::error::Result;
use crate::etl;
use crate::nettrace;
use crate::reader::TraceReader;
use crate::sink::Sink;
use alloc::rc::Rc;
use alloc::vec::Vec;

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
    mut output: Output,
    sink: &mut Sink<'_>,
) -> Result<Merged> {
    merge_keeping(reader, task, &mut output, sink)
}

/// [`merge`], leaving `output` with its vectors' memory (an EventPipe part's, emptied of its bytes,
/// which the reader keeps until it has delivered their events) for
/// [`decode_reusing`](super::decode_reusing).
pub fn merge_keeping(
    reader: &mut TraceReader,
    task: &Task,
    output: &mut Output,
    sink: &mut Sink<'_>,
) -> Result<Merged> {
    match output {
        Output::EventPipe(part) => merge_eventpipe(reader, task, part, sink),
        Output::Etw(part) => merge_etw(reader, task, core::mem::take(&mut **part), sink),
    }
}

fn merge_eventpipe(
    reader: &mut TraceReader,
    task: &Task,
    part: &mut nettrace::part::NetPart,
    sink: &mut Sink<'_>,
) -> Result<Merged> {
    if let Some(types) = &part.types {
        reader.merge_types(types, &mut part.ticks);
    }
    let nettrace::part::NetPart {
        blocks,
        events,
        ticks,
        payloads,
        runs,
        skips,
        ..
    } = part;
    let payloads = Rc::new(core::mem::take(payloads));
    let (mut block, mut ev, mut run, mut skip) = (0usize, 0usize, 0usize, 0usize);
    let merged = each_step(reader, task, sink, |reader, len, sink| {
        let Some(piece) = blocks.get(block) else {
            return false;
        };
        let n = |start: usize, count: u32| start.checked_add(count as usize);
        let (Some(ev_end), Some(run_end), Some(skip_end)) = (
            n(ev, piece.events),
            n(run, piece.runs),
            n(skip, piece.skips),
        ) else {
            return false;
        };
        let (Some(e), Some(r), Some(s)) = (
            events.get(ev..ev_end),
            runs.get(run..run_end),
            skips.get(skip..skip_end),
        ) else {
            return false;
        };
        if !reader.apply_net_piece(piece, e, ticks, r, s, &payloads, u64::from(len), sink) {
            return false;
        }
        (block, ev, run, skip) = (block + 1, ev_end, run_end, skip_end);
        true
    });
    // Where the sort buffer released the part's events already, the bytes are the caller's again.
    if let Ok(bytes) = Rc::try_unwrap(payloads) {
        reader.recycle(bytes);
    }
    merged
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
        mut ticks,
        types,
        catalog,
        stacks,
        ..
    } = part;
    if let Some(types) = &types {
        reader.merge_types(types, ticks.iter_mut().flatten());
    }
    // The part's catalog counts every buffer it read: it is merged whole, before its first buffer,
    // so every buffer is checked first and a part that does not hold together is not used at all.
    let entries = catalog.len() as u32;
    let mut pieces = Vec::with_capacity(buffers.len());
    let mut bytes = bytes.into_iter();
    // Each buffer's digests (an output may have none: a buffer without is decoded by the merge).
    let mut ticks = ticks.into_iter();
    let mut ev = 0usize;
    for piece in &buffers {
        let ev_end = ev.saturating_add(piece.events as usize);
        let (Some(held), Some(payloads)) = (events.get(ev..ev_end), bytes.next()) else {
            break;
        };
        let digests = ticks.next().unwrap_or_default();
        let fits = held.iter().all(|h| {
            h.entry < entries
                && (h.payload_start as usize).saturating_add(h.payload_len as usize)
                    <= payloads.len()
        });
        if !fits {
            break;
        }
        pieces.push((piece, held, payloads, digests));
        ev = ev_end;
    }
    let whole = pieces.len() == buffers.len();
    let mut pieces = pieces.into_iter();
    let mut remap: Option<Vec<u32>> = None;
    // The part's stack ids → the reader's, renumbered as the events come, in file order: the ids
    // a sequential read gives (see `etl::stackwalk`). 0: not met yet.
    let mut stack_map: Vec<u32> = Vec::new();
    let mut ids: Vec<u32> = Vec::new();
    each_step(reader, task, sink, |reader, len, sink| {
        let Some((piece, held, payloads, digests)) = pieces.next().filter(|_| whole) else {
            return false;
        };
        if remap.is_none() && !reader.etl_splittable() {
            return false;
        }
        ids.clear();
        if stacks.is_none() && reader.etl_stacks_mut().is_some() {
            // The part matched no stacks, which the reader keeps: it cannot stand for the buffers.
            return false;
        }
        if let (Some(part), Some(table)) = (&stacks, reader.etl_stacks_mut()) {
            if remap.is_none() {
                table.add_unmatched(part.unmatched());
            }
            stack_map.resize(part.len() + 1, 0);
            ids.extend(held.iter().map(|h| match h.stack {
                crate::stacks::NO_STACK => crate::stacks::NO_STACK,
                s => match stack_map.get(s as usize) {
                    Some(&0) => {
                        let id = part
                            .addresses(s)
                            .map_or(crate::stacks::MISSING_STACK, |a| table.intern(a));
                        stack_map[s as usize] = id;
                        id
                    }
                    Some(&id) => id,
                    None => crate::stacks::MISSING_STACK,
                },
            }));
        }
        let map = remap.get_or_insert_with(|| reader.absorb_etl_catalog(&catalog));
        let ids = &ids;
        let held = held.iter().enumerate().map(|(i, h)| etl::interleave::Held {
            entry: map[h.entry as usize],
            stack: ids.get(i).copied().unwrap_or(crate::stacks::NO_STACK),
            ..*h
        });
        reader.apply_etl_buffer(piece, held, payloads, digests, u64::from(len), sink);
        true
    })
}

/// Goes through the task's units in file order: each inline one through the reader itself, each
/// part's block through `apply` (given the reader, the block's length and the sink), which says
/// false where the part cannot stand for the block: the reader then goes on from there itself.
fn each_step(
    reader: &mut TraceReader,
    task: &Task,
    sink: &mut Sink<'_>,
    mut apply: impl FnMut(&mut TraceReader, u32, &mut Sink<'_>) -> bool,
) -> Result<Merged> {
    let mut inline = 0usize;
    for step in &task.steps {
        match *step {
            TaskStep::Inline { len } => {
                reader.push_with_info(task.next_inline(&mut inline, len), sink)?;
            }
            TaskStep::Part { at, len, .. } => {
                if !apply(reader, len, sink) {
                    return Ok(Merged::Sequential {
                        from: task.offset + at,
                    });
                }
            }
        }
    }
    Ok(Merged::Done)
}
