//! Reading runtime event payloads: a bounds-checked little-endian reader whose errors carry the
//! offset within the payload, plus the zero-copy views (UTF-16 strings, arrays) the typed events
//! hand out.

use alloc::string::String;
use core::fmt;

use crate::error::{Error, ErrorKind};

/// Why a payload could not be decoded. `offset` is relative to the first payload byte; add the
/// payload's stream offset with [`PayloadError::at`] to report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadError {
    /// Byte offset within the payload where decoding stopped.
    pub offset: usize,
    pub kind: PayloadErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PayloadErrorKind {
    /// The payload ended inside the named field.
    Truncated { field: &'static str },
    /// A version of the event that the runtime never emitted with this layout.
    UnsupportedVersion { version: u32 },
    /// A pointer size other than 4 or 8.
    BadPointerSize(u8),
}

impl PayloadError {
    pub(crate) fn truncated(offset: usize, field: &'static str) -> Self {
        PayloadError {
            offset,
            kind: PayloadErrorKind::Truncated { field },
        }
    }

    pub(crate) fn unsupported_version(version: u32) -> Self {
        PayloadError {
            offset: 0,
            kind: PayloadErrorKind::UnsupportedVersion { version },
        }
    }

    /// The crate error, given the stream offset of the payload's first byte.
    pub fn at(&self, payload_offset: u64) -> Error {
        let offset = payload_offset + self.offset as u64;
        match &self.kind {
            PayloadErrorKind::Truncated { field } => Error::new(
                offset,
                ErrorKind::Malformed(alloc::format!("event payload too short for {field}")),
            ),
            PayloadErrorKind::UnsupportedVersion { version } => Error::new(
                offset,
                ErrorKind::Unsupported(alloc::format!("event version {version}")),
            ),
            PayloadErrorKind::BadPointerSize(n) => {
                Error::malformed(offset, alloc::format!("pointer size {n}"))
            }
        }
    }
}

impl fmt::Display for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            PayloadErrorKind::Truncated { field } => {
                write!(f, "payload too short for {field} at byte {}", self.offset)
            }
            PayloadErrorKind::UnsupportedVersion { version } => {
                write!(f, "unsupported event version {version}")
            }
            PayloadErrorKind::BadPointerSize(n) => write!(f, "pointer size {n}"),
        }
    }
}

pub type PResult<T> = core::result::Result<T, PayloadError>;

/// Sequential little-endian reader over one payload. Fields are packed (no alignment).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PayloadCursor<'a> {
    buf: &'a [u8],
    pos: usize,
    ptr: u8,
}

