//! Test-only NetTrace **encoder** (feature `encode`): writes V4/V5 NetTrace streams the way the runtime
//! does (FastSerialization framing with absolute-offset padding, metadata blocks, compressed event
//! headers, stack blocks, sequence points), so tests and benchmarks can make traces of any size.
//!
//! Output is streamed: the writer keeps one event block, one stack block and the bytes not yet
//! [`drain`](NetTraceWriter::drain)ed, so a multi-GB trace needs a few hundred KB of memory.
//! [`payload`] builds the runtime's GC payloads; [`workload`] simulates a process writing a realistic
//! mix of events; [`crafted`] writes a hostile trace for the ordering buffer's memory bound.
//!
//! The layouts follow docs/reference/formats.md, "FastSerialization framing" to "Metadata
//! payloads" (the decoder in [`crate::nettrace`] follows the same document, so round-trip tests
//! check both against the same description, field by field).

pub mod crafted;
pub mod etl;
pub mod payload;
pub mod workload;

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::container::{FAST_SERIALIZATION, NETTRACE_MAGIC};
use crate::nettrace::event_block::flags;
use crate::nettrace::framing::{padding_after, tag};

/// Event blocks are flushed at this size, like the runtime's 100 KB buffers.
pub const BLOCK_LIMIT: usize = 100 * 1024;
/// Block header size the runtime writes (u16 size, u16 flags, i64 min/max timestamps).
const BLOCK_HEADER: u16 = 20;
/// V5 metadata tag kinds.
const TAG_OPCODE: u8 = 1;

/// Which NetTrace flavour to write. Both use the V4 framing and `Trace` object version 4; V5 adds
/// metadata tags (the OpCode tag here) that V4 readers must not see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    V4,
    V5,
}

/// The Trace object's facts.
#[derive(Debug, Clone, Copy)]
pub struct Header {
    /// SYSTEMTIME: year, month, day-of-week, day, hour, minute, second, millisecond.
    pub sync_time_utc: [u16; 8],
    pub sync_time_qpc: i64,
    pub qpc_frequency: i64,
    pub pointer_size: u8,
    pub process_id: u32,
    pub processor_count: u32,
    pub expected_cpu_sampling_rate: u32,
}

impl Default for Header {
    fn default() -> Self {
        Header {
            sync_time_utc: [2026, 11, 1, 23, 1, 2, 3, 4],
            sync_time_qpc: 1_000_000_000,
            qpc_frequency: 1_000_000_000,
            pointer_size: 8,
            process_id: 4242,
            processor_count: 2,
            expected_cpu_sampling_rate: 1_000_000,
        }
    }
}

/// One field of a metadata definition (V1 field list): type code (docs/reference/formats.md, "Field
/// type codes") and name.
#[derive(Debug, Clone, Copy)]
pub struct Field<'a> {
    pub type_code: i32,
    pub name: &'a str,
}

/// What a metadata id stands for.
#[derive(Debug, Clone, Copy, Default)]
pub struct EventDef<'a> {
    pub provider: &'a str,
    pub event_id: u32,
    /// Empty for runtime events (the runtime writes none).
    pub name: &'a str,
    pub keywords: u64,
    pub version: u32,
    pub level: u32,
    /// Written as a V5 OpCode tag (V5 flavour only).
    pub opcode: Option<u8>,
    pub fields: &'a [Field<'a>],
}

/// Header fields of one event. The sequence number is assigned by the writer (per capture thread,
/// from 1), unless `sequence` is set (to simulate dropped events).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventFields {
    pub metadata_id: u32,
    pub thread_id: u64,
    pub capture_thread_id: u64,
    pub processor: u32,
    pub stack_id: u32,
    pub timestamp: i64,
    pub sorted: bool,
    pub activity_id: Option<[u8; 16]>,
    pub related_activity_id: Option<[u8; 16]>,
    pub sequence: Option<u32>,
}

/// The "previous header" the compressed encoding is relative to (reset per block).
#[derive(Default, Clone, Copy)]
struct Prev {
    metadata_id: u32,
    sequence: u32,
    capture_thread_id: u64,
    processor: u32,
    thread_id: u64,
    stack_id: u32,
    timestamp: i64,
    payload_size: u32,
}

