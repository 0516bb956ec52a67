//! Real traces from four .NET runtimes (`fixtures/traces`, made by `tools/tracegen/generate.sh`:
//! .NET Core 3.1, .NET 8, 9 and 10), decoded by gcscope and checked against references that gcscope
//! did not produce:
//! * `NAME.oracle.json`: what the runtime itself reported inside the traced process
//!   (`GC.CollectionCount`, every `GC.Collect` call, GC handles and memory pressure the program used);
//! * `NAME.traceevent.json`: Microsoft TraceEvent's reading of the same trace (event counts, per-GC rows).
//!
//! GC/Start, SetGCHandle, DestroyGCHandle, Increase/DecreaseMemoryPressure, GCGlobalHeapHistory and
//! the GCDynamicEvent blobs (CommittedUsage and the DATAS events) are read here straight from the
//! runtime's layouts (ClrEtwAll.man; the GC's dynamic events: a u16 version, then the arguments
//! packed as the GC fires them), so this test does not depend on gcscope's payload decoders; the
//! DATAS fields gcscope decodes are compared with those read here, field by field. The model's GC
//! mode and heap counts are checked against the runtime's settings and these bytes.
//!
//! `fresh_traces` (ignored by default) runs the same checks on a directory of freshly generated
//! traces named by `GCSCOPE_FRESH_TRACES` (see `tools/tracegen/check-fresh.sh`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const RUNTIME: &str = "Microsoft-Windows-DotNETRuntime";
// Microsoft-Windows-DotNETRuntime event ids (ClrEtwAll.man).
const GC_START: u32 = 1;
const SET_GC_HANDLE: u32 = 30;
const DESTROY_GC_HANDLE: u32 = 31;
const INCREASE_MEMORY_PRESSURE: u32 = 200;
const DECREASE_MEMORY_PRESSURE: u32 = 201;
const GC_DYNAMIC_EVENT: u32 = 39;
const GC_PER_HEAP_HISTORY: u32 = 204;
const GC_GLOBAL_HEAP_HISTORY: u32 = 205;
/// GCReason values of GCs a program asked for: Induced, InducedNotForced, InducedLowMemory,
/// InducedCompacting, InducedAggressive.
const INDUCED_REASONS: [u32; 5] = [1, 7, 9, 10, 17];

#[test]
fn committed_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let n = check_dir(&dir);
    assert_eq!(
        n,
        32,
        "expected 32 committed traces under {}",
        dir.display()
    );
}

#[test]
#[ignore = "needs freshly generated traces: tools/tracegen/check-fresh.sh"]
fn fresh_traces() {
    let dir = std::env::var_os("GCSCOPE_FRESH_TRACES")
        .expect("set GCSCOPE_FRESH_TRACES to the output dir of tools/tracegen/generate.sh");
    let n = check_dir(Path::new(&dir));
    assert!(n > 0, "no traces under {dir:?}");
}

/// Checks every `RUNTIME/NAME.nettrace` under `dir`; panics listing every failure.
fn check_dir(dir: &Path) -> usize {
    let mut traces: Vec<PathBuf> = Vec::new();
    for rt in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let rt = rt.unwrap().path();
        if !rt.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&rt).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "nettrace") {
                traces.push(f);
            }
        }
    }
    traces.sort();
    let mut failures = String::new();
    for t in &traces {
        let name = t.strip_prefix(dir).unwrap_or(t).display().to_string();
        let mut problems = Vec::new();
        let summary = check_trace(t, &mut problems);
        println!("{name}: {summary}");
        for p in &problems {
            let _ = writeln!(failures, "{name}: {p}");
        }
    }
    assert!(failures.is_empty(), "\n{failures}");
    traces.len()
}

/// What the test reads from the decoded events.
#[derive(Default)]
struct Decoded {
    /// (provider, id, version) -> (count, name as gcscope gives it).
    events: BTreeMap<(String, u32, u32), (u64, String)>,
    /// GC/Start: (Count, Depth, Reason, Type).
    gc_starts: Vec<(u32, u32, u32, u32)>,
    /// SetGCHandle: (HandleID, Kind).
    set_handles: Vec<(u64, u32)>,
    destroyed_handles: Vec<u64>,
    pressure_added: (u64, u64),
    pressure_removed: (u64, u64),
    /// GCGlobalHeapHistory NumHeaps, in event order.
    global_heaps: Vec<u32>,
    /// GCDynamicEvent: (name, blob), in event order.
    dynamic: Vec<(String, Vec<u8>)>,
    /// What gcscope's own decoder made of each GCDynamicEvent, in the same order.
    dynamic_decoded: Vec<Result<gcscope_core::clr::gc::DynamicPayload, String>>,
    bad_payloads: Vec<String>,
}

fn u32_at(p: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_le_bytes(p.get(off..off + 4)?.try_into().ok()?))
}
fn u64_at(p: &[u8], off: usize) -> Option<u64> {
    Some(u64::from_le_bytes(p.get(off..off + 8)?.try_into().ok()?))
}
fn ptr_at(p: &[u8], off: usize, size: u8) -> Option<u64> {
    if size == 4 {
        u32_at(p, off).map(u64::from)
    } else {
        u64_at(p, off)
    }
}

