//! CTF (LTTng) traces written byte by byte here, from the CTF 1.8 layout: the compact event header
//! (5-bit id, 27-bit timestamp, little-endian bit order) and its wrap, extended ids, packed and
//! string payloads, `events_discarded`, packetized metadata; then every truncation and many
//! corruptions of such a trace, which must end in an error or a result, never a panic.

mod common;

use gcscope_core::clr::{self, ClrEvent};
use gcscope_core::event::Event;
use gcscope_core::TraceReader;

const METADATA: &str = r#"/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 8; signed = false; } := unsigned long;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
trace {
	major = 1; minor = 8; byte_order = le;
	packet.header := struct { uint32_t magic; uint32_t stream_id; };
};
env { domain = "ust"; tracer_name = "lttng-ust"; };
clock { name = "monotonic"; freq = 1000000000; offset = 1600000000000000000; };
typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_monotonic_t;
typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;
struct packet_context {
	uint64_clock_monotonic_t timestamp_begin;
	uint64_clock_monotonic_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
	unsigned long events_discarded;
	uint32_t cpu_id;
};
struct event_header_compact {
	enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
	variant <id> {
		struct { uint27_clock_monotonic_t timestamp; } compact;
		struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended;
	} v;
} align(8);
stream {
	id = 0;
	event.header := struct event_header_compact;
	packet.context := struct packet_context;
	event.context := struct {
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vpid;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vtid;
		integer { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } _procname[17];
	};
};
event {
	name = "DotNETRuntime:GCStart_V2"; id = 0; stream_id = 0;
	fields := struct {
		uint32_t _Count; uint32_t _Depth; uint32_t _Reason; uint32_t _Type;
		uint16_t _ClrInstanceID; uint64_t _ClientSequenceNumber;
	};
};
event {
	name = "DotNETRuntime:GCAllocationTick_V3"; id = 1; stream_id = 0;
	fields := struct {
		uint32_t _AllocationAmount; uint32_t _AllocationKind; uint16_t _ClrInstanceID;
		uint64_t _AllocationAmount64; uint64_t _TypeID; string _TypeName;
		uint32_t _HeapIndex; uint64_t _Address;
	};
};
event {
	name = "DotNETRuntime:GCHeapStats_V1"; id = 40; stream_id = 0;
	fields := struct {
		uint32_t _length;
		uint32_t ____data___length;
		integer { size = 8; align = 8; signed = 1; encoding = none; base = 10; } ___data__[ ____data___length ];
	};
};
"#;

const PID: u32 = 4242;

/// The compact header of event `id` (< 31) at clock low bits `ts`: id in the low 5 bits.
fn compact(id: u32, ts: u32) -> Vec<u8> {
    (id | (ts & 0x7ff_ffff) << 5).to_le_bytes().to_vec()
}

/// The extended header: id 31 in 5 bits, then (byte-aligned) the 32-bit id and 64-bit clock.
fn extended(id: u32, ts: u64) -> Vec<u8> {
    let mut v = vec![31u8];
    v.extend_from_slice(&id.to_le_bytes());
    v.extend_from_slice(&ts.to_le_bytes());
    v
}

fn context(tid: u32, name: &str) -> Vec<u8> {
    let mut v = PID.to_le_bytes().to_vec();
    v.extend_from_slice(&tid.to_le_bytes());
    let mut n = [0u8; 17];
    n[..name.len()].copy_from_slice(name.as_bytes());
    v.extend_from_slice(&n);
    v
}

fn gc_start(count: u32) -> Vec<u8> {
    let mut v = Vec::new();
    for x in [count, 0, 1, 0] {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.extend_from_slice(&7u16.to_le_bytes());
    v.extend_from_slice(&99u64.to_le_bytes());
    v
}

/// GCHeapStats V1's ETW payload, as the runtime packs it.
fn heap_stats_blob() -> Vec<u8> {
    let mut v = Vec::new();
    // Generation sizes and promoted bytes (gen0-2, LOH), finalization-promoted size and count.
    for x in [1000u64, 0, 2000, 0, 3000, 0, 4000, 0, 5000, 6] {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.extend_from_slice(&2u32.to_le_bytes()); // PinnedObjectCount
    v.extend_from_slice(&3u32.to_le_bytes()); // SinkBlockCount
    v.extend_from_slice(&4u32.to_le_bytes()); // GCHandleCount
    v.extend_from_slice(&7u16.to_le_bytes()); // ClrInstanceID
    v
}

fn packed(blob: &[u8]) -> Vec<u8> {
    let mut v = (blob.len() as u32).to_le_bytes().to_vec();
    v.extend_from_slice(&(blob.len() as u32).to_le_bytes());
    v.extend_from_slice(blob);
    v
}

fn tick(name: &str) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&100_000u32.to_le_bytes());
    v.extend_from_slice(&0u32.to_le_bytes());
    v.extend_from_slice(&7u16.to_le_bytes());
    v.extend_from_slice(&100_000u64.to_le_bytes());
    v.extend_from_slice(&0x1234u64.to_le_bytes());
    v.extend_from_slice(name.as_bytes());
    v.push(0);
    v.extend_from_slice(&0u32.to_le_bytes());
    v.extend_from_slice(&0x5678u64.to_le_bytes());
    v
}

