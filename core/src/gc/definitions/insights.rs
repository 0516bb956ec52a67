//! The insights' figures (paths from the [`crate::gc::insights::Insights`] root; array elements
//! share their array's path; `.*.` stands for each generation gen0, gen1, gen2, loh, poh; a path
//! ending `.*` covers each key of a small group: small/large/pinned, soh/loh/poh/read_only/total,
//! gen0..poh, or the ten root kinds), with how they are made (`docs/reference/insights.md`).

use super::{d, Definition};

/// Groups whose keys share one definition (`allocations.by_kind.*`).
pub const KEY_GROUPS: &[&str] = &[
    "allocations.by_kind",
    "allocations.ticks_by_kind",
    "allocations.top_types.by_kind",
    "allocations.over_time.bytes",
    "allocations.tick_bins.bins.types.bytes",
    "allocations.tick_bins.ticks_by_kind",
    "roots.total",
    "roots.per_gc.marked",
    "segments.reserved_over_time.bytes",
    "segments.range_snapshots.used_bytes",
    "segments.range_snapshots.reserved_bytes",
];

pub const ALLOCATION_FIELDS: &[Definition] = &[
    d("allocations.has_events", "Has ticks", "bool", "The trace has GCAllocationTick events (GC keyword 0x1 at Verbose level)."),
    d("allocations.tick_count", "Ticks", "count", "GCAllocationTick events. The runtime fires one each time about 100 KB more has been allocated on a heap for one kind (small, large, pinned)."),
    d("allocations.sampled_bytes", "Sampled bytes", "bytes", "Sum of AllocationAmount over all ticks: the bytes allocated between ticks. An estimate of what the program allocated (the bytes since the last tick on each heap at the trace end are not counted), not an exact count."),
    d("allocations.by_kind.*", "Bytes by kind", "bytes", "Sampled bytes per kind: small = small object heap (gen0), large = large object heap (objects of 85,000 bytes or more), pinned = pinned object heap (.NET 5+)."),
    d("allocations.ticks_by_kind.*", "Ticks by kind", "count", "Ticks per kind (small, large, pinned)."),
    d("allocations.top_types.type_name", "Type", "name", "Type of the object whose allocation crossed the ~100 KB threshold (empty for tick versions 0-1, which carry no type)."),
    d("allocations.top_types.sampled_bytes", "Sampled bytes", "bytes", "Sum of AllocationAmount of the ticks naming this type: every byte allocated between two ticks is charged to the type that crossed the threshold, so a type allocated often and in bulk is estimated well and a rare small type may be missed or over-counted (a sampling estimate)."),
    d("allocations.top_types.ticks", "Ticks", "count", "Ticks naming this type (about sampled_bytes / 100 KB)."),
    d("allocations.top_types.by_kind.*", "Bytes by kind", "bytes", "This type's sampled bytes per kind (small, large, pinned)."),
    d("allocations.top_types.pct", "% of sampled", "%", "This type's sampled bytes / all sampled bytes (in the range asked for)."),
    d("allocations.bin_ms", "Bin", "ms", "Width of the over_time bins. With every tick kept (InsightsBuilder::new): 1, 2 or 5 x 10^k ms, at least 1 ms, at most about 200 bins over the ticks' span. Otherwise (the browser, the CLI: memory bounded whatever the number of ticks) the tick bins' width (tick_bins.bin_ms), over_time then listing the bins with ticks and a zero bin at each edge of a gap."),
    d("allocations.over_time.start_ms", "Bin start", "ms", "Start of the bin (a multiple of bin_ms)."),
    d("allocations.over_time.end_ms", "Bin end", "ms", "End of the bin (exclusive)."),
    d("allocations.over_time.bytes.*", "Bytes by kind", "bytes", "Sampled bytes of the ticks in the bin, per kind (small, large, pinned)."),
    d("allocations.over_time.rate_bytes_per_s", "Alloc rate", "bytes/s", "Sampled bytes in the bin / bin seconds (the estimate's allocation rate)."),
    d("allocations.type_names", "Type names", "name", "The distinct type names; samples refer to them by index. samples holds every tick only from InsightsBuilder::new; from keeping_samples_in, the ticks of that range; from bounded, none."),
    d("allocations.samples.ms", "Time", "ms", "Time of the tick."),
    d("allocations.samples.type_index", "Type #", "count", "Index of the tick's type in type_names."),
    d("allocations.samples.bytes", "Bytes", "bytes", "AllocationAmount64 (AllocationAmount before version 2): bytes allocated on this heap and kind since its previous tick."),
    d("allocations.samples.kind", "Kind", "name", "Small, Large or Pinned."),
    d("allocations.samples.heap", "Heap", "count", "Heap that allocated (HeapIndex, version 2+)."),
    d("allocations.tick_bins.bin_ms", "Bin", "ms", "Width of the tick bins: a power of two of ms, from 1 ms, doubled whenever more than 512 bins hold ticks (so the bins stay bounded however long the trace)."),
    d("allocations.tick_bins.bins.start_ms", "Bin start", "ms", "Start of the bin (a multiple of bin_ms); only bins with ticks are listed."),
    d("allocations.tick_bins.bins.types.type_index", "Type #", "count", "Index of the type in type_names."),
    d("allocations.tick_bins.bins.types.bytes.*", "Bytes by kind", "bytes", "Exact sum of AllocationAmount of this type's ticks in the bin, per kind (small, large, pinned)."),
    d("allocations.tick_bins.bins.types.ticks", "Ticks", "count", "This type's ticks in the bin."),
    d("allocations.tick_bins.ticks_by_kind.*", "Ticks by kind", "count", "Ticks per kind over the whole trace (small, large, pinned)."),
];

