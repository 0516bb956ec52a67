//! The public entry point: feed file bytes in chunks of any size, get events in timestamp order.
//!
//! Pipeline: [`crate::container`] (sniff, unzip/gunzip) → a small reassembly buffer that holds only
//! the incomplete unit at the end of the data seen so far → [`crate::nettrace::Decoder`] (one unit per
//! step) → [`crate::sort`] (per sequence-point region) → the caller's sink.

use crate::container::Unwrapper;
use crate::error::{Error, ErrorKind, Result};
use crate::event::{Event, TraceInfo};
use crate::filter::{EventCount, Filter, Interest};
use crate::nettrace::{Decoder, Step};
use alloc::boxed::Box;
use alloc::vec::Vec;

// Defined below the decoders (which fill them) and re-exported here, where callers meet them.
pub use crate::decode::{DecodeStats, Sink};

/// Streaming trace reader. See the crate docs for the layers.
pub struct TraceReader {
    unwrap: Unwrapper,
    stream: Stream,
    stats: DecodeStats,
    failed: Option<Error>,
    finished: bool,
}

/// The trace stream after unwrapping: decoder plus the bytes of one incomplete unit.
struct Stream {
    decoder: Decoder,
    /// Bytes of the incomplete unit at the end of the data so far (empty when at a unit boundary).
    pending: Vec<u8>,
    /// Bytes the pending unit needs before the decoder can make progress (> pending.len()).
    need: usize,
    /// Stream offset of the next unconsumed byte (= of pending[0] when pending is not empty).
    offset: u64,
}

impl Default for TraceReader {
    fn default() -> Self {
        Self::new()
    }
}

impl TraceReader {
    pub fn new() -> Self {
        Self::with_entry(0)
    }

    /// A reader for the `n`-th trace (0-based) of a .zip holding several; see
    /// [`trace_entries`](Self::trace_entries). Inputs that are not a .zip ignore `n`.
    pub fn with_entry(n: usize) -> Self {
        TraceReader {
            unwrap: Unwrapper::with_entry(n),
            stream: Stream {
                decoder: Decoder::new(),
                pending: Vec::new(),
                need: 0,
                offset: 0,
            },
            stats: DecodeStats::default(),
            failed: None,
            finished: false,
        }
    }

    /// Delivers only the events of metadata for which `filter(provider, event_id, version)` says
    /// [`Interest::Deliver`]; the others are counted (in [`stats`](Self::stats) and
    /// [`event_counts`](Self::event_counts)) but never buffered, sorted or delivered. Set it before
    /// the first push. The default delivers everything.
    pub fn set_filter(&mut self, filter: impl Fn(&str, u32, u32) -> Interest + 'static) {
        self.stream
            .decoder
            .set_filter(Some(Box::new(filter) as Box<Filter>));
    }

    /// [`set_filter`](Self::set_filter), builder style.
    pub fn with_filter(mut self, filter: impl Fn(&str, u32, u32) -> Interest + 'static) -> Self {
        self.set_filter(filter);
        self
    }

    /// Every event decoded so far, delivered or skipped, counted per provider, id and name (the name
    /// events are delivered under), sorted by provider, name, id.
    pub fn event_counts(&self) -> Vec<EventCount<'_>> {
        self.stream.decoder.event_counts()
    }

    /// Feeds the next chunk (any size). Calls `sink` for every event that became available, in
    /// timestamp order (sorted per sequence-point region). After an error, every later call returns it.
    pub fn push(&mut self, chunk: &[u8], sink: &mut dyn FnMut(&Event<'_>)) -> Result<()> {
        self.push_with_info(chunk, &mut |_, e| sink(e))
    }

    /// [`push`](Self::push), with the trace header's facts passed along with each event.
    pub fn push_with_info(&mut self, chunk: &[u8], sink: &mut Sink<'_>) -> Result<()> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.finished {
            return Err(Error::malformed(
                self.stats.bytes_in,
                "data pushed after finish()",
            ));
        }
        self.stats.bytes_in += chunk.len() as u64;
        let TraceReader {
            unwrap,
            stream,
            stats,
            ..
        } = self;
        let r = unwrap.push(chunk, &mut |data| stream.feed(data, stats, sink));
        if r.is_err() {
            // Nothing more will be read: the events buffered for ordering are complete, deliver them.
            stream.decoder.flush_buffered(stats, sink);
        }
        self.stream.decoder.update_stats(&mut self.stats);
        r.map_err(|e| self.fail(e))
    }

    /// End of input: flushes what is buffered. A stream cut off mid-unit returns `Truncated` after
    /// delivering every complete event before the cut; a clean end at an object boundary is fine.
    pub fn finish(&mut self, sink: &mut dyn FnMut(&Event<'_>)) -> Result<()> {
        self.finish_with_info(&mut |_, e| sink(e))
    }

    /// [`finish`](Self::finish), with the trace header's facts passed along with each event.
    pub fn finish_with_info(&mut self, sink: &mut Sink<'_>) -> Result<()> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        let TraceReader {
            unwrap,
            stream,
            stats,
            ..
        } = self;
        let container = unwrap.finish(&mut |data| stream.feed(data, stats, sink));
        let pending = core::mem::take(&mut stream.pending);
        let trace = stream.decoder.finish(&pending, stream.offset, stats, sink);
        self.stream.decoder.update_stats(&mut self.stats);
        container.and(trace).map_err(|e| self.fail(e))?;
        if self.stream.decoder.info().is_none() {
            let e = Error::new(
                self.stats.trace_bytes,
                ErrorKind::Truncated {
                    what: "trace header",
                },
            );
            return Err(self.fail(e));
        }
        Ok(())
    }

    fn fail(&mut self, e: Error) -> Error {
        self.failed = Some(e.clone());
        e
    }

    /// For a .zip: the names of its trace entries, in archive order (complete after `finish`). More
    /// than one means the user may want another: open it with [`with_entry`](Self::with_entry).
    pub fn trace_entries(&self) -> Option<&[alloc::string::String]> {
        self.unwrap.trace_entries()
    }

    /// The trace header's facts, once read.
    pub fn info(&self) -> Option<&TraceInfo> {
        self.stream.decoder.info()
    }

    pub fn stats(&self) -> &DecodeStats {
        &self.stats
    }

    /// Bytes currently buffered for an incomplete unit (for memory accounting).
    pub fn buffered_bytes(&self) -> usize {
        self.stream.pending.len()
    }
}

impl Stream {
    fn feed(
        &mut self,
        mut data: &[u8],
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        stats.trace_bytes += data.len() as u64;
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
    fn run(&mut self, buf: &[u8], stats: &mut DecodeStats, sink: &mut Sink<'_>) -> Result<usize> {
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

/// Decodes a whole trace held in memory. Convenience over [`TraceReader`].
pub fn decode_all(bytes: &[u8], sink: &mut dyn FnMut(&Event<'_>)) -> Result<TraceInfo> {
    let mut r = TraceReader::new();
    r.push(bytes, sink)?;
    r.finish(sink)?;
    r.info()
        .cloned()
        .ok_or_else(|| Error::truncated(0, "trace header"))
}
