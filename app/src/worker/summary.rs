//! The trace facts the worker reports beside the GC model: the header's, and how many events of each
//! kind there were. Nothing here runs per event: the reader counts every event (delivered or skipped
//! by its filter) per metadata entry, and this reads its counts once at the end. Plain Rust (no
//! browser types), so it is unit-tested natively.

use std::collections::BTreeMap;

use gcscope_core::clr::names::RUNTIME_PROVIDER;
use gcscope_core::reader::TraceReader;

use crate::protocol::processes::EtlFacts;
use crate::protocol::Analysis;

/// The analysis of what `reader` has read so far (the model and timings are filled in by the caller).
pub fn summarize(reader: &TraceReader, file_name: &str, file_size: f64) -> Analysis {
    // Several metadata entries may share a provider and name (versions, V6 redefinitions).
    let mut counts: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    for c in reader.event_counts() {
        *counts.entry((c.provider, c.name)).or_insert(0) += c.count;
    }
    let gc_starts = counts
        .get(&(RUNTIME_PROVIDER, "GC/Start"))
        .copied()
        .unwrap_or(0);
    let event_counts = counts
        .into_iter()
        .map(|((provider, name), n)| {
            let key = if name.is_empty() {
                provider.to_string()
            } else {
                format!("{provider}/{name}")
            };
            (key, n as f64)
        })
        .collect();
    let info = reader.info();
    let stats = reader.stats();
    Analysis {
        file_name: file_name.to_string(),
        file_size,
        format: info.map(|i| i.format.clone()).unwrap_or_default(),
        pointer_size: info.map(|i| i.pointer_size).unwrap_or(0),
        process_id: info.map(|i| i.process_id).unwrap_or(0),
        processor_count: info.map(|i| i.processor_count).unwrap_or(0),
        duration_ms: stats.last_event_ms.unwrap_or(0.0).max(0.0),
        events: stats.events as f64,
        decode_ms: 0.0,
        event_counts,
        gc_starts: gc_starts as f64,
        model: None,
        error: None,
        trace_entries: Vec::new(),
        entry: 0,
        workers: 1,
        part_bytes: 0.0,
        waited_ms: 0.0,
        one_worker: None,
        insight_inputs: None,
        insights: None,
        processes: None,
        etl: etl_facts(reader),
    }
}

