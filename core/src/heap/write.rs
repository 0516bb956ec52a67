//! The `.gcdump` writer: a [`HeapGraph`] as the FastSerialization stream PerfView, Visual Studio,
//! dotnet-gcdump and [`super::read_gcdump`] read, laid out as dotnet-gcdump lays out its own
//! dumps (a `GCHeapDump` version 10 holding a `Graphs.MemoryGraph` version 1; the facts are in
//! docs/reference/formats.md, "Heap snapshots (.gcdump)"). Bytes only: the caller writes them.

use super::graph::HeapGraph;
use alloc::vec::Vec;

/// FastSerialization's tags used here.
const NULL_REFERENCE: u8 = 1;
const BEGIN_OBJECT: u8 = 4;
const END_OBJECT: u8 = 6;
const BYTE: u8 = 8;
const SKIP_REGION: u8 = 12;
const STRING: u8 = 13;

/// The creation tool the dump names when the graph's info names none.
pub const CREATION_TOOL: &str = "gcscope";

/// The `.gcdump` bytes of `g` (its nodes, types, addresses, root and the facts of `g.info`).
pub fn write_gcdump(g: &HeapGraph) -> Vec<u8> {
    let mut w = Writer::default();
    w.string_raw("!FastSerialization.1");
    // The entry object and its type.
    w.byte(BEGIN_OBJECT);
    w.type_def("GCHeapDump", 10, 8);
    // The graph object.
    w.byte(BEGIN_OBJECT);
    w.type_def("Graphs.MemoryGraph", 1, 0);
    write_graph(&mut w, g);
    w.byte(BYTE);
    w.byte(u8::from(g.pointer_size != 4));
    w.byte(END_OBJECT);
    // The rest of GCHeapDump, in the order of version 10.
    w.byte(u8::from(g.pointer_size != 4));
    // An unsampled heap's multipliers are 1 (a graph built by hand leaves them 0).
    let one = |m: f32| if m == 0.0 { 1.0 } else { m };
    w.f32(one(g.info.average_count_multiplier));
    w.f32(one(g.info.average_size_multiplier));
    w.byte(NULL_REFERENCE); // JSHeapInfo
    w.byte(NULL_REFERENCE); // DotNetHeapInfo
    w.string(g.info.collection_log.as_deref());
    w.i64(g.info.time_ticks);
    w.string(g.info.machine_name.as_deref());
    w.string(g.info.process_name.as_deref());
    w.i32(g.info.process_id);
    w.i64(0); // TotalProcessCommit
    w.i64(0); // TotalProcessWorkingSet
    w.i32(0); // CountMultipliersByType
              // Tagged: the interop data (a skip region around a null object), the creation tool.
    w.byte(SKIP_REGION);
    w.i32(0); // forward reference 0: the region's end
    w.byte(NULL_REFERENCE);
    let region_end = w.label();
    w.byte(STRING);
    w.string(Some(
        g.info.creation_tool.as_deref().unwrap_or(CREATION_TOOL),
    ));
    w.byte(END_OBJECT);
    // The stream's end: an unmatched EndObject, the forward-reference table, the trailer (the
    // table's label), and the trailer's label as the last 4 bytes.
    w.byte(END_OBJECT);
    let table = w.label();
    w.i32(1);
    w.u32(region_end);
    let trailer = w.label();
    w.u32(table);
    w.u32(trailer);
    w.buf
}

