//! Messages between the UI thread and the decoding worker. Both sides use these types, so the
//! protocol lives in one place.
//!
//! On the wire a message is a small JS object `{ type, bytes, ... }`: `type` names the variant (so
//! tools and tests can follow the conversation), `bytes` is an ArrayBuffer holding the message in
//! postcard ([`wire`]), *transferred* to the page (moved, not copied). Bytes rather than one JS
//! object per field (serde-wasm-bindgen), whose short-lived objects on each side grow with the GCs
//! (docs/performance-log/journal.md, "Why, and what was changed"); the bytes are one compact
//! buffer per message and decode straight into the page's structs.

use gcscope_core::gc::{Gc, GcModel};
use serde::{Deserialize, Serialize};

pub mod heap;
pub mod heaps;
pub mod insights;
pub mod live;
pub mod processes;
pub mod stacks;
pub mod wire;

use heaps::HeapBatch;

/// Worker -> UI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ToUi {
    /// The worker's wasm is initialised; messages posted before this are lost, so the UI waits for it.
    Ready,
    /// Sent at most every ~100 ms while decoding.
    Progress(Progress),
    /// GC rows settled since the previous batch (sent while decoding, so the table fills early).
    /// A settled row is final (`ModelBuilder::completed_gcs`), so rows are sent once: the last
    /// batch, just before `Done`, holds the rest, and `Done`'s model comes without rows. The rows'
    /// per-heap histories travel packed beside them (`heaps`; the rows' own are empty).
    Gcs { rows: Vec<Gc>, heaps: HeapBatch },
    /// Decoding finished (possibly with an error after partial results).
    Done(Box<Analysis>),
    /// A live session's analysis so far, as `Done`'s (the model's summaries without rows, the
    /// insights' records, the trace's facts), while the stream goes on: the page's findings and
    /// facts grow with the session. A later one, or `Done`, replaces it.
    Interim(Box<Analysis>),
    /// The rows sent so far were another process's: forget them, the shown process's follow. A
    /// machine-wide trace read without `?pid=` shows the process with the most GC pause so far,
    /// which can change while the file is read.
    Reset,
    /// The stacks worker's call tree for a selection (`stacks`).
    StackTree(Box<stacks::StackTree>),
    /// The stacks worker's export of a selection.
    StacksExport(Box<stacks::Export>),
    /// The stacks worker's answer to a trigger request: the stack that started one GC.
    TriggerStack(Box<stacks::TriggerStack>),
    /// The stacks worker's answer to a callers request: every GC's trigger caller.
    Callers(Box<stacks::Callers>),
    /// The heap worker's answer about the `.gcdump` it keeps (`heap`).
    Heap(Box<heap::HeapAnswer>),
}

impl ToUi {
    /// A batch of rows, their heaps moved out and packed.
    pub fn gcs(mut rows: Vec<Gc>) -> ToUi {
        let heaps = HeapBatch::take(&mut rows);
        ToUi::Gcs { rows, heaps }
    }

