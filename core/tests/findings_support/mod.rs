//! Crafted traces for the findings' threshold tests, written with the project's NetTrace encoder
//! (`core::encode`, feature `encode`): GCs with the runtime's event sequence whose figures (pause,
//! suspension, work, promoted bytes, sizes, memory load, pinned objects, ...) are set by the test,
//! so each expected value is worked out by hand from the numbers put in.
#![allow(dead_code)]

use gcscope_core::clr::names::{PRIVATE_PROVIDER, RUNDOWN_PROVIDER, RUNTIME_PROVIDER};
use gcscope_core::encode::payload::{self, GenData, GlobalHistory, HeapStats, PerHeapHistory};
use gcscope_core::encode::{EventDef, EventFields, Flavor, Header, NetTraceWriter};
use gcscope_core::findings::{analyze_model, Finding, Outcome, Report, Settings};
use gcscope_core::gc::GcModel;

/// The thread that triggers and runs blocking GCs, and the background GC's thread.
pub const TH: u64 = 0x100;
pub const BGC_TH: u64 = 0x200;

/// GCStart Type.
pub const BLOCKING: u32 = 0;
pub const BACKGROUND: u32 = 1;

/// GCStart Reason.
pub const ALLOC_SMALL: u32 = 0;
pub const INDUCED: u32 = 1;
pub const ALLOC_LARGE: u32 = 4;
pub const INDUCED_NOT_FORCED: u32 = 7;

/// CondemnReasons1 bits (the GC's condemn conditions).
pub const HIGH_MEM: u32 = 1 << 2;

/// One GC as the test wants it.
#[derive(Debug, Clone)]
pub struct Gc {
    pub n: u32,
    pub gen: u32,
    pub kind: u32,
    pub reason: u32,
    /// Pause start (SuspendEEBegin), ms.
    pub t: f64,
    /// SuspendEEBegin to SuspendEEEnd, ms.
    pub suspend: f64,
    /// GCStart to GCEnd, ms.
    pub work: f64,
    pub heaps: u32,
    /// GCHeapStats' promoted bytes (all put in gen0's slot; the model sums them).
    pub promoted: u64,
    /// Gen2 size after the GC and its free space (free list) after, over all heaps.
    pub gen2_size: u64,
    pub gen2_free: u64,
    /// Gen0 size before the GC over all heaps (the other generations are empty before).
    pub gen0_before: u64,
    pub memory_load: u32,
    pub pinned: u32,
    pub finalization_promoted: u64,
    pub conditions: u32,
}

impl Gc {
    /// A gen0 AllocSmall blocking GC, workstation, pausing `work + suspend + 0.004` ms.
    pub fn new(n: u32, t: f64) -> Gc {
        Gc {
            n,
            gen: 0,
            kind: BLOCKING,
            reason: ALLOC_SMALL,
            t,
            suspend: 0.01,
            work: 1.0,
            heaps: 1,
            promoted: 1_000_000,
            gen2_size: 10_000_000,
            gen2_free: 100_000,
            gen0_before: 4_000_000,
            memory_load: 20,
            pinned: 0,
            finalization_promoted: 0,
            conditions: 0,
        }
    }

    pub fn gen(mut self, gen: u32) -> Gc {
        self.gen = gen;
        self
    }
    pub fn background(mut self) -> Gc {
        self.kind = BACKGROUND;
        self.gen = 2;
        self
    }
    pub fn reason(mut self, r: u32) -> Gc {
        self.reason = r;
        self
    }
    pub fn suspend(mut self, ms: f64) -> Gc {
        self.suspend = ms;
        self
    }
    pub fn work(mut self, ms: f64) -> Gc {
        self.work = ms;
        self
    }
    pub fn promoted(mut self, b: u64) -> Gc {
        self.promoted = b;
        self
    }
    pub fn gen2(mut self, size: u64, free: u64) -> Gc {
        self.gen2_size = size;
        self.gen2_free = free;
        self
    }
    pub fn before(mut self, gen0_before: u64) -> Gc {
        self.gen0_before = gen0_before;
        self
    }
    pub fn load(mut self, pct: u32) -> Gc {
        self.memory_load = pct;
        self
    }
    pub fn pinned(mut self, n: u32) -> Gc {
        self.pinned = n;
        self
    }
    pub fn finalizable(mut self, b: u64) -> Gc {
        self.finalization_promoted = b;
        self
    }
    pub fn conditions(mut self, bits: u32) -> Gc {
        self.conditions = bits;
        self
    }
    pub fn heaps(mut self, n: u32) -> Gc {
        self.heaps = n;
        self
    }

