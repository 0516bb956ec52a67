//! Decodes the zipped EventPipe reference traces with GC events and checks every field of the
//! first event of each `GC/*` name against TraceEvent's rendering of that event in the baseline
//! (`<Event ... Attr="value" .../>` lines of /work/shared/traces/perfview/*.baseline.txt), and the
//! same for the generated .NET Core 3.1 / .NET 8 traces in fixtures/traces against
//! fixtures/clr/*.firstevents.txt (TraceEvent 3.1.3's rendering, made by
//! tools/clr-firstevents/firstevents.sh): those cover the newer event versions (GCHeapStats v2,
//! GCGlobalHeapHistory v4, GCAllocationTick v4, GCJoin, GCLOHCompact, GCFitBucketInfo, BGC events...).
//!
//! Every attribute TraceEvent printed must be matched by a decoded field (or by a value derived
//! from decoded fields the way TraceEvent derives it); an attribute we cannot account for fails
//! the test. Also checks that each GC/* name occurs as often as the baseline says.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[path = "common/render.rs"]
mod render;

use gcscope_core::clr::decode;
use gcscope_core::event::Event;
use render::{matches, n, render, t, V};

fn shared_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    if dir.join("traces/perfview").is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: {} not found", dir.display());
        None
    }
}

/// One XML element: name and its complete attributes (a value cut off by the baseline's
/// 1000-character limit is dropped).
#[derive(Debug)]
struct Elem {
    name: String,
    attrs: Vec<(String, String)>,
    /// False if the element was cut off before its end.
    complete: bool,
}

/// Parses the elements of a baseline line's XML: `<Event ...>` then child elements.
fn parse_xml(xml: &str) -> Vec<Elem> {
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(lt) = rest.find('<') {
        rest = &rest[lt + 1..];
        if rest.starts_with('/') {
            continue;
        }
        let name_end = rest
            .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
            .unwrap_or(rest.len());
        let name = rest[..name_end].to_string();
        rest = &rest[name_end..];
        let mut attrs = Vec::new();
        let mut complete = false;
        loop {
            let trimmed = rest.trim_start();
            if trimmed.starts_with('>') || trimmed.starts_with("/>") {
                complete = true;
                rest = trimmed;
                break;
            }
            // key = "value", with optional spaces around '=' (MSec=  "18.2").
            let Some(eq) = trimmed.find('=') else {
                rest = "";
                break;
            };
            let key = trimmed[..eq].trim().to_string();
            let Some(after) = trimmed[eq + 1..].trim_start().strip_prefix('"') else {
                rest = "";
                break;
            };
            let Some(close) = after.find('"') else {
                rest = "";
                break;
            };
            attrs.push((key, after[..close].trim().to_string()));
            rest = &after[close + 1..];
        }
        out.push(Elem {
            name,
            attrs,
            complete,
        });
    }
    out
}

/// Attributes of every baseline event that are not payload fields.
const HEADER: &[&str] = &[
    "MSec",
    "PID",
    "PName",
    "TID",
    "ActivityID",
    "EventName",
    "ProviderName",
    "FormattedMessage",
];

/// Attributes TraceEvent prints that come from its own GC state, not from the payload.
fn not_from_payload(name: &str, attr: &str) -> bool {
    // GCHeapStats' Depth is the generation of the GC TraceEvent is tracking; the public
    // FinalizeObject's TypeName is looked up in TraceEvent's type table (the payload has none).
    (name.ends_with("DotNETRuntime/GC/HeapStats") && attr == "Depth")
        || (name.ends_with("DotNETRuntime/GC/FinalizeObject") && attr == "TypeName")
}

