//! The test-only encoder against the decoder: what the encoder writes is what the decoder reads back,
//! field by field (V4 and V5, any chunking), typed GC payloads decode to the values put in, and a
//! generated workload's GCs come out of the model as written. Run with `--features encode`.
#![cfg(feature = "encode")]

use gcscope_core::clr::{self, ClrEvent};
use gcscope_core::encode::payload::{self, GenData, GlobalHistory, HeapStats, PerHeapHistory};
use gcscope_core::encode::workload::{self, Config};
use gcscope_core::encode::{EventDef, EventFields, Field, Flavor, Header, NetTraceWriter};
use gcscope_core::gc::ModelBuilder;
use gcscope_core::{event::TraceInfo, TraceReader};

/// An event as the test expects to read it back.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    provider: String,
    event_id: u32,
    version: u32,
    name: String,
    timestamp: i64,
    thread_id: u64,
    capture_thread_id: u64,
    sequence: u32,
    processor: u32,
    stack_id: u32,
    payload: Vec<u8>,
}

fn decode(bytes: &[u8], chunk: usize) -> (Vec<Seen>, TraceInfo, gcscope_core::DecodeStats) {
    let mut r = TraceReader::new();
    let mut out = Vec::new();
    let mut sink = |e: &gcscope_core::event::Event<'_>| {
        out.push(Seen {
            provider: e.provider.into(),
            event_id: e.event_id,
            version: e.version,
            name: e.name.into(),
            timestamp: e.timestamp,
            thread_id: e.thread_id,
            capture_thread_id: e.capture_thread_id,
            sequence: e.sequence,
            processor: e.processor,
            stack_id: e.stack_id,
            payload: e.payload.to_vec(),
        })
    };
    for c in bytes.chunks(chunk) {
        r.push(c, &mut sink).expect("decodes");
    }
    r.finish(&mut sink).expect("finishes");
    (out, r.info().cloned().unwrap(), r.stats().clone())
}

struct Small {
    bytes: Vec<u8>,
    expected: Vec<Seen>,
    stacks: u64,
    sequence_points: u64,
    metadata: u64,
}

/// A small trace exercising every header field: three capture threads interleaved out of timestamp
/// order, stacks across two sequence-point regions, activity ids, repeated and changing payload
/// sizes, a wrapped ("negative") timestamp delta, managed and runtime metadata, 4- and 8-byte pointers.
fn small(flavor: Flavor, pointer_size: u8) -> Small {
    let header = Header {
        pointer_size,
        ..Header::default()
    };
    let mut w = NetTraceWriter::new(flavor, &header);
    let fields = [Field {
        type_code: 9,
        name: "Value",
    }];
    let managed = w.define(&EventDef {
        provider: "MyCompany-MyApp",
        event_id: 7,
        name: "RequestStart",
        version: 3,
        level: 4,
        keywords: 0xf0,
        opcode: Some(1),
        fields: &fields,
    });
    let gc_start = w.define(&EventDef {
        provider: clr::names::RUNTIME_PROVIDER,
        event_id: 1,
        version: 2,
        level: 4,
        keywords: 1,
        ..Default::default()
    });
    let sample = w.define(&EventDef {
        provider: clr::names::SAMPLE_PROFILER_PROVIDER,
        event_id: 0,
        name: "ThreadSample",
        ..Default::default()
    });
    let mut expected = Vec::new();
    let mut seqs = std::collections::BTreeMap::<u64, u32>::new();
    let t0 = header.sync_time_qpc;
    let mut stacks = 0;
    for region in 0..2u64 {
        for k in 0..40u64 {
            let th = 100 + (k % 3);
            // Each thread's events are written as a run, so timestamps go back between runs.
            let ts = t0 + region as i64 * 1_000_000 + ((k % 3) * 10 + k / 3) as i64 * 7;
            let (id, provider, event_id, version, name, payload): (
                u32,
                &str,
                u32,
                u32,
                &str,
                Vec<u8>,
            ) = match k % 4 {
                0 => (
                    gc_start,
                    clr::names::RUNTIME_PROVIDER,
                    1,
                    2,
                    "GC/Start",
                    payload::gc_start_v2(k as u32, 0, 0, 0, k),
                ),
                1 | 2 => (
                    sample,
                    clr::names::SAMPLE_PROFILER_PROVIDER,
                    0,
                    0,
                    "Thread/Sample",
                    payload::thread_sample(2),
                ),
                _ => (
                    managed,
                    "MyCompany-MyApp",
                    7,
                    3,
                    "Request/Start",
                    vec![k as u8; (k % 5) as usize * 3],
                ),
            };
            let stack_id = if k % 4 == 1 {
                let ips: Vec<u64> = (0..(k % 6)).map(|d| 0x1000_0000 + d * 16 + k).collect();
                w.stack(k % 5, &ips)
            } else {
                0
            };
            let f = EventFields {
                metadata_id: id,
                thread_id: th + 1000 * (k % 2),
                capture_thread_id: th,
                processor: if k % 7 == 0 { u32::MAX } else { (k % 2) as u32 },
                stack_id,
                timestamp: ts,
                sorted: false,
                activity_id: (k % 9 == 0).then_some([k as u8; 16]),
                related_activity_id: (k % 11 == 0).then_some([0xee; 16]),
                sequence: None,
            };
            let seq = w.event(&f, &payload);
            let s = seqs.entry(th).or_insert(0);
            *s += 1;
            assert_eq!(seq, *s, "the writer numbers each capture thread from 1");
            expected.push(Seen {
                provider: provider.into(),
                event_id,
                version,
                name: name.into(),
                timestamp: ts,
                thread_id: f.thread_id,
                capture_thread_id: th,
                sequence: seq,
                processor: f.processor,
                stack_id,
                payload,
            });
        }
        stacks += 5;
        w.sequence_point(t0 + (region as i64 + 1) * 1_000_000 - 1);
    }
    w.finish();
    let meta = w.written().metadata;
    let sps = w.written().sequence_points;
    assert_eq!(w.written().stacks, stacks);
    let mut bytes = Vec::new();
    w.drain(&mut |b| bytes.extend_from_slice(b));
    // Decoders deliver in timestamp order (stable within a region); the regions here do not overlap.
    expected.sort_by_key(|e| e.timestamp);
    Small {
        bytes,
        expected,
        stacks,
        sequence_points: sps,
        metadata: meta,
    }
}