/// The graph's fields: total size, root, types, node labels, the node blob, addresses.
fn write_graph(w: &mut Writer, g: &HeapGraph) {
    let n = g.node_count();
    w.i64(g.total_bytes() as i64);
    w.i32(if (g.root as usize) < n {
        g.root as i32
    } else {
        -1
    });
    // Type 0 is the undefined nodes' type; a graph whose table starts otherwise gets one.
    let shift = u32::from(g.types.first().is_none_or(|t| t.name != "UNDEFINED"));
    w.i32(g.types.len() as i32 + shift as i32);
    if shift == 1 {
        w.string(Some("UNDEFINED"));
        w.i32(0);
        w.string(None);
    }
    for t in &g.types {
        w.string(Some(&t.name));
        w.i32(t.size);
        w.string(t.module.as_deref());
    }
    // The blob starts with the record every undefined node points at: type 0, no size, no
    // children.
    let mut blob = Vec::with_capacity(n * 4 + g.edge_count() * 2 + 2);
    compressed(&mut blob, 0);
    compressed(&mut blob, 0);
    let mut labels = Vec::with_capacity(n);
    for i in 0..n as u32 {
        if g.is_undefined(i) {
            labels.push(0u32);
            continue;
        }
        labels.push(blob.len() as u32);
        let ty = g.node_type[i as usize] + shift;
        let size = g.node_size[i as usize].min(i32::MAX as u32) as i32;
        let type_size = g
            .types
            .get(g.node_type[i as usize] as usize)
            .map_or(0, |t| t.size);
        if size == type_size {
            compressed(&mut blob, (ty << 1) as i32);
        } else {
            compressed(&mut blob, ((ty << 1) | 1) as i32);
            compressed(&mut blob, size);
        }
        let children = g.children(i);
        compressed(&mut blob, children.len() as i32);
        for &c in children {
            compressed(&mut blob, (i64::from(c) - i64::from(i)) as i32);
        }
    }
    w.i32(n as i32);
    for l in labels {
        w.u32(l);
    }
    w.i32(blob.len() as i32);
    w.buf.extend_from_slice(&blob);
    // Addresses: every node's (0 for pseudo-nodes and a graph without them).
    w.i32(n as i32);
    for i in 0..n {
        w.i64(g.address.get(i).copied().unwrap_or(0) as i64);
    }
}

/// A signed compressed integer: the fewest 7-bit groups that hold the value sign-extended, most
/// significant first, each but the last with the high bit set (a fifth byte takes bits 28-31).
fn compressed(out: &mut Vec<u8>, v: i32) {
    let fits = |bits: u32| (v << (32 - bits)) >> (32 - bits) == v;
    let groups = if fits(7) {
        1
    } else if fits(14) {
        2
    } else if fits(21) {
        3
    } else if fits(28) {
        4
    } else {
        5
    };
    for k in (1..groups).rev() {
        out.push(((v >> (7 * k)) as u8) | 0x80);
    }
    out.push((v as u8) & 0x7f);
}

