//! Tasks and part outputs as bytes, for parts that run where memory is not shared (the app's Web
//! Workers): a task (without its inline bytes, which only the merge reads) with its context when
//! the receiving worker has not had it yet, and an output as two buffers, its records and its
//! payload bytes (the payloads are moved, not copied, so a worker can transfer them). An output
//! carries its allocation ticks' digests and their type names, so the merging worker decodes no
//! tick and hashes no name (that was most of its work on a GC trace).
//!
//! Fixed-size little-endian fields. Decoding checks every length against the bytes present (a
//! message is never trusted to allocate more than it holds) and the merge checks every index and
//! range again before it uses them ([`super::merge`]).

use super::{Format, Output, Task, TaskStep};
use crate::clr::gc::{TickDigest, TypeIndex, TypeRef};
use crate::error::{Error, Result};
use crate::etl::catalog::Key;
use crate::etl::guid::Guid;
use crate::etl::merge::Held;
use crate::etl::part::{BufferPiece, EtlOutput};
use crate::etl::Counters;
use crate::nettrace::metadata::MetaView;
use crate::nettrace::part::{BlockKind, BlockPiece, NetPart, PartContext, SeqRun, SkipCount};
use crate::nettrace::v6::V6State;
use crate::read::Cursor;
use crate::sort::{Pending, ARENA};
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

/// Bytes of one [`TickDigest`].
const TICK_RECORD: usize = 25;

fn ticks_to_bytes(w: &mut W, ticks: &[TickDigest]) {
    w.len(ticks.len());
    for d in ticks {
        // Only parts make digests, and only with their own table.
        let part = d.type_ref.in_part();
        w.u64(d.amount);
        w.u32(d.kind);
        w.u8(u8::from(d.heap_index.is_some())
            | u8::from(d.type_name_len.is_some()) << 1
            | u8::from(part.is_some()) << 2);
        w.u32(d.heap_index.unwrap_or(0));
        w.u32(d.type_name_len.unwrap_or(0));
        w.u32(part.unwrap_or(0));
    }
}

fn ticks_from_bytes(c: &mut Cursor<'_>) -> Result<Vec<TickDigest>> {
    let n = count(c, TICK_RECORD)?;
    let records = c.bytes(n * TICK_RECORD, "ticks")?;
    let mut ticks = Vec::with_capacity(n);
    for r in records.chunks_exact(TICK_RECORD) {
        let u32_at = |i: usize| u32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
        let mut amount = [0u8; 8];
        amount.copy_from_slice(&r[0..8]);
        let flags = r[12];
        ticks.push(TickDigest {
            amount: u64::from_le_bytes(amount),
            kind: u32_at(8),
            heap_index: (flags & 1 != 0).then(|| u32_at(13)),
            type_name_len: (flags & 2 != 0).then(|| u32_at(17)),
            type_ref: if flags & 4 != 0 {
                TypeRef::part(u32_at(21))
            } else {
                TypeRef::NONE
            },
        });
    }
    Ok(ticks)
}

fn types_to_bytes(w: &mut W, types: Option<&TypeIndex>) {
    let Some(types) = types else {
        return w.u8(0);
    };
    w.u8(1);
    w.len(types.len());
    for name in types.names() {
        w.len(name.len());
        w.0.extend_from_slice(name);
    }
}

fn types_from_bytes(c: &mut Cursor<'_>) -> Result<Option<TypeIndex>> {
    if c.u8("types")? == 0 {
        return Ok(None);
    }
    let mut types = TypeIndex::default();
    for _ in 0..count(c, 4)? {
        let at = c.offset();
        let len = c.u32("type name length")? as usize;
        let name = c.bytes(len, "type name")?;
        // The part's indices are the order of its names: a name twice would shift the rest.
        if !types.index(name).1 {
            return Err(Error::malformed(at, "type name given twice"));
        }
    }
    Ok(Some(types))
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
    w.u8(u8::from(task.intern_types));
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
    let intern_types = c.u8("intern types")? != 0;
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
    };
    Ok((task, own))
}

