//! What the worker says about a machine-wide (ETW) trace beside the chosen process's model: the
//! processes it holds (for the picker, or for saying why there is nothing to show) and the ETL
//! file's own facts (compressed or not, what the session lost).

use gcscope_core::gc::{AllProcesses, ProcessSummary};
use serde::{Deserialize, Serialize};

use crate::format::{bytes, thousands};

/// How many processes of each kind [`Processes::all`] lists (a server's trace can name hundreds).
pub const LISTED: usize = 50;

/// The processes of a machine-wide trace. An EventPipe trace is one process and has none of this.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Processes {
    /// The processes with GC events, most GC pause first (then most GCs, then lowest pid): the
    /// order `gcscope` (the CLI) lists and chooses them in.
    pub with_gcs: Vec<ProcessSummary>,
    /// The process shown when the address names none: the most GC pause (`gcscope`'s choice).
    pub default_pid: Option<u32>,
    /// Every process the trace shows, GC events or not, when none has GC events: what the trace
    /// holds, so the page can say what is missing.
    pub all: Option<AllProcesses>,
    /// The process the address asked for (`?pid=`) when it is not one with GC events.
    pub asked_missing: Option<u32>,
}

impl Processes {
    /// The listed process `pid`, if it has GC events.
    pub fn get(&self, pid: u32) -> Option<&ProcessSummary> {
        self.with_gcs.iter().find(|p| p.process_id == pid)
    }
}

/// An .etl file's facts (the logfile header's and the decoder's counts).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EtlFacts {
    /// EVENT_TRACE_COMPRESSED_MODE: the buffers are MS-XCA Plain LZ77 (relogged, e.g. by PerfView's merge).
    pub compressed: bool,
    pub buffer_size: u32,
    /// Buffers read.
    pub buffers: u64,
    /// Events and buffers the session lost (it could not write them: its buffers were full).
    pub events_lost: u64,
    pub buffers_lost: u64,
    /// Events delivered after later ones (their buffer came too late for the merge window).
    pub out_of_order_events: u64,
    /// Records that could not be read (after a damaged one in the same buffer).
    pub skipped_events: u64,
}

impl EtlFacts {
    /// Whether the session lost anything: every count of the trace may then be short.
    pub fn lost_anything(&self) -> bool {
        self.events_lost > 0 || self.buffers_lost > 0
    }

    /// What the session lost, in words, when it lost anything.
    pub fn lost_note(&self) -> Option<String> {
        self.lost_anything().then(|| {
            format!(
                "the ETW session lost {} events and {} buffers (its buffers were full): GC \
                 counts, pauses and sizes may be incomplete",
                thousands(self.events_lost as f64),
                thousands(self.buffers_lost as f64)
            )
        })
    }

    /// The file's facts as (label, value, definition), beside the model's (overview, report).
    pub fn facts(&self) -> Vec<(String, String, &'static str)> {
        vec![
            (
                "ETL file".into(),
                format!(
                    "{} · {} buffers of {}",
                    if self.compressed {
                        "compressed (relogged)"
                    } else {
                        "not compressed"
                    },
                    thousands(self.buffers as f64),
                    bytes(self.buffer_size as f64)
                ),
                "EVENT_TRACE_COMPRESSED_MODE in the logfile header: each buffer is MS-XCA Plain \
                 LZ77, as relogged files are (PerfView's merged .etl among them).",
            ),
            (
                "ETW lost".into(),
                format!(
                    "{} events · {} buffers",
                    thousands(self.events_lost as f64),
                    thousands(self.buffers_lost as f64)
                ),
                "Events and buffers the ETW session could not write (its buffers were full), as \
                 the logfile header counts them, for every process of the machine.",
            ),
            (
                "Late or unreadable".into(),
                format!(
                    "{} late · {} unreadable",
                    thousands(self.out_of_order_events as f64),
                    thousands(self.skipped_events as f64)
                ),
                "Events delivered after later ones (their buffer came after the merge window), \
                 and records that could not be read (after a damaged one in the same buffer).",
            ),
        ]
    }
}
