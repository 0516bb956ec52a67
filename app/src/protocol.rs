//! Messages between the UI thread and the decoding worker. Both sides use these types, serialized
//! with serde-wasm-bindgen (structured clone), so the protocol lives in one place.

use gcscope_core::gc::{Gc, GcModel};
use serde::{Deserialize, Serialize};

/// Worker -> UI.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToUi {
    /// The worker's wasm is initialised; messages posted before this are lost, so the UI waits for it.
    Ready,
    /// Sent at most every ~100 ms while decoding.
    Progress(Progress),
    /// GC rows settled since the previous batch (sent while decoding, so the table fills early).
    /// The model in `Done` supersedes them: figures are recomputed when the trace ends.
    Gcs { rows: Vec<Gc> },
    /// Decoding finished (possibly with an error after partial results).
    Done(Box<Analysis>),
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub bytes: f64,
    pub total: f64,
    pub events: f64,
    pub elapsed_ms: f64,
    pub gcs: f64,
}

/// What the UI shows for one trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    pub file_name: String,
    pub file_size: f64,
    pub format: String,
    pub pointer_size: u8,
    pub process_id: u32,
    pub processor_count: u32,
    pub duration_ms: f64,
    pub events: f64,
    pub decode_ms: f64,
    /// (`Provider/EventName`, count), sorted by name.
    pub event_counts: Vec<(String, f64)>,
    pub gc_starts: f64,
    /// The GC model (`None` only when nothing could be decoded).
    pub model: Option<GcModel>,
    /// Set when decoding stopped on an error; the figures above cover everything before it.
    pub error: Option<String>,
    /// The traces inside a .zip that holds more than one (empty otherwise), and which one this is.
    #[serde(default)]
    pub trace_entries: Vec<String>,
    #[serde(default)]
    pub entry: usize,
    /// The views beyond the GC table (allocations, budgets, roots, ...), bounded for the message.
    #[serde(default)]
    pub insights: Option<crate::insights::ship::TraceInsights>,
}

/// UI -> worker: the file, and which trace inside it when it is a .zip of several.
pub const MSG_BLOB: &str = "blob";
pub const MSG_ENTRY: &str = "entry";
