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

mod gc;
mod ids;

use gc::{write_gc, Heap};
use ids::{define_all, NAMESPACES, TYPE_NAMES};

use alloc::vec;
use alloc::vec::Vec;

use super::payload;
use super::{EventFields, Flavor, Header, NetTraceWriter};

/// Runtime event id of MethodLoadVerbose.
const METHOD_LOAD_VERBOSE: u32 = 143;
/// Keywords: GC, JIT + Loader (MethodLoadVerbose).
const KW_GC: u64 = 0x1;
const KW_JIT: u64 = 0x10 | 0x8;
/// Distinct stacks the threads are sampled in.
const STACK_POOL: u64 = 4096;
/// Distinct stacks of the allocation ticks ([`Config::alloc_stacks`]), and the methods their
/// frames are in, at [`ALLOC_METHOD_BASE`] + i * 0x1000, each 0x800 bytes.
pub const ALLOC_STACKS: u64 = 300;
pub const ALLOC_METHODS: u64 = 400;
const ALLOC_METHOD_BASE: u64 = 0x7ff0_5000_0000;
/// Stack keys of the allocation stacks: above the sampled ones (below [`STACK_POOL`]).
const ALLOC_STACK_KEY: u64 = 1 << 32;
/// Rundown event id of MethodDCEndVerbose.
const METHOD_DC_END_VERBOSE: u32 = 144;

/// The addresses of allocation stack `s` (leaf first): 20 to 40 frames, frame `d` inside method
/// `(13 s + 7 d) % ALLOC_METHODS`.
fn alloc_stack(s: u64, out: &mut [u64; 40]) -> usize {
    let depth = 20 + (s % 21) as usize;
    for (d, ip) in out.iter_mut().take(depth).enumerate() {
        let m = (13 * s + 7 * d as u64) % ALLOC_METHODS;
        *ip = ALLOC_METHOD_BASE + m * 0x1000 + 0x10 + d as u64;
    }
    depth
}

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
    /// Allocation ticks carry stacks ([`ALLOC_STACKS`] distinct ones, 20 to 40 frames, each
    /// frame in one of [`ALLOC_METHODS`] methods), and the trace ends with the rundown's
    /// MethodDCEndVerbose for those methods, so `gcscope stacks --event alloc` names every frame.
    /// Off: the ticks have no stack and the file is what it was without the option.
    pub alloc_stacks: bool,
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
            alloc_stacks: false,
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

/// Writes the workload, handing the bytes to `out` as they are produced (at most a few hundred KB
/// at a time). Returns what was written.
pub fn generate(cfg: &Config, out: &mut dyn FnMut(&[u8])) -> Truth {
    let header = Header {
        pointer_size: cfg.pointer_size,
        ..Header::default()
    };
    let mut w = NetTraceWriter::new(cfg.flavor, &header);
    let ids = define_all(&mut w);
    // Defined after the others, and only with the option, so a trace without it is unchanged.
    let rundown_end = cfg.alloc_stacks.then(|| {
        w.define(&super::EventDef {
            provider: crate::clr::names::RUNDOWN_PROVIDER,
            event_id: METHOD_DC_END_VERBOSE,
            version: 2,
            level: 4,
            keywords: KW_JIT,
            opcode: Some(40),
            ..Default::default()
        })
    });
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
                let stack = if cfg.alloc_stacks {
                    // A fixed mix of the stacks, from the tick's number (no draw from `rng`).
                    let s = (truth.allocation_ticks.wrapping_mul(0x9e37_79b9) >> 7) % ALLOC_STACKS;
                    let mut frames = [0u64; 40];
                    let n = alloc_stack(s, &mut frames);
                    w.stack(ALLOC_STACK_KEY + s, &frames[..n])
                } else {
                    0
                };
                ev(&mut bufs, ids.alloc_tick, th, at, stack, &p);
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
    if let Some(id) = rundown_end {
        // The rundown as the session ends: every method the allocation stacks pass through.
        for m in 0..ALLOC_METHODS {
            t += 1_000;
            let name = alloc::format!("Alloc{m}");
            let p = payload::method_load_verbose_v2(
                0x7ff0_6000_0000 + m,
                0x7ff0_1000_0000,
                ALLOC_METHOD_BASE + m * 0x1000,
                0x800,
                0x0600_0000 + m as u32,
                (NAMESPACES[(m % 5) as usize], &name, "void  (int32)"),
            );
            ev(&mut bufs, id, tid(0), t, 0, &p);
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
