//! Runs the runtime-provider layer over every zipped EventPipe reference trace:
//! - every event of a runtime provider gets a TraceEvent-style name from `clr::event_name`;
//! - every name TraceEvent's baseline lists for those providers is one we produce;
//! - every GC event `clr::decode` recognises decodes without error, and its layout accounts for
//!   every payload byte (sizes as documented in the runtime manifest; see `clr::layout::layout_len`);
//! - every shorter prefix of such a payload is an error (the first of each kind is tried).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use gcscope_core::clr::gc::DynamicPayload;
use gcscope_core::clr::{self, names, ClrEvent};
use gcscope_core::event::Event;

fn shared_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    if dir.join("traces/perfview").is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: {} not found", dir.display());
        None
    }
}

/// The providers whose event names come from `clr::event_name`.
fn named_by_table(provider: &str) -> bool {
    names::is_runtime_provider(provider)
        || provider == names::SAMPLE_PROFILER_PROVIDER
        || provider == names::EVENTPIPE_PROVIDER
}

#[derive(Default)]
struct Seen {
    /// `Provider/Name` of every runtime-provider event, with counts.
    names: BTreeMap<String, u64>,
    /// Runtime-provider events without a name: (provider, id, version).
    unnamed: BTreeSet<(String, u32, u32)>,
    /// GC events decoded / failed.
    decoded: u64,
    /// (provider, id, version) whose first payload's prefixes were checked.
    prefixes_checked: BTreeSet<(String, u32, u32)>,
    /// Event ids (by provider) serialized once.
    serialized: BTreeMap<String, BTreeSet<u32>>,
    /// GCDynamicEvent payloads decoded as CommittedUsage.
    committed_usage: u64,
    errors: Vec<String>,
}

fn scan(zip: &Path) -> Seen {
    let bytes = std::fs::read(zip).expect("read trace");
    let mut seen = Seen::default();
    let res = gcscope_core::decode_all(&bytes, &mut |e| {
        if !named_by_table(e.provider) {
            return;
        }
        match clr::event_name(e.provider, e.event_id, e.version) {
            Some(n) => *seen.names.entry(format!("{}/{n}", e.provider)).or_default() += 1,
            None => {
                seen.unnamed
                    .insert((e.provider.to_string(), e.event_id, e.version));
            }
        }
        match clr::decode(e) {
            Some(Ok(d)) => {
                seen.decoded += 1;
                // Each kind of event serializes (the app ships events as JSON).
                let ids = seen.serialized.entry(e.provider.to_string()).or_default();
                if ids.insert(e.event_id) {
                    if let Err(err) = serde_json::to_value(&d) {
                        seen.errors.push(format!("{}: serialize: {err}", e.name));
                    }
                }
                if let ClrEvent::GcDynamicEvent(g) = &d {
                    match g.payload() {
                        Ok(DynamicPayload::CommittedUsage(_)) => seen.committed_usage += 1,
                        Ok(_) => {}
                        Err(err) => seen
                            .errors
                            .push(format!("GCDynamicEvent {}: {err}", g.name)),
                    }
                }
                // Every shorter prefix of the first payload of each kind is an error.
                if seen
                    .prefixes_checked
                    .insert((e.provider.to_string(), e.event_id, e.version))
                {
                    // All short prefixes; for big bulk payloads a sample, and the last byte.
                    let len = e.payload.len();
                    for n in (0..len).filter(|&n| n < 512 || n % 97 == 0 || n + 1 == len) {
                        let cut = Event {
                            payload: &e.payload[..n],
                            ..*e
                        };
                        if !matches!(clr::decode(&cut), Some(Err(_))) {
                            seen.errors.push(format!(
                                "{}/{} v{}: {n}-byte prefix of {} decodes",
                                e.provider,
                                e.name,
                                e.version,
                                e.payload.len()
                            ));
                        }
                    }
                }
                match clr::layout::layout_len(&d, e.version, e.pointer_size) {
                    Some(n) if n == e.payload.len() => {}
                    other => seen.errors.push(format!(
                        "{}/{} v{}: payload {} bytes, layout accounts for {other:?}",
                        e.provider,
                        e.name,
                        e.version,
                        e.payload.len()
                    )),
                }
            }
            Some(Err(err)) => seen.errors.push(format!(
                "{} id {} v{} ({} bytes): {err}",
                e.provider,
                e.event_id,
                e.version,
                e.payload.len()
            )),
            None => {}
        }
    });
    if let Err(e) = res {
        // A container/format problem is the decoder's business; report it, keep what we saw.
        eprintln!("{}: decoder stopped: {e}", zip.display());
    }
    seen
}

const RUNTIMES: [&str; 4] = ["netcore3.1", "net8.0", "net9.0", "net10.0"];

/// The generated traces committed in fixtures/traces (.NET Core 3.1, .NET 8, 9 and 10, Linux x64).
fn generated_traces() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let mut out = Vec::new();
    for runtime in RUNTIMES {
        let Ok(rd) = std::fs::read_dir(root.join(runtime)) else {
            continue;
        };
        out.extend(
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "nettrace")),
        );
    }
    out.sort();
    out
}

