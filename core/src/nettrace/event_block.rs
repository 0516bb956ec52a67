//! EventBlock / MetadataBlock contents (V4+): the block header and the per-event headers, compressed
//! (delta-encoded against the previous event of the same block) or not.

use crate::bytes::Cursor;
use crate::error::{Error, Result};
use alloc::format;

/// The block header's size in the runtime's writer (and the minimum TraceEvent accepts).
pub const MIN_BLOCK_HEADER: usize = 20;
/// Block flag: event headers are compressed.
pub const FLAG_COMPRESSED: u16 = 1;

/// Compressed event-header flag bits.
pub mod flags {
    pub const METADATA_ID: u8 = 1 << 0;
    pub const CAPTURE_THREAD_AND_SEQUENCE: u8 = 1 << 1;
    pub const THREAD_ID: u8 = 1 << 2;
    pub const STACK_ID: u8 = 1 << 3;
    /// V4/V5: ActivityId follows; V6: LabelListId follows.
    pub const ACTIVITY_ID: u8 = 1 << 4;
    /// V4/V5 only.
    pub const RELATED_ACTIVITY_ID: u8 = 1 << 5;
    pub const SORTED: u8 = 1 << 6;
    pub const DATA_LENGTH: u8 = 1 << 7;
}

/// Uncompressed header: bit 31 of the metadata id set means the event is NOT sorted.
const UNSORTED_BIT: u32 = 1 << 31;

/// Header of an EventBlock or MetadataBlock: returns (compressed, offset of the first event).
pub fn read_block_header(c: &mut Cursor<'_>) -> Result<bool> {
    let at = c.offset();
    let header_size = c.u16("block header size")? as usize;
    if header_size < MIN_BLOCK_HEADER {
        return Err(Error::malformed(
            at,
            format!("block header size {header_size} is below the minimum of {MIN_BLOCK_HEADER}"),
        ));
    }
    let flags = c.u16("block flags")?;
    // Min/max timestamps and any future header growth are not needed: skip to HeaderSize.
    c.skip(header_size - 4, "block header")?;
    Ok(flags & FLAG_COMPRESSED != 0)
}

/// One event header. In compressed blocks this also serves as the "previous header" state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventHeader {
    pub metadata_id: u32,
    pub sequence: u32,
    pub thread_id: u64,
    pub capture_thread_id: u64,
    pub processor: u32,
    pub stack_id: u32,
    pub timestamp: i64,
    /// V6: label list id (V4/V5 activity ids are skipped, not kept).
    pub label_list: u32,
    pub sorted: bool,
    pub payload_size: u32,
}

/// Which event-header dialect a block uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    V4,
    V6,
}

impl EventHeader {
    /// Decodes a compressed header in place: fields not present keep the previous event's values.
    /// Deltas wrap (the writer subtracts in unsigned arithmetic, and blocks mix threads).
    #[inline]
    pub fn read_compressed(&mut self, c: &mut Cursor<'_>, dialect: Dialect) -> Result<()> {
        let f = c.u8("event header flags")?;
        if f & flags::METADATA_ID != 0 {
            self.metadata_id = c.varu32("metadata id")?;
        }
        if f & flags::CAPTURE_THREAD_AND_SEQUENCE != 0 {
            self.sequence = self
                .sequence
                .wrapping_add(c.varu32("sequence number delta")?.wrapping_add(1));
            self.capture_thread_id = c.varu64("capture thread id")?;
            self.processor = c.varu32("processor number")?;
        } else if self.metadata_id != 0 {
            self.sequence = self.sequence.wrapping_add(1);
        }
        if f & flags::THREAD_ID != 0 {
            self.thread_id = c.varu64("thread id")?;
        }
        if f & flags::STACK_ID != 0 {
            self.stack_id = c.varu32("stack id")?;
        }
        self.timestamp = self
            .timestamp
            .wrapping_add(c.varu64("timestamp delta")? as i64);
        match dialect {
            Dialect::V4 => {
                if f & flags::ACTIVITY_ID != 0 {
                    c.skip(16, "activity id")?;
                }
                if f & flags::RELATED_ACTIVITY_ID != 0 {
                    c.skip(16, "related activity id")?;
                }
            }
            Dialect::V6 => {
                if f & flags::ACTIVITY_ID != 0 {
                    self.label_list = c.varu32("label list id")?;
                }
            }
        }
        self.sorted = f & flags::SORTED != 0;
        if f & flags::DATA_LENGTH != 0 {
            self.payload_size = c.varu32("payload size")?;
        }
        Ok(())
    }

