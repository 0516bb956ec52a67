use super::*;
use alloc::vec::Vec;

fn put_ptr(p: &mut Vec<u8>, v: u64, ptr: u8) {
    if ptr == 8 {
        p.extend_from_slice(&v.to_le_bytes());
    } else {
        p.extend_from_slice(&(v as u32).to_le_bytes());
    }
}

/// GCPerHeapHistory_V3 with the 3.0 baseline's first event values (Count 4; gen0 record
/// SizeBefore 3,154,608, FreeObjBefore 768,160, SizeAfter 24, PinnedSurv 4,936,
/// NonePinnedSurv 170,568, NewAllocation 3,510,080).
fn per_heap(ptr: u8, count: u32) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&3u16.to_le_bytes());
    for v in [11u64, 12, 13, 14, 15, 16] {
        put_ptr(&mut p, v, ptr);
    }
    p.extend_from_slice(&57u32.to_le_bytes()); // RunningFreeListEfficiency
    p.extend_from_slice(&10u32.to_le_bytes()); // CondemnReasons0
    p.extend_from_slice(&8193u32.to_le_bytes()); // CondemnReasons1
    p.extend_from_slice(&0x8000_0002u32.to_le_bytes()); // CompactMechanisms: high_frag
    p.extend_from_slice(&0u32.to_le_bytes()); // ExpandMechanisms
    p.extend_from_slice(&1u32.to_le_bytes()); // HeapIndex
    put_ptr(&mut p, 3_005_960, ptr); // ExtraGen0Commit
    p.extend_from_slice(&count.to_le_bytes());
    for g in 0..count as u64 {
        let rec = [
            3_154_608 + g,
            0,
            768_160,
            24,
            0,
            0,
            0,
            4_936,
            170_568,
            3_510_080,
        ];
        for v in rec {
            put_ptr(&mut p, v, ptr);
        }
    }
    p
}

/// The .NET Framework 4.5.2 layout (private id 4, version 2): generation records whose first
/// field (SizeBefore) is 100 + the generation, then the five u32, HeapIndex, ExtraGen0Commit
/// and a one-byte ClrInstanceID.
fn framework_per_heap(ptr: u8, extra: bool) -> Vec<u8> {
    let mut p = Vec::new();
    for g in 0..5u64 {
        for f in 0..GEN_DATA_FIELDS as u64 {
            put_ptr(&mut p, if f == 0 { 100 + g } else { 0 }, ptr);
        }
    }
    // CondemnReasons0, CondemnReasons1, MemoryPressure, ExpandMechanisms, CompactMechanisms
    // (high bit: a mechanism was recorded), HeapIndex.
    for v in [4u32, 0x30, 31, 0, 0x8000_0001, 3] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    if extra {
        p.extend_from_slice(&0x0011_2233_4455u64.to_le_bytes());
    }
    p.push(11);
    p
}

#[test]
fn framework_layout_fields_follow_each_other() {
    for ptr in [4u8, 8] {
        for extra in [true, false] {
            let p = framework_per_heap(ptr, extra);
            assert_eq!(p.len(), 50 * ptr as usize + if extra { 33 } else { 25 });
            let h = GcPerHeapHistory::parse_framework(&p, 2, ptr).unwrap();
            assert_eq!(h.heap_index, 3, "ptr {ptr}");
            assert_eq!(h.compact_mechanisms, 0x8000_0001);
            assert_eq!(h.expand_mechanisms, 0);
            assert_eq!(h.memory_pressure, Some(31));
            assert_eq!(
                (h.condemn_reasons.reasons0, h.condemn_reasons.reasons1),
                (4, 0x30)
            );
            let want_extra = if extra { 0x0011_2233_4455 } else { 0 };
            assert_eq!(h.extra_gen0_commit, want_extra);
            assert_eq!(h.clr_instance_id, 11);
            let sizes: Vec<u64> = h.generations().map(|g| g.size_before).collect();
            assert_eq!(sizes, [100, 101, 102, 103, 104]);
            // One byte more or less is not this layout.
            assert!(GcPerHeapHistory::parse_framework(&p[1..], 2, ptr).is_err());
        }
    }
    let p = framework_per_heap(8, true);
    assert!(GcPerHeapHistory::parse_framework(&p, 0, 8).is_err());
}