pub const BUDGET_FIELDS: &[Definition] = &[
    d("budgets.gc_number", "GC #", "count", "The GC (one row per GC with GCPerHeapHistory)."),
    d("budgets.gen", "Gen", "gen", "Generation the GC collected."),
    d("budgets.start_ms", "Pause start", "ms", "The GC's pause start."),
    d("budgets.reason", "Trigger", "name", "GCStart's reason."),
    d("budgets.induced", "Induced", "bool", "The program asked for the GC."),
    d("budgets.initial_gen", "Initial gen", "gen", "Generation first chosen when the GC was triggered (condemn reasons of the deciding heap)."),
    d("budgets.budget_exceeded_gen", "Budget exceeded", "gen", "Generation the allocation budgets condemned (TraceEvent's Alloc_Exceeded): the condemn reasons' budget generation, raised to 2 by the max_gen1 condition (gen1 over its budget, so gen2 is collected). The 2-bit field cannot tell gen0 from none, so 0 is reported only when the trigger was AllocSmall (the gen0 budget), else null."),
    d("budgets.time_tuning_gen", "Time tuning gen", "gen", "Generation chosen because too long passed since it was last collected (0 = none)."),
    d("budgets.conditions", "Conditions", "name", "Condemn conditions that raised the generation (see docs/reference/model.md's condition table)."),
    d("budgets.escalated", "Escalated", "bool", "The GC collected an older generation than first chosen: gen > initial_gen (\"why did my gen0 GC become gen2\")."),
    d("budgets.why", "Why", "name", "One line: trigger, the generation first chosen and collected, and what raised it (budget exceeded, time tuning, conditions, induced)."),
    d("budgets.total.*.budget_bytes", "Budget", "bytes", "NewAllocation summed over heaps, read as the runtime's signed value: the allocation budget left for the generation when the GC ended (for a generation this GC collected, its new desired allocation; for an older one, what remains after this GC's promotions into it; negative = exceeded)."),
    d("budgets.total.*.size_before_bytes", "Size before", "bytes", "Generation size at GC start, free space included (GCPerHeapHistory SizeBefore, summed over heaps)."),
    d("budgets.total.*.size_after_bytes", "Size after", "bytes", "Generation size at GC end, free space included (SizeAfter)."),
    d("budgets.total.*.obj_size_before_bytes", "Objects before", "bytes", "Object bytes at GC start: SizeBefore - FreeListSpaceBefore - FreeObjSpaceBefore."),
    d("budgets.total.*.obj_size_after_bytes", "Objects after", "bytes", "Object bytes at GC end: SizeAfter - FreeListSpaceAfter - FreeObjSpaceAfter."),
    d("budgets.total.*.survived_bytes", "Survived", "bytes", "PinnedSurv + NonPinnedSurv: bytes of the generation that survived (promoted out of it, or kept in it when it is the oldest)."),
    d("budgets.total.*.in_bytes", "In", "bytes", "Bytes promoted into the generation by this GC (In)."),
    d("budgets.total.*.fragmentation_bytes", "Frag", "bytes", "Free space left after the GC: FreeListSpaceAfter + FreeObjSpaceAfter."),
    d("budgets.total.*.allocated_since_previous_bytes", "Allocated", "bytes", "gen0, LOH and POH only: objects before this GC minus objects after the GC that ended last before it started (same heap): what the program allocated into the generation in between, i.e. the budget it used."),
    d("budgets.total.*.previous_budget_bytes", "Prev budget", "bytes", "gen0, LOH and POH only: the NewAllocation the previous GC left for the generation: the budget this allocation ran against."),
    d("budgets.total.*.budget_used_pct", "Budget used %", "%", "allocated_since_previous / previous_budget: above 100 means the budget was exceeded (the GC's trigger when it is AllocSmall or AllocLarge)."),
    d("budgets.heaps.heap", "Heap", "count", "Heap index."),
    d("budgets.heaps.budget_exceeded_gen", "Budget exceeded", "gen", "This heap's generation condemned by allocation budgets (same reading as budget_exceeded_gen)."),
    d("budgets.heaps.generations.*.budget_bytes", "Budget", "bytes", "This heap's NewAllocation (signed)."),
    d("budgets.heaps.generations.*.size_before_bytes", "Size before", "bytes", "This heap's SizeBefore."),
    d("budgets.heaps.generations.*.size_after_bytes", "Size after", "bytes", "This heap's SizeAfter."),
    d("budgets.heaps.generations.*.obj_size_before_bytes", "Objects before", "bytes", "This heap's object bytes at GC start."),
    d("budgets.heaps.generations.*.obj_size_after_bytes", "Objects after", "bytes", "This heap's object bytes at GC end."),
    d("budgets.heaps.generations.*.survived_bytes", "Survived", "bytes", "This heap's PinnedSurv + NonPinnedSurv."),
    d("budgets.heaps.generations.*.in_bytes", "In", "bytes", "This heap's In."),
    d("budgets.heaps.generations.*.fragmentation_bytes", "Frag", "bytes", "This heap's free space after the GC."),
    d("budgets.heaps.generations.*.allocated_since_previous_bytes", "Allocated", "bytes", "This heap: objects before minus objects after the previous GC (gen0, LOH, POH)."),
    d("budgets.heaps.generations.*.previous_budget_bytes", "Prev budget", "bytes", "This heap: the previous GC's NewAllocation (gen0, LOH, POH)."),
    d("budgets.heaps.generations.*.budget_used_pct", "Budget used %", "%", "This heap: allocated / previous budget."),
];