fn decode(bytes: &[u8]) -> Result<Decoded, String> {
    let mut d = Decoded::default();
    let res = gcscope_core::reader::decode_all(bytes, &mut |ev| {
        let e = d
            .events
            .entry((ev.provider.to_string(), ev.event_id, ev.version))
            .or_insert_with(|| (0, ev.name.to_string()));
        e.0 += 1;
        if ev.provider != RUNTIME {
            return;
        }
        let p = ev.payload;
        let ps = ev.pointer_size;
        let what = match ev.event_id {
            // v1+: u32 Count, u32 Depth, u32 Reason, u32 Type, u16 ClrInstanceID [, u64 ClientSequenceNumber]
            GC_START if ev.version >= 1 => (|| {
                d.gc_starts
                    .push((u32_at(p, 0)?, u32_at(p, 4)?, u32_at(p, 8)?, u32_at(p, 12)?));
                Some(())
            })(),
            // ptr HandleID, ptr ObjectID, u32 Kind, u32 Generation, u64 AppDomainID, u16 ClrInstanceID
            SET_GC_HANDLE => (|| {
                let kind = u32_at(p, 2 * ps as usize)?;
                d.set_handles.push((ptr_at(p, 0, ps)?, kind));
                Some(())
            })(),
            // ptr HandleID, u16 ClrInstanceID
            DESTROY_GC_HANDLE => ptr_at(p, 0, ps).map(|h| d.destroyed_handles.push(h)),
            // u64 BytesAllocated / BytesFreed, u16 ClrInstanceID
            INCREASE_MEMORY_PRESSURE => u64_at(p, 0).map(|b| {
                d.pressure_added.0 += 1;
                d.pressure_added.1 += b;
            }),
            DECREASE_MEMORY_PRESSURE => u64_at(p, 0).map(|b| {
                d.pressure_removed.0 += 1;
                d.pressure_removed.1 += b;
            }),
            // u64 FinalYoungestDesired, i32 NumHeaps, ...
            GC_GLOBAL_HEAP_HISTORY => u32_at(p, 8).map(|n| d.global_heaps.push(n)),
            // UTF-16 Name, u32 DataSize, Data, u16 ClrInstanceID (ClrEtwAll.man GCDynamicEvent).
            GC_DYNAMIC_EVENT => (|| {
                let mut units = Vec::new();
                let mut at = 0;
                loop {
                    let u = u16::from_le_bytes(p.get(at..at + 2)?.try_into().ok()?);
                    at += 2;
                    if u == 0 {
                        break;
                    }
                    units.push(u);
                }
                let size = u32_at(p, at)? as usize;
                let blob = p.get(at + 4..at + 4 + size)?.to_vec();
                d.dynamic.push((String::from_utf16_lossy(&units), blob));
                let ours = match gcscope_core::clr::decode(ev) {
                    Some(Ok(gcscope_core::clr::ClrEvent::GcDynamicEvent(e))) => {
                        e.payload().map_err(|e| e.to_string())
                    }
                    other => Err(format!("not decoded as GCDynamicEvent: {other:?}")),
                };
                d.dynamic_decoded.push(ours);
                Some(())
            })(),
            _ => Some(()),
        };
        if what.is_none() {
            d.bad_payloads.push(format!(
                "{}/{} v{}: payload of {} bytes too short",
                ev.provider,
                ev.event_id,
                ev.version,
                p.len()
            ));
        }
    });
    res.map_err(|e| format!("{e:?}"))?;
    Ok(d)
}

