//! NetTrace V6 (one-collect / `dotnet-trace collect-linux`): no FastSerialization framing, blocks are
//! `u32 (kind << 24 | size)` + content; thread ids in event headers are indices into a thread table
//! (Thread / RemoveThread blocks) and per-event facts such as the event version may come from label
//! lists (LabelList blocks), which live until the next sequence point. Below the tables, the
//! [`Decoder`](super::Decoder)'s side: V6 blocks and metadata rows.

use super::event_block::Dialect;
use super::sequence_point::SequenceTracker;
use super::{metadata, stack, trace, Stage, Step};
use crate::bytes::Cursor;
use crate::error::{Error, Result};
use crate::sink::{DecodeStats, Sink};
use alloc::collections::BTreeMap;
use alloc::format;

/// Stream header: "Nettrace", u32 0, u32 major, u32 minor.
pub const HEADER_LEN: usize = 20;
pub const MAJOR_VERSION: u32 = 6;

/// Block kinds.
pub mod kind {
    pub const END_OF_STREAM: u8 = 0;
    pub const TRACE: u8 = 1;
    pub const EVENT: u8 = 2;
    pub const METADATA: u8 = 3;
    pub const SEQUENCE_POINT: u8 = 4;
    pub const STACK: u8 = 5;
    pub const THREAD: u8 = 6;
    pub const REMOVE_THREAD: u8 = 7;
    pub const LABEL_LIST: u8 = 8;
}

/// SequencePoint flags.
const SP_FLUSH_THREADS: u32 = 1;
const SP_FLUSH_METADATA: u32 = 2;

/// Label kinds (low 7 bits; bit 7 marks the last label of a list).
mod label {
    pub const LAST: u8 = 0x80;
    pub const ACTIVITY_ID: u8 = 1;
    pub const RELATED_ACTIVITY_ID: u8 = 2;
    pub const TRACE_ID: u8 = 3;
    pub const SPAN_ID: u8 = 4;
    pub const KEY_STRING: u8 = 5;
    pub const KEY_VARINT: u8 = 6;
    pub const OPCODE: u8 = 7;
    pub const KEYWORDS: u8 = 8;
    pub const LEVEL: u8 = 9;
    pub const VERSION: u8 = 10;
}

/// Thread table and label lists.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct V6State {
    /// thread index -> OS thread id.
    threads: BTreeMap<u64, u64>,
    /// label list id -> event version override, for the lists that carry a Version label.
    versions: BTreeMap<u32, u8>,
    /// Bumped by every block that may change the tables (equal counts, equal tables).
    #[serde(skip)]
    changes: u64,
}

/// Equal tables (however many blocks changed them).
impl PartialEq for V6State {
    fn eq(&self, o: &Self) -> bool {
        self.threads == o.threads && self.versions == o.versions
    }
}

impl V6State {
    /// Appends the tables' bytes (see [`crate::parts::wire`]).
    pub fn encode(&self, out: &mut alloc::vec::Vec<u8>) {
        out.extend_from_slice(&(self.threads.len() as u32).to_le_bytes());
        for (i, t) in &self.threads {
            out.extend_from_slice(&i.to_le_bytes());
            out.extend_from_slice(&t.to_le_bytes());
        }
        out.extend_from_slice(&(self.versions.len() as u32).to_le_bytes());
        for (l, v) in &self.versions {
            out.extend_from_slice(&l.to_le_bytes());
            out.push(*v);
        }
    }

    /// Reads what [`encode`](Self::encode) wrote.
    pub fn decode(c: &mut Cursor<'_>) -> Result<V6State> {
        let mut s = V6State::default();
        for _ in 0..c.u32("threads")? {
            let i = c.u64("thread index")?;
            s.threads.insert(i, c.u64("thread id")?);
        }
        for _ in 0..c.u32("label lists")? {
            let l = c.u32("label list")?;
            s.versions.insert(l, c.u8("version")?);
        }
        Ok(s)
    }

    /// Blocks that may have changed the tables so far (see [`crate::parts`]).
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// OS thread id for a thread index (the index itself if the table has no entry: better than 0).
    #[inline]
    pub fn os_thread(&self, index: u64) -> u64 {
        self.threads.get(&index).copied().unwrap_or(index)
    }

