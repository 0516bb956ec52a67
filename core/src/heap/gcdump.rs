//! The `.gcdump` reader: a FastSerialization stream whose entry object is a `GCHeapDump`, which
//! holds a `MemoryGraph` (types, nodes in a compressed blob, addresses) and the heap's segments.
//! The facts it relies on are in docs/reference/formats.md, "Heap snapshots (.gcdump)".
//!
//! The whole file is in memory (a graph is read at random: node records by offset, forward
//! references through the trailer), and every count the file states is checked against the bytes
//! that are left before anything is allocated for it.

use super::graph::{HeapGraph, Segment, SnapshotInfo, TypeEntry};
use crate::error::{Error, ErrorKind, Result};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use fast_serialization::{tag, Reader, HEADER};

mod fast_serialization;

/// The entry object's type name in a heap snapshot.
const HEAP_DUMP_TYPE: &[u8] = b"GCHeapDump";
/// The oldest `GCHeapDump` layout read here: 9 and up put every field after the graph in one
/// order (8 was never released; 4-7 are PerfView's dumps before 2013).
const MIN_HEAP_DUMP_VERSION: i32 = 9;
/// dotnet-gcdump stops walking the heap at this many nodes.
pub const DOTNET_GCDUMP_NODE_CAP: usize = 10_000_000;

/// Whether `head` (the file's first bytes) starts a heap snapshot: the FastSerialization header,
/// then an object whose type is named `GCHeapDump`. `None`: too few bytes to tell.
pub fn looks_like_gcdump(head: &[u8]) -> Option<bool> {
    // header, BeginObject, BeginPrivateObject or BeginObject (the type), NullReference (the type's
    // type), version, minimum reader version, the name's length, the name.
    const NAME_AT: usize = 24 + 3 + 8 + 4;
    let need = NAME_AT + HEAP_DUMP_TYPE.len();
    let n = head.len().min(need);
    let mut expect = [0u8; NAME_AT + HEAP_DUMP_TYPE.len()];
    expect[..24].copy_from_slice(HEADER);
    if head[..n.min(24)] != expect[..n.min(24)] {
        return Some(false);
    }
    if head.len() < need {
        return None;
    }
    let type_tag_ok = matches!(head[24], tag::BEGIN_OBJECT | tag::BEGIN_PRIVATE_OBJECT)
        && matches!(head[25], tag::BEGIN_OBJECT | tag::BEGIN_PRIVATE_OBJECT)
        && head[26] == tag::NULL_REFERENCE;
    let len_ok = head[35..39] == (HEAP_DUMP_TYPE.len() as u32).to_le_bytes();
    Some(type_tag_ok && len_ok && &head[NAME_AT..need] == HEAP_DUMP_TYPE)
}

