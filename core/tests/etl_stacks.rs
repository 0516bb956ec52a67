//! ETW call stacks against .etl files written by the test-only writer (`encode::etl`), whose
//! stacks, methods and images are known by construction: StackWalk/Stack events matched to the
//! event of the same timestamp and thread before them, stack trace extended items, frames named by
//! rundown methods and kernel images (module + offset) or left as addresses with the reason, the
//! records that match no event counted; and the same ids and table when the file is decoded in
//! parts.
#![cfg(feature = "encode")]

mod common;

use common::split::{check_identity, Setup};
use gcscope_core::encode::etl::{EtlEvent, EtlWriter, Options};
use gcscope_core::encode::payload::{allocation_tick_v4, method_load_verbose_v2};
use gcscope_core::etl::names::{RUNDOWN_GUID, RUNTIME_GUID};
use gcscope_core::event::Event;
use gcscope_core::stacks::methods::Unresolved;
use gcscope_core::stacks::view::{folded, Frames, Selection, StackSamplesBuilder, Which};
use gcscope_core::stacks::{StackTable, NO_STACK};
use gcscope_core::{Consumer, TraceReader};

const PID: u32 = 4242;
/// Method A covers 0x1000..0x1100, B 0x2000..0x2100 (rundown), C 0x3000..0x3040 (JIT load).
const A: u64 = 0x1000;
const B: u64 = 0x2000;
const C: u64 = 0x3000;
/// ntdll.dll is mapped at 0x7ff8_0000_0000 for 1 MiB (kernel Image/DCStart).
const NTDLL: u64 = 0x7ff8_0000_0000;
/// An address in no method and no image.
const NOWHERE: u64 = 0xdead_0000;

/// The known stacks (leaf first), the i-th tick's is `STACKS[i % 3]`.
const STACKS: [&[u64]; 3] = [
    &[A + 0x10, B + 0x20, NTDLL + 0x1234],
    &[C + 0x8, A + 0x30, B + 0x40, NTDLL + 0x1234],
    &[NOWHERE, B + 0x20, NTDLL + 0x99],
];

fn stackwalk(ts: i64, tid: u32, frames: &[u64]) -> Vec<u8> {
    let mut p = ts.to_le_bytes().to_vec();
    p.extend_from_slice(&PID.to_le_bytes());
    p.extend_from_slice(&tid.to_le_bytes());
    for f in frames {
        p.extend_from_slice(&f.to_le_bytes());
    }
    p
}

/// Image/DCStart version 2, 64-bit: ImageBase, ImageSize, ProcessId, checksum, time stamp,
/// reserved, DefaultBase, four reserved u32s, FileName.
fn image_dc_start(base: u64, size: u64, path: &str) -> Vec<u8> {
    let mut p = base.to_le_bytes().to_vec();
    p.extend_from_slice(&size.to_le_bytes());
    p.extend_from_slice(&PID.to_le_bytes());
    p.extend_from_slice(&[0; 12]);
    p.extend_from_slice(&base.to_le_bytes());
    p.extend_from_slice(&[0; 16]);
    for u in path.encode_utf16().chain([0]) {
        p.extend_from_slice(&u.to_le_bytes());
    }
    p
}

fn ev<'a>(guid_runtime: bool, id: u16, ts: i64, tid: u32, payload: &'a [u8]) -> EtlEvent<'a> {
    EtlEvent {
        provider: if guid_runtime {
            RUNTIME_GUID
        } else {
            RUNDOWN_GUID
        },
        id,
        version: if id == 10 { 4 } else { 2 },
        opcode: 0,
        task: 0,
        process_id: PID,
        thread_id: tid,
        timestamp: ts,
        pointer_size: 8,
        extended: &[],
        payload,
    }
}

