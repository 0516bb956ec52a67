//! A simulated .NET process writing a trace of any size: several threads allocating and being
//! sampled (SampleProfiler ThreadSample with stacks every millisecond per thread), JIT (MethodLoadVerbose)
//! at startup and now and then, AllocationTick V4 about once per 100 KB allocated, and blocking
//! GCs with the runtime's event sequence (Triggered, SuspendEEBegin/End, GCStart V2,
//! PerHeapHistory V3, GlobalHeapHistory V4, GCEnd, HeapStats V2, RestartEEBegin/End): workstation
//! GC by default, or server GC with [`Config::heaps`] heaps (one PerHeapHistory per heap from that
//! heap's GC thread, the heap's share of every size).
//!
//! Each thread's events of a millisecond are written together (as the runtime drains per-thread
//! buffers), so blocks interleave threads out of timestamp order and the decoder has to sort.
//! A sequence point is written every [`Config::sequence_point_bytes`]. The returned [`Truth`] is what
//! was written: the reference a decoder and model are checked against.

use alloc::vec;
use alloc::vec::Vec;

use super::payload::{self, GenData, GlobalHistory, HeapStats, PerHeapHistory};
use super::{EventDef, EventFields, Field, Flavor, Header, NetTraceWriter};
use crate::clr::ids::runtime as rt;
use crate::clr::names::{EVENTPIPE_PROVIDER, RUNTIME_PROVIDER, SAMPLE_PROFILER_PROVIDER};

/// Runtime event id of MethodLoadVerbose.
const METHOD_LOAD_VERBOSE: u32 = 143;
/// Keywords: GC, JIT + Loader (MethodLoadVerbose).
const KW_GC: u64 = 0x1;
const KW_JIT: u64 = 0x10 | 0x8;
/// Distinct stacks the threads are sampled in.
const STACK_POOL: u64 = 4096;
/// Allocation between two AllocationTick events (the runtime's ~100 KB).
const TICK_BYTES: u64 = 100 * 1024;
const NS_PER_MS: i64 = 1_000_000;
/// How often the simulated runtime writes its per-thread buffers to the file.
const FLUSH_NS: i64 = 100 * NS_PER_MS;

/// Per-thread event buffers, written thread by thread as the runtime's V4+ writer does: each
/// thread's events stay in order, but across threads the file goes back in time at every switch.
#[derive(Default)]
struct Buffers {
    /// (capture thread, events (header, payload start, payload length), payload bytes).
    threads: Vec<(u64, Vec<Buffered>, Vec<u8>)>,
}

/// A buffered event: its header fields and where its payload is in the thread's bytes.
type Buffered = (EventFields, usize, usize);

impl Buffers {
    fn push(&mut self, f: EventFields, payload: &[u8]) {
        let i = match self.threads.iter().position(|t| t.0 == f.capture_thread_id) {
            Some(i) => i,
            None => {
                self.threads
                    .push((f.capture_thread_id, Vec::new(), Vec::new()));
                self.threads.len() - 1
            }
        };
        let (_, events, bytes) = &mut self.threads[i];
        events.push((f, bytes.len(), payload.len()));
        bytes.extend_from_slice(payload);
    }

    fn write(&mut self, w: &mut NetTraceWriter) {
        for (_, events, bytes) in &mut self.threads {
            for (f, start, len) in events.iter() {
                w.event(f, &bytes[*start..*start + *len]);
            }
            events.clear();
            bytes.clear();
        }
        w.flush_events();
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    /// Stop once the stream has at least this many bytes.
    pub target_bytes: u64,
    pub flavor: Flavor,
    pub pointer_size: u8,
    pub seed: u64,
    /// Application threads (each sampled every millisecond).
    pub threads: u32,
    /// Bytes allocated per millisecond, over all threads.
    pub alloc_per_ms: u64,
    /// Gen0 budget: a GC every this many bytes allocated.
    pub gen0_budget: u64,
    pub sequence_point_bytes: u64,
    /// GC heaps: 1 is workstation GC, more is server GC (each size is split over the heaps).
    pub heaps: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            target_bytes: 8 << 20,
            flavor: Flavor::V5,
            pointer_size: 8,
            seed: 0x5eed_1234_abcd_0001,
            threads: 6,
            alloc_per_ms: 1 << 20,
            gen0_budget: 48 << 20,
            sequence_point_bytes: 4 << 20,
            heaps: 1,
        }
    }
}