/// One packet: header, context, then `events` (each header + context + fields), padded to a
/// multiple of 64 bytes.
fn packet(begin: u64, end: u64, discarded: u64, cpu: u32, events: &[Vec<u8>]) -> Vec<u8> {
    let body: Vec<u8> = events.concat();
    let content = 8 + 44 + body.len();
    let size = content.div_ceil(64) * 64;
    let mut p = Vec::new();
    p.extend_from_slice(&0xC1FC_1FC1u32.to_le_bytes());
    p.extend_from_slice(&0u32.to_le_bytes());
    p.extend_from_slice(&begin.to_le_bytes());
    p.extend_from_slice(&end.to_le_bytes());
    p.extend_from_slice(&(content as u64 * 8).to_le_bytes());
    p.extend_from_slice(&(size as u64 * 8).to_le_bytes());
    p.extend_from_slice(&discarded.to_le_bytes());
    p.extend_from_slice(&cpu.to_le_bytes());
    p.extend_from_slice(&body);
    p.resize(size, 0);
    p
}

fn event(header: Vec<u8>, tid: u32, fields: Vec<u8>) -> Vec<u8> {
    [header, context(tid, "synthapp"), fields].concat()
}

/// Two CPUs. CPU 0: GCStart 1 just before the 27-bit wrap, GCStart 3 just after it (a compact
/// timestamp below the previous low bits), then in a second packet an extended-id GCHeapStats.
/// CPU 1: an allocation tick and GCStart 2 between them in time.
fn streams() -> (Vec<u8>, Vec<u8>) {
    let wrap = 1u64 << 27;
    let base = 5 * wrap; // the clock's high bits
    let cpu0 = [
        packet(
            base + wrap - 100,
            base + wrap + 50,
            2,
            0,
            &[
                event(compact(0, (wrap - 10) as u32), 11, gc_start(1)),
                event(compact(0, 40), 11, gc_start(3)),
            ],
        ),
        packet(
            base + wrap + 60,
            base + wrap + 90,
            5,
            0,
            &[event(
                extended(40, base + wrap + 70),
                11,
                packed(&heap_stats_blob()),
            )],
        ),
    ]
    .concat();
    let cpu1 = packet(
        base + wrap - 50,
        base + wrap + 10,
        0,
        1,
        &[
            event(compact(1, (wrap - 5) as u32), 12, tick("System.String")),
            event(extended(0, base + wrap + 1), 12, gc_start(2)),
        ],
    );
    (cpu0, cpu1)
}

fn metadata_packet(text: &[u8]) -> Vec<u8> {
    let content = 37 + text.len();
    let size = content.div_ceil(256) * 256;
    let mut p = 0x75D1_1D57u32.to_le_bytes().to_vec();
    p.extend_from_slice(&[0; 16]); // uuid
    p.extend_from_slice(&0u32.to_le_bytes()); // checksum
    p.extend_from_slice(&(content as u32 * 8).to_le_bytes());
    p.extend_from_slice(&(size as u32 * 8).to_le_bytes());
    p.extend_from_slice(&[0, 0, 0, 1, 8]); // schemes, major, minor
    p.extend_from_slice(text);
    p.resize(size, 0);
    p
}

/// A perfcollect-like .zip; the streams come before their metadata, as in real ones.
fn trace_zip(packetized: bool) -> Vec<u8> {
    trace_zip_with(packetized, common::stored_zip)
}

/// Writes a .zip of (name, contents) entries.
type ZipWriter = fn(&[(&str, &[u8])]) -> Vec<u8>;

