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
//!   GCHeapStats (a different event, in the public provider);
//! * the GC mode TraceEvent's own lines say (GC/Settings' ServerGC, Runtime/Start's StartupFlags)
//!   for every process, every per-heap history heap 0 (workstation), and the process's pointer
//!   size from the length of its per-heap history lines.

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

/// What TraceEvent's baseline says about a process's GC: server GC (GC/Settings' ServerGC, or
/// SERVER_GC in any Runtime/Start's StartupFlags), or workstation when those lines exist without
/// it; None when the baseline has neither line for the process.
fn baseline_gc_mode(lines: &[Line], pid: u32) -> Option<&'static str> {
    let mut seen = false;
    let mut server = false;
    let pid = pid.to_string();
    for l in lines.iter().filter(|l| l.attrs.get("PID") == Some(&pid)) {
        if l.name == "Microsoft-Windows-DotNETRuntimePrivate/GC/Settings" {
            seen = true;
            server |= l.attrs["ServerGC"] == "True";
        } else if l.name.ends_with("/Runtime/Start") {
            seen = true;
            // Named flags, or a number where TraceEvent knows not every bit (SERVER_GC: 0x1000).
            let flags = &l.attrs["StartupFlags"];
            server |=
                flags.contains("SERVER_GC") || flags.parse::<u32>().is_ok_and(|f| f & 0x1000 != 0);
        }
    }
    seen.then_some(if server { "server" } else { "workstation" })
}

#[test]
fn framework_gc_mode_and_pointer_size_agree_with_traceevent() {
    if common::shared_dir().is_none() {
        return;
    }
    let mut checked = 0;
    for trace in ["net.4.5.2.x64", "net.4.5.2.x86"] {
        let (_, lines) = baseline(trace);
        let (models, _) = models(trace);
        for (&pid, m) in &models {
            let p = &m.process;
            let want = baseline_gc_mode(&lines, pid)
                .unwrap_or_else(|| panic!("{trace} pid {pid}: no GC/Settings or Runtime/Start"));
            assert_eq!(p.gc_mode.as_deref(), Some(want), "{trace} pid {pid}");
            // Every GC's per-heap history is heap 0 and says 1 heap, as workstation GC has.
            assert_eq!(p.heap_count, Some(1), "{trace} pid {pid}");
            assert!(
                m.gcs.iter().flat_map(|g| &g.heaps).all(|h| h.heap == 0),
                "{trace} pid {pid}: a per-heap history of heap {:?}",
                m.gcs.iter().flat_map(|g| &g.heaps).map(|h| h.heap).max()
            );
            // .NET Framework (Runtime/Start's Sku DesktopClr): segments, no DATAS.
            assert_eq!((p.regions, p.datas), (Some(false), Some(false)));
            // The process's pointer size, from the length of its private GC/PerHeapHistory lines
            // (50 pointers + 33 bytes), where the baseline has one.
            if let Some(l) = lines.iter().find(|l| {
                l.name == "Microsoft-Windows-DotNETRuntimePrivate/GC/PerHeapHistory"
                    && l.attrs.get("PID") == Some(&pid.to_string())
            }) {
                let len: usize = l.attrs["DataLen"].parse().unwrap();
                assert_eq!(
                    p.pointer_size as usize,
                    (len - 33) / 50,
                    "{trace} pid {pid}"
                );
            }
            checked += 1;
        }
    }
    // Test.x64 and PerfView in the x64 trace, Test.x86 in the x86 one.
    assert_eq!(checked, 3);
    // A .NET 8 process (StartupFlags without SERVER_GC, as a number: 0x800003).
    let (_, lines) = baseline("gcevents");
    let (models, _) = models("gcevents");
    assert_eq!(models.len(), 1);
    for (&pid, m) in &models {
        let want = baseline_gc_mode(&lines, pid);
        assert_eq!(m.process.gc_mode.as_deref(), want, "gcevents pid {pid}");
        assert_eq!(want, Some("workstation"));
    }
}