    /// The envelope's `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            ToUi::Ready => "ready",
            ToUi::Progress(_) => "progress",
            ToUi::Gcs { .. } => "gcs",
            ToUi::Done(_) => "done",
            ToUi::Interim(_) => "interim",
            ToUi::Reset => "reset",
            ToUi::StackTree(_) => "stack_tree",
            ToUi::StacksExport(_) => "stacks_export",
            ToUi::TriggerStack(_) => "trigger_stack",
            ToUi::Callers(_) => "callers",
            ToUi::Heap(_) => "heap",
        }
    }

    pub fn encode(&self) -> Result<Vec<u8>, String> {
        wire::encode(self).map_err(|e| format!("cannot encode a {} message: {e}", self.kind()))
    }

    /// The encoded length, computed without encoding.
    pub fn encoded_len(&self) -> Result<u64, String> {
        wire::encoded_len(self)
            .map(|n| n as u64)
            .map_err(|e| format!("cannot size a {} message: {e}", self.kind()))
    }

    /// Encodes into a writer (e.g. one that copies into a JS ArrayBuffer a piece at a time).
    pub fn encode_into(&self, w: impl std::io::Write) -> Result<(), String> {
        wire::encode_into(self, w)
            .map_err(|e| format!("cannot encode a {} message: {e}", self.kind()))
    }

    /// Encodes into the writer `make` gives for the exact length (the worker's way: see
    /// `wire::encode_sized`).
    pub fn encode_sized<W: std::io::Write>(
        &self,
        make: impl FnOnce(usize) -> W,
    ) -> Result<W, String> {
        wire::encode_sized(self, make)
            .map_err(|e| format!("cannot encode a {} message: {e}", self.kind()))
    }

    pub fn decode(bytes: &[u8]) -> Result<ToUi, String> {
        wire::decode(bytes).map_err(|e| format!("cannot decode a message: {e}"))
    }

    /// Decodes from a reader, e.g. one that copies from a JS ArrayBuffer a piece at a time, so the
    /// message's bytes never sit whole in wasm memory (which never shrinks) beside what they decode to.
    pub fn decode_from(r: impl std::io::Read) -> Result<ToUi, String> {
        wire::decode_from(r).map_err(|e| format!("cannot decode a message: {e}"))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub bytes: f64,
    pub total: f64,
    pub events: f64,
    pub elapsed_ms: f64,
    pub gcs: f64,
    /// Workers decoding the file now, the one that merges included (see `worker::parts`).
    #[serde(default)]
    pub workers: u32,
    /// Why the file is read on one worker although more were allowed (a compressed file), if so.
    #[serde(default)]
    pub one_worker: Option<String>,
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
    /// The GC model (`None` only when nothing could be decoded). Its `gcs` is empty: every row
    /// came before, in `ToUi::Gcs` batches.
    pub model: Option<GcModel>,
    /// Set when decoding stopped on an error; the figures above cover everything before it.
    pub error: Option<String>,
    /// The traces inside a .zip that holds more than one (empty otherwise), and which one this is.
    #[serde(default)]
    pub trace_entries: Vec<String>,
    #[serde(default)]
    pub entry: usize,
    /// Workers that decoded the file at most, the one that merged included (see `worker::parts`).
    #[serde(default)]
    pub workers: u32,
    /// Bytes of the file that part workers decoded (the rest was read by the decoding worker).
    #[serde(default)]
    pub part_bytes: f64,
    /// Milliseconds the decoding worker waited for part workers' results and for reads of the
    /// file: the rest of `decode_ms` is its own work (planning, the merge, the model), which more
    /// cores cannot shorten.
    #[serde(default)]
    pub waited_ms: f64,
    /// Why the file was read on one worker although more were allowed (a compressed file).
    #[serde(default)]
    pub one_worker: Option<String>,
    /// The records the views beyond the GC table (allocations, budgets, roots, ...) are made of,
    /// as the worker collected them; the page finishes them with the rows when a view needs them.
    #[serde(default)]
    pub insight_inputs: Option<insights::ShippedInputs>,
    /// Those views' figures, once finished (by the page: never in a message).
    #[serde(default)]
    pub insights: Option<insights::TraceInsights>,
    /// A machine-wide (ETW) trace's processes; `None` for an EventPipe trace (one process).
    #[serde(default)]
    pub processes: Option<processes::Processes>,
    /// An .etl file's own facts; `None` for other formats.
    #[serde(default)]
    pub etl: Option<processes::EtlFacts>,
}

/// Envelope keys (worker -> UI): the variant's name, the encoded bytes, and for tools that watch
/// the messages without decoding them, a batch's row count and the final error and decode time.
pub const ENV_TYPE: &str = "type";
pub const ENV_BYTES: &str = "bytes";
pub const ENV_ROWS: &str = "rows";
pub const ENV_ERROR: &str = "error";
pub const ENV_DECODE_MS: &str = "decode_ms";
pub const ENV_WORKERS: &str = "workers";
pub const ENV_PART_BYTES: &str = "part_bytes";
pub const ENV_WAITED_MS: &str = "waited_ms";

