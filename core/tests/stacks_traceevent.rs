//! Call stacks against TraceEvent: TraceLog's `CallStack()` of every AllocationTick, GCTriggered
//! and SetGCHandle, each frame's address, module and FullMethodName, as tools/tracegen writes them
//! beside each trace (`NAME.stacks.json`, schema `gcscope-traceevent-stacks/1`). Event by event
//! (the i-th event of its name, in time order), the frames' addresses must be equal, and the
//! method and module names wherever both sides name one; frames only one side names are counted
//! and printed. The sums by leaf method must then be equal too.
//!
//! Reads the committed fixtures that have one, and with `GCSCOPE_FRESH_TRACES` set, the output dir
//! of `tools/tracegen/generate.sh` (`RUNTIME/NAME.nettrace` beside `RUNTIME/NAME.stacks.json`);
//! skips, saying so, where there is none.

use gcscope_core::clr::enums::GcAllocationKind;
use gcscope_core::clr::payload::Utf16Str;
use gcscope_core::clr::{self, ClrEvent};
use gcscope_core::event::Event;
use gcscope_core::stacks::methods::MethodMapBuilder;
use gcscope_core::stacks::view::Frames;
use gcscope_core::ticks::Ticks;
use gcscope_core::{Consumer, TraceReader};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One of our events of the three names.
struct Ours {
    name: &'static str,
    thread: u64,
    stack: u32,
    /// AllocationTick: (type name, kind, amount); GCTriggered: reason; SetGCHandle: kind.
    payload: String,
}