#[derive(Default)]
struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    fn label(&self) -> u32 {
        self.buf.len() as u32
    }
    fn byte(&mut self, b: u8) {
        self.buf.push(b);
    }
    fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.buf.extend_from_slice(&v.to_bits().to_le_bytes());
    }
    /// The stream header's string: an i32 byte length, then ASCII.
    fn string_raw(&mut self, s: &str) {
        self.i32(s.len() as i32);
        self.buf.extend_from_slice(s.as_bytes());
    }
    /// A string: its UTF-16 unit count (-1: null), each unit in 1-3 bytes.
    fn string(&mut self, s: Option<&str>) {
        let Some(s) = s else {
            self.i32(-1);
            return;
        };
        let units: Vec<u16> = s.encode_utf16().collect();
        self.i32(units.len() as i32);
        for u in units {
            if u < 0x80 {
                self.buf.push(u as u8);
            } else if u < 0x800 {
                self.buf.push(0xc0 | (u >> 6) as u8);
                self.buf.push(0x80 | (u & 0x3f) as u8);
            } else {
                self.buf.push(0xe0 | (u >> 12) as u8);
                self.buf.push(0x80 | ((u >> 6) & 0x3f) as u8);
                self.buf.push(0x80 | (u & 0x3f) as u8);
            }
        }
    }
    /// A type's definition: BeginObject, NullReference (a type's type), version, minimum reader
    /// version, name, EndObject.
    fn type_def(&mut self, name: &str, version: i32, min_reader: i32) {
        self.byte(BEGIN_OBJECT);
        self.byte(NULL_REFERENCE);
        self.i32(version);
        self.i32(min_reader);
        self.string(Some(name));
        self.byte(END_OBJECT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::graph::{SnapshotInfo, TypeEntry};
    use crate::heap::read_gcdump;
    use alloc::string::String;
    use alloc::vec;

    fn decode(b: &[u8]) -> i32 {
        // The format's rule, written from its description: 7 bits a byte, the first sign-extended.
        let mut v = ((b[0] as i32) << 25) >> 25;
        for &x in &b[1..] {
            v = (v << 7) | (x & 0x7f) as i32;
        }
        v
    }

    #[test]
    fn compressed_round_trips_at_every_width() {
        for v in [
            0,
            1,
            -1,
            63,
            64,
            -64,
            -65,
            8191,
            8192,
            -8193,
            1 << 20,
            -(1 << 20) - 1,
            (1 << 27) - 1,
            1 << 27,
            i32::MAX,
            i32::MIN,
        ] {
            let mut out = Vec::new();
            compressed(&mut out, v);
            assert!(out.len() <= 5, "{v}");
            assert!(out[..out.len() - 1].iter().all(|b| b & 0x80 != 0));
            assert_eq!(out[out.len() - 1] & 0x80, 0);
            if out.len() < 5 {
                assert_eq!(decode(&out), v, "{v} as {out:x?}");
            }
        }
        let mut out = Vec::new();
        compressed(&mut out, 100);
        assert_eq!(out, vec![0x80, 100]);
    }

    #[test]
    fn the_header_is_dotnet_gcdumps() {
        let g = HeapGraph::from_nodes(
            vec![TypeEntry {
                name: String::from("UNDEFINED"),
                module: None,
                size: 0,
            }],
            0,
            &[(0, 0, vec![])],
        );
        let b = write_gcdump(&g);
        // Bytes as a dotnet-gcdump file starts (docs/reference/formats.md, "Framing").
        let mut want = Vec::new();
        want.extend_from_slice(b"\x14\x00\x00\x00!FastSerialization.1");
        want.extend_from_slice(
            b"\x04\x04\x01\x0a\x00\x00\x00\x08\x00\x00\x00\x0a\x00\x00\x00GCHeapDump\x06",
        );
        want.extend_from_slice(
            b"\x04\x04\x01\x01\x00\x00\x00\x00\x00\x00\x00\x12\x00\x00\x00Graphs.MemoryGraph\x06",
        );
        assert_eq!(&b[..want.len()], &want[..]);
        // The last 4 bytes locate the trailer, whose first field locates the table.
        let at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) as usize;
        let trailer = at(b.len() - 4);
        assert_eq!(trailer, b.len() - 8);
        let table = at(trailer);
        assert_eq!(at(table), 1);
        assert_eq!(b[table - 1], END_OBJECT);
        assert_eq!(b[table - 2], END_OBJECT);
    }

    #[test]
    fn a_graph_reads_back() {
        let types = vec![
            TypeEntry {
                name: String::from("UNDEFINED"),
                module: None,
                size: 0,
            },
            TypeEntry {
                name: String::from("[.NET Roots]"),
                module: None,
                size: 0,
            },
            TypeEntry {
                name: String::from("System.Byte[]"),
                module: Some(String::from("System.Private.CoreLib.dll")),
                size: 24,
            },
            TypeEntry {
                name: String::from("Cache+Entry\u{e9}\u{4e2d}"),
                module: None,
                size: 32,
            },
        ];
        // Children far before and after a node: negative and multi-byte deltas.
        let mut nodes = vec![(1u32, 0u32, vec![1u32, 300, 70_000])];
        for i in 1..70_001u32 {
            let size = if i % 2 == 0 { 24 } else { 4120 };
            let kids = if i == 300 { vec![1, 69_999] } else { vec![] };
            nodes.push((2 + (i % 2), size, kids));
        }
        let mut g = HeapGraph::from_nodes(types, 0, &nodes);
        g.address = (0..g.node_count() as u64).map(|i| 0x1000 + i * 8).collect();
        g.pointer_size = 8;
        g.info = SnapshotInfo {
            process_id: 4242,
            process_name: Some(String::from("app")),
            time_ticks: 638_000_000_000_000_000,
            ..Default::default()
        };
        let b = write_gcdump(&g);
        let r = read_gcdump(&b).unwrap();
        assert_eq!(r.types, g.types);
        assert_eq!(r.node_type, g.node_type);
        assert_eq!(r.node_size, g.node_size);
        assert_eq!(r.edge_start, g.edge_start);
        assert_eq!(r.edges, g.edges);
        assert_eq!(r.address, g.address);
        assert_eq!(r.root, 0);
        assert_eq!(r.pointer_size, 8);
        assert_eq!(r.stated_total_bytes, g.total_bytes() as i64);
        assert_eq!(r.info.version, 10);
        assert_eq!(r.info.process_id, 4242);
        assert_eq!(r.info.process_name.as_deref(), Some("app"));
        assert_eq!(r.info.time_ticks, 638_000_000_000_000_000);
        assert_eq!(r.info.creation_tool.as_deref(), Some(CREATION_TOOL));
        assert_eq!(r.undefined_count(), 0);
    }
}
