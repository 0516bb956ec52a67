//! A zero-copy little-endian byte cursor that knows the absolute stream offset of every byte it reads,
//! so every error can say where it happened.

use crate::error::{Error, Result};
use alloc::string::String;

/// Reads little-endian primitives from a borrowed slice. `base` is the absolute stream offset of `buf[0]`.
#[derive(Clone, Copy, Debug)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Cursor<'a> {
    pub fn new(buf: &'a [u8], base: u64) -> Self {
        Cursor { buf, pos: 0, base }
    }

    /// Absolute stream offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }
    /// The unread bytes.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    #[inline]
    pub fn truncated(&self, what: &'static str) -> Error {
        Error::truncated(self.offset(), what)
    }
    #[inline]
    pub fn malformed(&self, msg: impl Into<String>) -> Error {
        Error::malformed(self.offset(), msg)
    }

    #[inline]
    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(self.truncated(what));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    #[inline]
    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }
    #[inline]
    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        match self.buf.get(self.pos..self.pos + N) {
            Some(s) => {
                self.pos += N;
                let mut a = [0u8; N];
                a.copy_from_slice(s);
                Ok(a)
            }
            None => Err(self.truncated(what)),
        }
    }
    #[inline]
    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.truncated(what)),
        }
    }
    #[inline]
    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        self.array::<2>(what).map(u16::from_le_bytes)
    }
    #[inline]
    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        self.array::<4>(what).map(u32::from_le_bytes)
    }
    #[inline]
    pub fn i32(&mut self, what: &'static str) -> Result<i32> {
        self.array::<4>(what).map(i32::from_le_bytes)
    }
    #[inline]
    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        self.array::<8>(what).map(u64::from_le_bytes)
    }
    #[inline]
    pub fn i64(&mut self, what: &'static str) -> Result<i64> {
        self.array::<8>(what).map(i64::from_le_bytes)
    }
    #[inline]
    pub fn i16(&mut self, what: &'static str) -> Result<i16> {
        self.array::<2>(what).map(i16::from_le_bytes)
    }

    /// LEB128 unsigned, at most 10 bytes; bits past 64 are dropped (as the runtime's reader does).
    #[inline(always)]
    pub fn varu64(&mut self, what: &'static str) -> Result<u64> {
        // Fast path: up to 4 bytes (timestamp deltas, thread ids, sizes), no per-byte bounds checks.
        if let Some(w) = self.buf.get(self.pos..self.pos + 4) {
            let w = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            if w & 0x80 == 0 {
                self.pos += 1;
                return Ok((w & 0x7f) as u64);
            }
            if w & 0x8000 == 0 {
                self.pos += 2;
                return Ok(((w & 0x7f) | ((w >> 1) & 0x3f80)) as u64);
            }
            if w & 0x80_0000 == 0 {
                self.pos += 3;
                return Ok(((w & 0x7f) | ((w >> 1) & 0x3f80) | ((w >> 2) & 0x1f_c000)) as u64);
            }
            if w & 0x8000_0000 == 0 {
                self.pos += 4;
                return Ok(((w & 0x7f)
                    | ((w >> 1) & 0x3f80)
                    | ((w >> 2) & 0x1f_c000)
                    | ((w >> 3) & 0xfe0_0000)) as u64);
            }
        }
        self.varu64_slow(what)
    }

    #[inline(never)]
    fn varu64_slow(&mut self, what: &'static str) -> Result<u64> {
        let mut v: u64 = 0;
        let mut shift = 0u32;
        let mut p = self.pos;
        loop {
            let Some(&b) = self.buf.get(p) else {
                self.pos = p;
                return Err(self.truncated(what));
            };
            p += 1;
            if shift < 64 {
                v |= ((b & 0x7f) as u64) << shift;
            }
            if b < 0x80 {
                self.pos = p;
                return Ok(v);
            }
            shift += 7;
            if shift >= 70 {
                self.pos = p;
                return Err(self.malformed("variable-length integer longer than 10 bytes"));
            }
        }
    }
    /// LEB128 unsigned, at most 5 bytes, truncated to 32 bits.
    #[inline(always)]
    pub fn varu32(&mut self, what: &'static str) -> Result<u32> {
        if let Some(&b) = self.buf.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(b as u32);
            }
        }
        self.varu32_slow(what)
    }

    #[inline(never)]
    fn varu32_slow(&mut self, what: &'static str) -> Result<u32> {
        let mut v: u32 = 0;
        let mut shift = 0u32;
        let mut p = self.pos;
        loop {
            let Some(&b) = self.buf.get(p) else {
                self.pos = p;
                return Err(self.truncated(what));
            };
            p += 1;
            if shift < 32 {
                v |= ((b & 0x7f) as u32) << shift;
            }
            if b < 0x80 {
                self.pos = p;
                return Ok(v);
            }
            shift += 7;
            if shift >= 35 {
                self.pos = p;
                return Err(self.malformed("variable-length integer longer than 5 bytes"));
            }
        }
    }
    /// Zig-zag signed varint (V6).
    pub fn vari64(&mut self, what: &'static str) -> Result<i64> {
        let u = self.varu64(what)?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }

    /// NUL-terminated UTF-16LE string (the terminator is consumed, not returned).
    pub fn utf16z(&mut self, what: &'static str) -> Result<String> {
        let rest = self.rest();
        let mut n = 0;
        loop {
            match rest.get(n..n + 2) {
                Some([0, 0]) => break,
                Some(_) => n += 2,
                None => return Err(self.truncated(what)),
            }
        }
        let units = rest[..n]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]));
        let s: String = char::decode_utf16(units)
            .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect();
        self.pos += n + 2;
        Ok(s)
    }

    /// V6 string: varuint32 byte length + UTF-8 (invalid sequences replaced).
    pub fn var_utf8(&mut self, what: &'static str) -> Result<String> {
        let len = self.varu32(what)? as usize;
        let b = self.bytes(len, what)?;
        Ok(String::from_utf8_lossy(b).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn varints_decode_and_report_offsets() {
        let mut c = Cursor::new(&[0x7f, 0x80, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f], 100);
        assert_eq!(c.varu32("a").unwrap(), 127);
        assert_eq!(c.varu32("a").unwrap(), 128);
        assert_eq!(c.varu32("a").unwrap(), u32::MAX);
        let e = c.u8("x").unwrap_err();
        assert_eq!(e.offset, 108);
        assert!(matches!(e.kind, ErrorKind::Truncated { .. }));
    }

    #[test]
    fn varu64_fast_and_slow_paths_agree() {
        for v in [
            0u64,
            1,
            127,
            128,
            300,
            16383,
            16384,
            2097151,
            2097152,
            268435455,
            268435456,
            1 << 35,
            u64::MAX,
        ] {
            let mut b = alloc::vec::Vec::new();
            let mut x = v;
            loop {
                let byte = (x & 0x7f) as u8;
                x >>= 7;
                if x == 0 {
                    b.push(byte);
                    break;
                }
                b.push(byte | 0x80);
            }
            let n = b.len();
            // With padding (fast path possible) and without (slow path at the end of the buffer).
            let mut padded = b.clone();
            padded.extend_from_slice(&[0xee; 8]);
            let mut c = Cursor::new(&padded, 0);
            assert_eq!(c.varu64("v").unwrap(), v);
            assert_eq!(c.pos(), n);
            let mut c = Cursor::new(&b, 0);
            assert_eq!(c.varu64("v").unwrap(), v);
            assert_eq!(c.pos(), n);
            if v <= u32::MAX as u64 {
                assert_eq!(Cursor::new(&padded, 0).varu32("v").unwrap() as u64, v);
            }
        }
    }

    #[test]
    fn ten_byte_varu64_wraps_like_the_writer() {
        // u64::MAX - 5 (a "negative" delta of -6), as the runtime writes it: 10 bytes.
        let mut bytes = [0xffu8; 10];
        bytes[0] = 0xfa;
        bytes[9] = 0x01;
        let mut c = Cursor::new(&bytes, 0);
        assert_eq!(c.varu64("t").unwrap(), u64::MAX - 5);
        let mut c = Cursor::new(&[0x80; 11], 0);
        assert!(c.varu64("t").is_err());
    }

    #[test]
    fn utf16z_reads_up_to_the_terminator() {
        let mut c = Cursor::new(&[b'G', 0, b'C', 0, 0, 0, 9], 0);
        assert_eq!(c.utf16z("s").unwrap(), "GC");
        assert_eq!(c.remaining(), 1);
        let mut c = Cursor::new(&[b'G', 0, b'C'], 0);
        assert!(c.utf16z("s").is_err());
    }
}
