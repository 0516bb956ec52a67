//! An ETW part's output ([`EtlOutput`]) on the wire.

use super::ticks::{
    ticks_from_bytes, ticks_to_bytes, types_from_bytes, types_to_bytes, TICK_RECORD,
};
use super::{count, opt, ETW, NONE, W};
use crate::bytes::Cursor;
use crate::error::Result;
use crate::etl::catalog::Key;
use crate::etl::guid::Guid;
use crate::etl::interleave::Held;
use crate::etl::part::{BufferPiece, EtlOutput};
use crate::etl::{Counters, PidFiltered};
use crate::stacks::StackTable;
use alloc::vec::Vec;

pub(super) fn to_bytes(p: EtlOutput) -> (Vec<u8>, Vec<u8>) {
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
        w.len(k.filtered_by_pid.len());
        for f in &k.filtered_by_pid {
            w.u32(f.process_id);
            w.u64(f.events);
            w.u64(f.runtime_events);
            w.i64(f.first_timestamp);
            w.i64(f.last_timestamp);
        }
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
        w.u32(h.stack);
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
    stacks_to_bytes(&mut w, p.stacks.as_ref());
    // One run for the message (a Web Worker transfers one buffer); split again on the other side.
    (w.0, p.bytes.concat())
}

/// Bytes of one process's filtered counts in a buffer's counters.
const PID_RECORD: usize = 36;

/// Bytes of one event in an [`EtlOutput`] message.
const HELD_RECORD: usize = 37;

pub(super) fn from_bytes(c: &mut Cursor<'_>, bytes: Vec<u8>) -> Result<EtlOutput> {
    let stopped = c.u32("stopped")?;
    let mut p = EtlOutput {
        stopped: (stopped != NONE).then_some(stopped),
        ..Default::default()
    };
    for _ in 0..count(c, 82)? {
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
        for _ in 0..count(c, PID_RECORD)? {
            let f = PidFiltered {
                process_id: c.u32("pid")?,
                events: c.u64("pid events")?,
                runtime_events: c.u64("pid runtime events")?,
                first_timestamp: c.i64("pid first")?,
                last_timestamp: c.i64("pid last")?,
            };
            // Sorted and bounded on the sending side; kept so here whatever the bytes say.
            if k.filtered_by_pid.len() < crate::etl::MAX_FILTERED_PIDS
                && k.filtered_by_pid
                    .last()
                    .is_none_or(|l| l.process_id < f.process_id)
            {
                k.filtered_by_pid.push(f);
            }
        }
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
                stack: u32_at(33),
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
    p.stacks = stacks_from_bytes(c)?;
    Ok(p)
}

/// A part's stacks: a flag, the unmatched count, then each stack (by id) as its frame count and
/// frames.
fn stacks_to_bytes(w: &mut W, t: Option<&StackTable>) {
    let Some(t) = t else {
        w.u8(0);
        return;
    };
    w.u8(1);
    w.u64(t.unmatched());
    w.len(t.len());
    for id in 1..=t.len() as u32 {
        let a = t.addresses(id).unwrap_or(&[]);
        w.len(a.len());
        for &x in a {
            w.u64(x);
        }
    }
}

fn stacks_from_bytes(c: &mut Cursor<'_>) -> Result<Option<StackTable>> {
    if c.u8("stacks flag")? == 0 {
        return Ok(None);
    }
    let mut t = StackTable::new();
    t.add_unmatched(c.u64("unmatched stacks")?);
    let mut frames = Vec::new();
    for id in 1..=count(c, 4)? as u32 {
        frames.clear();
        for _ in 0..count(c, 8)? {
            frames.push(c.u64("frame")?);
        }
        // The sender's stacks are distinct, so each takes the next id; one that does not is not
        // a part's table.
        if t.intern(&frames) != id {
            return Err(crate::error::Error::malformed(
                0,
                "repeated stack in a part's stacks",
            ));
        }
    }
    Ok(Some(t))
}