fn check_trace(path: &Path, problems: &mut Vec<String>) -> String {
    let stem = path.with_extension("");
    let read_json = |suffix: &str| -> Json {
        let p = PathBuf::from(format!("{}.{suffix}", stem.display()));
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        Json::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let oracle = read_json("oracle.json");
    let te = read_json("traceevent.json");
    let bytes = std::fs::read(path).unwrap();
    let d = match decode(&bytes) {
        Ok(d) => d,
        Err(e) => {
            problems.push(format!("decode failed: {e}"));
            return "decode failed".into();
        }
    };
    problems.extend(d.bad_payloads.iter().take(5).cloned());
    check_counts(&d, &te, problems);
    let after_oracle = check_gc_starts(&d, &oracle, problems);
    check_against_traceevent_gcs(&d, &te, problems);
    check_induced(&d, &oracle, problems);
    let handles = check_handles(&d, &oracle, problems);
    check_memory_pressure(&d, &oracle, problems);
    check_heaps(&d, &oracle, problems);
    check_pause_time(&bytes, &te, problems);
    check_dynamic_events(&d, problems);
    check_mode(&bytes, &d, &oracle, &te, problems);
    let c = &oracle["collection_count"];
    format!(
        "{} events, {} GC/Start; runtime gen0/1/2 = {}/{}/{}{}{}",
        d.events.values().map(|v| v.0).sum::<u64>(),
        d.gc_starts.len(),
        c["gen0"].int(),
        c["gen1"].int(),
        c["gen2"].int(),
        if after_oracle > 0 {
            format!("; {after_oracle} GC(s) after the oracle was written")
        } else {
            String::new()
        },
        handles
    )
}

/// Every (provider, id, version) count equals TraceEvent's, and so does the name wherever
/// TraceEvent has one (it writes `EventID(N)` for events it has no template for).
fn check_counts(d: &Decoded, te: &Json, problems: &mut Vec<String>) {
    let mut expected: BTreeMap<(String, u32, u32), (u64, String)> = BTreeMap::new();
    for e in te["events"].items() {
        let key = (
            e["provider"].str().to_string(),
            e["id"].int() as u32,
            e["version"].int() as u32,
        );
        expected.insert(key, (e["count"].int() as u64, e["name"].str().to_string()));
    }
    // Events no TraceEvent parser claimed are counted by provider/id only.
    let mut unhandled: BTreeMap<(String, u32), u64> = BTreeMap::new();
    for (k, v) in te["unhandled"].entries() {
        let (prov, id) = k.rsplit_once('/').expect("provider/id");
        unhandled.insert((prov.to_string(), id.parse().unwrap()), v.int() as u64);
    }
    let mut ours_unhandled: BTreeMap<(String, u32), u64> = BTreeMap::new();
    for (key, (n, name)) in &d.events {
        match expected.get(key) {
            Some((want, te_name)) => {
                if n != want {
                    problems.push(format!(
                        "{}/{} v{} ({te_name}): {n} events, TraceEvent {want}",
                        key.0, key.1, key.2
                    ));
                }
                if !te_name.starts_with("EventID(") && name != te_name {
                    problems.push(format!(
                        "{}/{} v{}: named {name:?}, TraceEvent {te_name:?}",
                        key.0, key.1, key.2
                    ));
                }
            }
            None => *ours_unhandled.entry((key.0.clone(), key.1)).or_default() += n,
        }
    }
    for key in expected.keys() {
        if !d.events.contains_key(key) {
            problems.push(format!(
                "{}/{} v{} ({}): none decoded, TraceEvent {}",
                key.0, key.1, key.2, expected[key].1, expected[key].0
            ));
        }
    }
    if ours_unhandled != unhandled {
        problems.push(format!(
            "events TraceEvent did not name: ours {ours_unhandled:?}, TraceEvent {unhandled:?}"
        ));
    }
    let total: u64 = d.events.values().map(|v| v.0).sum();
    if total != te["events_total"].int() as u64 {
        problems.push(format!(
            "{total} events in all, TraceEvent {}",
            te["events_total"].int()
        ));
    }
}

/// GCs started by TryStartNoGCRegion: counted by the runtime, but no GC/Start. Returns
/// (their numbers, how many gen1 and gen2 collections they account for).
fn no_gc_region(oracle: &Json) -> (BTreeSet<u32>, i64, i64) {
    let ngc = &oracle["no_gc_region"];
    let numbers = ngc["gcs_without_gcstart"]
        .items()
        .map(|v| v.int() as u32)
        .collect();
    let (mut g1, mut g2) = (0, 0);
    // (A region the runtime lacked the API for, or could not start, ran no GC.)
    for r in ngc["regions"]
        .items()
        .filter(|r| r["started"] == Json::Bool(true))
    {
        g1 += r["counts_after_start"]["gen1"].int() - r["counts_before"]["gen1"].int();
        g2 += r["counts_after_start"]["gen2"].int() - r["counts_before"]["gen2"].int();
    }
    (numbers, g1, g2)
}

/// GC/Start events against GC.CollectionCount. Returns the number of GCs after the oracle.
fn check_gc_starts(d: &Decoded, oracle: &Json, problems: &mut Vec<String>) -> usize {
    let c = &oracle["collection_count"];
    let (gen0, gen1, gen2) = (c["gen0"].int(), c["gen1"].int(), c["gen2"].int());
    let (no_start, ngc1, ngc2) = no_gc_region(oracle);
    // The runtime may run a GC after the workload wrote the oracle: only GCs numbered up to
    // CollectionCount(0) are the oracle's.
    let within: Vec<_> = d
        .gc_starts
        .iter()
        .filter(|s| i64::from(s.0) <= gen0)
        .collect();
    let after = d.gc_starts.len() - within.len();
    let numbers: BTreeSet<u32> = within.iter().map(|s| s.0).collect();
    if numbers.len() != within.len() {
        problems.push("GC/Start Count values repeat".into());
    }
    let expected: BTreeSet<u32> = (1..=gen0 as u32)
        .filter(|n| !no_start.contains(n))
        .collect();
    if numbers != expected {
        let missing: Vec<_> = expected.difference(&numbers).collect();
        let extra: Vec<_> = numbers.difference(&expected).collect();
        problems.push(format!("GC/Start Counts: missing {missing:?}, unexpected {extra:?} (runtime: {gen0} GCs, {} without GC/Start)", no_start.len()));
    }
    if within.len() as i64 != gen0 - no_start.len() as i64 {
        problems.push(format!(
            "{} GC/Start up to #{gen0}, runtime counts {gen0} GCs of which {} fire none",
            within.len(),
            no_start.len()
        ));
    }
    let max = d.gc_starts.iter().map(|s| s.0).max().unwrap_or(0);
    if after == 0 && i64::from(max) != gen0 && !no_start.contains(&(gen0 as u32)) {
        problems.push(format!(
            "largest GC/Start Count {max}, CollectionCount(0) {gen0}"
        ));
    }
    let depth2 = within.iter().filter(|s| s.1 == 2).count() as i64;
    if depth2 != gen2 - ngc2 {
        problems.push(format!(
            "{depth2} gen2 GC/Start, CollectionCount(2) {gen2} minus {ngc2} no-GC-region"
        ));
    }
    let depth1 = within.iter().filter(|s| s.1 >= 1).count() as i64;
    if depth1 != gen1 - ngc1 {
        problems.push(format!(
            "{depth1} gen1+ GC/Start, CollectionCount(1) {gen1} minus {ngc1} no-GC-region"
        ));
    }
    after
}

/// TraceEvent's GC list and ours: same numbers, generations, types and reasons.
fn check_against_traceevent_gcs(d: &Decoded, te: &Json, problems: &mut Vec<String>) {
    let ours: BTreeMap<u32, (u32, u32, u32)> =
        d.gc_starts.iter().map(|s| (s.0, (s.1, s.3, s.2))).collect();
    let mut theirs = BTreeMap::new();
    for g in te["gcs"].items() {
        let ty = match g["Type"].str() {
            "NonConcurrentGC" => 0,
            "BackgroundGC" => 1,
            "ForegroundGC" => 2,
            other => other.parse().unwrap_or(u32::MAX),
        };
        theirs.insert(
            g["Number"].int() as u32,
            (
                g["Generation"].int() as u32,
                ty,
                reason_value(g["Reason"].str()),
            ),
        );
    }
    if ours != theirs {
        let diff: Vec<_> = ours
            .iter()
            .filter(|(n, v)| theirs.get(n) != Some(v))
            .map(|(n, v)| {
                format!(
                    "#{n} ours (gen, type, reason) {v:?} TraceEvent {:?}",
                    theirs.get(n)
                )
            })
            .chain(
                theirs
                    .keys()
                    .filter(|n| !ours.contains_key(n))
                    .map(|n| format!("#{n} only in TraceEvent")),
            )
            .take(5)
            .collect();
        problems.push(format!("GCs differ from TraceEvent's: {}", diff.join("; ")));
    }
}

/// % time paused (the GC model's): its denominators are TraceEvent's session length (the
/// process's time in the trace) and GC span (ProcessDuration, PerfView's denominator), and the
/// figure is never over 100%.
fn check_pause_time(bytes: &[u8], te: &Json, problems: &mut Vec<String>) {
    let Ok(m) = gcscope_core::gc::analyze(bytes) else {
        return problems.push("the GC model failed".into());
    };
    let num = |j: &Json| match j {
        Json::Num(n) => *n,
        other => panic!("expected a number, found {other:?}"),
    };
    let span = num(&te["gc_stats"]["ProcessDuration"]);
    if (m.process.gc_span_ms - span).abs() > 1e-6 {
        problems.push(format!(
            "GC span {} ms, TraceEvent's ProcessDuration {span} ms",
            m.process.gc_span_ms
        ));
    }
    let pct = m.rollup[0].pause_time_pct.unwrap_or(0.0);
    let want = m.rollup[0].total_pause_ms * 100.0 / m.process.trace_duration_ms;
    if pct > 100.0 || (pct - want).abs() > 1e-9 {
        problems.push(format!("% time paused {pct}, want {want} (<= 100)"));
    }
}

/// TraceEvent prints GCReason by name, or the number for values its enum lacks.
fn reason_value(s: &str) -> u32 {
    const NAMES: [&str; 14] = [
        "AllocSmall",
        "Induced",
        "LowMemory",
        "Empty",
        "AllocLarge",
        "OutOfSpaceSOH",
        "OutOfSpaceLOH",
        "InducedNotForced",
        "Internal",
        "InducedLowMemory",
        "InducedCompacting",
        "LowMemoryHost",
        "PMFullGC",
        "LowMemoryHostBlocking",
    ];
    NAMES
        .iter()
        .position(|n| *n == s)
        .map(|i| i as u32)
        .or_else(|| s.parse().ok())
        .unwrap_or(u32::MAX)
}

/// Every GC.Collect call that ran a GC (CollectionCount moved) shows an induced GC of at least
/// the requested generation among the GCs numbered in between.
fn check_induced(d: &Decoded, oracle: &Json, problems: &mut Vec<String>) {
    let by_number: BTreeMap<u32, (u32, u32)> =
        d.gc_starts.iter().map(|s| (s.0, (s.1, s.2))).collect();
    for call in oracle["induced"]["calls"].items() {
        let before = call["counts_before"]["gen0"].int() as u32;
        let after = call["counts_after"]["gen0"].int() as u32;
        let gen = call["generation"].int() as u32;
        if after == before {
            continue; // e.g. GCCollectionMode.Optimized decided not to collect
        }
        let hit = (before + 1..=after)
            .filter_map(|n| by_number.get(&n))
            .any(|&(depth, reason)| depth >= gen && INDUCED_REASONS.contains(&reason));
        // Optimized lets the GC decide not to collect: a GC counted meanwhile can be another
        // thread's allocation GC (seen on .NET 9 `conserve`).
        if !hit && call["mode"].str() == "Optimized" {
            continue;
        }
        if !hit {
            let seen: Vec<_> = (before + 1..=after)
                .map(|n| (n, by_number.get(&n)))
                .collect();
            problems.push(format!(
                "{} gen{gen} {}: no induced GC/Start among GCs {seen:?}",
                call["api"].str(),
                call["mode"].str()
            ));
        }
    }
}

/// GCHandleType as the workload logs it -> GCHandleKind in SetGCHandle.
fn handle_kind(name: &str) -> u32 {
    match name {
        "Weak" => 0,
        "WeakTrackResurrection" => 1,
        "Normal" => 2,
        "Pinned" => 3,
        other => panic!("unknown handle type {other}"),
    }
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex handle id")
}

/// The program's own handles, matched by id among SetGCHandle / DestroyGCHandle events (the
/// runtime makes and frees handles of its own too).
fn check_handles(d: &Decoded, oracle: &Json, problems: &mut Vec<String>) -> String {
    let h = &oracle["gc_handles"];
    if h.is_null() {
        return String::new();
    }
    let mut set: BTreeMap<(u64, u32), i64> = BTreeMap::new();
    for &(id, kind) in &d.set_handles {
        *set.entry((id, kind)).or_default() += 1;
    }
    for a in h["allocations"].items() {
        let (kind, id) = a.str().split_once(' ').expect("KIND 0xID");
        let slot = set.entry((hex(id), handle_kind(kind))).or_default();
        *slot -= 1;
        if *slot < 0 {
            problems.push(format!(
                "no SetGCHandle for the program's {kind} handle {id}"
            ));
        }
    }
    let mut destroyed: BTreeMap<u64, i64> = BTreeMap::new();
    for &id in &d.destroyed_handles {
        *destroyed.entry(id).or_default() += 1;
    }
    for f in h["frees"].items() {
        let slot = destroyed.entry(hex(f.str())).or_default();
        *slot -= 1;
        if *slot < 0 {
            problems.push(format!(
                "no DestroyGCHandle for the program's handle {}",
                f.str()
            ));
        }
    }
    let freed = h["total_freed"].int();
    let destroy = d.destroyed_handles.len() as i64;
    if destroy < freed {
        problems.push(format!(
            "{destroy} DestroyGCHandle, the program freed {freed}"
        ));
    }
    // The `handles` workload's other handles: WeakReference (short/long weak) and dependent
    // handles (ConditionalWeakTable entries, System.Runtime.DependentHandle), by kind.
    let other = &h["other_handles"];
    if !other.is_null() {
        let of_kind = |k: u32| d.set_handles.iter().filter(|s| s.1 == k).count() as i64;
        let made = |k: &str| other[k].opt_int().unwrap_or(0);
        for (kind, name, want) in [
            (0, "WeakShort", made("Weak") + made("WeakReference")),
            (
                1,
                "WeakLong",
                made("WeakTrackResurrection") + made("WeakReference(trackResurrection)"),
            ),
            (2, "Strong", made("Normal")),
            (3, "Pinned", made("Pinned")),
            (
                6,
                "Dependent",
                made("ConditionalWeakTable") + made("DependentHandle"),
            ),
        ] {
            if want == 0 || of_kind(kind) < want {
                problems.push(format!(
                    "{} SetGCHandle of kind {name}, the program made {want}",
                    of_kind(kind)
                ));
            }
        }
    }
    let pinned = d.set_handles.iter().filter(|s| s.1 == 3).count() as i64;
    if pinned < h["Pinned_allocated"].int() {
        problems.push(format!(
            "{pinned} pinned SetGCHandle, the program pinned {}",
            h["Pinned_allocated"].int()
        ));
    }
    format!(
        "; handles: {} SetGCHandle ({pinned} pinned) for {} allocated, {destroy} DestroyGCHandle for {freed} freed",
        d.set_handles.len(),
        h["total_allocated"].int()
    )
}

fn check_memory_pressure(d: &Decoded, oracle: &Json, problems: &mut Vec<String>) {
    let m = &oracle["memory_pressure"];
    if m.is_null() {
        return;
    }
    let (adds, removes) = (m["add_calls"].int() as u64, m["remove_calls"].int() as u64);
    let (added, removed) = (
        m["bytes_added"].int() as u64,
        m["bytes_removed"].int() as u64,
    );
    // The runtime adds some pressure of its own, so these are lower bounds.
    if d.pressure_added.0 < adds || d.pressure_added.1 < added {
        problems.push(format!("IncreaseMemoryPressure: {:?} (events, bytes), the program added {adds} calls / {added} bytes", d.pressure_added));
    }
    if d.pressure_removed.0 < removes || d.pressure_removed.1 < removed {
        problems.push(format!("DecreaseMemoryPressure: {:?} (events, bytes), the program removed {removes} calls / {removed} bytes", d.pressure_removed));
    }
}

/// One GCPerHeapHistory per heap of each GC that has a GCGlobalHeapHistory (under DATAS the heap
/// count changes from GC to GC), and never more heaps than the runtime was configured with.
fn check_heaps(d: &Decoded, oracle: &Json, problems: &mut Vec<String>) {
    let count = |id: u32| -> u64 {
        d.events
            .iter()
            .filter(|(k, _)| k.0 == RUNTIME && k.1 == id)
            .map(|(_, v)| v.0)
            .sum()
    };
    let per_heap = count(GC_PER_HEAP_HISTORY);
    let want: u64 = d.global_heaps.iter().map(|&n| u64::from(n)).sum();
    if per_heap != want {
        problems.push(format!(
            "{per_heap} GCPerHeapHistory for {} GCGlobalHeapHistory naming {want} heaps in all",
            d.global_heaps.len()
        ));
    }
    // The configured count (the trimmed .NET 10 program cannot read it back: null).
    if let Some(max) = oracle["gc_settings_at_exit"]["heap_count"].opt_int() {
        if let Some(n) = d.global_heaps.iter().find(|&&n| i64::from(n) > max) {
            problems.push(format!(
                "a GC with {n} heaps, the runtime was set up for {max}"
            ));
        }
    }
}

/// Bytes of each GCDynamicEvent the GC fires (version 1; a u16 version first, then the arguments
/// packed): the GC's dynamic-event definitions in dotnet/runtime.
const DYNAMIC_LAYOUTS: [(&str, usize); 6] = [
    ("CommittedUsage", 42),
    ("SizeAdaptationSample", 38),
    ("SizeAdaptationTuning", 56),
    ("SizeAdaptationFullGCTuning", 44),
    ("HeapCountSample", 34),
    ("HeapCountTuning", 36),
];

fn u16_at(p: &[u8], off: usize) -> u64 {
    u64::from(u16::from_le_bytes([p[off], p[off + 1]]))
}
fn u32v(p: &[u8], off: usize) -> u64 {
    u64::from(u32_at(p, off).unwrap())
}
fn u64v(p: &[u8], off: usize) -> u64 {
    u64_at(p, off).unwrap()
}
fn f32v(p: &[u8], off: usize) -> f32 {
    f32::from_le_bytes(p[off..off + 4].try_into().unwrap())
}

/// Every GCDynamicEvent has a known name and exactly its layout's length, version 1; and every
/// field gcscope decodes equals the one read here from the blob at the GC's offsets.
fn check_dynamic_events(d: &Decoded, problems: &mut Vec<String>) {
    use gcscope_core::clr::gc::DynamicPayload as P;
    let mut bad = Vec::new();
    for ((name, b), ours) in d.dynamic.iter().zip(&d.dynamic_decoded) {
        let Some(&(_, len)) = DYNAMIC_LAYOUTS.iter().find(|(n, _)| n == name) else {
            bad.push(format!("unknown dynamic event {name}"));
            continue;
        };
        if b.len() != len || u16_at(b, 0) != 1 {
            bad.push(format!(
                "{name}: {} bytes, version {}",
                b.len(),
                u16_at(b, 0)
            ));
            continue;
        }
        let ok = match ours {
            Ok(P::CommittedUsage(c)) => {
                (
                    c.version as u64,
                    c.total_committed_in_use,
                    c.total_committed_in_global_decommit,
                ) == (1, u64v(b, 2), u64v(b, 10))
                    && (
                        c.total_committed_in_free,
                        c.total_committed_in_global_free,
                        c.total_bookkeeping_committed,
                    ) == (u64v(b, 18), u64v(b, 26), u64v(b, 34))
            }
            // 2 GCIndex u64, 10 ElapsedTimeBetweenGCs u32, 14 GCPauseTime, 18 SOHMSLWaitTime,
            // 22 UOHMSLWaitTime, 26 TotalSOHStableSize u64, 34 Gen0BudgetPerHeap u32.
            Ok(P::SizeAdaptationSample(x)) => {
                (
                    x.gc_index,
                    u64::from(x.elapsed_between_gcs_us),
                    u64::from(x.gc_pause_us),
                ) == (u64v(b, 2), u32v(b, 10), u32v(b, 14))
                    && (u64::from(x.soh_msl_wait_us), u64::from(x.uoh_msl_wait_us))
                        == (u32v(b, 18), u32v(b, 22))
                    && (x.total_soh_stable_size, u64::from(x.gen0_budget_per_heap))
                        == (u64v(b, 26), u32v(b, 34))
            }
            // 2 NewNHeaps u16, 4 MaxHeapCountDatas, 6 MinHeapCountDatas, 8 CurrentGCIndex u64,
            // 16 TotalSOHStableSize u64, 24/28/32 f32, 36 RecordedTcpCount u16, 38 slope f32,
            // 42 NumGcsSinceLastChange u32, 46 AggFactor u8, 47/49/51/53 u16, 55 AdjMetric u8.
            Ok(P::SizeAdaptationTuning(x)) => {
                (
                    u64::from(x.new_heap_count),
                    u64::from(x.max_heap_count_datas),
                    u64::from(x.min_heap_count_datas),
                ) == (u16_at(b, 2), u16_at(b, 4), u16_at(b, 6))
                    && (x.gc_index, x.total_soh_stable_size) == (u64v(b, 8), u64v(b, 16))
                    && x.median_throughput_cost_pct.to_bits() == f32v(b, 24).to_bits()
                    && x.tcp_to_consider_pct.to_bits() == f32v(b, 28).to_bits()
                    && x.current_around_target_accumulation.to_bits() == f32v(b, 32).to_bits()
                    && u64::from(x.recorded_tcp_count) == u16_at(b, 36)
                    && x.recorded_tcp_slope.to_bits() == f32v(b, 38).to_bits()
                    && u64::from(x.gcs_since_last_change) == u32v(b, 42)
                    && x.aggressiveness_factor == b[46]
                    && (u64::from(x.change_decision), u64::from(x.adjustment_reason))
                        == (u16_at(b, 47), u16_at(b, 49))
                    && (
                        u64::from(x.change_frequency_factor),
                        u64::from(x.change_frequency_reason),
                    ) == (u16_at(b, 51), u16_at(b, 53))
                    && x.adjustment_metric == b[55]
            }
            // 2 NewNHeaps u16, 4 CurrentGCIndex u64, 12 MedianGen2Tcp f32, 16 NumGen2sSinceLastChange
            // u32, then three (u32 GC-index distance, f32 GC %) at 20, 28, 36.
            Ok(P::SizeAdaptationFullGcTuning(x)) => {
                u64::from(x.new_heap_count) == u16_at(b, 2)
                    && x.gc_index == u64v(b, 4)
                    && x.median_gen2_tcp_pct.to_bits() == f32v(b, 12).to_bits()
                    && u64::from(x.gen2_gcs_since_last_change) == u32v(b, 16)
                    && (0..3).all(|i| {
                        u64::from(x.samples[i].gcs_ago) == u32v(b, 20 + 8 * i)
                            && x.samples[i].gc_pct.to_bits() == f32v(b, 24 + 8 * i).to_bits()
                    })
            }
            // .NET 8: 2 GCIndex u64, then three u64 at 10, 18, 26.
            Ok(P::HeapCountSample(x)) => {
                (
                    x.gc_index,
                    x.elapsed_between_gcs_us,
                    x.gc_pause_us,
                    x.msl_wait_us,
                ) == (u64v(b, 2), u64v(b, 10), u64v(b, 18), u64v(b, 26))
            }
            // .NET 8: 2 NewHeapCount u16, 4 GCIndex u64, six f32 at 12..36.
            Ok(P::HeapCountTuning(x)) => {
                u64::from(x.new_heap_count) == u16_at(b, 2)
                    && x.gc_index == u64v(b, 4)
                    && [
                        x.median_throughput_cost_pct,
                        x.smoothed_median_throughput_cost_pct,
                        x.tcp_reduction_per_step_up,
                        x.tcp_increase_per_step_down,
                        x.space_cost_increase_per_step_up,
                        x.space_cost_decrease_per_step_down,
                    ]
                    .iter()
                    .enumerate()
                    .all(|(i, v)| v.to_bits() == f32v(b, 12 + 4 * i).to_bits())
            }
            Ok(P::Other) => false,
            Err(e) => {
                bad.push(format!("{name}: gcscope could not decode it: {e}"));
                continue;
            }
        };
        if !ok {
            bad.push(format!(
                "{name}: gcscope's fields differ from the blob: {ours:?}"
            ));
        }
    }
    if let Some(first) = bad.first() {
        problems.push(format!(
            "{} GCDynamicEvent problems; first: {first}",
            bad.len()
        ));
    }
}

/// The run's knob `NAME` (`DOTNET_NAME` or `COMPlus_NAME`) from the oracle's environment.
fn knob<'a>(oracle: &'a Json, name: &str) -> Option<&'a str> {
    let env = &oracle["runtime"]["environment"];
    ["DOTNET_", "COMPlus_"]
        .iter()
        .find_map(|p| match &env[&format!("{p}{name}")] {
            Json::Str(s) => Some(s.as_str()),
            _ => None,
        })
}

