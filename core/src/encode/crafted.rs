//! A hostile trace for the memory bound of the time-ordering buffer ([`crate::sort`]): tiny events
//! and nothing that lets a reader deliver them before the end: no sequence points, no IsSorted
//! flags, and threads whose long runs go back in time at every switch (as the runtime's per-thread
//! buffers do, only never flushed). A reader that keeps order must hold every event (~56 bytes of
//! record for ~4 bytes of file) unless it has a budget.
//!
//! The events are the runtime's GCRestartEEEnd (V1: a 2-byte ClrInstanceID), which the GC model
//! reads, so a reader filtered for the model holds them too.

use super::{EventDef, EventFields, Flavor, Header, NetTraceWriter};
use crate::clr::names::RUNTIME_PROVIDER;

/// Events per thread run: each run covers the same stretch of time as the other threads' runs, and
/// one run is more than the ordering buffer's budget, so a budget must release some events before
/// the next thread's earlier ones arrive.
const RUN: u64 = 1 << 20;
/// Threads taking turns.
const THREADS: u64 = 4;
/// Ticks between two events of a run.
const STEP: i64 = 10;

/// What was written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Crafted {
    pub events: u64,
    pub bytes: u64,
}

/// Writes at least `target_bytes` of the trace to `out`.
pub fn tiny_events_without_sequence_points(
    target_bytes: u64,
    out: &mut dyn FnMut(&[u8]),
) -> Crafted {
    let header = Header::default();
    let mut w = NetTraceWriter::new(Flavor::V5, &header);
    let id = w.define(&EventDef {
        provider: RUNTIME_PROVIDER,
        event_id: crate::clr::ids::runtime::GC_RESTART_EE_END,
        version: 1,
        level: 4,
        keywords: 1,
        ..Default::default()
    });
    let mut events = 0u64;
    let mut round = 0i64;
    let mut total = 0u64;
    let mut drain = |w: &mut NetTraceWriter, total: &mut u64| {
        w.drain(&mut |b| {
            *total += b.len() as u64;
            out(b)
        })
    };
    while total + w.pending() as u64 + 64 < target_bytes {
        let base = header.sync_time_qpc + round * RUN as i64 * STEP;
        for t in 0..THREADS {
            for i in 0..RUN {
                let e = EventFields {
                    metadata_id: id,
                    thread_id: 100 + t,
                    capture_thread_id: 100 + t,
                    processor: t as u32,
                    // Each thread a tick apart, so no two events share a timestamp.
                    timestamp: base + i as i64 * STEP + t as i64,
                    ..Default::default()
                };
                w.event(&e, &7u16.to_le_bytes());
                events += 1;
            }
        }
        round += 1;
        drain(&mut w, &mut total);
    }
    w.finish();
    drain(&mut w, &mut total);
    Crafted {
        events,
        bytes: total,
    }
}
