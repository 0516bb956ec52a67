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
}
