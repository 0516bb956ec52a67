//! A heap snapshot's bytes out of whatever wraps them: a `.gcdump` as it is, a gzipped one
//! (`.gcdump.gz`), or the first `.gcdump` entry of a `.zip`. The bytes decide, not the name. A
//! snapshot is read whole (its graph is read at random), so this unwraps into memory, and never
//! past a cap: a claimed size in a gzip trailer or a zip header is never used to allocate, and data
//! that inflates past the cap is an error, not an allocation. An input that is an event trace
//! instead (zipped, gzipped or not) is said to be one, for the reader of heap walks.

use super::gzip::GzipReader;
use super::sniff::{sniff, Kind};
use super::zip::{is_trace_name, ZipReader};
use crate::error::{Error, ErrorKind, Result};
use crate::heap::looks_like_gcdump;
use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The most bytes a wrapped heap snapshot is inflated to: 2 GiB, beyond the largest snapshots
/// `dotnet-gcdump` writes (its 10 million node cap makes about 350 MB) and within a 32-bit
/// address space, so the browser's worker can hold it.
pub const MAX_SNAPSHOT_BYTES: u64 = 2 << 30;

/// Input bytes fed to the unwrappers at a time: a cap crossed is reported within this many bytes
/// of where it happened.
const PIECE: usize = 16 * 1024;

/// What a heap reader was given.
#[derive(Debug)]
pub enum HeapInput<'a> {
    /// A `.gcdump` heap snapshot's bytes, unwrapped.
    Snapshot(Unwrapped<'a>),
    /// An event trace (a `.nettrace`, `.netperf` or `.etl`, zipped, gzipped or not): a heap walk,
    /// if it holds one, is in its events ([`crate::heap::HeapWalkBuilder`]).
    Trace,
}

/// A heap snapshot's bytes and where they came from.
#[derive(Debug)]
pub struct Unwrapped<'a> {
    /// The `.gcdump` itself: borrowed from the input when nothing wraps it.
    pub bytes: Cow<'a, [u8]>,
    /// What wrapped it: `None` for a bare `.gcdump`, else [`Kind::Gzip`] or [`Kind::Zip`].
    pub wrapper: Option<Kind>,
    /// For a `.zip`: the name of the entry read (its first `.gcdump`).
    pub entry: Option<String>,
    /// For a `.zip`: its other `.gcdump` entries, in archive order (not read).
    pub others: Vec<String>,
}

/// Tells a heap snapshot from a trace in `file` (a whole file) and unwraps a snapshot, inflating
/// at most `cap` bytes ([`MAX_SNAPSHOT_BYTES`] for a real file). Errors carry file offsets.
pub fn heap_input(file: &[u8], cap: u64) -> Result<HeapInput<'_>> {
    match sniff(file, true)? {
        Some(Kind::HeapSnapshot) => Ok(HeapInput::Snapshot(Unwrapped {
            bytes: Cow::Borrowed(file),
            wrapper: None,
            entry: None,
            others: Vec::new(),
        })),
        Some(Kind::Gzip) => gunzip(file, cap),
        Some(Kind::Zip) => unzip(file, cap),
        // `sniff` at the end of the input always decides; `None` cannot come back.
        Some(Kind::Trace) | None => Ok(HeapInput::Trace),
    }
}

/// Collects inflated bytes up to a cap, and stops early once they are known not to be a
/// `.gcdump` (a gzipped trace is read by the trace reader instead).
struct Collector {
    out: Vec<u8>,
    cap: u64,
    /// Why the unwrapper was stopped, if the collector stopped it.
    stop: Option<Stop>,
    /// `looks_like_gcdump` of the bytes so far, once it can tell.
    verdict: Option<bool>,
    /// Whether to look at the first bytes (a gzip: its content is unknown; a `.gcdump` entry of a
    /// zip is one by its name, and its reader says so when it is not).
    sniff: bool,
}

enum Stop {
    OverCap,
    NoMemory,
    NotASnapshot,
}

impl Collector {
    fn new(cap: u64, sniff: bool) -> Self {
        Collector {
            out: Vec::new(),
            cap,
            stop: None,
            verdict: None,
            sniff,
        }
    }

    fn take(&mut self, b: &[u8]) -> Result<()> {
        if self.out.len() as u64 + b.len() as u64 > self.cap {
            return self.halt(Stop::OverCap);
        }
        // A failed reservation is an error, not an abort (the browser's worker has 4 GiB at most).
        if self.out.try_reserve(b.len()).is_err() {
            return self.halt(Stop::NoMemory);
        }
        self.out.extend_from_slice(b);
        if self.sniff && self.verdict.is_none() {
            self.verdict = looks_like_gcdump(&self.out);
            if self.verdict == Some(false) {
                return self.halt(Stop::NotASnapshot);
            }
        }
        Ok(())
    }

