use super::*;
use alloc::vec::Vec;

pub(super) fn dynamic(name: &str, data: &[u8]) -> Vec<u8> {
    let mut p: Vec<u8> = name.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    p.extend_from_slice(&[0, 0]);
    p.extend_from_slice(&(data.len() as u32).to_le_bytes());
    p.extend_from_slice(data);
    p.extend_from_slice(&8u16.to_le_bytes());
    p
}

#[test]
fn committed_usage() {
    let mut d = Vec::new();
    d.extend_from_slice(&1u16.to_le_bytes());
    for v in [1000u64, 20, 300, 4, 50] {
        d.extend_from_slice(&v.to_le_bytes());
    }
    assert_eq!(d.len(), 42);
    let p = dynamic("CommittedUsage", &d);
    let e = GcDynamicEvent::parse(&p, 0, 8).unwrap();
    assert!(e.name.eq_str("CommittedUsage"));
    assert_eq!(e.data.len(), 42);
    assert_eq!(e.clr_instance_id, 8);
    let DynamicPayload::CommittedUsage(c) = e.payload().unwrap() else {
        panic!("not CommittedUsage");
    };
    assert_eq!(c.version, 1);
    assert_eq!(c.total_committed_in_use, 1000);
    assert_eq!(c.total_committed_in_global_decommit, 20);
    assert_eq!(c.total_committed_in_free, 300);
    assert_eq!(c.total_committed_in_global_free, 4);
    assert_eq!(c.total_bookkeeping_committed, 50);
    assert_eq!(c.total(), 1374);
    // A blob too short for the layout is an error in the blob, not a panic.
    let short = dynamic("CommittedUsage", &d[..41]);
    let e = GcDynamicEvent::parse(&short, 0, 8).unwrap();
    assert_eq!(e.payload().unwrap_err().offset, 34);
}

/// A SizeAdaptationTuning blob taken from a real .NET 9.0.5 trace (the decision that took a
/// DATAS server GC from 1 to 2 heaps at GC 4), decoded field by field.
#[test]
fn size_adaptation_tuning_from_a_real_trace() {
    let hex = "0100020003000000040000000000000070810b00000000004f5017424f5017424f500f42\
               0100000000000400000001000001000000000002";
    let d: Vec<u8> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    assert_eq!(d.len(), 56);
    let t = SizeAdaptationTuning::parse(&d).unwrap();
    assert_eq!((t.version, t.new_heap_count), (1, 2));
    assert_eq!((t.max_heap_count_datas, t.min_heap_count_datas), (3, 0));
    assert_eq!(t.gc_index, 4);
    assert_eq!(t.total_soh_stable_size, 0x0b8170);
    assert_eq!(t.median_throughput_cost_pct, f32::from_bits(0x4217_504f));
    assert_eq!(
        t.current_around_target_accumulation,
        f32::from_bits(0x420f_504f)
    );
    assert_eq!((t.recorded_tcp_count, t.gcs_since_last_change), (1, 4));
    assert_eq!((t.aggressiveness_factor, t.adjustment_reason), (1, 1));
    assert_eq!(t.adjustment_metric, 2);
    // Nothing stopped the change; the heap count was adjusted (the runtime's names).
    assert_eq!(t.decision(), ChangeDecision::Considered);
    assert_eq!(t.decision().name(), "init_change_condition");
    assert_eq!(t.metric(), AdjustMetric::HeapCount);
    assert_eq!(t.metric().name(), "adjust_hc");
    // One byte short: the last field is missing, reported at its offset in the blob.
    assert_eq!(
        SizeAdaptationTuning::parse(&d[..55]).unwrap_err().offset,
        55
    );
}

#[test]
fn kinds_names_and_extra_bytes() {
    // A version-2 sample with 3 more bytes: the known prefix decodes, the rest is kept.
    let mut d = Vec::new();
    d.extend_from_slice(&2u16.to_le_bytes());
    d.extend_from_slice(&7u64.to_le_bytes());
    for v in [100u32, 10, 1, 2] {
        d.extend_from_slice(&v.to_le_bytes());
    }
    d.extend_from_slice(&5000u64.to_le_bytes());
    d.extend_from_slice(&65536u32.to_le_bytes());
    d.extend_from_slice(&[9, 8, 7]);
    let p = dynamic("SizeAdaptationSample", &d);
    let e = GcDynamicEvent::parse(&p, 0, 8).unwrap();
    assert_eq!(e.kind(), DynamicKind::SizeAdaptationSample);
    assert_eq!(e.blob_version(), Some(2));
    assert_eq!(e.extra(), &[9, 8, 7]);
    let DynamicPayload::SizeAdaptationSample(s) = e.payload().unwrap() else {
        panic!("not a sample");
    };
    assert_eq!(
        (s.gc_index, s.elapsed_between_gcs_us, s.gc_pause_us),
        (7, 100, 10)
    );
    assert_eq!(
        (s.total_soh_stable_size, s.gen0_budget_per_heap),
        (5000, 65536)
    );
    assert_eq!(
        DynamicKind::SizeAdaptationFullGcTuning.event_name(),
        "GC/SizeAdaptationFullGCTuning"
    );
    for (k, _) in DynamicKind::ALL {
        assert!(k.event_name().ends_with(k.name().unwrap()));
    }
}

#[test]
fn other_names_and_bounds() {
    let p = dynamic("SomethingNewer", &[1, 0, 9, 9]);
    let e = GcDynamicEvent::parse(&p, 0, 8).unwrap();
    assert_eq!(e.kind(), DynamicKind::Unknown);
    assert_eq!(e.payload().unwrap(), DynamicPayload::Other);
    assert_eq!(e.data, &[1, 0, 9, 9]);
    assert!(e.extra().is_empty());
    // DataSize larger than the payload.
    let mut bad = p.clone();
    let at = "SomethingNewer".len() * 2 + 2;
    bad[at..at + 4].copy_from_slice(&1000u32.to_le_bytes());
    assert_eq!(
        GcDynamicEvent::parse(&bad, 0, 8).unwrap_err().offset,
        at + 4
    );
    // Missing ClrInstanceID.
    assert!(GcDynamicEvent::parse(&p[..p.len() - 1], 0, 8).is_err());
    // Known names with short blobs are errors at the blob offset of the missing field.
    for (k, _) in DynamicKind::ALL {
        let n = k.layout_len().unwrap();
        let blob = alloc::vec![1u8; n - 1];
        let p = dynamic(k.name().unwrap(), &blob);
        let e = GcDynamicEvent::parse(&p, 0, 8).unwrap();
        assert!(e.payload().unwrap_err().offset < n, "{k:?}");
        let blob = alloc::vec![1u8; n];
        let p = dynamic(k.name().unwrap(), &blob);
        assert!(GcDynamicEvent::parse(&p, 0, 8).unwrap().payload().is_ok());
    }
}