fn stacks_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rts) = std::fs::read_dir(dir) else {
        return out;
    };
    for rt in rts.flatten() {
        let Ok(files) = std::fs::read_dir(rt.path()) else {
            continue;
        };
        for f in files.flatten() {
            let p = f.path();
            if p.to_string_lossy().ends_with(".stacks.json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Compares one trace; returns a line of what matched, and the problems.
fn compare(json_path: &Path) -> (String, Vec<String>) {
    let s = json_path.to_string_lossy();
    let trace = PathBuf::from(format!("{}.nettrace", s.trim_end_matches(".stacks.json")));
    let oracle: Value =
        serde_json::from_str(&std::fs::read_to_string(json_path).expect("read")).expect("JSON");
    let bytes = std::fs::read(&trace).unwrap_or_else(|e| panic!("{}: {e}", trace.display()));
    let mut reader = TraceReader::for_consumer(Consumer::Stacks);
    let mut methods = MethodMapBuilder::new();
    let mut ours: Vec<Ours> = Vec::new();
    let mut sink = |e: &Event<'_>| {
        methods.on_event(e);
        // A reader for the stacks delivers a NetTrace's ticks as batches that hold each tick with
        // its stack and thread: each is one of TraceEvent's AllocationTicks.
        if let Some(Ticks::Batch(b)) = e.ticks {
            for t in &b.ticks {
                let name = b
                    .type_name(t.type_slot)
                    .map(|n| Utf16Str(n).to_string_lossy())
                    .unwrap_or_default();
                ours.push(Ours {
                    name: "AllocationTick",
                    thread: t.thread_id,
                    stack: t.stack,
                    payload: format!("{name}/{}/{}", GcAllocationKind::from_raw(t.kind), t.amount),
                });
            }
            return;
        }
        let (name, payload) = match clr::decode(e) {
            Some(Ok(ClrEvent::GcAllocationTick(a))) => (
                "AllocationTick",
                format!(
                    "{}/{}/{}",
                    a.type_name.map(|t| t.to_string_lossy()).unwrap_or_default(),
                    a.kind,
                    a.allocation_amount64
                        .unwrap_or(u64::from(a.allocation_amount))
                ),
            ),
            Some(Ok(ClrEvent::GcTriggered(t))) => ("GCTriggered", t.reason.to_string()),
            Some(Ok(ClrEvent::SetGcHandle(h))) => ("SetGCHandle", h.kind.to_string()),
            _ => return,
        };
        ours.push(Ours {
            name,
            thread: e.thread_id,
            stack: e.stack,
            payload,
        });
    };
    reader.push(&bytes, &mut sink).expect("push");
    reader.finish(&mut sink).expect("finish");
    let table = reader.take_stacks().expect("stacks kept");
    let methods = methods.finish();
    let frames = Frames {
        table: &table,
        methods: &methods,
    };
    let mut by_name: BTreeMap<&str, Vec<&Ours>> = BTreeMap::new();
    for o in &ours {
        by_name.entry(o.name).or_default().push(o);
    }
    let mut problems = Vec::new();
    let (mut events, mut frames_both, mut only_theirs, mut only_ours) = (0, 0, 0, 0);
    // Sums by leaf method, where both name the leaf: event name → method → value.
    let mut leaf_sums: [BTreeMap<(String, String), u64>; 2] = Default::default();
    let empty = Vec::new();
    for ev in oracle["events"].as_array().expect("events") {
        let name = ev["event"].as_str().unwrap_or("");
        let index = ev["index"].as_u64().unwrap_or(u64::MAX) as usize;
        let Some(o) = by_name.get(name).unwrap_or(&empty).get(index) else {
            problems.push(format!(
                "{name} #{index}: TraceEvent has it, gcscope does not"
            ));
            continue;
        };
        events += 1;
        if ev["thread_id"].as_u64() != Some(o.thread) {
            problems.push(format!(
                "{name} #{index}: thread {} against {}",
                ev["thread_id"], o.thread
            ));
        }
        let p = &ev["payload"];
        let theirs_payload = match name {
            "AllocationTick" => format!(
                "{}/{}/{}",
                p["type_name"].as_str().unwrap_or(""),
                p["kind"].as_str().unwrap_or(""),
                p["amount"]
            ),
            // TraceEvent 3.1.3's reason enum ends before InducedAggressive (17, .NET 7+) and
            // prints its number (as core/tests/model_fixtures.rs notes for GCStart).
            "GCTriggered" => match p["reason"].as_str().unwrap_or("") {
                "17" => "InducedAggressive".to_string(),
                r => r.to_string(),
            },
            _ => p["kind"].as_str().unwrap_or("").to_string(),
        };
        if theirs_payload != o.payload {
            problems.push(format!(
                "{name} #{index}: payload {theirs_payload} against {}",
                o.payload
            ));
        }
        let theirs = ev["frames"].as_array().cloned().unwrap_or_default();
        let mine = frames.frames(o.stack);
        let addrs_theirs: Vec<&str> = theirs
            .iter()
            .filter_map(|f| f["address"].as_str())
            .collect();
        let addrs_mine: Vec<String> = mine.iter().map(|f| format!("0x{:x}", f.address)).collect();
        if addrs_theirs != addrs_mine {
            problems.push(format!(
                "{name} #{index}: frames {addrs_theirs:?} against {addrs_mine:?}"
            ));
            continue;
        }
        for (t, m) in theirs.iter().zip(&mine) {
            match (t["method"].as_str(), &m.method) {
                (Some(a), Some(b)) => {
                    frames_both += 1;
                    if a != b {
                        problems.push(format!(
                            "{name} #{index} 0x{:x}: {a} against {b}",
                            m.address
                        ));
                    }
                    if let (Some(a), Some(b)) = (t["module"].as_str(), &m.module) {
                        if !a.eq_ignore_ascii_case(b) {
                            problems.push(format!(
                                "{name} #{index} 0x{:x}: module {a} against {b}",
                                m.address
                            ));
                        }
                    }
                }
                (Some(_), None) => only_theirs += 1,
                (None, Some(_)) => only_ours += 1,
                (None, None) => {}
            }
        }
        if let (Some(t), Some(m)) = (theirs.first(), mine.first()) {
            if let (Some(a), Some(b)) = (t["method"].as_str(), &m.method) {
                let value = match name {
                    "AllocationTick" => p["amount"].as_u64().unwrap_or(0),
                    _ => 1,
                };
                *leaf_sums[0].entry((name.into(), a.into())).or_insert(0) += value;
                *leaf_sums[1].entry((name.into(), b.clone())).or_insert(0) += value;
            }
        }
    }
    for (name, list) in &by_name {
        let theirs = oracle["events"]
            .as_array()
            .map_or(0, |a| a.iter().filter(|e| e["event"] == *name).count());
        if list.len() != theirs {
            problems.push(format!(
                "{name}: {} events in gcscope, {theirs} in TraceEvent",
                list.len()
            ));
        }
    }
    if leaf_sums[0] != leaf_sums[1] {
        problems.push("the sums by leaf method differ".into());
    }
    (
        format!(
            "{events} events, {frames_both} frames named by both, {only_theirs} only by \
             TraceEvent, {only_ours} only by gcscope"
        ),
        problems,
    )
}

fn check(dir: &Path) -> usize {
    let files = stacks_files(dir);
    let mut failures = Vec::new();
    for f in &files {
        let (line, problems) = compare(f);
        eprintln!("{}: {line}", f.display());
        for p in problems.iter().take(20) {
            failures.push(format!("{}: {p}", f.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    files.len()
}

#[test]
fn committed_fixtures_match_traceevent() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let n = check(&dir);
    if n == 0 {
        eprintln!("skipping: no fixtures/traces/*/*.stacks.json (tools/tracegen writes them)");
    }
}

#[test]
fn fresh_traces_match_traceevent() {
    let Some(dir) = std::env::var_os("GCSCOPE_FRESH_TRACES") else {
        eprintln!(
            "skipping: GCSCOPE_FRESH_TRACES is not set (the output dir of tools/tracegen/generate.sh)"
        );
        return;
    };
    let n = check(Path::new(&dir));
    if n == 0 {
        eprintln!("skipping: no */*.stacks.json under {dir:?}");
    }
}
