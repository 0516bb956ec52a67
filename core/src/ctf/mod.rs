//! LTTng traces (`perfcollect`'s `.trace.zip`): CTF 1.8 metadata and per-CPU streams → events
//! with the ETW identity of the runtime's events, so the GC model reads them as it reads ETW.
//!
//! The container ([`crate::container`]) hands over every `metadata` and `channel*` entry of the
//! .zip, each after an [`ENTRY_MAGIC`] chunk naming it. A folder with a `metadata` entry is one CTF
//! trace; its `channel*` siblings are its streams (one per CPU); the pointer size is the folder's
//! (`64-bit` / `32-bit`). Only the user-space (`ust`) traces are read: the kernel trace of a
//! perfcollect capture holds no runtime event. A streamed .zip gives the entries in archive order,
//! where the streams may come before their metadata, so the entries are held until the archive
//! ends; then the streams are decoded side by side, one event ahead each, and merged by
//! timestamp. Events keep the stream's clock (cycles of its `freq`); the clock's offset gives the
//! wall time of the trace start.
//!
//! Payloads are rebuilt in the ETW layout the runtime's decoders read ([`crate::clr`]): integers
//! little-endian at their size, strings (NUL-terminated UTF-8 in LTTng) as NUL-terminated UTF-16,
//! and a packed event's `___data__` blob (the ETW payload the runtime serialized itself) as is.
//! Tracepoint names map to provider, id and version in [`names`].

mod cursor;
mod entries;
pub mod names;
pub mod stream;
mod trace;
pub mod tsdl;
pub mod window;

use crate::error::{Error, ErrorKind, Result};
use crate::event::{Event, TraceInfo};
use crate::filter::{count_lines, EventCount, Filter};
use crate::sink::{DecodeStats, Sink};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use cursor::{advance, Cursor};
pub use entries::{entry_contents, is_channel, is_ctf_entry};
use entries::{is_kernel_entry, split_path, Entry};
use stream::{Decoded, StreamState};
use trace::Trace;
use window::Window;

/// The first bytes of the chunk that names a .zip entry of a CTF trace (then the entry's path).
pub const ENTRY_MAGIC: &[u8] = b"\0gcscope:ctf-entry\0";

/// After [`ENTRY_MAGIC`], before the path: the entry's bytes that follow are its raw deflate data,
/// as the .zip stores them (no path starts with a NUL).
pub const DEFLATE_TAG: &[u8] = b"\0deflate\0";

/// `TraceInfo::format` of an LTTng trace.
pub const FORMAT: &str = "lttng-ctf";

/// Provider of the one synthetic event per process the decoder adds: its payload is the
/// process's `_procname` (UTF-8), so the process picker can name machine-wide processes.
pub const PROCESS_NAME_PROVIDER: &str = "LTTng-ProcessName";

/// Why an LTTng trace holds no runtime events, and what to capture instead.
pub const NO_RUNTIME_EVENTS: &str = "an LTTng (perfcollect) trace without .NET runtime events. \
Known causes: the runtime's LTTng provider did not load (lttng-ust 2.13 on Ubuntu 22.04+, Alpine \
or Mariner: dotnet/runtime#57784), DOTNET_EnableEventLog=1 (COMPlus_EnableEventLog=1 before .NET 5) \
was not set in the traced process's environment, or perfcollect ran without -gccollectonly. Capture \
with dotnet-trace instead (dotnet-trace collect --profile gc-collect -p PID), which writes a \
.nettrace gcscope reads";

