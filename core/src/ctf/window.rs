//! One stream's bytes as the merge reads them: the whole entry where the .zip stored it, or a
//! window inflated from its raw deflate data, holding the current packet and a little more.
//!
//! The merge reads every stream of a trace side by side, so an inflated stream keeps only what
//! lies from its current packet on: each packet is opened with [`LOOKAHEAD`] bytes in the window
//! (enough for any packet header and context LTTng writes), grown to the packet's end when its
//! context gives the size, and the bytes before it are dropped when the next packet opens.

use super::stream::{Ctx, Decoded, StreamState};
use crate::error::{Error, ErrorKind, Result};
use crate::inflate::Inflater;
use alloc::vec::Vec;

/// Bytes ensured past a packet's start before its header is read.
const LOOKAHEAD: usize = 64 * 1024;

/// Compressed bytes inflated per step: at deflate's most (about 1,032 to 1) a step yields about
/// 1 MiB, so no step overshoots the window by more than that.
const STEP: usize = 1024;

/// Where a stream's bytes come from.
pub enum Source<'a> {
    /// The entry's bytes as the .zip stored them.
    Plain(&'a [u8]),
    /// Raw deflate data, inflated as the window needs it.
    Deflate(&'a [u8]),
}

/// The bytes of one stream visible to its decoder.
pub struct Window {
    /// For an inflated stream: its bytes from `base` on.
    buf: Vec<u8>,
    /// Byte offset in the stream of `buf[0]` (and of bit 0 of the decoder's positions).
    base: u64,
    inflater: Option<Inflater>,
    /// Compressed bytes consumed.
    used: usize,
    /// The stream has no more bytes to give.
    eof: bool,
    /// Most bytes the window held at once.
    pub peak: usize,
}

impl Window {
    pub fn new(src: &Source<'_>) -> Self {
        let deflated = matches!(src, Source::Deflate(_));
        Window {
            buf: Vec::new(),
            base: 0,
            inflater: deflated.then(Inflater::new),
            used: 0,
            eof: !deflated,
            peak: 0,
        }
    }

    /// Decompressed bytes produced so far (a stored stream: all of it).
    pub fn stream_bytes(&self, src: &Source<'_>) -> u64 {
        match (src, &self.inflater) {
            (_, Some(i)) => i.produced,
            (Source::Plain(b), None) | (Source::Deflate(b), None) => b.len() as u64,
        }
    }

    fn bytes<'s>(&'s self, src: &Source<'s>) -> &'s [u8] {
        match src {
            Source::Plain(b) => b,
            Source::Deflate(_) => &self.buf,
        }
    }

    /// Inflates until the window holds `len` bytes or the stream ends.
    fn fill(&mut self, src: &Source<'_>, len: usize) -> Result<()> {
        let (Source::Deflate(raw), Some(inf)) = (src, self.inflater.as_mut()) else {
            return Ok(());
        };
        while self.buf.len() < len && !self.eof {
            let end = (self.used + STEP).min(raw.len());
            let buf = &mut self.buf;
            let (n, done) = inf.feed(&raw[self.used..end], self.used as u64, &mut |d| {
                buf.extend_from_slice(d);
                Ok(())
            })?;
            self.used += n;
            if done {
                self.eof = true;
            } else if self.used >= raw.len() {
                return Err(Error::truncated(
                    self.base + self.buf.len() as u64,
                    "the zip entry's deflate data",
                ));
            } else if n == 0 {
                return Err(Error::malformed(
                    self.base + self.buf.len() as u64,
                    "the zip entry's deflate data makes no progress",
                ));
            }
        }
        self.peak = self.peak.max(self.buf.len());
        Ok(())
    }

    /// Drops the bytes before the decoder's position (between packets only).
    fn compact(&mut self, state: &mut StreamState) {
        if self.inflater.is_none() {
            return;
        }
        let drop = ((state.at.pos / 8) as usize).min(self.buf.len());
        if drop > 0 {
            self.buf.drain(..drop);
            self.base += drop as u64;
            state.rebase(drop as u64 * 8);
        }
    }

    /// Reads the stream's next event into `d` (see [`StreamState::next_event`]); None at its end.
    /// `keep_behind`: the caller may go back to the current position (it peeks), so no byte is
    /// dropped now. Error offsets are bytes of the stream.
    #[allow(clippy::too_many_arguments)]
    pub fn next(
        &mut self,
        src: &Source<'_>,
        state: &mut StreamState,
        cx: &Ctx<'_>,
        d: &mut Decoded,
        payload: &mut Vec<u8>,
        want: &dyn Fn(usize) -> bool,
        keep_behind: bool,
    ) -> Result<Option<()>> {
        // The decoder's offsets count from the window's start.
        let in_stream = |base: u64| {
            move |mut e: Error| {
                e.offset += base;
                e
            }
        };
        loop {
            if state.event_ahead(cx) {
                return state
                    .next_event(cx, self.bytes(src), d, payload, want)
                    .map(Some)
                    .map_err(in_stream(self.base));
            }
            if !keep_behind {
                self.compact(state);
            }
            let at = (state.at.pos / 8) as usize;
            self.fill(src, at.saturating_add(LOOKAHEAD))?;
            if state.at.pos >= self.bytes(src).len() as u64 * 8 {
                return Ok(None);
            }
            let (saved, packets) = (state.at, state.packets);
            match state.open_packet(cx, self.bytes(src)) {
                Err(Error {
                    kind: ErrorKind::Truncated { .. },
                    ..
                }) if !self.eof => {
                    // The window ends inside the packet: take in the rest of it and reopen.
                    let end = (state.at.packet_end / 8).min(usize::MAX as u64) as usize;
                    state.at = saved;
                    state.packets = packets;
                    self.fill(src, end.max(self.buf.len() + 1))?;
                }
                r => r.map_err(in_stream(self.base))?,
            }
        }
    }
}
