//! Heap walks built from hand-made events: payloads written field by field from the manifest's
//! layouts, graphs checked against what the construction puts in them.

use super::assemble::type_name;
use super::*;
use crate::heap::{read_gcdump, write_gcdump, RootCategory, Snapshot};
use alloc::vec;

const PROVIDER: &str = "Microsoft-Windows-DotNETRuntime";

#[derive(Default)]
struct P(Vec<u8>);
impl P {
    fn u8(mut self, v: u8) -> Self {
        self.0.push(v);
        self
    }
    fn u16(mut self, v: u16) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u64(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn utf16z(mut self, s: &str) -> Self {
        for u in s.encode_utf16() {
            self.0.extend_from_slice(&u.to_le_bytes());
        }
        self.0.extend_from_slice(&[0, 0]);
        self
    }
}

fn gc_start(count: u32, depth: u32, ty: u32) -> (u32, Vec<u8>) {
    // Count, Depth, Reason (1: Induced), Type, ClrInstanceID.
    (
        1,
        P::default().u32(count).u32(depth).u32(1).u32(ty).u16(0).0,
    )
}
fn gc_end(count: u32) -> (u32, Vec<u8>) {
    (2, P::default().u32(count).u32(2).u16(0).0)
}
fn bulk_type(types: &[(u64, &str)]) -> (u32, Vec<u8>) {
    let mut p = P::default().u32(types.len() as u32).u16(0);
    for &(id, name) in types {
        p = p.u64(id).u64(0x7000).u32(0x0200_0001).u32(0).u8(0x12);
        p = p.utf16z(name).u32(0);
    }
    (15, p.0)
}
/// (address, size, type id, edge count)
fn bulk_node(index: u32, nodes: &[(u64, u64, u64, u64)]) -> (u32, Vec<u8>) {
    let mut p = P::default().u32(index).u32(nodes.len() as u32).u16(0);
    for &(a, s, t, e) in nodes {
        p = p.u64(a).u64(s).u64(t).u64(e);
    }
    (18, p.0)
}
fn bulk_edge(index: u32, targets: &[u64]) -> (u32, Vec<u8>) {
    let mut p = P::default().u32(index).u32(targets.len() as u32).u16(0);
    for &t in targets {
        p = p.u64(t).u32(0);
    }
    (19, p.0)
}
/// (address, kind, flags)
fn bulk_root(roots: &[(u64, u8, u32)]) -> (u32, Vec<u8>) {
    let mut p = P::default().u32(0).u32(roots.len() as u32).u16(0);
    for &(a, k, f) in roots {
        p = p.u64(a).u8(k).u32(f).u64(0x99);
    }
    (16, p.0)
}
/// (object, type id, field)
fn bulk_static(vars: &[(u64, u64, &str)]) -> (u32, Vec<u8>) {
    let mut p = P::default().u32(vars.len() as u32).u64(1).u16(0);
    for &(o, t, f) in vars {
        p = p.u64(0x5000).u64(o).u64(t).u32(0).utf16z(f);
    }
    (38, p.0)
}

fn feed(b: &mut HeapWalkBuilder, events: &[(u32, Vec<u8>)]) {
    for (id, payload) in events {
        let ev = Event {
            provider: PROVIDER,
            event_id: *id,
            version: if *id == 1 || *id == 2 { 1 } else { 0 },
            name: "test",
            pointer_size: 8,
            process_id: 77,
            payload,
            ..Default::default()
        };
        b.on_event(&ev);
    }
}

const ARRAY_T: u64 = 0xa0;
const ENTRY_T: u64 = 0xe0;
const BYTES_T: u64 = 0xb0;
const CACHE_T: u64 = 0xc0;

/// A static array of three entries, each holding a 4,120-byte array; one entry also on a stack.
fn cache_walk() -> Vec<(u32, Vec<u8>)> {
    let (arr, e, b) = (
        0x1000u64,
        [0x2000u64, 0x2100, 0x2200],
        [0x3000u64, 0x4100, 0x5200],
    );
    vec![
        bulk_type(&[(CACHE_T, "HeapCache")]),
        gc_start(9, 1, 0),
        gc_end(9),
        gc_start(10, 2, 0),
        bulk_root(&[(e[0], 0, 0), (0x7777, 2, 0x2)]),
        bulk_type(&[
            (ARRAY_T, "HeapCache+Entry[]"),
            (ENTRY_T, "HeapCache+Entry"),
            (BYTES_T, "System.Byte[]"),
        ]),
        bulk_node(
            0,
            &[
                (arr, 56, ARRAY_T, 3),
                (e[0], 32, ENTRY_T, 1),
                (b[0], 4120, BYTES_T, 0),
            ],
        ),
        bulk_edge(0, &[e[0], e[1], e[2], b[0]]),
        bulk_node(
            1,
            &[
                (e[1], 32, ENTRY_T, 1),
                (b[1], 4120, BYTES_T, 0),
                (e[2], 32, ENTRY_T, 1),
                (b[2], 4120, BYTES_T, 0),
            ],
        ),
        bulk_edge(1, &[b[1], b[2]]),
        bulk_static(&[(arr, CACHE_T, "s_entries")]),
        gc_end(10),
        // A later walk's events are not this walk's.
        bulk_node(0, &[(0x9000, 24, BYTES_T, 0)]),
    ]
}

fn row<'a>(rows: &'a [crate::heap::TypeRow], name: &str) -> &'a crate::heap::TypeRow {
    rows.iter().find(|r| r.name == name).unwrap()
}

