//! The GC model on TraceEvent's own test trace (.NET Core 3.0, Windows x64, 478 GCs), read from
//! the published zip through the crate's container support. The first GC is checked against the
//! first GC/Start, GC/Stop, GC/HeapStats, GC/GlobalHeapHistory, GC/PerHeapHistory,
//! GC/PinObjectAtGCTime and GC/PinPlugAtGCTime events of TraceEvent's baseline
//! (`eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.baseline.txt`, values copied below with the
//! baseline's own spelling), and derived figures are worked out by hand from those numbers.
//! Skips (passes) with a message when `../shared` is absent.

use std::path::PathBuf;

use gcscope_core::gc::{analyze, GcModel, GcType};

fn shared() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    p.is_dir().then_some(p)
}

fn model() -> Option<GcModel> {
    let Some(dir) = shared() else {
        eprintln!("skipping: ../shared (the reference traces) is not present");
        return None;
    };
    let zip = dir.join("traces/perfview/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip");
    Some(analyze(&std::fs::read(&zip).unwrap()).unwrap())
}

#[test]
fn the_first_gc_agrees_with_traceevents_first_gc_events() {
    let Some(m) = model() else { return };
    // Baseline: "Microsoft-Windows-DotNETRuntime/GC/Start, 478, ..." and GC/Stop 478.
    assert_eq!(m.gcs.len(), 478);
    assert!(m.gcs.iter().all(|g| g.complete));
    let g = &m.gcs[0];

    // GC/Start MSec="5455.9407" Count="1" Reason="AllocSmall" Depth="0" Type="NonConcurrentGC".
    assert_eq!(
        (g.number, g.gen, g.gc_type, &*g.reason, g.induced),
        (1, 0, GcType::NonConcurrent, "AllocSmall", false)
    );
    assert!(
        (g.gc_start_ms - 5455.9407).abs() < 0.001,
        "{}",
        g.gc_start_ms
    );
    // GC/Stop MSec="5475.9763" Count="1" Depth="0": duration 5475.9763 - 5455.9407 = 20.0356 ms.
    assert!(
        (g.duration_ms.unwrap() - 20.0356).abs() < 0.002,
        "{:?}",
        g.duration_ms
    );

    // GC/HeapStats: TotalPromoted="0x0002AD90" TotalHeapSize="0x0003BEA8" GenerationSize0="0x00000018"
    // TotalPromotedSize0="0x0002AD90" GenerationSize1="0x000331C8" GenerationSize2="0x00000018"
    // GenerationSize3="0x00008CB0" GenerationSize4="0x00000000" FinalizationPromotedSize="0x00000000"
    // FinalizationPromotedCount="0" PinnedObjectCount="2" SinkBlockCount="14" GCHandleCount="55".
    assert_eq!(g.promoted_bytes, Some(0x2AD90)); // 175,504
    assert_eq!(g.after_bytes, Some(0x3BEA8)); // 245,416 = 24 + 209,352 + 24 + 36,016
    let gens = &g.generations;
    assert_eq!(
        [
            gens.gen0.size_after_bytes,
            gens.gen1.size_after_bytes,
            gens.gen2.size_after_bytes,
            gens.loh.size_after_bytes
        ],
        [Some(0x18), Some(0x331C8), Some(0x18), Some(0x8CB0)]
    );
    assert_eq!(gens.gen0.promoted_bytes, Some(0x2AD90));
    // HeapStats v1 (3.0) has no POH: the model says so instead of 0.
    assert_eq!(gens.poh.size_after_bytes, None);
    assert_eq!(
        (g.finalization_promoted_bytes, g.finalization_promoted_count),
        (Some(0), Some(0))
    );
    assert_eq!(
        (g.pinned_object_count, g.sync_block_count, g.gc_handle_count),
        (Some(2), Some(14), Some(55))
    );

    // GC/GlobalHeapHistory: FinalYoungestDesired="0x00358F40" NumHeaps="1" CondemnedGeneration="0"
    // Gen0ReductionCount="0" Reason="AllocSmall" GlobalMechanisms="Compaction, Promotion, CardBundles".
    assert_eq!(g.gen0_budget_bytes, Some(0x358F40)); // 3,510,080
    assert_eq!(
        (g.heap_count, g.condemned_gen, g.gen0_reduction_count),
        (Some(1), Some(0), Some(0))
    );
    assert_eq!(
        g.global_mechanisms.as_deref().unwrap(),
        ["Compaction", "Promotion", "CardBundles"]
    );
    assert_eq!(m.process.gc_mode.as_deref(), Some("workstation"));

    // GC/PerHeapHistory: CondemnReasons0="0" CondemnReasons1="0" CompactMechanisms="compact_high_frag"
    // ExpandMechanisms="not_specified" HeapIndex="0" ExtraGen0Commit="3,005,960" Count="4".
    assert_eq!(g.heaps.len(), 1);
    let h = &g.heaps[0];
    assert_eq!((h.heap, h.condemn.raw0, h.condemn.raw1), (0, 0, 0));
    assert_eq!(h.compact_mechanism.as_deref(), Some("compact_high_frag"));
    assert_eq!(h.expand_mechanism, None);
    assert_eq!(h.extra_gen0_commit_bytes, 3_005_960);
    assert_eq!(h.generations.len(), 4);
    // Gen0: SizeBefore="3,154,608" SizeAfter="24" ObjSpaceBefore="2,386,448" Fragmentation="0"
    // FreeListSpaceBefore="0" FreeObjSpaceBefore="768,160" FreeListSpaceAfter="0" FreeObjSpaceAfter="0"
    // In="0" Out="175,504" NewAllocation="3,510,080" SurvRate="7" PinnedSurv="4,936" NonePinnedSurv="170,568".
    let g0 = &h.generations[0];
    assert_eq!(
        [
            g0.size_before_bytes,
            g0.size_after_bytes,
            g0.free_list_before_bytes,
            g0.free_obj_before_bytes
        ],
        [3_154_608, 24, 0, 768_160]
    );
    assert_eq!(
        [
            g0.free_list_after_bytes,
            g0.free_obj_after_bytes,
            g0.in_bytes
        ],
        [0, 0, 0]
    );
    assert_eq!(
        [
            g0.pinned_survived_bytes,
            g0.non_pinned_survived_bytes,
            g0.new_allocation_bytes
        ],
        [4_936, 170_568, 3_510_080]
    );
    assert_eq!(g0.obj_space_before_bytes, 2_386_448);
    assert_eq!(g0.survived_bytes, 175_504); // Out
    assert_eq!(g0.fragmentation_bytes, 0);
    // Gen1: SizeBefore="24" SizeAfter="209,352" ObjSpaceBefore="24" Fragmentation="32,888"
    // ObjSizeAfter="176,464" FreeListSpaceBefore="0" FreeObjSpaceBefore="0" FreeListSpaceAfter="32,864"
    // FreeObjSpaceAfter="24".
    let g1 = &h.generations[1];
    assert_eq!(
        [
            g1.size_before_bytes,
            g1.size_after_bytes,
            g1.obj_space_before_bytes
        ],
        [24, 209_352, 24]
    );
    assert_eq!(
        [
            g1.free_list_after_bytes,
            g1.free_obj_after_bytes,
            g1.fragmentation_bytes
        ],
        [32_864, 24, 32_888]
    );
    assert_eq!(g1.obj_size_after(), 176_464);

    // Hand-derived figures:
    // gen0 survival = Out / ObjSpaceBefore = 175,504 / (3,154,608 - 0 - 768,160) = 175,504 / 2,386,448
    //               = 7.3542 % (TraceEvent's SurvRate="7" is the same figure truncated).
    let s0 = gens.gen0.survival_pct.unwrap();
    assert!((s0 - 7.3542).abs() < 0.0001, "{s0}");
    // Only gen0 was collected: no survival rate for gen1 (PerfView shows none either).
    assert_eq!(gens.gen1.survival_pct, None);
    // gen1 fragmentation = 32,864 + 24 = 32,888 bytes = 32,888 / 209,352 = 15.709 % of gen1 after.
    assert_eq!(gens.gen1.fragmentation_bytes, Some(32_888));
    assert!((gens.gen1.fragmentation_pct.unwrap() - 15.7094).abs() < 0.001);
    // Promoted from gen0 (HeapStats) = Out of gen0 (PerHeapHistory) = 175,504: the two events agree.
    assert_eq!(g.promoted_bytes, Some(g0.survived_bytes));
    // Gen0 budget after the GC: NewAllocation = FinalYoungestDesired = 3,510,080 (one heap).
    assert_eq!(gens.gen0.budget_bytes, Some(3_510_080));
    // Peak/after = before / after = (gen0..LOH sizes before) / 245,416 > 1: the GC shrank the heap.
    let before = g.before_bytes.unwrap();
    assert_eq!(
        before,
        h.generations
            .iter()
            .map(|x| x.size_before_bytes)
            .sum::<u64>()
    );
    assert!((g.peak_after_ratio.unwrap() - before as f64 / 245_416.0).abs() < 1e-9);
    // Pause: SuspendEEBegin .. RestartEEEnd encloses GCStart .. GCEnd, plus the suspension.
    let (pause, suspend, dur) = (
        g.pause_ms.unwrap(),
        g.suspend_ms.unwrap(),
        g.duration_ms.unwrap(),
    );
    assert!(
        g.start_ms < g.gc_start_ms && pause > dur + suspend && pause < dur + 5.0,
        "{pause} {suspend} {dur}"
    );

    // GC/PinObjectAtGCTime (MSec 5460.9271, inside GC 1): HandleID="0x0000006EB657D4D8"
    // ObjectID="0x0000019A0001B408" ObjectSize="4,120" TypeName="System.Byte[]".
    let p = &g.pinned_objects[0];
    assert_eq!(
        (p.handle, p.address, p.size_bytes, p.type_name.as_str()),
        (0x6EB657D4D8, 0x19A0001B408, 4120, "System.Byte[]")
    );
    // Private GC/PinPlugAtGCTime (MSec 5469.1410): PlugStart="0x0000019A00001048"
    // PlugEnd="0x0000019A00001348" GapBeforeSize="0x00000018".
    let plug = &g.pinned_plugs[0];
    assert_eq!(
        (plug.start, plug.end, plug.gap_before_bytes),
        (0x19A00001048, 0x19A00001348, 0x18)
    );
}