#[test]
fn every_field_round_trips_in_v4_and_v5_with_any_chunking() {
    for flavor in [Flavor::V4, Flavor::V5] {
        for ptr in [8u8, 4] {
            let s = small(flavor, ptr);
            for chunk in [1, 3, 64, 4096, usize::MAX] {
                let (seen, info, stats) = decode(&s.bytes, chunk.min(s.bytes.len()));
                assert_eq!(info.format, "nettrace-v4");
                assert_eq!(info.pointer_size, ptr);
                assert_eq!((info.qpc_frequency, info.process_id), (1_000_000_000, 4242));
                assert_eq!(
                    seen.len(),
                    s.expected.len(),
                    "{flavor:?} ptr {ptr} chunk {chunk}"
                );
                for (i, (a, b)) in seen.iter().zip(&s.expected).enumerate() {
                    assert_eq!(a, b, "event {i}, {flavor:?} ptr {ptr} chunk {chunk}");
                }
                assert_eq!(stats.metadata, s.metadata);
                assert_eq!(stats.stacks, s.stacks);
                assert_eq!(stats.sequence_points, s.sequence_points);
                assert_eq!(stats.dropped_events, 0);
                assert_eq!(stats.skipped_events, 0);
                assert_eq!(stats.trace_bytes, s.bytes.len() as u64);
            }
        }
    }
}

#[test]
fn padding_is_right_at_every_alignment() {
    // Metadata records of every length mod 4 shift each following block by one byte.
    for extra in 0..8usize {
        let mut w = NetTraceWriter::new(Flavor::V5, &Header::default());
        let name = "x".repeat(extra);
        let id = w.define(&EventDef {
            provider: "P",
            event_id: 1,
            name: &name,
            ..Default::default()
        });
        for k in 0..5u32 {
            w.event(
                &EventFields {
                    metadata_id: id,
                    thread_id: 1,
                    capture_thread_id: 1,
                    timestamp: 1_000_000_000 + k as i64,
                    ..Default::default()
                },
                &vec![1u8; k as usize],
            );
            w.flush_events();
        }
        w.finish();
        let mut bytes = Vec::new();
        w.drain(&mut |b| bytes.extend_from_slice(b));
        let (seen, _, stats) = decode(&bytes, 5);
        assert_eq!(seen.len(), 5);
        assert_eq!(stats.blocks, 1 + 5);
        assert_eq!(seen[4].payload, vec![1u8; 4]);
    }
}