    #[inline]
    pub fn version_override(&self, label_list: u32) -> Option<u8> {
        if label_list == 0 || self.versions.is_empty() {
            return None;
        }
        self.versions.get(&label_list).copied()
    }

    /// Thread block: rows `{u16 size, varu64 index, items until size}`; item 3 is the OS thread id.
    pub fn read_thread_block(&mut self, c: &mut Cursor<'_>) -> Result<()> {
        self.changes += 1;
        while !c.is_empty() {
            let size = c.u16("thread row size")? as usize;
            let mut r = Cursor::new(c.bytes(size, "thread row")?, c.offset() - size as u64);
            let at = r.offset();
            let index = r.varu64("thread index")?;
            let mut os_thread = None;
            while !r.is_empty() {
                let item_at = r.offset();
                match r.u8("thread item kind")? {
                    1 => {
                        r.var_utf8("thread name")?;
                    }
                    2 => {
                        r.varu64("process id")?;
                    }
                    3 => os_thread = Some(r.varu64("thread id")?),
                    4 => {
                        r.var_utf8("key")?;
                        r.var_utf8("value")?;
                    }
                    k => {
                        return Err(Error::malformed(
                            item_at,
                            format!("unknown thread item kind {k}"),
                        ))
                    }
                }
            }
            if self
                .threads
                .insert(index, os_thread.unwrap_or(index))
                .is_some()
            {
                return Err(Error::malformed(
                    at,
                    format!("thread index {index} defined twice"),
                ));
            }
        }
        Ok(())
    }

    /// RemoveThread block: `{varu64 index, varu32 final sequence number}` pairs.
    pub fn read_remove_thread_block(
        &mut self,
        c: &mut Cursor<'_>,
        seq: &mut SequenceTracker,
    ) -> Result<()> {
        self.changes += 1;
        while !c.is_empty() {
            let index = c.varu64("thread index")?;
            let n = c.varu32("sequence number")?;
            seq.checkpoint(index, n);
            seq.remove(index);
            self.threads.remove(&index);
        }
        Ok(())
    }

    /// LabelList block: `u32 first index, u32 count`, then count lists of labels.
    pub fn read_label_list_block(&mut self, c: &mut Cursor<'_>) -> Result<()> {
        self.changes += 1;
        let at = c.offset();
        let first = c.u32("first label list index")?;
        if first == 0 {
            return Err(Error::malformed(
                at,
                "label list index 0 is reserved for the empty list",
            ));
        }
        let count = c.u32("label list count")?;
        for i in 0..count {
            let id = first.wrapping_add(i);
            loop {
                let at = c.offset();
                let k = c.u8("label kind")?;
                match k & !label::LAST {
                    label::ACTIVITY_ID | label::RELATED_ACTIVITY_ID | label::TRACE_ID => {
                        c.skip(16, "label guid")?
                    }
                    label::SPAN_ID | label::KEYWORDS => c.skip(8, "label value")?,
                    label::KEY_STRING => {
                        c.var_utf8("label key")?;
                        c.var_utf8("label value")?;
                    }
                    label::KEY_VARINT => {
                        c.var_utf8("label key")?;
                        c.vari64("label value")?;
                    }
                    label::OPCODE | label::LEVEL => c.skip(1, "label value")?,
                    label::VERSION => {
                        let v = c.u8("version label")?;
                        self.versions.insert(id, v);
                    }
                    other => {
                        return Err(Error::malformed(at, format!("unknown label kind {other}")))
                    }
                }
                if k & label::LAST != 0 {
                    break;
                }
            }
        }
        Ok(())
    }