#[test]
fn whole_trace_counts_match_the_baselines_event_counts() {
    let Some(m) = model() else { return };
    // Baseline: GC/PinObjectAtGCTime 45, private GC/PinPlugAtGCTime 46 (all inside GCs).
    assert_eq!(m.pinning.pinned_object_events, 45);
    assert_eq!(m.pinning.pinned_plug_events, 46);
    let plugs: usize = m.gcs.iter().map(|g| g.pinned_plugs.len()).sum();
    assert_eq!(plugs, 46);
    // Every GC has one GCPerHeapHistory and one GCGlobalHeapHistory (478 each in the baseline).
    assert!(m
        .gcs
        .iter()
        .all(|g| g.heaps.len() == 1 && g.condemned_gen.is_some()));
    assert_eq!(m.rollup[0].count, 478);
    let per_gen: u32 = m.rollup[1..].iter().map(|r| r.count).sum();
    assert_eq!(per_gen, 478);
    assert!(m.notes.is_empty(), "{:?}", m.notes);
}

/// The .NET Core 2.1 Windows x86 trace (NetPerf V3, 4-byte pointers, 10 induced gen2 GCs):
/// first GC against `eventpipe-dotnetcore2.1-win-x86-objver3.netperf.baseline.txt`.
#[test]
fn the_first_gc_of_the_32_bit_netperf_trace_agrees_with_its_baseline() {
    let Some(dir) = shared() else {
        eprintln!("skipping: ../shared (the reference traces) is not present");
        return;
    };
    let zip = dir.join("traces/perfview/eventpipe-dotnetcore2.1-win-x86-objver3.netperf.zip");
    let m = analyze(&std::fs::read(&zip).unwrap()).unwrap();
    assert_eq!(m.process.pointer_size, 4);
    assert_eq!(m.gcs.len(), 10); // GC/Start, 10
    let g = &m.gcs[0];
    // GC/Start MSec="8.2868" Count="1" Reason="Induced" Depth="2" Type="NonConcurrentGC";
    // GC/Stop MSec="10.9228": duration 10.9228 - 8.2868 = 2.6360 ms.
    assert_eq!(
        (g.number, g.gen, g.gc_type, &*g.reason, g.induced),
        (1, 2, GcType::NonConcurrent, "Induced", true)
    );
    assert!(
        (g.gc_start_ms - 8.2868).abs() < 0.001 && (g.duration_ms.unwrap() - 2.6360).abs() < 0.002
    );
    // GC/HeapStats: TotalPromoted="0x0001B1AC" TotalHeapSize="0x0001B27C" TotalPromotedSize0="0x00016F9C"
    // TotalPromotedSize3="0x00004210" GenerationSize3="0x00004250" PinnedObjectCount="5" GCHandleCount="25".
    assert_eq!(
        (g.promoted_bytes, g.after_bytes),
        (Some(0x1B1AC), Some(0x1B27C))
    );
    assert_eq!(
        (
            g.generations.gen0.promoted_bytes,
            g.generations.loh.promoted_bytes
        ),
        (Some(0x16F9C), Some(0x4210))
    );
    assert_eq!(g.generations.loh.size_after_bytes, Some(0x4250));
    assert_eq!(
        (g.pinned_object_count, g.gc_handle_count),
        (Some(5), Some(25))
    );
    // GC/GlobalHeapHistory: FinalYoungestDesired="0x00200000" CondemnedGeneration="2"
    // GlobalMechanisms="Compaction, Promotion".
    assert_eq!(
        (g.gen0_budget_bytes, g.condemned_gen),
        (Some(0x200000), Some(2))
    );
    assert_eq!(
        g.global_mechanisms.as_deref().unwrap(),
        ["Compaction", "Promotion"]
    );
    // GC/PerHeapHistory: CondemnReasons0="10" = 0b10_10: initial gen 2, final gen 2;
    // CondemnReasons1="8,193" = 0x2001 = bit 0 (induced_fullgc) + bit 13 (gen2_too_small).
    let h = &g.heaps[0];
    assert_eq!((h.condemn.initial_gen, h.condemn.final_gen), (2, 2));
    assert_eq!(h.condemn.conditions, ["induced_fullgc", "gen2_too_small"]);
    assert_eq!(
        g.condemn.as_ref().unwrap().conditions,
        ["induced_fullgc", "gen2_too_small"]
    );
    // Gen0: SizeBefore="439,568" Out="94,108" (PinnedSurv 28 + NonePinnedSurv 94,080)
    // NewAllocation="2,097,152": survival = 94,108 / 439,568 = 21.409 % (TraceEvent: SurvRate="21").
    let g0 = &h.generations[0];
    assert_eq!(
        (
            g0.size_before_bytes,
            g0.survived_bytes,
            g0.new_allocation_bytes
        ),
        (439_568, 94_108, 2_097_152)
    );
    assert!((g.generations.gen0.survival_pct.unwrap() - 21.4092).abs() < 0.0001);
    // GC/PinObjectAtGCTime (MSec 8.7589, in GC 1): HandleID="0x005E12EC" ObjectID="0x07F23260"
    // ObjectSize="8,172" TypeName="System.Object[]".
    let p = &g.pinned_objects[0];
    assert_eq!(
        (p.handle, p.address, p.size_bytes, p.type_name.as_str()),
        (0x5E12EC, 0x7F23260, 8172, "System.Object[]")
    );
    // All ten are induced blocking gen2 GCs.
    assert_eq!((m.rollup[3].count, m.rollup[3].induced_count), (10, 10));
}