#[test]
fn gaps_in_written_sequence_numbers_are_counted_as_dropped() {
    let mut w = NetTraceWriter::new(Flavor::V4, &Header::default());
    let id = w.define(&EventDef {
        provider: "P",
        event_id: 1,
        ..Default::default()
    });
    let mut f = EventFields {
        metadata_id: id,
        thread_id: 5,
        capture_thread_id: 5,
        timestamp: 1_000_000_000,
        ..Default::default()
    };
    w.event(&f, &[]);
    f.sequence = Some(5); // 2, 3, 4 dropped
    f.timestamp += 1;
    w.event(&f, &[]);
    f.sequence = None;
    f.timestamp += 1;
    assert_eq!(w.event(&f, &[]), 6);
    w.finish();
    let mut bytes = Vec::new();
    w.drain(&mut |b| bytes.extend_from_slice(b));
    let (seen, _, stats) = decode(&bytes, 1 << 20);
    assert_eq!(
        seen.iter().map(|e| e.sequence).collect::<Vec<_>>(),
        [1, 5, 6]
    );
    assert_eq!(stats.dropped_events, 3);
}

fn ev<'a>(
    version: u32,
    event_id: u32,
    payload: &'a [u8],
    ptr: u8,
) -> gcscope_core::event::Event<'a> {
    gcscope_core::event::Event {
        provider: clr::names::RUNTIME_PROVIDER,
        event_id,
        version,
        name: "",
        timestamp: 0,
        time_ms: 0.0,
        process_id: 0,
        thread_id: 0,
        capture_thread_id: 0,
        sequence: 0,
        processor: 0,
        stack_id: 0,
        stack: 0,
        pointer_size: ptr,
        payload,
        ticks: None,
    }
}

