//! From a buffered record to the consumer's [`Event`]: the strings it refers to, the name of a
//! payload-named event, and the counts every delivered event adds to.

use super::metadata::MetadataStore;
use crate::event::{Event, TraceInfo};
use crate::filter::Tally;
use crate::sink::Sink;
use crate::sort::{Release, Released};
use crate::stacks::{StackTable, NO_STACK};
use crate::ticks::{TickBatch, Ticks};

/// For a payload-named entry: the event's name when it is not the entry's.
pub(super) fn renamed(
    meta: &MetadataStore,
    index: u32,
    version: u32,
    pointer_size: u8,
    payload: &[u8],
) -> Option<&'static str> {
    let m = meta.entry(index);
    if !m.payload_named {
        return None;
    }
    let ev = Event {
        provider: meta.provider(m.provider),
        event_id: m.event_id,
        version,
        name: &m.name,
        processor: u32::MAX,
        pointer_size,
        payload,
        ..Event::default()
    };
    crate::clr::event_name_for(&ev).filter(|n| *n != m.name)
}

/// Hands what the sort buffer released to the sink: an event, with the interned strings it refers
/// to, or a batch of ticks (the first tick's strings); counts it. Returns how many events that was.
#[inline]
pub(super) fn emit(
    meta: &MetadataStore,
    tally: &mut Tally,
    info: &TraceInfo,
    pointer_size: u8,
    stacks: Option<&mut StackTable>,
    r: Release<'_>,
    sink: &mut Sink<'_>,
) -> u64 {
    match r {
        Release::Event(r) => {
            emit_event(meta, tally, info, pointer_size, stacks, r, sink);
            1
        }
        Release::Ticks(b) => emit_ticks(meta, tally, info, pointer_size, stacks, b, sink),
    }
}

/// A batch of the tick lane's ticks (see [`crate::sort::Sorter::set_tick_lane`]): counted per
/// metadata entry as each tick would be (a tick's entry is never payload-named), their times (and
/// for the stacks their stacks' table ids, from the file's ids the lane kept) filled in, handed to
/// the sink as one event.
#[inline(never)]
fn emit_ticks(
    meta: &MetadataStore,
    tally: &mut Tally,
    info: &TraceInfo,
    pointer_size: u8,
    mut stacks: Option<&mut StackTable>,
    b: &mut TickBatch,
    sink: &mut Sink<'_>,
) -> u64 {
    let Some(&(first, _)) = b.per_entry.first() else {
        return 0;
    };
    for &(index, n) in &b.per_entry {
        tally.count_many(index, n);
    }
    tally.saw_since(b.latest_since_sync);
    b.first_ms = info.ms_since_start(b.first_timestamp);
    b.latest_ms = info.ms_since_start(b.latest_timestamp);
    for t in &mut b.ticks {
        t.time_ms = info.ms_since_start(t.timestamp);
        t.stack = match stacks.as_deref_mut() {
            Some(table) => table.resolve_raw(t.stack),
            None => NO_STACK,
        };
    }
    let m = meta.entry(first);
    let ev = Event {
        provider: meta.provider(m.provider),
        event_id: m.event_id,
        version: m.version,
        name: &m.name,
        timestamp: b.first_timestamp,
        time_ms: b.first_ms,
        process_id: info.process_id,
        processor: u32::MAX,
        pointer_size,
        ticks: Some(Ticks::Batch(b)),
        ..Event::default()
    };
    sink(info, &ev);
    b.count
}

/// Hands one event to the sink, with the interned strings it refers to and, where the reader keeps
/// stacks, the table id of its stack (the file's id is valid in the region the event is released
/// in: the sort buffer releases every event of a region before the next sequence point is read),
/// and counts it.
#[inline]
fn emit_event(
    meta: &MetadataStore,
    tally: &mut Tally,
    info: &TraceInfo,
    pointer_size: u8,
    stacks: Option<&mut StackTable>,
    r: Released<'_>,
    sink: &mut Sink<'_>,
) {
    let Released {
        event: p,
        payload,
        tick,
    } = r;
    let m = meta.entry(p.metadata);
    let mut ev = Event {
        provider: meta.provider(m.provider),
        event_id: m.event_id,
        version: p.version,
        name: &m.name,
        timestamp: p.timestamp,
        time_ms: info.ms_since_start(p.timestamp),
        process_id: info.process_id,
        thread_id: p.thread_id,
        capture_thread_id: p.capture_thread_id,
        sequence: p.sequence,
        processor: p.processor,
        stack_id: p.stack_id,
        stack: match stacks {
            Some(t) => t.resolve_raw(p.stack_id),
            None => NO_STACK,
        },
        pointer_size,
        payload,
        ticks: tick.map(Ticks::One),
    };
    if m.payload_named {
        if let Some(n) = renamed(meta, p.metadata, p.version, pointer_size, payload) {
            ev.name = n;
            tally.count_renamed(p.metadata, n);
        } else {
            tally.count(p.metadata);
        }
    } else {
        tally.count(p.metadata);
    }
    tally.saw(p.timestamp, info.sync_time_qpc);
    sink(info, &ev);
}
