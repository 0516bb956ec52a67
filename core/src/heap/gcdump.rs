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

/// The stream header: an i32 length (20), then the text.
const HEADER: &[u8; 24] = b"\x14\x00\x00\x00!FastSerialization.1";
/// The entry object's type name in a heap snapshot.
const HEAP_DUMP_TYPE: &[u8] = b"GCHeapDump";
/// The oldest `GCHeapDump` layout read here: 9 and up put every field after the graph in one
/// order (8 was never released; 4-7 are PerfView's dumps before 2013).
const MIN_HEAP_DUMP_VERSION: i32 = 9;
/// dotnet-gcdump stops walking the heap at this many nodes.
pub const DOTNET_GCDUMP_NODE_CAP: usize = 10_000_000;

/// FastSerialization's tags.
mod tag {
    pub const NULL_REFERENCE: u8 = 1;
    pub const OBJECT_REFERENCE: u8 = 2;
    pub const FORWARD_REFERENCE: u8 = 3;
    pub const BEGIN_OBJECT: u8 = 4;
    pub const BEGIN_PRIVATE_OBJECT: u8 = 5;
    pub const END_OBJECT: u8 = 6;
    pub const FORWARD_DEFINITION: u8 = 7;
    pub const BYTE: u8 = 8;
    pub const INT16: u8 = 9;
    pub const INT32: u8 = 10;
    pub const INT64: u8 = 11;
    pub const SKIP_REGION: u8 = 12;
    pub const STRING: u8 = 13;
    pub const BLOB: u8 = 14;
}

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

/// A serialized type: its name and versions, and where its definition starts.
#[derive(Clone)]
struct TypeDef {
    at: u64,
    label: usize,
    name: String,
    version: i32,
    min_reader: i32,
}

