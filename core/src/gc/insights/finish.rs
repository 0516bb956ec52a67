//! Finishing the insights: the event records ([`InsightInputs`]) meet the GC rows, are attributed to
//! GCs by time and aggregated into one struct per view. Above the records and the per-view
//! aggregations it calls, so none of them depends on it.

use alloc::vec::Vec;

use super::inputs::InsightInputs;
use super::types::*;
use crate::gc::packed::{HeapSource, InRows};
use crate::gc::Gc;

impl InsightInputs {
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
