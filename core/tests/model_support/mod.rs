//! Hand-encoded GC event payloads (layouts from the runtime's manifest, docs/reference/formats.md,
//! "GC event layouts") for synthetic model tests and the model benchmark. Independent of gcscope's
//! payload decoder.
#![allow(dead_code)]

use gcscope_core::event::Event;

pub const RUNTIME: &str = "Microsoft-Windows-DotNETRuntime";
pub const PRIVATE: &str = "Microsoft-Windows-DotNETRuntimePrivate";

/// One event with an owned payload; `event()` borrows it as the decoder would hand it out.
#[derive(Clone, Debug)]
pub struct Owned {
    pub provider: &'static str,
    pub id: u32,
    pub version: u32,
    pub name: &'static str,
    pub ms: f64,
    pub thread: u64,
    pub payload: Vec<u8>,
}

impl Owned {
    pub fn event(&self) -> Event<'_> {
        Event {
            provider: self.provider,
            event_id: self.id,
            version: self.version,
            name: self.name,
            // 10 MHz ticks, like Windows QPC.
            timestamp: (self.ms * 10_000.0) as i64,
            time_ms: self.ms,
            process_id: 0,
            thread_id: self.thread,
            capture_thread_id: self.thread,
            sequence: 0,
            processor: 0,
            stack_id: 0,
            stack: 0,
            pointer_size: 8,
            payload: &self.payload,
            ticks: None,
        }
    }
}

