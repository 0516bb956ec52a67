//! The ETW decoder: a file fed in random chunkings (the first two bytes choose them) through the
//! reader filtered to the GC model's events and unfiltered, with one model per process on top.
//! Chunking and filtering must not change what is counted, an error's offset lies within the input,
//! and the reader never holds more than the merge window, one buffer and the input itself.

use super::super::Chunker;
use gcscope_core::etl::buffer::MAX_BUFFER;
use gcscope_core::etl::interleave::WINDOW_BYTES;
use gcscope_core::gc::{self, ProcessRouter};
use gcscope_core::TraceReader;

fn decode(file: &[u8], seed: u16, filtered: bool) -> (bool, u64) {
    let mut r = if filtered {
        TraceReader::new().with_filter(gc::interest)
    } else {
        TraceReader::new()
    };
    let mut router = ProcessRouter::new();
    let mut delivered = 0u64;
    let mut sink = |info: &gcscope_core::event::TraceInfo, e: &gcscope_core::event::Event<'_>| {
        delivered += 1;
        router.on_event(info, e);
    };
    let mut ch = Chunker::new(seed);
    let mut rest = file;
    let mut res = Ok(());
    while !rest.is_empty() {
        let n = ch.next_len().min(rest.len());
        res = r.push_with_info(&rest[..n], &mut sink);
        assert!(r.buffered_bytes() <= WINDOW_BYTES + MAX_BUFFER as usize + 3 * file.len());
        if res.is_err() {
            break;
        }
        rest = &rest[n..];
    }
    if res.is_ok() {
        res = r.finish_with_info(&mut sink);
    }
    let stats = r.stats();
    if let Err(e) = &res {
        assert!(e.offset <= stats.trace_bytes.max(stats.bytes_in), "{e}");
    }
    assert_eq!(delivered + stats.filtered_events, stats.events);
    let _ = router.processes();
    if let Ok(pid) = router.choose(&gc::ProcessChoice::Auto) {
        let _ = router.finish(pid, Some(stats));
    }
    (res.is_ok(), stats.events)
}

/// One execution: what the `etl` fuzz target runs on each input.
pub fn run(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let (seed, file) = (u16::from_le_bytes([data[0], data[1]]), &data[2..]);
    let whole = decode(file, u16::MAX, false);
    let chunked = decode(file, seed, true);
    assert_eq!(
        whole, chunked,
        "chunking or filtering changed what was read"
    );
}