pub const ROOT_FIELDS: &[Definition] = &[
    d("roots.has_events", "Has events", "bool", "The trace has GCMarkWithType events (.NET Core 2.2+; GC keyword, Informational)."),
    d("roots.event_count", "Events", "count", "GCMarkWithType events: one per heap and root kind per GC, fired when the GC finishes marking from that kind of root."),
    d("roots.total.*", "Marked", "bytes", "Bytes marked (found live) from each root kind over all GCs: stack (thread stacks), finalize_queue (objects ready for finalization), handles (strong and pinned GC handles), older (references from older generations, via cards), sized_ref, overflow (mark-stack overflow processing), dependent_handles, new_finalize_queue, steal (work stolen between server GC threads), bgc (background GC)."),
    d("roots.total_bytes", "Marked total", "bytes", "Sum of the marked bytes of every kind and GC."),
    d("roots.by_kind.kind", "Root kind", "name", "Root kind (the names of roots.total), most bytes first."),
    d("roots.by_kind.bytes", "Marked", "bytes", "Bytes marked from this kind over all GCs."),
    d("roots.by_kind.pct", "% of marked", "%", "bytes / total_bytes."),
    d("roots.by_kind.gcs", "GCs", "count", "GCs in which this kind marked any bytes."),
    d("roots.per_gc.gc_number", "GC #", "count", "The GC (one row per GC with GCMarkWithType events)."),
    d("roots.per_gc.gen", "Gen", "gen", "Generation it collected."),
    d("roots.per_gc.start_ms", "Pause start", "ms", "The GC's pause start."),
    d("roots.per_gc.marked.*", "Marked", "bytes", "Bytes this GC marked from each root kind, summed over heaps (the model's marked_bytes)."),
    d("roots.per_gc.total_bytes", "Marked total", "bytes", "Sum over root kinds for this GC."),
];