/// Reads the CTF entries of a perfcollect .zip.
pub struct Decoder {
    entries: Vec<Entry>,
    filter: Option<Box<Filter>>,
    info: Option<TraceInfo>,
    counts: BTreeMap<(String, String, u32), u64>,
    events: u64,
    filtered: u64,
    runtime_events: u64,
    first: Option<i64>,
    last: Option<i64>,
    packets: u64,
    packets_exact: u64,
    discarded: u64,
    classes: u64,
    /// Process ids whose name event went out.
    named: Vec<u32>,
    /// Bytes of the trace: the entries given as they are, and the deflated ones inflated (as far
    /// as they were read: the metadata whole, the streams by the merge).
    stream_bytes: u64,
    /// Of those, the kernel trace's entries', passed over unread.
    skipped_bytes: u64,
    /// Bytes the metadata entries inflated to.
    metadata_inflated: u64,
    /// Most bytes the streams' windows held (the sum of each one's most).
    window_peak: usize,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    pub fn new() -> Self {
        Decoder {
            entries: Vec::new(),
            filter: None,
            info: None,
            counts: BTreeMap::new(),
            events: 0,
            filtered: 0,
            runtime_events: 0,
            first: None,
            last: None,
            packets: 0,
            packets_exact: 0,
            discarded: 0,
            classes: 0,
            named: Vec::new(),
            stream_bytes: 0,
            skipped_bytes: 0,
            metadata_inflated: 0,
            window_peak: 0,
        }
    }

    pub fn set_filter(&mut self, filter: Option<Box<Filter>>) {
        self.filter = filter;
    }

    /// A chunk that starts with [`ENTRY_MAGIC`]: the next bytes are this entry's.
    pub fn begin_entry(&mut self, header: &[u8]) {
        let rest = header.get(ENTRY_MAGIC.len()..).unwrap_or(&[]);
        let (deflated, name) = match rest.strip_prefix(DEFLATE_TAG) {
            Some(name) => (true, name),
            None => (false, rest),
        };
        let path = String::from_utf8_lossy(name).into_owned();
        let skipped = is_kernel_entry(&path);
        self.entries.push(Entry {
            path,
            bytes: Vec::new(),
            deflated,
            skipped,
        });
    }

    /// Bytes of the current entry.
    pub fn push(&mut self, data: &[u8]) -> Result<()> {
        match self.entries.last_mut() {
            Some(e) if e.skipped => {
                self.skipped_bytes += data.len() as u64;
                self.stream_bytes += data.len() as u64;
                Ok(())
            }
            Some(e) => {
                if !e.deflated {
                    self.stream_bytes += data.len() as u64;
                }
                e.bytes.extend_from_slice(data);
                Ok(())
            }
            None => Err(Error::malformed(0, "CTF: data before any entry")),
        }
    }

    /// Bytes of the trace read so far: the entries as stored, the deflated ones as far as they
    /// were inflated (`DecodeStats::trace_bytes`).
    pub fn stream_bytes(&self) -> u64 {
        self.stream_bytes + self.metadata_inflated
    }

    /// Most bytes the streams' windows held at once while merging (a bound: the sum of each
    /// stream's most), besides the entries as given ([`buffered_bytes`](Self::buffered_bytes)).
    pub fn window_peak(&self) -> usize {
        self.window_peak
    }

    /// Bytes of the kernel trace's entries, passed over unread.
    pub fn skipped_bytes(&self) -> u64 {
        self.skipped_bytes
    }

    pub fn info(&self) -> Option<&TraceInfo> {
        self.info.as_ref()
    }

    /// Bytes held: the entries as given (compressed, where the .zip deflated them), until the
    /// archive ends.
    pub fn buffered_bytes(&self) -> usize {
        self.entries.iter().map(|e| e.bytes.len()).sum()
    }

    /// Packets read, and of them those whose header, context and events add up exactly to the
    /// packet's content size.
    pub fn packets(&self) -> (u64, u64) {
        (self.packets, self.packets_exact)
    }

    /// Events of the runtime's providers.
    pub fn runtime_events(&self) -> u64 {
        self.runtime_events
    }

    /// Events the tracer discarded (its buffers were full): the sum over streams of their last
    /// `events_discarded`.
    pub fn lost_events(&self) -> u64 {
        self.discarded
    }

