//! The record headers of an .etl buffer (docs/reference/formats.md, "Record headers"). Byte 2 of
//! every record names its header type (byte 3 holds marker flags); the types come in pairs whose
//! two members differ in the pointer size of the payload (a 32-bit process traced by a 64-bit
//! logger writes the 32-bit member):
//!
//! | types | header | size field | identifies the event by |
//! |---|---|---|---|
//! | 0x01/0x02 SYSTEM | 32 bytes | u16 at 4 | HookId (kernel group << 8 \| opcode) |
//! | 0x03/0x04 COMPACT | 24 | u16 at 4 | HookId |
//! | 0x10/0x11 PERFINFO | 16 | u16 at 4 | HookId (no process or thread id) |
//! | 0x0A/0x14 FULL (EVENT_TRACE_HEADER) | 48 | u16 at 0 | class GUID + opcode |
//! | 0x0B/0x15 INSTANCE | 72 | u16 at 0 | registration handle (not resolvable: counted only) |
//! | 0x12/0x13 EVENT_HEADER | 80 + extended items | u16 at 0 | provider GUID + event id |
//!
//! Records are 8-byte aligned; a record's size covers its header and payload, not the padding.

use super::guid::Guid;

/// EVENT_HEADER flag: extended data items follow the 80-byte header.
const FLAG_EXTENDED_INFO: u16 = 0x0001;

/// What identifies a record's event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A manifest/EventSource event: provider GUID and EVENT_DESCRIPTOR id.
    Provider { guid: Guid, id: u16, opcode: u8 },
    /// A classic (MOF) event: event class GUID and opcode (the class's "type").
    Class { guid: Guid, opcode: u8 },
    /// A kernel event of the system logger: HookId = group << 8 | opcode.
    Kernel { hook: u16 },
    /// An instance record: its class is a registration handle only the writer knew.
    Instance,
}

/// One record's header, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub source: Source,
    pub version: u8,
    pub thread_id: u32,
    /// u32::MAX where the header has none (PERFINFO).
    pub process_id: u32,
    pub timestamp: i64,
    /// 4 or 8: the size of pointers in the payload.
    pub pointer_size: u8,
    /// Payload position and length within the buffer's record bytes.
    pub payload_start: usize,
    pub payload_len: usize,
    /// The record's size as written (header and payload, without the padding to 8).
    pub size: usize,
    /// An EVENT_HEADER's stack trace extended item (EVENT_HEADER_EXT_TYPE_STACK_TRACE32 or 64):
    /// where its addresses lie in the buffer's record bytes (after the item's u64 MatchId), and
    /// their size (4 or 8); None without one.
    pub stack: Option<StackItem>,
}

/// A record's stack trace extended item: `len` bytes of `pointer_size`-byte addresses, leaf first,
/// at `start` of the buffer's record bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackItem {
    pub start: usize,
    pub len: usize,
    pub pointer_size: u8,
}

/// EVENT_HEADER_EXT_TYPE_STACK_TRACE32 and 64: a u64 MatchId, then the addresses.
const EXT_STACK_TRACE32: u16 = 5;
const EXT_STACK_TRACE64: u16 = 6;

/// Why a record could not be read: the decoder skips the rest of its buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordError {
    pub what: &'static str,
}

fn err(what: &'static str) -> RecordError {
    RecordError { what }
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}
fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}
fn i64_at(b: &[u8], i: usize) -> i64 {
    let mut v = [0u8; 8];
    v.copy_from_slice(&b[i..i + 8]);
    i64::from_le_bytes(v)
}

