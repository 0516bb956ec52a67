//! Tasks and part outputs as bytes, for parts that run where memory is not shared (the app's Web
//! Workers): a task (without its inline bytes, which only the merge reads) with its context when
//! the receiving worker has not had it yet, and an output as two buffers, its records and its
//! payload bytes (the payloads are moved, not copied, so a worker can transfer them). An output
//! carries its allocation ticks' digests and their type names, so the merging worker decodes no
//! tick and hashes no name: ticks are most of a GC trace's events (docs/performance-log/journal.md,
//! "Ticks without their payloads").
//!
//! Fixed-size little-endian fields. Decoding checks every length against the bytes present (a
//! message is never trusted to allocate more than it holds) and the merge checks every index and
//! range again before it uses them ([`super::merge`]).

mod etw;
mod net;
mod ticks;

use super::{Format, Output, Task, TaskStep};
use crate::bytes::Cursor;
use crate::error::{Error, Result};
use crate::nettrace::metadata::MetaView;
use crate::nettrace::part::{BlockKind, PartContext};
use crate::nettrace::v6::V6State;
use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;

const NET: u8 = 1;
const ETW: u8 = 2;
const NONE: u32 = u32::MAX;

struct W(Vec<u8>);

impl W {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn opt(&mut self, v: Option<i64>) {
        self.u8(u8::from(v.is_some()));
        self.i64(v.unwrap_or(0));
    }
    fn len(&mut self, n: usize) {
        self.u32(n as u32);
    }
}

fn opt(c: &mut Cursor<'_>) -> Result<Option<i64>> {
    let some = c.u8("option")? != 0;
    let v = c.i64("option value")?;
    Ok(some.then_some(v))
}

/// A count of records of `size` bytes each, checked against the bytes left.
fn count(c: &mut Cursor<'_>, size: usize) -> Result<usize> {
    let at = c.offset();
    let n = c.u32("count")? as usize;
    if n.saturating_mul(size) > c.remaining() {
        return Err(Error::truncated(at, "part message"));
    }
    Ok(n)
}

/// A task for a worker: its steps and, with `context`, what it needs to decode them (a worker
/// keeps the last context it was given: send it whenever it changes).
pub fn task_to_bytes(task: &Task, context: bool) -> Vec<u8> {
    let mut w = W(Vec::with_capacity(64 + task.steps.len() * 24));
    w.u64(task.index);
    w.u8(match task.format {
        Format::EventPipe => NET,
        Format::Etw => ETW,
    });
    w.u64(task.offset);
    w.u64(task.len);
    w.u8(u8::from(task.intern_types) | u8::from(task.keep_stacks) << 1);
    w.len(task.steps.len());
    for s in &task.steps {
        match *s {
            TaskStep::Inline { len } => {
                w.u8(0);
                w.u64(0);
                w.u32(len);
                w.u8(0);
                w.u32(0);
                w.u32(0);
            }
            TaskStep::Part {
                at,
                len,
                kind,
                content_start,
                content_len,
            } => {
                w.u8(1);
                w.u64(at);
                w.u32(len);
                w.u8(match kind {
                    BlockKind::Events => 0,
                    BlockKind::Stacks => 1,
                });
                w.u32(content_start);
                w.u32(content_len);
            }
        }
    }
    match (&task.context, context) {
        (Some(ctx), true) => {
            w.u8(1);
            w.u8(u8::from(ctx.v6));
            w.u8(ctx.pointer_size);
            w.i64(ctx.sync_time_qpc);
            ctx.meta.encode(&mut w.0);
            ctx.tables.encode(&mut w.0);
        }
        _ => w.u8(0),
    }
    w.0
}

/// Reads a task; one sent without its context gets `last` (the context the worker was given last).
/// Returns the task and whether it brought a context of its own.
pub fn task_from_bytes(bytes: &[u8], last: Option<&Arc<PartContext>>) -> Result<(Task, bool)> {
    let mut c = Cursor::new(bytes, 0);
    let index = c.u64("task index")?;
    let format = match c.u8("format")? {
        NET => Format::EventPipe,
        ETW => Format::Etw,
        f => return Err(Error::malformed(8, alloc::format!("task format {f}"))),
    };
    let offset = c.u64("offset")?;
    let len = c.u64("length")?;
    let flags = c.u8("task flags")?;
    let (intern_types, keep_stacks) = (flags & 1 != 0, flags & 2 != 0);
    let n = count(&mut c, 22)?;
    let mut steps = Vec::with_capacity(n);
    for _ in 0..n {
        let tag = c.u8("step")?;
        let at = c.u64("step offset")?;
        let slen = c.u32("step length")?;
        let kind = c.u8("block kind")?;
        let content_start = c.u32("content start")?;
        let content_len = c.u32("content length")?;
        steps.push(match tag {
            0 => TaskStep::Inline { len: slen },
            _ => TaskStep::Part {
                at,
                len: slen,
                kind: if kind == 1 {
                    BlockKind::Stacks
                } else {
                    BlockKind::Events
                },
                content_start,
                content_len,
            },
        });
    }
    let own = c.u8("context")? != 0;
    let context = if own {
        let v6 = c.u8("v6")? != 0;
        let pointer_size = c.u8("pointer size")?;
        let sync_time_qpc = c.i64("sync time")?;
        let meta = MetaView::decode(&mut c)?;
        let tables = V6State::decode(&mut c)?;
        Some(Arc::new(PartContext {
            v6,
            pointer_size,
            sync_time_qpc,
            meta,
            tables,
        }))
    } else {
        last.cloned()
    };
    let task = Task {
        index,
        format,
        offset,
        len,
        steps,
        inline: Vec::new(),
        context,
        intern_types,
        keep_stacks,
    };
    Ok((task, own))
}

