//! Consumer interest: which events the reader delivers, and what it counts of all of them.
//!
//! Most events of a real trace (CPU samples, JIT, loader, TPL...) are of no use to a given consumer,
//! yet ordering them costs a copy into the sort buffer, a place in the sort and a sink call each. A
//! [`Filter`] set on the [`crate::TraceReader`] decides once per metadata definition (provider, event
//! id, version) whether its events are delivered; the others are only counted, by metadata entry (an
//! integer index), never buffered or sorted. The counts of every event, delivered or not, are in
//! [`crate::TraceReader::event_counts`] and the totals in [`crate::DecodeStats`], equal to what a
//! consumer counting delivered events of an unfiltered reader would get.
//!
//! This is a container-level mechanism: it knows providers and ids, not what they mean. Which runtime
//! events the GC model reads is said next to the model ([`crate::gc::wants`]).

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// What the consumer wants done with the events of one metadata definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interest {
    /// Decode, order and hand to the sink (the default).
    Deliver,
    /// Count only.
    Skip,
}

/// Decides per (provider, event id, metadata version). Called once per metadata definition, so it
/// may be slow. An event whose version a V6 label overrides is decided by its metadata's version.
pub type Filter = dyn Fn(&str, u32, u32) -> Interest;

/// One line of [`crate::TraceReader::event_counts`]: events of one provider, id and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventCount<'a> {
    pub provider: &'a str,
    pub event_id: u32,
    /// The name events are delivered under (`Event::name`).
    pub name: &'a str,
    /// Events seen, delivered or skipped.
    pub count: u64,
}

/// Count lines from counts keyed by (provider, name, id): the order of [`EventCount`] lists (both
/// format decoders build theirs this way).
pub(crate) fn count_lines<'a>(
    by_key: BTreeMap<(&'a str, &'a str, u32), u64>,
) -> Vec<EventCount<'a>> {
    by_key
        .into_iter()
        .map(|((provider, name, event_id), count)| EventCount {
            provider,
            event_id,
            name,
            count,
        })
        .collect()
}

/// What the decoder counts of every event, delivered or skipped.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Per metadata entry index: events reported under the entry's name.
    pub per_entry: Vec<u64>,
    /// Events of payload-named entries (GCDynamicEvent) reported under another name:
    /// (entry index, name, count). A handful of lines at most.
    pub renamed: Vec<(u32, &'static str, u64)>,
    /// Skipped events per interned provider index (for [`crate::DecodeStats::filtered_by_provider`]).
    pub skipped_per_provider: Vec<u64>,
    /// Timestamp of the first event in delivery order (delivered or skipped).
    pub first: Option<i64>,
    /// Smallest timestamp of the events skipped since the last flush, while `first` is unknown: they
    /// would have been sorted among the buffered ones.
    pub skipped_min: Option<i64>,
    /// Largest `timestamp - sync_time_qpc` (wrapping, as `TraceInfo::ms_since_start` computes it):
    /// the latest event's time.
    pub last_since_sync: Option<i64>,
}

impl Tally {
    /// Counts one event of entry `index` reported under the entry's own name.
    #[inline]
    pub fn count(&mut self, index: u32) {
        self.count_many(index, 1);
    }

    /// Counts `n` events of entry `index` reported under the entry's own name.
    #[inline]
    pub fn count_many(&mut self, index: u32, n: u64) {
        let i = index as usize;
        if i >= self.per_entry.len() {
            self.per_entry.resize(i + 1, 0);
        }
        self.per_entry[i] += n;
    }

    /// Counts one event of entry `index` reported under `name` (not the entry's name).
    pub fn count_renamed(&mut self, index: u32, name: &'static str) {
        match self
            .renamed
            .iter_mut()
            .find(|(i, n, _)| *i == index && *n == name)
        {
            Some(line) => line.2 += 1,
            None => self.renamed.push((index, name, 1)),
        }
    }

    /// Notes an event's time for the latest-event figure.
    #[inline]
    pub fn saw(&mut self, timestamp: i64, sync_time_qpc: i64) {
        self.saw_since(timestamp.wrapping_sub(sync_time_qpc));
    }

    /// [`saw`](Self::saw) of an event `d` ticks after the sync time (wrapping, as `saw` computes it).
    #[inline]
    pub fn saw_since(&mut self, d: i64) {
        if self.last_since_sync.is_none_or(|l| d > l) {
            self.last_since_sync = Some(d);
        }
    }

    /// `n` skipped events of entry `index` (of `provider`), the earliest at `earliest`: what `n`
    /// calls of [`count`](Self::count) and [`skipped`](Self::skipped) do.
    pub fn skipped_many(&mut self, index: u32, provider: u32, n: u64, earliest: i64) {
        let i = index as usize;
        if i >= self.per_entry.len() {
            self.per_entry.resize(i + 1, 0);
        }
        self.per_entry[i] += n;
        let p = provider as usize;
        if p >= self.skipped_per_provider.len() {
            self.skipped_per_provider.resize(p + 1, 0);
        }
        self.skipped_per_provider[p] += n;
        if self.first.is_none() && self.skipped_min.is_none_or(|m| earliest < m) {
            self.skipped_min = Some(earliest);
        }
    }

    /// A skipped event of `provider` (interned index) at `timestamp`.
    #[inline]
    pub fn skipped(&mut self, provider: u32, timestamp: i64) {
        let p = provider as usize;
        if p >= self.skipped_per_provider.len() {
            self.skipped_per_provider.resize(p + 1, 0);
        }
        self.skipped_per_provider[p] += 1;
        if self.first.is_none() && self.skipped_min.is_none_or(|m| timestamp < m) {
            self.skipped_min = Some(timestamp);
        }
    }

    /// Before emitting the buffered events with timestamp <= `upto` (`first_buffered`: the smallest
    /// such timestamp among them): fixes the first event's timestamp if it is among them or among
    /// the skipped events they would have been sorted with.
    pub fn before_flush(&mut self, upto: i64, first_buffered: Option<i64>) {
        if self.first.is_some() {
            return;
        }
        let skipped = self.skipped_min.filter(|&m| m <= upto);
        self.first = match (skipped, first_buffered) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if self.first.is_some() {
            self.skipped_min = None;
        }
    }
}