#[test]
fn per_heap_history_x64() {
    let p = per_heap(8, 5);
    assert_eq!(p.len(), 86 + 5 * 80);
    let h = GcPerHeapHistory::parse(&p, 3, 8).unwrap();
    assert_eq!(h.clr_instance_id, 3);
    assert_eq!(
        [
            h.free_list_allocated,
            h.free_list_rejected,
            h.end_of_seg_allocated,
            h.condemned_allocated,
            h.pinned_allocated,
            h.pinned_allocated_advance
        ],
        [11, 12, 13, 14, 15, 16]
    );
    assert_eq!(h.running_free_list_efficiency, 57);
    assert_eq!(h.condemn_reasons.reasons0, 10);
    assert_eq!(h.condemn_reasons.reasons1, 8193);
    assert_eq!(h.compact_reason(), Some(CompactReason::HighFrag));
    assert_eq!(h.expand_mechanism(), None);
    assert_eq!(
        (h.heap_index, h.extra_gen0_commit, h.count),
        (1, 3_005_960, 5)
    );
    let gens: Vec<GenData> = h.generations().collect();
    assert_eq!(gens.len(), 5);
    let g0 = gens[0];
    assert_eq!(g0.size_before, 3_154_608);
    assert_eq!(g0.obj_space_before(), 2_386_448);
    assert_eq!(g0.fragmentation(), 0);
    assert_eq!(g0.obj_size_after(), 24);
    assert_eq!(g0.survived(), 175_504);
    assert_eq!(g0.survival_percent(), 7);
    assert_eq!(g0.new_allocation, 3_510_080);
    assert_eq!(gens[4].size_before, 3_154_612);
    assert_eq!(h.generation(5), None);
    assert_eq!(h.generation(usize::MAX / 80), None);
    assert_eq!(h.generation(usize::MAX), None);
    // Extra trailing bytes (a future version) are ignored.
    let mut q = p.clone();
    q.extend_from_slice(&[1, 2, 3]);
    assert_eq!(GcPerHeapHistory::parse(&q, 4, 8).unwrap().count, 5);
    // Cut inside the last record.
    let e = GcPerHeapHistory::parse(&p[..p.len() - 1], 3, 8).unwrap_err();
    assert_eq!(e.offset, 86);
    // Absurd Count is an error, not an allocation or a panic.
    let mut r = p.clone();
    r[82..86].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(GcPerHeapHistory::parse(&r, 3, 8).is_err());
    assert!(GcPerHeapHistory::parse(&p, 2, 8).is_err());
}

#[test]
fn per_heap_history_x86() {
    let p = per_heap(4, 4);
    assert_eq!(p.len(), 58 + 4 * 40);
    let h = GcPerHeapHistory::parse(&p, 3, 4).unwrap();
    assert_eq!(h.extra_gen0_commit, 3_005_960);
    assert_eq!(h.count, 4);
    assert_eq!(h.generation(3).unwrap().size_before, 3_154_611);
    assert_eq!(h.generation(0).unwrap().pinned_surv, 4_936);
}

fn global(version: u32) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&0x0035_8F40u64.to_le_bytes());
    p.extend_from_slice(&1u32.to_le_bytes()); // NumHeaps
    p.extend_from_slice(&0u32.to_le_bytes()); // CondemnedGeneration
    p.extend_from_slice(&0u32.to_le_bytes()); // Gen0ReductionCount
    p.extend_from_slice(&0u32.to_le_bytes()); // Reason AllocSmall
    p.extend_from_slice(&0x16u32.to_le_bytes()); // Compaction, Promotion, CardBundles
    if version >= 1 {
        p.extend_from_slice(&3u16.to_le_bytes());
    }
    if version >= 2 {
        p.extend_from_slice(&1u32.to_le_bytes()); // Interactive
        p.extend_from_slice(&42u32.to_le_bytes());
    }
    if version >= 3 {
        p.extend_from_slice(&0x5u32.to_le_bytes());
        p.extend_from_slice(&0x10u32.to_le_bytes());
    }
    if version >= 4 {
        p.extend_from_slice(&8u32.to_le_bytes());
        for t in 1..=8u32 {
            p.extend_from_slice(&(t * 100).to_le_bytes());
        }
    }
    p
}

