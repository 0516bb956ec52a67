//! Beyond the GC table: allocations by type, generation budgets, mark roots, compaction,
//! suspensions, finalization, memory pressure, segments/regions and the classic ".NET CLR Memory"
//! counters.
//!
//! ```text
//! Event ──▶ InsightsBuilder (collect: typed runtime events → compact records)
//!                 │ into_inputs()
//!                 ▼
//!            InsightInputs (serializable records, independent of the rows)
//!                 │ finish(&[Gc])  (attribute records to GCs by time, aggregate)
//!                 ▼
//!             Insights (one serializable struct per view)
//! ```
//! `InsightsBuilder::finish(&GcModel)` does both steps; the browser's worker ships the inputs and
//! the page finishes them where the rows are.
//! It runs beside [`super::ModelBuilder`] on the same event stream and reads the finished
//! [`super::GcModel`] for GC boundaries and per-GC figures the model already has (per-heap
//! histories, GCHeapStats counters, marked bytes), so each figure is computed once.
//! Every serialized figure is defined in [`crate::gc::definitions`].

mod alloc_kind;
mod alloc_view;
mod collect;
mod counters;
mod finish;
mod inputs;
mod per_gc;
mod tick_bins;
mod types;

pub use alloc_kind::{AllocKind, KindBytes};
pub use alloc_view::ranked;
pub use collect::InsightsBuilder;
pub use inputs::InsightInputs;
pub use per_gc::{budget_of, budgets_in, root_values, ROOT_KINDS};
pub use tick_bins::{TickBin, TickBins, TypeTicks, MAX_BINS as MAX_TICK_BINS};
pub use types::*;

use super::{Gc, GcModel, ModelBuilder};
use crate::error::Result;
use crate::event::Event;
use crate::reader::TraceReader;
use crate::ticks::Consumer;

/// Decodes a whole trace and builds both the GC model and its insights.
pub fn analyze_with_insights(bytes: &[u8]) -> Result<(GcModel, Insights)> {
    // Only what the model and the insights read is delivered (`gc::wants`); the rest is counted.
    let mut reader = TraceReader::for_consumer(Consumer::ModelAndInsights);
    let mut b = ModelBuilder::new(&crate::event::TraceInfo::default());
    let mut ib = InsightsBuilder::new();
    {
        let mut sink = |e: &Event<'_>| super::feed(&mut b, &mut ib, e);
        reader.push(bytes, &mut sink)?;
        reader.finish(&mut sink)?;
    }
    if let Some(info) = reader.info() {
        b.set_info(info);
    }
    let model = b.finish(Some(reader.stats()));
    let insights = ib.finish(&model);
    Ok((model, insights))
}

/// How far back from the latest GC started before `ms` to look for one whose window holds it
/// (a background GC spans the foreground GCs that run during it).
const LOOKBACK: usize = 64;

/// The GC whose window (pause start .. GCEnd) contains `ms`, the most recently started one when
/// windows nest (a foreground GC inside a background GC). A GC without GCEnd is open to the end.
pub(crate) fn gc_at(gcs: &[Gc], ms: f64) -> Option<usize> {
    gc_at_where(gcs, ms, |_| true)
}

/// Like [`gc_at`], among the GCs that pass `keep`.
pub(crate) fn gc_at_where(gcs: &[Gc], ms: f64, keep: impl Fn(&Gc) -> bool) -> Option<usize> {
    let n = gcs.partition_point(|g| g.start_ms <= ms);
    (n.saturating_sub(LOOKBACK)..n)
        .rev()
        .find(|&i| ms <= gcs[i].end_ms.unwrap_or(f64::INFINITY) && keep(&gcs[i]))
}

/// The GC that ended last at or before `ms`.
pub(crate) fn gc_ended_before(gcs: &[Gc], ms: f64) -> Option<usize> {
    let n = gcs.partition_point(|g| g.start_ms <= ms);
    let mut best: Option<(usize, f64)> = None;
    let lo = n.saturating_sub(LOOKBACK);
    for (i, g) in gcs[lo..n].iter().enumerate() {
        if let Some(e) = g.end_ms.filter(|&e| e <= ms) {
            if best.is_none_or(|(_, b)| e >= b) {
                best = Some((lo + i, e));
            }
        }
    }
    best.map(|(i, _)| i)
}