    /// A blocking GC's pause: suspension, 0.001 ms to GCStart, the work, 0.003 ms to RestartEEEnd.
    pub fn pause(&self) -> f64 {
        self.suspend + 0.001 + self.work + 0.003
    }
}

/// One event to write: (ms, provider, id, version, thread, payload).
type Ev = (f64, &'static str, u32, u32, u64, Vec<u8>);

/// A trace being crafted.
pub struct Trace {
    pub processors: u32,
    events: Vec<Ev>,
    /// Sequence numbers to skip on the GC thread (dropped events), before the event at this index.
    drop_at: Option<(usize, u32)>,
}

fn rt(ms: f64, id: u32, version: u32, thread: u64, p: Vec<u8>) -> Ev {
    (ms, RUNTIME_PROVIDER, id, version, thread, p)
}

fn clr_only() -> Vec<u8> {
    payload::clr_instance_only()
}

impl Trace {
    pub fn new() -> Trace {
        Trace {
            processors: 2,
            events: Vec::new(),
            drop_at: None,
        }
    }

    fn histories(&mut self, g: &Gc, at: f64, thread: u64) {
        let heaps = g.heaps.max(1);
        let r0 = g.gen << 2 | g.gen;
        for h in 0..heaps {
            let share = |v: u64| v / u64::from(heaps);
            let mut gens = vec![GenData::default(); 5];
            gens[0] = GenData {
                size_before: share(g.gen0_before),
                size_after: 1000,
                new_allocation: 4_000_000,
                ..GenData::default()
            };
            gens[2] = GenData {
                size_before: share(g.gen2_size),
                size_after: share(g.gen2_size),
                free_list_after: share(g.gen2_free),
                new_allocation: 8_000_000,
                ..GenData::default()
            };
            let phh = PerHeapHistory {
                condemn_reasons0: r0,
                condemn_reasons1: g.conditions,
                heap_index: h,
                generations: gens,
                ..PerHeapHistory::default()
            };
            self.events.push(rt(
                at,
                204,
                3,
                thread,
                payload::per_heap_history_v3(&phh, 8),
            ));
        }
        let gh = GlobalHistory {
            final_youngest_desired: 4_000_000,
            num_heaps: heaps as i32,
            condemned_generation: g.gen,
            reason: g.reason,
            global_mechanisms: 0x2,
            pause_mode: 1,
            memory_pressure: g.memory_load,
            condemn_reasons0: r0,
            condemn_reasons1: g.conditions,
            ..GlobalHistory::default()
        };
        self.events.push(rt(
            at + 0.0005,
            205,
            4,
            thread,
            payload::global_heap_history_v4(&gh),
        ));
    }

    fn heap_stats(&mut self, g: &Gc, at: f64, thread: u64) {
        let hs = HeapStats {
            size: [1000 * u64::from(g.heaps.max(1)), 0, g.gen2_size, 0, 0],
            promoted: [g.promoted, 0, 0, 0, 0],
            finalization_promoted_size: g.finalization_promoted,
            finalization_promoted_count: g.finalization_promoted / 100,
            pinned_objects: g.pinned,
            sync_blocks: 1,
            gc_handles: 10,
        };
        self.events
            .push(rt(at, 4, 2, thread, payload::heap_stats_v2(&hs)));
    }

    /// Adds a GC. Blocking: SuspendEEBegin at `t`, SuspendEEEnd, GCStart 0.001 ms later, its
    /// histories, GCEnd after `work`, GCHeapStats, RestartEEBegin/End (see [`Gc::pause`]).
    /// Background: the initial suspension (`suspend`), GCStart, restart 0.5 ms after `t`; its final
    /// suspension 1 ms before its end on its own thread, then its histories, GCEnd at
    /// `t + suspend + 0.001 + work`, GCHeapStats.
    pub fn gc(&mut self, g: Gc) -> &mut Trace {
        let start = g.t + g.suspend + 0.001;
        let end = start + g.work;
        let e = &mut self.events;
        if g.kind == BACKGROUND {
            e.push(rt(g.t, 9, 1, TH, payload::suspend_ee_begin_v1(1, g.n - 1)));
            e.push(rt(g.t + g.suspend, 8, 1, TH, clr_only()));
            e.push(rt(
                start,
                1,
                2,
                TH,
                payload::gc_start_v2(g.n, 2, g.reason, BACKGROUND, 0),
            ));
            e.push(rt(g.t + 0.5, 3, 1, TH, clr_only()));
            e.push(rt(
                end - 1.0,
                9,
                1,
                BGC_TH,
                payload::suspend_ee_begin_v1(6, g.n),
            ));
            e.push(rt(end - 0.99, 8, 1, BGC_TH, clr_only()));
            e.push(rt(end - 0.7, 3, 1, BGC_TH, clr_only()));
            self.histories(&g, end - 0.1, BGC_TH);
            self.events
                .push(rt(end, 2, 1, BGC_TH, payload::gc_end_v1(g.n, 2)));
            self.heap_stats(&g, end + 0.001, BGC_TH);
        } else {
            e.push(rt(g.t, 9, 1, TH, payload::suspend_ee_begin_v1(1, g.n - 1)));
            e.push(rt(g.t + g.suspend, 8, 1, TH, clr_only()));
            e.push(rt(
                start,
                1,
                2,
                TH,
                payload::gc_start_v2(g.n, g.gen, g.reason, g.kind, 0),
            ));
            self.histories(&g, end - 0.002, TH);
            self.events
                .push(rt(end, 2, 1, TH, payload::gc_end_v1(g.n, g.gen)));
            self.heap_stats(&g, end + 0.001, TH);
            self.events.push(rt(end + 0.002, 7, 1, TH, clr_only()));
            self.events.push(rt(end + 0.003, 3, 1, TH, clr_only()));
        }
        self
    }

    /// GCSettingsRundown (rundown provider): the hard limit, background GC on.
    pub fn hard_limit(&mut self, at: f64, bytes: u64) -> &mut Trace {
        let mut p = Vec::new();
        for v in [bytes, 85_000, 0, 0, 0] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        p.extend_from_slice(&0u32.to_le_bytes()); // HighMemPercentConfig
        p.extend_from_slice(&(0x1u32 | 0x8).to_le_bytes()); // concurrent, hard limit configured
        p.extend_from_slice(&payload::CLR_INSTANCE.to_le_bytes());
        self.events.push((at, RUNDOWN_PROVIDER, 10, 0, TH, p));
        self
    }

    /// A thread waiting on LOH allocation during a background GC: the private provider's
    /// BGCAllocWaitBegin/End (u32 Reason, u16 ClrInstanceID).
    pub fn loh_wait(&mut self, thread: u64, from: f64, to: f64, reason: u32) -> &mut Trace {
        let p = |r: u32| {
            let mut v = r.to_le_bytes().to_vec();
            v.extend_from_slice(&payload::CLR_INSTANCE.to_le_bytes());
            v
        };
        self.events
            .push((from, PRIVATE_PROVIDER, 23, 0, thread, p(reason)));
        self.events
            .push((to, PRIVATE_PROVIDER, 24, 0, thread, p(reason)));
        self
    }

    /// A DATAS SizeAdaptationSample (GCDynamicEvent) for GC `gc`: its pause and the time since the
    /// previous GC, in µs (no allocation-lock wait), so its cost is pause / elapsed.
    pub fn datas_sample(&mut self, at: f64, gc: u64, elapsed_us: u32, pause_us: u32) -> &mut Trace {
        let mut blob = Vec::new();
        blob.extend_from_slice(&1u16.to_le_bytes());
        blob.extend_from_slice(&gc.to_le_bytes());
        blob.extend_from_slice(&elapsed_us.to_le_bytes());
        blob.extend_from_slice(&pause_us.to_le_bytes());
        blob.extend_from_slice(&0u32.to_le_bytes()); // SOH lock wait
        blob.extend_from_slice(&0u32.to_le_bytes()); // UOH lock wait
        blob.extend_from_slice(&50_000_000u64.to_le_bytes()); // SOH stable size
        blob.extend_from_slice(&2_000_000u32.to_le_bytes()); // gen0 budget per heap
        let mut p = Vec::new();
        for u in "SizeAdaptationSample".encode_utf16() {
            p.extend_from_slice(&u.to_le_bytes());
        }
        p.extend_from_slice(&[0, 0]);
        p.extend_from_slice(&(blob.len() as u32).to_le_bytes());
        p.extend_from_slice(&blob);
        p.extend_from_slice(&payload::CLR_INSTANCE.to_le_bytes());
        self.events.push(rt(at, 39, 0, TH, p));
        self
    }

    /// The GC thread's sequence numbers skip `n` before its `index`th event (n dropped events).
    pub fn drop_events(&mut self, index: usize, n: u32) -> &mut Trace {
        self.drop_at = Some((index, n));
        self
    }

    /// The trace's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let header = Header {
            processor_count: self.processors,
            ..Header::default()
        };
        let mut w = NetTraceWriter::new(Flavor::V4, &header);
        let mut ids: Vec<((&str, u32, u32), u32)> = Vec::new();
        let mut events = self.events.clone();
        // Stable: events at one time keep the order they were added in.
        events.sort_by(|a, b| a.0.total_cmp(&b.0));
        let ns_per_ms = 1_000_000.0;
        let mut seq: std::collections::BTreeMap<u64, u32> = Default::default();
        let mut on_gc_thread = 0usize;
        for (ms, provider, id, version, thread, p) in &events {
            let key = (*provider, *id, *version);
            let meta = match ids.iter().find(|(k, _)| *k == key) {
                Some((_, m)) => *m,
                None => {
                    let m = w.define(&EventDef {
                        provider,
                        event_id: *id,
                        version: *version,
                        level: 4,
                        keywords: 1,
                        ..EventDef::default()
                    });
                    ids.push((key, m));
                    m
                }
            };
            let s = seq.entry(*thread).or_insert(0);
            *s += 1;
            if *thread == TH {
                if let Some((_, n)) = self.drop_at.filter(|d| d.0 == on_gc_thread) {
                    *s += n;
                }
                on_gc_thread += 1;
            }
            w.event(
                &EventFields {
                    metadata_id: meta,
                    thread_id: *thread,
                    capture_thread_id: *thread,
                    timestamp: header.sync_time_qpc + (ms * ns_per_ms).round() as i64,
                    sequence: Some(*s),
                    ..EventFields::default()
                },
                p,
            );
        }
        w.finish();
        let mut out = Vec::new();
        w.drain(&mut |b| out.extend_from_slice(b));
        out
    }

    pub fn model(&self) -> GcModel {
        gcscope_core::gc::analyze(&self.bytes()).expect("the crafted trace decodes")
    }

    pub fn report(&self, settings: &Settings) -> Report {
        analyze_model(&self.model(), settings)
    }
}

impl Default for Trace {
    fn default() -> Self {
        Trace::new()
    }
}

/// The finding of `rule`, if found.
pub fn finding<'a>(r: &'a Report, rule: &str) -> Option<&'a Finding> {
    r.findings.iter().find(|f| f.rule == rule)
}

/// The outcome of checking `rule`.
pub fn outcome(r: &Report, rule: &str) -> Outcome {
    r.checks
        .iter()
        .find(|c| c.rule == rule)
        .unwrap_or_else(|| panic!("{rule} not checked"))
        .outcome
}

/// A figure of a finding, by label.
pub fn figure(f: &Finding, label: &str) -> f64 {
    f.evidence
        .figures
        .iter()
        .find(|x| x.label == label)
        .unwrap_or_else(|| panic!("{}: no figure {label:?}", f.rule))
        .value
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6 * b.abs().max(1.0)
}