#[test]
fn gc_payloads_decode_to_the_values_written() {
    let p = payload::gc_start_v2(77, 2, 4, 1, 99);
    assert_eq!(p.len(), 26);
    let Some(Ok(ClrEvent::GcStart(s))) = clr::decode(&ev(2, 1, &p, 8)) else {
        panic!()
    };
    assert_eq!(
        (s.count, s.depth, s.reason.raw(), s.gc_type.map(|t| t.raw())),
        (77, Some(2), 4, Some(1))
    );
    assert_eq!(
        (s.clr_instance_id, s.client_sequence_number),
        (Some(payload::CLR_INSTANCE), Some(99))
    );

    let p = payload::gc_end_v1(77, 2);
    let Some(Ok(ClrEvent::GcEnd(e))) = clr::decode(&ev(1, 2, &p, 8)) else {
        panic!()
    };
    assert_eq!((e.count, e.depth), (77, 2));

    let hs = HeapStats {
        size: [1, 2, 3, 4, 5],
        promoted: [6, 7, 8, 9, 10],
        finalization_promoted_size: 11,
        finalization_promoted_count: 12,
        pinned_objects: 13,
        sync_blocks: 14,
        gc_handles: 15,
    };
    let p = payload::heap_stats_v2(&hs);
    assert_eq!(p.len(), 110);
    let Some(Ok(ClrEvent::GcHeapStats(h))) = clr::decode(&ev(2, 4, &p, 8)) else {
        panic!()
    };
    assert_eq!(h.generation_size, [1, 2, 3, 4]);
    assert_eq!(h.total_promoted_size, [6, 7, 8, 9]);
    assert_eq!((h.poh_size, h.poh_promoted_size), (Some(5), Some(10)));
    assert_eq!(
        (h.finalization_promoted_size, h.finalization_promoted_count),
        (11, 12)
    );
    assert_eq!(
        (h.pinned_object_count, h.sink_block_count, h.gc_handle_count),
        (13, 14, 15)
    );

    let gh = GlobalHistory {
        final_youngest_desired: 1 << 30,
        num_heaps: 4,
        condemned_generation: 1,
        gen0_reduction_count: 2,
        reason: 5,
        global_mechanisms: 0x2,
        pause_mode: 1,
        memory_pressure: 40,
        condemn_reasons0: 0x10,
        condemn_reasons1: 0x20,
        phase_times: vec![1, 2, 3, 4, 5, 6, 7, 8],
    };
    let p = payload::global_heap_history_v4(&gh);
    assert_eq!(p.len(), 50 + 4 * 8);
    let Some(Ok(ClrEvent::GcGlobalHeapHistory(g))) = clr::decode(&ev(4, 205, &p, 8)) else {
        panic!()
    };
    assert_eq!(
        (
            g.final_youngest_desired,
            g.num_heaps,
            g.condemned_generation
        ),
        (1 << 30, 4, 1)
    );
    assert_eq!(
        (g.reason.raw(), g.global_mechanisms.0, g.memory_pressure),
        (5, 2, Some(40))
    );
    let c = g.condemn_reasons.unwrap();
    assert_eq!((c.reasons0, c.reasons1), (0x10, 0x20));
    assert_eq!(
        g.phase_times.unwrap().iter().collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6, 7, 8]
    );

    for ptr in [8u8, 4] {
        let gens: Vec<GenData> = (0..5u64)
            .map(|g| GenData {
                size_before: 100 + g,
                free_list_before: 200 + g,
                free_obj_before: 300 + g,
                size_after: 400 + g,
                free_list_after: 500 + g,
                free_obj_after: 600 + g,
                in_bytes: 700 + g,
                pinned_surv: 800 + g,
                non_pinned_surv: 900 + g,
                new_allocation: 1000 + g,
            })
            .collect();
        let ph = PerHeapHistory {
            free_list_allocated: 1,
            free_list_rejected: 2,
            end_of_seg_allocated: 3,
            condemned_allocated: 4,
            pinned_allocated: 5,
            pinned_allocated_advance: 6,
            running_free_list_efficiency: 7,
            condemn_reasons0: 8,
            condemn_reasons1: 9,
            compact_mechanisms: 10,
            expand_mechanisms: 11,
            heap_index: 3,
            extra_gen0_commit: 12,
            generations: gens,
        };
        let p = payload::per_heap_history_v3(&ph, ptr);
        assert_eq!(
            p.len(),
            2 + 6 * ptr as usize + 24 + ptr as usize + 4 + 50 * ptr as usize
        );
        let Some(Ok(ClrEvent::GcPerHeapHistory(h))) = clr::decode(&ev(3, 204, &p, ptr)) else {
            panic!()
        };
        assert_eq!(
            (
                h.free_list_allocated,
                h.pinned_allocated_advance,
                h.heap_index
            ),
            (1, 6, 3)
        );
        assert_eq!(
            (h.condemn_reasons.reasons0, h.condemn_reasons.reasons1),
            (8, 9)
        );
        assert_eq!(
            (h.compact_mechanisms, h.expand_mechanisms, h.count),
            (10, 11, 5)
        );
        let g: Vec<_> = h.generations().collect();
        assert_eq!(g.len(), 5);
        assert_eq!(
            (g[3].size_before, g[3].size_after, g[3].new_allocation),
            (103, 403, 1003)
        );
        assert_eq!(
            (g[4].in_bytes, g[4].pinned_surv, g[4].non_pinned_surv),
            (704, 804, 904)
        );

        let p = payload::allocation_tick_v4(
            0x1_0000_0010,
            1,
            0xabc,
            "System.Byte[]",
            2,
            0xdef0,
            85_000,
            ptr,
        );
        let Some(Ok(ClrEvent::GcAllocationTick(a))) = clr::decode(&ev(4, 10, &p, ptr)) else {
            panic!()
        };
        assert_eq!(
            (a.allocation_amount, a.kind.raw(), a.allocation_amount64),
            (0x10, 1, Some(0x1_0000_0010))
        );
        assert_eq!(a.type_name.unwrap().to_string_lossy(), "System.Byte[]");
        assert_eq!(
            (a.type_id, a.heap_index, a.address, a.object_size),
            (Some(0xabc), Some(2), Some(0xdef0), Some(85_000))
        );
    }
}

