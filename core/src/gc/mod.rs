//! The GC model: one row per collection with PerfView GCStats' figures (and more), rollups by
//! generation, condemn-reason breakdown, GC handles, pinning and process facts.
//!
//! ```text
//! Event ──ingest──▶ ModelBuilder (builder: attribution state machine)
//!                        │ close(gc) ──▶ derive (figures from a GC and its neighbours)
//!                        ▼ finish
//!                    GcModel (summary: rollups, condemn breakdown, handles, pins)
//! ```
//! Streaming: feed events with [`ModelBuilder::on_event`] as the decoder yields them;
//! [`ModelBuilder::completed_gcs`] is the settled prefix of the table at any time, and
//! [`ModelBuilder::drain_completed`] hands settled rows out for a consumer that keeps them elsewhere
//! (the builder then keeps only the few rows later ones look back at; the summaries still cover all).
//! Every serialized figure is defined in [`definitions`].

pub mod alloc_waits;
mod builder;
pub mod datas;
pub mod definitions;
mod derive;
mod handles;
mod ingest;
pub mod insights;
pub mod mode;
pub mod packed;
mod pins;
pub mod processes;
mod raw;
pub mod reasons;
mod rows;
mod summary;
mod types;

pub use builder::ModelBuilder;
pub use processes::{AllProcesses, ProcessChoice, ProcessRouter, ProcessSummary};
pub use summary::{ALLOC_BUDGET, TIME_TUNING};
pub use types::*;

use crate::clr::{self, ClrEvent};
use crate::error::Result;
use crate::event::{Event, TraceInfo};
use crate::filter::Interest;
use crate::reader::{DecodeStats, TraceReader};
use crate::ticks::Consumer;
use insights::InsightsBuilder;

impl ModelBuilder {
    /// Feeds one event (in timestamp order). Events the model has no use for cost a provider check.
    pub fn on_event(&mut self, event: &Event<'_>) {
        ingest::on_event(self, event);
    }

    /// Feeds one event already decoded: `decoded` is what `clr::decode(event)` returned
    /// (`Some(Ok(decoded))`). The same as [`ModelBuilder::on_event`] without decoding again; events
    /// that do not decode (no layout, or a payload error) go to `on_event`. [`feed`] does both for
    /// the model and the insights from one decode.
    pub fn on_clr(&mut self, event: &Event<'_>, decoded: &ClrEvent<'_>) {
        if ingest::begin(self, event) {
            ingest::apply(self, event, decoded);
        }
    }

    /// Closes every GC and computes the whole-trace summaries. `stats` (the decoder's) supplies the
    /// dropped and out-of-order event counts, and the counts of the events a reader filtered with
    /// [`interest`] skipped.
    pub fn finish(mut self, stats: Option<&DecodeStats>) -> GcModel {
        if let Some(s) = stats {
            ingest::add_filtered(&mut self, s);
        }
        let dropped = stats.map(ingest::dropped_events);
        let left_out = stats.map_or(&[][..], |s| &s.left_out_files[..]);
        let mut model = self.finish_model(dropped);
        for (i, n) in left_out.iter().enumerate() {
            model.notes.insert(i, n.clone());
        }
        model.process.out_of_order_events = stats.map_or(0, |s| s.out_of_order_events);
        model
    }
}

/// Feeds one event to the model and the insights, decoding its payload once: the same as
/// `model.on_event(event); insights.on_event(event)`.
pub fn feed(model: &mut ModelBuilder, insights: &mut InsightsBuilder, event: &Event<'_>) {
    if !ingest::begin(model, event) {
        // (A batch of ticks is the model's once `begin` added it up.)
        if let Some(batch) = event.tick_batch() {
            insights.on_tick_batch(batch);
        }
        return;
    }
    // A tick's digest: the part's, else made here, where the type name's check for a zero unit is
    // skipped for a name the insights know (see `TickDigest::of_known`).
    let mut slot = None;
    let tick = ingest::tick_digest(event, &mut slot, |name| insights.known_type(name));
    if let Some((tick, known)) = tick {
        ingest::apply_tick(model, tick);
        insights.on_tick_of_type(event, tick, known);
        return;
    }
    // Matched in place: moving the decoded event out would copy it (a tenth of a tick's cost).
    let decoded = clr::decode(event);
    match &decoded {
        None => {}
        Some(Ok(decoded)) => {
            ingest::apply(model, event, decoded);
            insights.on_clr(event, decoded);
        }
        Some(Err(err)) => ingest::on_payload_error(model, event, err),
    }
}

/// Whether the GC model or its insights read events of `provider` and `event_id` (any version).
/// The others only need counting: a [`TraceReader`] filtered with [`interest`] skips them, and the
/// model takes their counts from the reader's stats in [`ModelBuilder::finish`].
pub fn wants(provider: &str, event_id: u32) -> bool {
    ingest::wants(provider, event_id)
}

/// [`wants`] as a reader filter: the one of a reader for the model ([`Consumer::Model`]).
pub fn interest(provider: &str, event_id: u32, _version: u32) -> Interest {
    if wants(provider, event_id) {
        Interest::Deliver
    } else {
        Interest::Skip
    }
}

/// Decodes a whole trace file (nettrace/netperf, zipped or gzipped) and builds its model.
pub fn analyze(bytes: &[u8]) -> Result<GcModel> {
    let mut reader = TraceReader::for_consumer(Consumer::Model);
    // Event times come precomputed from the decoder; the header only adds process facts.
    let mut b = ModelBuilder::new(&TraceInfo::default());
    {
        let mut sink = |e: &Event<'_>| b.on_event(e);
        reader.push(bytes, &mut sink)?;
        reader.finish(&mut sink)?;
    }
    if let Some(info) = reader.info() {
        b.set_info(info);
    }
    Ok(b.finish(Some(reader.stats())))
}
