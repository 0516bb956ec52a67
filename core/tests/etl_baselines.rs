//! The ETW reference traces (`../shared/traces/perfview/*.etl.zip`) against TraceEvent's own
//! baselines for them (made by TraceEvent's GeneralParsing test through TraceLog):
//!
//! * every `COUNT Microsoft-Windows-DotNETRuntime*/...` line equals our count of that name, except
//!   where a named TraceLog behaviour explains the difference (listed in [`TRACELOG_DROPS`], and for
//!   x86 Method/LoadVerbose computed from the raw payloads: TraceLog drops the LoadVerbose of methods
//!   that are neither dynamic nor jitted);
//! * every runtime-provider name we report is in the baseline or listed there;
//! * the baseline's first events of each runtime name (up to five per name, in time order): time
//!   (3 decimals of ms since the header event), process, thread, processor and payload length, and
//!   for the GC names every payload field TraceEvent printed, matched by name against our decoded
//!   event (`clr::decode`, serialized) the way TraceEvent prints values (numbers with thousands
//!   separators or 0x hex, enum names, values cut to 20 characters + "...").

mod common;
#[path = "common/render.rs"]
mod render;

use gcscope_core::clr;
use gcscope_core::event::Event;
use render::{matches, render, V};
use std::collections::BTreeMap;

/// Runtime events TraceLog consumes into its own tables and does not keep as events
/// (docs/reference/formats.md, "Events TraceLog drops").
const TRACELOG_DROPS: &[(&str, &str)] = &[
    (
        "Microsoft-Windows-DotNETRuntime/ClrStack/Walk",
        "stacks: TraceLog attaches them to the event they belong to",
    ),
    (
        "Microsoft-Windows-DotNETRuntime/Method/ILToNativeMap",
        "IL-to-native maps: consumed into TraceLog's code-address tables",
    ),
    (
        "Microsoft-Windows-DotNETRuntimeRundown/Method/DCStopVerbose",
        "method rundown: consumed into TraceLog's code-address tables",
    ),
    (
        "Microsoft-Windows-DotNETRuntimeRundown/Method/ILToNativeMapDCStop",
        "IL-to-native map rundown: consumed into TraceLog's code-address tables",
    ),
];

const TRACES: &[&str] = &[
    "gcevents",
    "gcrundownevents",
    "net.4.5.2.x64",
    "net.4.5.2.x86",
];

/// One `EVENT` line of an ETL baseline.
#[derive(Debug)]
struct BaselineEvent {
    msec: String,
    name: String,
    /// PID, TID, PName, ProceNum, DataLen, then the payload fields, in order.
    attrs: Vec<(String, String)>,
}

struct Baseline {
    counts: BTreeMap<String, u64>,
    events: Vec<BaselineEvent>,
}

fn read_baseline(path: &std::path::Path) -> Baseline {
    let text = std::fs::read_to_string(path).expect("baseline");
    let mut counts = BTreeMap::new();
    let mut events = Vec::new();
    for line in text.lines() {
        let line = line.trim_start_matches('\u{feff}');
        if let Some(c) = line.strip_prefix("COUNT ") {
            let (name, n) = c.rsplit_once(':').expect("COUNT line");
            counts.insert(name.to_string(), n.trim().parse().expect("count"));
        } else if let Some(e) = line.strip_prefix("EVENT ") {
            let (msec, rest) = e.split_once(": ").expect("EVENT time");
            // A name may hold a space ("Windows Kernel/..."): the fields start at PID.
            let (name, fields) = match rest.find(" PID=") {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => rest.split_once(' ').expect("EVENT name"),
            };
            let attrs = fields
                .split("; ")
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            events.push(BaselineEvent {
                msec: msec.to_string(),
                name: name.to_string(),
                attrs,
            });
        }
    }
    Baseline { counts, events }
}

fn is_runtime(name: &str) -> bool {
    name.starts_with("Microsoft-Windows-DotNETRuntime")
}

/// What we keep of each event for the comparisons.
struct Ours {
    time_ms: f64,
    process_id: u32,
    thread_id: u64,
    processor: u32,
    event_id: u32,
    version: u32,
    pointer_size: u8,
    payload: Vec<u8>,
}

/// TraceEvent's `n3` format of a millisecond time: thousands separators, 3 decimals, halves
/// rounded away from zero (.NET's rule; the times are whole 100 ns ticks, so x.xxx5 is exact).
fn n3(ms: f64) -> String {
    let s = format!("{:.3}", (ms * 1000.0 + 1e-6).round() / 1000.0);
    let (int, frac) = s.split_once('.').unwrap();
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{out}.{frac}")
}

/// Method/LoadVerbose whose MethodFlags (u32 after MethodID, ModuleID, MethodStartAddress (u64
/// each) and MethodSize, MethodToken (u32 each)) has neither Dynamic (0x1) nor Jitted (0x8):
/// TraceLog keeps no event for those (docs/reference/formats.md, "Events TraceLog drops").
fn loadverbose_dropped(e: &Ours) -> bool {
    e.payload
        .get(32..36)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()) & 0x9 == 0)
        .unwrap_or(false)
}