/// `ticks` allocation ticks of 1000 + i bytes, each (but every 7th) followed by its StackWalk on
/// the same processor; one StackWalk whose timestamp names no event; a tick whose stack is an
/// extended item (32-bit frames); rundown for A and B, a JIT load for C, ntdll's image.
fn trace(ticks: usize, buffer_size: u32) -> Vec<u8> {
    let mut w = EtlWriter::new(Options {
        processors: 2,
        buffer_size,
        ..Options::default()
    });
    let mut ts = 2_000_000i64;
    let img = image_dc_start(NTDLL, 1 << 20, "C:\\Windows\\System32\\ntdll.dll");
    w.kernel(0, 0x1403, 2, PID, 0, ts, &img);
    let c = method_load_verbose_v2(3, 7, C, 0x40, 3, ("NS.Jit", "C", "void  (int32)"));
    w.event(0, &ev(true, 143, ts + 1, 100, &c));
    for i in 0..ticks {
        ts += 100;
        let tid = 100 + (i % 2) as u32;
        let cpu = i as u32 % 2;
        let tick = allocation_tick_v4(1000 + i as u64, 0, 1, "T", 0, 0x5000, 24, 8);
        w.event(cpu, &ev(true, 10, ts, tid, &tick));
        if i % 7 != 6 {
            w.kernel(
                cpu,
                0x1820,
                2,
                PID,
                tid,
                ts + 3,
                &stackwalk(ts, tid, STACKS[i % 3]),
            );
        }
    }
    // A walk of an event that is not in the file: counted, matched to nothing.
    ts += 100;
    w.kernel(
        0,
        0x1820,
        2,
        PID,
        100,
        ts,
        &stackwalk(ts - 1, 100, STACKS[0]),
    );
    // A tick whose stack is its extended item (EVENT_HEADER_EXT_TYPE_STACK_TRACE32).
    ts += 100;
    let tick = allocation_tick_v4(5, 0, 1, "T", 0, 0x5000, 24, 8);
    let mut item = 0u64.to_le_bytes().to_vec();
    for f in [A as u32 + 1, B as u32 + 1] {
        item.extend_from_slice(&f.to_le_bytes());
    }
    let items: [&[u8]; 1] = [&item];
    w.event(
        0,
        &EtlEvent {
            extended: &items,
            ..ev(true, 10, ts, 100, &tick)
        },
    );
    for (k, (start, name)) in [(A, "A"), (B, "B")].into_iter().enumerate() {
        ts += 100;
        let m = method_load_verbose_v2(
            k as u64 + 1,
            7,
            start,
            0x100,
            1,
            ("NS.Run", name, "void  ()"),
        );
        w.event(0, &ev(false, 144, ts, 100, &m));
    }
    w.finish()
}

fn read(
    bytes: &[u8],
) -> (
    gcscope_core::stacks::view::StackSums,
    gcscope_core::stacks::view::StackSamples,
    StackTable,
) {
    let mut r = TraceReader::for_consumer(Consumer::Stacks);
    let mut b = StackSamplesBuilder::summing(Selection::new(Which::Alloc(None)));
    let mut sink = |e: &Event<'_>| b.on_event(e);
    r.push(bytes, &mut sink).expect("push");
    r.finish(&mut sink).expect("finish");
    let (sums, samples) = b.finish_sums();
    (
        sums,
        samples,
        r.take_stacks().expect("an .etl's stacks are kept"),
    )
}

#[test]
fn stackwalk_events_give_their_events_the_known_stacks() {
    let ticks = 42;
    let bytes = trace(ticks, 64 * 1024);
    let (sums, samples, table) = read(&bytes);
    // Every tick with a walk has its stack; every 7th has none; the extended item is a fourth.
    assert_eq!(
        table.len(),
        4,
        "three walked stacks and the extended item's"
    );
    assert_eq!(table.unmatched(), 1, "the walk of no event");
    let mut want_value = [0u64; 3];
    let mut no_stack = 0u64;
    for i in 0..ticks {
        if i % 7 == 6 {
            no_stack += 1000 + i as u64;
        } else {
            want_value[i % 3] += 1000 + i as u64;
        }
    }
    assert_eq!(sums.no_stack.value, no_stack);
    assert_eq!(sums.missing_stack.count, 0);
    for (k, want) in STACKS.iter().enumerate() {
        let s = sums
            .stacks
            .iter()
            .find(|s| table.addresses(s.stack) == Some(want))
            .unwrap_or_else(|| panic!("stack {k} not found"));
        assert_eq!(s.value, want_value[k], "stack {k}");
    }
    let ext = sums
        .stacks
        .iter()
        .find(|s| table.addresses(s.stack) == Some(&[A + 1, B + 1][..]))
        .expect("the extended item's stack");
    assert_eq!((ext.value, ext.count), (5, 1));

    let frames = Frames {
        table: &table,
        methods: &samples.methods,
    };
    let f = frames.frame(NTDLL + 0x1234);
    assert_eq!(
        (f.module.as_deref(), f.offset),
        (Some("ntdll"), Some(0x1234))
    );
    assert_eq!(f.label(), "ntdll+0x1234");
    let f = frames.frame(NOWHERE);
    assert_eq!((f.method.as_deref(), f.module.as_deref()), (None, None));
    assert_eq!(f.unresolved, Some(Unresolved::NotInAnyMethod));
    assert_eq!(f.label(), "0xdead0000");
    assert_eq!(frames.frame(C + 8).label(), "NS.Jit.C(int32)");
    // Folded: root first, as built.
    let mut want = vec![
        format!("ntdll+0x1234;NS.Run.B();NS.Run.A() {}", want_value[0]),
        format!(
            "ntdll+0x1234;NS.Run.B();NS.Run.A();NS.Jit.C(int32) {}",
            want_value[1]
        ),
        format!("ntdll+0x99;NS.Run.B();0xdead0000 {}", want_value[2]),
        "NS.Run.B();NS.Run.A() 5".to_string(),
        format!("[no stack recorded] {no_stack}"),
    ];
    want.sort();
    let got: Vec<String> = folded(&sums, &frames).lines().map(String::from).collect();
    let mut got_sorted = got.clone();
    got_sorted.sort();
    assert_eq!(got_sorted, want);
}