/// One GC as written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GcTruth {
    pub number: u32,
    pub gen: u32,
    pub reason: u32,
    /// GCSuspendEEBegin .. GCRestartEEEnd, in ms.
    pub pause_ms: f64,
    /// GCStart, in ms since the trace start.
    pub start_ms: f64,
    /// Size of every generation after the GC, summed over generations and heaps.
    pub after_bytes: u64,
}

/// What the workload wrote.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Truth {
    pub gcs: Vec<GcTruth>,
    pub events: u64,
    pub samples: u64,
    pub allocation_ticks: u64,
    pub method_loads: u64,
    pub allocated_bytes: u64,
    pub bytes: u64,
    pub sequence_points: u64,
    pub stacks: u64,
    pub metadata: u64,
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const TYPE_NAMES: &[&str] = &[
    "System.String",
    "System.Byte[]",
    "System.Collections.Generic.List`1[System.Int32]",
    "System.Text.StringBuilder",
    "MyApp.Orders.OrderLine",
    "System.Collections.Generic.Dictionary`2+Entry[System.String,System.Object][]",
    "System.Threading.Tasks.Task`1[System.Net.Http.HttpResponseMessage]",
    "MyApp.Json.JsonNode",
];

const NAMESPACES: &[&str] = &[
    "MyApp.Orders.OrderService",
    "System.Text.Json.JsonSerializer",
    "System.Collections.Generic.Dictionary`2[System.__Canon,System.__Canon]",
    "Microsoft.AspNetCore.Routing.Matching.DfaMatcher",
    "System.Linq.Enumerable+SelectListIterator`2[System.Int32,System.__Canon]",
];

/// The metadata ids the workload uses.
struct Ids {
    sample: u32,
    method_load: u32,
    alloc_tick: u32,
    triggered: u32,
    suspend_begin: u32,
    suspend_end: u32,
    start: u32,
    end: u32,
    per_heap: u32,
    global: u32,
    heap_stats: u32,
    restart_begin: u32,
    restart_end: u32,
    process_info: u32,
}

fn define_all(w: &mut NetTraceWriter) -> Ids {
    let rtdef = |id: u32, version: u32, level: u32, keywords: u64, opcode: Option<u8>| EventDef {
        provider: RUNTIME_PROVIDER,
        event_id: id,
        version,
        level,
        keywords,
        opcode,
        ..Default::default()
    };
    let process_fields = [
        Field {
            type_code: 18,
            name: "CommandLine",
        },
        Field {
            type_code: 18,
            name: "OSInformation",
        },
        Field {
            type_code: 18,
            name: "ArchInformation",
        },
    ];
    let sample_fields = [Field {
        type_code: 9,
        name: "Type",
    }];
    Ids {
        process_info: w.define(&EventDef {
            provider: EVENTPIPE_PROVIDER,
            event_id: 1,
            name: "ProcessInfo",
            version: 1,
            fields: &process_fields,
            ..Default::default()
        }),
        sample: w.define(&EventDef {
            provider: SAMPLE_PROFILER_PROVIDER,
            event_id: 0,
            name: "ThreadSample",
            fields: &sample_fields,
            ..Default::default()
        }),
        method_load: w.define(&rtdef(METHOD_LOAD_VERBOSE, 2, 5, KW_JIT, Some(37))),
        alloc_tick: w.define(&rtdef(rt::GC_ALLOCATION_TICK, 4, 5, KW_GC, Some(11))),
        triggered: w.define(&rtdef(rt::GC_TRIGGERED, 0, 4, KW_GC, Some(35))),
        suspend_begin: w.define(&rtdef(rt::GC_SUSPEND_EE_BEGIN, 1, 4, KW_GC, Some(10))),
        suspend_end: w.define(&rtdef(rt::GC_SUSPEND_EE_END, 1, 4, KW_GC, Some(137))),
        start: w.define(&rtdef(rt::GC_START, 2, 4, KW_GC, Some(1))),
        end: w.define(&rtdef(rt::GC_END, 1, 4, KW_GC, Some(2))),
        per_heap: w.define(&rtdef(rt::GC_PER_HEAP_HISTORY, 3, 4, KW_GC, None)),
        global: w.define(&rtdef(rt::GC_GLOBAL_HEAP_HISTORY, 4, 4, KW_GC, None)),
        heap_stats: w.define(&rtdef(rt::GC_HEAP_STATS, 2, 4, KW_GC, Some(133))),
        restart_begin: w.define(&rtdef(rt::GC_RESTART_EE_BEGIN, 1, 4, KW_GC, Some(136))),
        restart_end: w.define(&rtdef(rt::GC_RESTART_EE_END, 1, 4, KW_GC, Some(132))),
    }
}