/// Counters of what was written (what a decoder should report back).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    pub events: u64,
    pub metadata: u64,
    pub stacks: u64,
    pub blocks: u64,
    pub sequence_points: u64,
    pub bytes: u64,
}

/// Streaming NetTrace writer. Call [`drain`](Self::drain) whenever convenient to take the bytes out.
pub struct NetTraceWriter {
    flavor: Flavor,
    pointer_size: u8,
    /// Bytes not yet drained; `drained + out.len()` is the absolute stream offset.
    out: Vec<u8>,
    drained: u64,
    block: Vec<u8>,
    block_min: i64,
    block_max: i64,
    prev: Prev,
    /// Stacks interned since the last sequence point: caller key -> id.
    stack_ids: BTreeMap<u64, u32>,
    stack_block: Vec<u8>,
    stack_first: u32,
    stack_count: u32,
    next_stack: u32,
    next_metadata: u32,
    /// Last sequence number per capture thread.
    sequences: BTreeMap<u64, u32>,
    written: Written,
    finished: bool,
}

fn varu(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn utf16z(out: &mut Vec<u8>, s: &str) {
    for u in s.encode_utf16() {
        out.extend_from_slice(&u.to_le_bytes());
    }
    out.extend_from_slice(&[0, 0]);
}

impl NetTraceWriter {
    /// Starts a stream: magic, FastSerialization header and the Trace object.
    pub fn new(flavor: Flavor, header: &Header) -> Self {
        let mut w = NetTraceWriter {
            flavor,
            pointer_size: header.pointer_size,
            out: Vec::with_capacity(2 * BLOCK_LIMIT),
            drained: 0,
            block: Vec::with_capacity(BLOCK_LIMIT + 4096),
            block_min: i64::MAX,
            block_max: i64::MIN,
            prev: Prev::default(),
            stack_ids: BTreeMap::new(),
            stack_block: Vec::new(),
            stack_first: 1,
            stack_count: 0,
            next_stack: 1,
            next_metadata: 1,
            sequences: BTreeMap::new(),
            written: Written::default(),
            finished: false,
        };
        w.out.extend_from_slice(NETTRACE_MAGIC);
        w.out.extend_from_slice(FAST_SERIALIZATION);
        w.object_header(b"Trace", 4, 4);
        for v in header.sync_time_utc {
            w.out.extend_from_slice(&v.to_le_bytes());
        }
        w.out.extend_from_slice(&header.sync_time_qpc.to_le_bytes());
        w.out.extend_from_slice(&header.qpc_frequency.to_le_bytes());
        w.out
            .extend_from_slice(&(header.pointer_size as i32).to_le_bytes());
        w.out.extend_from_slice(&header.process_id.to_le_bytes());
        w.out
            .extend_from_slice(&header.processor_count.to_le_bytes());
        w.out
            .extend_from_slice(&header.expected_cpu_sampling_rate.to_le_bytes());
        w.out.push(tag::END_OBJECT);
        w
    }

    pub fn pointer_size(&self) -> u8 {
        self.pointer_size
    }

    /// Absolute stream offset of the next byte written.
    pub fn position(&self) -> u64 {
        self.drained + self.out.len() as u64
    }

    pub fn written(&self) -> &Written {
        &self.written
    }

    /// Hands the bytes written so far to `f` and forgets them.
    pub fn drain(&mut self, f: &mut dyn FnMut(&[u8])) {
        if !self.out.is_empty() {
            f(&self.out);
            self.drained += self.out.len() as u64;
            self.written.bytes = self.drained;
            self.out.clear();
        }
    }

    /// Bytes waiting to be drained.
    pub fn pending(&self) -> usize {
        self.out.len()
    }

    /// `Begin Begin NullRef version minReader name End` (the object's envelope and type object).
    fn object_header(&mut self, name: &[u8], version: i32, min_reader: i32) {
        let o = &mut self.out;
        o.extend_from_slice(&[
            tag::BEGIN_PRIVATE_OBJECT,
            tag::BEGIN_PRIVATE_OBJECT,
            tag::NULL_REFERENCE,
        ]);
        o.extend_from_slice(&version.to_le_bytes());
        o.extend_from_slice(&min_reader.to_le_bytes());
        o.extend_from_slice(&(name.len() as i32).to_le_bytes());
        o.extend_from_slice(name);
        o.push(tag::END_OBJECT);
    }

    /// A block object: envelope, `i32 size`, zero padding to a 4-byte absolute offset, content, End.
    fn block_object(&mut self, name: &[u8], content: &[u8]) {
        self.object_header(name, 2, 2);
        self.out
            .extend_from_slice(&(content.len() as i32).to_le_bytes());
        let pad = padding_after(self.position());
        self.out.extend_from_slice(&[0u8; 3][..pad]);
        self.out.extend_from_slice(content);
        self.out.push(tag::END_OBJECT);
        self.written.blocks += 1;
    }

    /// Defines a new metadata id (written at once as a one-record MetadataBlock) and returns it.
    pub fn define(&mut self, def: &EventDef<'_>) -> u32 {
        let id = self.next_metadata;
        self.next_metadata += 1;
        let mut p = Vec::new();
        p.extend_from_slice(&id.to_le_bytes());
        utf16z(&mut p, def.provider);
        p.extend_from_slice(&def.event_id.to_le_bytes());
        utf16z(&mut p, def.name);
        p.extend_from_slice(&def.keywords.to_le_bytes());
        p.extend_from_slice(&def.version.to_le_bytes());
        p.extend_from_slice(&def.level.to_le_bytes());
        p.extend_from_slice(&(def.fields.len() as u32).to_le_bytes());
        for f in def.fields {
            p.extend_from_slice(&f.type_code.to_le_bytes());
            utf16z(&mut p, f.name);
        }
        if let (Flavor::V5, Some(op)) = (self.flavor, def.opcode) {
            p.extend_from_slice(&1u32.to_le_bytes());
            p.push(TAG_OPCODE);
            p.push(op);
        }
        // A metadata record as the runtime writes it: id 0, flag 0x02 with processor 0xFFFFFFFF and
        // sequence delta 0xFFFFFFFF (so the sequence stays 0), absolute timestamp 0.
        let mut b = Vec::with_capacity(p.len() + 40);
        block_header(&mut b, 0, 0);
        b.push(flags::CAPTURE_THREAD_AND_SEQUENCE | flags::DATA_LENGTH);
        varu(&mut b, 0xFFFF_FFFF);
        varu(&mut b, 0);
        varu(&mut b, 0xFFFF_FFFF);
        varu(&mut b, 0);
        varu(&mut b, p.len() as u64);
        b.extend_from_slice(&p);
        self.block_object(b"MetadataBlock", &b);
        self.written.metadata += 1;
        id
    }

    /// The stack id for the caller's stack `key` (interned until the next sequence point); `ips`
    /// are written once per region, in a StackBlock that precedes the events using it.
    pub fn stack(&mut self, key: u64, ips: &[u64]) -> u32 {
        if let Some(&id) = self.stack_ids.get(&key) {
            return id;
        }
        let id = self.next_stack;
        self.next_stack += 1;
        if self.stack_count == 0 {
            self.stack_first = id;
        }
        self.stack_count += 1;
        let size = ips.len() * self.pointer_size as usize;
        self.stack_block
            .extend_from_slice(&(size as u32).to_le_bytes());
        for &ip in ips {
            if self.pointer_size == 8 {
                self.stack_block.extend_from_slice(&ip.to_le_bytes());
            } else {
                self.stack_block
                    .extend_from_slice(&(ip as u32).to_le_bytes());
            }
        }
        self.stack_ids.insert(key, id);
        id
    }

    fn flush_stacks(&mut self) {
        if self.stack_count == 0 {
            return;
        }
        let mut b = Vec::with_capacity(8 + self.stack_block.len());
        b.extend_from_slice(&self.stack_first.to_le_bytes());
        b.extend_from_slice(&self.stack_count.to_le_bytes());
        b.extend_from_slice(&self.stack_block);
        self.block_object(b"StackBlock", &b);
        self.written.stacks += self.stack_count as u64;
        self.stack_block.clear();
        self.stack_count = 0;
    }

    /// Appends one event (compressed header) to the current EventBlock; returns its sequence number.
    pub fn event(&mut self, e: &EventFields, payload: &[u8]) -> u32 {
        let last = self.sequences.entry(e.capture_thread_id).or_insert(0);
        let seq = e.sequence.unwrap_or(last.wrapping_add(1));
        *last = seq;
        let p = self.prev;
        let b = &mut self.block;
        let flag_at = b.len();
        b.push(0);
        let mut f = 0u8;
        if e.metadata_id != p.metadata_id {
            f |= flags::METADATA_ID;
            varu(b, e.metadata_id as u64);
        }
        if seq != p.sequence.wrapping_add(1)
            || e.capture_thread_id != p.capture_thread_id
            || e.processor != p.processor
        {
            f |= flags::CAPTURE_THREAD_AND_SEQUENCE;
            varu(b, seq.wrapping_sub(p.sequence).wrapping_sub(1) as u64);
            varu(b, e.capture_thread_id);
            varu(b, e.processor as u64);
        }
        if e.thread_id != p.thread_id {
            f |= flags::THREAD_ID;
            varu(b, e.thread_id);
        }
        if e.stack_id != p.stack_id {
            f |= flags::STACK_ID;
            varu(b, e.stack_id as u64);
        }
        // Wrapping, like the runtime: a "negative" delta becomes a 10-byte varuint.
        varu(b, (e.timestamp as u64).wrapping_sub(p.timestamp as u64));
        if let Some(a) = e.activity_id {
            f |= flags::ACTIVITY_ID;
            b.extend_from_slice(&a);
        }
        if let Some(a) = e.related_activity_id {
            f |= flags::RELATED_ACTIVITY_ID;
            b.extend_from_slice(&a);
        }
        if e.sorted {
            f |= flags::SORTED;
        }
        if payload.len() as u32 != p.payload_size {
            f |= flags::DATA_LENGTH;
            varu(b, payload.len() as u64);
        }
        b[flag_at] = f;
        b.extend_from_slice(payload);
        self.prev = Prev {
            metadata_id: e.metadata_id,
            sequence: seq,
            capture_thread_id: e.capture_thread_id,
            processor: e.processor,
            thread_id: e.thread_id,
            stack_id: e.stack_id,
            timestamp: e.timestamp,
            payload_size: payload.len() as u32,
        };
        self.block_min = self.block_min.min(e.timestamp);
        self.block_max = self.block_max.max(e.timestamp);
        self.written.events += 1;
        if self.block.len() >= BLOCK_LIMIT {
            self.flush_events();
        }
        seq
    }

    /// Writes the pending StackBlock and EventBlock (stacks first: events refer to them).
    pub fn flush_events(&mut self) {
        self.flush_stacks();
        if self.block.is_empty() {
            return;
        }
        let mut b = Vec::with_capacity(self.block.len() + BLOCK_HEADER as usize);
        block_header(&mut b, self.block_min, self.block_max);
        b.extend_from_slice(&self.block);
        self.block_object(b"EventBlock", &b);
        self.block.clear();
        self.prev = Prev::default();
        self.block_min = i64::MAX;
        self.block_max = i64::MIN;
    }

    /// Writes an SPBlock at `timestamp` with every capture thread's last sequence number. Stack ids
    /// restart at 1 afterwards, as in the runtime.
    pub fn sequence_point(&mut self, timestamp: i64) {
        self.flush_events();
        let mut b = Vec::with_capacity(12 + 12 * self.sequences.len());
        b.extend_from_slice(&timestamp.to_le_bytes());
        b.extend_from_slice(&(self.sequences.len() as u32).to_le_bytes());
        for (&thread, &seq) in &self.sequences {
            b.extend_from_slice(&thread.to_le_bytes());
            b.extend_from_slice(&seq.to_le_bytes());
        }
        self.block_object(b"SPBlock", &b);
        self.written.sequence_points += 1;
        self.stack_ids.clear();
        self.next_stack = 1;
    }

    /// Flushes everything and writes the end-of-stream NullReference tag.
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.flush_events();
        self.out.push(tag::NULL_REFERENCE);
        self.finished = true;
    }
}

/// EventBlock/MetadataBlock header: size 20, flags = compressed, min and max timestamps.
fn block_header(b: &mut Vec<u8>, min: i64, max: i64) {
    b.extend_from_slice(&BLOCK_HEADER.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&min.to_le_bytes());
    b.extend_from_slice(&max.to_le_bytes());
}
