use super::*;
use alloc::vec::Vec;

#[test]
fn moved_ranges_x86() {
    // The 2.1 x86 baseline's first GC/BulkMovedObjectRanges starts with (Old, New, Length)
    // (0x06F21024, 0x06F21018, 0x1C8), (0x06F211EC, 0x06F211EC, 0x1C); Index 0, ClrInstanceID 2.
    let mut p = Vec::new();
    p.extend_from_slice(&0u32.to_le_bytes());
    p.extend_from_slice(&2u32.to_le_bytes());
    p.extend_from_slice(&2u16.to_le_bytes());
    for (o, n, l) in [
        (0x06F2_1024u32, 0x06F2_1018u32, 0x1C8u64),
        (0x06F2_11EC, 0x06F2_11EC, 0x1C),
    ] {
        p.extend_from_slice(&o.to_le_bytes());
        p.extend_from_slice(&n.to_le_bytes());
        p.extend_from_slice(&l.to_le_bytes());
    }
    assert_eq!(p.len(), 10 + 2 * 16);
    let b = GcBulk::parse(&p, BulkKind::MovedObjectRanges, 4).unwrap();
    assert_eq!((b.index, b.count, b.clr_instance_id), (Some(0), 2, 2));
    let m: Vec<_> = b.moved_ranges().collect();
    assert_eq!(
        m,
        [
            MovedRange {
                old_range_base: 0x06F2_1024,
                new_range_base: 0x06F2_1018,
                range_length: 0x1C8
            },
            MovedRange {
                old_range_base: 0x06F2_11EC,
                new_range_base: 0x06F2_11EC,
                range_length: 0x1C
            }
        ]
    );
    assert_eq!(b.surviving_ranges().count(), 0);
    assert_eq!(
        GcBulk::parse(&p[..p.len() - 1], BulkKind::MovedObjectRanges, 4)
            .unwrap_err()
            .offset,
        10
    );
}

#[test]
fn surviving_ranges_x64_and_edges() {
    let mut p = Vec::new();
    p.extend_from_slice(&7u32.to_le_bytes());
    p.extend_from_slice(&1u32.to_le_bytes());
    p.extend_from_slice(&3u16.to_le_bytes());
    p.extend_from_slice(&0x0000_019A_1000_1020u64.to_le_bytes());
    p.extend_from_slice(&0x1000u64.to_le_bytes());
    p.extend_from_slice(&[0xAA; 5]); // tail beyond Count elements is ignored
    let b = GcBulk::parse(&p, BulkKind::SurvivingObjectRanges, 8).unwrap();
    assert_eq!(b.index, Some(7));
    assert_eq!(
        b.surviving_ranges().collect::<Vec<_>>(),
        [SurvivingRange {
            range_base: 0x0000_019A_1000_1020,
            range_length: 0x1000
        }]
    );
    assert_eq!(b.values.len(), 16);

    // RootEdge x64, packed 21 bytes: address, kind 2 (Handle), flags 1 (pinning), root id.
    let mut e = Vec::new();
    e.extend_from_slice(&0u32.to_le_bytes());
    e.extend_from_slice(&1u32.to_le_bytes());
    e.extend_from_slice(&3u16.to_le_bytes());
    e.extend_from_slice(&0x1111u64.to_le_bytes());
    e.push(2);
    e.extend_from_slice(&1u32.to_le_bytes());
    e.extend_from_slice(&0x2222u64.to_le_bytes());
    assert_eq!(e.len(), 10 + 21);
    let b = GcBulk::parse(&e, BulkKind::RootEdge, 8).unwrap();
    let r: Vec<_> = b.root_edges().collect();
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].rooted_node_address, 0x1111);
    assert_eq!(r[0].root_kind, GcRootKind::Handle);
    assert_eq!((r[0].root_flags, r[0].root_id), (1, 0x2222));

    // Edge x64: 12 bytes.
    let mut g = Vec::new();
    g.extend_from_slice(&0u32.to_le_bytes());
    g.extend_from_slice(&1u32.to_le_bytes());
    g.extend_from_slice(&3u16.to_le_bytes());
    g.extend_from_slice(&0x3333u64.to_le_bytes());
    g.extend_from_slice(&9u32.to_le_bytes());
    let b = GcBulk::parse(&g, BulkKind::Edge, 8).unwrap();
    assert_eq!(
        b.edges().collect::<Vec<_>>(),
        [Edge {
            value: 0x3333,
            referencing_field_id: 9
        }]
    );
    // Node x86: 28 bytes.
    let mut n = Vec::new();
    n.extend_from_slice(&0u32.to_le_bytes());
    n.extend_from_slice(&1u32.to_le_bytes());
    n.extend_from_slice(&3u16.to_le_bytes());
    n.extend_from_slice(&0x4444u32.to_le_bytes());
    for v in [24u64, 0x5555, 2] {
        n.extend_from_slice(&v.to_le_bytes());
    }
    let b = GcBulk::parse(&n, BulkKind::Node, 4).unwrap();
    assert_eq!(
        b.nodes().collect::<Vec<_>>(),
        [Node {
            address: 0x4444,
            size: 24,
            type_id: 0x5555,
            edge_count: 2
        }]
    );
}

