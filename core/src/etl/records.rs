//! One buffer's records read into the merge window's held events, with their stacks matched.

use super::catalog::Catalog;
use super::counters::Counters;
use super::interleave::{Held, HeldBuffer};
use super::record::{self, Source};
use super::stackwalk;
use crate::stacks::StackTable;
use alloc::vec::Vec;

/// Reads the records of one buffer (after its logfile header, if it is a file's first) into `held`,
/// counting every record in `catalog` and `counters`. A record that cannot be read ends the buffer
/// (counted as damaged, unless `salvaging` the cut-off last buffer of the file, whose last record is
/// cut rather than damaged). The sequential decoder and the parts ([`super::part`]) both read buffers here.
/// With `stacks`, the buffer's stacks are matched to its events and interned ([`stackwalk`]).
pub(crate) fn read_records(
    catalog: &mut Catalog,
    counters: &mut Counters,
    records: &[u8],
    salvaging: bool,
    held: &mut HeldBuffer,
    stacks: Option<&mut StackTable>,
) {
    let keep = stacks.is_some();
    let mut pending: Vec<stackwalk::Pending> = Vec::new();
    let mut unmatched = 0u64;
    let mut last = stackwalk::LastOnThread::default();
    let mut pos = 0usize;
    while pos < records.len() {
        let Ok(r) = record::parse(records, pos) else {
            // The buffers are framed independently: skip the rest of this one.
            if !salvaging {
                counters.damaged_buffers += 1;
                counters.skipped_records += 1;
            }
            break;
        };
        counters.events += 1;
        counters.first_timestamp = Some(
            counters
                .first_timestamp
                .map_or(r.timestamp, |t| t.min(r.timestamp)),
        );
        counters.last_timestamp = Some(
            counters
                .last_timestamp
                .map_or(r.timestamp, |t| t.max(r.timestamp)),
        );
        // A stack record: the event it belongs to (None: none found) and its frames' place.
        let kernel_walk = r.source
            == (Source::Kernel {
                hook: stackwalk::STACK_WALK,
            });
        let clr_walk = keep && is_clr_walk(&r.source);
        let p = || &records[r.payload_start..r.payload_start + r.payload_len];
        let walk = if keep && kernel_walk {
            Some(
                stackwalk::parse(p(), r.pointer_size).and_then(|(ts, thread, at, len)| {
                    Some((stackwalk::find(held, &pending, ts, thread)?, at, len))
                }),
            )
        } else if clr_walk {
            Some(
                stackwalk::parse_clr(p(), r.pointer_size).and_then(|(at, len)| {
                    Some((last.event_for_walk(r.thread_id, &pending)?, at, len))
                }),
            )
        } else {
            None
        };
        match walk {
            Some(Some((event, at, len))) => pending.push(stackwalk::Pending {
                event,
                start: (r.payload_start + at) as u32,
                len: len as u32,
                pointer_size: r.pointer_size,
            }),
            Some(None) => unmatched += 1,
            None => {}
        }
        let entry = catalog.lookup(&r.source, r.version);
        let e = catalog.entry(entry);
        // The record a later ClrStack/Walk on its thread belongs to: any but the stack records.
        if keep && !clr_walk && !is_kernel_stack_record(&r.source) {
            last.set(r.thread_id, e.deliver.then_some(held.events.len() as u32));
        }
        if e.deliver {
            if let (true, Some(s)) = (keep, r.stack) {
                pending.push(stackwalk::Pending {
                    event: held.events.len() as u32,
                    start: s.start as u32,
                    len: s.len as u32,
                    pointer_size: s.pointer_size,
                });
            }
            // Payload positions in `records` for now: copied once the buffer is done.
            held.events.push(Held {
                timestamp: r.timestamp,
                entry,
                thread_id: r.thread_id,
                process_id: r.process_id,
                pointer_size: r.pointer_size,
                payload_start: r.payload_start as u32,
                payload_len: r.payload_len as u32,
                tick: crate::sort::NO_TICK,
                stack: crate::stacks::NO_STACK,
            });
        } else {
            counters.filtered(r.process_id, e.runtime, r.timestamp);
        }
        pos += (r.size + 7) & !7;
    }
    if let Some(table) = stacks {
        table.add_unmatched(unmatched);
        stackwalk::intern(table, held, &mut pending, records);
    }
    held.take_payloads(records);
}

fn is_clr_walk(source: &Source) -> bool {
    matches!(source, Source::Provider { guid, id, .. }
        if *id == stackwalk::CLR_STACK_WALK && *guid == super::names::RUNTIME_GUID)
}

/// The kernel's StackWalk group (0x18): walks and stack keys, which come after the event they
/// are for.
fn is_kernel_stack_record(source: &Source) -> bool {
    matches!(source, Source::Kernel { hook } if hook >> 8 == 0x18)
}
