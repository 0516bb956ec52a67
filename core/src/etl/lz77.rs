//! [MS-XCA] "Plain LZ77" (COMPRESSION_FORMAT_XPRESS) decompression, written from the
//! specification's description of the format (MS-XCA §2.3-2.4): the compressed stream is 32-bit
//! little-endian flag words, each governing the next 32 items; a clear bit is one literal byte, a
//! set bit a 16-bit match token (offset - 1 in the high 13 bits, length - 3 in the low 3), with
//! longer lengths continued in a shared half-byte, then a byte, then 16 or 32 bits.
//!
//! ETW writes every buffer of a compressed log file (EVENT_TRACE_COMPRESSED_MODE) as one such stream
//! and the buffer header says how long the output is, so [`decompress`] takes the exact output size:
//! output beyond it is an error (a corrupt or hostile stream cannot expand past the buffer), and a
//! stream that ends early returns what it produced (a file cut off inside a buffer keeps the records
//! before the cut).
//!
//! Why our own decoder rather than a published crate: see docs/design/dependencies.md (the
//! crates need std, allocate their own output per call and cannot bound it).

/// Why a stream could not be decompressed; `at` is the byte offset in the compressed input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lz77Error {
    pub at: usize,
    pub what: &'static str,
}

/// Decompresses `input` into `out`, which is cleared first and receives at most `limit` bytes.
/// Returns `Ok(true)` when the stream produced exactly `limit` bytes, `Ok(false)` when the input
/// ended first (a truncated stream: `out` holds what the complete items gave).
///
/// Written for speed on 64 KiB buffers (it is most of the cost of reading a compressed file): the
/// output is sized once and written by index; runs of literals (consecutive clear flag bits) are
/// copied as one slice; a match is one `copy_within` when it does not overlap itself, a fill when it
/// repeats one byte, and otherwise copies of its whole period, doubling.
pub fn decompress(
    input: &[u8],
    limit: usize,
    out: &mut alloc::vec::Vec<u8>,
) -> Result<bool, Lz77Error> {
    out.clear();
    out.resize(limit, 0);
    let r = run(input, out);
    match r {
        Ok((o, done)) => {
            out.truncate(o);
            Ok(done)
        }
        Err(e) => {
            out.clear();
            Err(e)
        }
    }
}

