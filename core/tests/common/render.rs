//! TraceEvent's rendering of decoded GC events (field names and value formats from its ToXml and
//! PayloadString), shared by the tests that compare with its baselines: first_gc_fields.rs (the
//! EventPipe baselines' XML) and etl_baselines.rs (the ETW baselines' `Name=Value;` lines).
#![allow(dead_code)]

use gcscope_core::clr::enums::CondemnReasons;
use gcscope_core::clr::gc::GenData;
use gcscope_core::clr::ClrEvent;

/// A value as TraceEvent prints it.
#[derive(Debug, Clone, PartialEq)]
pub enum V {
    /// Printed as decimal (maybe with thousands separators) or as 0x hex.
    N(i128),
    /// Printed as text (enum names, type names).
    T(String),
}

pub fn n<T: Into<i128>>(v: T) -> V {
    V::N(v.into())
}
pub fn t(s: impl Into<String>) -> V {
    V::T(s.into())
}

pub fn parse_num(s: &str) -> Option<i128> {
    if let Some(h) = s.strip_prefix("0x") {
        return i128::from_str_radix(h, 16).ok();
    }
    let digits: String = s.chars().filter(|&c| c != ',').collect();
    digits.parse().ok()
}

pub fn matches(expected: &V, printed: &str) -> bool {
    match expected {
        V::N(v) => parse_num(printed) == Some(*v),
        V::T(s) => s == printed,
    }
}

/// TraceEvent's attributes for a decoded event: top-level fields and child elements.
pub type Rendering = (
    Vec<(&'static str, V)>,
    Vec<(&'static str, Vec<(&'static str, V)>)>,
);

pub fn gen_data(i: usize, g: &GenData) -> Vec<(&'static str, V)> {
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

pub fn condemn(c: CondemnReasons) -> [(&'static str, V); 2] {
    [
        ("CondemnReasons0", n(c.reasons0)),
        ("CondemnReasons1", n(c.reasons1)),
    ]
}

pub fn opt<T: Into<i128>>(v: Option<T>) -> V {
    n(v.map(Into::into).unwrap_or(0))
}

/// How TraceEvent renders each decoded event (field names and formats from its ToXml).
pub fn render(e: &ClrEvent<'_>) -> Rendering {
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
        ClrEvent::GcMark(m) => vec![
            ("HeapNum", n(m.heap_num)),
            ("ClrInstanceID", opt(m.clr_instance_id)),
        ],
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
            if let Some(m) = h.memory_pressure {
                v.push(("MemoryPressure", n(m)));
            }
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
        ClrEvent::GcSettings(g) => vec![
            ("SegmentSize", n(g.segment_size)),
            ("LargeObjectSegmentSize", n(g.large_object_segment_size)),
            ("ServerGC", t(if g.server_gc { "True" } else { "False" })),
            ("ClrInstanceID", opt(g.clr_instance_id)),
        ],
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
