//! Streaming raw-deflate on top of miniz_oxide: input in any pieces, output handed on in 64 KiB slices.

use crate::error::{Error, Result};
use alloc::boxed::Box;
use alloc::vec;
use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

const OUT_CHUNK: usize = 64 * 1024;

pub struct Inflater {
    state: Box<InflateState>,
    out: Box<[u8]>,
    /// Decompressed bytes produced so far.
    pub produced: u64,
}

impl Inflater {
    pub fn new() -> Self {
        Inflater {
            state: InflateState::new_boxed(DataFormat::Raw),
            out: vec![0u8; OUT_CHUNK].into_boxed_slice(),
            produced: 0,
        }
    }

    /// Inflates as much of `input` as possible. Returns (bytes of input consumed, end of the deflate
    /// stream reached). `base` is the file offset of `input[0]` (for errors).
    pub fn feed(
        &mut self,
        mut input: &[u8],
        base: u64,
        out: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<(usize, bool)> {
        let mut consumed = 0usize;
        loop {
            let r = inflate(&mut self.state, input, &mut self.out, MZFlush::None);
            consumed += r.bytes_consumed;
            input = &input[r.bytes_consumed..];
            if r.bytes_written > 0 {
                self.produced += r.bytes_written as u64;
                if r.bytes_written > 0 {
                    out(&self.out[..r.bytes_written])?;
                }
            }
            match r.status {
                Ok(MZStatus::StreamEnd) => return Ok((consumed, true)),
                Ok(_) => {
                    // Output full: go round again. Otherwise all input is used up.
                    if r.bytes_written < self.out.len() && input.is_empty() {
                        return Ok((consumed, false));
                    }
                    if r.bytes_written == 0 && r.bytes_consumed == 0 {
                        return Ok((consumed, false));
                    }
                }
                // Buf: no progress possible without more input.
                Err(MZError::Buf) => return Ok((consumed, false)),
                Err(_) => {
                    return Err(Error::malformed(
                        base + consumed as u64,
                        "compressed (deflate) data is corrupt",
                    ))
                }
            }
        }
    }
}
