//! FastSerialization framing (V1-V5): the stream header and the object envelope
//! `Begin <type object> body End`, where the type object is `Begin NullRef version minReader name End`.

use crate::bytes::Cursor;
use crate::error::{Error, Result};
use alloc::format;

/// FastSerialization tags that occur in EventPipe streams.
pub mod tag {
    pub const NULL_REFERENCE: u8 = 1;
    pub const BEGIN_OBJECT: u8 = 4;
    pub const BEGIN_PRIVATE_OBJECT: u8 = 5;
    pub const END_OBJECT: u8 = 6;
}

/// Length of the stream header `u32 20` + `!FastSerialization.1`.
pub const STREAM_HEADER_LEN: usize = 24;
/// Type names are short ("MetadataBlock"); anything longer is garbage, not a reason to buffer.
const MAX_TYPE_NAME: usize = 256;

/// The object kinds EventPipe writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    Trace,
    EventBlock,
    MetadataBlock,
    StackBlock,
    SequencePointBlock,
    /// A type we do not know; it is skipped if it is block-shaped.
    Other,
}

impl ObjectKind {
    fn from_name(name: &[u8]) -> ObjectKind {
        match name {
            b"Trace" | b"Microsoft.DotNet.Runtime.EventPipeFile" => ObjectKind::Trace,
            b"EventBlock" => ObjectKind::EventBlock,
            b"MetadataBlock" => ObjectKind::MetadataBlock,
            b"StackBlock" => ObjectKind::StackBlock,
            b"SPBlock" => ObjectKind::SequencePointBlock,
            _ => ObjectKind::Other,
        }
    }
}

/// An object's envelope, parsed up to the start of its body.
#[derive(Debug, Clone, Copy)]
pub struct ObjectHeader {
    pub kind: ObjectKind,
    pub version: i32,
    pub min_reader_version: i32,
    /// Bytes from the object's first tag to its body.
    pub header_len: usize,
}

/// Result of looking at the next object without consuming it.
pub enum Peek<T> {
    Ready(T),
    /// At least this many bytes (from the object's start) are needed to go on.
    NeedMore(usize),
}

/// Checks the stream header `u32 20 "!FastSerialization.1"` at the start of `c`.
pub fn read_stream_header(c: &mut Cursor<'_>) -> Result<()> {
    let at = c.offset();
    let b = c.bytes(STREAM_HEADER_LEN, "stream header")?;
    if b != crate::container::FAST_SERIALIZATION {
        return Err(Error::malformed(
            at,
            "expected the '!FastSerialization.1' stream header",
        ));
    }
    Ok(())
}

/// Parses an object envelope at the start of `buf` (whose first byte is at stream offset `base`).
pub fn peek_object_header(buf: &[u8], base: u64) -> Result<Peek<ObjectHeader>> {
    const FIXED: usize = 15; // Begin, Begin, NullRef, version, minReader, name length
    if buf.len() < FIXED {
        return Ok(Peek::NeedMore(FIXED));
    }
    let mut c = Cursor::new(buf, base);
    let begin = c.u8("object tag")?;
    if begin != tag::BEGIN_PRIVATE_OBJECT && begin != tag::BEGIN_OBJECT {
        return Err(Error::malformed(
            base,
            format!("expected an object begin tag (4 or 5), found {begin}"),
        ));
    }
    let type_begin = c.u8("type tag")?;
    if type_begin != tag::BEGIN_PRIVATE_OBJECT && type_begin != tag::BEGIN_OBJECT {
        return Err(Error::malformed(
            base + 1,
            format!("expected a type begin tag (4 or 5), found {type_begin}"),
        ));
    }
    let null = c.u8("type of type")?;
    if null != tag::NULL_REFERENCE {
        return Err(Error::malformed(
            base + 2,
            format!("expected NullReference (1) as the type's type, found {null}"),
        ));
    }
    let version = c.i32("type version")?;
    let min_reader_version = c.i32("type minimum reader version")?;
    let name_at = c.offset();
    let name_len = c.i32("type name length")?;
    if !(0..=MAX_TYPE_NAME as i32).contains(&name_len) {
        return Err(Error::malformed(
            name_at,
            format!("implausible type name length {name_len}"),
        ));
    }
    let header_len = FIXED + name_len as usize + 1;
    if buf.len() < header_len {
        return Ok(Peek::NeedMore(header_len));
    }
    let name = c.bytes(name_len as usize, "type name")?;
    let end = c.u8("type end tag")?;
    if end != tag::END_OBJECT {
        return Err(Error::malformed(
            c.offset() - 1,
            format!("expected EndObject (6) after the type name, found {end}"),
        ));
    }
    Ok(Peek::Ready(ObjectHeader {
        kind: ObjectKind::from_name(name),
        version,
        min_reader_version,
        header_len,
    }))
}

