//! The time-ordering buffer's budget ([`gcscope_core::sort::MAX_BUFFERED_BYTES`]) on the hostile
//! trace it is for: tiny events with no sequence points and no IsSorted flags
//! (`encode::crafted`), where a reader keeping order held ~14 bytes per byte of file until the end.
//! With the budget the buffer stays at it, every event is delivered, and the count of events
//! delivered out of order equals what the delivered sequence itself shows (each event earlier than
//! one delivered before it); decoded in parts, everything is the same.
#![cfg(feature = "encode")]

mod common;

use common::split::{in_parts, sequential, task_bytes_for, Setup, Split};
use gcscope_core::encode::crafted::tiny_events_without_sequence_points;
use gcscope_core::sort::MAX_BUFFERED_BYTES;
use gcscope_core::Consumer;
use gcscope_core::TraceReader;

fn crafted(mib: u64) -> (Vec<u8>, u64) {
    let mut bytes = Vec::new();
    let c = tiny_events_without_sequence_points(mib << 20, &mut |b| bytes.extend_from_slice(b));
    assert_eq!(c.bytes, bytes.len() as u64);
    (bytes, c.events)
}

#[test]
fn the_buffer_stays_at_its_budget_and_says_what_came_late() {
    let (bytes, written) = crafted(24);
    // Without a budget every event would be held until the end: at least a record each.
    let record = std::mem::size_of::<gcscope_core::sort::Pending>() as u64;
    assert!(
        written * record > 4 * MAX_BUFFERED_BYTES as u64,
        "the trace is too small for the budget to matter: {written} events"
    );
    for filtered in [false, true] {
        let mut r = TraceReader::new();
        if filtered {
            r.set_filter(gcscope_core::gc::interest);
        }
        let (mut delivered, mut late, mut latest) = (0u64, 0u64, i64::MIN);
        let mut sink = |e: &gcscope_core::event::Event<'_>| {
            delivered += 1;
            if e.timestamp < latest {
                late += 1;
            }
            latest = latest.max(e.timestamp);
        };
        let mut peak = 0usize;
        for chunk in bytes.chunks(1 << 20) {
            r.push(chunk, &mut sink).expect("decode");
            peak = peak.max(r.buffered_bytes());
        }
        r.finish(&mut sink).expect("finish");
        // The budget, plus what one block of 100 KB adds before its end is checked.
        assert!(
            peak <= MAX_BUFFERED_BYTES + (4 << 20),
            "buffer peaked at {peak} bytes"
        );
        assert_eq!(delivered, written);
        assert!(late > 0);
        assert_eq!(r.stats().out_of_order_events, late);
        eprintln!(
            "{} MB, {written} events: buffer peak {:.1} MiB (budget {} MiB), {late} delivered out \
             of order (filtered: {filtered})",
            bytes.len() / 1_000_000,
            peak as f64 / (1 << 20) as f64,
            MAX_BUFFERED_BYTES >> 20
        );
    }
}

#[test]
fn the_crafted_trace_decodes_the_same_in_parts() {
    let (bytes, _) = crafted(24);
    for filter in [
        None,
        Some(gcscope_core::gc::interest as gcscope_core::parts::FilterFn),
    ] {
        let setup = Setup {
            filter,
            budget: None,
            consumer: Consumer::EveryEvent,
            keep_stacks: false,
        };
        let want = sequential(&bytes, setup, 1 << 20);
        assert!(want.stats.out_of_order_events > 0);
        for n in [2, 7] {
            let split = Split {
                task_bytes: task_bytes_for(bytes.len(), n),
                read_extra: 0,
                reverse: true,
                tail_chunk: 1 << 20,
                wire: n == 7,
                pieces: None,
                intern_types: n == 7,
                parts_until: None,
                reuse: false,
            };
            let (got, went) = in_parts(&bytes, setup, split);
            assert!(got == want, "{n} parts: {}", got.first_difference(&want));
            assert!(went.part_bytes as usize > bytes.len() * 9 / 10, "{went:?}");
        }
    }
}
