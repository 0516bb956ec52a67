//! An EventPipe part's output ([`NetPart`]) on the wire.

use super::ticks::{
    ticks_from_bytes, ticks_to_bytes, types_from_bytes, types_to_bytes, TICK_RECORD,
};
use super::{count, opt, NET, NONE, W};
use crate::bytes::Cursor;
use crate::error::Result;
use crate::nettrace::part::{BlockKind, BlockPiece, NetPart, SeqRun, SkipCount};
use crate::sort::{Pending, ARENA};
use alloc::boxed::Box;
use alloc::vec::Vec;

pub(super) fn to_bytes(p: NetPart) -> (Vec<u8>, Vec<u8>) {
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
        w.u32(b.stack_start);
        w.u32(b.stack_len);
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

pub(super) fn from_bytes(c: &mut Cursor<'_>, payloads: Vec<u8>) -> Result<NetPart> {
    let stopped = c.u32("stopped")?;
    let mut p = NetPart {
        stopped: (stopped != NONE).then_some(stopped),
        payloads,
        ..Default::default()
    };
    for _ in 0..count(c, 67)? {
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
            stack_start: c.u32("stack start")?,
            stack_len: c.u32("stack length")?,
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