#[test]
fn a_walk_becomes_the_graph_it_describes() {
    let mut b = HeapWalkBuilder::new();
    feed(&mut b, &cache_walk());
    assert!(b.walk_ended());
    let w = b.finish(SnapshotInfo::default()).unwrap();
    let r = &w.report;
    assert_eq!(r.gc_number, Some(10));
    assert!(r.ended);
    assert_eq!((r.node_events, r.edge_events), (2, 2));
    assert_eq!(r.later_walk_events, 1);
    assert_eq!(r.warnings().len(), 1, "{:?}", r.warnings());
    assert!(r.warnings()[0].contains("later walk"));
    let g = &w.graph;
    assert_eq!(g.undefined_count(), 0);
    let s = Snapshot::new(g.clone());
    let rows = s.types();
    let entry = row(&rows, "HeapCache+Entry");
    assert_eq!(entry.count, 3);
    assert_eq!(entry.bytes, 3 * 32);
    assert_eq!(entry.retained_bytes, 3 * (32 + 4120));
    let arrays = row(&rows, "HeapCache+Entry[]");
    // The stack also holds the first entry: the array retains only the other two.
    assert_eq!(arrays.retained_bytes, 56 + 2 * (32 + 4120));
    assert_eq!(row(&rows, "System.Byte[]").count, 3);
    assert_eq!(s.totals().total_bytes, 56 + 3 * (32 + 4120));
    assert_eq!(s.totals().unreachable_nodes, 0);
    // The static and the stack root are in the root tree under their dotnet-gcdump names.
    let names: Vec<&str> = (0..g.node_count() as u32).map(|n| g.type_name(n)).collect();
    assert!(names.contains(&"[static var HeapCache.s_entries]"));
    assert!(names.contains(&"[local vars]"));
    assert_eq!(g.type_name(g.root), "[.NET Roots]");
    let roots = s.roots();
    let statics = roots
        .categories
        .iter()
        .find(|c| c.category == RootCategory::Statics)
        .unwrap();
    assert_eq!(statics.objects, 1);
    // The weak handle roots nothing: no node for its address.
    assert!(!g.address.contains(&0x7777));

    // Written as a .gcdump and read back, the same graph.
    let back = read_gcdump(&write_gcdump(g)).unwrap();
    assert_eq!(back.edges, g.edges);
    assert_eq!(back.node_size, g.node_size);
    let s2 = Snapshot::new(back);
    assert_eq!(row(&s2.types(), "HeapCache+Entry"), entry);
}

#[test]
fn a_lost_node_event_is_reported_and_later_edges_are_not_guessed() {
    let mut ev = cache_walk();
    // Drop the first GCBulkNode event: the second is index 1.
    ev.remove(6);
    let mut b = HeapWalkBuilder::new();
    feed(&mut b, &ev);
    let w = b.finish(SnapshotInfo::default()).unwrap();
    assert_eq!(w.report.lost_node_events, 1);
    // No node kept before the loss: no edge can be matched.
    assert_eq!(w.report.unattached_edges, 6);
    assert!(!w.report.warnings().is_empty());
    // The stack root's entry and the static's array were never defined.
    assert_eq!(w.graph.undefined_count(), 2);
}