/// UI -> worker: the file, and which trace inside it when it is a .zip of several.
pub const MSG_BLOB: &str = "blob";
pub const MSG_ENTRY: &str = "entry";
/// UI -> worker: the process of a machine-wide trace to show (`?pid=`). With the blob: read the
/// file for it (the one with the most GC pause when it is not there). Alone, to the worker that
/// read the file: show that process (from what it kept, or by reading the file again).
pub const MSG_PID: &str = "pid";
/// UI -> worker, tests only: the bytes of messages the worker may keep for switching processes
/// (`worker::processes::KEEP_BYTES` otherwise), so a test can make it read the file again.
pub const MSG_KEEP_BYTES: &str = "keep_bytes";
/// Benchmarks only: `{ blob, mode: "decode" }` makes the worker decode every event and nothing
/// else (the wasm decoder's throughput, next to the native decoder's on the same file).
pub const MSG_MODE: &str = "mode";
pub const MODE_DECODE_ONLY: &str = "decode";
/// `{ mode: "stacks", blob?, request }`: the stacks worker (`worker::stacks`) reads `blob` (the
/// first time) and answers `request` (postcard bytes of a `stacks::StacksRequest`).
pub const MODE_STACKS: &str = "stacks";
/// `{ mode: "live", url }`: the worker reads a live session's stream from `url` (`gcscope
/// serve`), posting each GC as it ends (`worker::stream`), and besides the messages above a plain
/// `{ live_open, live_bytes }` after each read: the GCs in progress, the bytes read.
pub const MODE_LIVE: &str = "live";
pub const MSG_URL: &str = "url";
pub const LIVE_OPEN: &str = "live_open";
pub const LIVE_BYTES: &str = "live_bytes";
pub const MSG_REQUEST: &str = "request";
/// `{ mode: "heap", blob?, request }`: the heap worker (`worker::heap`) reads `blob` (a `.gcdump`,
/// with an `Open` or `Compare` request) and answers `request` (a `heap::HeapRequest`).
pub const MODE_HEAP: &str = "heap";
/// UI -> worker: how many workers may decode the file, this one included (1: it alone), and the
/// ports (transferred) of the part workers the page started for it, one each (`worker::parts`).
pub const MSG_WORKERS: &str = "workers";
pub const MSG_PORTS: &str = "ports";

/// UI -> part worker (a worker the page starts for a decoding worker): `{ mode: "part", port }`,
/// the port (transferred) it serves the decoding worker over. All the messages below go over
/// such ports; the part worker's first is `{ type: "ready" }`.
pub const MSG_PORT: &str = "port";
/// Decoding worker -> part worker: `{ mode: "part", quit }`: it closes.
pub const MSG_QUIT: &str = "quit";