/// Reads the record starting at `pos` of `records` (a buffer's record bytes, header excluded).
/// The record must lie wholly inside `records`.
pub fn parse(records: &[u8], pos: usize) -> Result<Record, RecordError> {
    let b = records
        .get(pos..)
        .ok_or(err("record position past the buffer"))?;
    if b.len() < 4 {
        return Err(err("record header cut short by the buffer's end"));
    }
    let kind = b[2];
    let (header_len, size_at) = match kind {
        0x01 | 0x02 => (32, 4),
        0x03 | 0x04 => (24, 4),
        0x10 | 0x11 => (16, 4),
        0x0a | 0x14 => (48, 0),
        0x0b | 0x15 => (72, 0),
        0x12 | 0x13 => (80, 0),
        _ => return Err(err("unknown record header type")),
    };
    if b.len() < header_len.max(size_at + 2) {
        return Err(err("record header cut short by the buffer's end"));
    }
    let size = u16_at(b, size_at) as usize;
    if size < header_len {
        return Err(err("record size smaller than its header"));
    }
    if size > b.len() {
        return Err(err("record runs past the buffer's records"));
    }
    let pointer_size = match kind {
        0x01 | 0x03 | 0x10 | 0x0a | 0x0b | 0x12 => 4,
        _ => 8,
    };
    let mut r = Record {
        source: Source::Instance,
        version: 0,
        thread_id: 0,
        process_id: u32::MAX,
        timestamp: 0,
        pointer_size,
        payload_start: pos + header_len,
        payload_len: size - header_len,
        size,
        stack: None,
    };
    match kind {
        0x01..=0x04 | 0x10 | 0x11 => {
            r.version = u16_at(b, 0) as u8;
            r.source = Source::Kernel { hook: u16_at(b, 6) };
            if kind >= 0x10 {
                r.timestamp = i64_at(b, 8);
            } else {
                r.thread_id = u32_at(b, 8);
                r.process_id = u32_at(b, 12);
                r.timestamp = i64_at(b, 16);
            }
        }
        0x0a | 0x14 | 0x0b | 0x15 => {
            // EVENT_TRACE_HEADER / EVENT_INSTANCE_HEADER: Class {Type, Level, Version u16} at 4.
            r.version = u16_at(b, 6) as u8;
            r.thread_id = u32_at(b, 8);
            r.process_id = u32_at(b, 12);
            r.timestamp = i64_at(b, 16);
            if kind == 0x0a || kind == 0x14 {
                r.source = Source::Class {
                    guid: Guid::read(&b[24..40]),
                    opcode: b[4],
                };
            }
        }
        _ => {
            // EVENT_HEADER: Flags at 4, ids at 8, timestamp at 16, ProviderId at 24,
            // EVENT_DESCRIPTOR {Id u16, Version u8, Channel, Level, Opcode, Task u16, Keyword} at 40.
            let flags = u16_at(b, 4);
            r.thread_id = u32_at(b, 8);
            r.process_id = u32_at(b, 12);
            r.timestamp = i64_at(b, 16);
            r.version = b[42];
            r.source = Source::Provider {
                guid: Guid::read(&b[24..40]),
                id: u16_at(b, 40),
                opcode: b[45],
            };
            if flags & FLAG_EXTENDED_INFO != 0 {
                let (items, stack) = extended_items_len(&b[80..size])?;
                r.stack = stack.map(|(at, len, pointer_size)| StackItem {
                    start: pos + 80 + at,
                    len,
                    pointer_size,
                });
                r.payload_start += items;
                r.payload_len -= items;
            }
        }
    }
    Ok(r)
}

/// Bytes taken by the extended data items at the start of `after_header` (the record's bytes after
/// its 80-byte header): each is u16 ItemSize, u16 ExtType, u16 Linkage (bit 0: another follows),
/// u16 DataSize, then DataSize bytes padded to 8. Also returns the first stack trace item's
/// addresses (their offset in `after_header`, length and pointer size), where one has whole ones.
#[allow(clippy::type_complexity)]
fn extended_items_len(
    after_header: &[u8],
) -> Result<(usize, Option<(usize, usize, u8)>), RecordError> {
    let mut at = 0usize;
    let mut stack = None;
    loop {
        let h = after_header
            .get(at..at + 8)
            .ok_or(err("extended data item runs past its record"))?;
        let kind = u16_at(h, 2);
        let linkage = u16_at(h, 4);
        let data = u16_at(h, 6) as usize;
        let len = (8 + data + 7) & !7;
        if at + 8 + data <= after_header.len() && stack.is_none() {
            let ptr = match kind {
                EXT_STACK_TRACE32 => 4,
                EXT_STACK_TRACE64 => 8,
                _ => 0,
            };
            if ptr != 0 && data >= 8 && (data - 8).is_multiple_of(ptr) {
                stack = Some((at + 16, data - 8, ptr as u8));
            }
        }
        if at + len > after_header.len() {
            // The last item's padding may be cut by the record's end; its data may not.
            if at + 8 + data > after_header.len() {
                return Err(err("extended data item runs past its record"));
            }
            return Ok((after_header.len(), stack));
        }
        at += len;
        if linkage & 1 == 0 {
            return Ok((at, stack));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn sizes_and_errors() {
        // A SYSTEM record of 40 bytes (32 header + 8 payload).
        let mut r = vec![0u8; 40];
        r[2] = 0x02;
        r[3] = 0xc0;
        r[4] = 40;
        r[6] = 0x01;
        r[7] = 0x03; // Process/Start
        let rec = parse(&r, 0).unwrap();
        assert_eq!(rec.source, Source::Kernel { hook: 0x0301 });
        assert_eq!(
            (rec.payload_start, rec.payload_len, rec.pointer_size),
            (32, 8, 8)
        );
        r[4] = 41;
        assert!(parse(&r, 0).is_err());
        r[4] = 8;
        assert!(parse(&r, 0).is_err());
        r[2] = 0x7f;
        assert_eq!(parse(&r, 0).unwrap_err().what, "unknown record header type");
        assert!(parse(&r, 100).is_err());
    }

    #[test]
    fn extended_items_are_skipped() {
        // EVENT_HEADER (80) + one item of 4 data bytes (8 + 4 padded to 16) + 6 bytes of payload.
        let mut r = vec![0u8; 80 + 16 + 6];
        r[0] = r.len() as u8;
        r[2] = 0x13;
        r[3] = 0xc0;
        r[4] = 1; // extended info
        r[80 + 6] = 4;
        let rec = parse(&r, 0).unwrap();
        assert_eq!((rec.payload_start, rec.payload_len), (96, 6));
        // Linkage says another item follows, but the record ends.
        r[80 + 4] = 1;
        assert!(parse(&r, 0).is_err());
    }
}
