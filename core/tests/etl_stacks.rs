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

/// A ClrStack/Walk payload: ClrInstanceID, two reserved bytes, FrameCount, the frames.
fn clr_walk(frames: &[u64]) -> Vec<u8> {
    let mut p = vec![7, 0, 0, 0];
    p.extend_from_slice(&(frames.len() as u32).to_le_bytes());
    for f in frames {
        p.extend_from_slice(&f.to_le_bytes());
    }
    p
}

#[test]
fn clr_stack_walks_give_the_previous_event_of_their_thread_its_stack() {
    let mut w = EtlWriter::new(Options {
        processors: 1,
        buffer_size: 64 * 1024,
        ..Options::default()
    });
    let mut ts = 1_000_000i64;
    let mut next = || {
        ts += 10;
        ts
    };
    let tick = |n: u64| allocation_tick_v4(n, 0, 1, "T", 0, 0x5000, 24, 8);
    let (t1, t2, t3, t4) = (tick(100), tick(200), tick(400), tick(800));
    let (w0, w1) = (clr_walk(STACKS[0]), clr_walk(STACKS[1]));
    let gc_start = [0u8; 16];
    // Tick 100 on thread 100, a tick of thread 101 in between, then thread 100's walk: STACKS[0].
    w.event(0, &ev(true, 10, next(), 100, &t1));
    w.event(0, &ev(true, 10, next(), 101, &t2));
    w.event(0, &ev(true, 82, next(), 100, &w0));
    // Thread 101's walk after that: its tick 200 gets STACKS[1].
    w.event(0, &ev(true, 82, next(), 101, &w1));
    // Tick 400, then a GCStart of the same thread (not delivered to the stacks), then a walk: the
    // walk is the GCStart's, so tick 400 keeps no stack and the walk is unmatched.
    w.event(0, &ev(true, 10, next(), 100, &t3));
    w.event(0, &ev(true, 1, next(), 100, &gc_start));
    w.event(0, &ev(true, 82, next(), 100, &w0));
    // Tick 800 with a kernel walk first, then a CLR walk: the kernel's (STACKS[2]) is kept.
    let t = next();
    w.event(0, &ev(true, 10, t, 101, &t4));
    w.kernel(
        0,
        0x1820,
        2,
        PID,
        101,
        next(),
        &stackwalk(t, 101, STACKS[2]),
    );
    w.event(0, &ev(true, 82, next(), 101, &w0));
    // A walk whose frame count runs past its payload: malformed, unmatched.
    w.event(0, &ev(true, 10, next(), 100, &t1));
    let mut short = clr_walk(STACKS[0]);
    short.truncate(short.len() - 4);
    w.event(0, &ev(true, 82, next(), 100, &short));
    let bytes = w.finish();

    let (sums, _, table) = read(&bytes);
    let value_of = |frames: &[u64]| {
        sums.stacks
            .iter()
            .find(|s| table.addresses(s.stack) == Some(frames))
            .map(|s| (s.value, s.count))
    };
    assert_eq!(value_of(STACKS[0]), Some((100, 1)));
    assert_eq!(value_of(STACKS[1]), Some((200, 1)));
    assert_eq!(value_of(STACKS[2]), Some((800, 1)));
    assert_eq!(sums.no_stack.value, 400 + 100, "tick 400 and the last tick");
    assert_eq!(
        table.unmatched(),
        3,
        "the GCStart's, the redundant and the cut walk"
    );
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

/// The frames of a stack record's payload from `at`: whole pointers of `ptr` bytes.
fn raw_frames(p: &[u8], ptr: usize) -> Vec<u64> {
    p.chunks_exact(ptr)
        .map(|c| {
            let mut a = [0u8; 8];
            a[..ptr].copy_from_slice(c);
            u64::from_le_bytes(a)
        })
        .collect()
}

/// A delivered event as the PerfView test keeps it: for a ClrStack/Walk, its frames; whether it
/// is a kernel stack record (group 0x18).
struct Delivered {
    timestamp: i64,
    thread: u64,
    stack: u32,
    clr_walk: Option<Vec<u64>>,
    kernel_stack: bool,
}

/// PerfView's .NET 4.5.2 traces (../shared), every event delivered in time order: each event
/// given a stack has, as the test reads the raw payloads, either a StackWalk/Stack of its
/// timestamp and thread with exactly those frames, or a ClrStack/Walk with exactly those frames
/// as the next event of its thread (kernel stack records aside), or it is one of the events with a
/// stack trace extended item, as many as a separate reading of the raw records counts (655 and
/// 1070, by a Python script that decompressed the buffers and walked the EVENT_HEADER items).
/// Every walk of either kind is accounted for: it gave its event a stack or is counted as
/// unmatched. (The kernel's cached stack keys are not read: see `etl::stackwalk`.)
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
        let mut events: Vec<Delivered> = Vec::new();
        let mut sink = |e: &Event<'_>| {
            let kernel_stack = e.provider == "Windows Kernel" && e.event_id >> 8 == 0x18;
            let ptr = e.pointer_size as usize;
            if e.provider == "Windows Kernel" && e.event_id == 0x1820 && e.payload.len() >= 16 {
                let p = e.payload;
                let ts = i64::from_le_bytes(p[0..8].try_into().unwrap());
                let tid = u32::from_le_bytes(p[12..16].try_into().unwrap());
                walks.push((ts, u64::from(tid), raw_frames(&p[16..], ptr)));
            }
            let clr = (e.provider == "Microsoft-Windows-DotNETRuntime"
                && e.event_id == 82
                && e.payload.len() >= 8)
                .then(|| {
                    let n = u32::from_le_bytes(e.payload[4..8].try_into().unwrap()) as usize;
                    raw_frames(&e.payload[8..8 + n * ptr], ptr)
                });
            events.push(Delivered {
                timestamp: e.timestamp,
                thread: e.thread_id,
                stack: e.stack,
                clr_walk: clr,
                kernel_stack,
            });
        };
        r.push(&bytes, &mut sink).unwrap();
        r.finish(&mut sink).unwrap();
        let table = r.take_stacks().unwrap();
        assert!(!walks.is_empty(), "{name}: the trace has StackWalk events");
        let clr_walks = events.iter().filter(|e| e.clr_walk.is_some()).count() as u64;
        assert!(clr_walks > 0, "{name}: the trace has ClrStack/Walk events");
        let (mut by_walk, mut by_clr, mut stacked) = (0u64, 0u64, 0u64);
        for (i, d) in events.iter().enumerate() {
            let (ts, tid, id) = (d.timestamp, d.thread, d.stack);
            if id == NO_STACK {
                continue;
            }
            stacked += 1;
            let frames = table.addresses(id).unwrap();
            if let Some((_, _, f)) = walks.iter().find(|(t, th, _)| (*t, *th) == (ts, tid)) {
                assert_eq!(f.as_slice(), frames, "{name}: the event at {ts} on {tid}");
                by_walk += 1;
                continue;
            }
            let next = events[i + 1..]
                .iter()
                .find(|e| e.thread == tid && !e.kernel_stack)
                .and_then(|e| e.clr_walk.as_ref());
            if let Some(f) = next.filter(|f| f.as_slice() == frames) {
                assert!(!f.is_empty() || frames.is_empty());
                by_clr += 1;
            }
        }
        assert_eq!(stacked - by_walk - by_clr, items, "{name}: extended items");
        assert_eq!(
            by_walk + by_clr + table.unmatched(),
            walks.len() as u64 + clr_walks,
            "{name}: every walk matched one event or is counted"
        );
        eprintln!(
            "{name}: {} kernel walks, {clr_walks} CLR walks, {by_walk} + {by_clr} matched, \
             {} unmatched, {} distinct stacks",
            walks.len(),
            table.unmatched(),
            table.len()
        );
    }
}