#[test]
fn without_keeping_stacks_etl_events_have_none() {
    let bytes = trace(10, 64 * 1024);
    let mut r = TraceReader::new();
    let mut stacks = 0;
    let mut sink = |e: &Event<'_>| stacks += u32::from(e.stack != NO_STACK);
    r.push(&bytes, &mut sink).unwrap();
    r.finish(&mut sink).unwrap();
    assert_eq!(stacks, 0);
    assert!(r.stacks().is_none());
}

#[test]
fn etl_stacks_decode_the_same_in_parts() {
    // Small buffers: many of them, so the parts split the file, and some walks land in the
    // buffer after their event's (counted as unmatched, the same way in parts).
    let bytes = trace(3000, 8 * 1024);
    let setup = Setup {
        filter: Some(gcscope_core::stacks::view::interest),
        budget: None,
        consumer: Consumer::Stacks,
        keep_stacks: true,
    };
    let (line, share) = check_identity("etl with stacks", &bytes, setup, true);
    eprintln!("{line}");
    assert!(share > 0.5, "{line}");
    let want = common::split::sequential(&bytes, setup, 1 << 20);
    let (kept, _) = want.stacks.as_ref().expect("stacks kept");
    assert!(kept.len() >= 4, "{}", kept.len());
}

/// PerfView's .NET 4.5.2 traces (../shared): every StackWalk/Stack event is accounted for; each
/// event given a stack by a walk has, among the file's walks as the test reads their raw payloads,
/// one of its timestamp and thread with exactly those frames; and the others are the events with
/// a stack trace extended item, as many as a separate reading of the raw records counts (655 and
/// 1070, by a Python script that decompressed the buffers and walked the EVENT_HEADER items). (Their
/// GC events' stacks are the CLR's own ClrStack/Walk events and the kernel's cached stack keys,
/// which are not read: see `etl::stackwalk`.)
#[test]
fn perfview_stackwalks_match_their_events_raw_bytes() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (name, items) in [("net.4.5.2.x64", 655), ("net.4.5.2.x86", 1070)] {
        let bytes = std::fs::read(shared.join(format!("traces/perfview/{name}.etl.zip"))).unwrap();
        let mut r = TraceReader::new();
        r.set_keep_stacks(true);
        let mut walks: Vec<(i64, u64, Vec<u64>)> = Vec::new();
        let mut stacked: Vec<(i64, u64, u32)> = Vec::new();
        let mut sink = |e: &Event<'_>| {
            if e.provider == "Windows Kernel" && e.event_id == 0x1820 && e.payload.len() >= 16 {
                let p = e.payload;
                let ts = i64::from_le_bytes(p[0..8].try_into().unwrap());
                let tid = u32::from_le_bytes(p[12..16].try_into().unwrap());
                let ptr = e.pointer_size as usize;
                let frames = p[16..]
                    .chunks_exact(ptr)
                    .map(|c| {
                        let mut a = [0u8; 8];
                        a[..ptr].copy_from_slice(c);
                        u64::from_le_bytes(a)
                    })
                    .collect();
                walks.push((ts, u64::from(tid), frames));
            }
            if e.stack != NO_STACK {
                stacked.push((e.timestamp, e.thread_id, e.stack));
            }
        };
        r.push(&bytes, &mut sink).unwrap();
        r.finish(&mut sink).unwrap();
        let table = r.take_stacks().unwrap();
        assert!(!walks.is_empty(), "{name}: the trace has StackWalk events");
        let mut by_walk = 0u64;
        for &(ts, tid, id) in &stacked {
            let frames = table.addresses(id).unwrap();
            let walk = walks.iter().find(|(t, th, _)| (*t, *th) == (ts, tid));
            if let Some((_, _, f)) = walk {
                assert_eq!(
                    f.as_slice(),
                    frames,
                    "{name}: the event at {ts} on thread {tid}"
                );
                by_walk += 1;
            }
        }
        assert_eq!(
            stacked.len() as u64 - by_walk,
            items,
            "{name}: extended items"
        );
        assert_eq!(
            by_walk + table.unmatched(),
            walks.len() as u64,
            "{name}: every walk matched one event or is counted"
        );
        eprintln!(
            "{name}: {} walks, {} matched, {} distinct stacks",
            walks.len(),
            stacked.len(),
            table.len()
        );
    }
}
