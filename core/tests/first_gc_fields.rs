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

use gcscope_core::clr::enums::CondemnReasons;
use gcscope_core::clr::gc::GenData;
use gcscope_core::clr::{decode, ClrEvent};
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

/// A value as TraceEvent prints it.
#[derive(Debug, Clone, PartialEq)]
enum V {
    /// Printed as decimal (maybe with thousands separators) or as 0x hex.
    N(i128),
    /// Printed as text (enum names, type names).
    T(String),
}

fn n<T: Into<i128>>(v: T) -> V {
    V::N(v.into())
}
fn t(s: impl Into<String>) -> V {
    V::T(s.into())
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

fn parse_num(s: &str) -> Option<i128> {
    if let Some(h) = s.strip_prefix("0x") {
        return i128::from_str_radix(h, 16).ok();
    }
    let digits: String = s.chars().filter(|&c| c != ',').collect();
    digits.parse().ok()
}

fn matches(expected: &V, printed: &str) -> bool {
    match expected {
        V::N(v) => parse_num(printed) == Some(*v),
        V::T(s) => s == printed,
    }
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

/// TraceEvent's attributes for a decoded event: top-level fields and child elements.
type Rendering = (
    Vec<(&'static str, V)>,
    Vec<(&'static str, Vec<(&'static str, V)>)>,
);

fn gen_data(i: usize, g: &GenData) -> Vec<(&'static str, V)> {
    vec![
        // TraceEvent's Gens enum.
        (
            "Name",
            t(["Gen0", "Gen1", "Gen2", "GenLargeObj", "GenPinObj"]
                .get(i)
                .map_or_else(|| i.to_string(), |s| s.to_string())),
        ),
        ("SizeBefore", n(g.size_before)),
        ("SizeAfter", n(g.size_after)),
        ("ObjSpaceBefore", n(g.obj_space_before())),
        ("Fragmentation", n(g.fragmentation())),
        ("ObjSizeAfter", n(g.obj_size_after())),
        ("FreeListSpaceBefore", n(g.free_list_space_before)),
        ("FreeObjSpaceBefore", n(g.free_obj_space_before)),
        ("FreeListSpaceAfter", n(g.free_list_space_after)),
        ("FreeObjSpaceAfter", n(g.free_obj_space_after)),
        ("In", n(g.in_bytes)),
        ("Out", n(g.survived())),
        ("NewAllocation", n(g.new_allocation)),
        ("SurvRate", n(g.survival_percent())),
        ("PinnedSurv", n(g.pinned_surv)),
        ("NonePinnedSurv", n(g.non_pinned_surv)),
    ]
}

fn condemn(c: CondemnReasons) -> [(&'static str, V); 2] {
    [
        ("CondemnReasons0", n(c.reasons0)),
        ("CondemnReasons1", n(c.reasons1)),
    ]
}

fn opt<T: Into<i128>>(v: Option<T>) -> V {
    n(v.map(Into::into).unwrap_or(0))
}

/// How TraceEvent renders each decoded event (field names and formats from its ToXml).
fn render(e: &ClrEvent<'_>) -> Rendering {
    let mut kids = Vec::new();
    let top: Vec<(&'static str, V)> = match e {
        ClrEvent::GcStart(s) => vec![
            ("Count", n(s.count)),
            ("Reason", t(s.reason.name())),
            ("Depth", opt(s.depth)),
            ("Type", t(s.gc_type.map_or("NonConcurrentGC", |t| t.name()))),
            ("ClientSequenceNumber", opt(s.client_sequence_number)),
            ("ClrInstanceID", opt(s.clr_instance_id)),
        ],
        ClrEvent::GcEnd(s) => vec![
            ("Count", n(s.count)),
            ("Depth", n(s.depth)),
            ("ClrInstanceID", opt(s.clr_instance_id)),
        ],
        ClrEvent::GcRestartEeEnd(s)
        | ClrEvent::GcRestartEeBegin(s)
        | ClrEvent::GcSuspendEeEnd(s)
        | ClrEvent::GcFinalizersBegin(s)
        | ClrEvent::GcCreateConcurrentThread(s)
        | ClrEvent::GcTerminateConcurrentThread(s) => {
            vec![("ClrInstanceID", opt(s.clr_instance_id))]
        }
        ClrEvent::GcSuspendEeBegin(s) => vec![
            ("Reason", t(s.reason.name())),
            // TraceEvent reads Count as a signed int.
            ("Count", n(s.count.map_or(0, |c| c as i32))),
            ("ClrInstanceID", opt(s.clr_instance_id)),
        ],
        ClrEvent::GcTriggered(s) => vec![
            ("Reason", t(s.reason.name())),
            ("ClrInstanceID", n(s.clr_instance_id)),
        ],
        ClrEvent::GcFinalizersEnd(s) => vec![
            ("Count", n(s.count)),
            ("ClrInstanceID", opt(s.clr_instance_id)),
        ],
        ClrEvent::IncreaseMemoryPressure(m) => vec![
            ("BytesAllocated", n(m.bytes)),
            ("ClrInstanceID", n(m.clr_instance_id)),
        ],
        ClrEvent::DecreaseMemoryPressure(m) => vec![
            ("BytesFreed", n(m.bytes)),
            ("ClrInstanceID", n(m.clr_instance_id)),
        ],
        ClrEvent::GcAllocationTick(a) => {
            let mut v = vec![
                ("AllocationAmount", n(a.allocation_amount)),
                ("AllocationKind", t(a.kind.name())),
                ("ClrInstanceID", opt(a.clr_instance_id)),
                ("AllocationAmount64", opt(a.allocation_amount64)),
                ("TypeID", opt(a.type_id)),
                (
                    "TypeName",
                    t(a.type_name.map(|s| s.to_string_lossy()).unwrap_or_default()),
                ),
                ("HeapIndex", opt(a.heap_index)),
                ("Address", opt(a.address)),
            ];
            if let Some(size) = a.object_size {
                v.push(("ObjectSize", n(size)));
            }
            v
        }
        ClrEvent::GcBulk(b) => {
            for r in b.moved_ranges() {
                kids.push((
                    "GCBulkMovedObjectRangesValues",
                    vec![
                        ("OldRangeBase", n(r.old_range_base)),
                        ("NewRangeBase", n(r.new_range_base)),
                        ("RangeLength", n(r.range_length)),
                    ],
                ));
            }
            // TraceEvent names the surviving-range children GCBulkMovedObjectRangesValues too.
            for r in b.surviving_ranges() {
                kids.push((
                    "GCBulkMovedObjectRangesValues",
                    vec![
                        ("RangeBase", n(r.range_base)),
                        ("RangeLength", n(r.range_length)),
                    ],
                ));
            }
            vec![
                ("Index", opt(b.index)),
                ("Count", n(b.count)),
                ("ClrInstanceID", n(b.clr_instance_id)),
            ]
        }
        ClrEvent::GcGenerationRange(g) => vec![
            ("Generation", n(g.generation)),
            ("RangeStart", n(g.range_start)),
            ("RangeUsedLength", n(g.range_used_length)),
            ("RangeReservedLength", n(g.range_reserved_length)),
            ("ClrInstanceID", n(g.clr_instance_id)),
        ],
        ClrEvent::GcHeapStats(h) => {
            let mut v = vec![
                ("TotalPromoted", n(h.total_promoted())),
                ("TotalHeapSize", n(h.total_heap_size())),
            ];
            let names = [
                ("GenerationSize0", "TotalPromotedSize0"),
                ("GenerationSize1", "TotalPromotedSize1"),
                ("GenerationSize2", "TotalPromotedSize2"),
                ("GenerationSize3", "TotalPromotedSize3"),
            ];
            for (g, (sn, pn)) in names.into_iter().enumerate() {
                v.push((sn, n(h.generation_size[g])));
                v.push((pn, n(h.total_promoted_size[g])));
            }
            v.extend([
                ("GenerationSize4", opt(h.poh_size)),
                ("TotalPromotedSize4", opt(h.poh_promoted_size)),
                ("FinalizationPromotedSize", n(h.finalization_promoted_size)),
                (
                    "FinalizationPromotedCount",
                    n(h.finalization_promoted_count),
                ),
                ("PinnedObjectCount", n(h.pinned_object_count)),
                ("SinkBlockCount", n(h.sink_block_count)),
                ("GCHandleCount", n(h.gc_handle_count)),
                ("ClrInstanceID", opt(h.clr_instance_id)),
            ]);
            v
        }
        ClrEvent::GcMarkWithType(m) => vec![
            ("HeapNum", n(m.heap_num)),
            ("ClrInstanceID", n(m.clr_instance_id)),
            ("Type", n(m.root_kind.raw())),
            ("Promoted", n(m.bytes)),
        ],
        ClrEvent::GcGlobalHeapHistory(h) => {
            let mut v = vec![
                ("FinalYoungestDesired", n(h.final_youngest_desired)),
                ("NumHeaps", n(h.num_heaps)),
                ("CondemnedGeneration", n(h.condemned_generation)),
                ("Gen0ReductionCount", n(h.gen0_reduction_count)),
                ("Reason", t(h.reason.name())),
                ("GlobalMechanisms", t(h.global_mechanisms.to_string())),
                ("ClrInstanceID", opt(h.clr_instance_id)),
            ];
            if let Some(p) = h.pause_mode {
                v.push(("PauseMode", t(p.name())));
            }
            if let Some(m) = h.memory_pressure {
                v.push(("MemoryPressure", n(m)));
            }
            if let Some(c) = h.condemn_reasons {
                v.extend(condemn(c));
            }
            if let Some(times) = h.phase_times {
                v.push(("Count", n(times.len() as u64)));
                let list: Vec<String> = times.iter().map(|x| x.to_string()).collect();
                v.push(("Times", t(list.join(","))));
            }
            v
        }
        ClrEvent::GcPerHeapHistory(h) => {
            for (i, g) in h.generations().enumerate() {
                kids.push(("GenData", gen_data(i, &g)));
            }
            let mut v = vec![
                ("ClrInstanceID", n(h.clr_instance_id)),
                ("FreeListAllocated", n(h.free_list_allocated)),
                ("FreeListRejected", n(h.free_list_rejected)),
                ("EndOfSegAllocated", n(h.end_of_seg_allocated)),
                ("CondemnedAllocated", n(h.condemned_allocated)),
                ("PinnedAllocated", n(h.pinned_allocated)),
                ("PinnedAllocatedAdvance", n(h.pinned_allocated_advance)),
                (
                    "RunningFreeListEfficiency",
                    n(h.running_free_list_efficiency),
                ),
            ];
            v.extend(condemn(h.condemn_reasons));
            v.extend([
                (
                    "CompactMechanisms",
                    t(h.compact_reason().map_or("not_specified", |r| r.name())),
                ),
                (
                    "ExpandMechanisms",
                    t(h.expand_mechanism().map_or("not_specified", |r| r.name())),
                ),
                ("HeapIndex", n(h.heap_index)),
                ("ExtraGen0Commit", n(h.extra_gen0_commit)),
                ("Count", n(h.count)),
            ]);
            v
        }
        ClrEvent::PinObjectAtGcTime(p) => vec![
            ("HandleID", n(p.handle_id)),
            ("ObjectID", n(p.object_id)),
            ("ObjectSize", n(p.object_size)),
            ("TypeName", t(p.type_name.to_string_lossy())),
            ("ClrInstanceID", n(p.clr_instance_id)),
        ],
        ClrEvent::PinPlugAtGcTime(p) => vec![
            ("PlugStart", n(p.plug_start)),
            ("PlugEnd", n(p.plug_end)),
            ("GapBeforeSize", n(p.gap_before_size)),
            ("ClrInstanceID", n(p.clr_instance_id)),
        ],
        ClrEvent::SetGcHandle(h) => vec![
            ("HandleID", n(h.handle_id)),
            ("ObjectID", n(h.object_id)),
            ("Kind", t(h.kind.name())),
            ("Generation", n(h.generation)),
            ("AppDomainID", n(h.app_domain_id)),
            ("ClrInstanceID", n(h.clr_instance_id)),
        ],
        ClrEvent::DestroyGcHandle(h) => vec![
            ("HandleID", n(h.handle_id)),
            ("ClrInstanceID", n(h.clr_instance_id)),
        ],
        ClrEvent::GcCreateSegment(c) => vec![
            ("Address", n(c.address)),
            ("Size", n(c.size)),
            ("Type", t(c.segment_type.name())),
            ("ClrInstanceID", opt(c.clr_instance_id)),
        ],
        ClrEvent::FinalizeObject(f) => {
            let mut v = vec![
                ("TypeID", n(f.type_id)),
                ("ObjectID", n(f.object_id)),
                ("ClrInstanceID", n(f.clr_instance_id)),
            ];
            if let Some(name) = f.type_name {
                v.push(("TypeName", t(name.to_string_lossy())));
            }
            v
        }
        ClrEvent::GcJoin(j) => vec![
            ("Heap", n(j.heap)),
            ("JoinTime", t(j.join_time.name())),
            ("JoinType", t(j.join_type.name())),
            ("ClrInstanceID", opt(j.clr_instance_id)),
            ("ID", opt(j.join_id)),
        ],
        ClrEvent::GcLohCompact(c) => {
            for h in c.heaps() {
                kids.push((
                    "GCLOHCompactInfo",
                    vec![
                        ("TimePlan", n(h.time_plan)),
                        ("TimeCompact", n(h.time_compact)),
                        ("TimeRelocate", n(h.time_relocate)),
                        ("TotalRefs", n(h.total_refs)),
                        ("ZeroRefs", n(h.zero_refs)),
                    ],
                ));
            }
            vec![
                ("ClrInstanceID", n(c.clr_instance_id)),
                ("Count", n(c.count)),
            ]
        }
        ClrEvent::GcFitBucketInfo(f) => {
            for b in f.buckets() {
                kids.push((
                    "GCFitBucket",
                    vec![
                        ("Index", n(b.index)),
                        ("Count", n(b.count)),
                        ("Size", n(b.size)),
                    ],
                ));
            }
            vec![
                ("ClrInstanceID", n(f.clr_instance_id)),
                ("BucketKind", t(f.bucket_kind.name())),
                ("TotalSize", n(f.total_size)),
                ("Count", n(f.count)),
            ]
        }
        ClrEvent::GcSettingsRundown(g) => {
            // TraceEvent's GCSettingsFlags names.
            let flags = [
                (0x1, "GCSettingsConcurrent"),
                (0x2, "GCSettingsLargePages"),
                (0x4, "GCSettingsFrozenSegs"),
                (0x8, "GCSettingsHardLimitConfig"),
                (0x10, "GCSettingsNoAffinitize"),
            ];
            let names: Vec<&str> = flags
                .iter()
                .filter(|(b, _)| g.bit_settings & b != 0)
                .map(|(_, n)| *n)
                .collect();
            vec![
                ("HardLimit", n(g.hard_limit)),
                ("LOHThreshold", n(g.loh_threshold)),
                ("PhysicalMemoryConfig", n(g.physical_memory_config)),
                ("Gen0MinBudgetConfig", n(g.gen0_min_budget_config)),
                ("Gen0MaxBudgetConfig", n(g.gen0_max_budget_config)),
                ("HighMemPercentConfig", n(g.high_mem_percent_config)),
                ("BitSettings", t(names.join(", "))),
                ("ClrInstanceID", n(g.clr_instance_id)),
            ]
        }
        ClrEvent::BgcPhase { data, .. } => vec![("ClrInstanceID", opt(data.clr_instance_id))],
        ClrEvent::BgcDrainMark(b) => vec![
            ("Objects", n(b.objects)),
            ("ClrInstanceID", n(b.clr_instance_id)),
        ],
        ClrEvent::BgcRevisit(b) => vec![
            ("Pages", n(b.pages)),
            ("Objects", n(b.objects)),
            ("IsLarge", n(b.is_large)),
            ("ClrInstanceID", n(b.clr_instance_id)),
        ],
        ClrEvent::BgcOverflow(b) => {
            let mut v = vec![
                ("Min", n(b.min)),
                ("Max", n(b.max)),
                ("Objects", n(b.objects)),
                ("IsLarge", n(b.is_large)),
                ("ClrInstanceID", n(b.clr_instance_id)),
            ];
            if let Some(g) = b.gen_number {
                v.push(("GenNumber", n(g)));
            }
            v
        }
        other => panic!("no TraceEvent rendering written for {other:?}"),
    };
    (top, kids)
}

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
            thread_id: 0,
            capture_thread_id: 0,
            sequence: 0,
            processor: 0,
            stack_id: 0,
            pointer_size: *pointer_size,
            payload,
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
