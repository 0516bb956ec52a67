//! gzip (RFC 1952) members, streamed: header, raw deflate, 8-byte trailer. Concatenated members are
//! decoded one after another, as `gunzip` does.

use crate::error::{Error, Result};
use crate::inflate::Inflater;
use alloc::vec::Vec;

const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
/// Longest file name or comment accepted in a gzip header. The header is re-scanned per byte, so an
/// unterminated name must end the scan early (real names are file names).
const MAX_HEADER_TEXT: usize = 4096;

enum State {
    /// Collecting the member header.
    Header(Vec<u8>),
    Data(Inflater),
    /// Collecting the 8-byte trailer (CRC32, ISIZE): the bytes so far, and how many bytes the
    /// member's data inflated to.
    Trailer(Vec<u8>, u64),
}

/// A member whose trailer's size (ISIZE, the inflated size mod 2^32) is not what its data
/// inflated to: the file is damaged, or its trailer lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeMismatch {
    /// File offset of the trailer's size field.
    pub offset: u64,
    pub claimed: u32,
    pub inflated: u64,
}

pub struct GzipReader {
    state: State,
    members: u32,
    mismatch: Option<SizeMismatch>,
}

impl GzipReader {
    pub fn new() -> Self {
        GzipReader {
            state: State::Header(Vec::new()),
            members: 0,
            mismatch: None,
        }
    }

    /// The first member whose trailer's size disagrees with its data. Traces do not check it
    /// (their decoder catches damaged bytes); a heap snapshot read whole does.
    pub fn size_mismatch(&self) -> Option<SizeMismatch> {
        self.mismatch
    }

    pub fn push(
        &mut self,
        mut data: &[u8],
        mut base: u64,
        out: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        while !data.is_empty() {
            match &mut self.state {
                State::Header(h) => {
                    // Header bytes come one at a time until the header parses: headers are tiny.
                    h.push(data[0]);
                    data = &data[1..];
                    base += 1;
                    let hstart = base - h.len() as u64;
                    if h.len() >= 2 && h[..2] != [0x1f, 0x8b] {
                        if self.members > 0 {
                            // Trailing garbage after a complete member: gunzip warns and ignores it.
                            return Ok(());
                        }
                        return Err(Error::malformed(hstart, "not a gzip header"));
                    }
                    if let Some(len) = header_len(h, hstart)? {
                        debug_assert_eq!(len, h.len());
                        self.state = State::Data(Inflater::new());
                    }
                }
                State::Data(inf) => {
                    let (used, end) = inf.feed(data, base, out)?;
                    data = &data[used..];
                    base += used as u64;
                    if end {
                        self.state = State::Trailer(Vec::new(), inf.produced);
                    }
                }
                State::Trailer(t, inflated) => {
                    let take = (8 - t.len()).min(data.len());
                    t.extend_from_slice(&data[..take]);
                    data = &data[take..];
                    base += take as u64;
                    if t.len() == 8 {
                        let claimed = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
                        if claimed != *inflated as u32 && self.mismatch.is_none() {
                            self.mismatch = Some(SizeMismatch {
                                offset: base - 4,
                                claimed,
                                inflated: *inflated,
                            });
                        }
                        self.members += 1;
                        self.state = State::Header(Vec::new());
                    }
                }
            }
        }
        Ok(())
    }

    pub fn finish(&mut self, end: u64) -> Result<()> {
        match &self.state {
            State::Header(h) if h.is_empty() && self.members > 0 => Ok(()),
            State::Header(_) if self.members > 0 => Ok(()),
            State::Header(_) => Err(Error::truncated(end, "gzip header")),
            State::Data(_) => Err(Error::truncated(end, "gzip compressed data")),
            State::Trailer(..) => Err(Error::truncated(end, "gzip trailer")),
        }
    }
}

/// Length of a complete gzip member header in `h`, or None if more bytes are needed.
fn header_len(h: &[u8], base: u64) -> Result<Option<usize>> {
    if h.len() < 10 {
        return Ok(None);
    }
    if h[2] != 8 {
        return Err(Error::malformed(
            base + 2,
            "gzip compression method is not deflate",
        ));
    }
    let flags = h[3];
    let mut p = 10usize;
    if flags & FEXTRA != 0 {
        if h.len() < p + 2 {
            return Ok(None);
        }
        p += 2 + u16::from_le_bytes([h[p], h[p + 1]]) as usize;
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            match h.get(p..).and_then(|s| s.iter().position(|&b| b == 0)) {
                Some(z) => p += z + 1,
                None if h.len().saturating_sub(p) > MAX_HEADER_TEXT => {
                    return Err(Error::malformed(
                        base + p as u64,
                        "gzip header: file name or comment longer than 4 KiB (not a gzip file?)",
                    ))
                }
                None => return Ok(None),
            }
        }
    }
    if flags & FHCRC != 0 {
        p += 2;
    }
    Ok(if h.len() >= p { Some(p) } else { None })
}
