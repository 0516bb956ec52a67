//! The trace stream after unwrapping ([`super::TraceReader`]'s half below the container): which
//! format it is, told from its first bytes, and for EventPipe the reassembly of units cut by chunk
//! boundaries before the decoder steps through them.

use crate::container::{describe, FAST_SERIALIZATION, NETTRACE_MAGIC};
use crate::ctf;
use crate::error::{Error, ErrorKind, Result};
use crate::etl;
use crate::filter::Filter;
use crate::nettrace::{Decoder, Step};
use crate::sink::{DecodeStats, Sink};
use alloc::boxed::Box;
use alloc::vec::Vec;

/// The trace stream after unwrapping: decoder plus the bytes of one incomplete unit.
pub(super) struct Stream {
    /// Which format the stream is, once its first bytes told (None: still collecting them).
    pub(super) format: Option<Format>,
    /// The consumer's filter until the format is known.
    pub(super) filter: Option<Box<Filter>>,
    /// ETW decoder, when the stream is an .etl file.
    pub(super) etl: Option<Box<etl::Decoder>>,
    /// CTF decoder, when the stream is the entries of an LTTng trace.
    pub(super) ctf: Option<Box<ctf::Decoder>>,
    /// The container said a new entry begins (an empty chunk): the next chunk may name it.
    pub(super) entry_next: bool,
    pub(super) decoder: Decoder,
    /// Bytes of the incomplete unit at the end of the data so far (empty when at a unit boundary).
    pub(super) pending: Vec<u8>,
    /// Bytes the pending unit needs before the decoder can make progress (> pending.len()).
    pub(super) need: usize,
    /// Stream offset of the next unconsumed byte (= of pending[0] when pending is not empty).
    pub(super) offset: u64,
}

/// The trace stream's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    EventPipe,
    Etw,
    Ctf,
}

/// Bytes that tell the formats apart: an .etl's first record header type sits at 74-75.
const FORMAT_BYTES: usize = 76;

impl Stream {
    pub(super) fn feed(
        &mut self,
        data: &[u8],
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        if data.is_empty() {
            // The container says another file of the same trace begins (an .etl's companions,
            // an LTTng trace's entries).
            self.entry_next = true;
            return match &mut self.etl {
                Some(etl) => etl.begin_file(sink),
                None => Ok(()),
            };
        }
        if core::mem::take(&mut self.entry_next)
            && matches!(self.format, None | Some(Format::Ctf))
            && data.starts_with(ctf::ENTRY_MAGIC)
        {
            let ctf = self.ctf.get_or_insert_with(|| {
                let mut d = ctf::Decoder::new();
                d.set_filter(self.filter.take());
                Box::new(d)
            });
            ctf.begin_entry(data);
            self.format = Some(Format::Ctf);
            return Ok(());
        }
        if self.format == Some(Format::Ctf) {
            // The decoder counts the trace's bytes itself: its entries may come deflated.
            return match &mut self.ctf {
                Some(c) => c.push(data),
                None => Ok(()),
            };
        }
        stats.trace_bytes += data.len() as u64;
        match self.format {
            Some(Format::Ctf) => return Ok(()),
            Some(Format::Etw) => return self.etw(data, sink),
            Some(Format::EventPipe) => return self.feed_eventpipe(data, stats, sink),
            None => {}
        }
        // Collect the first bytes in `pending`, then decide and replay them.
        let take = (FORMAT_BYTES - self.pending.len()).min(data.len());
        self.pending.extend_from_slice(&data[..take]);
        if self.pending.len() < FORMAT_BYTES {
            return Ok(());
        }
        let head = core::mem::take(&mut self.pending);
        self.decide(&head)?;
        match self.format {
            Some(Format::Etw) => {
                self.etw(&head, sink)?;
                self.etw(&data[take..], sink)
            }
            _ => {
                self.feed_eventpipe(&head, stats, sink)?;
                self.feed_eventpipe(&data[take..], stats, sink)
            }
        }
    }