    /// SequencePoint block: `i64 timestamp, u32 flags, u32 count, {varu64 thread index, varu32 seq}*`.
    /// Returns whether the metadata cache must be flushed. Label lists always die here; the thread table
    /// dies when flag 1 is set (after the sequence numbers are checked).
    pub fn read_sequence_point(
        &mut self,
        c: &mut Cursor<'_>,
        seq: &mut SequenceTracker,
    ) -> Result<bool> {
        self.changes += 1;
        let _ts = c.i64("sequence point timestamp")?;
        let flags = c.u32("sequence point flags")?;
        let count = c.u32("sequence point thread count")?;
        for _ in 0..count {
            let index = c.varu64("thread index")?;
            let n = c.varu32("sequence number")?;
            seq.checkpoint(index, n);
        }
        self.versions.clear();
        if flags & SP_FLUSH_THREADS != 0 {
            self.threads.clear();
            seq.clear();
        }
        Ok(flags & SP_FLUSH_METADATA != 0)
    }
}

impl super::Decoder {
    pub(super) fn step_v6_block(
        &mut self,
        buf: &[u8],
        base: u64,
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<Step> {
        if buf.len() < 4 {
            return Ok(Step::NeedMore(4));
        }
        let word = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]);
        let kind = (word >> 24) as u8;
        let size = (word & 0x00ff_ffff) as usize;
        self.current = match kind {
            self::kind::TRACE => "TraceBlock",
            self::kind::EVENT => "EventBlock",
            self::kind::METADATA => "MetadataBlock",
            self::kind::SEQUENCE_POINT => "SequencePointBlock",
            self::kind::STACK => "StackBlock",
            self::kind::THREAD => "ThreadBlock",
            self::kind::REMOVE_THREAD => "RemoveThreadBlock",
            self::kind::LABEL_LIST => "LabelListBlock",
            _ => "block",
        };
        if buf.len() < 4 + size {
            return Ok(Step::NeedMore(4 + size));
        }
        let mut c = Cursor::new(&buf[4..4 + size], base + 4);
        if kind == self::kind::END_OF_STREAM {
            self.stage = Stage::End;
            return Ok(Step::Consumed(4 + size));
        }
        if self.info.is_none() && kind != self::kind::TRACE {
            return Err(Error::malformed(
                base,
                "the first V6 block must be the TraceBlock",
            ));
        }
        stats.blocks += 1;
        match kind {
            self::kind::TRACE => {
                if self.info.is_some() {
                    return Err(Error::malformed(base, "a second TraceBlock"));
                }
                let info = trace::read_trace_block_v6(&mut c)?;
                self.pointer_size = info.pointer_size;
                self.info = Some(info);
            }
            self::kind::EVENT => self.read_event_block(&mut c, Dialect::V6, stats, sink)?,
            self::kind::METADATA => self.read_metadata_block_v6(&mut c, stats)?,
            self::kind::SEQUENCE_POINT => {
                self.flush(stats, sink);
                if let Some(t) = &mut self.stacks {
                    t.begin_region();
                }
                stats.sequence_points += 1;
                if self.v6.read_sequence_point(&mut c, &mut self.seq)? {
                    self.meta.clear_ids();
                }
            }
            self::kind::STACK => {
                stats.stacks +=
                    stack::read_stack_block(&mut c, self.pointer_size, self.stacks.as_mut())? as u64
            }
            self::kind::THREAD => self.v6.read_thread_block(&mut c)?,
            self::kind::REMOVE_THREAD => self.v6.read_remove_thread_block(&mut c, &mut self.seq)?,
            self::kind::LABEL_LIST => self.v6.read_label_list_block(&mut c)?,
            // Unknown kinds are skipped (forward compatibility).
            _ => {}
        }
        Ok(Step::Consumed(4 + size))
    }

    /// V6 MetadataBlock: `u16 header size` (excluding itself) + header, then `{u16 row size, row}`*.
    pub(super) fn read_metadata_block_v6(
        &mut self,
        c: &mut Cursor<'_>,
        stats: &mut DecodeStats,
    ) -> Result<()> {
        let header = c.u16("metadata block header size")? as usize;
        c.skip(header, "metadata block header")?;
        while !c.is_empty() {
            let size = c.u16("metadata row size")? as usize;
            let at = c.offset();
            let row = c.bytes(size, "metadata row")?;
            let defined = metadata::parse_v6_row(&mut self.meta, row, at)?;
            self.define(defined, at, true, stats)?;
        }
        Ok(())
    }
}