fn trace_zip_with(packetized: bool, zip: ZipWriter) -> Vec<u8> {
    let (cpu0, cpu1) = streams();
    let dir = "synth.trace/lttngTrace/auto-1/ust/uid/1000/64-bit";
    let md = if packetized {
        // Cut in two packets, to join.
        let t = METADATA.as_bytes();
        let (a, b) = t.split_at(t.len() / 2);
        [metadata_packet(a), metadata_packet(b)].concat()
    } else {
        METADATA.as_bytes().to_vec()
    };
    zip(&[
        ("synth.trace/perfcollect.log", b"log"),
        (&format!("{dir}/channel0_1"), &cpu1),
        (&format!("{dir}/index/channel0_1.idx"), b"idx"),
        (&format!("{dir}/channel0_0"), &cpu0),
        (&format!("{dir}/metadata"), &md),
    ])
}

struct Seen {
    provider: String,
    name: String,
    timestamp: i64,
    pid: u32,
    tid: u64,
    cpu: u32,
    payload: Vec<u8>,
    version: u32,
    event_id: u32,
}

fn read(bytes: &[u8], chunk: usize) -> (Vec<Seen>, TraceReader) {
    let mut r = TraceReader::new();
    let mut seen = Vec::new();
    let mut sink = |e: &Event<'_>| {
        seen.push(Seen {
            provider: e.provider.to_string(),
            name: e.name.to_string(),
            timestamp: e.timestamp,
            pid: e.process_id,
            tid: e.thread_id,
            cpu: e.processor,
            payload: e.payload.to_vec(),
            version: e.version,
            event_id: e.event_id,
        })
    };
    for c in bytes.chunks(chunk) {
        r.push(c, &mut sink).unwrap();
    }
    r.finish(&mut sink).unwrap();
    (seen, r)
}

#[test]
fn headers_wrap_extended_ids_and_payloads() {
    let wrap = 1i64 << 27;
    let base = 5 * wrap;
    for packetized in [false, true] {
        for chunk in [1, 13, 4096] {
            let (seen, r) = read(&trace_zip(packetized), chunk);
            let seen: Vec<&Seen> = seen
                .iter()
                .filter(|s| s.provider != gcscope_core::ctf::PROCESS_NAME_PROVIDER)
                .collect();
            let got: Vec<(&str, i64, u32)> = seen
                .iter()
                .map(|s| (s.name.as_str(), s.timestamp, s.cpu))
                .collect();
            assert_eq!(
                got,
                [
                    ("GC/Start", base + wrap - 10, 0),
                    ("GC/AllocationTick", base + wrap - 5, 1),
                    ("GC/Start", base + wrap + 1, 1),
                    ("GC/Start", base + wrap + 40, 0),
                    ("GC/HeapStats", base + wrap + 70, 0),
                ]
            );
            assert!(seen
                .iter()
                .all(|s| s.pid == PID && s.provider == "Microsoft-Windows-DotNETRuntime"));
            assert_eq!(seen[0].tid, 11);
            assert_eq!((seen[4].event_id, seen[4].version), (4, 1));
            // The payloads decode as ETW ones: GCStart counts, the tick's UTF-16 type name, the
            // packed heap stats blob.
            let counts: Vec<u32> = seen
                .iter()
                .filter_map(|s| match decode(s) {
                    Some(ClrEvent::GcStart(g)) => Some(g.count),
                    _ => None,
                })
                .collect();
            assert_eq!(counts, [1, 2, 3]);
            match decode(seen[1]) {
                Some(ClrEvent::GcAllocationTick(t)) => assert_eq!(
                    t.type_name.map(|n| n.to_string_lossy()),
                    Some("System.String".to_string())
                ),
                other => panic!("{other:?}"),
            }
            assert_eq!(seen[4].payload, heap_stats_blob());
            match decode(seen[4]) {
                Some(ClrEvent::GcHeapStats(h)) => {
                    assert_eq!(h.generation_size, [1000, 2000, 3000, 4000])
                }
                other => panic!("{other:?}"),
            }
            // events_discarded runs per stream: CPU 0's last packet says 5.
            assert_eq!(r.stats().dropped_events, 5);
            let ctf = r.ctf().unwrap();
            assert_eq!(ctf.packets(), (3, 3));
            let info = r.info().unwrap();
            assert_eq!(info.format, "lttng-ctf");
            assert_eq!(info.qpc_frequency, 1_000_000_000);
            assert_eq!(info.pointer_size, 8);
            assert_eq!(info.processor_count, 2);
            // 1600000000 s after the epoch is 2020-09-13 12:26:40 UTC; the first event is 0.67 s
            // of clock later.
            assert_eq!(&info.sync_time_utc[..6], &[2020, 9, 13, 12, 26, 40]);
        }
    }
}