    /// Stops the unwrapper: the error it passes back is replaced by [`Collector::stopped`]'s.
    fn halt(&mut self, why: Stop) -> Result<()> {
        self.stop = Some(why);
        Err(Error::malformed(0, "stopped"))
    }

    /// The error for a stop while the input piece ending at `at` was unwrapped.
    fn stopped(&self, at: u64, what: &str) -> Option<Error> {
        let mib = self.cap >> 20;
        match self.stop.as_ref()? {
            Stop::OverCap => Some(Error::malformed(
                at,
                format!(
                    "{what} inflates to more than {} bytes ({mib} MiB, the most a heap snapshot is \
                     unpacked to) by this byte: a compression bomb, or a snapshot too large to \
                     open unpacked",
                    self.cap
                ),
            )),
            Stop::NoMemory => Some(Error::malformed(
                at,
                format!(
                    "{what} inflates to more than the memory left ({} bytes by this byte)",
                    self.out.len()
                ),
            )),
            Stop::NotASnapshot => None,
        }
    }
}

fn gunzip(file: &[u8], cap: u64) -> Result<HeapInput<'_>> {
    let mut g = GzipReader::new();
    let mut c = Collector::new(cap, true);
    let mut base = 0u64;
    for piece in file.chunks(PIECE) {
        let r = g.push(piece, base, &mut |b| c.take(b));
        base += piece.len() as u64;
        if let Err(e) = r {
            if matches!(c.stop, Some(Stop::NotASnapshot)) {
                return Ok(HeapInput::Trace);
            }
            return Err(c.stopped(base, "the gzip data").unwrap_or(e));
        }
    }
    g.finish(base)?;
    if let Some(m) = g.size_mismatch() {
        return Err(Error::malformed(
            m.offset,
            format!(
                "the gzip trailer says its data is {} bytes (mod 2^32), it inflates to {}: the \
                 .gz is damaged",
                m.claimed, m.inflated
            ),
        ));
    }
    match looks_like_gcdump(&c.out) {
        Some(true) => Ok(HeapInput::Snapshot(Unwrapped {
            bytes: Cow::Owned(c.out),
            wrapper: Some(Kind::Gzip),
            entry: None,
            others: Vec::new(),
        })),
        // Too short to be a snapshot: the trace reader says what it is.
        _ => Ok(HeapInput::Trace),
    }
}

fn unzip(file: &[u8], cap: u64) -> Result<HeapInput<'_>> {
    let mut z = ZipReader::gcdump();
    let mut c = Collector::new(cap, false);
    let mut base = 0u64;
    let mut result = Ok(());
    for piece in file.chunks(PIECE) {
        result = z.push(piece, base, &mut |b| c.take(b));
        base += piece.len() as u64;
        if result.is_err() {
            break;
        }
    }
    if let Err(e) = result {
        if let Some(e) = c.stopped(base, "the .gcdump entry of the .zip") {
            return Err(e);
        }
        // Damage before any snapshot, in a zip with a trace: the trace reader reports it.
        return if !z.found() && has_trace(&z) {
            Ok(HeapInput::Trace)
        } else {
            Err(e)
        };
    }
    if let Err(e) = z.finish(base) {
        return if !z.found() && has_trace(&z) {
            Ok(HeapInput::Trace)
        } else {
            Err(e)
        };
    }
    if !z.found() {
        // `finish` fails for a zip without its entry; a trace is the only other way here.
        return Ok(HeapInput::Trace);
    }
    let mut entries = z.trace_entries().to_vec();
    let entry = if entries.is_empty() {
        None
    } else {
        Some(entries.remove(0))
    };
    Ok(HeapInput::Snapshot(Unwrapped {
        bytes: Cow::Owned(c.out),
        wrapper: Some(Kind::Zip),
        entry,
        others: entries,
    }))
}

/// Whether a `.zip` holds a trace entry (a `.nettrace`, `.netperf`, `.etl`).
fn has_trace(z: &ZipReader) -> bool {
    z.names().iter().any(|n| is_trace_name(n))
}

/// A heap reader's words for a core error: a cut input is said to be cut, not "a trace cut off"
/// (the input may be a snapshot).
pub fn heap_input_message(e: &Error) -> String {
    match &e.kind {
        ErrorKind::Truncated { what } => format!(
            "cut off at byte {} (inside {what}): the file is incomplete (a copy or download that \
             stopped early?)",
            e.offset
        ),
        ErrorKind::Malformed(msg) => format!("damaged at byte {}: {msg}", e.offset),
        ErrorKind::NotATrace(what) => String::from(what.as_str()),
        ErrorKind::Unsupported(_) => format!("{e}"),
    }
}
