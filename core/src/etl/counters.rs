//! What the .etl decoder counts as it reads: records, buffers, lost events, and the events a
//! process filter left out, by process.

use alloc::vec::Vec;

/// What the decoder counted, in its own units (buffers, record timestamps); [`super::Decoder::update_stats`]
/// brings them into the reader's [`crate::sink::DecodeStats`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counters {
    /// Records decoded (delivered or skipped by the filter).
    pub events: u64,
    /// Of those, the ones the consumer's filter skipped.
    pub filtered_events: u64,
    /// Buffers read.
    pub buffers: u64,
    /// Records that could not be read: the rest of a buffer after an unreadable record.
    pub skipped_records: u64,
    /// Buffers whose records stopped early because one could not be read.
    pub damaged_buffers: u64,
    /// Events delivered after a later one (see [`interleave`]).
    pub out_of_order: u64,
    /// Smallest and largest record timestamps seen.
    pub first_timestamp: Option<i64>,
    pub last_timestamp: Option<i64>,
    /// The filtered records per process, by process id (sorted): in a machine-wide trace each
    /// process's model is charged its own (see `gc::ProcessRouter`). At most [`MAX_FILTERED_PIDS`]
    /// processes; the records of later ones are counted in `filtered_events` only.
    pub filtered_by_pid: Vec<PidFiltered>,
}

/// The most processes whose filtered records are counted apart (a trace's processes are far
/// fewer; the bound keeps a hostile file's memory small).
pub const MAX_FILTERED_PIDS: usize = 4096;

/// The records of one process that the consumer's filter skipped.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PidFiltered {
    pub process_id: u32,
    pub events: u64,
    /// Of them, the runtime providers' records.
    pub runtime_events: u64,
    pub first_timestamp: i64,
    pub last_timestamp: i64,
}

impl PidFiltered {
    fn add(&mut self, o: &PidFiltered) {
        self.events += o.events;
        self.runtime_events += o.runtime_events;
        self.first_timestamp = self.first_timestamp.min(o.first_timestamp);
        self.last_timestamp = self.last_timestamp.max(o.last_timestamp);
    }
}

impl Counters {
    /// Counts a filtered record of process `pid`.
    #[inline]
    pub(super) fn filtered(&mut self, pid: u32, runtime: bool, timestamp: i64) {
        self.filtered_events += 1;
        let one = PidFiltered {
            process_id: pid,
            events: 1,
            runtime_events: u64::from(runtime),
            first_timestamp: timestamp,
            last_timestamp: timestamp,
        };
        self.add_pid(&one);
    }

    fn add_pid(&mut self, o: &PidFiltered) {
        match self
            .filtered_by_pid
            .binary_search_by_key(&o.process_id, |p| p.process_id)
        {
            Ok(i) => self.filtered_by_pid[i].add(o),
            Err(i) if self.filtered_by_pid.len() < MAX_FILTERED_PIDS => {
                self.filtered_by_pid.insert(i, *o)
            }
            Err(_) => {}
        }
    }
}

impl Counters {
    /// Adds what another reading counted (a part's, see [`part`]).
    pub fn add(&mut self, o: &Counters) {
        self.events += o.events;
        self.filtered_events += o.filtered_events;
        self.buffers += o.buffers;
        self.skipped_records += o.skipped_records;
        self.damaged_buffers += o.damaged_buffers;
        self.out_of_order += o.out_of_order;
        let min = |a: Option<i64>, b: Option<i64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let max = |a: Option<i64>, b: Option<i64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.first_timestamp = min(self.first_timestamp, o.first_timestamp);
        self.last_timestamp = max(self.last_timestamp, o.last_timestamp);
        for p in &o.filtered_by_pid {
            self.add_pid(p);
        }
    }
}
