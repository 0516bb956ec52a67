//! The GC model on the .NET Framework 4.5.2 ETW traces (machine-wide: the test app and PerfView
//! itself), one model per process through `gc::ProcessRouter`, against references it did not make:
//!
//! * TraceEvent's baseline: the GC count of all processes equals its `COUNT .../GC/Stop` (each GC
//!   once, although .NET Framework writes GCStart twice, as V1 and V2); the first GC/Start lines
//!   (process, count, depth, reason) are the model's rows of that process, generation and trigger
//!   reason equal; the first GC's pause equals the baseline's RestartEEStop minus SuspendEEStart
//!   times of that process;
//! * the runtime's other events: every GC of the test process has its per-heap history (the private
//!   provider's .NET Framework layout) and its generation sizes after the GC equal that GC's
//!   GCHeapStats (a different event, in the public provider).

mod common;

use gcscope_core::clr::{self, ClrEvent};
use gcscope_core::event::Event;
use gcscope_core::gc::{self, GcModel, ProcessRouter};
use gcscope_core::TraceReader;
use std::collections::BTreeMap;

struct Line {
    msec: f64,
    name: String,
    attrs: BTreeMap<String, String>,
}

fn baseline(trace: &str) -> (BTreeMap<String, u64>, Vec<Line>) {
    let shared = common::shared_dir().unwrap();
    let text =
        std::fs::read_to_string(shared.join(format!("traces/perfview/{trace}.baseline.txt")))
            .unwrap();
    let mut counts = BTreeMap::new();
    let mut lines = Vec::new();
    for l in text.lines() {
        let l = l.trim_start_matches('\u{feff}');
        if let Some(c) = l.strip_prefix("COUNT ") {
            let (k, v) = c.rsplit_once(':').unwrap();
            counts.insert(k.to_string(), v.parse().unwrap());
        } else if let Some(e) = l.strip_prefix("EVENT ") {
            let (msec, rest) = e.split_once(": ").unwrap();
            let (name, fields) = rest.split_once(' ').unwrap();
            lines.push(Line {
                msec: msec.replace(',', "").parse().unwrap(),
                name: name.to_string(),
                attrs: fields
                    .split("; ")
                    .filter_map(|kv| kv.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            });
        }
    }
    (counts, lines)
}

/// Each process's GCHeapStats generation sizes (gen0-2, LOH), in order.
type HeapStatsByPid = BTreeMap<u32, Vec<[u64; 4]>>;

/// Every process's model, and each process's GCHeapStats generation sizes in order.
fn models(trace: &str) -> (BTreeMap<u32, GcModel>, HeapStatsByPid) {
    let shared = common::shared_dir().unwrap();
    let bytes = std::fs::read(shared.join(format!("traces/perfview/{trace}.etl.zip"))).unwrap();
    let mut reader = TraceReader::new().with_filter(gc::interest);
    let mut router = ProcessRouter::new();
    let mut heap_stats: HeapStatsByPid = BTreeMap::new();
    let mut sink = |info: &gcscope_core::event::TraceInfo, e: &Event<'_>| {
        router.on_event(info, e);
        if let Some(Ok(ClrEvent::GcHeapStats(h))) = clr::decode(e) {
            heap_stats
                .entry(e.process_id)
                .or_default()
                .push(h.generation_size);
        }
    };
    for chunk in bytes.chunks(1 << 16) {
        reader.push_with_info(chunk, &mut sink).unwrap();
    }
    reader.finish_with_info(&mut sink).unwrap();
    let out = router
        .finish_all(Some(reader.stats()))
        .into_iter()
        .map(|(pid, model, _)| (pid, model))
        .collect();
    (out, heap_stats)
}

#[test]
fn framework_gcs_agree_with_traceevent_and_the_events() {
    if common::shared_dir().is_none() {
        return;
    }
    for trace in ["net.4.5.2.x64", "net.4.5.2.x86"] {
        let (counts, lines) = baseline(trace);
        let (models, heap_stats) = models(trace);
        let stops = counts["Microsoft-Windows-DotNETRuntime/GC/Stop"];
        let ours: u64 = models.values().map(|m| m.gcs.len() as u64).sum();
        assert_eq!(
            ours, stops,
            "{trace}: GCs of all processes vs GC/Stop lines"
        );
        for m in models.values() {
            assert!(m.gcs.iter().all(|g| g.complete), "{trace}: incomplete GC");
            assert!(
                !m.notes.iter().any(|n| n.contains("second GCStart")),
                "{trace}: the V1/V2 GCStart pair is one GC: {:?}",
                m.notes
            );
        }
        // The first GC/Start lines: the same GC in the model of that process.
        let mut starts = 0;
        for l in lines
            .iter()
            .filter(|l| l.name == "Microsoft-Windows-DotNETRuntime/GC/Start")
        {
            let pid: u32 = l.attrs["PID"].parse().unwrap();
            let number: u32 = l.attrs["Count"].parse().unwrap();
            let m = &models[&pid];
            let g = m.gcs.iter().find(|g| g.number == number).unwrap();
            assert_eq!(g.gen.to_string(), l.attrs["Depth"], "{trace} GC {number}");
            assert_eq!(g.reason, l.attrs["Reason"], "{trace} GC {number}");
            starts += 1;
        }
        assert!(starts >= 5, "{trace}: {starts} GC/Start lines");
        // The first GC's pause: from its process's first SuspendEEStart to its first RestartEEStop.
        let test_pid = models
            .iter()
            .max_by_key(|(_, m)| m.gcs.len())
            .map(|(p, _)| *p)
            .unwrap();
        let first = |name: &str| {
            lines
                .iter()
                .find(|l| {
                    l.name == format!("Microsoft-Windows-DotNETRuntime/GC/{name}")
                        && l.attrs["PID"] == test_pid.to_string()
                })
                .map(|l| l.msec)
                .unwrap()
        };
        let pause = first("RestartEEStop") - first("SuspendEEStart");
        let g1 = &models[&test_pid].gcs[0];
        assert!(
            (g1.pause_ms.unwrap() - pause).abs() < 0.0011,
            "{trace}: first pause {:?} vs baseline {pause}",
            g1.pause_ms
        );
        // Per-heap histories (private provider, .NET Framework layout) against GCHeapStats.
        let stats = &heap_stats[&test_pid];
        let m = &models[&test_pid];
        assert_eq!(stats.len(), m.gcs.len(), "{trace}: one GCHeapStats per GC");
        for (g, hs) in m.gcs.iter().zip(stats) {
            assert_eq!(
                g.heaps.len(),
                1,
                "{trace} GC {}: per-heap history",
                g.number
            );
            let h = &g.heaps[0];
            for (gen, &size) in hs.iter().enumerate() {
                assert_eq!(
                    h.generations[gen].size_after_bytes, size,
                    "{trace} GC {} gen {gen}: per-heap SizeAfter vs GCHeapStats",
                    g.number
                );
            }
            assert_eq!(
                h.condemn.final_gen as u32, g.gen as u32,
                "{trace} GC {}",
                g.number
            );
        }
        eprintln!(
            "{trace}: {ours} GCs in {} processes, first pause {pause:.3} ms, {} per-heap histories checked",
            models.len(),
            stats.len()
        );
    }
}
