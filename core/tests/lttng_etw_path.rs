//! The CTF reader rebuilds each runtime event's payload in the ETW layout, so an LTTng trace's GCs
//! must be what the same payloads give through the ETW path. Each .NET process of the reference
//! perfcollect traces is relogged, event by event (provider, id, version, thread, timestamp and
//! payload as the CTF reader gave them), into an .etl by the test-only writer; both files are
//! read by the reader and modelled, and every GC row of the two models must be equal. Skips
//! without `../shared`.
#![cfg(feature = "encode")]

mod common;

use gcscope_core::encode::etl::{from_events, Options};
use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::gc::ProcessRouter;
use gcscope_core::TraceReader;
use std::collections::BTreeMap;

/// One delivered event, owned.
struct Owned {
    provider: String,
    name: String,
    event_id: u32,
    version: u32,
    timestamp: i64,
    process_id: u32,
    thread_id: u64,
    pointer_size: u8,
    payload: Vec<u8>,
}

fn models(bytes: &[u8]) -> (TraceInfo, BTreeMap<u32, serde_json::Value>, Vec<Owned>) {
    let mut r = TraceReader::new();
    let mut router = ProcessRouter::models_only();
    let mut events = Vec::new();
    let mut info = None;
    let mut sink = |i: &TraceInfo, e: &Event<'_>| {
        router.on_event(i, e);
        info.get_or_insert_with(|| i.clone());
        events.push(Owned {
            provider: e.provider.to_string(),
            name: e.name.to_string(),
            event_id: e.event_id,
            version: e.version,
            timestamp: e.timestamp,
            process_id: e.process_id,
            thread_id: e.thread_id,
            pointer_size: e.pointer_size,
            payload: e.payload.to_vec(),
        });
    };
    r.push_with_info(bytes, &mut sink).unwrap();
    r.finish_with_info(&mut sink).unwrap();
    let gcs = router
        .finish_all(Some(r.stats()))
        .into_iter()
        .map(|(pid, m, _)| (pid, serde_json::to_value(&m.gcs).unwrap()))
        .collect();
    (info.unwrap(), gcs, events)
}

#[test]
fn each_gc_equals_the_same_payloads_read_as_etw() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut compared = 0;
    for file in ["clr-only.trace.zip", "netcoreapp31.trace.zip"] {
        let path = shared.join("traces/lttng").join(file);
        let Ok(zip) = std::fs::read(&path) else {
            eprintln!("skipping: {} not found", path.display());
            continue;
        };
        let (info, ctf, events) = models(&zip);
        for (pid, gcs) in &ctf {
            let n = gcs.as_array().map_or(0, |a| a.len());
            if n == 0 {
                continue;
            }
            let opts = Options {
                perf_freq: info.qpc_frequency,
                header_timestamp: info.sync_time_qpc,
                pointer_size: info.pointer_size,
                ..Options::default()
            };
            let etl = from_events(
                opts,
                *pid,
                events
                    .iter()
                    // An ETW record's size is 16 bits: LTTng's largest events (over 64 KiB)
                    // have no ETW form, and no GC figure comes from them.
                    .filter(|e| e.process_id == *pid && e.payload.len() < 60_000)
                    .map(|e| Event {
                        provider: &e.provider,
                        event_id: e.event_id,
                        version: e.version,
                        name: &e.name,
                        timestamp: e.timestamp,
                        time_ms: 0.0,
                        process_id: e.process_id,
                        thread_id: e.thread_id,
                        capture_thread_id: e.thread_id,
                        sequence: 0,
                        processor: 0,
                        stack_id: 0,
                        stack: 0,
                        pointer_size: e.pointer_size,
                        payload: &e.payload,
                        ticks: None,
                    }),
            );
            let (_, etw, _) = models(&etl);
            let etw_gcs = etw.get(pid).expect("the relogged process");
            assert_eq!(
                etw_gcs.as_array().map_or(0, |a| a.len()),
                n,
                "{file}: process {pid}'s GC count"
            );
            for (i, (a, b)) in gcs
                .as_array()
                .unwrap()
                .iter()
                .zip(etw_gcs.as_array().unwrap())
                .enumerate()
            {
                assert_eq!(a, b, "{file}: process {pid}, GC row {i}");
            }
            compared += n;
        }
    }
    if common::shared_dir().is_some() {
        assert!(compared > 0, "no GC compared");
        eprintln!("{compared} GCs equal through both paths");
    }
}
