//! Event ids of the GC events we decode (ClrEtwAll.man), in one place.

/// Microsoft-Windows-DotNETRuntime.
pub mod runtime {
    /// Method/LoadVerbose: a method's code was made (JIT, or a ReadyToRun method restored).
    pub const METHOD_LOAD_VERBOSE: u32 = 143;
    pub const METHOD_UNLOAD_VERBOSE: u32 = 144;
    /// Loader/ModuleLoad.
    pub const MODULE_LOAD: u32 = 152;
    pub const GC_START: u32 = 1;
    pub const GC_END: u32 = 2;
    pub const GC_RESTART_EE_END: u32 = 3;
    pub const GC_HEAP_STATS: u32 = 4;
    pub const GC_CREATE_SEGMENT: u32 = 5;
    pub const GC_FREE_SEGMENT: u32 = 6;
    pub const GC_RESTART_EE_BEGIN: u32 = 7;
    pub const GC_SUSPEND_EE_END: u32 = 8;
    pub const GC_SUSPEND_EE_BEGIN: u32 = 9;
    pub const GC_ALLOCATION_TICK: u32 = 10;
    pub const GC_CREATE_CONCURRENT_THREAD: u32 = 11;
    pub const GC_TERMINATE_CONCURRENT_THREAD: u32 = 12;
    pub const GC_FINALIZERS_END: u32 = 13;
    pub const GC_FINALIZERS_BEGIN: u32 = 14;
    pub const BULK_TYPE: u32 = 15;
    pub const GC_BULK_ROOT_EDGE: u32 = 16;
    pub const GC_BULK_ROOT_CWT_ELEMENT_EDGE: u32 = 17;
    pub const GC_BULK_NODE: u32 = 18;
    pub const GC_BULK_EDGE: u32 = 19;
    pub const GC_SAMPLED_OBJECT_ALLOCATION_HIGH: u32 = 20;
    pub const GC_BULK_SURVIVING_OBJECT_RANGES: u32 = 21;
    pub const GC_BULK_MOVED_OBJECT_RANGES: u32 = 22;
    pub const GC_GENERATION_RANGE: u32 = 23;
    pub const GC_MARK_STACK_ROOTS: u32 = 25;
    pub const GC_MARK_FINALIZE_QUEUE_ROOTS: u32 = 26;
    pub const GC_MARK_HANDLES: u32 = 27;
    pub const GC_MARK_OLDER_GENERATION_ROOTS: u32 = 28;
    pub const FINALIZE_OBJECT: u32 = 29;
    pub const SET_GC_HANDLE: u32 = 30;
    pub const DESTROY_GC_HANDLE: u32 = 31;
    pub const GC_SAMPLED_OBJECT_ALLOCATION_LOW: u32 = 32;
    pub const PIN_OBJECT_AT_GC_TIME: u32 = 33;
    pub const GC_TRIGGERED: u32 = 35;
    pub const GC_BULK_ROOT_CCW: u32 = 36;
    pub const GC_BULK_RCW: u32 = 37;
    pub const GC_BULK_ROOT_STATIC_VAR: u32 = 38;
    pub const GC_DYNAMIC_EVENT: u32 = 39;
    pub const INCREASE_MEMORY_PRESSURE: u32 = 200;
    pub const DECREASE_MEMORY_PRESSURE: u32 = 201;
    pub const GC_MARK_WITH_TYPE: u32 = 202;
    pub const GC_JOIN: u32 = 203;
    pub const GC_PER_HEAP_HISTORY: u32 = 204;
    pub const GC_GLOBAL_HEAP_HISTORY: u32 = 205;
    pub const GC_LOH_COMPACT: u32 = 208;
    pub const GC_FIT_BUCKET_INFO: u32 = 209;
    pub const ALLOCATION_SAMPLED: u32 = 303;
}

/// Microsoft-Windows-DotNETRuntimePrivate.
pub mod private {
    /// .NET Framework's GC settings at startup (see `GcSettings`).
    pub const GC_SETTINGS: u32 = 2;
    /// .NET Framework's per-heap history (version 2; see `GcPerHeapHistory::parse_framework`).
    pub const GC_PER_HEAP_HISTORY: u32 = 4;
    pub const GC_GLOBAL_HEAP_HISTORY: u32 = 5;
    pub const GC_JOIN: u32 = 6;
    pub const GC_MARK_STACK_ROOTS: u32 = 7;
    pub const GC_MARK_FINALIZE_QUEUE_ROOTS: u32 = 8;
    pub const GC_MARK_HANDLES: u32 = 9;
    pub const GC_MARK_CARDS: u32 = 10;
    pub const BGC_BEGIN: u32 = 11;
    pub const BGC_1ST_NON_CON_END: u32 = 12;
    pub const BGC_1ST_CON_END: u32 = 13;
    pub const BGC_2ND_NON_CON_BEGIN: u32 = 14;
    pub const BGC_2ND_NON_CON_END: u32 = 15;
    pub const BGC_2ND_CON_BEGIN: u32 = 16;
    pub const BGC_2ND_CON_END: u32 = 17;
    pub const BGC_PLAN_END: u32 = 18;
    pub const BGC_SWEEP_END: u32 = 19;
    pub const BGC_DRAIN_MARK: u32 = 20;
    pub const BGC_REVISIT: u32 = 21;
    pub const BGC_OVERFLOW: u32 = 22;
    pub const BGC_ALLOC_WAIT_BEGIN: u32 = 23;
    pub const BGC_ALLOC_WAIT_END: u32 = 24;
    pub const GC_FULL_NOTIFY: u32 = 25;
    pub const BGC_1ST_SWEEP_END: u32 = 26;
    pub const PRV_FINALIZE_OBJECT: u32 = 192;
    pub const PRV_SET_GC_HANDLE: u32 = 194;
    pub const PRV_DESTROY_GC_HANDLE: u32 = 195;
    pub const PIN_PLUG_AT_GC_TIME: u32 = 199;
}

/// Microsoft-Windows-DotNETRuntimeRundown.
pub mod rundown {
    pub const GC_SETTINGS_RUNDOWN: u32 = 10;
    /// Method/DCStartVerbose and Method/DCStopVerbose (TraceEvent's MethodDCStartVerbose,
    /// MethodDCEndVerbose): every method with code when the session starts and ends.
    pub const METHOD_DC_START_VERBOSE: u32 = 143;
    pub const METHOD_DC_END_VERBOSE: u32 = 144;
    /// Loader/ModuleDCStart and ModuleDCStop: every loaded module.
    pub const MODULE_DC_START: u32 = 153;
    pub const MODULE_DC_END: u32 = 154;
}