#[test]
fn a_lost_edge_event_keeps_the_edges_before_it() {
    let mut ev = cache_walk();
    ev.remove(7); // GCBulkEdge 0: the second's index is 1
    let mut b = HeapWalkBuilder::new();
    feed(&mut b, &ev);
    let w = b.finish(SnapshotInfo::default()).unwrap();
    assert_eq!(w.report.lost_edge_events, 1);
    let g = &w.graph;
    // Nothing before the loss: every heap node has no children, and the two later edges stay
    // unattached.
    assert_eq!(w.report.unattached_edges, 2);
    for n in 0..7 {
        assert!(g.children(n).is_empty(), "{n}");
    }
}

#[test]
fn edges_to_unknown_objects_make_undefined_nodes() {
    let ev = vec![
        gc_start(3, 2, 0),
        bulk_type(&[(ENTRY_T, "E")]),
        bulk_node(0, &[(0x100, 32, ENTRY_T, 2)]),
        bulk_edge(0, &[0xdead0, 0]),
        bulk_root(&[(0x100, 2, 0)]),
        gc_end(3),
    ];
    let mut b = HeapWalkBuilder::new();
    feed(&mut b, &ev);
    let w = b.finish(SnapshotInfo::default()).unwrap();
    let g = &w.graph;
    assert_eq!(g.undefined_count(), 1);
    assert_eq!(g.children(0).len(), 1);
    assert!(g.is_undefined(g.children(0)[0]));
    assert_eq!(g.address[g.children(0)[0] as usize], 0xdead0);
    assert!(Snapshot::new(g.clone())
        .warnings()
        .iter()
        .any(|w| w.contains("never defined")));
}

#[test]
fn malformed_payloads_are_counted_with_their_offset() {
    let (_, mut node) = bulk_node(0, &[(0x100, 32, ENTRY_T, 0), (0x200, 32, ENTRY_T, 0)]);
    node.truncate(node.len() - 3);
    let ev = vec![
        gc_start(3, 2, 0),
        (18, node),
        (19, vec![1, 2, 3]),
        gc_end(3),
    ];
    let mut b = HeapWalkBuilder::new();
    feed(&mut b, &ev);
    let w = b.finish(SnapshotInfo::default()).unwrap();
    assert_eq!(w.report.bad_events, 2);
    assert!(
        w.report.bad.iter().all(|s| s.contains("byte")),
        "{:?}",
        w.report.bad
    );
    assert!(w.report.warnings().iter().any(|s| s.contains("malformed")));
}

#[test]
fn no_walk_is_none() {
    let mut b = HeapWalkBuilder::new();
    feed(
        &mut b,
        &[gc_start(1, 2, 0), gc_end(1), bulk_type(&[(1, "T")])],
    );
    assert!(b.finish(SnapshotInfo::default()).is_none());
}

#[test]
fn arbitrary_payloads_never_panic() {
    // A small deterministic generator: every heap-walk id with random bytes of every length.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut b = HeapWalkBuilder::new();
    feed(&mut b, &[gc_start(1, 2, 0)]);
    for round in 0..4000u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let id = [15, 16, 17, 18, 19, 36, 37, 38][(x % 8) as usize];
        let len = (round % 97) as usize;
        let payload: Vec<u8> = (0..len)
            .map(|i| (x.rotate_left(i as u32 * 5) & 0xff) as u8)
            .collect();
        feed(&mut b, &[(id, payload)]);
    }
    feed(&mut b, &[gc_end(1)]);
    if let Some(w) = b.finish(SnapshotInfo::default()) {
        let s = Snapshot::new(w.graph.clone());
        let _ = s.types();
        let _ = read_gcdump(&write_gcdump(&w.graph)).unwrap();
    }
}

#[test]
fn generic_names_read_as_dotnet_gcdump_writes_them() {
    let t = |name: &str, flags: u32| TypeInfo {
        name: String::from(name),
        flags,
        type_name_id: 0x0200_0005,
    };
    assert_eq!(
        type_name(&t(
            "System.Collections.Generic.Dictionary`2[System.String,System.Int32]",
            0
        )),
        "System.Collections.Generic.Dictionary<System.String,System.Int32>"
    );
    assert_eq!(type_name(&t("System.Byte[]", 4)), "System.Byte[]");
    assert_eq!(type_name(&t("", 4)), "ArrayType(0x2000005)");
    assert_eq!(type_name(&t("Com", 2)), "[RCW Com]");
}