/// Zero bytes that follow a block's size field so that the block content starts 4-byte aligned in the stream.
#[inline]
pub fn padding_after(absolute_offset: u64) -> usize {
    ((4 - (absolute_offset & 3)) & 3) as usize
}

/// A block object's body: `i32 size`, padding to a 4-byte stream offset, `size` bytes, then EndObject.
/// `body` starts at the size field (stream offset `base`). Returns (content start, content length, total
/// body length including the end tag), or how many body bytes are needed.
pub fn peek_block_body(body: &[u8], base: u64) -> Result<Peek<(usize, usize, usize)>> {
    let (start, size, total) = match peek_block_size(body, base)? {
        Peek::Ready(r) => r,
        Peek::NeedMore(n) => return Ok(Peek::NeedMore(n)),
    };
    if body.len() < total {
        return Ok(Peek::NeedMore(total));
    }
    let end = body[total - 1];
    if end != tag::END_OBJECT {
        return Err(Error::malformed(
            base + total as u64 - 1,
            format!("expected EndObject (6) after the block, found {end}"),
        ));
    }
    Ok(Peek::Ready((start, size, total)))
}

/// [`peek_block_body`] from the size field alone (4 bytes): where the block's content is and
/// where the block ends, without reading (or checking) its end tag. For the boundary pass
/// ([`crate::parts`]), which steps over blocks without reading them; whoever reads the block must
/// check its last byte is EndObject.
pub fn peek_block_size(body: &[u8], base: u64) -> Result<Peek<(usize, usize, usize)>> {
    let Some(&[a, b, c, d]) = body.get(..4) else {
        return Ok(Peek::NeedMore(4));
    };
    let size = i32::from_le_bytes([a, b, c, d]);
    if size < 0 {
        return Err(Error::malformed(
            base,
            format!("negative block size {size}"),
        ));
    }
    let start = 4 + padding_after(base + 4);
    Ok(Peek::Ready((
        start,
        size as usize,
        start + size as usize + 1,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_aligns_to_absolute_offsets() {
        assert_eq!(padding_after(0), 0);
        assert_eq!(padding_after(1), 3);
        assert_eq!(padding_after(2), 2);
        assert_eq!(padding_after(3), 1);
        assert_eq!(padding_after(0x1_0000_0007), 1);
    }

    #[test]
    fn block_body_is_found_after_padding() {
        // size field at stream offset 10, so 2 bytes of padding follow it (next byte at 14 -> 16).
        let mut b = alloc::vec![3, 0, 0, 0, 0, 0, 0xaa, 0xbb, 0xcc, tag::END_OBJECT];
        match peek_block_body(&b, 10).unwrap() {
            Peek::Ready((start, len, total)) => assert_eq!((start, len, total), (6, 3, 10)),
            Peek::NeedMore(_) => panic!("complete block reported incomplete"),
        }
        match peek_block_body(&b[..9], 10).unwrap() {
            Peek::NeedMore(n) => assert_eq!(n, 10),
            Peek::Ready(_) => panic!("incomplete block reported complete"),
        }
        b[9] = 0;
        assert!(
            peek_block_body(&b, 10).is_err(),
            "a missing end tag is an error"
        );
        // The same bytes at offset 12 have no padding: the size is followed directly by content.
        let b = [1, 0, 0, 0, 0xaa, tag::END_OBJECT];
        assert!(matches!(
            peek_block_body(&b, 12).unwrap(),
            Peek::Ready((4, 1, 6))
        ));
    }
}