#[test]
fn global_heap_history_versions() {
    assert_eq!(global(2).len(), 38);
    assert_eq!(global(3).len(), 46);
    assert_eq!(global(4).len(), 50 + 32);
    let g4 = global(4);
    let h = GcGlobalHeapHistory::parse(&g4, 4, 8).unwrap();
    assert_eq!(h.final_youngest_desired, 0x0035_8F40);
    assert_eq!(
        (h.num_heaps, h.condemned_generation, h.gen0_reduction_count),
        (1, 0, 0)
    );
    assert_eq!(h.reason, GcReason::AllocSmall);
    assert_eq!(h.global_mechanisms, GlobalMechanisms(0x16));
    assert_eq!(h.clr_instance_id, Some(3));
    assert_eq!(h.pause_mode, Some(GcPauseMode::Interactive));
    assert_eq!(h.memory_pressure, Some(42));
    assert_eq!(
        h.condemn_reasons,
        Some(CondemnReasons {
            reasons0: 5,
            reasons1: 0x10
        })
    );
    assert_eq!(h.phase_time(GcPhase::MarkSizedRef), Some(100));
    assert_eq!(h.phase_time(GcPhase::Plan), Some(600));
    assert_eq!(h.phase_time(GcPhase::Relocate), Some(700));
    assert_eq!(h.phase_time(GcPhase::Compact), Some(800));
    assert_eq!(h.phase_time(GcPhase::Sweep), None);
    let t = h.phase_times.unwrap();
    assert_eq!(t.len(), 8);
    assert_eq!(t.get(0), Some(100));
    assert_eq!(t.get(7), Some(800));
    assert_eq!(t.get(8), None);
    for v in 0..4 {
        let g = global(v);
        let h = GcGlobalHeapHistory::parse(&g, v, 8).unwrap();
        assert_eq!(h.clr_instance_id.is_some(), v >= 1);
        assert_eq!(h.pause_mode.is_some(), v >= 2);
        assert_eq!(h.condemn_reasons.is_some(), v >= 3);
        assert!(h.phase_times.is_none());
    }
    // A sweeping GC sends 7 times, a background GC 5.
    let mut g7 = global(3);
    g7.extend_from_slice(&7u32.to_le_bytes());
    for t in 1..=7u32 {
        g7.extend_from_slice(&t.to_le_bytes());
    }
    let h7 = GcGlobalHeapHistory::parse(&g7, 4, 8).unwrap();
    assert_eq!(h7.phase_time(GcPhase::Sweep), Some(7));
    assert_eq!(h7.phase_time(GcPhase::Relocate), None);
    assert_eq!(h7.phase_time(GcPhase::Compact), None);
    let mut g5 = global(3);
    g5.extend_from_slice(&5u32.to_le_bytes());
    for t in 1..=5u32 {
        g5.extend_from_slice(&t.to_le_bytes());
    }
    let h5 = GcGlobalHeapHistory::parse(&g5, 4, 8).unwrap();
    assert_eq!(h5.phase_time(GcPhase::MarkLongWeak), Some(5));
    assert_eq!(h5.phase_time(GcPhase::Plan), None);
    assert_eq!(
        GcGlobalHeapHistory::parse(&global(3), 3, 8)
            .unwrap()
            .phase_time(GcPhase::MarkRoots),
        None
    );
    // V4 with Count claiming more times than present.
    let p = global(4);
    let e = GcGlobalHeapHistory::parse(&p[..p.len() - 2], 4, 8).unwrap_err();
    assert_eq!(e.offset, 50);
    assert_eq!(
        GcGlobalHeapHistory::parse(&global(2)[..37], 2, 8)
            .unwrap_err()
            .offset,
        34
    );
}
