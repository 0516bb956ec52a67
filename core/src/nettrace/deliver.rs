//! From a buffered record to the consumer's [`Event`]: the strings it refers to, the name of a
//! payload-named event, and the counts every delivered event adds to.

use super::metadata::MetadataStore;
use crate::decode::Sink;
use crate::event::{Event, TraceInfo};
use crate::filter::Tally;
use crate::sort::Released;

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

/// Hands one event to the sink, with the interned strings it refers to, and counts it.
#[inline]
pub(super) fn emit(
    meta: &MetadataStore,
    tally: &mut Tally,
    info: &TraceInfo,
    pointer_size: u8,
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
        pointer_size,
        payload,
        tick,
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
