//! Typed, zero-copy payloads of the runtime's GC events, one module per event family.
//! Every `parse(payload, version, pointer_size)` accepts each version the runtime has emitted,
//! ignores trailing bytes added by newer versions, and returns a [`PayloadError`] with the offset
//! inside the payload when the payload is too short.
//!
//! [`PayloadError`]: crate::clr::PayloadError

pub mod allocation;
pub mod bgc;
pub mod bulk;
pub mod compact;
pub mod dynamic;
pub mod handles;
pub mod heap;
pub mod history;
pub mod lifecycle;
pub mod mark;
pub mod tuning_codes;
pub mod type_index;

pub use allocation::{AllocationSampled, GcAllocationTick, GcSampledObjectAllocation, TickDigest};
pub use bgc::{Bgc1stSweepEnd, BgcAllocWait, BgcDrainMark, BgcOverflow, BgcRevisit, GcFullNotify};
pub use bulk::{
    BulkKind, BulkType, CwtEdge, Edge, GcBulk, MovedRange, Node, Rcw, RootCcw, RootEdge,
    StaticVarRoot, SurvivingRange, TypeDescription,
};
pub use compact::{FitBucket, GcFitBucketInfo, GcLohCompact, LohCompactHeap};
pub use dynamic::{
    CommittedUsage, DynamicKind, DynamicPayload, GcDynamicEvent, Gen2Sample, HeapCountSample,
    HeapCountTuning, SizeAdaptationFullGcTuning, SizeAdaptationSample, SizeAdaptationTuning,
};
pub use handles::{DestroyGcHandle, PinObjectAtGcTime, PinPlugAtGcTime, SetGcHandle};
pub use heap::{
    GcCreateSegment, GcFreeSegment, GcGenerationRange, GcHeapStats, GcSettings, GcSettingsRundown,
    MemoryPressure,
};
pub use history::{GcGlobalHeapHistory, GcPerHeapHistory, GcPhase, GenData};
pub use lifecycle::{
    GcEnd, GcFinalizeObject, GcFinalizersEnd, GcNoUserData, GcStart, GcSuspendEeBegin, GcTriggered,
};
pub use mark::{GcJoin, GcMark, GcMarkWithType};
pub use type_index::{TypeIndex, TypeRef};