fn decode_trace(name: &str) -> Option<BTreeMap<String, Vec<Ours>>> {
    let shared = common::shared_dir()?;
    let bytes = std::fs::read(shared.join(format!("traces/perfview/{name}.etl.zip"))).unwrap();
    let mut by_name: BTreeMap<String, Vec<Ours>> = BTreeMap::new();
    // Fed in odd-sized chunks: buffers straddle chunk boundaries everywhere.
    let (res, stats) = common::decode_chunked(&bytes, 77_777, &mut |e: &Event<'_>| {
        by_name
            .entry(format!("{}/{}", e.provider, e.name))
            .or_default()
            .push(Ours {
                time_ms: e.time_ms,
                process_id: e.process_id,
                thread_id: e.thread_id,
                processor: e.processor,
                event_id: e.event_id,
                version: e.version,
                pointer_size: e.pointer_size,
                payload: if is_runtime(e.provider) || e.provider == "Windows Kernel" {
                    e.payload.to_vec()
                } else {
                    Vec::new()
                },
            });
    });
    res.unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(stats.skipped_events, 0, "{name}: unreadable records");
    assert_eq!(
        stats.out_of_order_events, 0,
        "{name}: merge window too small"
    );
    Some(by_name)
}

/// The trace decoded ([`decode_trace`]) and TraceEvent's baseline of it; None without ../shared.
fn decoded_with_baseline(trace: &str) -> Option<(BTreeMap<String, Vec<Ours>>, Baseline)> {
    let ours = decode_trace(trace)?;
    let shared = common::shared_dir()?;
    let b = read_baseline(&shared.join(format!("traces/perfview/{trace}.baseline.txt")));
    Some((ours, b))
}