/// Every process of the trace, for the page that says what a trace without GCs holds: the kernel
/// names each process once (TraceEvent's counts: one Process/DCStart per process alive at the
/// rundown, a Process/Start per process started while tracing, a Process/Defunct per zombie), the
/// .NET processes are the ones that wrote runtime events, and the first named ones are the ones the
/// baseline's first DCStart lines show. `finish_parts` gives each model as `finish_all` does, in
/// any order (the first process taken must not change how the others' counts are read).
#[test]
fn every_process_of_a_machine_wide_trace() {
    if common::shared_dir().is_none() {
        return;
    }
    for trace in ["net.4.5.2.x64", "net.4.5.2.x86"] {
        let (counts, lines) = baseline(trace);
        let shared = common::shared_dir().unwrap();
        let bytes = std::fs::read(shared.join(format!("traces/perfview/{trace}.etl.zip"))).unwrap();
        let read = || {
            let mut reader = TraceReader::new().with_filter(gc::interest);
            let mut router = ProcessRouter::bounded();
            reader
                .push_with_info(&bytes, &mut |i, e| router.on_event(i, e))
                .unwrap();
            reader
                .finish_with_info(&mut |i, e| router.on_event(i, e))
                .unwrap();
            (reader, router)
        };
        let (reader, mut router) = read();
        let kernel = |name: &str| {
            counts
                .get(&format!("Windows Kernel/Process/{name}"))
                .copied()
        };
        let named = kernel("DCStart").unwrap()
            + kernel("Start").unwrap_or(0)
            + kernel("Defunct").unwrap_or(0);
        let all = router.all_processes(usize::MAX);
        assert_eq!(
            (all.dotnet_count + all.other_count) as u64,
            named,
            "{trace}: processes"
        );
        // The .NET processes: every one with GC events, and those are the ones with GC/Start lines.
        let with_gcs: Vec<u32> = router.processes().iter().map(|p| p.process_id).collect();
        let dotnet: Vec<u32> = all.dotnet.iter().map(|p| p.process_id).collect();
        assert!(with_gcs.iter().all(|p| dotnet.contains(p)), "{trace}");
        for l in lines
            .iter()
            .filter(|l| l.name == "Microsoft-Windows-DotNETRuntime/GC/Start")
        {
            assert!(
                with_gcs.contains(&l.attrs["PID"].parse().unwrap()),
                "{trace}"
            );
        }
        assert!(all.others.iter().all(|p| !dotnet.contains(&p.process_id)));
        for l in lines
            .iter()
            .filter(|l| l.name == "Windows Kernel/Process/DCStart")
        {
            let pid: u32 = l.attrs["ProcessID"].parse().unwrap();
            let p = all
                .dotnet
                .iter()
                .chain(&all.others)
                .find(|p| p.process_id == pid)
                .unwrap_or_else(|| panic!("{trace}: pid {pid} not listed"));
            assert_eq!(
                p.name.as_deref(),
                Some(l.attrs["PName"].as_str()),
                "{trace}"
            );
        }
        let limited = router.all_processes(3);
        assert_eq!(
            (limited.dotnet.len().min(3), limited.others.len()),
            (all.dotnet.len().min(3), 3)
        );
        assert_eq!(limited.other_count, all.other_count);
        // finish_parts, the least paused process first, equals finish_all.
        let whole: BTreeMap<u32, GcModel> = read()
            .1
            .finish_all(Some(reader.stats()))
            .into_iter()
            .map(|(pid, m, _)| (pid, m))
            .collect();
        for pid in with_gcs.iter().rev() {
            let (m, _) = router.finish_parts(*pid, Some(reader.stats())).unwrap();
            assert_eq!(&m, &whole[pid], "{trace}: pid {pid}");
        }
        assert!(
            router.finish_parts(with_gcs[0], None).is_none(),
            "taken once"
        );
    }
}