fn decode<'a>(s: &'a Seen) -> Option<ClrEvent<'a>> {
    let e = Event {
        provider: &s.provider,
        event_id: s.event_id,
        version: s.version,
        pointer_size: 8,
        payload: &s.payload,
        ..Default::default()
    };
    clr::decode(&e).and_then(|r| r.ok())
}

#[test]
fn a_trace_without_runtime_events_names_the_causes() {
    let md = METADATA.replace("DotNETRuntime:", "lttng_ust_other:");
    let (cpu0, _) = streams();
    let zip = common::stored_zip(&[
        ("t/ust/uid/0/64-bit/channel0_0", &cpu0),
        ("t/ust/uid/0/64-bit/metadata", md.as_bytes()),
    ]);
    let mut r = TraceReader::new();
    let mut n = 0;
    r.push(&zip, &mut |_| n += 1).unwrap();
    let err = r.finish(&mut |_| n += 1).unwrap_err().to_string();
    assert_eq!(n, 3, "the events are still delivered");
    for cause in [
        "lttng-ust 2.13",
        "DOTNET_EnableEventLog=1",
        "-gccollectonly",
        "dotnet-trace",
    ] {
        assert!(err.contains(cause), "{err}");
    }
}

#[test]
fn unknown_types_are_named_with_their_offset() {
    let md = METADATA.replace("string _TypeName;", "mystery_t _TypeName;");
    let (cpu0, _) = streams();
    let zip = common::stored_zip(&[
        ("t/ust/uid/0/64-bit/channel0_0", &cpu0),
        ("t/ust/uid/0/64-bit/metadata", md.as_bytes()),
    ]);
    let mut r = TraceReader::new();
    r.push(&zip, &mut |_| {}).unwrap();
    let err = r.finish(&mut |_| {}).unwrap_err();
    let at = md.find("mystery_t").unwrap() as u64;
    assert_eq!(err.offset, at);
    assert!(
        err.to_string().contains("unknown type 'mystery_t'"),
        "{err}"
    );
}

/// Reads `bytes` to the end, whatever happens: no panic allowed.
fn survive(bytes: &[u8]) -> usize {
    let mut r = TraceReader::new();
    let mut n = 0usize;
    if r.push(bytes, &mut |_| n += 1).is_ok() {
        let _ = r.finish(&mut |_| n += 1);
    }
    n
}

#[test]
fn every_truncation_and_corruption_ends_without_a_panic() {
    let zip = trace_zip(false);
    let whole = survive(&zip);
    for cut in 0..zip.len() {
        assert!(survive(&zip[..cut]) <= whole + 1);
    }
    for at in 0..zip.len() {
        for v in [0x00u8, 0xff, 0x1f, 0x80] {
            let mut z = zip.clone();
            z[at] = v;
            survive(&z);
        }
    }
    // Metadata that declares huge arrays or sequences cannot make the reader take memory or
    // time beyond the packet it reads.
    for (from, to) in [
        ("_procname[17]", "_procname[4000000000]"),
        ("uint64_t _TypeID;", "uint64_t _TypeID[4000000000];"),
        (
            "___data__[ ____data___length ]",
            "___data__[ _length ][ _length ]",
        ),
        (
            "struct { uint32_t magic;",
            "struct { struct {} e[4000000000]; uint32_t magic;",
        ),
    ] {
        let md = METADATA.replace(from, to);
        let (cpu0, cpu1) = streams();
        let z = common::stored_zip(&[
            ("t/ust/uid/0/64-bit/channel0_0", &cpu0),
            ("t/ust/uid/0/64-bit/channel0_1", &cpu1),
            ("t/ust/uid/0/64-bit/metadata", md.as_bytes()),
        ]);
        survive(&z);
    }
}