    pub fn event_counts(&self) -> Vec<EventCount<'_>> {
        count_lines(
            self.counts
                .iter()
                .map(|((p, n, i), c)| ((p.as_str(), n.as_str(), *i), *c))
                .collect(),
        )
    }

    pub fn update_stats(&self, stats: &mut DecodeStats) {
        stats.trace_bytes = self.stream_bytes();
        stats.events = self.events;
        stats.filtered_events = self.filtered;
        stats.blocks = self.packets;
        stats.metadata = self.classes;
        stats.dropped_events = self.discarded;
        if let Some(info) = &self.info {
            stats.first_event_ms = self.first.map(|t| info.ms_since_start(t));
            stats.last_event_ms = self.last.map(|t| info.ms_since_start(t));
        }
    }

    /// The archive ended: decodes and merges every stream, delivering the events in time order.
    pub fn finish(&mut self, sink: &mut Sink<'_>) -> Result<()> {
        let entries = core::mem::take(&mut self.entries);
        let mut traces = Vec::new();
        let mut cursors = Vec::new();
        let mut first_error: Option<Error> = None;
        for (mi, m) in entries.iter().enumerate() {
            let (dir, base) = split_path(&m.path);
            if base != "metadata" || m.skipped {
                continue;
            }
            let trace = match trace::load(m, self.filter.as_deref(), &mut self.metadata_inflated) {
                Ok(Some(t)) => t,
                Ok(None) => continue,
                Err(e) => {
                    first_error.get_or_insert(e.with_context(&m.path));
                    continue;
                }
            };
            let ti = traces.len();
            traces.push(trace);
            for (ci, c) in entries.iter().enumerate() {
                let (cdir, cbase) = split_path(&c.path);
                if ci != mi && cdir == dir && is_channel(cbase) {
                    cursors.push(Cursor {
                        trace: ti,
                        entry: ci,
                        window: Window::new(&c.source()),
                        state: StreamState::default(),
                        current: None,
                        payload: Vec::new(),
                        peek: Decoded::default(),
                        peek_payload: Vec::new(),
                    });
                }
            }
        }
        if traces.is_empty() {
            return Err(first_error.unwrap_or_else(|| {
                Error::new(
                    0,
                    // A kernel-only capture: no runtime tracepoint was recorded.
                    ErrorKind::NotATrace(NO_RUNTIME_EVENTS.to_string()),
                )
            }));
        }
        self.classes = traces.iter().map(|t| t.classes.len() as u64).sum();
        // One event ahead in every stream.
        for c in cursors.iter_mut() {
            if let Err(e) = advance(c, &traces, &entries) {
                first_error.get_or_insert(e.with_context(&entries[c.entry].path));
            }
        }
        let t0 = &traces[0];
        let clock = t0.md.clocks.first().cloned().unwrap_or_default();
        let start = cursors
            .iter()
            .filter_map(|c| c.current.as_ref().map(|d| d.timestamp))
            .min()
            .unwrap_or(0);
        let freq = if clock.freq == 0 {
            1_000_000_000
        } else {
            clock.freq
        };
        let cpus = entries
            .iter()
            .filter_map(|e| {
                let (_, b) = split_path(&e.path);
                b.rsplit('_').next()?.parse::<u32>().ok()
            })
            .max()
            .map_or(0, |m| m + 1);
        let info = TraceInfo {
            format: FORMAT.to_string(),
            sync_time_utc: civil(wall_ns(&clock, freq, start)),
            sync_time_qpc: start as i64,
            qpc_frequency: freq.min(i64::MAX as u64) as i64,
            pointer_size: t0.pointer_size,
            process_id: 0,
            processor_count: cpus,
            expected_cpu_sampling_rate: 0,
        };
        self.info = Some(info.clone());
        loop {
            let mut best: Option<usize> = None;
            for (i, c) in cursors.iter().enumerate() {
                if let Some(d) = &c.current {
                    if best.is_none_or(|b| {
                        cursors[b]
                            .current
                            .as_ref()
                            .is_some_and(|x| d.timestamp < x.timestamp)
                    }) {
                        best = Some(i);
                    }
                }
            }
            let Some(b) = best else { break };
            self.deliver(&info, &traces, &cursors[b], sink);
            let c = &mut cursors[b];
            if let Err(e) = advance(c, &traces, &entries) {
                first_error.get_or_insert(e.with_context(&entries[c.entry].path));
            }
        }
        for c in &cursors {
            self.packets += c.state.packets;
            self.packets_exact += c.state.packets_exact;
            self.discarded += c.state.discarded;
            if entries[c.entry].deflated {
                self.stream_bytes += c.window.stream_bytes(&entries[c.entry].source());
            }
            self.window_peak += c.window.peak;
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        if self.runtime_events == 0 {
            return Err(Error::new(
                0,
                ErrorKind::NotATrace(NO_RUNTIME_EVENTS.to_string()),
            ));
        }
        Ok(())
    }

    fn deliver(&mut self, info: &TraceInfo, traces: &[Trace], c: &Cursor, sink: &mut Sink<'_>) {
        let Some(d) = &c.current else { return };
        let t = &traces[c.trace];
        let Some(class) = t.classes.get(d.decl) else {
            return;
        };
        let ts = d.timestamp as i64;
        self.events += 1;
        self.first.get_or_insert(ts);
        self.last = Some(self.last.map_or(ts, |l| l.max(ts)));
        if class.runtime {
            self.runtime_events += 1;
        }
        *self
            .counts
            .entry((class.provider.clone(), class.name.clone(), class.event_id))
            .or_insert(0) += 1;
        if !class.deliver {
            self.filtered += 1;
            return;
        }
        let base = Event {
            provider: &class.provider,
            event_id: class.event_id,
            version: class.version,
            name: &class.name,
            timestamp: ts,
            time_ms: info.ms_since_start(ts),
            process_id: d.pid,
            thread_id: d.tid as u64,
            capture_thread_id: d.tid as u64,
            sequence: 0,
            processor: c.state.at.cpu,
            stack_id: 0,
            stack: 0,
            pointer_size: t.pointer_size,
            payload: &[],
            ticks: None,
        };
        if class.runtime && !d.procname.is_empty() && !self.named.contains(&d.pid) {
            self.named.push(d.pid);
            let e = Event {
                provider: PROCESS_NAME_PROVIDER,
                event_id: 0,
                version: 0,
                name: "ProcessName",
                payload: &d.procname,
                ..base
            };
            sink(info, &e);
        }
        sink(
            info,
            &Event {
                payload: &c.payload,
                ..base
            },
        );
    }
}