/// The model's GC mode against the runtime's settings: server GC (GCSettings.IsServerGC, or the
/// knob where the trimmed .NET 10 program has no GCSettings) shows as server, workstation as
/// workstation (or unknown where the trace cannot tell: never guessed); DATAS (server GC on .NET 9+
/// without GCHeapCount, or GCDynamicAdaptationMode=1) as DATAS with the heap range of the
/// GCGlobalHeapHistory events read here; the `datas` workloads change the count on .NET 9 and 10.
/// Every GC's heap count is its GCGlobalHeapHistory's as TraceEvent copies it, where TraceEvent has
/// one (its `HeapCount` is not: the first GC's, for every GC; see docs/reference/model.md note 8).
fn check_mode(bytes: &[u8], d: &Decoded, oracle: &Json, te: &Json, problems: &mut Vec<String>) {
    let m = match gcscope_core::gc::analyze(bytes) {
        Ok(m) => m,
        Err(e) => {
            problems.push(format!("model: {e}"));
            return;
        }
    };
    let p = &m.process;
    let server = match &oracle["gc_settings_at_start"]["is_server_gc"] {
        Json::Bool(b) => *b,
        _ => knob(oracle, "gcServer") == Some("1"),
    };
    let major: u32 = oracle["runtime"]["environment_version"]
        .str()
        .split('.')
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let adaptation = match &oracle["gc_config_variables"]["GCDynamicAdaptationMode"] {
        Json::Num(n) => *n == 1.0,
        _ => knob(oracle, "GCDynamicAdaptationMode").map_or(major >= 9, |v| v == "1"),
    };
    let datas = server && major >= 8 && adaptation && knob(oracle, "GCHeapCount").is_none();
    let label = gcscope_core::gc::mode::label(p);
    match p.gc_mode.as_deref() {
        None if !server && major < 5 => {} // 3.1 without Verbose events or flags: cannot tell
        Some(mode) if mode == if server { "server" } else { "workstation" } => {}
        other => problems.push(format!(
            "GC mode {other:?} ({label}), the runtime ran server={server}"
        )),
    }
    if p.gc_mode.is_some() && p.datas != Some(datas) {
        problems.push(format!(
            "DATAS {:?} ({label}), the run had DATAS {datas}",
            p.datas
        ));
    }
    let (min, max) = (d.global_heaps.iter().min(), d.global_heaps.iter().max());
    if (p.heap_count_min.as_ref(), p.heap_count.as_ref()) != (min, max)
        && !d.global_heaps.is_empty()
    {
        problems.push(format!(
            "heap range {:?}-{:?}, GCGlobalHeapHistory {min:?}-{max:?}",
            p.heap_count_min, p.heap_count
        ));
    }
    if datas {
        let range = match (min, max) {
            (Some(a), Some(b)) if a != b => format!("{a}-{b} heaps"),
            (_, Some(b)) => format!("{b} heap{}", if *b == 1 { "" } else { "s" }),
            _ => String::new(),
        };
        if !label.starts_with(&format!("server, DATAS: {range} (")) {
            problems.push(format!("label {label:?} for DATAS with {range}"));
        }
        let workload = oracle["workload"].str();
        if major >= 9 && workload.starts_with("datas") && p.heap_count_changes == 0 {
            problems.push("the DATAS workload never changed the heap count".into());
        }
        // Every DATAS sample and decision read here is in the model.
        let n = |names: &[&str]| {
            d.dynamic
                .iter()
                .filter(|(x, _)| names.contains(&x.as_str()))
                .count()
        };
        let samples = n(&["SizeAdaptationSample", "HeapCountSample"]);
        let decisions = n(&[
            "SizeAdaptationTuning",
            "SizeAdaptationFullGCTuning",
            "HeapCountTuning",
        ]);
        if (m.datas.samples.len(), m.datas.decisions.len()) != (samples, decisions) {
            problems.push(format!(
                "model has {} DATAS samples / {} decisions, the trace {samples} / {decisions}",
                m.datas.samples.len(),
                m.datas.decisions.len()
            ));
        }
        if m.datas.changes.len() as u32 != p.heap_count_changes
            || m.datas.changes.iter().any(|c| c.decision.is_none())
        {
            problems.push("a heap-count change without the decision that chose it".into());
        }
    }
    let mut first_heaps = None;
    for t in te["gcs"].items() {
        let n = t["Number"].int() as u32;
        let te_heaps = t["GlobalHeapHistory"]["NumHeaps"].opt_int();
        first_heaps = first_heaps.or(te_heaps);
        let ours = m
            .gcs
            .iter()
            .find(|g| g.number == n)
            .and_then(|g| g.heap_count);
        if let (Some(a), Some(b)) = (ours, te_heaps) {
            if i64::from(a) != b {
                problems.push(format!(
                    "GC {n}: {a} heaps, its GCGlobalHeapHistory (TraceEvent's copy) {b}"
                ));
            }
        }
        // TraceEvent's HeapCount: the first GC's count for every GC.
        if te_heaps.is_some() && t["HeapCount"].opt_int() != first_heaps {
            problems.push(format!(
                "GC {n}: TraceEvent's HeapCount is not the first GC's"
            ));
        }
    }
}

