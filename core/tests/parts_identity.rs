//! A trace decoded in parts ([`gcscope_core::parts`]: the boundary pass, each task decoded on its
//! own, the merge in file order) gives exactly what the sequential reader gives: every event with
//! every field in the same order, the same stats, event counts, header facts and result (error and
//! offset included). Checked on every fixture, on TraceEvent's reference traces (skipped when
//! `../shared` is absent), on cut and damaged copies, and (with `--features encode`) on generated
//! NetTrace and ETL traces; each with and without the GC model's filter, cut into 1, 2, 3 and 7
//! parts (and one block per part for the small ones), the tasks decoded last to first, the planner
//! given exactly the bytes it asks for (so reads end one byte after a block's header, or in the
//! middle of the next) or more, and the rest read in 7-byte to 1 MiB chunks.

mod common;

use common::split::{
    check_identity, in_parts, in_parts_with, sequential, sequential_with, task_bytes_for, Setup,
    Split,
};
use gcscope_core::event::Event;
use gcscope_core::gc::{self, insights::InsightsBuilder, ModelBuilder};
use gcscope_core::ticks::BatchTick;
use gcscope_core::Consumer;
use gcscope_core::TraceReader;
use std::path::Path;

/// Every event delivered; the GC model's filter; and the model's filter with a sort buffer of
/// 64 KiB, so that its budget releases events (and counts those that come late) in every trace,
/// which the parts must reproduce exactly.
const SETUPS: [Setup; 3] = [
    Setup {
        filter: None,
        budget: None,
        consumer: Consumer::EveryEvent,
        keep_stacks: false,
    },
    Setup {
        filter: Some(gc::interest),
        budget: None,
        consumer: Consumer::EveryEvent,
        keep_stacks: false,
    },
    Setup {
        filter: Some(gc::interest),
        budget: Some(64 << 10),
        consumer: Consumer::EveryEvent,
        keep_stacks: false,
    },
];

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let mut out = Vec::new();
    for rt in std::fs::read_dir(&dir).expect("fixtures/traces").flatten() {
        for f in std::fs::read_dir(rt.path()).expect("runtime dir").flatten() {
            let p = f.path();
            if p.extension().is_some_and(|e| e == "nettrace") {
                let name = p.strip_prefix(&dir).unwrap().display().to_string();
                out.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn fixtures_decode_the_same_in_parts() {
    let all = fixtures();
    assert_eq!(all.len(), 32, "the committed fixtures");
    let (mut lane_ticks, mut each_ticks, mut sequential_ticks) = (0, 0, 0);
    for (name, bytes) in &all {
        for setup in SETUPS {
            let (line, share) = check_identity(name, bytes, setup, bytes.len() < 2 << 20);
            eprintln!("{line} ({setup:?})");
            // Not a test that passes because nothing was split: the runtime's traces have no
            // block a part must leave to the sequential decoder.
            assert!(share > 0.9, "{line}");
        }
        let (batches, ticks) = same_model_and_insights_in_parts(name, bytes);
        each_ticks += ticks;
        eprintln!("{name}: the insights through the tick lane: {ticks} ticks in {batches} batches");
        let (batches, ticks) = same_model_with_tick_lane(name, bytes);
        lane_ticks += ticks;
        eprintln!("{name}: the model through the tick lane: {ticks} ticks in {batches} batches");
        let ticks = same_sequentially_with_tick_lane(name, bytes);
        sequential_ticks += ticks;
        eprintln!("{name}: sequentially through the tick lane: {ticks} ticks");
    }
    assert!(
        sequential_ticks > 10_000,
        "ticks through the sequential lane: {sequential_ticks}"
    );
    assert!(lane_ticks > 10_000, "ticks through the lane: {lane_ticks}");
    assert!(
        each_ticks > 10_000,
        "ticks through the lane with each tick: {each_ticks}"
    );
}

/// The GC model and its insights (`gc::feed`, every tick kept) built from the events merged from
/// parts, directly and through the wire (as a Web Worker sends them for the model, ticks without
/// their own payloads), serialize to the same JSON as built sequentially: the ticks' type names,
/// which parts intern and the merge renumbers, get the same indices in the same order (the order
/// of their first tick). Also with the tick lane holding each tick (a reader for
/// [`Consumer::ModelAndInsights`], as the app and the CLI's insights read), where batches replace
/// the ticks, with the default sort budget
/// and one of 64 KiB (against the sequential reader with the same budget). Returns how many
/// batches and ticks came through the lane.
fn same_model_and_insights_in_parts(name: &str, bytes: &[u8]) -> (u64, u64) {
    fn json(b: ModelBuilder, ib: InsightsBuilder) -> (String, String) {
        let model = b.finish(None);
        let insights = ib.finish(&model);
        (
            serde_json::to_string(&model).expect("model"),
            serde_json::to_string(&insights).expect("insights"),
        )
    }
    let (mut b, mut ib) = (
        ModelBuilder::new(&Default::default()),
        InsightsBuilder::new(),
    );
    let mut r = TraceReader::new().with_filter(gc::interest);
    let mut feed = |e: &Event<'_>| gc::feed(&mut b, &mut ib, e);
    let _ = r.push(bytes, &mut feed);
    let _ = r.finish(&mut feed);
    let want = json(b, ib);
    let (mut batches, mut laned) = (0u64, 0u64);
    // (parts, through the wire, the lane, the tasks merged from parts: the rest decoded by the
    // reader itself, its ticks' names interned in the table the parts' were merged into.)
    let variants = [
        (2u64, false, Consumer::EveryEvent, None),
        (3, true, Consumer::EveryEvent, None),
        (7, false, Consumer::EveryEvent, None),
        (7, true, Consumer::EveryEvent, None),
        (2, false, Consumer::ModelAndInsights, None),
        (3, true, Consumer::ModelAndInsights, None),
        (7, false, Consumer::ModelAndInsights, None),
        (4, true, Consumer::ModelAndInsights, Some(2)),
    ];
    for (n, wire, consumer, parts_until) in variants {
        let split = Split {
            task_bytes: task_bytes_for(bytes.len(), n),
            read_extra: 0,
            reverse: true,
            tail_chunk: 1 << 16,
            wire,
            pieces: None,
            intern_types: true,
            parts_until,
            reuse: n == 7 && !wire,
        };
        // With the lane, also with a 64 KiB sort budget: its cuts release batches early.
        let budgets: &[Option<usize>] = match consumer {
            Consumer::EveryEvent => &[None],
            _ => &[None, Some(64 << 10)],
        };
        for &budget in budgets {
            let setup = Setup {
                budget,
                consumer,
                ..SETUPS[1]
            };
            // Sequentially with the same budget (a cut moves events, and the model sees that).
            let want = match budget {
                None => want.clone(),
                Some(_) => {
                    let (mut b, mut ib) = (
                        ModelBuilder::new(&Default::default()),
                        InsightsBuilder::new(),
                    );
                    sequential_with(bytes, SETUPS[2], 1 << 16, &mut |e| {
                        gc::feed(&mut b, &mut ib, e)
                    });
                    json(b, ib)
                }
            };
            let (mut b, mut ib) = (
                ModelBuilder::new(&Default::default()),
                InsightsBuilder::new(),
            );
            in_parts_with(bytes, setup, split, wire, &mut |e| {
                if let Some(t) = e.tick_batch() {
                    // Each tick is in the batch, and its name where it has one.
                    assert_eq!(t.ticks.len() as u64, t.count, "{name}: a batch's ticks");
                    assert!(t.ticks.iter().all(|x| {
                        x.type_slot == BatchTick::NO_NAME || t.type_name(x.type_slot).is_some()
                    }));
                    batches += 1;
                    laned += t.count;
                }
                gc::feed(&mut b, &mut ib, e)
            });
            let got = json(b, ib);
            let what = format!(
                "{name}, {n} parts (wire: {wire}, {consumer:?}, budget {budget:?}, \
                 parts until task {parts_until:?})"
            );
            assert!(got.0 == want.0, "{what}: the model differs");
            assert!(got.1 == want.1, "{what}: the insights differ");
        }
    }
    (batches, laned)
}

/// The tick lane (a reader for [`Consumer::Model`], as the CLI reads a trace for the GC model
/// alone): the parts' allocation ticks come as batches, and the model built from them, the reader's
/// stats (events, out-of-order events, bytes...), its counts per event and its result are the
/// sequential reader's, whose ticks come one by one (without the lane). With the default budget and
/// with one of 64 KiB, at which the sort buffer releases events early and some come late; tasks
/// through the wire as a Web Worker sends them for the model, or decoded into reused outputs.
/// Returns how many batches and ticks came through the lane (a test that took no tick through the
/// lane would prove nothing).
fn same_model_with_tick_lane(name: &str, bytes: &[u8]) -> (u64, u64) {
    let json = |b: ModelBuilder| serde_json::to_string(&b.finish(None)).expect("model");
    let (mut batches, mut laned) = (0, 0);
    for budget in [None, Some(64 << 10)] {
        let plain = Setup {
            filter: Some(gc::interest),
            budget,
            consumer: Consumer::EveryEvent,
            keep_stacks: false,
        };
        let mut b = ModelBuilder::new(&Default::default());
        let want = sequential_with(bytes, plain, 1 << 16, &mut |e| {
            assert!(e.tick_batch().is_none(), "{name}: a batch without the lane");
            b.on_event(e)
        });
        let want_model = json(b);
        for (n, wire, reuse) in [(2u64, false, false), (3, true, false), (7, false, true)] {
            let split = Split {
                task_bytes: task_bytes_for(bytes.len(), n),
                read_extra: 0,
                reverse: !reuse,
                tail_chunk: 1 << 16,
                wire,
                pieces: None,
                intern_types: false,
                parts_until: None,
                reuse,
            };
            let lane = Setup {
                consumer: Consumer::Model,
                ..plain
            };
            let mut b = ModelBuilder::new(&Default::default());
            let (got, _) = in_parts_with(bytes, lane, split, wire, &mut |e| {
                if let Some(t) = e.tick_batch() {
                    batches += 1;
                    laned += t.count;
                }
                b.on_event(e)
            });
            let what = format!("{name}, {n} parts (wire {wire}, budget {budget:?}), tick lane");
            assert_eq!(got.stats, want.stats, "{what}: stats");
            assert_eq!(got.counts, want.counts, "{what}: event counts");
            assert_eq!(got.result, want.result, "{what}: result");
            assert!(json(b) == want_model, "{what}: the model differs");
        }
    }
    (batches, laned)
}

/// The tick lane of the sequential reader (`--jobs 1`, a .zip or .gz, the part of a file the
/// parts leave): readers for [`Consumer::Model`] and [`Consumer::ModelAndInsights`], with the
/// default sort budget and 64 KiB, fed 64 KiB and 4,093-byte chunks, the model (and with each tick its insights, every
/// tick kept), the reader's stats, counts per event, header facts and result equal those of the
/// same reader without the lane. Returns how many ticks came through the lane.
fn same_sequentially_with_tick_lane(name: &str, bytes: &[u8]) -> u64 {
    fn json(b: ModelBuilder, ib: InsightsBuilder) -> (String, String) {
        let model = b.finish(None);
        let insights = ib.finish(&model);
        (
            serde_json::to_string(&model).expect("model"),
            serde_json::to_string(&insights).expect("insights"),
        )
    }
    let mut laned = 0;
    for budget in [None, Some(64 << 10)] {
        for chunk in [1 << 16, 4093] {
            for lane in [Consumer::Model, Consumer::ModelAndInsights] {
                let plain = Setup {
                    filter: Some(gc::interest),
                    budget,
                    consumer: Consumer::EveryEvent,
                    keep_stacks: false,
                };
                let with_insights = lane == Consumer::ModelAndInsights;
                let run = |setup: Setup, laned: &mut u64| {
                    let mut b = ModelBuilder::new(&Default::default());
                    let mut ib = InsightsBuilder::new();
                    let mut seen = sequential_with(bytes, setup, chunk, &mut |e| {
                        if let Some(t) = e.tick_batch() {
                            *laned += t.count;
                        }
                        if with_insights {
                            gc::feed(&mut b, &mut ib, e)
                        } else {
                            b.on_event(e)
                        }
                    });
                    // The events themselves differ (batches for ticks): compare what they build.
                    seen.events.clear();
                    (seen, json(b, ib))
                };
                let (want, want_json) = run(plain, &mut 0);
                let (got, got_json) = run(
                    Setup {
                        consumer: lane,
                        ..plain
                    },
                    &mut laned,
                );
                let what =
                    format!("{name}, sequentially, {lane:?}, budget {budget:?}, chunk {chunk}");
                assert_eq!(got, want, "{what}: the reader's figures");
                assert!(got_json.0 == want_json.0, "{what}: the model differs");
                // (Without insights both builders saw nothing: there is nothing to compare.)
                if with_insights {
                    assert!(got_json.1 == want_json.1, "{what}: the insights differ");
                }
            }
        }
    }
    laned
}

#[test]
fn reference_traces_decode_the_same_in_parts() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut zips = Vec::new();
    for sub in ["traces/perfview", "traces/public"] {
        for e in std::fs::read_dir(shared.join(sub))
            .into_iter()
            .flatten()
            .flatten()
        {
            if e.path().extension().is_some_and(|x| x == "zip") {
                zips.push(e.path());
            }
        }
    }
    zips.sort();
    assert!(zips.len() >= 15, "reference traces: {}", zips.len());
    for zip in zips {
        let name = zip.file_name().unwrap().to_string_lossy().into_owned();
        let zipped = std::fs::read(&zip).unwrap();
        // The .zip itself is read sequentially (its whole stream is the tail); the stream in it
        // is split.
        let raw = common::unzip(&zipped);
        for setup in SETUPS {
            eprintln!("{}", check_identity(&name, &zipped, setup, false).0);
            let (line, share) = check_identity(
                &format!("{name} (unzipped)"),
                &raw,
                setup,
                raw.len() < 2 << 20,
            );
            eprintln!("{line} ({setup:?})");
            // NetPerf (.NET Core 2.x) is read sequentially (its metadata comes among its events).
            if !name.contains("netperf") && raw.len() > 1 << 16 {
                assert!(share >= 0.5, "{line}");
            }
        }
        let (batches, ticks) = same_model_and_insights_in_parts(&name, &raw);
        eprintln!("{name}: the insights through the tick lane: {ticks} ticks in {batches} batches");
        let (batches, ticks) = same_model_with_tick_lane(&name, &raw);
        eprintln!("{name}: the model through the tick lane: {ticks} ticks in {batches} batches");
        let ticks = same_sequentially_with_tick_lane(&name, &raw);
        eprintln!("{name}: sequentially through the tick lane: {ticks} ticks");
        let ticks = same_sequentially_with_tick_lane(&format!("{name} (zipped)"), &zipped);
        eprintln!("{name} (zipped): sequentially through the tick lane: {ticks} ticks");
    }
}

/// Cut at many points (inside blocks, at their ends, inside headers) and damaged bytes: the same
/// error at the same offset, after the same events.
#[test]
fn cut_and_damaged_traces_decode_the_same_in_parts() {
    let (name, bytes) = &server_fixture();
    let len = bytes.len();
    let mut variants: Vec<(String, Vec<u8>)> = Vec::new();
    for k in 1..40 {
        let cut = len * k / 40 + k % 3;
        variants.push((format!("cut at {cut}"), bytes[..cut].to_vec()));
    }
    for k in 1..40 {
        let at = len * k / 40 + 17;
        let mut b = bytes.clone();
        b[at] ^= 0x5a;
        b[at + 1] = b[at + 1].wrapping_add(0x81);
        variants.push((format!("damaged at {at}"), b));
    }
    for (what, b) in &variants {
        for setup in SETUPS {
            same_in_parts(&format!("{name} {what}"), b, setup, &[2, 7], 3);
        }
    }
    eprintln!(
        "{name}: {} cut or damaged copies identical in parts",
        variants.len()
    );
}

/// Generated traces (the benchmark's workload, `encode::workload`): workstation V5, server GC with
/// 4 heaps in V4, a GC-dense one; and each relogged into ETW, plain and compressed (8 processors'
/// buffers interleaved, as a real session writes them; the workstation one is big enough for the
/// ETW merge window to release events before the end).
#[cfg(feature = "encode")]
#[test]
fn generated_traces_decode_the_same_in_parts() {
    use gcscope_core::encode::workload::{generate, Config};
    use gcscope_core::encode::Flavor;
    let configs = [
        (
            "workstation, V5",
            Config {
                target_bytes: 40 << 20,
                ..Config::default()
            },
        ),
        (
            "server GC with 4 heaps, V4",
            Config {
                target_bytes: 8 << 20,
                flavor: Flavor::V4,
                heaps: 4,
                seed: 7,
                ..Config::default()
            },
        ),
        (
            "GC-dense",
            Config {
                target_bytes: 6 << 20,
                threads: 1,
                gen0_budget: 1 << 20,
                seed: 11,
                ..Config::default()
            },
        ),
    ];
    for (name, cfg) in configs {
        let mut bytes = Vec::new();
        generate(&cfg, &mut |b| bytes.extend_from_slice(b));
        for setup in SETUPS {
            let (line, share) = check_identity(name, &bytes, setup, false);
            eprintln!("{line}");
            assert!(share > 0.9, "{line}");
        }
        let (batches, ticks) = same_model_and_insights_in_parts(name, &bytes);
        eprintln!("{name}: the insights through the tick lane: {ticks} ticks in {batches} batches");
        assert!(ticks > 0, "{name}: no tick through the lane with each tick");
        let (batches, ticks) = same_model_with_tick_lane(name, &bytes);
        eprintln!("{name}: the model through the tick lane: {ticks} ticks in {batches} batches");
        assert!(ticks > 0, "{name}: no tick through the lane");
        let ticks = same_sequentially_with_tick_lane(name, &bytes);
        eprintln!("{name}: sequentially through the tick lane: {ticks} ticks");
        assert!(ticks > 0, "{name}: no tick through the sequential lane");
        for compressed in [false, true] {
            let etl = relog_to_etl(&bytes, compressed);
            let what = format!("{name}, relogged to ETW (compressed: {compressed})");
            for setup in &SETUPS[..2] {
                let (line, share) = check_identity(&what, &etl, *setup, false);
                eprintln!("{line}");
                assert!(share > 0.9, "{line}");
            }
            let (_, ticks) = same_model_and_insights_in_parts(&what, &etl);
            assert_eq!(ticks, 0, "{what}");
            // An .etl has no tick lane (its merge is its own): the same model, every tick as before.
            let (_, ticks) = same_model_with_tick_lane(&what, &etl);
            assert_eq!(ticks, 0, "{what}");
            assert_eq!(same_sequentially_with_tick_lane(&what, &etl), 0, "{what}");
        }
    }
}

/// `bytes` (any trace) relogged into ETW by the test-only writer: 8 processors' buffers
/// interleaved, as a real session writes them, compressed (Plain LZ77) or not.
/// With the reader keeping stacks ([`TraceReader::set_keep_stacks`]), the parts give every event
/// the same stack id and the reader the same stack table as the sequential reader: on the trace
/// built with known stacks (ids restarting at a sequence point, one naming no stack), the
/// generated workload (sampled threads with stacks) and the runtime's fixtures.
#[cfg(feature = "encode")]
#[test]
fn stacks_decode_the_same_in_parts() {
    use gcscope_core::encode::workload::{generate, Config};
    use gcscope_core::encode::Flavor;
    let mut traces = vec![
        (
            "known stacks, V4".to_string(),
            common::stacks_trace::trace(Flavor::V4),
        ),
        (
            "known stacks, V5".to_string(),
            common::stacks_trace::trace(Flavor::V5),
        ),
    ];
    let mut generated = Vec::new();
    generate(
        &Config {
            target_bytes: 6 << 20,
            ..Config::default()
        },
        &mut |b| generated.extend_from_slice(b),
    );
    traces.push(("generated workload".to_string(), generated));
    traces.extend(fixtures().into_iter().step_by(4));
    for (name, bytes) in &traces {
        for base in &SETUPS[..2] {
            let setup = Setup {
                keep_stacks: true,
                ..*base
            };
            let (line, _) = check_identity(name, bytes, setup, bytes.len() < 1 << 20);
            eprintln!("{line} (stacks kept)");
            let want = common::split::sequential(bytes, setup, 1 << 20);
            let (kept, _) = want.stacks.as_ref().expect("stacks kept");
            assert!(
                !kept.is_empty() || name.contains("fixture"),
                "{name}: no stacks"
            );
        }
    }
}

#[cfg(feature = "encode")]
fn relog_to_etl(bytes: &[u8], compressed: bool) -> Vec<u8> {
    use gcscope_core::encode::etl::{Options, Relogger};
    let mut relog: Option<Relogger> = None;
    let mut r = gcscope_core::TraceReader::new();
    let mut sink = |info: &gcscope_core::event::TraceInfo, e: &gcscope_core::event::Event<'_>| {
        relog
            .get_or_insert_with(|| {
                Relogger::new(
                    Options {
                        compressed,
                        processors: 8,
                        perf_freq: info.qpc_frequency,
                        header_timestamp: info.sync_time_qpc,
                        ..Options::default()
                    },
                    info.process_id,
                )
            })
            .event(e)
    };
    r.push_with_info(bytes, &mut sink).unwrap();
    r.finish_with_info(&mut sink).unwrap();
    relog.expect("events").writer.finish()
}

/// A part holds about the task size of records however well the file compresses: a compressed
/// .etl's tasks are cut by their buffers' decompressed sizes, read here from the raw buffer
/// headers (WMI_BUFFER_HEADER: the buffer's size in the file at 0x00, the end of its records once
/// decompressed at 0x30), not by their (4-6x smaller) bytes in the file. Sized by file bytes, 16
/// threads' tasks in flight held 1.7 GB on a 280 MB file.
#[cfg(feature = "encode")]
#[test]
fn compressed_etl_tasks_hold_about_the_task_size_of_records() {
    use gcscope_core::encode::workload::{generate, Config};
    let cfg = Config {
        target_bytes: 12 << 20,
        ..Config::default()
    };
    let mut trace = Vec::new();
    generate(&cfg, &mut |b| trace.extend_from_slice(b));
    let etl = relog_to_etl(&trace, true);
    let u32_at = |at: usize| u64::from(u32::from_le_bytes(etl[at..at + 4].try_into().unwrap()));
    // Every buffer after the logfile header's, walked by its size field: (offset, decoded bytes).
    let mut buffers = Vec::new();
    let mut at = u32_at(0) as usize;
    while at + 0x38 <= etl.len() {
        let (size, decoded) = (u32_at(at), u32_at(at + 0x30));
        assert!(size > 0);
        buffers.push((at as u64, decoded.max(size)));
        at += size as usize;
    }
    let decoded: u64 = buffers.iter().map(|b| b.1).sum();
    let largest = buffers.iter().map(|b| b.1).max().unwrap();
    assert!(
        decoded > 3 * etl.len() as u64,
        "the relog compresses ({decoded} bytes of records in {} bytes)",
        etl.len()
    );
    let task_bytes = 256 << 10;
    let split = Split {
        task_bytes,
        read_extra: 0,
        reverse: false,
        tail_chunk: 4096,
        wire: false,
        pieces: None,
        intern_types: false,
        parts_until: None,
        reuse: false,
    };
    let (tasks, _) = common::split::plan(&etl, Some(gc::interest), split);
    let mut covered = 0;
    for t in tasks.iter().filter(|t| t.has_blocks()) {
        let held: u64 = buffers
            .iter()
            .filter(|b| b.0 >= t.offset && b.0 < t.offset + t.len)
            .inspect(|_| covered += 1)
            .map(|b| b.1)
            .sum();
        assert!(
            held < task_bytes + largest,
            "task {} holds {held} bytes of records ({} in the file), past {task_bytes} + one buffer",
            t.index,
            t.len
        );
    }
    assert_eq!(covered, buffers.len(), "every buffer is in a task");
    // The decoded result is the sequential one (the other tests check more ways).
    let (line, share) = check_identity("compressed .etl", &etl, SETUPS[1], false);
    assert!(share > 0.9, "{line}");
}

/// The boundary pass frames event blocks from their size fields alone and leaves their EndObject
/// tag (a V4/V5 block's last byte) to the part that reads the block: a block whose tag is damaged
/// must still end the same way as the sequential read (the same events, then the same error at the
/// same offset). The tags are found here from the raw bytes (object header, size, padding to a
/// 4-byte offset), not with the decoder's framing.
#[test]
fn damaged_block_end_tags_decode_the_same_in_parts() {
    let (name, bytes) = &server_fixture();
    let mut ends = Vec::new();
    let pat = b"EventBlock";
    for at in 0..bytes.len() - pat.len() {
        if &bytes[at..at + pat.len()] != pat {
            continue;
        }
        // Begin, Begin, NullReference, i32 version, i32 minimum version, i32 name length, name,
        // EndObject; then the body: i32 size, padding, content, EndObject.
        let object = at - 15;
        let base = at + pat.len() + 1;
        let size = i32::from_le_bytes(bytes[base..base + 4].try_into().unwrap()) as usize;
        let content = (base + 4).next_multiple_of(4);
        let end = content + size;
        assert_eq!(bytes[object], 5, "{name}: object begin tag at {object}");
        assert_eq!(bytes[end], 6, "{name}: EndObject at {end}");
        ends.push(end);
    }
    assert!(ends.len() >= 8, "{name}: {} event blocks", ends.len());
    let picks = [
        0,
        1,
        ends.len() / 3,
        ends.len() / 2,
        ends.len() - 2,
        ends.len() - 1,
    ];
    for &k in &picks {
        let mut b = bytes.clone();
        b[ends[k]] = 7;
        for setup in SETUPS {
            let what = format!("{name}, end tag of block {k} at {} damaged", ends[k]);
            let want = same_in_parts(&what, &b, setup, &[2, 7], 0);
            assert!(want.result.contains("EndObject"), "{what}: {}", want.result);
        }
    }
    eprintln!(
        "{name}: {} damaged end tags identical in parts",
        picks.len()
    );
}

/// A hand-built NetTrace V6 trace (`common::writer::V6`: thread table, metadata rows, 60 event
/// blocks of two interleaved threads, sequence points every 12 blocks): V6 blocks are framed from
/// their 4-byte header alone (the part finds a block cut off by the end of the file and leaves it),
/// so whole, cut at many points (inside blocks and headers) and damaged, the parts give the
/// sequential result.
#[test]
fn v6_traces_decode_the_same_in_parts() {
    use common::writer::{Ev, V6};
    const RUNTIME: &str = "Microsoft-Windows-DotNETRuntime";
    let mut w = V6::new(500, 1_000_000, 8, &[("ProcessId", "777")]);
    w.thread_block(&[(1, 1001), (2, 2002)]);
    w.metadata_block(&[
        // GC/Start (id 1, which the GC model's filter delivers) and an event it skips.
        V6::metadata_row(1, RUNTIME, 1, "", Some(2), None),
        V6::metadata_row(2, "MyEventSource", 3, "WorkStart", None, None),
    ]);
    let payload = [7u8; 40];
    let mut seq = [0u32; 2];
    for b in 0..60u32 {
        let events: Vec<Ev> = (0..30u32)
            .map(|k| {
                let t = (k % 2) as usize;
                seq[t] += 1;
                Ev {
                    metadata_id: 1 + (k % 3 == 0) as u32,
                    sequence: seq[t],
                    thread: t as u64 + 1,
                    capture_thread: t as u64 + 1,
                    // Thread 2 runs a little behind thread 1: the region must be sorted.
                    timestamp: 10_000 + i64::from(b * 1_000 + k * 20) - 15 * t as i64,
                    payload: &payload,
                    ..Default::default()
                }
            })
            .collect();
        w.event_block(&events);
        if b % 12 == 11 {
            let ts = 10_000 + i64::from(b * 1_000 + 1_000);
            w.sequence_point(ts, 0, &[(1, seq[0]), (2, seq[1])]);
        }
    }
    w.end();
    let bytes = w.buf;
    for setup in SETUPS {
        let (line, share) = check_identity("hand-built V6", &bytes, setup, true);
        eprintln!("{line} ({setup:?})");
        assert!(share > 0.5, "{line}");
        assert!(
            sequential(&bytes, setup, 1 << 20).events.len() >= 1_000,
            "{line}"
        );
    }
    let len = bytes.len();
    for k in 1..30 {
        let cut = len * k / 30 + k % 5;
        let mut damaged = bytes.clone();
        damaged[cut] ^= 0x5a;
        for (what, b) in [("cut", &bytes[..cut]), ("damaged", &damaged[..])] {
            for setup in SETUPS {
                same_in_parts(&format!("hand-built V6 {what} at {cut}"), b, setup, &[5], 0);
            }
        }
    }
}

/// Checks that `bytes` decode in `parts` parts (each way: tasks last to first, the planner given
/// `read_extra` bytes more than it asks for, the rest in 4 KiB chunks, 7 parts or more through the
/// wire) exactly as sequentially; returns the sequential result.
fn same_in_parts(
    what: &str,
    bytes: &[u8],
    setup: Setup,
    parts: &[u64],
    read_extra: usize,
) -> common::split::Seen {
    let want = sequential(bytes, setup, 1 << 20);
    for &n in parts {
        let split = Split {
            task_bytes: task_bytes_for(bytes.len(), n),
            read_extra,
            reverse: true,
            tail_chunk: 4096,
            wire: n >= 5,
            pieces: None,
            intern_types: n % 2 == 1,
            parts_until: None,
            reuse: false,
        };
        let (got, _) = in_parts(bytes, setup, split);
        assert!(
            got == want,
            "{what}, {n} parts: {}",
            got.first_difference(&want)
        );
    }
    want
}

/// The server GC fixture (net10.0), whose blocks the cut and damaged copies are made from.
fn server_fixture() -> (String, Vec<u8>) {
    fixtures()
        .into_iter()
        .find(|(n, _)| n.ends_with("server.nettrace"))
        .expect("a server GC fixture")
}