/// Nanoseconds since the Unix epoch of clock value `v`.
fn wall_ns(c: &tsdl::Clock, freq: u64, v: u64) -> i128 {
    let cycles = c.offset as i128 + v as i128;
    c.offset_s as i128 * 1_000_000_000 + cycles * 1_000_000_000 / freq as i128
}

/// Unix nanoseconds → (year, month, day, hour, minute, second, millisecond), UTC.
fn civil(ns: i128) -> [u16; 7] {
    if ns <= 0 {
        return [0; 7];
    }
    crate::event::civil_utc((ns / 1_000_000).clamp(0, i64::MAX as i128) as i64)
}

impl Error {
    /// The same error, its message naming the .zip entry it is about.
    fn with_context(self, path: &str) -> Error {
        let kind = match self.kind {
            ErrorKind::Malformed(m) => ErrorKind::Malformed(format!("{path}: {m}")),
            ErrorKind::Unsupported(m) => ErrorKind::Unsupported(format!("{path}: {m}")),
            k => k,
        };
        Error::new(self.offset, kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil(0), [0; 7]);
        // 2020-03-17 21:18:39.502 UTC
        assert_eq!(
            civil(1_584_479_919_502_699_645),
            [2020, 3, 17, 21, 18, 39, 502]
        );
    }
}