fn zips(shared: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["traces/perfview", "traces/public"] {
        let Ok(rd) = std::fs::read_dir(shared.join(sub)) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".nettrace.zip") || name.ends_with(".netperf.zip") {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Names TraceEvent printed for the providers we name.
fn baseline_names(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).expect("baseline");
    text.lines()
        .filter_map(|l| l.trim_start_matches('\u{feff}').split(", ").next())
        .filter(|n| n.split_once('/').is_some_and(|(p, _)| named_by_table(p)))
        .map(str::to_string)
        .collect()
}

#[test]
fn runtime_events_named_and_gc_payloads_decode() {
    // The shared reference traces when present (CI), the repository's generated ones always.
    let shared = shared_dir();
    let mut failures = Vec::new();
    let mut gc_decoded = BTreeMap::new();
    let mut committed = BTreeMap::new();
    let reference = shared.as_deref().map(zips).unwrap_or_default();
    for zip in reference.into_iter().chain(generated_traces()) {
        let file = zip.file_name().unwrap().to_string_lossy().into_owned();
        let file = match zip.parent().and_then(|d| d.file_name()) {
            Some(d) if RUNTIMES.iter().any(|r| d == *r) => {
                format!("{}/{file}", d.to_string_lossy())
            }
            _ => file,
        };
        let seen = scan(&zip);
        if !seen.unnamed.is_empty() {
            failures.push(format!(
                "{file}: runtime events without a name: {:?}",
                seen.unnamed
            ));
        }
        if !seen.errors.is_empty() {
            let first: Vec<_> = seen.errors.iter().take(20).collect();
            failures.push(format!(
                "{file}: {} GC payloads failed, first: {first:#?}",
                seen.errors.len()
            ));
        }
        eprintln!(
            "{file}: {} runtime events, {} GC payloads decoded",
            seen.names.values().sum::<u64>(),
            seen.decoded
        );
        gc_decoded.insert(file.clone(), seen.decoded);
        committed.insert(file.clone(), seen.committed_usage);
        let baseline = zip.with_extension("baseline.txt");
        if file.ends_with(".zip") && baseline.exists() {
            for name in baseline_names(&baseline) {
                if !seen.names.contains_key(&name) {
                    failures.push(format!("{file}: baseline name {name} never produced"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The GC traces really went through the payload decoders.
    let get = |k: &str| gc_decoded.get(k).copied().unwrap_or(0);
    if let Some(shared) = &shared {
        assert!(get("eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip") > 40_000);
        assert!(get("eventpipe-dotnetcore2.1-win-x86-objver3.netperf.zip") > 100);
        if shared.join("traces/public").is_dir() {
            assert!(get("dotnet6.0.9-win-x64-RememberCalendar.nettrace.zip") > 0);
        }
    }
    // .NET 8 sends GCDynamicEvent CommittedUsage; 3.1 has no id 39.
    if !generated_traces().is_empty() {
        assert!(get("net8.0/wks-concurrent.nettrace") > 1000);
        assert!(
            committed
                .get("net8.0/wks-concurrent.nettrace")
                .copied()
                .unwrap_or(0)
                > 0
        );
        assert_eq!(
            committed.get("netcore3.1/wks-concurrent.nettrace"),
            Some(&0)
        );
        // .NET 9 and 10: every event of the DATAS traces decodes, new payload versions included.
        for t in ["net9.0/datas.nettrace", "net10.0/datas.nettrace"] {
            assert!(get(t) > 1000, "{t}");
            assert!(committed.get(t).copied().unwrap_or(0) > 0, "{t}");
        }
    }
}

/// GCGlobalHeapHistory v4 phase times, checked against the GC's own rules and clock in the
/// generated .NET 8 traces: 5 times for background GCs, 8 for compacting, 7 for sweeping ones
/// (gc.cpp `fire_pevents`), and each phase (microseconds) no longer than the time from the
/// suspension that started the GC to this event. The compact slot is left out: the runtime often sends a raw timestamp there.
#[test]
fn global_heap_history_phase_times() {
    use gcscope_core::clr::enums::GcType;
    use gcscope_core::clr::gc::GcPhase;
    let mut checked = 0;
    for trace in generated_traces()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("net8.0"))
    {
        let bytes = std::fs::read(&trace).expect("trace");
        let mut starts = BTreeMap::new();
        let mut suspended = f64::MAX;
        let mut problems = Vec::new();
        gcscope_core::decode_all(&bytes, &mut |e| match clr::decode(e) {
            // A GC's work starts with the runtime's suspension, before GCStart is fired.
            Some(Ok(ClrEvent::GcSuspendEeBegin(_))) => suspended = e.time_ms,
            // Background GCs overlap foreground ones: track their starts apart.
            Some(Ok(ClrEvent::GcStart(s))) => {
                let background = s.gc_type == Some(GcType::Background);
                starts.insert(background, suspended.min(e.time_ms));
            }
            Some(Ok(ClrEvent::GcGlobalHeapHistory(h))) => {
                let Some(times) = h.phase_times else {
                    problems.push("v4 without times".to_string());
                    return;
                };
                let expected = if h.global_mechanisms.concurrent() {
                    5
                } else if h.global_mechanisms.compaction() {
                    8
                } else {
                    7
                };
                if times.len() != expected {
                    problems.push(format!(
                        "{} times for mechanisms {}",
                        times.len(),
                        h.global_mechanisms
                    ));
                }
                let Some(start) = starts.get(&h.global_mechanisms.concurrent()) else {
                    return;
                };
                let elapsed_us = (e.time_ms - start) * 1000.0 + 50.0;
                for phase in GcPhase::ALL.into_iter().filter(|&p| p != GcPhase::Compact) {
                    if let Some(t) = h.phase_time(phase) {
                        if f64::from(t) > elapsed_us {
                            problems.push(format!("{phase:?} {t} us > {elapsed_us:.0} us"));
                        }
                    }
                }
                checked += 1;
            }
            _ => {}
        })
        .expect("decode");
        assert!(problems.is_empty(), "{}: {problems:?}", trace.display());
    }
    if !generated_traces().is_empty() {
        assert!(checked > 100, "{checked}");
    }
}