/// The simulated managed heap (gen0, gen1, gen2, LOH, POH over all GC heaps).
struct Heap {
    size: [u64; 5],
    gc_count: u32,
    /// GC heaps the sizes are split over.
    count: u32,
}

/// Heap `h`'s share of `total` over `n` heaps: equal parts, the remainder on heap 0 (the shares
/// add up to the total exactly, so per-heap sums can be checked against it).
fn share(total: u64, h: u32, n: u32) -> u64 {
    let n = u64::from(n.max(1));
    total / n + if h == 0 { total % n } else { 0 }
}

/// Writes the workload, handing the bytes to `out` as they are produced (at most a few hundred KB
/// at a time). Returns what was written.
pub fn generate(cfg: &Config, out: &mut dyn FnMut(&[u8])) -> Truth {
    let header = Header {
        pointer_size: cfg.pointer_size,
        ..Header::default()
    };
    let mut w = NetTraceWriter::new(cfg.flavor, &header);
    let ids = define_all(&mut w);
    let mut rng = Rng(cfg.seed | 1);
    let mut truth = Truth::default();
    let threads = cfg.threads.max(1) as u64;
    let tid = |i: u64| 0x1000 + 17 * i;
    let ps = cfg.pointer_size;
    let mut bufs = Buffers::default();
    let ev = |b: &mut Buffers, id: u32, thread: u64, ts: i64, stack: u32, p: &[u8]| {
        b.push(
            EventFields {
                metadata_id: id,
                thread_id: thread,
                capture_thread_id: thread,
                processor: (thread % 2) as u32,
                stack_id: stack,
                timestamp: ts,
                ..Default::default()
            },
            p,
        );
    };

    let mut t: i64 = header.sync_time_qpc + 5 * NS_PER_MS;
    ev(
        &mut bufs,
        ids.process_info,
        tid(0),
        t,
        0,
        &payload::process_info("dotnet MyApp.dll --serve", "Linux 6.1.0-bench", "X64"),
    );
    let mut method_id: u64 = 0x7ff0_0000_0000;
    let mut method_load = |b: &mut Buffers, rng: &mut Rng, thread: u64, ts: i64| {
        method_id += 0x40 + rng.below(0x400);
        let ns = NAMESPACES[rng.below(NAMESPACES.len() as u64) as usize];
        let name = alloc::format!("Method{}", rng.below(100_000));
        let sig = "instance class System.Threading.Tasks.Task`1<!!0> (class System.String,int32,valuetype System.Threading.CancellationToken)";
        let p = payload::method_load_verbose_v2(
            method_id,
            0x7ff0_1000_0000 + rng.below(16) * 0x10000,
            method_id + 0x1000,
            (64 + rng.below(4000)) as u32,
            0x0600_0000 + rng.below(0xffff) as u32,
            (ns, &name, sig),
        );
        ev(b, ids.method_load, thread, ts, 0, &p);
    };
    // JIT at startup.
    for i in 0..1500u64 {
        t += 2_000 + rng.below(20_000) as i64;
        method_load(&mut bufs, &mut rng, tid(i % threads), t);
        truth.method_loads += 1;
    }

    let mut heap = Heap {
        size: [0, 4 << 20, 12 << 20, 3 << 20, 1 << 20],
        gc_count: 0,
        count: cfg.heaps.max(1),
    };
    let mut since_gc: u64 = 0;
    let mut tick_acc = vec![0u64; threads as usize];
    let mut last_sp = w.position();
    let mut last_flush = t;
    let per_thread = cfg.alloc_per_ms / threads;
    let mut gc_trigger: Option<u64> = None;
    while w.position() < cfg.target_bytes {
        let slice = t;
        for i in 0..threads {
            let th = tid(i);
            // Event times of this thread within the millisecond, increasing.
            let mut at = slice + rng.below(50_000) as i64;
            // Sample first (the profiler walks at the start of the tick), then allocation.
            let key = (i * 7919 + rng.below(64)) % STACK_POOL;
            let depth = 8 + (key % 40) as usize;
            let mut ips = [0u64; 48];
            for (d, ip) in ips.iter_mut().take(depth).enumerate() {
                *ip = 0x7ff0_2000_0000 + key * 0x1000 + d as u64 * 0x37;
            }
            let stack = w.stack(key, &ips[..depth]);
            ev(
                &mut bufs,
                ids.sample,
                th,
                at,
                stack,
                &payload::thread_sample(2),
            );
            truth.samples += 1;
            let mut alloc = per_thread / 2 + rng.below(per_thread.max(1));
            since_gc += alloc;
            truth.allocated_bytes += alloc;
            while tick_acc[i as usize] + alloc >= TICK_BYTES {
                let part = TICK_BYTES - tick_acc[i as usize];
                alloc -= part;
                tick_acc[i as usize] = 0;
                at += 1_000 + rng.below(900_000 / 16) as i64;
                let ty = rng.below(TYPE_NAMES.len() as u64) as usize;
                let large = ty == 1 && rng.below(20) == 0;
                let p = payload::allocation_tick_v4(
                    TICK_BYTES + rng.below(200),
                    if large { 1 } else { 0 },
                    0x7ff0_3000_0000 + ty as u64 * 0x88,
                    TYPE_NAMES[ty],
                    rng.below(u64::from(heap.count)) as u32,
                    0x7f00_0000_0000 + rng.below(1 << 32) * 8,
                    if large { 90_000 } else { 24 + rng.below(200) },
                    ps,
                );
                ev(&mut bufs, ids.alloc_tick, th, at, 0, &p);
                truth.allocation_ticks += 1;
            }
            tick_acc[i as usize] += alloc;
            if rng.below(400) == 0 {
                at += 1_000;
                method_load(&mut bufs, &mut rng, th, at);
                truth.method_loads += 1;
            }
            if gc_trigger.is_none() && since_gc >= cfg.gen0_budget {
                gc_trigger = Some(i);
            }
        }
        t = slice + NS_PER_MS;
        if let Some(i) = gc_trigger.take() {
            t = write_gc(
                &mut bufs,
                ps,
                &ids,
                &mut rng,
                &mut heap,
                &mut truth,
                tid(i),
                t,
                since_gc,
                &header,
            );
            since_gc = 0;
        }
        if t - last_flush >= FLUSH_NS {
            bufs.write(&mut w);
            last_flush = t;
            if w.position() - last_sp >= cfg.sequence_point_bytes {
                w.sequence_point(t);
                last_sp = w.position();
            }
        }
        if w.pending() >= 256 * 1024 {
            w.drain(out);
        }
    }
    bufs.write(&mut w);
    w.finish();
    w.drain(out);
    let wr = w.written();
    truth.events = wr.events;
    truth.bytes = wr.bytes;
    truth.sequence_points = wr.sequence_points;
    truth.stacks = wr.stacks;
    truth.metadata = wr.metadata;
    truth
}