#[test]
fn com_and_static_var_elements() {
    // RootCCW: one 44-byte element.
    let mut p = Vec::new();
    p.extend_from_slice(&1u32.to_le_bytes());
    p.extend_from_slice(&3u16.to_le_bytes());
    for v in [1u64, 2, 3, 4] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    for v in [5u32, 6, 2] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    let b = GcBulk::parse(&p, BulkKind::RootCcw, 8).unwrap();
    assert_eq!(
        b.root_ccws().collect::<Vec<_>>(),
        [RootCcw {
            root_id: 1,
            object_id: 2,
            type_id: 3,
            iunknown: 4,
            ref_count: 5,
            pegged_ref_count: 6,
            flags: 2
        }]
    );
    // RCW: one 40-byte element.
    let mut q = Vec::new();
    q.extend_from_slice(&1u32.to_le_bytes());
    q.extend_from_slice(&3u16.to_le_bytes());
    for v in [7u64, 8, 9, 10] {
        q.extend_from_slice(&v.to_le_bytes());
    }
    q.extend_from_slice(&11u32.to_le_bytes());
    q.extend_from_slice(&1u32.to_le_bytes());
    let b = GcBulk::parse(&q, BulkKind::Rcw, 8).unwrap();
    let r: Vec<_> = b.rcws().collect();
    assert_eq!(
        (r[0].object_id, r[0].vtable, r[0].ref_count, r[0].flags),
        (7, 10, 11, 1)
    );
    // CWT edge x86: 3 pointers.
    let mut c = Vec::new();
    c.extend_from_slice(&0u32.to_le_bytes());
    c.extend_from_slice(&1u32.to_le_bytes());
    c.extend_from_slice(&3u16.to_le_bytes());
    for v in [0x10u32, 0x20, 0x30] {
        c.extend_from_slice(&v.to_le_bytes());
    }
    let b = GcBulk::parse(&c, BulkKind::RootConditionalWeakTableElementEdge, 4).unwrap();
    assert_eq!(
        b.cwt_edges().collect::<Vec<_>>(),
        [CwtEdge {
            key_node_id: 0x10,
            value_node_id: 0x20,
            root_id: 0x30
        }]
    );
    // StaticVar: two variable-size elements.
    let mut s = Vec::new();
    s.extend_from_slice(&2u32.to_le_bytes());
    s.extend_from_slice(&0x77u64.to_le_bytes());
    s.extend_from_slice(&3u16.to_le_bytes());
    for (i, name) in ["s_a", "t_bb"].iter().enumerate() {
        for v in [i as u64 + 1, 0x100, 0x200] {
            s.extend_from_slice(&v.to_le_bytes());
        }
        s.extend_from_slice(&(i as u32).to_le_bytes());
        s.extend(name.encode_utf16().flat_map(|u| u.to_le_bytes()));
        s.extend_from_slice(&[0, 0]);
    }
    let b = GcBulk::parse(&s, BulkKind::RootStaticVar, 8).unwrap();
    let v: Vec<_> = b.static_vars().collect();
    assert_eq!(v.len(), 2);
    assert_eq!((v[1].root_id, v[1].flags), (2, 1));
    assert!(v[1].field_name.eq_str("t_bb"));
    // Cut inside the second element: an error at the cut.
    let e = GcBulk::parse(&s[..s.len() - 3], BulkKind::RootStaticVar, 8).unwrap_err();
    assert_eq!(e.offset, s.len() - 3);
}

