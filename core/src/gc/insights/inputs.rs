//! What the insights builder collected from the events, before it meets the GC rows: compact,
//! serializable, and independent of the rows. So the insights can be finished where the rows are:
//! the browser's worker sends these records and the rows away as it goes, and the page finishes
//! each view's figures from them only when that view is opened.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::tick_bins::TickBins;
use super::types::*;
use crate::gc::packed::{HeapSource, InRows};
use crate::gc::Gc;

/// One GCBulkMovedObjectRanges / GCBulkSurvivingObjectRanges event, summed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct RangeEvent {
    pub ms: f64,
    pub moved: bool,
    pub ranges: u64,
    pub bytes: u64,
    /// Moved ranges whose new address differs from the old one.
    pub relocated_bytes: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct FinalizerEnd {
    pub begin_ms: Option<f64>,
    pub end_ms: f64,
    pub count: u32,
}

/// The event records of [`super::InsightsBuilder`], from `InsightsBuilder::into_inputs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InsightInputs {
    pub(crate) type_names: Vec<String>,
    /// Per-tick records (empty from a bounded builder).
    pub(crate) samples: Vec<AllocSample>,
    pub(crate) tick_bins: TickBins,
    pub(crate) mark_events: u64,
    pub(crate) range_events: Vec<RangeEvent>,
    pub(crate) suspensions: Vec<Suspension>,
    pub(crate) finalizer_ends: Vec<FinalizerEnd>,
    pub(crate) finalize_objects: BTreeMap<u64, u64>,
    /// Names of the finalized types (from FinalizeObject, else Type/BulkType).
    pub(crate) finalized_type_names: BTreeMap<u64, String>,
    pub(crate) finalize_object_events: u64,
    pub(crate) pressure: MemoryPressure,
    pub(crate) segments: Segments,
    pub(crate) committed: Vec<(f64, u64)>,
}

impl InsightInputs {
    /// The memory-pressure records (for a consumer that thins them before shipping).
    pub fn memory_pressure_mut(&mut self) -> &mut MemoryPressure {
        &mut self.pressure
    }

    /// Attributes the records to the GCs (every row of the trace, in order) and aggregates every
    /// view.
    pub fn finish(self, gcs: &[Gc]) -> Insights {
        self.finish_with(gcs, &InRows(gcs), true)
    }

    /// [`Self::finish`] for rows whose per-heap histories are kept elsewhere (`heaps`), with the
    /// budgets per heap only when `per_heap_budgets` (see [`super::budget_of`]).
    pub fn finish_with(
        self,
        gcs: &[Gc],
        heaps: &dyn HeapSource,
        per_heap_budgets: bool,
    ) -> Insights {
        let mut finalization = super::per_gc::finalization(&self, gcs);
        let names = &self.finalized_type_names;
        let mut by_type: Vec<FinalizedType> = self
            .finalize_objects
            .iter()
            .map(|(id, &count)| FinalizedType {
                type_name: names
                    .get(id)
                    .cloned()
                    .unwrap_or_else(|| alloc::format!("type {id:#x}")),
                count,
            })
            .collect();
        by_type.sort_by(|a, b| b.count.cmp(&a.count).then(a.type_name.cmp(&b.type_name)));
        finalization.by_type = by_type;
        finalization.finalize_object_events = self.finalize_object_events;

        let mut segments = self.segments;
        for snap in &mut segments.range_snapshots {
            snap.gc_number = super::gc_at(gcs, snap.ms).map(|i| gcs[i].number);
        }
        segments.has_events |= segments.generation_range_events > 0;

        Insights {
            budgets: super::per_gc::budgets(gcs, heaps, per_heap_budgets),
            roots: super::per_gc::roots(self.mark_events, gcs),
            compaction: super::per_gc::compaction(&self.range_events, gcs),
            suspensions: super::per_gc::suspensions(self.suspensions, gcs),
            finalization,
            memory_pressure: self.pressure,
            segments,
            counters: super::counters::counters(gcs, &self.committed),
            allocations: super::alloc_view::allocations(
                self.type_names,
                self.samples,
                self.tick_bins,
            ),
        }
    }
}