/// Streams a generated workload through the decoder and the model without touching disk; the GCs
/// the model reports are the ones written (count, number, generation, reason, pause).
fn model_matches_workload(cfg: &Config) {
    let mut reader = TraceReader::new();
    let mut model = ModelBuilder::new(&TraceInfo::default());
    let mut events = 0u64;
    let mut err = None;
    let truth = workload::generate(cfg, &mut |bytes| {
        if err.is_none() {
            err = reader
                .push(bytes, &mut |e| {
                    events += 1;
                    model.on_event(e)
                })
                .err();
        }
    });
    assert!(err.is_none(), "{err:?}");
    reader
        .finish(&mut |e| {
            events += 1;
            model.on_event(e)
        })
        .unwrap();
    model.set_info(reader.info().unwrap());
    let stats = reader.stats().clone();
    assert_eq!(stats.trace_bytes, truth.bytes);
    assert_eq!(events, truth.events);
    assert_eq!(stats.stacks, truth.stacks);
    assert_eq!(stats.sequence_points, truth.sequence_points);
    assert_eq!(stats.dropped_events, 0);
    let m = model.finish(Some(&stats));
    assert!(truth.gcs.len() > 10, "the workload writes GCs");
    assert_eq!(m.gcs.len(), truth.gcs.len());
    for (g, t) in m.gcs.iter().zip(&truth.gcs) {
        assert_eq!(
            (g.number, g.gen as u32, g.reason_code),
            (t.number, t.gen, t.reason)
        );
        assert!(g.complete, "GC {} incomplete: {:?}", g.number, g.missing);
        let pause = g.pause_ms.expect("pause");
        assert!(
            (pause - t.pause_ms).abs() < 1e-6,
            "GC {} pause {pause} vs {}",
            g.number,
            t.pause_ms
        );
        assert!((g.gc_start_ms - t.start_ms).abs() < 1e-6);
        // The generator condemns the GC's own generation, first and last, for its budget.
        let c = g.condemn.as_ref().expect("condemn reasons");
        assert_eq!(
            (c.initial_gen, c.final_gen, c.alloc_budget_gen),
            (g.gen, g.gen, g.gen),
            "GC {}",
            g.number
        );
    }
    let total: f64 = m.gcs.iter().filter_map(|g| g.pause_ms).sum();
    let want: f64 = truth.gcs.iter().map(|g| g.pause_ms).sum();
    assert!((total - want).abs() < 1e-3);
    // Every heap's history is attributed to its GC, and the heaps' shares add up to what was written.
    let heaps = cfg.heaps.max(1);
    let mode = if heaps > 1 { "server" } else { "workstation" };
    assert_eq!(m.process.gc_mode.as_deref(), Some(mode));
    for (g, t) in m.gcs.iter().zip(&truth.gcs) {
        assert_eq!(g.heap_count, Some(heaps), "GC {}", g.number);
        let indices: Vec<u32> = g.heaps.iter().map(|h| h.heap).collect();
        assert_eq!(indices, (0..heaps).collect::<Vec<_>>(), "GC {}", g.number);
        let after: u64 = g
            .heaps
            .iter()
            .flat_map(|h| &h.generations)
            .map(|x| x.size_after_bytes)
            .sum();
        assert_eq!(after, t.after_bytes, "GC {}", g.number);
        assert_eq!(g.after_bytes, Some(t.after_bytes), "GC {}", g.number);
    }
}

#[test]
fn a_generated_workload_decodes_to_the_gcs_written_v5() {
    model_matches_workload(&Config {
        target_bytes: 12 << 20,
        ..Config::default()
    });
}

#[test]
fn a_generated_workload_decodes_to_the_gcs_written_v4_32bit() {
    model_matches_workload(&Config {
        target_bytes: 6 << 20,
        flavor: Flavor::V4,
        pointer_size: 4,
        seed: 7,
        ..Config::default()
    });
}

#[test]
fn a_generated_server_gc_workload_keeps_every_heap() {
    model_matches_workload(&Config {
        target_bytes: 8 << 20,
        heaps: 12,
        seed: 11,
        ..Config::default()
    });
}

/// The large check: ~300 MB streamed through decoder and model (release builds only: minutes in debug).
#[test]
#[cfg_attr(debug_assertions, ignore = "large: run with --release")]
fn a_large_generated_workload_keeps_every_gc() {
    model_matches_workload(&Config {
        target_bytes: 300 << 20,
        ..Config::default()
    });
}