#[derive(Default)]
struct P(Vec<u8>);
impl P {
    fn u16(mut self, v: u16) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u64(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn utf16(mut self, s: &str) -> Self {
        for u in s.encode_utf16() {
            self.0.extend_from_slice(&u.to_le_bytes());
        }
        self.0.extend_from_slice(&[0, 0]);
        self
    }
}

fn ev(id: u32, version: u32, name: &'static str, ms: f64, thread: u64, payload: Vec<u8>) -> Owned {
    Owned {
        provider: RUNTIME,
        id,
        version,
        name,
        ms,
        thread,
        payload,
    }
}

/// GCStart v2: Count, Depth, Reason, Type, ClrInstanceID, ClientSequenceNumber.
pub fn gc_start(ms: f64, thread: u64, count: u32, depth: u32, reason: u32, gc_type: u32) -> Owned {
    ev(
        1,
        2,
        "GC/Start",
        ms,
        thread,
        P::default()
            .u32(count)
            .u32(depth)
            .u32(reason)
            .u32(gc_type)
            .u16(1)
            .u64(0)
            .0,
    )
}

/// GCEnd v1: Count, Depth, ClrInstanceID.
pub fn gc_end(ms: f64, thread: u64, count: u32, depth: u32) -> Owned {
    ev(
        2,
        1,
        "GC/Stop",
        ms,
        thread,
        P::default().u32(count).u32(depth).u16(1).0,
    )
}

/// GCSuspendEEBegin v1: Reason, Count, ClrInstanceID.
pub fn suspend_begin(ms: f64, thread: u64, reason: u32, count: u32) -> Owned {
    ev(
        9,
        1,
        "GC/SuspendEEStart",
        ms,
        thread,
        P::default().u32(reason).u32(count).u16(1).0,
    )
}

pub fn suspend_end(ms: f64, thread: u64) -> Owned {
    ev(8, 1, "GC/SuspendEEStop", ms, thread, P::default().u16(1).0)
}

pub fn restart_begin(ms: f64, thread: u64) -> Owned {
    ev(7, 1, "GC/RestartEEStart", ms, thread, P::default().u16(1).0)
}

pub fn restart_end(ms: f64, thread: u64) -> Owned {
    ev(3, 1, "GC/RestartEEStop", ms, thread, P::default().u16(1).0)
}

/// GCHeapStats v2: (GenerationSize, TotalPromotedSize) for gen0..LOH, finalization size/count,
/// pinned objects, sync blocks, handles, ClrInstanceID, then POH size/promoted.
pub fn heap_stats(
    ms: f64,
    thread: u64,
    size: [u64; 5],
    promoted: [u64; 5],
    counts: [u32; 3],
) -> Owned {
    let mut p = P::default();
    for g in 0..4 {
        p = p.u64(size[g]).u64(promoted[g]);
    }
    p = p
        .u64(1000)
        .u64(3)
        .u32(counts[0])
        .u32(counts[1])
        .u32(counts[2])
        .u16(1)
        .u64(size[4])
        .u64(promoted[4]);
    ev(4, 2, "GC/HeapStats", ms, thread, p.0)
}

/// GCPerHeapHistory v3 (x64): ten pointer fields per generation record.
pub fn per_heap(
    ms: f64,
    thread: u64,
    heap: u32,
    r0: u32,
    r1: u32,
    compact: u32,
    gens: &[[u64; 10]],
) -> Owned {
    let mut p = P::default().u16(1);
    for v in [100u64, 5, 200, 300, 40, 50] {
        p = p.u64(v);
    }
    p = p
        .u32(77)
        .u32(r0)
        .u32(r1)
        .u32(compact)
        .u32(0)
        .u32(heap)
        .u64(4096)
        .u32(gens.len() as u32);
    for g in gens {
        for v in g {
            p = p.u64(*v);
        }
    }
    ev(204, 3, "GC/PerHeapHistory", ms, thread, p.0)
}

/// GCGlobalHeapHistory v4.
#[allow(clippy::too_many_arguments)]
pub fn global(
    ms: f64,
    thread: u64,
    heaps: u32,
    condemned: u32,
    reason: u32,
    mechanisms: u32,
    pause_mode: u32,
    times: &[u32],
) -> Owned {
    let mut p = P::default()
        .u64(3_000_000)
        .u32(heaps)
        .u32(condemned)
        .u32(0)
        .u32(reason)
        .u32(mechanisms)
        .u16(1);
    p = p
        .u32(pause_mode)
        .u32(12)
        .u32(0)
        .u32(0)
        .u32(times.len() as u32);
    for t in times {
        p = p.u32(*t);
    }
    ev(205, 4, "GC/GlobalHeapHistory", ms, thread, p.0)
}

/// GCAllocationTick v4: u32 amount, kind, ClrInstanceID, u64 amount, TypeID, TypeName, HeapIndex,
/// Address, ObjectSize.
pub fn alloc_tick(ms: f64, thread: u64, amount: u64, kind: u32) -> Owned {
    let p = P::default()
        .u32(amount as u32)
        .u32(kind)
        .u16(1)
        .u64(amount)
        .u64(0x7ff0)
        .utf16("System.Byte[]")
        .u32(0)
        .u64(0x1000)
        .u64(100);
    ev(10, 4, "GC/AllocationTick", ms, thread, p.0)
}

/// SetGCHandle v0 (x64): HandleID, ObjectID, Kind, Generation, AppDomainID, ClrInstanceID.
pub fn set_handle(
    ms: f64,
    thread: u64,
    handle: u64,
    object: u64,
    kind: u32,
    generation: u32,
) -> Owned {
    ev(
        30,
        0,
        "GC/SetGCHandle",
        ms,
        thread,
        P::default()
            .u64(handle)
            .u64(object)
            .u32(kind)
            .u32(generation)
            .u64(1)
            .u16(1)
            .0,
    )
}

/// DestroyGCHandle v0 (x64): HandleID, ClrInstanceID.
pub fn destroy_handle(ms: f64, thread: u64, handle: u64) -> Owned {
    ev(
        31,
        0,
        "GC/DestoryGCHandle",
        ms,
        thread,
        P::default().u64(handle).u16(1).0,
    )
}

/// PinObjectAtGCTime v0 (x64): HandleID, ObjectID, ObjectSize, TypeName, ClrInstanceID.
pub fn pin_object(
    ms: f64,
    thread: u64,
    handle: u64,
    object: u64,
    size: u64,
    type_name: &str,
) -> Owned {
    ev(
        33,
        0,
        "GC/PinObjectAtGCTime",
        ms,
        thread,
        P::default()
            .u64(handle)
            .u64(object)
            .u64(size)
            .utf16(type_name)
            .u16(1)
            .0,
    )
}

/// Private PinPlugAtGCTime (x64): PlugStart, PlugEnd, GapBeforeSize, ClrInstanceID.
pub fn pin_plug(ms: f64, thread: u64, start: u64, end: u64, gap: u64) -> Owned {
    let mut o = ev(
        199,
        0,
        "GC/PinPlugAtGCTime",
        ms,
        thread,
        P::default().u64(start).u64(end).u64(gap).u16(1).0,
    );
    o.provider = PRIVATE;
    o
}

/// GCMarkWithType: HeapNum, ClrInstanceID, Type, Bytes.
pub fn mark(ms: f64, thread: u64, heap: u32, kind: u32, bytes: u64) -> Owned {
    ev(
        202,
        0,
        "GC/MarkWithType",
        ms,
        thread,
        P::default().u32(heap).u16(1).u32(kind).u64(bytes).0,
    )
}

/// A generation record: SizeBefore, FreeListBefore, FreeObjBefore, SizeAfter, FreeListAfter,
/// FreeObjAfter, In, PinnedSurv, NonPinnedSurv, NewAllocation.
pub fn gen(v: [u64; 10]) -> [u64; 10] {
    v
}

/// A complete blocking workstation GC as the runtime emits it, starting at `t` ms.
pub fn blocking_gc(t: f64, count: u32, gen: u32, reason: u32, size_before: u64) -> Vec<Owned> {
    let th = 100;
    let g = |before: u64| {
        [
            before,
            0,
            before / 10,
            before / 2,
            1000,
            2000,
            500,
            100,
            before / 4,
            4_000_000,
        ]
    };
    let gens = [
        g(size_before),
        g(size_before / 2),
        g(size_before * 4),
        g(1_000_000),
        g(10_000),
    ];
    vec![
        suspend_begin(t, th, 1, count - 1),
        suspend_end(t + 0.010, th),
        gc_start(t + 0.020, th, count, gen, reason, 0),
        mark(t + 0.1, th, 0, 0, 1234),
        per_heap(t + 0.8, th, 0, gen << 2 | gen, 1 << 4, 0x8000_0002, &gens),
        global(
            t + 0.81,
            th,
            1,
            gen,
            reason,
            0x16,
            1,
            &[1, 2, 3, 4, 5, 6, 7, 8],
        ),
        gc_end(t + 0.9, th, count, gen),
        heap_stats(
            t + 0.91,
            th,
            [size_before / 2, 2_000_000, 8_000_000, 1_000_000, 10_000],
            [size_before / 4, 1_000, 0, 0, 0],
            [2, 14, 55],
        ),
        restart_begin(t + 0.95, th),
        restart_end(t + 1.0, th),
    ]
}
