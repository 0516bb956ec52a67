//! Pinned objects across the trace: PinObjectAtGCTime grouped by type.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::types::{PinSummary, PinnedType, TimePoint};

/// Per-GC pinning figures the pin summary needs (gathered by the summary as rows go by).
#[derive(Debug, Clone, Default)]
pub(crate) struct PinRows {
    /// (GC start, pinned objects seen in it) for every GC.
    pub over_time: Vec<TimePoint>,
    pub gcs_with_pins: u32,
}

#[derive(Debug, Clone, Default)]
pub struct PinTracker {
    index: BTreeMap<String, usize>,
    types: Vec<PinnedType>,
    /// For each type, the GC (by row index + 1) it was last counted in, so `gcs` counts GCs not events.
    last_gc: Vec<usize>,
    pub pinned_object_events: u64,
    pub pinned_plug_events: u64,
}

impl PinTracker {
    pub fn has_events(&self) -> bool {
        self.pinned_object_events > 0
    }

    /// `gc_marker` identifies the GC in progress (number of rows so far).
    pub fn on_pinned_object(&mut self, type_name: &str, size: u64, gc_marker: usize) {
        self.pinned_object_events += 1;
        let i = match self.index.get(type_name) {
            Some(&i) => i,
            None => {
                let i = self.types.len();
                self.index.insert(String::from(type_name), i);
                self.types.push(PinnedType {
                    type_name: String::from(type_name),
                    count: 0,
                    total_bytes: 0,
                    gcs: 0,
                });
                self.last_gc.push(usize::MAX);
                i
            }
        };
        let t = &mut self.types[i];
        t.count += 1;
        t.total_bytes = t.total_bytes.saturating_add(size);
        if self.last_gc[i] != gc_marker {
            self.last_gc[i] = gc_marker;
            t.gcs += 1;
        }
    }

    /// `rows`: every GC's pinned-object count, gathered by the summary as rows go by.
    pub(crate) fn summary(self, rows: PinRows) -> PinSummary {
        let mut by_type = self.types;
        by_type.sort_by(|a, b| {
            b.total_bytes
                .cmp(&a.total_bytes)
                .then_with(|| a.type_name.cmp(&b.type_name))
        });
        let has_events = self.pinned_object_events > 0 || self.pinned_plug_events > 0;
        let pinned_over_time = if has_events {
            rows.over_time
        } else {
            Vec::new()
        };
        PinSummary {
            has_events,
            pinned_object_events: self.pinned_object_events,
            pinned_plug_events: self.pinned_plug_events,
            gcs_with_pins: rows.gcs_with_pins,
            by_type,
            pinned_over_time,
        }
    }
}