/// Reads a `.gcdump` file's bytes into its graph.
pub fn read_gcdump(file: &[u8]) -> Result<HeapGraph> {
    let mut r = Reader::new(file);
    let head = r.bytes(24, "FastSerialization header")?;
    if head != HEADER {
        return Err(Error::new(
            0,
            ErrorKind::NotATrace(String::from(
                "not a .gcdump: no '!FastSerialization.1' header",
            )),
        ));
    }
    let dump = r.object_start("GCHeapDump object")?;
    if dump.name != "GCHeapDump" {
        return Err(Error::new(
            dump.at,
            ErrorKind::NotATrace(format!(
                "a FastSerialization file of type '{}', not a heap snapshot",
                dump.name
            )),
        ));
    }
    if dump.version < MIN_HEAP_DUMP_VERSION {
        return Err(Error::new(
            dump.at,
            ErrorKind::Unsupported(format!(
                "GCHeapDump version {} (gcscope reads {MIN_HEAP_DUMP_VERSION} and up)",
                dump.version
            )),
        ));
    }
    let mut info = SnapshotInfo {
        version: dump.version,
        ..Default::default()
    };

    let graph_type = r.object_start("MemoryGraph object")?;
    if !graph_type.name.ends_with("MemoryGraph") {
        return Err(Error::malformed(
            graph_type.at,
            format!(
                "the heap dump's first field is a '{}', not a MemoryGraph",
                graph_type.name
            ),
        ));
    }
    let mut g = read_graph(&mut r, graph_type.min_reader, &mut info)?;
    r.end_object("MemoryGraph")?;

    // The rest of GCHeapDump, in the order of versions 9 and 10.
    r.u8("GCHeapDump Is64Bit")?;
    info.average_count_multiplier = r.f32("AverageCountMultiplier")?;
    info.average_size_multiplier = r.f32("AverageSizeMultiplier")?;
    if r.object_start_or_null("JSHeapInfo")?.is_some() {
        info.javascript = true;
        r.end_object("JSHeapInfo")?;
    }
    if r.object_start_or_null("DotNetHeapInfo")?.is_some() {
        g.segments = read_dotnet_heap_info(&mut r)?;
        r.end_object("DotNetHeapInfo")?;
    }
    info.collection_log = r.string("CollectionLog")?;
    info.time_ticks = r.i64("TimeCollected")?;
    info.machine_name = r.string("MachineName")?;
    info.process_name = r.string("ProcessName")?;
    info.process_id = r.i32("ProcessID")?;
    r.i64("TotalProcessCommit")?;
    r.i64("TotalProcessWorkingSet")?;
    let multipliers = r.count(4, "CountMultipliersByType")?;
    r.skip(multipliers * 4, "CountMultipliersByType")?;
    // Tagged fields after version 8: the interop data (a skip region), then the creation tool.
    if r.peek() == Some(tag::SKIP_REGION) {
        r.u8("interop tag")?;
        let end = r.forward_reference("interop skip region")?;
        r.goto(end, "interop skip region")?;
    }
    if r.peek() == Some(tag::STRING) {
        r.u8("CreationTool tag")?;
        info.creation_tool = r.string("CreationTool")?;
    }
    r.end_object("GCHeapDump")?;
    // PerfView's JavaScript dumps store no JSHeapInfo; their root says what they are.
    info.javascript |= g.type_name(g.root).contains("JS Roots");
    g.info = info;
    Ok(g)
}

/// The `Graph` part (types, node table, node blob, the version-1 region) and the `MemoryGraph`
/// part (addresses, pointer size) of the graph object's fields.
fn read_graph(r: &mut Reader, min_reader: i32, info: &mut SnapshotInfo) -> Result<HeapGraph> {
    let stated_total = r.i64("graph total size")?;
    let root = r.i32("graph root index")?;
    // A type is at least a name length, a size and a module length.
    let type_count = r.count(12, "type table")?;
    let mut types = Vec::with_capacity(type_count);
    for _ in 0..type_count {
        let name = r.string("type name")?.unwrap_or_default();
        let size = r.i32("type size")?;
        let module = r.string("type module")?;
        types.push(TypeEntry { name, module, size });
    }
    let table_at = r.pos;
    let node_count = r.count(4, "node table")?;
    let labels = r.bytes(node_count * 4, "node table")?;
    let blob_len = r.count(1, "node blob")?;
    let blob_at = r.pos;
    let blob = r.bytes(blob_len, "node blob")?;
    if min_reader >= 1 {
        // Version 1 of the graph: a region of deferred types, skipped through its forward reference.
        let end = r.forward_reference("graph expansion region")?;
        if r.remaining() >= 4 {
            let n = r.peek_i32();
            info.deferred_types = n.max(0) as u32;
        }
        r.goto(end, "graph expansion region")?;
    }
    let address_count = r.count(8, "node addresses")?;
    let addresses = r.bytes(address_count * 8, "node addresses")?;
    let mut pointer_size = 0;
    if r.peek() == Some(tag::BYTE) {
        r.u8("Is64Bit tag")?;
        pointer_size = if r.u8("Is64Bit")? != 0 { 8 } else { 4 };
    }

    let mut g = HeapGraph {
        types,
        root: root as u32,
        pointer_size,
        stated_total_bytes: stated_total,
        ..Default::default()
    };
    if root < 0 {
        g.root = u32::MAX;
    }
    decode_nodes(&mut g, labels, table_at + 4, blob, blob_at)?;
    if address_count == node_count {
        g.address = addresses
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
            .collect();
    }
    Ok(g)
}