/// An .etl file's facts: its logfile header's (compressed, buffer size, what the session lost)
/// and the decoder's counts. `None` for other formats.
pub fn etl_facts(reader: &TraceReader) -> Option<EtlFacts> {
    let etl = reader.etl()?;
    let h = etl.logfile_header()?;
    let stats = reader.stats();
    Some(EtlFacts {
        compressed: h.log_file_mode & gcscope_core::etl::logfile::COMPRESSED_MODE != 0,
        buffer_size: h.buffer_size,
        buffers: stats.blocks,
        events_lost: h.events_lost as u64,
        buffers_lost: h.buffers_lost as u64,
        out_of_order_events: stats.out_of_order_events,
        skipped_events: stats.skipped_events,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_core::encode::etl::{EtlEvent, EtlWriter, Options};
    use gcscope_core::event::Event;

    /// An .etl of `n` runtime events over 2 processors, as the writer lays it out.
    fn etl(n: u32, opts: Options) -> Vec<u8> {
        let mut w = EtlWriter::new(opts);
        for i in 0..n {
            w.event(
                i % 2,
                &EtlEvent {
                    provider: gcscope_core::etl::names::RUNTIME_GUID,
                    id: 187,
                    version: 0,
                    opcode: 0,
                    task: 0,
                    process_id: 10,
                    thread_id: 1,
                    timestamp: opts.header_timestamp + 10 + i as i64,
                    pointer_size: 8,
                    extended: &[],
                    payload: &[7; 200],
                },
            );
        }
        w.finish()
    }

    /// The facts the writer put in: the logfile header's mode, buffer size and lost events; the
    /// buffers of a plain file are its length over the buffer size.
    #[test]
    fn etl_facts_are_the_files_own() {
        for compressed in [false, true] {
            let opts = Options {
                compressed,
                events_lost: 7,
                processors: 2,
                buffer_size: 16 * 1024,
                ..Options::default()
            };
            let bytes = etl(2000, opts);
            let mut r = TraceReader::new();
            r.push(&bytes, &mut |_| {}).unwrap();
            r.finish(&mut |_| {}).unwrap();
            let f = summarize(&r, "t.etl", bytes.len() as f64).etl.unwrap();
            assert_eq!(f.compressed, compressed);
            assert_eq!(
                (f.buffer_size, f.events_lost, f.buffers_lost),
                (16 * 1024, 7, 0)
            );
            assert!(f.lost_anything());
            if !compressed {
                assert_eq!(f.buffers, bytes.len() as u64 / (16 * 1024));
            } else {
                assert!(bytes.len() < 2000 * 200, "compressed");
            }
            assert_eq!((f.out_of_order_events, f.skipped_events), (0, 0));
        }
        // Other formats have none.
        let dir = env!("CARGO_MANIFEST_DIR");
        let bytes = std::fs::read(format!(
            "{dir}/../static/samples/net8-wks-concurrent.nettrace"
        ))
        .unwrap();
        let mut r = TraceReader::new();
        r.push(&bytes, &mut |_| {}).unwrap();
        assert_eq!(summarize(&r, "t", 0.0).etl, None);
    }

    /// The same counts taken independently, per delivered event: counts by provider and name, GC
    /// starts of the runtime provider only, the latest event time.
    fn per_event(bytes: &[u8]) -> (BTreeMap<String, f64>, f64, f64, f64) {
        let mut counts = BTreeMap::new();
        let (mut events, mut gc_starts, mut last) = (0.0, 0.0, 0.0f64);
        let mut sink = |e: &Event<'_>| {
            events += 1.0;
            last = last.max(e.time_ms);
            if e.provider == RUNTIME_PROVIDER && e.name == "GC/Start" {
                gc_starts += 1.0;
            }
            *counts
                .entry(format!("{}/{}", e.provider, e.name))
                .or_insert(0.0) += 1.0;
        };
        let mut r = TraceReader::new();
        r.push(bytes, &mut sink).expect("decode");
        r.finish(&mut sink).expect("finish");
        (counts, events, gc_starts, last)
    }

    #[test]
    fn counts_come_from_the_reader_with_or_without_the_gc_filter() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
        let (mut checked, mut filtered) = (0, 0);
        for sub in std::fs::read_dir(&dir).expect("fixtures/traces").flatten() {
            for f in std::fs::read_dir(sub.path())
                .expect("fixture dir")
                .flatten()
            {
                let path = f.path();
                if path.extension().is_none_or(|e| e != "nettrace") {
                    continue;
                }
                let bytes = std::fs::read(&path).expect("read fixture");
                let (counts, events, gc_starts, last) = per_event(&bytes);
                assert!(gc_starts > 0.0, "{}: no GCs", path.display());
                for filter in [false, true] {
                    let mut r = TraceReader::new();
                    if filter {
                        r.set_filter(gcscope_core::gc::interest);
                    }
                    let mut delivered = 0u64;
                    r.push(&bytes, &mut |_| delivered += 1).expect("decode");
                    r.finish(&mut |_| delivered += 1).expect("finish");
                    let a = summarize(&r, "t.nettrace", bytes.len() as f64);
                    let got: BTreeMap<String, f64> = a.event_counts.iter().cloned().collect();
                    assert_eq!(got, counts, "{}", path.display());
                    assert_eq!(a.event_counts.len(), counts.len(), "keys are unique");
                    assert_eq!(a.events, events);
                    assert_eq!(a.gc_starts, gc_starts);
                    assert_eq!(a.duration_ms, last);
                    if filter {
                        filtered += a.events as u64 - delivered;
                    }
                }
                checked += 1;
            }
        }
        assert!(checked >= 5);
        assert!(
            filtered > 0,
            "the filter skipped nothing: the test would not test it"
        );
    }
}