pub const COMPACTION_FIELDS: &[Definition] = &[
    d("compaction.has_events", "Has events", "bool", "The trace has GCBulkMovedObjectRanges or GCBulkSurvivingObjectRanges (GCHeapSurvivalAndMovement keyword 0x400000)."),
    d("compaction.moved_events", "Moved events", "count", "GCBulkMovedObjectRanges events."),
    d("compaction.surviving_events", "Surviving events", "count", "GCBulkSurvivingObjectRanges events."),
    d("compaction.moved_bytes", "Moved", "bytes", "Sum of RangeLength over all moved ranges: bytes the compacting GCs reported as moved (including ranges whose new address equals the old)."),
    d("compaction.relocated_bytes", "Relocated", "bytes", "Bytes of moved ranges whose new address differs from the old one: really copied."),
    d("compaction.surviving_bytes", "Surviving", "bytes", "Sum of RangeLength over all surviving ranges (sweeping GCs report survivors in place)."),
    d("compaction.unattributed_events", "Outside GCs", "count", "Range events outside every GC's window (pause start to GCEnd)."),
    d("compaction.per_gc.gc_number", "GC #", "count", "The GC whose window (pause start to GCEnd; the innermost when a foreground GC runs inside a background GC) holds the events."),
    d("compaction.per_gc.gen", "Gen", "gen", "Generation it collected."),
    d("compaction.per_gc.moved_ranges", "Moved ranges", "count", "Moved ranges reported for the GC."),
    d("compaction.per_gc.moved_bytes", "Moved", "bytes", "Sum of their RangeLength."),
    d("compaction.per_gc.relocated_bytes", "Relocated", "bytes", "Bytes of moved ranges with a new address different from the old."),
    d("compaction.per_gc.surviving_ranges", "Surviving ranges", "count", "Surviving ranges reported for the GC."),
    d("compaction.per_gc.surviving_bytes", "Surviving", "bytes", "Sum of their RangeLength."),
];

pub const SUSPENSION_FIELDS: &[Definition] = &[
    d("suspensions.has_events", "Has events", "bool", "The trace has GCSuspendEEBegin events."),
    d("suspensions.count", "Suspensions", "count", "GCSuspendEEBegin events: every time the runtime stopped managed threads, for any reason."),
    d("suspensions.by_reason.reason", "Reason", "name", "GCSuspendEEBegin Reason: SuspendForGC, SuspendForGCPrep (background GC), SuspendOther (e.g. tiered compilation, thread abort), SuspendForDebugger, SuspendForShutdown, ..."),
    d("suspensions.by_reason.count", "Count", "count", "Suspensions with this reason."),
    d("suspensions.by_reason.total_suspend_ms", "Total suspend", "ms", "Sum of time to suspend (SuspendEEBegin to SuspendEEEnd)."),
    d("suspensions.by_reason.max_suspend_ms", "Max suspend", "ms", "Longest time to suspend."),
    d("suspensions.by_reason.total_pause_ms", "Total pause", "ms", "Sum of time threads stayed suspended (SuspendEEBegin to RestartEEEnd)."),
    d("suspensions.by_reason.max_pause_ms", "Max pause", "ms", "Longest such pause."),
    d("suspensions.per_gc.gc_number", "GC #", "count", "The GC: for SuspendForGC the first GC whose GCStart falls inside the suspension, for SuspendForGCPrep the background GC running when it began."),
    d("suspensions.per_gc.gen", "Gen", "gen", "Generation it collected."),
    d("suspensions.per_gc.count", "Suspensions", "count", "Suspensions for this GC (a background GC makes more than one)."),
    d("suspensions.per_gc.reasons", "Reasons", "name", "Their reasons."),
    d("suspensions.per_gc.total_suspend_ms", "Time to suspend", "ms", "Time to suspend the threads, summed over its suspensions."),
    d("suspensions.per_gc.max_suspend_ms", "Max suspend", "ms", "Its longest time to suspend."),
    d("suspensions.per_gc.total_pause_ms", "Pause", "ms", "SuspendEEBegin to RestartEEEnd, summed over its suspensions."),
    d("suspensions.for_gc.begin_ms", "Begin", "ms", "Time of SuspendEEBegin."),
    d("suspensions.for_gc.reason", "Reason", "name", "SuspendForGC or SuspendForGCPrep."),
    d("suspensions.for_gc.reason_code", "Reason #", "count", "The numeric reason."),
    d("suspensions.for_gc.thread", "Thread", "count", "OS thread that suspended the runtime."),
    d("suspensions.for_gc.suspend_ms", "Suspend", "ms", "SuspendEEBegin to the next SuspendEEEnd (null if none)."),
    d("suspensions.for_gc.pause_ms", "Pause", "ms", "SuspendEEBegin to the next RestartEEEnd (null if none)."),
    d("suspensions.for_gc.gc_number", "GC #", "count", "The GC it was for (see per_gc)."),
    d("suspensions.not_for_gc.begin_ms", "Begin", "ms", "Time of SuspendEEBegin of a suspension not for a GC."),
    d("suspensions.not_for_gc.reason", "Reason", "name", "Its reason (SuspendOther, SuspendForDebugger, ...)."),
    d("suspensions.not_for_gc.reason_code", "Reason #", "count", "The numeric reason."),
    d("suspensions.not_for_gc.thread", "Thread", "count", "OS thread that suspended the runtime."),
    d("suspensions.not_for_gc.suspend_ms", "Suspend", "ms", "Time to suspend."),
    d("suspensions.not_for_gc.pause_ms", "Pause", "ms", "Time threads stayed suspended."),
    d("suspensions.not_for_gc.gc_number", "GC #", "count", "Always null: not for a GC."),
];

