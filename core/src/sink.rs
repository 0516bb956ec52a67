//! What a format decoder hands the reader: the events, through a [`Sink`], and the counters of what
//! it read ([`DecodeStats`]). Both sit below the decoders ([`crate::nettrace`], [`crate::etl`]) and the reader
//! ([`crate::reader`]) that drives them, so neither has to import the other's types.

use crate::event::{Event, TraceInfo};
use alloc::vec::Vec;

/// Where decoded events go: with the trace's header facts, which every event is relative to.
pub type Sink<'a> = dyn FnMut(&TraceInfo, &Event<'_>) + 'a;

/// Counters for what was read.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DecodeStats {
    /// Bytes of the input file (compressed, if it was a .zip / gzip).
    pub bytes_in: u64,
    /// Bytes of the trace stream itself (after unzip / gunzip).
    pub trace_bytes: u64,
    /// Events decoded: delivered to the sink, or only counted when a filter skips them (see
    /// [`crate::TraceReader::set_filter`]).
    pub events: u64,
    /// Of `events`, those the consumer's filter skipped: counted, never delivered.
    pub filtered_events: u64,
    /// The same per provider (as named in the metadata), in order of first definition.
    pub filtered_by_provider: Vec<(alloc::string::String, u64)>,
    /// Time (ms since the trace start) of the first event in delivery order, delivered or skipped.
    pub first_event_ms: Option<f64>,
    /// Time of the latest event, delivered or skipped.
    pub last_event_ms: Option<f64>,
    /// Blocks (objects) read.
    pub blocks: u64,
    /// Metadata definitions read.
    pub metadata: u64,
    /// Stacks in stack blocks.
    pub stacks: u64,
    pub sequence_points: u64,
    /// Events the runtime reported as dropped: gaps in per-capture-thread sequence numbers, and
    /// sequence points listing numbers beyond the last event seen.
    pub dropped_events: u64,
    /// Events that could not be decoded (no metadata for their id; in ETW files, the records after
    /// an unreadable one in the same buffer).
    pub skipped_events: u64,
    /// Events delivered after a later event: in ETL files, because their buffer came too late for
    /// the merge window (see [`crate::etl::interleave`]); in EventPipe files, because the time-ordering
    /// buffer reached its budget and released later events first (see [`crate::sort`]; only a
    /// region far larger than the runtime writes, e.g. a file without sequence points, does).
    #[serde(default)]
    pub out_of_order_events: u64,
    /// Files of a .zip that were not read as part of the trace, each with why: an `.etl` entry
    /// whose logfile header shows another recording than the first `.etl`'s.
    /// Of `filtered_events`, those of each process (ETW traces only, which hold many), by process id.
    #[serde(default)]
    pub filtered_by_process: alloc::vec::Vec<FilteredProcess>,
    #[serde(default)]
    pub left_out_files: alloc::vec::Vec<alloc::string::String>,
}

/// The events of one process that the consumer's filter skipped (see
/// [`DecodeStats::filtered_by_process`]).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FilteredProcess {
    pub process_id: u32,
    pub events: u64,
    /// Of them, the runtime providers' events.
    pub runtime_events: u64,
    pub first_event_ms: f64,
    pub last_event_ms: f64,
}
