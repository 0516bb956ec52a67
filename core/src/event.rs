//! The container-independent event: what every format decoder yields and every consumer reads.

use crate::clr::gc::TickDigest;
use crate::ticks::{TickBatch, Ticks};

/// Facts from the trace header, known once the header has been read.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TraceInfo {
    /// "netperf-v3", "nettrace-v4", "nettrace-v6", ...
    pub format: alloc::string::String,
    /// Wall-clock time of `sync_time_qpc`, as (year, month, day, hour, minute, second, millisecond).
    pub sync_time_utc: [u16; 7],
    pub sync_time_qpc: i64,
    /// Ticks per second of every timestamp in the trace.
    pub qpc_frequency: i64,
    /// 4 or 8: the size of `win:Pointer` payload fields.
    pub pointer_size: u8,
    pub process_id: u32,
    pub processor_count: u32,
    /// Sampling interval in nanoseconds as written by the runtime.
    pub expected_cpu_sampling_rate: u32,
}

impl TraceInfo {
    /// Whether the trace is machine-wide (ETW, LTTng): its events come from every process, each
    /// record naming its own; an EventPipe trace is one process's.
    pub fn machine_wide(&self) -> bool {
        is_machine_wide_format(&self.format)
    }

    /// Milliseconds from the trace's start (the header's sync time) to `timestamp`.
    pub fn ms_since_start(&self, timestamp: i64) -> f64 {
        if self.qpc_frequency <= 0 {
            return 0.0;
        }
        (timestamp.wrapping_sub(self.sync_time_qpc)) as f64 * 1000.0 / self.qpc_frequency as f64
    }
}

/// One decoded event. Borrowed from the decoder's current block: copy what you need to keep.
/// (`Default`: an empty event, for tests that set only the fields they need.)
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Event<'a> {
    /// Provider name as in the metadata, e.g. `Microsoft-Windows-DotNETRuntime`.
    pub provider: &'a str,
    pub event_id: u32,
    pub version: u32,
    /// TraceEvent-style `Task/Opcode` name (`GC/Start`); for managed EventSources, the metadata name.
    pub name: &'a str,
    /// Raw timestamp in ticks of `TraceInfo::qpc_frequency`.
    pub timestamp: i64,
    /// Milliseconds since the trace start (`TraceInfo::ms_since_start(timestamp)`).
    pub time_ms: f64,
    /// OS process that wrote the event: the trace header's process for EventPipe (one process per
    /// file), each record's own for machine-wide ETW traces (u32::MAX where the record has none).
    pub process_id: u32,
    /// OS thread the event is about.
    pub thread_id: u64,
    /// Thread that wrote the event (sequence numbers are per capture thread); equals thread_id in V3.
    pub capture_thread_id: u64,
    /// Per-capture-thread sequence number (0 where the format has none).
    pub sequence: u32,
    /// Processor number, u32::MAX when unknown.
    pub processor: u32,
    /// The file's stack id (V4+; valid until the next sequence point), 0 when none. (NetPerf,
    /// whose stacks come inline: the [`stack`](Self::stack) id where the reader keeps stacks.)
    pub stack_id: u32,
    /// The event's stack in the reader's [`crate::stacks::StackTable`], where it keeps stacks
    /// ([`crate::TraceReader::set_keep_stacks`]): [`crate::stacks::NO_STACK`] (0) when none or not
    /// kept, [`crate::stacks::MISSING_STACK`] when the file's id names no stack.
    pub stack: u32,
    /// 4 or 8; needed to decode `win:Pointer` payload fields.
    pub pointer_size: u8,
    /// The event's payload bytes.
    pub payload: &'a [u8],
    /// The allocation ticks this event is, already decoded ([`Ticks`]): one a part of the file
    /// decoded, or several that a reader for the GC model delivers as one. None for every other
    /// event, and for a tick left to [`crate::clr::decode`].
    pub ticks: Option<Ticks<'a>>,
}

impl<'a> Event<'a> {
    /// The digest of the one allocation tick this event is, where a part of the file decoded it
    /// ([`Ticks::One`]).
    #[inline]
    pub fn tick(&self) -> Option<&'a TickDigest> {
        match self.ticks {
            Some(Ticks::One(d)) => Some(d),
            _ => None,
        }
    }

    /// The allocation ticks this event stands for, where the reader delivers them as one
    /// ([`Ticks::Batch`]).
    #[inline]
    pub fn tick_batch(&self) -> Option<&'a TickBatch> {
        match self.ticks {
            Some(Ticks::Batch(b)) => Some(b),
            _ => None,
        }
    }
}

/// [`TraceInfo::machine_wide`] for a `format` name (as a model's `process.format` keeps it).
pub fn is_machine_wide_format(format: &str) -> bool {
    format.starts_with("etl") || format.starts_with("lttng")
}

/// Milliseconds since the Unix epoch to (year, month, day, hour, minute, second, millisecond), UTC,
/// as [`TraceInfo::sync_time_utc`] holds them; zeros for a time before the epoch. Days to a
/// civil date by Howard Hinnant's civil-from-days algorithm.
pub fn civil_utc(unix_ms: i64) -> [u16; 7] {
    if unix_ms < 0 {
        return [0; 7];
    }
    let ms = (unix_ms % 1000) as u16;
    let secs = unix_ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    [
        y.clamp(0, 9999) as u16,
        mo as u16,
        d as u16,
        (rem / 3600) as u16,
        (rem / 60 % 60) as u16,
        (rem % 60) as u16,
        ms,
    ]
}