/// An output as (records, payload bytes).
pub fn output_to_bytes(output: Output) -> (Vec<u8>, Vec<u8>) {
    match output {
        Output::EventPipe(p) => net_to_bytes(p),
        Output::Etw(p) => etw_to_bytes(*p),
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
            p.payloads = payloads_for_model(&mut p);
            net_to_bytes(p)
        }
        Output::Etw(p) => etw_to_bytes(*p),
    }
}

/// The payload bytes [`output_to_bytes_for_model`] sends, with the events pointed into them.
fn payloads_for_model(p: &mut NetPart) -> Vec<u8> {
    let mut out = Vec::new();
    // Per type of the part's table: the first tick's payload in `out` (start, length).
    let mut first: Vec<Option<(u32, u32)>> =
        alloc::vec![None; p.types.as_ref().map_or(0, |t| t.len())];
    for e in &mut p.events {
        let (start, len) = (e.payload_start as usize, e.payload_len as usize);
        // Never so in a part's own output; left for the merge to refuse.
        let Some(src) = p.payloads.get(start..).and_then(|s| s.get(..len)) else {
            continue;
        };
        let ty = p
            .ticks
            .get(e.tick as usize)
            .and_then(|d| d.type_ref.in_part())
            .and_then(|t| first.get_mut(t as usize));
        match ty {
            Some(Some((at, n))) if *n == e.payload_len => e.payload_start = *at,
            ty => {
                let at = out.len() as u32;
                out.extend_from_slice(src);
                e.payload_start = at;
                if let Some(slot @ None) = ty {
                    *slot = Some((at, e.payload_len));
                }
            }
        }
    }
    out
}

/// Reads what [`output_to_bytes`] wrote.
pub fn output_from_bytes(records: &[u8], payloads: Vec<u8>) -> Result<Output> {
    let mut c = Cursor::new(records, 0);
    match c.u8("output kind")? {
        NET => net_from_bytes(&mut c, payloads).map(Output::EventPipe),
        ETW => etw_from_bytes(&mut c, payloads).map(|p| Output::Etw(Box::new(p))),
        k => Err(Error::malformed(0, alloc::format!("part output kind {k}"))),
    }
}

fn net_to_bytes(p: NetPart) -> (Vec<u8>, Vec<u8>) {
    let mut w = W(Vec::with_capacity(
        16 + p.blocks.len() * 64
            + p.events.len() * EVENT_RECORD
            + p.ticks.len() * TICK_RECORD
            + p.runs.len() * 16
            + p.skips.len() * 20,
    ));
    w.u8(NET);
    w.u32(p.stopped.unwrap_or(NONE));
    w.len(p.blocks.len());
    for b in &p.blocks {
        w.u8(match b.kind {
            BlockKind::Events => 0,
            BlockKind::Stacks => 1,
        });
        w.u32(b.rows_len);
        w.u32(b.events);
        w.opt(b.sorted_up_to);
        w.u32(b.runs);
        w.u64(b.dropped);
        w.u32(b.skips);
        w.opt(b.skipped_last_since_sync);
        w.u64(b.unknown);
        w.u64(b.stacks);
    }
    w.len(p.events.len());
    for e in &p.events {
        w.i64(e.timestamp);
        w.u64(e.thread_id);
        w.u64(e.capture_thread_id);
        w.u32(e.metadata);
        w.u32(e.version);
        w.u32(e.sequence);
        w.u32(e.processor);
        w.u32(e.stack_id);
        w.u32(e.payload_start);
        w.u32(e.payload_len);
        w.u32(e.tick);
    }
    ticks_to_bytes(&mut w, &p.ticks);
    types_to_bytes(&mut w, p.types.as_deref());
    w.len(p.runs.len());
    for r in &p.runs {
        w.u64(r.thread);
        w.u32(r.first);
        w.u32(r.last);
    }
    w.len(p.skips.len());
    for s in &p.skips {
        w.u32(s.entry);
        w.u64(s.count);
        w.i64(s.earliest);
    }
    (w.0, p.payloads)
}

