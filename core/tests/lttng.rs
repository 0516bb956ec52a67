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

/// A .zip entry as its central directory gives it: name, method, compressed bytes.
struct ZipEntry {
    name: String,
    method: u16,
    data: Vec<u8>,
}

/// The archive's entries, from its central directory (the test's own reading of the format).
fn zip_entries(zip: &[u8]) -> Vec<ZipEntry> {
    let le16 = |at: usize| u16::from_le_bytes([zip[at], zip[at + 1]]) as usize;
    let le32 = |at: usize| u32::from_le_bytes(zip[at..at + 4].try_into().unwrap()) as usize;
    let eocd = (0..zip.len() - 21)
        .rev()
        .find(|&i| zip[i..i + 4] == [0x50, 0x4b, 5, 6])
        .expect("end of central directory");
    let (count, mut at) = (le16(eocd + 10), le32(eocd + 16));
    let mut out = Vec::new();
    for _ in 0..count {
        assert_eq!(le32(at), 0x0201_4b50, "central header");
        let (method, csize) = (le16(at + 10) as u16, le32(at + 20));
        let (n, m, k) = (le16(at + 28), le16(at + 30), le16(at + 32));
        let name = String::from_utf8_lossy(&zip[at + 46..at + 46 + n]).into_owned();
        let local = le32(at + 42);
        let start = local + 30 + le16(local + 26) + le16(local + 28);
        out.push(ZipEntry {
            name,
            method,
            data: zip[start..start + csize].to_vec(),
        });
        at += 46 + n + m + k;
    }
    out
}

fn contents(e: &ZipEntry) -> Vec<u8> {
    match e.method {
        0 => e.data.clone(),
        8 => miniz_oxide::inflate::decompress_to_vec(&e.data).unwrap(),
        m => panic!("method {m}"),
    }
}

/// Memory: the reader holds the user-space trace's entries as the .zip stores them (compressed),
/// never the kernel trace's, and while merging each stream's window holds about one packet
/// (the largest packet by LTTng's own `.idx` packet indexes, plus the header lookahead and one
/// inflate step).
#[test]
fn entries_are_held_compressed_and_streams_a_packet_at_a_time() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for file in ["clr-only.trace.zip", "netcoreapp31.trace.zip"] {
        let path = shared.join("traces/lttng").join(file);
        let Ok(zip) = std::fs::read(&path) else {
            eprintln!("skipping: {} not found", path.display());
            continue;
        };
        let entries = zip_entries(&zip);
        let ust = |e: &&ZipEntry| e.name.contains("/ust/") && !e.name.ends_with('/');
        let ctf_entry = |e: &&ZipEntry| gcscope_core::ctf::is_ctf_entry(&e.name);
        let held: usize = entries
            .iter()
            .filter(ust)
            .filter(ctf_entry)
            .map(|e| e.data.len())
            .sum();
        let inflated: usize = entries
            .iter()
            .filter(ust)
            .filter(ctf_entry)
            .map(|e| contents(e).len())
            .sum();
        // The `.idx` files: a 16-byte header (magic, version, entry length), then per packet its
        // offset, packet size and content size in bits (big-endian).
        let mut largest = Vec::new();
        for e in entries
            .iter()
            .filter(ust)
            .filter(|e| e.name.ends_with(".idx"))
        {
            let idx = contents(e);
            assert_eq!(idx[..4], [0xc1, 0xf1, 0xdc, 0xc1], "{}", e.name);
            let len = u32::from_be_bytes(idx[12..16].try_into().unwrap()) as usize;
            let max = idx[16..]
                .chunks_exact(len)
                .map(|p| u64::from_be_bytes(p[8..16].try_into().unwrap()) / 8)
                .max()
                .unwrap();
            largest.push(max as usize);
        }
        assert!(!largest.is_empty());

        let mut r = TraceReader::new();
        for c in zip.chunks(7919) {
            r.push(c, &mut |_| {}).unwrap();
        }
        assert_eq!(r.buffered_bytes(), held, "{file}: held as stored");
        r.finish(&mut |_| {}).unwrap();
        let ctf = r.ctf().unwrap();
        assert_eq!(ctf.stream_bytes(), r.stats().trace_bytes);
        assert!(
            ctf.skipped_bytes() > 0,
            "{file}: the kernel trace is passed over"
        );
        let bound: usize = largest.iter().map(|p| p + 64 * 1024 + (1 << 20)).sum();
        eprintln!(
            "{file}: held {held} B (inflated {inflated} B), windows at most {} B, bound {bound} B",
            ctf.window_peak()
        );
        assert!(
            ctf.window_peak() <= bound,
            "{file}: windows {}",
            ctf.window_peak()
        );
        assert!(ctf.window_peak() >= largest.iter().sum::<usize>().min(inflated) / 2);
    }
}
