//! Whole-file decoding: sniffing, unzip/gunzip, every trace format, sorting, and the GC model on the
//! events; the reader keeps the stacks, and the stack samples (method events, ticks, GC triggers,
//! pinned handles) are summed and built into call trees and folded stacks. The first two bytes choose
//! how the rest is cut into chunks (or that it is given in one piece); one seed in 16 decodes it both
//! ways, and both must agree (chunking must never change what is read).

use super::super::{info, Chunker};
use gcscope_core::gc::ModelBuilder;
use gcscope_core::stacks::view::{folded, CallTree, Frames, Selection, StackSamplesBuilder, Which};
use gcscope_core::TraceReader;

fn decode(
    file: &[u8],
    chunker: Option<&mut Chunker>,
) -> (Result<(), gcscope_core::error::Error>, u64, String) {
    let mut r = TraceReader::new();
    r.set_keep_stacks(true);
    let mut model = ModelBuilder::new(&info());
    let mut samples = StackSamplesBuilder::new();
    let mut events = 0u64;
    let mut sink = |e: &gcscope_core::event::Event<'_>| {
        events += 1;
        model.on_event(e);
        samples.on_event(e);
    };
    let mut res = Ok(());
    match chunker {
        Some(ch) => {
            let mut rest = file;
            while !rest.is_empty() {
                let n = ch.next_len().min(rest.len());
                if let Err(e) = r.push(&rest[..n], &mut sink) {
                    res = Err(e);
                    break;
                }
                rest = &rest[n..];
            }
        }
        None => res = r.push(file, &mut sink),
    }
    if res.is_ok() {
        res = r.finish(&mut sink);
    }
    if let Err(e) = &res {
        let stats = r.stats();
        assert!(
            e.offset <= stats.trace_bytes.max(stats.bytes_in),
            "error offset {} past the input ({} bytes in, {} trace bytes)",
            e.offset,
            stats.bytes_in,
            stats.trace_bytes
        );
    }
    assert_eq!(events, r.stats().events, "events delivered vs counted");
    let _ = model.completed_gcs().len();
    let m = model.finish(Some(r.stats()));
    let _ = m.gcs.len();
    let samples = samples.finish();
    let mut stacks = String::new();
    if let Some(table) = r.stacks() {
        let frames = Frames {
            table,
            methods: &samples.methods,
        };
        for which in [Which::Alloc(None), Which::Triggered, Which::PinnedHandles] {
            let sums = samples.sum(&Selection::new(which));
            let up = CallTree::bottom_up(&sums, &frames);
            let down = CallTree::top_down(&sums, &frames);
            assert_eq!(up.nodes[0].inclusive, sums.total_value);
            assert_eq!(down.nodes[0].inclusive, sums.total_value);
            stacks.push_str(&folded(&sums, &frames));
        }
    }
    (res, events, stacks)
}

/// One execution: what the `container` fuzz target runs on each input.
pub fn run(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let (seed, file) = (u16::from_le_bytes([data[0], data[1]]), &data[2..]);
    // One decode per run, in the chunking the seed chooses (one piece when its low bits are zero),
    // so each execution costs one decode; core/tests/chunking.rs checks on the reference traces
    // that the chunking never changes the events. One seed in 16 decodes both ways here too and
    // compares, so the fuzzer still searches for an input whose outcome depends on the chunking.
    match seed % 16 {
        0 => {
            let _ = decode(file, None);
        }
        1 => {
            let (whole, whole_events, whole_stacks) = decode(file, None);
            let (chunked, chunked_events, chunked_stacks) =
                decode(file, Some(&mut Chunker::new(seed)));
            assert!(
                whole_stacks == chunked_stacks,
                "chunking changed the stacks"
            );
            assert_eq!(
                whole_events, chunked_events,
                "chunking changed the events ({whole:?} / {chunked:?})"
            );
            assert_eq!(
                whole.is_ok(),
                chunked.is_ok(),
                "chunking changed the outcome: {whole:?} / {chunked:?}"
            );
        }
        _ => {
            let _ = decode(file, Some(&mut Chunker::new(seed)));
        }
    }
}