impl<'a> PayloadCursor<'a> {
    pub fn new(buf: &'a [u8], pointer_size: u8) -> PResult<Self> {
        if pointer_size != 4 && pointer_size != 8 {
            return Err(PayloadError {
                offset: 0,
                kind: PayloadErrorKind::BadPointerSize(pointer_size),
            });
        }
        Ok(PayloadCursor {
            buf,
            pos: 0,
            ptr: pointer_size,
        })
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn bytes(&mut self, n: usize, field: &'static str) -> PResult<&'a [u8]> {
        match self
            .pos
            .checked_add(n)
            .and_then(|end| self.buf.get(self.pos..end))
        {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(PayloadError::truncated(self.pos, field)),
        }
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> PResult<[u8; N]> {
        let s = self.bytes(N, field)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub fn u8(&mut self, field: &'static str) -> PResult<u8> {
        Ok(self.array::<1>(field)?[0])
    }
    pub fn u16(&mut self, field: &'static str) -> PResult<u16> {
        Ok(u16::from_le_bytes(self.array(field)?))
    }
    pub fn u32(&mut self, field: &'static str) -> PResult<u32> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }
    pub fn u64(&mut self, field: &'static str) -> PResult<u64> {
        Ok(u64::from_le_bytes(self.array(field)?))
    }
    /// A 32-bit IEEE float (the GC's dynamic events carry percentages as `float`).
    pub fn f32(&mut self, field: &'static str) -> PResult<f32> {
        Ok(f32::from_le_bytes(self.array(field)?))
    }
    /// A `win:Pointer`: 4 or 8 bytes by the trace's pointer size, zero-extended.
    pub fn ptr(&mut self, field: &'static str) -> PResult<u64> {
        if self.ptr == 4 {
            Ok(u64::from(self.u32(field)?))
        } else {
            self.u64(field)
        }
    }

    /// `Some(u16)` if at least two bytes remain, else `None`: for the trailing ClrInstanceID of
    /// events whose later versions appended it.
    pub fn opt_u16(&mut self, field: &'static str) -> PResult<Option<u16>> {
        if self.remaining() >= 2 {
            self.u16(field).map(Some)
        } else {
            Ok(None)
        }
    }

    /// A NUL-terminated UTF-16LE string; the terminator is consumed but not returned.
    pub fn utf16z(&mut self, field: &'static str) -> PResult<Utf16Str<'a>> {
        let rest = &self.buf[self.pos..];
        // Four code units at a time until a word holds a zero unit (type names in every
        // AllocationTick make this scan hot); the unit loop reads only the last 0-7 bytes.
        const ONES: u64 = 0x0001_0001_0001_0001;
        const HIGHS: u64 = 0x8000_8000_8000_8000;
        let mut i = 0;
        for w in rest.chunks_exact(8) {
            // Always 8 bytes: one load.
            let Ok(w) = <[u8; 8]>::try_from(w) else { break };
            let x = u64::from_le_bytes(w);
            let zero = x.wrapping_sub(ONES) & !x & HIGHS;
            if zero != 0 {
                // The lowest flagged unit is the first zero one (a borrow only flags units above
                // a zero unit), so it is the terminator.
                let at = i + (zero.trailing_zeros() / 16) as usize * 2;
                self.pos += at + 2;
                return Ok(Utf16Str(&rest[..at]));
            }
            i += 8;
        }
        while i + 1 < rest.len() {
            if rest[i] == 0 && rest[i + 1] == 0 {
                self.pos += i + 2;
                return Ok(Utf16Str(&rest[..i]));
            }
            i += 2;
        }
        Err(PayloadError::truncated(self.buf.len(), field))
    }
}

/// A borrowed UTF-16LE string (without its terminator). Decoded on demand; unpaired surrogates
/// become U+FFFD.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Utf16Str<'a>(pub &'a [u8]);

impl<'a> Utf16Str<'a> {
    /// The UTF-16 code units.
    pub fn units(&self) -> impl Iterator<Item = u16> + 'a {
        self.0
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
    }

    pub fn chars(&self) -> impl Iterator<Item = char> + 'a {
        char::decode_utf16(self.units()).map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
    }

    pub fn to_string_lossy(&self) -> String {
        self.chars().collect()
    }

    pub fn is_empty(&self) -> bool {
        self.0.len() < 2
    }

    /// Compares with a Rust string without allocating.
    pub fn eq_str(&self, s: &str) -> bool {
        self.chars().eq(s.chars())
    }
}

impl fmt::Display for Utf16Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use core::fmt::Write;
        for c in self.chars() {
            f.write_char(c)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Utf16Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_string_lossy())
    }
}

impl serde::Serialize for Utf16Str<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A borrowed packed array of little-endian u32 values.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct U32Array<'a>(pub &'a [u8]);

impl<'a> U32Array<'a> {
    pub fn len(&self) -> usize {
        self.0.len() / 4
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn get(&self, i: usize) -> Option<u32> {
        let start = i.checked_mul(4)?;
        let s = self.0.get(start..start.checked_add(4)?)?;
        Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    pub fn iter(&self) -> impl Iterator<Item = u32> + 'a {
        self.0
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
    }
}

impl fmt::Debug for U32Array<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl serde::Serialize for U32Array<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_bounds_and_offsets() {
        let b = [1u8, 0, 2, 0, 0, 0, 3];
        let mut r = PayloadCursor::new(&b, 8).unwrap();
        assert_eq!(r.u16("a").unwrap(), 1);
        assert_eq!(r.u32("b").unwrap(), 2);
        let e = r.u16("c").unwrap_err();
        assert_eq!(e.offset, 6);
        assert_eq!(e.kind, PayloadErrorKind::Truncated { field: "c" });
        assert_eq!(e.at(100).offset, 106);
        assert!(PayloadCursor::new(&b, 2).is_err());
    }