/// A cursor over the whole file that can jump (object references, forward references).
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Types defined so far, by the offset of their definition (object references point there).
    types: Vec<TypeDef>,
    /// The forward-reference table from the trailer, once read.
    forward: Option<Vec<u32>>,
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8]) -> Self {
        Reader {
            buf,
            pos: 0,
            types: Vec::new(),
            forward: None,
        }
    }
    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    fn at(&self) -> u64 {
        self.pos as u64
    }
    fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }
    fn peek_i32(&self) -> i32 {
        match self.buf.get(self.pos..self.pos + 4) {
            Some(b) => i32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            None => 0,
        }
    }
    fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(Error::truncated(self.at(), what));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn skip(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }
    fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.bytes(1, what)?[0])
    }
    fn i32(&mut self, what: &'static str) -> Result<i32> {
        let b = self.bytes(4, what)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn i64(&mut self, what: &'static str) -> Result<i64> {
        let b = self.bytes(8, what)?;
        Ok(i64::from_le_bytes([
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
        ]))
    }
    fn u64(&mut self, what: &'static str) -> Result<u64> {
        self.i64(what).map(|v| v as u64)
    }
    fn f32(&mut self, what: &'static str) -> Result<f32> {
        self.i32(what).map(|v| f32::from_bits(v as u32))
    }
    /// A non-negative i32 count of items of at least `min_item` bytes each, checked against the
    /// bytes left, so that no count the file claims allocates more than the file holds.
    fn count(&mut self, min_item: usize, what: &'static str) -> Result<usize> {
        let at = self.at();
        let n = self.i32(what)?;
        if n < 0 {
            return Err(Error::malformed(at, format!("{what}: count {n}")));
        }
        let n = n as usize;
        if n.saturating_mul(min_item) > self.remaining() {
            return Err(Error::malformed(
                at,
                format!(
                    "{what}: {n} entries do not fit in the {} bytes left",
                    self.remaining()
                ),
            ));
        }
        Ok(n)
    }
    /// A string: an i32 count of UTF-16 units (-1: null), each unit written in 1-3 bytes
    /// (UTF-8's forms, surrogates one by one).
    fn string(&mut self, what: &'static str) -> Result<Option<String>> {
        let at = self.at();
        let n = self.i32(what)?;
        if n == -1 {
            return Ok(None);
        }
        if n < 0 || n as usize > self.remaining() {
            return Err(Error::malformed(
                at,
                format!(
                    "{what}: a string of {n} characters in {} bytes",
                    self.remaining()
                ),
            ));
        }
        let mut units = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let b = self.u8(what)? as u16;
            let u = if b < 0x80 {
                b
            } else if b < 0xe0 {
                ((b & 0x1f) << 6) | (self.u8(what)? as u16 & 0x3f)
            } else {
                let b1 = self.u8(what)? as u16 & 0x3f;
                let b2 = self.u8(what)? as u16 & 0x3f;
                ((b & 0x0f) << 12) | (b1 << 6) | b2
            };
            units.push(u);
        }
        Ok(Some(String::from_utf16_lossy(&units)))
    }
    fn goto(&mut self, label: usize, what: &'static str) -> Result<()> {
        if label > self.buf.len() {
            return Err(Error::malformed(
                self.at(),
                format!("{what}: a reference to byte {label}, past the end"),
            ));
        }
        self.pos = label;
        Ok(())
    }
    /// Reads a forward reference's index and resolves it through the trailer's table.
    fn forward_reference(&mut self, what: &'static str) -> Result<usize> {
        let at = self.at();
        let index = self.i32(what)?;
        if self.forward.is_none() {
            self.forward = Some(self.forward_table()?);
        }
        let table = self.forward.as_deref().unwrap_or(&[]);
        match usize::try_from(index).ok().and_then(|i| table.get(i)) {
            Some(&label) => Ok(label as usize),
            None => Err(Error::malformed(
                at,
                format!(
                    "{what}: forward reference {index}, the table has {}",
                    table.len()
                ),
            )),
        }
    }
    /// The file's last 4 bytes locate the trailer, whose first field locates the forward
    /// reference table: a count and a label per reference.
    fn forward_table(&self) -> Result<Vec<u32>> {
        let len = self.buf.len();
        if len < 4 {
            return Err(Error::truncated(len as u64, "trailer"));
        }
        let mut t = Reader::new(self.buf);
        t.pos = len - 4;
        let trailer = t.i32("trailer label")? as u32 as usize;
        t.goto(trailer, "trailer")?;
        let table = t.i32("forward reference table label")? as u32 as usize;
        t.goto(table, "forward reference table")?;
        let n = t.count(4, "forward reference table")?;
        let b = t.bytes(n * 4, "forward reference table")?;
        Ok(b.chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    /// The start of an object's definition (BeginObject, optionally after ForwardDefinition and its
    /// index) and its type; the object's fields follow.
    fn object_start(&mut self, what: &'static str) -> Result<TypeDef> {
        match self.object_start_or_null(what)? {
            Some(t) => Ok(t),
            None => Err(Error::malformed(
                self.at() - 1,
                format!("{what}: a null reference"),
            )),
        }
    }
    fn object_start_or_null(&mut self, what: &'static str) -> Result<Option<TypeDef>> {
        let at = self.at();
        let mut t = self.u8(what)?;
        if t == tag::NULL_REFERENCE {
            return Ok(None);
        }
        if t == tag::FORWARD_DEFINITION {
            self.i32(what)?;
            t = self.u8(what)?;
        }
        if t != tag::BEGIN_OBJECT && t != tag::BEGIN_PRIVATE_OBJECT {
            return Err(Error::malformed(
                at,
                format!("{what}: expected the start of an object, found tag {t}"),
            ));
        }
        let mut ty = self.type_ref(what)?;
        ty.at = at;
        Ok(Some(ty))
    }
    /// An object's type: a definition here, or a reference to one read before.
    fn type_ref(&mut self, what: &'static str) -> Result<TypeDef> {
        let at = self.pos;
        let t = self.u8(what)?;
        match t {
            tag::OBJECT_REFERENCE => {
                let label = self.i32(what)? as u32 as usize;
                if let Some(d) = self.types.iter().find(|d| d.label == label) {
                    return Ok(d.clone());
                }
                // A type defined elsewhere in the file: read its definition there.
                let back = self.pos;
                self.goto(label, what)?;
                let t2 = self.u8(what)?;
                if t2 != tag::BEGIN_OBJECT && t2 != tag::BEGIN_PRIVATE_OBJECT {
                    return Err(Error::malformed(
                        label as u64,
                        format!("{what}: the type reference does not point at a type"),
                    ));
                }
                let d = self.type_definition(label, what)?;
                self.pos = back;
                Ok(d)
            }
            tag::BEGIN_OBJECT | tag::BEGIN_PRIVATE_OBJECT => self.type_definition(at, what),
            _ => Err(Error::malformed(
                at as u64,
                format!("{what}: expected a type, found tag {t}"),
            )),
        }
    }
    /// After the type's Begin tag: its own type (null: a type), version, minimum reader version,
    /// name, end.
    fn type_definition(&mut self, label: usize, what: &'static str) -> Result<TypeDef> {
        let t = self.u8(what)?;
        if t != tag::NULL_REFERENCE {
            return Err(Error::malformed(
                self.at() - 1,
                format!("{what}: a type whose type is not a type (tag {t})"),
            ));
        }
        let version = self.i32("type version")?;
        let min_reader = self.i32("type minimum reader version")?;
        let name = self.string("type name")?.unwrap_or_default();
        self.end_object("type")?;
        let d = TypeDef {
            at: label as u64,
            label,
            name,
            version,
            min_reader,
        };
        if self.types.len() < 64 {
            self.types.push(d.clone());
        }
        Ok(d)
    }
    /// Skips the tagged fields a newer writer added, up to the object's EndObject tag.
    fn end_object(&mut self, what: &'static str) -> Result<()> {
        loop {
            let at = self.at();
            let t = self.u8(what)?;
            match t {
                tag::END_OBJECT => return Ok(()),
                tag::BYTE => self.skip(1, what)?,
                tag::INT16 => self.skip(2, what)?,
                tag::INT32 | tag::FORWARD_DEFINITION | tag::FORWARD_REFERENCE => {
                    self.skip(4, what)?
                }
                tag::OBJECT_REFERENCE => self.skip(4, what)?,
                tag::INT64 => self.skip(8, what)?,
                tag::NULL_REFERENCE | tag::BEGIN_OBJECT | tag::BEGIN_PRIVATE_OBJECT => {}
                tag::STRING => {
                    self.string(what)?;
                }
                tag::BLOB => {
                    let n = self.count(1, what)?;
                    self.skip(n, what)?;
                }
                tag::SKIP_REGION => {
                    let end = self.forward_reference(what)?;
                    if end <= at as usize {
                        return Err(Error::malformed(
                            at,
                            format!("{what}: a skip region that ends before it starts"),
                        ));
                    }
                    self.goto(end, what)?;
                }
                _ => {
                    return Err(Error::malformed(
                        at,
                        format!("{what}: expected the object's end, found tag {t}"),
                    ))
                }
            }
        }
    }
}