pub const FINALIZATION_FIELDS: &[Definition] = &[
    d("finalization.has_events", "Has events", "bool", "The trace has GCFinalizersEnd, FinalizeObject or GCHeapStats finalization figures."),
    d("finalization.finalizers_run", "Finalizers run", "count", "Sum of GCFinalizersEnd Count: objects whose finalizer the finalizer thread ran during the trace."),
    d("finalization.runs.begin_ms", "Begin", "ms", "GCFinalizersBegin: the finalizer thread woke up to run a batch."),
    d("finalization.runs.end_ms", "End", "ms", "GCFinalizersEnd."),
    d("finalization.runs.duration_ms", "Duration", "ms", "end - begin."),
    d("finalization.runs.count", "Finalized", "count", "GCFinalizersEnd Count: finalizers run in the batch."),
    d("finalization.runs.after_gc", "After GC #", "count", "The GC that ended last before the batch began (the one that queued these objects)."),
    d("finalization.per_gc.gc_number", "GC #", "count", "The GC (every GC with GCHeapStats)."),
    d("finalization.per_gc.gen", "Gen", "gen", "Generation it collected."),
    d("finalization.per_gc.promoted_bytes", "Finalization promoted", "bytes", "GCHeapStats FinalizationPromotedSize: bytes of dead finalizable objects this GC kept alive (with everything they reference) so their finalizers can run."),
    d("finalization.per_gc.promoted_count", "Finalization promoted #", "count", "GCHeapStats FinalizationPromotedCount: objects queued for finalization by this GC."),
    d("finalization.per_gc.finalizers_run", "Finalizers run", "count", "Sum of GCFinalizersEnd Count of the batches attributed to this GC (null without GCFinalizersEnd events)."),
    d("finalization.finalize_object_events", "FinalizeObject events", "count", "FinalizeObject events (GCHeapAndTypeNames keyword): one per finalizer run."),
    d("finalization.by_type.type_name", "Type", "name", "Type of the finalized objects (from the private event's name or Type/BulkType; else the type id)."),
    d("finalization.by_type.count", "Finalized", "count", "FinalizeObject events for this type."),
];

pub const PRESSURE_FIELDS: &[Definition] = &[
    d("memory_pressure.has_events", "Has events", "bool", "The trace has IncreaseMemoryPressure / DecreaseMemoryPressure events (ids 200/201)."),
    d("memory_pressure.increase_count", "Adds", "count", "IncreaseMemoryPressure events: GC.AddMemoryPressure calls (and the runtime's own)."),
    d("memory_pressure.decrease_count", "Removes", "count", "DecreaseMemoryPressure events: GC.RemoveMemoryPressure calls."),
    d("memory_pressure.increased_bytes", "Added", "bytes", "Sum of BytesAllocated of the increases."),
    d("memory_pressure.decreased_bytes", "Removed", "bytes", "Sum of BytesFreed of the decreases."),
    d("memory_pressure.net_bytes", "Net at end", "bytes", "increased - decreased: unmanaged memory the program says is still held, counted from the trace start."),
    d("memory_pressure.peak_net_bytes", "Peak net", "bytes", "Highest running net total."),
    d("memory_pressure.over_time.ms", "Time", "ms", "Time of the event."),
    d("memory_pressure.over_time.delta_bytes", "Change", "bytes", "+bytes for an increase, -bytes for a decrease."),
    d("memory_pressure.over_time.net_bytes", "Net", "bytes", "Running net total after the event."),
];

