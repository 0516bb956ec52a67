//! The container-independent event: what every format decoder yields and every consumer reads.

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
    /// Stack id (V4+), 0 when none.
    pub stack_id: u32,
    /// 4 or 8; needed to decode `win:Pointer` payload fields.
    pub pointer_size: u8,
    /// The event's payload bytes.
    pub payload: &'a [u8],
    /// A GCAllocationTick already decoded by the part of the file that read it (parallel
    /// decoding, [`crate::parts`]): what [`crate::clr::decode`] would give of `payload`, for the
    /// GC model and insights to read without decoding it again. None elsewhere.
    pub tick: Option<&'a crate::clr::gc::TickDigest>,
    /// Several GCAllocationTicks delivered as one, by a reader with the tick lane
    /// ([`crate::TraceReader::with_tick_lane`]): the other fields are the first tick's (its
    /// provider, name, time), the payload empty. None elsewhere.
    pub ticks: Option<&'a TickBatch>,
}

/// What a reader does with the allocation ticks that parts of the file decoded
/// ([`crate::TraceReader::set_tick_lane`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TickLane {
    /// Each is delivered as an event of its own.
    #[default]
    Off,
    /// The ticks between two other events are delivered as one [`TickBatch`] of their sums: for a
    /// consumer that only adds them up (the GC model without insights).
    Sums,
    /// As [`Sums`](Self::Sums), the batch also holding each tick in order
    /// ([`TickBatch::ticks`]): for the insights, which bin every tick by time and type.
    EachTick,
}

/// One tick of a [`TickBatch`] (a reader with [`TickLane::EachTick`]): the fields of its
/// [`crate::clr::gc::TickDigest`] and event that the insights read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchTick {
    pub timestamp: i64,
    /// Milliseconds since the trace's start, as [`Event::time_ms`].
    pub time_ms: f64,
    pub amount: u64,
    /// The raw AllocationKind.
    pub kind: u32,
    pub heap_index: Option<u32>,
    /// Its type name's slot in the batch ([`TickBatch::type_name`]); [`BatchTick::NO_NAME`] for a
    /// tick whose version has no type name (0 and 1).
    pub type_slot: u32,
}

impl BatchTick {
    pub const NO_NAME: u32 = u32::MAX;
}

/// The type names a batch's ticks refer to, by slot (the index of the name in the reader's table of
/// the parts' names). Kept from batch to batch: a name is stored once, when the first tick naming it
/// reaches the tick lane.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TickNames {
    /// Per slot, the name's start and end in `bytes` (start > end: not stored).
    spans: alloc::vec::Vec<(u32, u32)>,
    bytes: alloc::vec::Vec<u8>,
}

impl TickNames {
    pub fn get(&self, slot: u32) -> Option<&[u8]> {
        let &(start, end) = self.spans.get(slot as usize)?;
        self.bytes.get(start as usize..end as usize)
    }

    pub fn has(&self, slot: u32) -> bool {
        self.get(slot).is_some()
    }

    /// Stores `name` at `slot`; false where it cannot (a slot or bytes past what 32 bits count,
    /// which no trace's few thousand type names reach): then the tick is not taken into the lane.
    pub fn insert(&mut self, slot: u32, name: &[u8]) -> bool {
        let start = self.bytes.len();
        let (Ok(s), Ok(e), Some(need)) = (
            u32::try_from(start),
            u32::try_from(start + name.len()),
            (slot as usize).checked_add(1),
        ) else {
            return false;
        };
        if slot == BatchTick::NO_NAME {
            return false;
        }
        if self.spans.len() < need {
            self.spans.resize(need, (1, 0));
        }
        self.bytes.extend_from_slice(name);
        self.spans[slot as usize] = (s, e);
        true
    }
}

/// The GCAllocationTicks that come between two other events, in the order the reader delivers
/// events, as one (a reader with the tick lane, [`crate::TraceReader::with_tick_lane`]): what the
/// GC model reads of them, summed, and with [`TickLane::EachTick`] each of them. Each came with its
/// digest ([`crate::clr::gc::TickDigest`]), made by the part of the file that decoded it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TickBatch {
    pub count: u64,
    /// The ticks' amounts per allocation kind (small, large, pinned; a kind above 2 counts as the
    /// third, as the GC model counts it), saturating.
    pub bytes_by_kind: [u64; 3],
    /// The first tick's time (in delivery order), ms since the trace's start.
    pub first_ms: f64,
    /// The latest tick's: the one with the largest `timestamp - sync time` (wrapping, as
    /// [`TraceInfo::ms_since_start`] computes it).
    pub latest_since_sync: i64,
    pub latest_ms: f64,
    pub(crate) first_timestamp: i64,
    pub(crate) latest_timestamp: i64,
    /// Ticks per metadata entry, for the reader's counts.
    pub(crate) per_entry: alloc::vec::Vec<(u32, u64)>,
    /// With [`TickLane::EachTick`], each tick in delivery order (`count` of them); else empty.
    pub ticks: alloc::vec::Vec<BatchTick>,
    /// The names the ticks refer to (see [`type_name`](Self::type_name)).
    pub(crate) names: TickNames,
}

impl TickBatch {
    /// Empties it, keeping its memory.
    pub(crate) fn clear(&mut self) {
        self.count = 0;
        self.bytes_by_kind = [0; 3];
        self.per_entry.clear();
        self.ticks.clear();
    }

    /// The type name (raw UTF-16 bytes) of a tick's [`BatchTick::type_slot`]: the name in its
    /// payload. None for [`BatchTick::NO_NAME`].
    pub fn type_name(&self, slot: u32) -> Option<&[u8]> {
        self.names.get(slot)
    }

    /// Adds one tick of metadata entry `metadata`, `since_sync` after the sync time (wrapping).
    #[inline]
    pub(crate) fn add(
        &mut self,
        metadata: u32,
        timestamp: i64,
        since_sync: i64,
        kind: u8,
        amount: u64,
    ) {
        if self.count == 0 {
            self.first_timestamp = timestamp;
            self.latest_timestamp = timestamp;
            self.latest_since_sync = since_sync;
        } else if since_sync > self.latest_since_sync {
            self.latest_timestamp = timestamp;
            self.latest_since_sync = since_sync;
        }
        self.count += 1;
        let k = &mut self.bytes_by_kind[kind as usize];
        *k = k.saturating_add(amount);
        match self.per_entry.last_mut() {
            Some((m, n)) if *m == metadata => *n += 1,
            _ => match self.per_entry.iter_mut().find(|(m, _)| *m == metadata) {
                Some((_, n)) => *n += 1,
                None => self.per_entry.push((metadata, 1)),
            },
        }
    }
}