/// Decoding worker -> part worker: `{ mode: "part", task,
/// blob, filter }`, `task` the bytes of `gcscope_core::parts::wire::task_to_bytes`, `blob` the
/// file (the part worker reads the task's bytes from it), `filter` [`FILTER_GC`] or absent (every
/// event).
pub const MODE_PART: &str = "part";
pub const MSG_TASK: &str = "task";
pub const MSG_FILTER: &str = "filter";
pub const FILTER_GC: &str = "gc";
/// Decoding worker -> part worker: `{ mode: "part", spare }`, a result's payload buffer sent back
/// (transferred) for the part worker to read the next task into.
pub const MSG_SPARE: &str = "spare";
/// Part worker -> decoding worker: `{ part: task index, records, records_len, payloads,
/// payloads_len }` (the two buffers of `parts::wire::output_to_bytes`, transferred, each the
/// first bytes of its buffer), or `{ part, error }`.
pub const PART_INDEX: &str = "part";
pub const PART_RECORDS: &str = "records";
pub const PART_RECORDS_LEN: &str = "records_len";
pub const PART_PAYLOADS: &str = "payloads";
pub const PART_PAYLOADS_LEN: &str = "payloads_len";
pub const PART_ERROR: &str = "error";

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most 7 bytes a call.
    struct Pieces<'a>(&'a [u8], usize);
    impl std::io::Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(7).min(self.0.len() - self.1);
            buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
            self.1 += n;
            Ok(n)
        }
    }
    use gcscope_core::gc::insights::{analyze_with_insights, Insights};

    /// Every message survives the wire format, including a whole real model (so no type in it
    /// uses a serde feature that postcard cannot replay, such as `skip_serializing_if`, or
    /// borrows from the input, which the page's streamed decoding cannot lend): the bundled
    /// sample's, and a .NET 9 DATAS trace's (its model's `datas` and GC-mode evidence filled).
    #[test]
    fn messages_round_trip_through_the_wire_format() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let (_, ins) = round_trip(&format!(
            "{dir}/../static/samples/net8-wks-concurrent.nettrace"
        ));
        assert!(ins.allocations.tick_count > 0 && !ins.budgets.is_empty());
        // Traced at level 4 (no allocation ticks), so its insights are the GCs' alone.
        let (datas, ins) = round_trip(&format!("{dir}/../fixtures/traces/net9.0/datas.nettrace"));
        assert!(!ins.budgets.is_empty());
        let d = &datas.datas;
        assert!(
            !d.samples.is_empty() && !d.decisions.is_empty() && !d.changes.is_empty(),
            "the DATAS fixture has DATAS records"
        );
        assert!(!datas.process.gc_mode_evidence.is_empty());
        assert!(ToUi::decode(&[0xff; 3]).is_err());
    }

    /// Sends the trace at `path` through every message kind and back; its model and insights.
    fn round_trip(path: &str) -> (GcModel, Insights) {
        let bytes = std::fs::read(path).expect(path);
        let (mut model, ins) = analyze_with_insights(&bytes).expect("the trace decodes");
        assert!(model.gcs.len() > 10);
        let whole = (model.clone(), ins.clone());
        let rows = std::mem::take(&mut model.gcs);
        let analysis = Analysis {
            file_name: "a.nettrace".into(),
            model: Some(model),
            insights: Some(insights::bounded(ins)),
            error: Some("cut off".into()),
            trace_entries: vec!["x/a.nettrace".into(), "b.nettrace".into()],
            entry: 1,
            ..Default::default()
        };
        let msgs = [
            ToUi::Ready,
            ToUi::Progress(Progress {
                bytes: 1.0,
                total: 2.0,
                events: 3.0,
                elapsed_ms: 4.5,
                gcs: 5.0,
                workers: 3,
                one_worker: Some("a compressed file".into()),
            }),
            ToUi::gcs(rows),
            ToUi::Interim(Box::new(analysis.clone())),
            ToUi::Done(Box::new(analysis)),
            ToUi::Reset,
        ];
        for m in msgs {
            let wire = m.encode().unwrap();
            assert_eq!(ToUi::decode(&wire).unwrap(), m, "{}", m.kind());
            let mut into = Vec::new();
            m.encode_into(&mut into).unwrap();
            assert_eq!(
                (into.len() as u64, &into),
                (m.encoded_len().unwrap(), &wire)
            );
            let mut asked = 0;
            let sized = m
                .encode_sized(|len| {
                    asked = len;
                    Vec::new()
                })
                .unwrap();
            assert_eq!((asked, &sized), (wire.len(), &wire));
            // Read in small pieces, as the page reads from the transferred buffer.
            let pieces = Pieces(&wire, 0);
            assert_eq!(
                ToUi::decode_from(pieces).unwrap(),
                m,
                "{} in pieces",
                m.kind()
            );
        }
        whole
    }
}