pub const SEGMENT_FIELDS: &[Definition] = &[
    d("segments.has_events", "Has events", "bool", "The trace has GCCreateSegment, GCFreeSegment or GCGenerationRange events."),
    d("segments.created", "Created", "count", "GCCreateSegment events: segments (regions on .NET 7+) the GC reserved."),
    d("segments.freed", "Freed", "count", "GCFreeSegment events."),
    d("segments.segments.address", "Address", "address", "Start address of the segment."),
    d("segments.segments.size_bytes", "Size", "bytes", "Reserved size (GCCreateSegment Size); null when only its free was seen."),
    d("segments.segments.kind", "Kind", "name", "SOH, LOH, POH or ReadOnly (frozen); Unknown when only its free was seen."),
    d("segments.segments.created_ms", "Created", "ms", "Time of GCCreateSegment (null: created before the trace)."),
    d("segments.segments.freed_ms", "Freed", "ms", "Time of GCFreeSegment (null: still reserved at the end)."),
    d("segments.reserved_over_time.ms", "Time", "ms", "Time of a create or free."),
    d("segments.reserved_over_time.bytes.*", "Reserved", "bytes", "Bytes of segments created in the trace and not yet freed, per kind (soh, loh, poh, read_only) and total."),
    d("segments.generation_range_events", "Range events", "count", "GCGenerationRange events (GCHeapSurvivalAndMovement keyword): the GC describing each generation's address ranges."),
    d("segments.range_snapshots.ms", "Time", "ms", "Time of the first GCGenerationRange of a burst (consecutive range events: the GC describes its heap at once)."),
    d("segments.range_snapshots.gc_number", "GC #", "count", "The GC whose window holds the burst."),
    d("segments.range_snapshots.ranges", "Ranges", "count", "Ranges in the burst."),
    d("segments.range_snapshots.used_bytes.*", "Used", "bytes", "RangeUsedLength summed per generation (gen0, gen1, gen2, loh, poh)."),
    d("segments.range_snapshots.reserved_bytes.*", "Reserved", "bytes", "RangeReservedLength summed per generation."),
];