/// Decodes each node's record in the blob: a compressed (type << 1 | has size), the size when
/// flagged, the child count, and each child as a compressed difference from the node's index.
fn decode_nodes(
    g: &mut HeapGraph,
    labels: &[u8],
    labels_at: usize,
    blob: &[u8],
    blob_at: usize,
) -> Result<()> {
    let n = labels.len() / 4;
    g.node_type = Vec::with_capacity(n);
    g.node_size = Vec::with_capacity(n);
    g.edge_start = Vec::with_capacity(n + 1);
    g.undefined = vec![0u64; n.div_ceil(64)];
    g.edge_start.push(0);
    for (i, l) in labels.chunks_exact(4).enumerate() {
        let label = u32::from_le_bytes([l[0], l[1], l[2], l[3]]) as usize;
        if label >= blob.len() {
            return Err(Error::malformed(
                (labels_at + i * 4) as u64,
                format!(
                    "node {i}'s record is at {label}, past the {} bytes of node data",
                    blob.len()
                ),
            ));
        }
        // The blob starts with the record every undefined node points at.
        if label == 0 {
            g.undefined[i / 64] |= 1 << (i % 64);
        }
        let mut c = Compressed {
            blob,
            pos: label,
            base: blob_at,
        };
        let type_and_size = c.read()?;
        let ty = type_and_size >> 1;
        if ty < 0 || ty as usize >= g.types.len() {
            return Err(Error::malformed(
                (blob_at + label) as u64,
                format!(
                    "node {i} has type {ty}, outside the {} types",
                    g.types.len()
                ),
            ));
        }
        let size = if type_and_size & 1 != 0 {
            c.read()?
        } else {
            g.types[ty as usize].size
        };
        if size < 0 {
            return Err(Error::malformed(
                (blob_at + label) as u64,
                format!("node {i} has size {size}"),
            ));
        }
        let count_at = c.pos;
        let count = c.read()?;
        // Each child takes at least a byte; and, records being distinct, the edges of all nodes
        // fit in the blob, which bounds the edge list by the file's size.
        if count < 0
            || count as usize > blob.len() - c.pos
            || g.edges.len() + count as usize > blob.len()
        {
            return Err(Error::malformed(
                (blob_at + count_at) as u64,
                format!("node {i} claims {count} children, more than the node data can hold"),
            ));
        }
        for _ in 0..count {
            let at = c.pos;
            let delta = c.read()? as i64;
            let child = i as i64 + delta;
            if child < 0 || child as usize >= n {
                return Err(Error::malformed(
                    (blob_at + at) as u64,
                    format!("node {i} references node {child}, outside the {n} nodes"),
                ));
            }
            g.edges.push(child as u32);
        }
        g.node_type.push(ty as u32);
        g.node_size.push(size as u32);
        g.edge_start.push(g.edges.len() as u32);
    }
    Ok(())
}

/// The node blob's signed compressed integers: 7 bits a byte, most significant first, the first
/// byte's 7 bits sign-extended, a set high bit meaning another byte follows (at most 5 bytes).
struct Compressed<'a> {
    blob: &'a [u8],
    pos: usize,
    base: usize,
}

impl Compressed<'_> {
    #[inline]
    fn byte(&mut self) -> Result<u8> {
        let b = *self
            .blob
            .get(self.pos)
            .ok_or_else(|| Error::truncated((self.base + self.pos) as u64, "node record"))?;
        self.pos += 1;
        Ok(b)
    }
    #[inline]
    fn read(&mut self) -> Result<i32> {
        let b = self.byte()?;
        let mut v = ((b as i32) << 25) >> 25;
        if b & 0x80 == 0 {
            return Ok(v);
        }
        for _ in 0..3 {
            let b = self.byte()?;
            v = v.wrapping_shl(7).wrapping_add((b & 0x7f) as i32);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        let b = self.byte()?;
        Ok(v.wrapping_shl(7).wrapping_add(b as i32))
    }
}

/// `DotNetHeapInfo`: the segments' total size, then the segment objects.
fn read_dotnet_heap_info(r: &mut Reader) -> Result<Vec<Segment>> {
    r.i64("SizeOfAllSegments")?;
    // A segment object is at least a tag, a type reference and six addresses.
    let count = r.count(1 + 5 + 48, "segments")?;
    let mut segments = Vec::with_capacity(count);
    for _ in 0..count {
        let Some(ty) = r.object_start_or_null("GCHeapDumpSegment")? else {
            continue;
        };
        let mut s = Segment {
            start: r.u64("segment start")?,
            end: r.u64("segment end")?,
            ..Default::default()
        };
        for g in 0..4 {
            s.gen_end[g] = r.u64("segment generation end")?;
        }
        if ty.version >= 1 {
            s.gen_end[4] = r.u64("segment generation end")?;
        }
        r.end_object("GCHeapDumpSegment")?;
        segments.push(s);
    }
    Ok(segments)
}