/// Writes one blocking GC starting at `t` on thread `th`; returns when the EE is restarted.
#[allow(clippy::too_many_arguments)]
fn write_gc(
    w: &mut Buffers,
    pointer_size: u8,
    ids: &Ids,
    rng: &mut Rng,
    heap: &mut Heap,
    truth: &mut Truth,
    th: u64,
    t: i64,
    allocated: u64,
    header: &Header,
) -> i64 {
    heap.gc_count += 1;
    let n = heap.gc_count;
    let (gen, reason) = if n.is_multiple_of(500) {
        (2, 1) // induced
    } else if n.is_multiple_of(97) {
        (2, 0)
    } else if n.is_multiple_of(10) {
        (1, 0)
    } else {
        (0, 0)
    };
    let ev = |w: &mut Buffers, id: u32, ts: i64, p: &[u8]| {
        w.push(
            EventFields {
                metadata_id: id,
                thread_id: th,
                capture_thread_id: th,
                processor: (th % 2) as u32,
                timestamp: ts,
                ..Default::default()
            },
            p,
        );
    };
    let suspend = 20_000 + rng.below(180_000) as i64;
    let work = match gen {
        0 => 800_000 + rng.below(4_000_000),
        1 => 4_000_000 + rng.below(10_000_000),
        _ => 25_000_000 + rng.below(60_000_000),
    } as i64;
    let mut ts = t;
    ev(w, ids.triggered, ts, &payload::gc_triggered(reason));
    ts += 1_000;
    let suspend_begin = ts;
    ev(
        w,
        ids.suspend_begin,
        ts,
        &payload::suspend_ee_begin_v1(1, n),
    );
    ts += suspend;
    ev(w, ids.suspend_end, ts, &payload::clr_instance_only());
    ts += 2_000;
    let start = ts;
    ev(
        w,
        ids.start,
        ts,
        &payload::gc_start_v2(n, gen, reason, 0, n as u64),
    );

    // Heap evolution: gen0 is emptied, survivors promoted one generation up.
    let before = {
        let mut b = heap.size;
        b[0] = allocated;
        b
    };
    let mut after = before;
    let surv0 = allocated / 20 + rng.below(allocated / 40 + 1);
    let mut promoted = [0u64; 5];
    promoted[0] = surv0;
    after[0] = 0;
    if gen == 0 {
        after[1] = before[1] + surv0;
    } else {
        let surv1 = before[1] / 3;
        promoted[1] = surv1;
        after[1] = surv0;
        after[2] = before[2] + surv1;
        if gen == 2 {
            promoted[2] = before[2] * 7 / 10;
            after[2] = promoted[2] + surv1;
            promoted[3] = before[3] * 9 / 10;
            after[3] = promoted[3];
            promoted[4] = before[4];
        }
    }
    if gen < 2 {
        after[3] += 64 * 1024; // some LOH allocation
    }
    ts += work * 8 / 10;
    // CondemnReasons0's 2-bit generation slots: Initial, FinalPerHeap and AllocBudget all this GC's
    // generation (the budget of the generation collected was used up, and nothing raised it).
    let condemn = gen * 0b01_01_01;
    // Server GC: each heap's GC thread fires its heap's history (workstation: the GC's thread).
    let heaps = heap.count;
    for h in 0..heaps {
        let part = |x: u64| share(x, h, heaps);
        let gens: Vec<GenData> = (0..5)
            .map(|g| {
                let (b, a, p) = (part(before[g]), part(after[g]), part(promoted[g]));
                GenData {
                    size_before: b,
                    free_list_before: b / 50,
                    free_obj_before: b / 100,
                    size_after: a,
                    free_list_after: a / 60,
                    free_obj_after: a / 120,
                    in_bytes: if g > 0 { part(promoted[g - 1]) } else { 0 },
                    pinned_surv: p / 100,
                    non_pinned_surv: p - p / 100,
                    new_allocation: part(if g == 0 { allocated } else { 256 * 1024 }),
                }
            })
            .collect();
        let ph = PerHeapHistory {
            free_list_allocated: part(allocated / 10),
            free_list_rejected: part(allocated / 200),
            end_of_seg_allocated: part(allocated / 2),
            condemned_allocated: 0,
            pinned_allocated: 0,
            pinned_allocated_advance: 0,
            running_free_list_efficiency: 85,
            condemn_reasons0: condemn,
            condemn_reasons1: 0,
            compact_mechanisms: if gen == 2 { 1 << 3 } else { 0 },
            expand_mechanisms: 0,
            heap_index: h,
            extra_gen0_commit: 0,
            generations: gens,
        };
        let gc_thread = if heaps > 1 {
            0x9000 + 8 * u64::from(h)
        } else {
            th
        };
        w.push(
            EventFields {
                metadata_id: ids.per_heap,
                thread_id: gc_thread,
                capture_thread_id: gc_thread,
                processor: h,
                timestamp: ts + i64::from(h),
                ..Default::default()
            },
            &payload::per_heap_history_v3(&ph, pointer_size),
        );
    }
    ts += 1_000;
    let compacting = gen == 2;
    let gh = GlobalHistory {
        final_youngest_desired: 48 << 20,
        num_heaps: heaps as i32,
        condemned_generation: gen,
        gen0_reduction_count: 0,
        reason,
        global_mechanisms: if compacting { 0x2 } else { 0x0 },
        pause_mode: 1,
        memory_pressure: 35,
        condemn_reasons0: condemn,
        condemn_reasons1: 0,
        phase_times: if compacting {
            vec![10, 400, 20, 15, 12, 300, 800, 900]
        } else {
            vec![5, 200, 10, 8, 6, 150, 90]
        },
    };
    ev(w, ids.global, ts, &payload::global_heap_history_v4(&gh));
    ts += work * 2 / 10;
    ev(w, ids.end, ts, &payload::gc_end_v1(n, gen));
    ts += 3_000;
    let hs = HeapStats {
        size: after,
        promoted,
        finalization_promoted_size: 1024,
        finalization_promoted_count: 3,
        pinned_objects: 2,
        sync_blocks: 10,
        gc_handles: 300,
    };
    ev(w, ids.heap_stats, ts, &payload::heap_stats_v2(&hs));
    ts += 2_000;
    ev(w, ids.restart_begin, ts, &payload::clr_instance_only());
    ts += 10_000 + rng.below(50_000) as i64;
    ev(w, ids.restart_end, ts, &payload::clr_instance_only());
    heap.size = after;
    let ms = |x: i64| (x - header.sync_time_qpc) as f64 * 1000.0 / header.qpc_frequency as f64;
    truth.gcs.push(GcTruth {
        number: n,
        gen,
        reason,
        pause_ms: (ts - suspend_begin) as f64 * 1000.0 / header.qpc_frequency as f64,
        start_ms: ms(start),
        after_bytes: after.iter().sum(),
    });
    ts + 1_000
}