pub const COUNTER_FIELDS: &[Definition] = &[
    d("counters.gc_number", "GC #", "count", "The GC at whose end the counters were updated (one sample per complete GC, in GCEnd order)."),
    d("counters.ms", "Time", "ms", "Its GCEnd."),
    d("counters.gen0_collections", "# Gen 0 Collections", "count", "Gen0 collections since the trace start: every GC (a gen1 or gen2 GC collects gen0 too, and the classic counter counts it)."),
    d("counters.gen1_collections", "# Gen 1 Collections", "count", "Gen1 collections since the trace start (gen1 and gen2 GCs)."),
    d("counters.gen2_collections", "# Gen 2 Collections", "count", "Gen2 (full) collections since the trace start, background ones included."),
    d("counters.induced_gcs", "# Induced GC", "count", "GCs the program asked for (GC.Collect and friends) since the trace start."),
    d("counters.gen0_heap_size_bytes", "Gen 0 heap size", "bytes", "As the classic counter: not gen0's size but its budget, the bytes that may be allocated in gen0 before the next GC (FinalYoungestDesired; the gen0 NewAllocation without it)."),
    d("counters.gen1_heap_size_bytes", "Gen 1 heap size", "bytes", "Gen1 size after the GC (GCHeapStats)."),
    d("counters.gen2_heap_size_bytes", "Gen 2 heap size", "bytes", "Gen2 size after the GC."),
    d("counters.loh_size_bytes", "Large Object Heap size", "bytes", "LOH size after the GC."),
    d("counters.poh_size_bytes", "Pinned Object Heap size", "bytes", "POH size after the GC (.NET 5+; no classic counter)."),
    d("counters.bytes_in_all_heaps", "# Bytes in all Heaps", "bytes", "Gen 1 + Gen 2 + LOH (+ POH) sizes, as the classic counter: gen0 is left out (its counter is a budget)."),
    d("counters.promoted_from_gen0_bytes", "Promoted Memory from Gen 0", "bytes", "Bytes that survived the GC in gen0 and moved to gen1 (GCHeapStats TotalPromotedSize0)."),
    d("counters.promoted_from_gen1_bytes", "Promoted Memory from Gen 1", "bytes", "Bytes that survived in gen1 and moved to gen2 (TotalPromotedSize1); 0 after a gen0 GC."),
    d("counters.promoted_finalization_from_gen0_bytes", "Promoted Finalization-Memory from Gen 0", "bytes", "Bytes kept alive only because they wait for finalization (FinalizationPromotedSize)."),
    d("counters.finalization_survivors", "Finalization Survivors", "count", "Objects that survived only because they wait for finalization (FinalizationPromotedCount)."),
    d("counters.gc_handles", "# GC Handles", "count", "GC handles in use (GCHeapStats GCHandleCount)."),
    d("counters.pinned_objects", "# of Pinned Objects", "count", "Pinned objects the GC found (PinnedObjectCount)."),
    d("counters.sync_blocks_in_use", "# of Sink Blocks in use", "count", "Sync blocks in use (SinkBlockCount): locks, hash codes, COM interop data."),
    d("counters.time_in_gc_pct", "% Time in GC", "%", "Time in this GC as a share of the time since the previous GC ended: pause / (pause + time since the previous GC) (the model's pause_pct; the classic counter used the same interval)."),
    d("counters.total_committed_bytes", "# Total committed Bytes", "bytes", "Memory the GC heap had committed when the GC ended, as GCMemoryInfo.TotalCommittedBytes: the last GC/CommittedUsage event (.NET 8+) during the GC, in use + in free + in global decommit + in global free (the GC's own bookkeeping left out); null without it."),
    d("counters.allocated_bytes_per_s", "Allocated Bytes/sec", "bytes/s", "Bytes allocated between the previous GC and this one / that interval (the model's alloc_rate_bytes_per_s); the classic counter too was updated only at GCs."),
];

pub(super) const METHOD: &str = "\
## How the figures are made

* **Allocations are sampled.** GCAllocationTick fires each time about 100 KB (per heap and kind) has
  been allocated; its AllocationAmount is the bytes since the previous tick, charged to the type of
  the object that crossed the threshold. Sampled bytes = sum of AllocationAmount, an estimate (good
  for types allocated a lot, rough for rare ones), not an exact count. On the fixture traces (whole runs)
  the total is within 0.3 % of GC.GetTotalAllocatedBytes on .NET 8 and within 8.3 % on .NET Core 3.1.
  `Allocations::top_types_in(from_ms, to_ms)`
  and `Allocations::rate_over_time(bin_ms)` give the same figures for any range or bin width (within
  the ticks the builder kept).
* **GC attribution is by time.** A record belongs to the GC whose window (pause start to GCEnd)
  contains it, the most recently started when windows nest (a foreground GC inside a background GC).
  Suspensions for GC belong to the first GC whose GCStart falls inside them, or (SuspendForGCPrep) to
  the background GC running. Finalizer batches belong to the GC that ended last before they began.
* **Per-GC figures the model has are reused**: budgets come from the model's per-heap
  GCPerHeapHistory, mark roots from its `marked_bytes`, counters from its GCHeapStats figures.

## API for views

* `InsightsBuilder::new()` (every allocation tick kept: memory grows with them, ~40 bytes a tick),
  `bounded()` (ticks only as per-type sums in at most 512 time bins: the browser and the CLI) or
  `keeping_samples_in(from_ms, to_ms)` (bounded, and that range's ticks kept: `gcscope allocs --from/--to`);
  `on_event(&Event)` beside `ModelBuilder::on_event`, then `finish(&GcModel) -> Insights`; or
  `analyze_with_insights(bytes) -> (GcModel, Insights)`.
* `Allocations::samples_in(from_ms, to_ms)`, `totals_in(from_ms, to_ms)` (bytes per kind, ticks),
  `top_types_in(from_ms, to_ms)`, `rate_over_time(bin_ms)`, `type_name(&sample)`.
* `GenBudgets::get(i)` (0..=4: gen0, gen1, gen2, LOH, POH); `root_values(&RootMarks)` in
  `ROOT_KINDS` order.
* `gc::definitions::TABLES` (every table, model and insights), `gc::definitions::insights_field(json_path)`
  for hover text.
";