#[test]
fn bulk_type() {
    let mut p = Vec::new();
    p.extend_from_slice(&2u32.to_le_bytes());
    p.extend_from_slice(&3u16.to_le_bytes());
    // List<int>: one type parameter.
    for (id, name, params) in [
        (0x100u64, "System.Int32", &[][..]),
        (0x200, "List`1", &[0x100u64][..]),
    ] {
        p.extend_from_slice(&id.to_le_bytes());
        p.extend_from_slice(&0x9000u64.to_le_bytes());
        p.extend_from_slice(&0x0200_0001u32.to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
        p.push(0x12);
        p.extend(name.encode_utf16().flat_map(|u| u.to_le_bytes()));
        p.extend_from_slice(&[0, 0]);
        p.extend_from_slice(&(params.len() as u32).to_le_bytes());
        for t in params {
            p.extend_from_slice(&t.to_le_bytes());
        }
    }
    let b = BulkType::parse(&p, 0, 8).unwrap();
    assert_eq!(
        (b.count, b.clr_instance_id, b.values_len()),
        (2, 3, p.len() - 6)
    );
    let t: Vec<_> = b.types().collect();
    assert_eq!(t.len(), 2);
    assert!(t[0].name.eq_str("System.Int32"));
    assert_eq!(
        (t[1].type_id, t[1].module_id, t[1].cor_element_type),
        (0x200, 0x9000, 0x12)
    );
    assert_eq!(t[1].type_parameter_ids().collect::<Vec<_>>(), [0x100]);
    assert_eq!(
        BulkType::parse(&p[..p.len() - 1], 0, 8).unwrap_err().offset,
        p.len() - 8
    );
    let mut huge = p.clone();
    huge[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(BulkType::parse(&huge, 0, 8).is_err());
}

#[test]
fn headers_without_index() {
    // RCW: Count 1, ClrInstanceID 3, one 40-byte element.
    let mut p = Vec::new();
    p.extend_from_slice(&1u32.to_le_bytes());
    p.extend_from_slice(&3u16.to_le_bytes());
    p.extend_from_slice(&[0u8; 40]);
    let b = GcBulk::parse(&p, BulkKind::Rcw, 8).unwrap();
    assert_eq!((b.index, b.count, b.clr_instance_id), (None, 1, 3));
    assert!(GcBulk::parse(&p[..45], BulkKind::Rcw, 8).is_err());
    // StaticVar: Count, AppDomainID, ClrInstanceID; 3 bytes cannot hold 2 elements.
    let mut s = Vec::new();
    s.extend_from_slice(&2u32.to_le_bytes());
    s.extend_from_slice(&0x77u64.to_le_bytes());
    s.extend_from_slice(&3u16.to_le_bytes());
    s.extend_from_slice(&[1, 2, 3]);
    assert_eq!(
        GcBulk::parse(&s, BulkKind::RootStaticVar, 8)
            .unwrap_err()
            .offset,
        14
    );
    s[0] = 0; // Count 0: the 3 bytes are a tail, not elements.
    let b = GcBulk::parse(&s, BulkKind::RootStaticVar, 8).unwrap();
    assert_eq!(
        (b.count, b.app_domain_id, b.values.len()),
        (0, Some(0x77), 0)
    );
    // Huge Count: error, no panic.
    let mut h = Vec::new();
    h.extend_from_slice(&0u32.to_le_bytes());
    h.extend_from_slice(&u32::MAX.to_le_bytes());
    h.extend_from_slice(&3u16.to_le_bytes());
    assert!(GcBulk::parse(&h, BulkKind::MovedObjectRanges, 8).is_err());
}