    /// Picks the decoder from the stream's first bytes (all of them, if it is shorter). A stream
    /// that starts like neither format (a .zip entry named like a trace that is not one) is named.
    pub(super) fn decide(&mut self, head: &[u8]) -> Result<()> {
        let eventpipe = [&NETTRACE_MAGIC[..], &FAST_SERIALIZATION[..8]]
            .iter()
            .any(|m| head.starts_with(m) || m.starts_with(head));
        if !eventpipe && !etl::looks_like_etl(head) {
            return Err(Error::new(0, ErrorKind::NotATrace(describe(head))));
        }
        let format = if etl::looks_like_etl(head) {
            let mut d = etl::Decoder::new();
            d.set_filter(self.filter.take());
            d.set_keep_stacks(self.decoder.stacks().is_some());
            self.etl = Some(Box::new(d));
            Format::Etw
        } else {
            self.decoder.set_filter(self.filter.take());
            Format::EventPipe
        };
        self.format = Some(format);
        Ok(())
    }

    pub(super) fn etw(&mut self, data: &[u8], sink: &mut Sink<'_>) -> Result<()> {
        match &mut self.etl {
            Some(etl) => etl.push(data, sink),
            None => Ok(()),
        }
    }

    /// End of the stream: the decoder's own end (a stream shorter than [`FORMAT_BYTES`] goes to
    /// the EventPipe decoder, which says what is wrong with it).
    pub(super) fn finish(&mut self, stats: &mut DecodeStats, sink: &mut Sink<'_>) -> Result<()> {
        if self.format.is_none() {
            let head = core::mem::take(&mut self.pending);
            self.decide(&head)?;
            self.feed_eventpipe(&head, stats, sink)?;
        }
        if let Some(etl) = &mut self.etl {
            return etl.finish(sink);
        }
        if let Some(ctf) = &mut self.ctf {
            return ctf.finish(sink);
        }
        let pending = core::mem::take(&mut self.pending);
        self.decoder.finish(&pending, self.offset, stats, sink)
    }

    /// Brings the decoder's counters into `stats`.
    pub(super) fn update_stats(&self, stats: &mut DecodeStats) {
        if let Some(ctf) = &self.ctf {
            return ctf.update_stats(stats);
        }
        match &self.etl {
            Some(etl) => etl.update_stats(stats),
            None => self.decoder.update_stats(stats),
        }
    }

    pub(super) fn feed_eventpipe(
        &mut self,
        mut data: &[u8],
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        while !data.is_empty() {
            if self.pending.is_empty() {
                // Decode straight from the caller's bytes; copy only an incomplete tail.
                let used = self.run(data, stats, sink)?;
                self.pending.extend_from_slice(&data[used..]);
                return Ok(());
            }
            let take = (self.need - self.pending.len()).min(data.len());
            self.pending.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.pending.len() < self.need {
                return Ok(());
            }
            let mut buf = core::mem::take(&mut self.pending);
            let used = self.run(&buf, stats, sink);
            let used = match used {
                Ok(u) => u,
                Err(e) => {
                    self.pending = buf;
                    return Err(e);
                }
            };
            buf.drain(..used);
            self.pending = buf;
        }
        Ok(())
    }

    /// Steps the decoder over `buf` until it needs more; returns the bytes consumed.
    pub(super) fn run(
        &mut self,
        buf: &[u8],
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<usize> {
        let mut pos = 0;
        while pos < buf.len() {
            match self.decoder.step(&buf[pos..], self.offset, stats, sink)? {
                Step::Consumed(n) => {
                    pos += n;
                    self.offset += n as u64;
                }
                Step::NeedMore(n) => {
                    self.need = n.max(buf.len() - pos + 1);
                    return Ok(pos);
                }
            }
        }
        Ok(pos)
    }
}