    #[test]
    fn pointers_follow_pointer_size() {
        let b = [0x78u8, 0x56, 0x34, 0x12, 0xEF, 0xCD, 0xAB, 0x90];
        assert_eq!(
            PayloadCursor::new(&b, 4).unwrap().ptr("p").unwrap(),
            0x1234_5678
        );
        assert_eq!(
            PayloadCursor::new(&b, 8).unwrap().ptr("p").unwrap(),
            0x90AB_CDEF_1234_5678
        );
        assert!(PayloadCursor::new(&b[..7], 8).unwrap().ptr("p").is_err());
    }

    #[test]
    fn u32_array_bounds() {
        let a = U32Array(&[1, 0, 0, 0, 2, 0, 0, 0, 9]);
        assert_eq!(a.len(), 2);
        assert_eq!(a.iter().collect::<alloc::vec::Vec<_>>(), [1, 2]);
        assert_eq!(a.get(1), Some(2));
        assert_eq!(a.get(2), None);
        assert_eq!(a.get(usize::MAX / 4), None);
        assert_eq!(a.get(usize::MAX), None);
    }

    #[test]
    fn utf16_strings() {
        // "Ab" then NUL, then a lone high surrogate string.
        let b = [b'A', 0, b'b', 0, 0, 0, 0x00, 0xD8, 0, 0, 9];
        let mut r = PayloadCursor::new(&b, 8).unwrap();
        let s = r.utf16z("s").unwrap();
        assert_eq!(s.to_string_lossy(), "Ab");
        assert!(s.eq_str("Ab"));
        let t = r.utf16z("t").unwrap();
        assert_eq!(t.to_string_lossy(), "\u{FFFD}");
        assert_eq!(r.pos(), 10);
        // Unterminated string is an error at the end of the payload.
        let e = r.utf16z("u").unwrap_err();
        assert_eq!(e.offset, 11);
        // Odd trailing byte with no terminator.
        let mut r = PayloadCursor::new(&[b'x', 0, b'y'], 8).unwrap();
        assert!(r.utf16z("v").is_err());
    }

    #[test]
    fn utf16_terminator_found_at_every_length_and_alignment() {
        // Units with one zero byte (0x0041, 0x4100), and pairs of them that put two zero bytes at an
        // odd offset: none of these end the string, only a zero unit at an even offset does.
        let units = [0x0041u16, 0x4100, 0x0041, 0x4100, 0x00e9, 0x2603, 0xd83d];
        for len in 0..24 {
            for lead in 0..3usize {
                let mut b = alloc::vec![7u8; 2 * lead];
                for k in 0..len {
                    b.extend_from_slice(&units[k % units.len()].to_le_bytes());
                }
                b.extend_from_slice(&[0, 0, 0x41, 0]);
                let mut r = PayloadCursor::new(&b, 8).unwrap();
                for _ in 0..lead {
                    r.u16("lead").unwrap();
                }
                let s = r.utf16z("s").unwrap();
                assert_eq!(s.0.len(), 2 * len, "len {len}, lead {lead}");
                assert_eq!(r.pos(), 2 * lead + 2 * len + 2);
                // Without its terminator the same bytes are an error, not a shorter string.
                let cut = &b[..2 * lead + 2 * len];
                let mut r = PayloadCursor::new(cut, 8).unwrap();
                for _ in 0..lead {
                    r.u16("lead").unwrap();
                }
                assert!(r.utf16z("s").is_err(), "len {len}, lead {lead}");
            }
        }
    }
}