fn check_element(what: &str, printed: &Elem, ours: &[(&'static str, V)], errors: &mut Vec<String>) {
    for (k, v) in &printed.attrs {
        if HEADER.contains(&k.as_str()) || not_from_payload(what, k) {
            continue;
        }
        match ours.iter().find(|(name, _)| name == k) {
            Some((_, exp)) if matches(exp, v) => {}
            Some((_, exp)) => errors.push(format!("{what}: {k}: baseline {v:?}, decoded {exp:?}")),
            None => errors.push(format!("{what}: baseline attribute {k}={v:?} not decoded")),
        }
    }
}

struct Baseline {
    count: u64,
    elems: Vec<Elem>,
}

fn read_baseline(path: &std::path::Path) -> BTreeMap<String, Baseline> {
    let text = std::fs::read_to_string(path).expect("baseline");
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim_start_matches('\u{feff}');
        let mut parts = line.splitn(3, ", ");
        let (Some(name), Some(count), Some(xml)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Ok(count) = count.trim().parse() else {
            continue;
        };
        out.insert(
            name.to_string(),
            Baseline {
                count,
                elems: parse_xml(xml),
            },
        );
    }
    out
}

fn is_gc_name(full: &str) -> bool {
    let runtime = full.starts_with("Microsoft-Windows-DotNETRuntime/")
        || full.starts_with("Microsoft-Windows-DotNETRuntimePrivate/");
    let name = full.split_once('/').map_or("", |(_, n)| n);
    runtime && (name == "GC" || name.starts_with("GC/"))
}

/// Decodes the trace (zipped or not) and checks it against a baseline in TraceEvent's format.
/// Returns the number of GC names checked.
fn check_trace(trace_file: &Path, baseline_file: &Path) -> usize {
    let trace = trace_file.display().to_string();
    let bytes = std::fs::read(trace_file).expect("trace");
    let baseline = read_baseline(baseline_file);

    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    // The first event of each GC name: (id, version, pointer size, payload, time in ms).
    let mut first: BTreeMap<String, (u32, u32, u8, Vec<u8>, f64)> = BTreeMap::new();
    let mut decode_errors = Vec::new();
    gcscope_core::decode_all(&bytes, &mut |e| {
        let full = format!("{}/{}", e.provider, e.name);
        if !is_gc_name(&full) {
            return;
        }
        *counts.entry(full.clone()).or_default() += 1;
        if let Some(Err(err)) = decode(e) {
            decode_errors.push(format!("{full} v{}: {err}", e.version));
        }
        first.entry(full).or_insert_with(|| {
            (
                e.event_id,
                e.version,
                e.pointer_size,
                e.payload.to_vec(),
                e.time_ms,
            )
        });
    })
    .expect("decode");
    assert!(decode_errors.is_empty(), "{trace}: {decode_errors:#?}");

    let mut errors = Vec::new();
    let mut checked = 0;
    for (full, b) in baseline.iter().filter(|(k, _)| is_gc_name(k)) {
        let got = counts.get(full).copied().unwrap_or(0);
        if got != b.count {
            errors.push(format!(
                "{full}: {got} events decoded, baseline says {}",
                b.count
            ));
        }
        let Some((event_id, version, pointer_size, payload, time_ms)) = first.get(full) else {
            errors.push(format!("{full}: no event decoded"));
            continue;
        };
        let Some(event_elem) = b.elems.first() else {
            errors.push(format!("{full}: baseline has no XML"));
            continue;
        };
        // Same event: TraceEvent's MSec (4 decimals) is our time since the trace's sync time.
        if let Some((_, msec)) = event_elem.attrs.iter().find(|(k, _)| k == "MSec") {
            match msec.parse::<f64>() {
                Ok(ms) if (ms - time_ms).abs() <= 0.00051 => {}
                _ => errors.push(format!(
                    "{full}: first event at {time_ms:.4} ms, baseline {msec}"
                )),
            }
        }
        let (provider, _) = full.split_once('/').unwrap();
        let ev = Event {
            provider,
            event_id: *event_id,
            version: *version,
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
            pointer_size: *pointer_size,
            payload,
            ticks: None,
        };
        let decoded = match decode(&ev) {
            Some(Ok(d)) => d,
            other => {
                errors.push(format!("{full}: not decoded: {other:?}"));
                continue;
            }
        };
        let (top, kids) = render(&decoded);
        check_element(full, event_elem, &top, &mut errors);
        // Child elements (GenData, bulk values, buckets) in order; only complete ones.
        let printed_kids: Vec<&Elem> = b.elems[1..].iter().filter(|e| e.complete).collect();
        if printed_kids.len() > kids.len() {
            errors.push(format!(
                "{full}: baseline shows {} child elements, decoded {}",
                printed_kids.len(),
                kids.len()
            ));
        }
        for (i, (pk, (kname, kattrs))) in printed_kids.iter().zip(&kids).enumerate() {
            if pk.name != *kname {
                errors.push(format!("{full}: child {i} is {}, decoded {kname}", pk.name));
            }
            check_element(&format!("{full} child {i}"), pk, kattrs, &mut errors);
        }
        checked += 1;
    }
    assert!(errors.is_empty(), "{trace}:\n{}", errors.join("\n"));
    checked
}

fn check_perfview(shared: &Path, trace: &str) -> usize {
    let dir = shared.join("traces/perfview");
    check_trace(
        &dir.join(format!("{trace}.zip")),
        &dir.join(format!("{trace}.baseline.txt")),
    )
}

#[test]
fn first_gc_fields_dotnetcore30_x64() {
    let Some(shared) = shared_dir() else { return };
    let n = check_perfview(&shared, "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace");
    // GC, AllocationTick, BulkMovedObjectRanges, FinalizersStart/Stop, GenerationRange,
    // GlobalHeapHistory, HeapStats, MarkWithType, PerHeapHistory, PinObjectAtGCTime,
    // RestartEEStart/Stop, Start, Stop, SuspendEEStart/Stop, Triggered, private PinPlugAtGCTime.
    assert_eq!(n, 19);
}

#[test]
fn first_gc_fields_dotnetcore21_x86() {
    let Some(shared) = shared_dir() else { return };
    let n = check_perfview(&shared, "eventpipe-dotnetcore2.1-win-x86-objver3.netperf");
    assert_eq!(n, 17);
}

#[test]
fn xml_attribute_parsing() {
    let e = parse_xml(
        r#"<Event MSec=  "5.1" A="0x0000001A" B="1,234" C="Compaction, Promotion"/> <GenData Name="Gen0" X="-1"/>\r\n <GenData Name="Gen1" Y="12"#,
    );
    assert_eq!(e.len(), 3);
    assert_eq!(e[0].attrs[0], ("MSec".to_string(), "5.1".to_string()));
    assert!(e[0].complete && e[1].complete && !e[2].complete);
    assert_eq!(e[2].attrs.len(), 1);
    assert!(matches(&n(26), &e[0].attrs[1].1));
    assert!(matches(&n(1234), &e[0].attrs[2].1));
    assert!(matches(&t("Compaction, Promotion"), &e[0].attrs[3].1));
    assert!(matches(&n(-1), &e[1].attrs[1].1));
    assert!(!matches(&n(25), &e[0].attrs[1].1));
}

#[test]
fn first_gc_fields_dotnetcore20_linux_netperf_v2() {
    let Some(shared) = shared_dir() else { return };
    let n = check_perfview(&shared, "eventpipe-dotnetcore2.0-linux-objver2.netperf");
    // GC (IncreaseMemoryPressure), AllocationTick, RestartEEStart/Stop, SuspendEEStart/Stop.
    assert_eq!(n, 6);
}

/// The generated .NET Core 3.1 and .NET 8 traces (in the repository) against TraceEvent's
/// rendering of their first events.
#[test]
fn first_gc_fields_generated_traces() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut checked = BTreeMap::new();
    for runtime in ["netcore3.1", "net8.0"] {
        let Ok(rd) = std::fs::read_dir(root.join("fixtures/clr").join(runtime)) else {
            eprintln!("skipping {runtime}: no fixtures/clr/{runtime}");
            continue;
        };
        let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        for baseline in files {
            let name = baseline.file_name().unwrap().to_string_lossy().into_owned();
            let Some(workload) = name.strip_suffix(".firstevents.txt") else {
                continue;
            };
            let trace = root
                .join("fixtures/traces")
                .join(runtime)
                .join(format!("{workload}.nettrace"));
            let n = check_trace(&trace, &baseline);
            checked.insert(format!("{runtime}/{workload}"), n);
        }
    }
    if checked.is_empty() {
        return;
    }
    // Every generated trace has GC events and every one was compared.
    assert_eq!(checked.len(), 14, "{checked:?}");
    assert!(checked.values().all(|&n| n >= 10), "{checked:?}");
}
