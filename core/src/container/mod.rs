//! What the input bytes are. Sniffs the content (not the file name), unwraps `.zip` and gzip on the
//! fly, and hands the raw trace stream to the format decoder. Anything that is not a trace is
//! reported as such, with a guess at what it is (a PNG, an ETW .etl, JSON, ...). A heap snapshot
//! (`.gcdump`), read whole rather than streamed, is unwrapped by [`heap_input`] (`snapshot`).

mod gzip;
mod snapshot;
mod sniff;
mod zip;

pub use snapshot::{heap_input, heap_input_message, HeapInput, Unwrapped, MAX_SNAPSHOT_BYTES};
pub use sniff::{describe, sniff, Kind, FAST_SERIALIZATION, NETTRACE_MAGIC};

use crate::error::{Error, ErrorKind, Result};
use alloc::string::String;
use alloc::vec::Vec;

/// What a trace reader says of a heap snapshot: the reader of events cannot read it, the heap
/// module can.
pub const HEAP_SNAPSHOT_MESSAGE: &str = "a .gcdump heap snapshot (FastSerialization type \
    'GCHeapDump'): it holds the heap's objects, not GC events; open it in the tab (its Heap tab) \
    or read it with `gcscope heap` on the command line";

/// Whether the file's first bytes are a `.gcdump` heap snapshot's (`None`: too few to tell).
pub fn is_heap_snapshot(head: &[u8]) -> Option<bool> {
    crate::heap::looks_like_gcdump(head)
}

/// Bytes needed before we give up recognising a trace and describe what the input is instead.
const DESCRIBE_BYTES: usize = 96;

/// Streams the trace bytes out of whatever wraps them.
pub struct Unwrapper {
    state: State,
    /// Bytes of the input file seen so far (container offsets are file offsets).
    file_offset: u64,
    /// Which trace entry of a .zip to read (0 = the first).
    zip_entry: usize,
}

enum State {
    Sniffing(Vec<u8>),
    Raw,
    Zip(zip::ZipReader),
    Gzip(gzip::GzipReader),
}

impl Default for Unwrapper {
    fn default() -> Self {
        Self::new()
    }
}

impl Unwrapper {
    pub fn new() -> Self {
        Self::with_entry(0)
    }

    /// Reads the `n`-th trace entry (0-based) if the input is a .zip with several; other inputs
    /// ignore `n`.
    pub fn with_entry(n: usize) -> Self {
        Unwrapper {
            state: State::Sniffing(Vec::new()),
            file_offset: 0,
            zip_entry: n,
        }
    }

    /// For a .zip: the names of its trace entries seen so far (all of them after [`finish`](Self::finish)).
    pub fn trace_entries(&self) -> Option<&[String]> {
        match &self.state {
            State::Zip(z) => Some(z.trace_entries()),
            _ => None,
        }
    }

    /// For a .zip: the entries whose bytes were given out (the trace, then its `.etl` companions).
    pub fn members(&self) -> Option<&[String]> {
        match &self.state {
            State::Zip(z) => Some(z.members()),
            _ => None,
        }
    }

    /// What the input turned out to be, once known.
    pub fn kind(&self) -> Option<Kind> {
        match self.state {
            State::Sniffing(_) => None,
            State::Raw => Some(Kind::Trace),
            State::Zip(_) => Some(Kind::Zip),
            State::Gzip(_) => Some(Kind::Gzip),
        }
    }

    /// For a plain trace stream: `n` bytes of it were read elsewhere (a part of the file, see
    /// [`crate::parts`]). False, and nothing changed, for any other input.
    pub fn skip_raw(&mut self, n: u64) -> bool {
        if !matches!(self.state, State::Raw) {
            return false;
        }
        self.file_offset += n;
        true
    }

    /// Feeds one chunk of the file; `out` receives the unwrapped trace bytes in order.
    pub fn push(&mut self, chunk: &[u8], out: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let base = self.file_offset;
        self.file_offset += chunk.len() as u64;
        if let State::Sniffing(head) = &mut self.state {
            // Keep the sniff buffer small: only what sniffing needs, the rest goes straight through.
            let take = chunk.len().min(DESCRIBE_BYTES.saturating_sub(head.len()));
            head.extend_from_slice(&chunk[..take]);
            let Some(kind) = sniff(head, false)? else {
                return Ok(());
            };
            let head = core::mem::take(head);
            if kind == Kind::HeapSnapshot {
                return Err(heap_snapshot());
            }
            self.start(kind);
            self.feed(&head, 0, out)?;
            return self.feed(&chunk[take..], base + take as u64, out);
        }
        self.feed(chunk, base, out)
    }

    /// End of the file.
    pub fn finish(&mut self, out: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        if let State::Sniffing(head) = &mut self.state {
            let head = core::mem::take(head);
            match sniff(&head, true)? {
                Some(Kind::HeapSnapshot) => return Err(heap_snapshot()),
                Some(kind) => {
                    self.start(kind);
                    self.feed(&head, 0, out)?;
                }
                None => {
                    return Err(Error::new(0, ErrorKind::NotATrace(describe(&head))));
                }
            }
        }
        let end = self.file_offset;
        match &mut self.state {
            State::Sniffing(_) | State::Raw => Ok(()),
            State::Zip(z) => z.finish(end),
            State::Gzip(g) => g.finish(end),
        }
    }

    fn start(&mut self, kind: Kind) {
        self.state = match kind {
            Kind::Trace | Kind::HeapSnapshot => State::Raw,
            Kind::Zip => State::Zip(zip::ZipReader::with_entry(self.zip_entry)),
            Kind::Gzip => State::Gzip(gzip::GzipReader::new()),
        };
    }

    fn feed(
        &mut self,
        data: &[u8],
        base: u64,
        out: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        match &mut self.state {
            State::Sniffing(_) => Ok(()),
            State::Raw => out(data),
            State::Zip(z) => z.push(data, base, out),
            State::Gzip(g) => g.push(data, base, out),
        }
    }
}

fn heap_snapshot() -> Error {
    Error::new(0, ErrorKind::NotATrace(String::from(HEAP_SNAPSHOT_MESSAGE)))
}