fn net_from_bytes(c: &mut Cursor<'_>, payloads: Vec<u8>) -> Result<NetPart> {
    let stopped = c.u32("stopped")?;
    let mut p = NetPart {
        stopped: (stopped != NONE).then_some(stopped),
        payloads,
        ..Default::default()
    };
    for _ in 0..count(c, 59)? {
        let kind = if c.u8("block kind")? == 1 {
            BlockKind::Stacks
        } else {
            BlockKind::Events
        };
        p.blocks.push(BlockPiece {
            kind,
            rows_len: c.u32("rows")?,
            events: c.u32("events")?,
            sorted_up_to: opt(c)?,
            runs: c.u32("runs")?,
            dropped: c.u64("dropped")?,
            skips: c.u32("skips")?,
            skipped_last_since_sync: opt(c)?,
            unknown: c.u64("unknown")?,
            stacks: c.u64("stacks")?,
        });
    }
    // The bulk of a message: fixed 56-byte records, read without a check per field.
    let n = count(c, EVENT_RECORD)?;
    let records = c.bytes(n * EVENT_RECORD, "events")?;
    p.events.reserve(n);
    for r in records.chunks_exact(EVENT_RECORD) {
        if let Ok(r) = <&[u8; EVENT_RECORD]>::try_from(r) {
            p.events.push(event_record(r));
        }
    }
    // An event's digest index is checked where it is used (the sort buffer's `get`).
    p.ticks = ticks_from_bytes(c)?;
    p.types = types_from_bytes(c)?.map(Box::new);
    for _ in 0..count(c, 16)? {
        p.runs.push(SeqRun {
            thread: c.u64("thread")?,
            first: c.u32("first")?,
            last: c.u32("last")?,
        });
    }
    for _ in 0..count(c, 20)? {
        p.skips.push(SkipCount {
            entry: c.u32("entry")?,
            count: c.u64("count")?,
            earliest: c.i64("earliest")?,
        });
    }
    Ok(p)
}

/// Bytes of one event in a [`NetPart`] message.
const EVENT_RECORD: usize = 56;

fn event_record(r: &[u8; EVENT_RECORD]) -> Pending {
    let u32_at = |i: usize| u32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
    let u64_at = |i: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&r[i..i + 8]);
        u64::from_le_bytes(b)
    };
    Pending {
        timestamp: u64_at(0) as i64,
        thread_id: u64_at(8),
        capture_thread_id: u64_at(16),
        metadata: u32_at(24),
        version: u32_at(28),
        sequence: u32_at(32),
        processor: u32_at(36),
        stack_id: u32_at(40),
        payload_start: u32_at(44),
        payload_len: u32_at(48),
        chunk: ARENA,
        tick: u32_at(52),
    }
}