// ---------------------------------------------------------------- a small JSON reader
// (the core crate has no JSON dependency; the reference files are plain JSON)

#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

static NULL: Json = Json::Null;

impl std::ops::Index<&str> for Json {
    type Output = Json;
    fn index(&self, key: &str) -> &Json {
        match self {
            Json::Obj(kv) => kv
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .unwrap_or(&NULL),
            _ => &NULL,
        }
    }
}

impl Json {
    fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }
    fn opt_int(&self) -> Option<i64> {
        match self {
            Json::Num(n) if n.fract() == 0.0 => Some(*n as i64),
            _ => None,
        }
    }
    fn int(&self) -> i64 {
        match self {
            Json::Num(n) if n.fract() == 0.0 => *n as i64,
            other => panic!("expected an integer, found {other:?}"),
        }
    }
    fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            other => panic!("expected a string, found {other:?}"),
        }
    }
    fn items(&self) -> impl Iterator<Item = &Json> {
        match self {
            Json::Arr(v) => v.iter(),
            Json::Null => [].iter(),
            other => panic!("expected an array, found {other:?}"),
        }
    }
    fn entries(&self) -> impl Iterator<Item = (&str, &Json)> {
        match self {
            Json::Obj(kv) => kv.iter().map(|(k, v)| (k.as_str(), v)),
            other => panic!("expected an object, found {other:?}"),
        }
    }

    fn parse(text: &str) -> Result<Json, String> {
        let b = text.as_bytes();
        let mut pos = 0;
        let v = Self::value(b, &mut pos)?;
        Self::ws(b, &mut pos);
        if pos != b.len() {
            return Err(format!("trailing data at byte {pos}"));
        }
        Ok(v)
    }

    fn ws(b: &[u8], pos: &mut usize) {
        while *pos < b.len() && b[*pos].is_ascii_whitespace() {
            *pos += 1;
        }
    }

    fn value(b: &[u8], pos: &mut usize) -> Result<Json, String> {
        Self::ws(b, pos);
        let err = |what: &str, at: usize| format!("expected {what} at byte {at}");
        match b.get(*pos) {
            Some(b'{') => {
                *pos += 1;
                let mut kv = Vec::new();
                Self::ws(b, pos);
                if b.get(*pos) == Some(&b'}') {
                    *pos += 1;
                    return Ok(Json::Obj(kv));
                }
                loop {
                    Self::ws(b, pos);
                    let Json::Str(k) = Self::value(b, pos)? else {
                        return Err(err("a key", *pos));
                    };
                    Self::ws(b, pos);
                    if b.get(*pos) != Some(&b':') {
                        return Err(err("':'", *pos));
                    }
                    *pos += 1;
                    kv.push((k, Self::value(b, pos)?));
                    Self::ws(b, pos);
                    match b.get(*pos) {
                        Some(b',') => *pos += 1,
                        Some(b'}') => {
                            *pos += 1;
                            return Ok(Json::Obj(kv));
                        }
                        _ => return Err(err("',' or '}'", *pos)),
                    }
                }
            }
            Some(b'[') => {
                *pos += 1;
                let mut items = Vec::new();
                Self::ws(b, pos);
                if b.get(*pos) == Some(&b']') {
                    *pos += 1;
                    return Ok(Json::Arr(items));
                }
                loop {
                    items.push(Self::value(b, pos)?);
                    Self::ws(b, pos);
                    match b.get(*pos) {
                        Some(b',') => *pos += 1,
                        Some(b']') => {
                            *pos += 1;
                            return Ok(Json::Arr(items));
                        }
                        _ => return Err(err("',' or ']'", *pos)),
                    }
                }
            }
            Some(b'"') => {
                *pos += 1;
                let mut s = String::new();
                loop {
                    match b.get(*pos) {
                        Some(b'"') => {
                            *pos += 1;
                            return Ok(Json::Str(s));
                        }
                        Some(b'\\') => {
                            let c = match b.get(*pos + 1) {
                                Some(b'n') => '\n',
                                Some(b't') => '\t',
                                Some(b'r') => '\r',
                                Some(b'b') => '\u{8}',
                                Some(b'f') => '\u{c}',
                                Some(b'u') => {
                                    let h = std::str::from_utf8(
                                        b.get(*pos + 2..*pos + 6).ok_or("short \\u")?,
                                    )
                                    .map_err(|e| e.to_string())?;
                                    *pos += 4;
                                    char::from_u32(
                                        u32::from_str_radix(h, 16).map_err(|e| e.to_string())?,
                                    )
                                    .unwrap_or('\u{fffd}')
                                }
                                Some(&c) => c as char,
                                None => return Err(err("an escape", *pos)),
                            };
                            s.push(c);
                            *pos += 2;
                        }
                        Some(_) => {
                            let start = *pos;
                            while *pos < b.len() && b[*pos] != b'"' && b[*pos] != b'\\' {
                                *pos += 1;
                            }
                            s.push_str(
                                std::str::from_utf8(&b[start..*pos]).map_err(|e| e.to_string())?,
                            );
                        }
                        None => return Err(err("'\"'", *pos)),
                    }
                }
            }
            Some(b't') if b[*pos..].starts_with(b"true") => {
                *pos += 4;
                Ok(Json::Bool(true))
            }
            Some(b'f') if b[*pos..].starts_with(b"false") => {
                *pos += 5;
                Ok(Json::Bool(false))
            }
            Some(b'n') if b[*pos..].starts_with(b"null") => {
                *pos += 4;
                Ok(Json::Null)
            }
            Some(_) => {
                let start = *pos;
                while *pos < b.len()
                    && matches!(b[*pos], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    *pos += 1;
                }
                let t = std::str::from_utf8(&b[start..*pos]).map_err(|e| e.to_string())?;
                t.parse().map(Json::Num).map_err(|_| err("a value", start))
            }
            None => Err(err("a value", *pos)),
        }
    }
}

#[test]
fn json_reader_reads_what_the_generators_write() {
    let v = Json::parse(r#"{"a": [1, -2.5e1, "x\"\u0041"], "b": {"c": null, "d": true}, "e": []}"#)
        .unwrap();
    assert_eq!(
        v["a"],
        Json::Arr(vec![
            Json::Num(1.0),
            Json::Num(-25.0),
            Json::Str("x\"A".into())
        ])
    );
    assert!(v["b"]["c"].is_null());
    assert_eq!(v["b"]["d"], Json::Bool(true));
    assert_eq!(v["e"].items().count(), 0);
    assert!(v["missing"].is_null());
    assert!(Json::parse("[1,]").is_err());
    assert!(Json::parse("{\"a\" 1}").is_err());
}