#[test]
fn runtime_counts_match_traceevent() {
    for &trace in TRACES {
        let Some((ours, b)) = decoded_with_baseline(trace) else {
            return;
        };
        let mut failures = Vec::new();
        let mut checked = 0;
        for (name, &count) in b.counts.iter().filter(|(n, _)| is_runtime(n)) {
            let events = ours.get(name).map_or(&[][..], |v| &v[..]);
            let mut n = events.len() as u64;
            if name == "Microsoft-Windows-DotNETRuntime/Method/LoadVerbose" {
                let dropped = events.iter().filter(|e| loadverbose_dropped(e)).count() as u64;
                if dropped > 0 {
                    eprintln!("{trace}: {name}: {n} events, {dropped} of JIT helpers (TraceLog drops them)");
                }
                n -= dropped;
            }
            if n != count {
                failures.push(format!("{trace}: {name}: baseline {count}, ours {n}"));
            }
            checked += 1;
        }
        for (name, events) in ours.iter().filter(|(n, _)| is_runtime(n)) {
            if b.counts.contains_key(name) {
                continue;
            }
            match TRACELOG_DROPS.iter().find(|(n, _)| n == name) {
                Some((_, why)) => eprintln!("{trace}: {name}: {} events ({why})", events.len()),
                None => failures.push(format!(
                    "{trace}: we report {} {name} events, the baseline none",
                    events.len()
                )),
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        eprintln!("{trace}: {checked} runtime COUNT lines equal");
        assert!(checked >= 9, "{trace}: only {checked} runtime lines");
    }
}

/// Header attributes of a baseline event, and the payload fields TraceEvent derives from its own
/// state rather than the payload (never compared).
const NOT_FROM_PAYLOAD: &[&str] = &["PID", "TID", "PName", "ProceNum", "DataLen", "Depth"];

/// (name, field): TraceEvent prints these though the payload has no such field. FinalizeObject's
/// TypeName comes from TraceEvent's type table; ObjectSize of an AllocationTick before version 4
/// is printed as 0 (the field is version 4's).
const PRINTED_WITHOUT_PAYLOAD: &[(&str, &str)] = &[
    (
        "Microsoft-Windows-DotNETRuntime/GC/FinalizeObject",
        "TypeName",
    ),
    (
        "Microsoft-Windows-DotNETRuntime/GC/AllocationTick",
        "ObjectSize",
    ),
];

/// Whether TraceEvent's printed value (maybe cut to 20 characters + "...") shows ours.
fn same_value(ours: &V, printed: &str) -> bool {
    let Some(prefix) = printed.strip_suffix("...") else {
        return matches(ours, printed);
    };
    match ours {
        V::T(s) => s.starts_with(prefix),
        // A long number is printed whole (decimal with separators, or hex); only text is cut.
        V::N(_) => false,
    }
}

/// TraceEvent's rendering of the decoded event (top-level fields), `None` when there is no
/// payload layout for it.
fn rendered(e: &Ours, provider: &str) -> Option<Vec<(&'static str, V)>> {
    let ev = Event {
        provider,
        event_id: e.event_id,
        version: e.version,
        pointer_size: e.pointer_size,
        payload: &e.payload,
        ..Event::default()
    };
    let decoded = match clr::decode(&ev)? {
        Ok(d) => d,
        Err(err) => panic!("{provider} {} v{}: {err}", e.event_id, e.version),
    };
    Some(render(&decoded).0)
}

#[test]
fn first_events_match_traceevent() {
    for &trace in TRACES {
        let Some((ours, b)) = decoded_with_baseline(trace) else {
            return;
        };
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        let mut failures = Vec::new();
        let (mut headers, mut payload_fields) = (0, 0);
        let mut unrendered = std::collections::BTreeSet::new();
        for be in b.events.iter().filter(|e| is_runtime(&e.name)) {
            let i = seen.entry(&be.name).or_insert(0);
            let Some(e) = ours.get(&be.name).and_then(|v| v.get(*i)) else {
                failures.push(format!("{trace}: {} #{i}: not decoded", be.name));
                continue;
            };
            *i += 1;
            let attr = |k: &str| {
                be.attrs
                    .iter()
                    .find(|(a, _)| a == k)
                    .map(|(_, v)| v.as_str())
            };
            let expect = [
                ("MSec", be.msec.clone(), n3(e.time_ms)),
                (
                    "PID",
                    attr("PID").unwrap_or("").to_string(),
                    e.process_id.to_string(),
                ),
                (
                    "TID",
                    attr("TID").unwrap_or("").to_string(),
                    e.thread_id.to_string(),
                ),
                (
                    "ProceNum",
                    attr("ProceNum").unwrap_or("").to_string(),
                    e.processor.to_string(),
                ),
                (
                    "DataLen",
                    attr("DataLen").unwrap_or("").to_string(),
                    e.payload.len().to_string(),
                ),
            ];
            for (k, want, got) in expect {
                if want != got {
                    failures.push(format!(
                        "{trace}: {} #{}: {k} baseline {want}, ours {got}",
                        be.name,
                        *i - 1
                    ));
                }
            }
            headers += 1;
            // Payload fields of the GC events the model reads.
            let (provider, short) = be.name.split_once('/').unwrap();
            if !(short == "GC" || short.starts_with("GC/")) {
                continue;
            }
            let Some(ours_fields) = rendered(e, provider) else {
                unrendered.insert(be.name.as_str());
                continue;
            };
            for (k, v) in be
                .attrs
                .iter()
                .filter(|(k, _)| !NOT_FROM_PAYLOAD.contains(&k.as_str()))
            {
                match ours_fields
                    .iter()
                    .find(|(name, _)| name == k)
                    .map(|(_, v)| v)
                {
                    Some(o) if same_value(o, v) => payload_fields += 1,
                    // TraceEvent prints an empty value for a field this version lacks.
                    _ if v.is_empty() => payload_fields += 1,
                    None if PRINTED_WITHOUT_PAYLOAD.contains(&(be.name.as_str(), k.as_str())) => {}
                    other => failures.push(format!(
                        "{trace}: {} #{}: {k} baseline {v:?}, ours {other:?}",
                        be.name,
                        *i - 1
                    )),
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{} mismatches:\n{}",
            failures.len(),
            failures.join("\n")
        );
        eprintln!(
            "{trace}: {headers} first events, {payload_fields} payload fields equal; \
             GC names without a payload layout: {unrendered:?}"
        );
        assert!(headers > 0);
    }
}

/// Every kernel event name of the groups the stacks and the processes are read from (Process,
/// Thread, Image, StackWalk) and of the machine's configuration (SystemConfig) in the baseline's
/// events is one we report, and each SystemConfig kind comes as many times. (Their times and processes
/// are not compared: TraceEvent fills a classic kernel record's process from its payload and its
/// own thread table.) The image loads that the kernel logs under the process group (HookId
/// 0x030a) are TraceEvent's Image/Load, and its Image/Unload is the image group's opcode 2: the
/// stacks' native frames are named from them.
#[test]
fn kernel_events_are_named_as_traceevent_names_them() {
    for &trace in TRACES {
        let Some((ours, b)) = decoded_with_baseline(trace) else {
            return;
        };
        let names: std::collections::BTreeSet<&str> = b
            .events
            .iter()
            .map(|e| e.name.as_str())
            .filter(|n| {
                [
                    "Process/",
                    "Thread/",
                    "Image/",
                    "StackWalk/",
                    "SystemConfig/",
                ]
                .iter()
                .any(|g| n.starts_with(&format!("Windows Kernel/{g}")))
            })
            .collect();
        let missing: Vec<&&str> = names.iter().filter(|n| !ours.contains_key(**n)).collect();
        assert!(missing.is_empty(), "{trace}: not ours: {missing:?}");
        // The machine's configuration, logged once at the start: each kind as many times.
        let config: Vec<(&String, &u64)> = b
            .counts
            .iter()
            .filter(|(n, _)| n.starts_with("Windows Kernel/SystemConfig/"))
            .collect();
        for (name, &count) in &config {
            let n = ours.get(*name).map_or(0, |v| v.len()) as u64;
            assert_eq!(n, count, "{trace}: {name}");
        }
        eprintln!(
            "{trace}: {} kernel event names, all ours; {} SystemConfig counts equal",
            names.len(),
            config.len()
        );
    }
}