/// lttng-ust 2.7 wrote an event of more than ten fields as two tracepoints, `X` and `X_1`: here
/// GCStart_V2 in two halves, the second right after the first in the same stream, is one event
/// with the whole ETW payload.
#[test]
fn split_events_are_joined() {
    let md = METADATA.replace(
        r#"name = "DotNETRuntime:GCStart_V2"; id = 0; stream_id = 0;
	fields := struct {
		uint32_t _Count; uint32_t _Depth; uint32_t _Reason; uint32_t _Type;
		uint16_t _ClrInstanceID; uint64_t _ClientSequenceNumber;
	};"#,
        r#"name = "DotNETRuntime:GCStart_V2"; id = 0; stream_id = 0;
	fields := struct { uint32_t _Count; uint32_t _Depth; uint32_t _Reason; };
};
event {
	name = "DotNETRuntime:GCStart_V2_1"; id = 2; stream_id = 0;
	fields := struct { uint32_t _Type; uint16_t _ClrInstanceID; uint64_t _ClientSequenceNumber; };"#,
    );
    assert_ne!(md, METADATA);
    let halves = |count: u32, ts: u32| {
        let p = gc_start(count);
        [
            event(compact(0, ts), 11, p[..12].to_vec()),
            event(compact(2, ts), 11, p[12..].to_vec()),
        ]
    };
    let (a, b) = (halves(1, 100), halves(2, 200));
    let s = packet(
        0,
        300,
        0,
        0,
        &[a[0].clone(), a[1].clone(), b[0].clone(), b[1].clone()],
    );
    let zip = common::stored_zip(&[
        ("t/ust/uid/0/64-bit/channel0_0", &s),
        ("t/ust/uid/0/64-bit/metadata", md.as_bytes()),
    ]);
    let (seen, _) = read(&zip, 64);
    let starts: Vec<(String, Vec<u8>)> = seen
        .iter()
        .filter(|s| s.provider != gcscope_core::ctf::PROCESS_NAME_PROVIDER)
        .map(|s| (s.name.clone(), s.payload.clone()))
        .collect();
    assert_eq!(
        starts,
        [
            ("GC/Start".to_string(), gc_start(1)),
            ("GC/Start".to_string(), gc_start(2))
        ]
    );
}

/// Deflated entries (as perfcollect's zips have them) are held compressed and inflated as the
/// streams are merged: the same events as from the stored .zip, whatever the chunking; a stream
/// whose deflate data is cut short ends in a truncation error, after the events before the cut.
#[test]
fn deflated_entries_read_as_stored_ones() {
    let key = |s: &Seen| (s.name.clone(), s.timestamp, s.cpu, s.payload.clone());
    let stored: Vec<_> = read(&trace_zip(false), 4096).0.iter().map(key).collect();
    let zip = trace_zip_with(false, common::deflated_zip);
    for chunk in [1, 13, 4096] {
        let (seen, r) = read(&zip, chunk);
        assert_eq!(
            seen.iter().map(key).collect::<Vec<_>>(),
            stored,
            "chunk {chunk}"
        );
        let ctf = r.ctf().unwrap();
        assert!(r.buffered_bytes() < zip.len());
        assert!(ctf.window_peak() > 0);
        let (cpu0, cpu1) = streams();
        let md = METADATA.len();
        assert_eq!(
            r.stats().trace_bytes,
            (cpu0.len() + cpu1.len() + md) as u64,
            "the CTF entries, inflated (not the index or the log)"
        );
    }

    // Cut the deflate data of channel0_0 (the second stream) to half, keeping the archive whole.
    let (cpu0, cpu1) = streams();
    let dir = "synth.trace/lttngTrace/auto-1/ust/uid/1000/64-bit";
    let half = miniz_oxide::deflate::compress_to_vec(&cpu0, 6);
    let half = &half[..half.len() / 2];
    let z = common::stored_zip(&[
        (&format!("{dir}/channel0_1"), &cpu1),
        (&format!("{dir}/channel0_0"), half),
        (&format!("{dir}/metadata"), METADATA.as_bytes()),
    ]);
    // Mark the cut entry as deflated (method 8) in its local header; the sizes stay the stored ones.
    let mut z = z;
    let at = z
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == [0x50, 0x4b, 3, 4])
        .nth(1)
        .unwrap()
        .0;
    z[at + 8] = 8;
    let mut r = TraceReader::new();
    let mut n = 0;
    r.push(&z, &mut |_| n += 1).unwrap();
    let e = r.finish(&mut |_| n += 1).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("deflate"), "{msg}");
    assert!(n > 0, "the other stream's events are kept");
}