/// The decoder over a pre-sized output; returns the bytes written and whether all of them were.
fn run(input: &[u8], out: &mut [u8]) -> Result<(usize, bool), Lz77Error> {
    let limit = out.len();
    let mut o = 0usize;
    let mut pos = 0usize;
    let mut flags = 0u32;
    let mut flag_count = 0u32;
    // Position of the byte whose high half-byte the next long match uses (0: none pending; the
    // first bytes of a stream are a flag word, so 0 is never such a position).
    let mut half_byte_at = 0usize;
    loop {
        if o == limit {
            return Ok((o, true));
        }
        if flag_count == 0 {
            let Some(w) = input.get(pos..pos + 4) else {
                return Ok((o, false));
            };
            flags = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            pos += 4;
            flag_count = 32;
        }
        // Literals: the clear bits at the top of the remaining flags, copied together.
        let remaining = flags << (32 - flag_count);
        let literals = remaining.leading_zeros().min(flag_count) as usize;
        if literals > 0 {
            let n = literals.min(limit - o).min(input.len() - pos);
            if n <= 16 && pos + 16 <= input.len() && o + 16 <= limit {
                // Literal runs are short: a fixed 16-byte copy (what follows rewrites the rest).
                let mut tmp = [0u8; 16];
                tmp.copy_from_slice(&input[pos..pos + 16]);
                out[o..o + 16].copy_from_slice(&tmp);
            } else {
                out[o..o + n].copy_from_slice(&input[pos..pos + n]);
            }
            o += n;
            pos += n;
            flag_count -= n as u32;
            if n < literals {
                // The output is full or the input ended inside the run.
                return Ok((o, o == limit));
            }
            continue;
        }
        flag_count -= 1;
        let token_at = pos;
        let Some(t) = input.get(pos..pos + 2) else {
            return Ok((o, false));
        };
        let token = u16::from_le_bytes([t[0], t[1]]) as usize;
        pos += 2;
        let offset = (token >> 3) + 1;
        let mut length = token & 7;
        if length == 7 {
            if half_byte_at == 0 {
                let Some(&b) = input.get(pos) else {
                    return Ok((o, false));
                };
                length = (b & 0x0f) as usize;
                half_byte_at = pos;
                pos += 1;
            } else {
                length = (input[half_byte_at] >> 4) as usize;
                half_byte_at = 0;
            }
            if length == 15 {
                let Some(&b) = input.get(pos) else {
                    return Ok((o, false));
                };
                pos += 1;
                length = b as usize;
                if length == 255 {
                    let Some(w) = input.get(pos..pos + 2) else {
                        return Ok((o, false));
                    };
                    pos += 2;
                    length = u16::from_le_bytes([w[0], w[1]]) as usize;
                    if length == 0 {
                        let Some(w) = input.get(pos..pos + 4) else {
                            return Ok((o, false));
                        };
                        pos += 4;
                        length = u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize;
                    }
                    if length < 15 + 7 {
                        return Err(Lz77Error {
                            at: token_at,
                            what: "match length below its encoding's minimum",
                        });
                    }
                    length -= 15 + 7;
                }
                length += 15;
            }
            length += 7;
        }
        length += 3;
        let start = o.checked_sub(offset).ok_or(Lz77Error {
            at: token_at,
            what: "match reaches before the start of the output",
        })?;
        if length > limit - o {
            return Err(Lz77Error {
                at: token_at,
                what: "output longer than the buffer says",
            });
        }
        if length <= 16 && offset >= 16 && o + 16 <= limit {
            // Most matches are short: one fixed 16-byte copy (the bytes past the match are
            // rewritten by what follows) instead of a call sized at run time.
            let mut tmp = [0u8; 16];
            tmp.copy_from_slice(&out[start..start + 16]);
            out[o..o + 16].copy_from_slice(&tmp);
        } else if length <= 32 && offset >= 32 && o + 32 <= limit {
            let mut tmp = [0u8; 32];
            tmp.copy_from_slice(&out[start..start + 32]);
            out[o..o + 32].copy_from_slice(&tmp);
        } else if length <= 8 && offset >= 8 && o + 8 <= limit {
            let mut tmp = [0u8; 8];
            tmp.copy_from_slice(&out[start..start + 8]);
            out[o..o + 8].copy_from_slice(&tmp);
        } else if offset >= length {
            out.copy_within(start..start + length, o);
        } else if offset == 1 {
            let b = out[start];
            out[o..o + length].fill(b);
        } else {
            // The match repeats its last `offset` bytes: copy whole periods, doubling, so every
            // copy reads only bytes already written.
            let mut done = 0;
            while done < length {
                let chunk = (o + done - start).min(length - done);
                out.copy_within(start..start + chunk, o + done);
                done += chunk;
            }
        }
        o += length;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn run(input: &[u8], limit: usize) -> Result<(bool, Vec<u8>), Lz77Error> {
        let mut out = Vec::new();
        decompress(input, limit, &mut out).map(|done| (done, out))
    }

    #[test]
    fn literals_and_matches() {
        // Flags 0b0001 << 28 pattern: three literals then a match (offset 3, length 3), as the
        // spec's bit order reads them (most significant flag bit first).
        let flags: u32 = 0b0001 << 28;
        let mut s = flags.to_le_bytes().to_vec();
        s.extend_from_slice(b"abc");
        s.extend_from_slice(&(((3 - 1) << 3) as u16).to_le_bytes());
        assert_eq!(run(&s, 6).unwrap(), (true, b"abcabc".to_vec()));
        // An overlapping run: 'a' then offset 1, length 10.
        let flags: u32 = 0b01 << 30;
        let mut s = flags.to_le_bytes().to_vec();
        s.push(b'a');
        s.extend_from_slice(&7u16.to_le_bytes()); // offset 1 (0 << 3), length bits 7
        s.push(0); // half byte 0: length 3 + 7 + 0 = 10
        assert_eq!(run(&s, 11).unwrap(), (true, b"aaaaaaaaaaa".to_vec()));
    }

    #[test]
    fn hostile_streams_are_errors_not_panics() {
        // A match before any output.
        let mut s = (1u32 << 31).to_le_bytes().to_vec();
        s.extend_from_slice(&0u16.to_le_bytes());
        assert!(run(&s, 10).is_err());
        // A huge length (32-bit form) cannot exceed the limit.
        let mut s = (0b01u32 << 30).to_le_bytes().to_vec();
        s.push(b'x');
        s.extend_from_slice(&7u16.to_le_bytes());
        s.push(0x0f);
        s.push(255);
        s.extend_from_slice(&0u16.to_le_bytes());
        s.extend_from_slice(&u32::MAX.to_le_bytes());
        let e = run(&s, 1 << 16).unwrap_err();
        assert_eq!(e.what, "output longer than the buffer says");
        // Truncated streams stop cleanly with what they produced.
        let (done, out) = run(&[0, 0, 0, 0, b'a', b'b'], 5).unwrap();
        assert!(!done);
        assert_eq!(out, b"ab");
        assert_eq!(run(&[], 5).unwrap(), (false, Vec::new()));
        assert_eq!(run(&[], 0).unwrap(), (true, Vec::new()));
    }
}
