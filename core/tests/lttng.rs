//! LTTng traces (perfcollect `.trace.zip`, CTF 1.8) against what an independent reader found
//! (`../shared/traces/lttng/README.md`, cross-checked with babeltrace): the events per name, the
//! processes and their GC counts, no lost events, and every packet's bytes accounted for.
//! Skips without `../shared`.

mod common;

use gcscope_core::clr::{self, ClrEvent};
use gcscope_core::gc::ProcessRouter;
use gcscope_core::TraceReader;
use std::collections::BTreeMap;

struct Read {
    by_name: BTreeMap<String, u64>,
    events: u64,
    runtime_events: u64,
    lost: u64,
    packets: (u64, u64),
    /// Per process: (name, GCs in the model).
    processes: BTreeMap<u32, (Option<String>, u32)>,
    /// Per process: GCStart counts in order.
    starts: BTreeMap<u32, Vec<u32>>,
    /// Timestamps were non-decreasing.
    ordered: bool,
    pointer_size: u8,
}

fn read(file: &str) -> Option<Read> {
    let shared = common::shared_dir()?;
    let path = shared.join("traces/lttng").join(file);
    if !path.is_file() {
        eprintln!("skipping: {} not found", path.display());
        return None;
    }
    let bytes = std::fs::read(path).unwrap();
    let mut r = TraceReader::new();
    let mut router = ProcessRouter::models_only();
    let mut by_name = BTreeMap::new();
    let mut starts: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut last = i64::MIN;
    let mut ordered = true;
    let mut pointer_size = 0;
    let mut sink = |info: &gcscope_core::event::TraceInfo, e: &gcscope_core::event::Event<'_>| {
        router.on_event(info, e);
        if e.provider == gcscope_core::ctf::PROCESS_NAME_PROVIDER {
            return;
        }
        ordered &= e.timestamp >= last;
        last = e.timestamp;
        pointer_size = e.pointer_size;
        *by_name
            .entry(format!("{}/{}", e.provider, e.name))
            .or_insert(0u64) += 1;
        if let Some(Ok(ClrEvent::GcStart(s))) = clr::decode(e) {
            starts.entry(e.process_id).or_default().push(s.count);
        }
    };
    // Chunks of an odd size: entries and packets straddle them.
    for c in bytes.chunks(7919) {
        r.push_with_info(c, &mut sink).unwrap();
    }
    let done = r.finish_with_info(&mut sink);
    let ctf = r.ctf().unwrap();
    let out = Read {
        by_name,
        events: r.stats().events,
        runtime_events: ctf.runtime_events(),
        lost: r.stats().dropped_events,
        packets: ctf.packets(),
        processes: BTreeMap::new(),
        starts,
        ordered,
        pointer_size,
    };
    done.unwrap();
    let mut out = out;
    for p in router.all_processes(100).dotnet {
        out.processes
            .insert(p.process_id, (p.name.clone(), p.gc_count));
    }
    Some(out)
}

const RT: &str = "Microsoft-Windows-DotNETRuntime";

#[test]
fn clr_only_counts_match_the_readme() {
    let Some(r) = read("clr-only.trace.zip") else {
        return;
    };
    assert_eq!(r.events, 32_762);
    assert!(r.ordered, "events out of time order");
    assert_eq!(r.lost, 0);
    assert_eq!(r.pointer_size, 8);
    let (packets, exact) = r.packets;
    assert!(packets > 0);
    assert_eq!(
        exact, packets,
        "a packet's events do not add up to its content size"
    );
    for (name, n) in [
        ("GC/Start", 11),
        ("GC/Stop", 11),
        ("GC/HeapStats", 11),
        ("GC/SuspendEEStart", 11),
        ("GC/RestartEEStop", 11),
        ("GC/Triggered", 11),
        ("GC/PerHeapHistory", 11),
        ("GC/GlobalHeapHistory", 11),
        ("GC/CreateSegment", 6),
        ("GC/MarkWithType", 43),
    ] {
        assert_eq!(r.by_name.get(&format!("{RT}/{name}")), Some(&n), "{name}");
    }
    assert_eq!(
        r.by_name
            .get("Microsoft-Windows-DotNETRuntimePrivate/GC/PinPlugAtGCTime"),
        Some(&8)
    );
    assert!(r.runtime_events > 0);
    // Three processes: dotnet 5747 (3 GCs), dotnet 5767 (8 GCs), emptyconsole 5794 (none).
    let gcs = |pid: u32| r.processes.get(&pid).map(|p| p.1);
    assert_eq!(gcs(5747), Some(3));
    assert_eq!(gcs(5767), Some(8));
    assert_eq!(
        r.processes.get(&5747).and_then(|p| p.0.as_deref()),
        Some("dotnet")
    );
    assert_eq!(
        r.processes.get(&5794).and_then(|p| p.0.as_deref()),
        Some("emptyconsole")
    );
    // GCStart's Count runs on by one in each process.
    for (pid, counts) in &r.starts {
        assert!(
            counts.windows(2).all(|w| w[1] == w[0] + 1),
            "process {pid}: GC counts {counts:?}"
        );
    }
}

#[test]
fn netcoreapp31_counts_match_the_readme() {
    let Some(r) = read("netcoreapp31.trace.zip") else {
        return;
    };
    assert_eq!(r.events, 66);
    assert!(r.ordered);
    assert_eq!(r.lost, 0);
    let (packets, exact) = r.packets;
    assert_eq!(exact, packets);
    assert_eq!(r.by_name.get(&format!("{RT}/GC/AllocationTick")), Some(&1));
    assert_eq!(r.by_name.get(&format!("{RT}/GC/CreateSegment")), Some(&2));
    assert_eq!(r.by_name.get(&format!("{RT}/GC/Start")), None);
    assert!(r.processes.keys().all(|&p| p == 27661), "{:?}", r.processes);
    assert_eq!(
        r.processes.get(&27661).and_then(|p| p.0.as_deref()),
        Some("app")
    );
}