/// An output as (records, payload bytes).
pub fn output_to_bytes(output: Output) -> (Vec<u8>, Vec<u8>) {
    match output {
        Output::EventPipe(p) => net::to_bytes(p),
        Output::Etw(p) => etw::to_bytes(*p),
    }
}

/// [`output_to_bytes`] for a merge whose events go to the GC model and its insights only, which
/// read an allocation tick that has a digest through the digest, and its payload only for its type
/// name: such a tick of an EventPipe part carries the payload of the part's first tick of the same
/// type and length (the same name at the same place) instead of its own, and the payload bytes
/// sent are those of the other events and one tick per type. On the runtime's traces ticks are
/// nearly all of the payload bytes delivered (930 of 942 MB of a generated 1 GiB trace, whose
/// blocks are 1,074 MB): a Web Worker then sends and the merging worker copies ~1/80 of them.
/// An ETW part's output is sent whole.
pub fn output_to_bytes_for_model(output: Output) -> (Vec<u8>, Vec<u8>) {
    match output {
        Output::EventPipe(mut p) => {
            p.payloads = ticks::payloads_for_model(&mut p);
            net::to_bytes(p)
        }
        Output::Etw(p) => etw::to_bytes(*p),
    }
}

/// Reads what [`output_to_bytes`] wrote.
pub fn output_from_bytes(records: &[u8], payloads: Vec<u8>) -> Result<Output> {
    let mut c = Cursor::new(records, 0);
    match c.u8("output kind")? {
        NET => net::from_bytes(&mut c, payloads).map(Output::EventPipe),
        ETW => etw::from_bytes(&mut c, payloads).map(|p| Output::Etw(Box::new(p))),
        k => Err(Error::malformed(0, alloc::format!("part output kind {k}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clr::gc::{TickDigest, TypeIndex, TypeRef};
    use crate::nettrace::part::{BlockPiece, NetPart, SeqRun, SkipCount};
    use crate::sort::{Pending, ARENA};

    #[test]
    fn cut_messages_are_errors_not_panics() {
        let part = NetPart {
            blocks: alloc::vec![BlockPiece {
                events: 1,
                runs: 1,
                skips: 1,
                sorted_up_to: Some(5),
                ..Default::default()
            }],
            ticks: alloc::vec![TickDigest {
                amount: 100_000,
                kind: 1,
                heap_index: Some(3),
                type_name_len: Some(2),
                type_ref: TypeRef::part(0),
            }],
            types: Some(Box::new({
                let mut t = TypeIndex::default();
                t.index(&[65, 0]);
                t
            })),
            events: alloc::vec![Pending {
                timestamp: 5,
                thread_id: 1,
                capture_thread_id: 1,
                metadata: 0,
                version: 1,
                sequence: 1,
                processor: 0,
                stack_id: 0,
                payload_start: 0,
                payload_len: 2,
                chunk: ARENA,
                tick: 0,
            }],
            payloads: alloc::vec![65, 0],
            runs: alloc::vec![SeqRun {
                thread: 1,
                first: 1,
                last: 1
            }],
            skips: alloc::vec![SkipCount {
                entry: 0,
                count: 3,
                earliest: 4
            }],
            stopped: None,
        };
        let (records, payloads) = output_to_bytes(Output::EventPipe(part.clone()));
        match output_from_bytes(&records, payloads.clone()) {
            Ok(Output::EventPipe(p)) => assert_eq!(p, part),
            _ => panic!("round trip"),
        }
        for n in 0..records.len() {
            assert!(
                output_from_bytes(&records[..n], payloads.clone()).is_err(),
                "{n}"
            );
        }
        // A count far beyond the bytes present allocates nothing.
        let mut huge = records.clone();
        huge[5..9].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(output_from_bytes(&huge, Vec::new()).is_err());
    }
}
