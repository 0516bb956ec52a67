//! gcscope-core: a streaming, `no_std` decoder for .NET EventPipe and ETW traces and the GC model
//! built from them.
//!
//! Bytes flow container → format decoder → time order → typed runtime events → GC model → views
//! (`docs/design/architecture.md`). The modules, lowest tier first: a module uses only modules of
//! lower tiers (`core/tests/layers.rs` checks it and that this list is its table):
//!
//! - [`error`] (tier 0): one error type, with the byte offset where the input went wrong.
//! - [`filter`] (tier 0): which events the reader delivers ([`Interest`]); the rest only counted.
//! - [`bytes`] (tier 1): the bounds-checked little-endian byte cursor that knows absolute offsets.
//! - [`clr`] (tier 1): the runtime's providers: event names, value maps, typed GC payloads.
//! - [`event`] (tier 1): the container-independent [`event::Event`] and the trace header's facts.
//! - `inflate` (tier 1): streaming raw deflate, for the .zip and gzip containers and for the
//!   LTTng streams the CTF reader holds compressed.
//! - [`ticks`] (tier 1): the allocation ticks' special case: the [`Consumer`] a reader is for, and
//!   the ticks an `Event` carries already decoded, one or a batch.
//! - [`heap`] (tier 2): heap snapshots (.gcdump, read and written, or a trace's heap walk): the
//!   graph, its exact dominator tree, retained bytes by type, root categories, paths to roots,
//!   generations, and two snapshots' diff.
//! - [`sink`] (tier 2): what a format decoder hands the reader: the `Sink` and [`DecodeStats`].
//! - [`sort`] (tier 2): time order per sequence-point region, within a memory budget; the tick lane.
//! - [`stacks`] (tier 2): call stacks: each distinct stack interned once, the methods their
//!   addresses fall in, and the stacks of allocations, GC triggers and pinned handles as call trees.
//! - [`etl`] (tier 3): ETW log files (.etl, PerfView's relogged ones), machine-wide, → events.
//! - [`ctf`] (tier 3): LTTng traces (perfcollect's .trace.zip): CTF 1.8 metadata and per-CPU
//!   streams, merged by timestamp, → events with the runtime events' ETW identity.
//! - [`container`] (tier 4): sniffs the input, unwraps `.zip` and gzip into the trace stream.
//! - [`nettrace`] (tier 5): the EventPipe formats (NetPerf V1-V3, NetTrace V4/V5, V6) → events.
//! - [`reader`] (tier 6): [`TraceReader`]: bytes in chunks of any size → events in time order.
//! - `encode` (tier 6, feature `encode`): test-only NetTrace and .etl writers and workloads.
//! - [`parts`] (tier 7): one trace decoded in parts on several threads, with the sequential result.
//! - [`gc`] (tier 7): the GC model (a row per GC, rollups, reasons, pins, handles), the insights,
//!   DATAS, one model per process, and every figure's definition.
//! - [`findings`] (tier 8): what is wrong with the process's GC, the evidence, what to change.
//! - [`latency`] (tier 8): pause percentiles, histogram, CDF, budget, utilization, exact MMU.
//! - [`compare`] (tier 9): two traces' summaries and latency side by side, B - A.
//! - `consumer` (tier 9): what each [`Consumer`] sets up in a reader and in the parts of a file
//!   (its filter, how ticks come, type-name interning); it adds methods to [`Consumer`] and
//!   [`TraceReader`] and exports nothing of its own.
//!
//! `clr`, `event` and `ticks` share a tier because they name each other (an `Event` carries
//! `ticks::Ticks` of `clr::gc::TickDigest`s; `clr::decode` reads an `Event`); the table in
//! `core/tests/layers.rs` says so.
//!
//! Terms a newcomer meets:
//!
//! - **row**: one GC of the model's table ([`gc::Gc`]); a row is *settled* once no later event can
//!   change it, so a consumer may take it away while the trace is still read.
//! - **sequence point**: an EventPipe block that bounds the timestamps of the events before and
//!   after it; the events between two are a *region*, sorted when it closes.
//! - **sort budget**: the bytes the sort buffer may hold; past it the oldest events go out early
//!   and any event that then comes after a later one is counted *late* (out of order).
//! - **part**, **task**: parallel decoding's unit: a byte range of event blocks with the context it
//!   needs ([`parts::Task`]), decoded anywhere and *merged* into the one reader in file order.
//! - **tick**: a GCAllocationTick event; its *digest* ([`clr::gc::TickDigest`]) is what the model
//!   and insights read of it, made by the part that decoded it.
//! - **tick lane**: where the sort buffer keeps digested ticks apart; the ticks between two other
//!   events reach the consumer as one [`ticks::TickBatch`]; which consumers get it is
//!   [`Consumer`]'s choice, made in one place (`consumer.rs`).
//! - **insights**: the views beyond the GC table (allocations, budgets, roots, suspensions,
//!   counters...), built beside the model ([`gc::insights`]).
//! - **findings**: ranked problems, each from one *rule* of one table ([`findings::rules`]).
//! - **DATAS**: Dynamic Adaptation To Application Sizes, server GC changing its heap count
//!   ([`gc::datas`]).
//! - **GC span**: from the first complete GC's start to the trace's last GCHeapStats (TraceEvent's
//!   ProcessDuration), the base of a rollup's `gc_span_pause_pct`.
//! - **definitions**: every serialized figure's label, unit and meaning ([`gc::definitions`]), the
//!   source of `docs/reference/model.md`, `docs/reference/insights.md` and the app's hover text.
//! - **machine-wide trace**: an .etl holds every process; [`gc::ProcessRouter`] makes a model per
//!   process.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod bytes;
pub mod clr;
pub mod compare;
mod consumer;
pub mod container;
pub mod ctf;
#[cfg(feature = "encode")]
pub mod encode;
pub mod error;
pub mod etl;
pub mod event;
pub mod filter;
pub mod findings;
pub mod gc;
pub mod heap;
pub(crate) mod inflate;
pub mod latency;
pub mod nettrace;
pub mod parts;
pub mod reader;
pub mod sink;
pub mod sort;
pub mod stacks;
pub mod ticks;

pub use filter::Interest;
pub use reader::{decode_all, DecodeStats, TraceReader};
pub use ticks::Consumer;