fn etw_to_bytes(p: EtlOutput) -> (Vec<u8>, Vec<u8>) {
    let mut w = W(Vec::with_capacity(
        16 + p.buffers.len() * 94
            + p.events.len() * HELD_RECORD
            + p.ticks.iter().map(Vec::len).sum::<usize>() * TICK_RECORD
            + p.catalog.len() * 28,
    ));
    w.u8(ETW);
    w.u32(p.stopped.unwrap_or(NONE));
    w.len(p.buffers.len());
    for b in &p.buffers {
        w.u32(b.processor);
        w.u32(b.events);
        w.u32(b.bytes);
        let k = &b.counters;
        for v in [
            k.events,
            k.filtered_events,
            k.buffers,
            k.skipped_records,
            k.damaged_buffers,
            k.out_of_order,
        ] {
            w.u64(v);
        }
        w.opt(k.first_timestamp);
        w.opt(k.last_timestamp);
    }
    w.len(p.events.len());
    for h in &p.events {
        w.i64(h.timestamp);
        w.u32(h.entry);
        w.u32(h.thread_id);
        w.u32(h.process_id);
        w.u8(h.pointer_size);
        w.u32(h.payload_start);
        w.u32(h.payload_len);
        w.u32(h.tick);
    }
    w.len(p.ticks.len());
    for t in &p.ticks {
        ticks_to_bytes(&mut w, t);
    }
    types_to_bytes(&mut w, p.types.as_ref());
    w.len(p.catalog.len());
    for &((kind, g, n, version), count) in &p.catalog {
        w.u8(kind);
        w.u32(g.data1);
        w.u16(g.data2);
        w.u16(g.data3);
        w.0.extend_from_slice(&g.data4);
        w.u16(n);
        w.u8(version);
        w.u64(count);
    }
    // One run for the message (a Web Worker transfers one buffer); split again on the other side.
    (w.0, p.bytes.concat())
}

/// Bytes of one event in an [`EtlOutput`] message.
const HELD_RECORD: usize = 33;

fn etw_from_bytes(c: &mut Cursor<'_>, bytes: Vec<u8>) -> Result<EtlOutput> {
    let stopped = c.u32("stopped")?;
    let mut p = EtlOutput {
        stopped: (stopped != NONE).then_some(stopped),
        ..Default::default()
    };
    for _ in 0..count(c, 78)? {
        let processor = c.u32("processor")?;
        let events = c.u32("events")?;
        let nbytes = c.u32("bytes")?;
        let mut k = Counters {
            events: c.u64("events")?,
            filtered_events: c.u64("filtered")?,
            buffers: c.u64("buffers")?,
            skipped_records: c.u64("skipped")?,
            damaged_buffers: c.u64("damaged")?,
            out_of_order: c.u64("out of order")?,
            ..Default::default()
        };
        k.first_timestamp = opt(c)?;
        k.last_timestamp = opt(c)?;
        p.buffers.push(BufferPiece {
            processor,
            events,
            bytes: nbytes,
            counters: k,
        });
    }
    // Each buffer's payloads, as far as the run holds them: a buffer past its end is left without,
    // and the merge then decodes from that buffer on sequentially.
    let mut at = 0usize;
    for b in &p.buffers {
        let end = at.saturating_add(b.bytes as usize);
        let Some(run) = bytes.get(at..end) else {
            break;
        };
        p.bytes.push(run.to_vec());
        at = end;
    }
    let n = count(c, HELD_RECORD)?;
    let records = c.bytes(n * HELD_RECORD, "events")?;
    p.events.reserve(n);
    for r in records.chunks_exact(HELD_RECORD) {
        if let Ok(r) = <&[u8; HELD_RECORD]>::try_from(r) {
            let u32_at = |i: usize| u32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
            let mut ts = [0u8; 8];
            ts.copy_from_slice(&r[0..8]);
            p.events.push(Held {
                timestamp: i64::from_le_bytes(ts),
                entry: u32_at(8),
                thread_id: u32_at(12),
                process_id: u32_at(16),
                pointer_size: r[20],
                payload_start: u32_at(21),
                payload_len: u32_at(25),
                tick: u32_at(29),
            });
        }
    }
    // Each buffer's digests (a held event's index into them is checked where it is used).
    for _ in 0..count(c, 4)? {
        p.ticks.push(ticks_from_bytes(c)?);
    }
    p.types = types_from_bytes(c)?;
    for _ in 0..count(c, 28)? {
        let kind = c.u8("kind")?;
        let g = c.bytes(16, "guid")?;
        let key: Key = (kind, Guid::read(g), c.u16("id")?, c.u8("version")?);
        p.catalog.push((key, c.u64("count")?));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

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
