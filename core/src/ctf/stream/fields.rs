//! An event's fields, read at bit granularity: the event context and payload as the metadata
//! declares them (integers, enums, strings, arrays, sequences, structs and variants), each aligned
//! as its type says, into the event's [`Decoded`] values.

use super::*;

impl StreamState {
    /// A packed event's fields: only the `___data__` blob is kept.
    pub(super) fn decode_packed(
        &mut self,
        cx: &Ctx<'_>,
        bytes: &[u8],
        fields: TypeId,
        payload: &mut Vec<u8>,
    ) -> Result<()> {
        let Some(Type::Struct {
            fields: list,
            align,
        }) = cx.md.types.get(fields as usize)
        else {
            return self.decode(cx, bytes, fields, Out::None, payload, 0);
        };
        self.at.pos = align_up(self.at.pos, *align as u64);
        for &(name, t) in list {
            let out = if Some(name) == cx.names.data {
                Out::Etw
            } else {
                Out::None
            };
            self.field(cx, bytes, name, t, out, payload, 1)?;
        }
        Ok(())
    }

    /// The last value decoded under the name `id`.
    pub(super) fn val(&self, id: Option<u32>) -> Option<u64> {
        let id = id?;
        self.vals.iter().rev().find(|v| v.0 == id).map(|v| v.1)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn field(
        &mut self,
        cx: &Ctx<'_>,
        bytes: &[u8],
        name: u32,
        t: TypeId,
        out: Out,
        payload: &mut Vec<u8>,
        depth: usize,
    ) -> Result<()> {
        match cx.md.types.get(t as usize) {
            Some(Type::Int(i)) => {
                let clock = self.at.clock;
                let v = self.int(bytes, i)?;
                if Some(name) == cx.names.timestamp_end {
                    self.at.clock = clock;
                }
                self.vals.push((name, v, u32::MAX));
                if out == Out::Etw {
                    put_int(payload, v, i.size);
                }
                Ok(())
            }
            Some(Type::Enum { base, labels }) => {
                let v = self.int(bytes, base)?;
                let sv = sign_value(v, base);
                let label = labels
                    .iter()
                    .find(|&&(_, lo, hi)| lo <= sv && sv <= hi)
                    .map_or(u32::MAX, |l| l.0);
                self.vals.push((name, v, label));
                if out == Out::Etw {
                    put_int(payload, v, base.size);
                }
                Ok(())
            }
            Some(Type::Array { elem, len }) if Some(name) == cx.names.procname => {
                // The process name: text, kept apart (and not part of any payload).
                let (elem, len) = (*elem, *len);
                let start = self.text.len();
                for _ in 0..len {
                    let before = self.vals.len();
                    self.decode(cx, bytes, elem, Out::None, payload, depth + 1)?;
                    let c = self.vals.get(before).map_or(0, |v| v.1 as u8);
                    self.vals.truncate(before);
                    self.text.push(c);
                }
                if let Some(nul) = self.text[start..].iter().position(|&c| c == 0) {
                    self.text.truncate(start + nul);
                }
                Ok(())
            }
            _ => self.decode(cx, bytes, t, out, payload, depth),
        }
    }

    pub(super) fn decode(
        &mut self,
        cx: &Ctx<'_>,
        bytes: &[u8],
        t: TypeId,
        out: Out,
        payload: &mut Vec<u8>,
        depth: usize,
    ) -> Result<()> {
        if depth > 64 {
            return Err(Error::malformed(
                self.at.pos / 8,
                "CTF: types nested too deep",
            ));
        }
        if self.budget == 0 {
            return Err(Error::malformed(
                self.at.pos / 8,
                "CTF stream: an event with more values than its packet has bits",
            ));
        }
        self.budget -= 1;
        let md = cx.md;
        let Some(ty) = md.types.get(t as usize) else {
            return Err(Error::malformed(self.at.pos / 8, "CTF: type out of range"));
        };
        match ty {
            Type::Int(_) | Type::Enum { .. } => {
                self.field(cx, bytes, u32::MAX, t, out, payload, depth)
            }
            Type::Float {
                bits,
                align,
                big_endian,
            } => {
                let i = Int {
                    size: *bits,
                    align: *align,
                    signed: false,
                    big_endian: *big_endian,
                    clock: false,
                    text: false,
                };
                let v = self.int(bytes, &i)?;
                if out == Out::Etw {
                    put_int(payload, v, *bits);
                }
                Ok(())
            }
            Type::Str => {
                self.at.pos = align_up(self.at.pos, 8);
                let from = (self.at.pos / 8) as usize;
                let end = (self.at.content_end / 8) as usize;
                let slice = bytes.get(from..end.min(bytes.len())).unwrap_or(&[]);
                let n = slice.iter().position(|&c| c == 0).ok_or_else(|| {
                    Error::malformed(from as u64, "CTF stream: a string without its NUL")
                })?;
                if out == Out::Etw {
                    // ETW and EventPipe payloads carry strings as NUL-terminated UTF-16.
                    let s = String::from_utf8_lossy(&slice[..n]);
                    for u in s.encode_utf16() {
                        payload.extend_from_slice(&u.to_le_bytes());
                    }
                    payload.extend_from_slice(&[0, 0]);
                }
                self.at.pos += (n as u64 + 1) * 8;
                Ok(())
            }
            Type::Struct { fields, align } => {
                self.at.pos = align_up(self.at.pos, *align as u64);
                for &(name, ft) in fields {
                    self.field(cx, bytes, name, ft, out, payload, depth + 1)?;
                }
                Ok(())
            }
            Type::Array { elem, len } => {
                let elem = *elem;
                for _ in 0..*len {
                    self.decode(cx, bytes, elem, out, payload, depth + 1)?;
                }
                Ok(())
            }
            Type::Sequence { elem, len } => {
                let n = self.val(Some(*len)).ok_or_else(|| {
                    Error::malformed(
                        self.at.pos / 8,
                        format!(
                            "CTF stream: sequence length '{}' not decoded before it",
                            md.name(*len)
                        ),
                    )
                })?;
                let elem = *elem;
                if n > self.budget {
                    return Err(Error::malformed(
                        self.at.pos / 8,
                        format!("CTF stream: a sequence of {n} elements in a shorter packet"),
                    ));
                }
                // Byte sequences (packed payloads) go through in one copy.
                if let Some(Type::Int(i)) = md.types.get(elem as usize) {
                    if i.size == 8 && i.align.is_multiple_of(8) && self.at.pos.is_multiple_of(8) {
                        let from = (self.at.pos / 8) as usize;
                        let end = (self.at.content_end / 8).min(bytes.len() as u64) as usize;
                        let slice = bytes
                            .get(from..from.saturating_add(n as usize))
                            .filter(|_| from as u64 + n <= end as u64)
                            .ok_or_else(|| {
                                Error::malformed(
                                    from as u64,
                                    "CTF stream: a sequence past its packet's content",
                                )
                            })?;
                        if out == Out::Etw {
                            payload.extend_from_slice(slice);
                        }
                        self.at.pos += n * 8;
                        return Ok(());
                    }
                }
                for _ in 0..n {
                    self.decode(cx, bytes, elem, out, payload, depth + 1)?;
                }
                Ok(())
            }
            Type::Variant { tag, options } => {
                let label = self
                    .vals
                    .iter()
                    .rev()
                    .find(|v| v.0 == *tag)
                    .map(|v| v.2)
                    .ok_or_else(|| {
                        Error::malformed(
                            self.at.pos / 8,
                            format!("CTF stream: variant tag '{}' not decoded", md.name(*tag)),
                        )
                    })?;
                let opt = options.iter().find(|o| o.0 == label).ok_or_else(|| {
                    Error::malformed(
                        self.at.pos / 8,
                        format!(
                            "CTF stream: no variant option for the tag's value '{}'",
                            md.name(label)
                        ),
                    )
                })?;
                let (name, ot) = *opt;
                self.field(cx, bytes, name, ot, out, payload, depth + 1)
            }
        }
    }

    /// Reads an integer at the current position (aligned first); a clock-mapped one updates the
    /// stream's clock.
    pub(super) fn int(&mut self, bytes: &[u8], i: &Int) -> Result<u64> {
        let pos = align_up(self.at.pos, i.align as u64);
        let size = i.size as u64;
        if pos + size > self.at.content_end.min(bytes.len() as u64 * 8) {
            return Err(Error::malformed(
                pos / 8,
                "CTF stream: a field past the packet's content",
            ));
        }
        let v = read_bits(bytes, pos, i.size, i.big_endian);
        self.at.pos = pos + size;
        if i.clock {
            self.at.clock = if i.size >= 64 {
                v
            } else {
                let mask = (1u64 << i.size) - 1;
                let mut c = (self.at.clock & !mask) | v;
                if v < self.at.clock & mask {
                    c = c.wrapping_add(1u64 << i.size);
                }
                c
            };
        }
        Ok(v)
    }
}

fn sign_value(v: u64, i: &Int) -> i64 {
    if i.signed && i.size < 64 && v >> (i.size - 1) & 1 == 1 {
        (v | !((1u64 << i.size) - 1)) as i64
    } else {
        v as i64
    }
}

pub(super) fn align_up(pos: u64, align: u64) -> u64 {
    if align <= 1 {
        pos
    } else {
        pos.div_ceil(align).saturating_mul(align)
    }
}

/// `size` bits at bit `pos` (checked by the caller to lie inside `bytes`).
fn read_bits(bytes: &[u8], pos: u64, size: u32, big_endian: bool) -> u64 {
    let at = (pos / 8) as usize;
    if pos.is_multiple_of(8) && size.is_multiple_of(8) {
        let n = (size / 8) as usize;
        let b = &bytes[at..at + n];
        let mut v = 0u64;
        if big_endian {
            for &x in b {
                v = v << 8 | x as u64;
            }
        } else {
            for &x in b.iter().rev() {
                v = v << 8 | x as u64;
            }
        }
        return v;
    }
    let mut v = 0u64;
    for k in 0..size as u64 {
        let p = pos + k;
        let byte = bytes[(p / 8) as usize];
        if big_endian {
            let bit = (byte >> (7 - p % 8)) & 1;
            v = v << 1 | bit as u64;
        } else {
            let bit = (byte >> (p % 8)) & 1;
            v |= (bit as u64) << k;
        }
    }
    v
}

/// An integer of `bits` bits as ETW lays it out: little-endian, in whole bytes.
fn put_int(out: &mut Vec<u8>, v: u64, bits: u32) {
    let n = bits.div_ceil(8) as usize;
    out.extend_from_slice(&v.to_le_bytes()[..n.min(8)]);
}