    /// Decodes an uncompressed header; returns the stream offset where the event's padded size ends
    /// (the start of the next event). The payload follows the header.
    pub fn read_uncompressed(&mut self, c: &mut Cursor<'_>, dialect: Dialect) -> Result<usize> {
        let start = c.pos();
        let at = c.offset();
        let size = c.u32("event size")? as usize;
        if size > c.remaining() {
            return Err(Error::truncated(at, "event"));
        }
        let end = start + 4 + size;
        let id = c.u32("metadata id")?;
        self.metadata_id = id & !UNSORTED_BIT;
        self.sorted = id & UNSORTED_BIT == 0;
        self.sequence = c.u32("sequence number")?;
        self.thread_id = c.u64("thread id")?;
        self.capture_thread_id = c.u64("capture thread id")?;
        self.processor = c.u32("processor number")?;
        self.stack_id = c.u32("stack id")?;
        self.timestamp = c.i64("timestamp")?;
        match dialect {
            Dialect::V4 => c.skip(32, "activity ids")?,
            Dialect::V6 => self.label_list = c.u32("label list id")?,
        }
        self.payload_size = c.u32("payload size")?;
        if self.payload_size as usize > end.saturating_sub(c.pos()) {
            return Err(Error::malformed(
                at,
                format!(
                    "payload of {} bytes does not fit in event of {size} bytes",
                    self.payload_size
                ),
            ));
        }
        Ok(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varu(mut v: u64, out: &mut alloc::vec::Vec<u8>) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    #[test]
    fn compressed_headers_carry_state_and_wrap() {
        let mut b = alloc::vec::Vec::new();
        // Event 1: metadata id 7, capture thread 0x1234 seq delta 4 (-> 5), proc 2, thread 0x1234, stack 3,
        // timestamp 1000, payload 2 bytes.
        b.push(
            flags::METADATA_ID
                | flags::CAPTURE_THREAD_AND_SEQUENCE
                | flags::THREAD_ID
                | flags::STACK_ID
                | flags::DATA_LENGTH,
        );
        for v in [7u64, 4, 0x1234, 2, 0x1234, 3, 1000, 2] {
            varu(v, &mut b);
        }
        // Event 2: only the timestamp delta, "negative" (-10), written as a 10-byte varuint.
        b.push(0);
        varu((-10i64) as u64, &mut b);
        // Event 3: capture thread change with a wrapping sequence delta (0xFFFFFFFE + 1 = -1 => 6 - 1 = 5),
        // activity id present (skipped), sorted.
        b.push(flags::CAPTURE_THREAD_AND_SEQUENCE | flags::ACTIVITY_ID | flags::SORTED);
        for v in [0xFFFF_FFFEu64, 0x99, 0xFFFF_FFFF] {
            varu(v, &mut b);
        }
        varu(5, &mut b);
        b.extend_from_slice(&[0xab; 16]);

        let mut c = Cursor::new(&b, 0);
        let mut h = EventHeader::default();
        h.read_compressed(&mut c, Dialect::V4).unwrap();
        assert_eq!(
            (h.metadata_id, h.sequence, h.capture_thread_id, h.processor),
            (7, 5, 0x1234, 2)
        );
        assert_eq!(
            (h.thread_id, h.stack_id, h.timestamp, h.payload_size),
            (0x1234, 3, 1000, 2)
        );
        h.read_compressed(&mut c, Dialect::V4).unwrap();
        assert_eq!(h.sequence, 6, "implicit +1 for a non-metadata event");
        assert_eq!(h.timestamp, 990);
        assert!(!h.sorted);
        h.read_compressed(&mut c, Dialect::V4).unwrap();
        assert_eq!(
            (h.sequence, h.capture_thread_id, h.processor),
            (5, 0x99, u32::MAX)
        );
        assert_eq!(h.timestamp, 995);
        assert!(h.sorted);
        assert!(c.is_empty());
    }

    #[test]
    fn metadata_records_keep_sequence_zero() {
        // As the runtime writes metadata: flag 0x02 with delta 0xFFFFFFFF and processor 0xFFFFFFFF.
        let mut b = alloc::vec![flags::CAPTURE_THREAD_AND_SEQUENCE | flags::DATA_LENGTH];
        for v in [0xFFFF_FFFFu64, 0x42, 0xFFFF_FFFF, 77, 0] {
            varu(v, &mut b);
        }
        let mut h = EventHeader::default();
        h.read_compressed(&mut Cursor::new(&b, 0), Dialect::V4)
            .unwrap();
        assert_eq!(
            (h.metadata_id, h.sequence, h.processor, h.timestamp),
            (0, 0, u32::MAX, 77)
        );
    }

    #[test]
    fn uncompressed_unsorted_bit_is_inverted() {
        let mut b = alloc::vec::Vec::new();
        b.extend_from_slice(&(80u32 - 4 + 4).to_le_bytes()); // size: header 76 after the size field + 4 payload
        b.extend_from_slice(&(5u32 | UNSORTED_BIT).to_le_bytes());
        b.extend_from_slice(&9u32.to_le_bytes());
        b.extend_from_slice(&1u64.to_le_bytes());
        b.extend_from_slice(&2u64.to_le_bytes());
        b.extend_from_slice(&3u32.to_le_bytes());
        b.extend_from_slice(&4u32.to_le_bytes());
        b.extend_from_slice(&100i64.to_le_bytes());
        b.extend_from_slice(&[0; 32]);
        b.extend_from_slice(&4u32.to_le_bytes());
        b.extend_from_slice(&[1, 2, 3, 4]);
        let mut h = EventHeader::default();
        let end = h
            .read_uncompressed(&mut Cursor::new(&b, 0), Dialect::V4)
            .unwrap();
        assert_eq!(end, b.len());
        assert_eq!(
            (
                h.metadata_id,
                h.sorted,
                h.sequence,
                h.timestamp,
                h.payload_size
            ),
            (5, false, 9, 100, 4)
        );
    }
}
