//! The GC model's figures: per GC (`gcscope gcs --json`), the rollup by generation, the process
//! facts, and the other parts of a serialized model; with how rows are formed
//! (`docs/reference/model.md`).

use super::{d, Definition};

/// Every field of a serialized [`crate::gc::Gc`].
pub const GC_FIELDS: &[Definition] = &[
    d("number", "GC #", "count", "The runtime's own GC number (GCStart's Count): 1 for the first GC of the process."),
    d("gen", "Gen", "gen", "Generation collected: 0, 1 or 2 (GCStart's Depth). Gen2 GCs also collect the LOH and POH."),
    d("type", "Type", "name", "NonConcurrent (blocking), Background (gen2 marked while the program runs) or Foreground (blocking ephemeral GC during a background GC); Unknown when the GCStart is not in the trace."),
    d("reason", "Trigger", "name", "Why the GC was triggered (GCStart's Reason): AllocSmall = gen0 budget used up, Induced = GC.Collect, AllocLarge = LOH budget, ..."),
    d("reason_code", "Reason #", "count", "The numeric GC reason, for values newer than this table."),
    d("induced", "Induced", "bool", "The program asked for this GC: reason Induced, InducedNotForced, InducedLowMemory, InducedCompacting or InducedAggressive."),
    d("complete", "Complete", "bool", "GCEnd was seen. False when the trace ended during the GC; such rows are kept but left out of rollups."),
    d("missing", "Missing", "name", "Why figures of this row are empty: which of the GC's events the trace does not have."),
    d("start_ms", "Pause start", "ms", "When the pause began: the SuspendEEBegin before GCStart (GCStart itself if none was seen), in ms from the trace start."),
    d("gc_start_ms", "GC start", "ms", "Time of the GCStart event (after suspension), ms from the trace start."),
    d("end_ms", "GC end", "ms", "Time of the GCEnd event, ms from the trace start."),
    d("duration_ms", "Duration", "ms", "GCStart to GCEnd: the GC's own work, without suspension (for a background GC, its whole concurrent run)."),
    d("suspend_ms", "Suspend", "ms", "Time to suspend managed threads: SuspendEEBegin to SuspendEEEnd. For a background GC, every suspension it made, summed. 0 for the ephemeral GC that runs inside a background GC's suspension."),
    d("pause_ms", "Pause", "ms", "Time managed threads were stopped: SuspendEEBegin to RestartEEEnd. For a background GC, its pauses summed (initial suspension plus each later one)."),
    d("bgc_final_pause_ms", "BGC final pause", "ms", "Background GC only: the last pause (suspension for GC prep to restart)."),
    d("bgc_pauses.start_ms", "BGC pause start", "ms", "Background GC only: when one of its pauses began (its first suspension, then each suspension for GC prep). Its pauses add up to pause_ms; a blocking GC's one pause is start_ms to start_ms + pause_ms."),
    d("bgc_pauses.end_ms", "BGC pause end", "ms", "Background GC only: when that pause ended (RestartEEEnd)."),
    d("since_previous_gc_ms", "Since last GC", "ms", "From the end of the previous GC (its GCHeapStats; the trace start for the first) to this GC's pause start; for a background GC, to its GCHeapStats."),
    d("pause_pct", "% Pause", "%", "Pause as a share of the time since the previous GC: pause / (pause + since_previous_gc). Background GC: pause / (its end - previous GC's end)."),
    d("gen0_allocated_bytes", "Gen0 alloc", "bytes", "Bytes the program allocated in gen0 since the previous GC: gen0 object bytes before this GC minus gen0 object bytes after the GC that ended last before it started, summed over heaps; AllocationTick totals when there is no such GC with GCPerHeapHistory, and for background GCs."),
    d("loh_allocated_bytes", "LOH alloc", "bytes", "Bytes allocated in the large object heap since the previous GC (same method as gen0)."),
    d("poh_allocated_bytes", "POH alloc", "bytes", "Bytes allocated in the pinned object heap since the previous GC (same method as gen0; .NET 5+)."),
    d("allocated_bytes", "Alloc", "bytes", "Gen0 + LOH + POH bytes allocated since the previous GC."),
    d("gen0_alloc_rate_bytes_per_s", "Gen0 rate", "bytes/s", "Gen0 bytes allocated per second between the previous GC and this one: gen0_allocated / since_previous_gc."),
    d("alloc_rate_bytes_per_s", "Alloc rate", "bytes/s", "All bytes allocated per second between the previous GC and this one: allocated / since_previous_gc."),
    d("alloc_tick_bytes", "Alloc ticks", "bytes", "Sum of the AllocationTick events' amounts since the previous GC (a sample every ~100 KB; needs Verbose level)."),
    d("before_bytes", "Before", "bytes", "Heap size when the GC started (including free space), summed over generations and heaps from GCPerHeapHistory; estimated from the previous GC's sizes without it."),
    d("peak_bytes", "Peak", "bytes", "Largest heap size seen during this GC: the size before; for a background GC, also the size before each GC that ran while it did."),
    d("after_bytes", "After", "bytes", "Heap size when the GC ended (including free space): all generations of GCHeapStats."),
    d("peak_after_ratio", "Peak/After", "ratio", "peak / after: how much the heap shrank."),
    d("promoted_bytes", "Promoted", "bytes", "Bytes that survived this GC (marked live in the generations it collected), from GCHeapStats."),
    d("generations.*.size_before_bytes", "Size before", "bytes", "Generation size when the GC started, free space included (GCPerHeapHistory, summed over heaps)."),
    d("generations.*.size_after_bytes", "Size after", "bytes", "Generation size when the GC ended, free space included (GCHeapStats)."),
    d("generations.*.promoted_bytes", "Promoted", "bytes", "Bytes of this generation that survived (GCHeapStats TotalPromotedSize); 0 for generations not collected."),
    d("generations.*.survived_bytes", "Survived", "bytes", "Bytes of this generation that survived, pinned and not (GCPerHeapHistory, summed over heaps)."),
    d("generations.*.survival_pct", "Surv %", "%", "survived / object bytes before (size before minus free space), for collected generations only (LOH and POH in gen2 GCs)."),
    d("generations.*.fragmentation_bytes", "Frag", "bytes", "Free space left in the generation after the GC (free list + free objects), summed over heaps."),
    d("generations.*.fragmentation_pct", "Frag %", "%", "fragmentation / size after."),
    d("generations.*.budget_bytes", "Budget", "bytes", "Allocation budget the GC set for the generation (NewAllocation): how much may be allocated/promoted into it before it is collected again."),
    d("generations.*.in_bytes", "In", "bytes", "Bytes that came into this generation during the GC (promoted from the younger one)."),
    d("finalization_promoted_bytes", "Finalizable surv", "bytes", "Bytes of finalizable objects kept alive by this GC so their finalizers can run."),
    d("finalization_promoted_count", "Finalizable #", "count", "Number of finalizable objects kept alive for finalization."),
    d("pinned_object_count", "Pinned #", "count", "Pinned objects the GC found (GCHeapStats)."),
    d("gc_handle_count", "Handles", "count", "GC handles in use at this GC (GCHeapStats)."),
    d("sync_block_count", "Sync blocks", "count", "Sync blocks in use (locks, hash codes, COM data) at this GC."),
    d("heap_count", "Heaps", "count", "Number of GC heaps (GCGlobalHeapHistory NumHeaps; per-heap events counted without it): 1 for workstation GC."),
    d("condemned_gen", "Condemned", "gen", "Generation the GC decided to condemn (GCGlobalHeapHistory)."),
    d("pause_mode", "Latency mode", "name", "GC latency mode at this GC: Batch, Interactive, LowLatency, SustainedLowLatency or NoGC."),
    d("memory_pressure_pct", "Mem load", "%", "Physical memory load the GC saw (GCGlobalHeapHistory MemoryPressure)."),
    d("global_mechanisms", "Mechanisms", "name", "How the GC ran: Concurrent, Compaction (else it swept), Promotion, Demotion, CardBundles, Elevation."),
    d("gen0_budget_bytes", "Gen0 budget", "bytes", "Gen0 allocation budget set after this GC (FinalYoungestDesired), all heaps."),
    d("gen0_reduction_count", "Gen0 reductions", "count", "Times the gen0 budget was reduced (GCGlobalHeapHistory Gen0ReductionCount)."),
    d("phase_times_us.mark_sized_ref", "Mark sized-ref", "us", "Time marking from sized-ref handles (GCGlobalHeapHistory v4, .NET 6+)."),
    d("phase_times_us.mark_roots", "Mark roots", "us", "Time marking from roots (stacks, handles, finalization queue, older generations)."),
    d("phase_times_us.mark_short_weak", "Short weak", "us", "Time clearing short weak references to dead objects."),
    d("phase_times_us.mark_finalization", "Finalization", "us", "Time finding dead finalizable objects and keeping them alive for their finalizers."),
    d("phase_times_us.mark_long_weak", "Long weak", "us", "Time clearing long weak references (includes sync block scanning)."),
    d("phase_times_us.plan", "Plan", "us", "Time planning new object addresses (blocking GCs)."),
    d("phase_times_us.relocate", "Relocate", "us", "Time updating references to moved objects (compacting GCs)."),
    d("phase_times_us.compact", "Compact", "us", "Time copying objects to their new places (compacting GCs; 0 on .NET 6-8 by a runtime bug)."),
    d("phase_times_us.sweep", "Sweep", "us", "Time threading dead space onto free lists (sweeping GCs)."),
    d("condemn.initial_gen", "Initial gen", "gen", "Generation first chosen when the GC was triggered."),
    d("condemn.final_gen", "Final gen", "gen", "Generation finally condemned by the deciding heap."),
    d("condemn.alloc_budget_gen", "Budget gen", "gen", "Highest generation whose allocation budget was exceeded."),
    d("condemn.time_tuning_gen", "Time tuning gen", "gen", "Generation chosen because too long passed since it was last collected (0 = none)."),
    d("condemn.conditions", "Conditions", "name", "Condition reasons that raised the generation (gc.cpp names; see the condition table)."),
    d("condemn.raw0", "Reasons0", "count", "CondemnReasons0 as sent: four 2-bit generations."),
    d("condemn.raw1", "Reasons1", "count", "CondemnReasons1 as sent: one bit per condition."),
    d("heaps.heap", "Heap", "count", "Heap index (server GC has one heap per core, or as configured)."),
    d("heaps.condemn.initial_gen", "Initial gen", "gen", "This heap: generation first chosen."),
    d("heaps.condemn.final_gen", "Final gen", "gen", "This heap: generation it would condemn on its own."),
    d("heaps.condemn.alloc_budget_gen", "Budget gen", "gen", "This heap: highest generation whose budget was exceeded."),
    d("heaps.condemn.time_tuning_gen", "Time tuning gen", "gen", "This heap: generation chosen by time tuning."),
    d("heaps.condemn.conditions", "Conditions", "name", "This heap: condition bits set."),
    d("heaps.condemn.raw0", "Reasons0", "count", "This heap: CondemnReasons0 as sent."),
    d("heaps.condemn.raw1", "Reasons1", "count", "This heap: CondemnReasons1 as sent."),
    d("heaps.compact_mechanism", "Compact why", "name", "Why this heap compacted (compact_*), empty if it swept."),
    d("heaps.expand_mechanism", "Expand how", "name", "How this heap grew its ephemeral space (expand_*), empty if it did not."),
    d("heaps.free_list_allocated_bytes", "Free-list alloc", "bytes", "Bytes promoted into gen2 by allocating from its free list."),
    d("heaps.free_list_rejected_bytes", "Free-list rejected", "bytes", "Bytes of free-list items rejected as too small while promoting."),
    d("heaps.end_of_seg_allocated_bytes", "End-of-seg alloc", "bytes", "Bytes promoted by allocating at the end of the segment."),
    d("heaps.condemned_allocated_bytes", "Condemned alloc", "bytes", "Bytes promoted into space of the condemned generations."),
    d("heaps.pinned_allocated_bytes", "Pinned alloc", "bytes", "Bytes promoted in front of pinned plugs."),
    d("heaps.pinned_allocated_advance_bytes", "Pinned advance", "bytes", "Bytes promoted while advancing past pinned plugs."),
    d("heaps.running_free_list_efficiency_pct", "Free-list eff", "%", "Running share of free-list space the heap manages to use."),
    d("heaps.extra_gen0_commit_bytes", "Extra gen0 commit", "bytes", "Memory committed beyond gen0's budget."),
    d("heaps.generations.size_before_bytes", "Size before", "bytes", "This heap's generation size at GC start, free space included."),
    d("heaps.generations.free_list_before_bytes", "Free list before", "bytes", "Free-list space at GC start."),
    d("heaps.generations.free_obj_before_bytes", "Free obj before", "bytes", "Free objects not on the free list at GC start."),
    d("heaps.generations.size_after_bytes", "Size after", "bytes", "This heap's generation size at GC end, free space included."),
    d("heaps.generations.free_list_after_bytes", "Free list after", "bytes", "Free-list space at GC end."),
    d("heaps.generations.free_obj_after_bytes", "Free obj after", "bytes", "Free objects not on the free list at GC end."),
    d("heaps.generations.in_bytes", "In", "bytes", "Bytes promoted into this generation by the GC."),
    d("heaps.generations.pinned_survived_bytes", "Pinned surv", "bytes", "Surviving bytes that were pinned."),
    d("heaps.generations.non_pinned_survived_bytes", "Non-pinned surv", "bytes", "Surviving bytes that were not pinned."),
    d("heaps.generations.new_allocation_bytes", "Budget", "bytes", "New allocation budget of the generation on this heap."),
    d("heaps.generations.obj_space_before_bytes", "Objects before", "bytes", "Object bytes at GC start: size before minus free list and free objects."),
    d("heaps.generations.survived_bytes", "Survived", "bytes", "Pinned plus non-pinned survived bytes."),
    d("heaps.generations.survival_pct", "Surv %", "%", "survived / objects before on this heap (also for generations not collected)."),
    d("heaps.generations.fragmentation_bytes", "Frag", "bytes", "Free list + free objects after the GC on this heap."),
    d("pinned_objects.handle", "Handle", "address", "The pinning handle (PinObjectAtGCTime HandleID)."),
    d("pinned_objects.address", "Object", "address", "Address of the pinned object."),
    d("pinned_objects.size_bytes", "Size", "bytes", "Size of the pinned object."),
    d("pinned_objects.type_name", "Type", "name", "The pinned object's type."),
    d("pinned_objects_bytes", "Pinned bytes", "bytes", "Bytes of the objects PinObjectAtGCTime reported for this GC (each object once)."),
    d("pinned_plugs.start", "Plug start", "address", "Start of a pinned plug (private PinPlugAtGCTime): a run of live objects the GC could not move."),
    d("pinned_plugs.end", "Plug end", "address", "End of the pinned plug."),
    d("pinned_plugs.gap_before_bytes", "Gap before", "bytes", "Free gap the GC left in front of the plug."),
    d("pinned_plugs.by_user", "By user", "bool", "The plug holds an object the program pinned (one reported by PinObjectAtGCTime)."),
    d("pinned_plug_bytes", "Plug bytes", "bytes", "Total size of the pinned plugs of this GC."),
    d("user_pinned_plug_bytes", "User plug bytes", "bytes", "Size of the pinned plugs that hold a program-pinned object."),
    d("pinned_object_pct", "Pinned obj %", "%", "pinned_objects_bytes / pinned_plug_bytes: how much of the pinned plugs the pinned objects themselves take."),
    d("marked_bytes.stack", "Marked stack", "bytes", "Bytes marked from thread stacks (GCMarkWithType, summed over heaps)."),
    d("marked_bytes.finalize_queue", "Marked FQ", "bytes", "Bytes marked from the finalization queue."),
    d("marked_bytes.handles", "Marked handles", "bytes", "Bytes marked from GC handles."),
    d("marked_bytes.older", "Marked older", "bytes", "Bytes marked through references from older generations (cards)."),
    d("marked_bytes.sized_ref", "Marked sized-ref", "bytes", "Bytes marked from sized-ref handles."),
    d("marked_bytes.overflow", "Marked overflow", "bytes", "Bytes marked while processing mark-stack overflow."),
    d("marked_bytes.dependent_handles", "Marked dependent", "bytes", "Bytes marked through dependent handles (ConditionalWeakTable)."),
    d("marked_bytes.new_finalize_queue", "Marked new FQ", "bytes", "Bytes marked from objects newly queued for finalization."),
    d("marked_bytes.steal", "Marked steal", "bytes", "Bytes marked by work stealing between server GC threads."),
    d("marked_bytes.bgc", "Marked BGC", "bytes", "Bytes marked by the background GC."),
];

/// Fields of [`crate::gc::GenRollup`] (one row per generation plus "all").
pub const ROLLUP_FIELDS: &[Definition] = &[
    d("gen", "Gen", "name", "Generation (0, 1, 2) or \"all\"; only complete GCs are counted."),
    d("count", "Count", "count", "Number of GCs."),
    d("induced_count", "Induced", "count", "GCs the program asked for (see `induced`)."),
    d("background_count", "Background", "count", "Background GCs."),
    d("max_pause_ms", "Max pause", "ms", "Longest pause."),
    d("mean_pause_ms", "Mean pause", "ms", "total_pause / count."),
    d("total_pause_ms", "Total pause", "ms", "Sum of pauses."),
    d("max_suspend_ms", "Max suspend", "ms", "Longest suspension."),
    d("total_duration_ms", "Total GC time", "ms", "Sum of GC durations (GCStart to GCEnd)."),
    d("max_peak_bytes", "Max peak", "bytes", "Largest peak heap size."),
    d("mean_peak_bytes", "Mean peak", "bytes", "Mean peak heap size."),
    d("mean_after_bytes", "Mean after", "bytes", "Mean heap size after GC."),
    d("total_allocated_bytes", "Total alloc", "bytes", "Bytes allocated before these GCs (sum of allocated)."),
    d("max_alloc_rate_bytes_per_s", "Max alloc rate", "bytes/s", "Highest allocation rate before one of these GCs."),
    d("total_promoted_bytes", "Total promoted", "bytes", "Sum of promoted bytes."),
    d("allocated_per_pause_ms_bytes", "Alloc/pause ms", "bytes", "total_allocated / total_pause: bytes the program allocated per ms it was paused."),
    d("promoted_per_gc_ms_bytes", "Survived/GC ms", "bytes", "total_promoted / total GC duration: bytes survived per ms of GC work (PerfView divides by GC CPU time, which EventPipe traces lack)."),
    d("pause_time_pct", "% time paused", "%", "total_pause / the process's time in the trace (trace_duration_ms): the share of the traced time the program was stopped by these GCs. At most 100."),
    d("gc_span_pause_pct", "% of GC span", "%", "total_pause / gc_span_ms: PerfView's \"% Time paused for Garbage Collection\" (TraceEvent's GetGCPauseTimePercentage). Over 100 when the span is shorter than the pauses in it (one GC: the span ends at its GCHeapStats, its pause at the restart after)."),
];

/// Fields of [`crate::gc::ProcessFacts`].
pub const PROCESS_FIELDS: &[Definition] = &[
    d("format", "Format", "name", "Trace container format and version."),
    d("pointer_size", "Pointer size", "bytes", "4 (32-bit process) or 8."),
    d("process_id", "PID", "count", "Traced process id (in a machine-wide ETW trace, the process this model is for)."),
    d("process_name", "Process", "name", "ETW traces: the image name without extension, from the kernel's process events (null when unknown, and for EventPipe traces)."),
    d("processor_count", "CPUs", "count", "Processors of the traced machine."),
    d("runtime_version", "Runtime", "name", "Runtime version from the RuntimeInformation event, when the trace has it (.NET Framework (CLR 4.0.30319.x) for the DesktopClr SKU); in a live session of gcscope serve, until the rundown says it, the runtime's answer to the diagnostics IPC's ProcessInfo2."),
    d("command_line", "Command line", "name", "From the EventPipe ProcessInfo event, or in ETW traces from RuntimeInformation or the kernel's process events; in a live session of gcscope serve, until the stream says it, the runtime's answer to the diagnostics IPC's ProcessInfo."),
    d("os", "OS", "name", "From the EventPipe ProcessInfo event."),
    d("arch", "Arch", "name", "From the EventPipe ProcessInfo event."),
    d("gc_mode", "GC mode", "name", "server or workstation from the events that say it (Runtime/Start flags, GCJoin, 2+ heaps, DATAS events, .NET Framework's GC/Settings; see gc_mode_evidence); null when the trace cannot tell (1 heap alone is not taken for workstation)."),
    d("heap_count", "Heaps", "count", "Most heaps any GC used (GCGlobalHeapHistory; else the per-heap events)."),
    d("heap_count_min", "Fewest heaps", "count", "Fewest heaps any GC used (differs from heap_count only under DATAS)."),
    d("heap_count_changes", "Heap count changes", "count", "GCs whose heap count differs from the GC before (in GC order): DATAS adding or removing heaps."),
    d("datas", "DATAS", "bool", "Server GC adapting its heap count (Dynamic Adaptation To Application Sizes): its SizeAdaptation*/HeapCount* events or a changing heap count; off when GC events are there without them; null when the trace cannot tell."),
    d("concurrent", "Concurrent", "bool", "Background GC enabled: GCSettingsRundown flags, a background GC seen, or Runtime/Start's CONCURRENT_GC flag (.NET 5+)."),
    d("regions", "Regions", "bool", "The GC uses regions (.NET 7+) rather than segments: small (<= 32 MiB) small-object-heap GCCreateSegment events, or the runtime version."),
    d("heap_walk_gc", "Heap walk GC", "count", "The GC during which the runtime walked the heap (its GCBulkNode events: a heap snapshot's induced gen2 GC); null when the trace has no heap walk."),
    d("hard_limit_bytes", "Hard limit", "bytes", "GCHeapHardLimit or the container's limit (GCSettingsRundown), if set; gc_mode_evidence says when the trace cannot tell."),
    d("gc_mode_evidence", "GC setup", "name", "One line per setting: gc, datas, heaps, concurrent, regions, conserve_memory, hard_limit."),
    d("gc_mode_evidence.setting", "Setting", "name", "Which setting."),
    d("gc_mode_evidence.value", "Value", "name", "Its value as the trace shows it, or unknown."),
    d("gc_mode_evidence.evidence", "Evidence", "name", "The events that show it, or the events that would."),
    d("trace_start_utc", "Trace start", "name", "Wall-clock time of the trace start (UTC)."),
    d("trace_duration_ms", "Duration", "ms", "Time of the last event, ms from the trace start: the process's time in the trace (TraceEvent's SessionEndTime - SessionStartTime); the denominator of % time paused."),
    d("first_event_ms", "First event", "ms", "Time of the first event."),
    d("last_event_ms", "Last event", "ms", "Time of the last event."),
    d("gc_span_ms", "GC span", "ms", "First complete GC's pause start to the trace's last GCHeapStats: TraceEvent's GCStats.ProcessDuration, the denominator of PerfView's % time paused (gc_span_pause_pct). A background GC whose GCHeapStats the trace lost does not move it."),
    d("events", "Events", "count", "Events the model was given."),
    d("runtime_events", "Runtime events", "count", "Events of the runtime's providers (public, private, rundown)."),
    d("gc_events", "GC events", "count", "Events the model used."),
    d("payload_errors", "Bad payloads", "count", "GC events whose payload could not be decoded (see notes)."),
    d("dropped_events", "Dropped", "count", "Events the runtime lost (sequence-number gaps), from the decoder."),
    d("out_of_order_events", "Out of order", "count", "Events the decoder delivered after a later one: the time-ordering buffer reached its budget (a trace without sequence points), or an ETW buffer came too late for the merge window. Figures that pair events in time may be off around them."),
    d("gc_count", "GCs", "count", "Rows in the GC table."),
    d("incomplete_gc_count", "Incomplete", "count", "GCs without GCEnd."),
];

/// The other parts of a serialized [`crate::gc::GcModel`] (paths from the model's root).
pub const SUMMARY_FIELDS: &[Definition] = &[
    d("condemn_reasons.by_trigger.reason", "Trigger", "name", "A GCStart reason."),
    d("condemn_reasons.by_trigger.per_gen", "Per gen", "count", "Complete GCs with this trigger, for gen0, gen1, gen2."),
    d("condemn_reasons.by_trigger.total", "Total", "count", "Complete GCs with this trigger."),
    d("condemn_reasons.by_condition.reason", "Condemn reason", "name", "A condition bit of the GC's condemn reasons (`condemn.conditions`), or alloc_budget_exceeded (budget gen = the GC's gen; not for induced gen0 GCs) or time_tuning."),
    d("condemn_reasons.by_condition.per_gen", "Per gen", "count", "Complete GCs with this condemn reason, for gen0, gen1, gen2."),
    d("condemn_reasons.by_condition.total", "Total", "count", "Complete GCs with this condemn reason."),
    d("condemn_reasons.without_history", "No history", "count", "Complete GCs without condemn reasons (no GCPerHeapHistory), for gen0, gen1, gen2."),
    d("handles.has_events", "Handle events", "bool", "The trace has SetGCHandle/DestroyGCHandle events (GCHandle keyword 0x2)."),
    d("handles.created", "Created", "count", "SetGCHandle events."),
    d("handles.destroyed", "Destroyed", "count", "DestroyGCHandle events for handles created in the trace."),
    d("handles.destroyed_unmatched", "Destroyed (older)", "count", "DestroyGCHandle events for handles created before the trace started."),
    d("handles.reused_without_destroy", "Reused ids", "count", "SetGCHandle for an id still live: the runtime freed it without a DestroyGCHandle event."),
    d("handles.by_kind.kind", "Kind", "name", "Handle kind (WeakShort, WeakLong, Strong, Pinned, Dependent, ...)."),
    d("handles.by_kind.created", "Created", "count", "Handles of this kind created."),
    d("handles.by_kind.destroyed", "Destroyed", "count", "Handles of this kind destroyed (created in the trace)."),
    d("handles.by_kind.alive_at_end", "Alive at end", "count", "Handles of this kind created in the trace and not destroyed."),
    d("handles.live_over_time.ms", "Time", "ms", "When the live count was taken: each GC's pause start, and the trace end."),
    d("handles.live_over_time.value", "Live", "count", "Handles created in the trace and not yet destroyed."),
    d("handles.alive_at_end.handle", "Handle", "address", "Handle id."),
    d("handles.alive_at_end.object", "Object", "address", "Object the handle pointed to when created."),
    d("handles.alive_at_end.kind", "Kind", "name", "Handle kind."),
    d("handles.alive_at_end.generation", "Gen", "gen", "Generation of the object when the handle was created."),
    d("handles.alive_at_end.created_ms", "Created", "ms", "When the handle was created."),
    d("handles.alive_at_end.type_name", "Type", "name", "The object's type, when a PinObjectAtGCTime named it."),
    d("pinning.has_events", "Pin events", "bool", "The trace has PinObjectAtGCTime or PinPlugAtGCTime events."),
    d("pinning.pinned_object_events", "Pin reports", "count", "PinObjectAtGCTime events."),
    d("pinning.pinned_plug_events", "Plug reports", "count", "PinPlugAtGCTime events (private provider)."),
    d("pinning.gcs_with_pins", "GCs with pins", "count", "GCs that reported at least one pinned object."),
    d("pinning.by_type.type_name", "Type", "name", "Type of pinned objects."),
    d("pinning.by_type.count", "Reports", "count", "PinObjectAtGCTime events for this type."),
    d("pinning.by_type.total_bytes", "Bytes", "bytes", "Sum of their object sizes (an object pinned in 3 GCs counts 3 times)."),
    d("pinning.by_type.gcs", "In GCs", "count", "GCs in which an object of this type was pinned."),
    d("pinning.pinned_over_time.ms", "Time", "ms", "A GC's pause start."),
    d("pinning.pinned_over_time.value", "Pinned", "count", "Objects PinObjectAtGCTime reported for that GC."),
    d("notes", "Notes", "name", "Events the model could not place (outside any GC, undecodable payloads), one line each."),
    d("alloc_waits.has_events", "LOH wait events", "bool", "The trace has BGCAllocWaitBegin/End events (private provider, GC keyword)."),
    d("alloc_waits.waits", "LOH waits", "count", "Waits on LOH allocation during background GCs with a begin and an end (paired per thread, as TraceEvent pairs them)."),
    d("alloc_waits.total_wait_ms", "Total wait", "ms", "All those waits added up."),
    d("alloc_waits.unpaired", "Unpaired", "count", "Begins without an end (trace ended or end lost) and ends without a begin."),
    d("alloc_waits.longest.thread", "Thread", "count", "The thread that waited."),
    d("alloc_waits.longest.reason", "Reason", "name", "GetLOHSeg or AllocDuringSweep (the background GC was threading its free lists), AllocDuringBGC (allocated too much during it)."),
    d("alloc_waits.longest.begin_ms", "Begin", "ms", "BGCAllocWaitBegin."),
    d("alloc_waits.longest.end_ms", "End", "ms", "BGCAllocWaitEnd."),
    d("alloc_waits.longest.wait_ms", "Wait", "ms", "End minus begin (the longest 256 waits are kept, longest first)."),
    d("alloc_waits.longest.bgc", "BGC #", "count", "The background GC running when the wait began."),
];

/// The model's `datas` ([`crate::gc::datas::DatasModel`], paths from the model's root): what
/// `gcscope datas --json` adds to the GC mode.
pub const DATAS_FIELDS: &[Definition] = &[
    d("datas.per_gc.gc", "GC #", "count", "A GC, once, with the last GCGlobalHeapHistory the model gave it (as its row); kept when the trace has DATAS events or heap-count changes."),
    d("datas.per_gc.ms", "Time", "ms", "The GC's pause start."),
    d("datas.per_gc.heaps", "Heaps", "count", "Heaps that GC used (its GCGlobalHeapHistory)."),
    d("datas.samples.gc", "GC #", "count", "The GC a SizeAdaptationSample (HeapCountSample on .NET 8) measured."),
    d("datas.samples.ms", "Time", "ms", "When the sample was fired."),
    d("datas.samples.heaps", "Heaps", "count", "Heaps of that GC."),
    d("datas.samples.elapsed_between_gcs_us", "Elapsed", "us", "From the end of the previous GC's suspension to this GC's end of work."),
    d("datas.samples.pause_us", "Pause", "us", "The GC's pause as DATAS measured it."),
    d("datas.samples.msl_wait_us", "Lock wait", "us", "Time allocating threads waited for the allocation locks (small + large object heaps)."),
    d("datas.samples.throughput_cost_pct", "Cost", "%", "(pause + lock wait / heaps) / elapsed, capped at 100: the GC's throughput cost as DATAS computes it."),
    d("datas.samples.soh_stable_bytes", "SOH stable", "bytes", "Long-lived small-object bytes over all heaps (.NET 9+)."),
    d("datas.samples.gen0_budget_per_heap_bytes", "Gen0 budget/heap", "bytes", "Gen0 allocation budget DATAS gave each heap (.NET 9+)."),
    d("datas.decisions.gc", "GC #", "count", "The GC after which DATAS decided (SizeAdaptationTuning, SizeAdaptationFullGCTuning, HeapCountTuning); it takes effect at the next GC."),
    d("datas.decisions.ms", "Time", "ms", "When the decision was fired."),
    d("datas.decisions.event", "Event", "name", "The dynamic event it came from."),
    d("datas.decisions.heaps_before", "Heaps", "count", "Heaps of the GC it was made at."),
    d("datas.decisions.new_heap_count", "New heaps", "count", "Heap count chosen (the same when it did not change)."),
    d("datas.decisions.median_tcp_pct", "Median cost", "%", "Median throughput cost of the last three GCs (of the last three gen2 GCs for a full-GC decision)."),
    d("datas.decisions.tcp_considered_pct", "Cost used", "%", "The cost the decision used: the median or a recent trend (.NET 9+), the smoothed median (.NET 8)."),
    d("datas.decisions.soh_stable_bytes", "SOH stable", "bytes", "Long-lived small-object bytes the decision sized the budget for."),
    d("datas.decisions.max_heaps_by_budget", "Max heaps", "count", "Most heaps the gen0 budget for that size allows (0: not computed this time)."),
    d("datas.decisions.min_heaps_by_budget", "Min heaps", "count", "Fewest heaps that budget calls for (0: not computed)."),
    d("datas.decisions.gcs_since_last_change", "GCs since change", "count", "GCs (gen2 GCs for a full-GC decision) since the heap count last changed."),
    d("datas.decisions.verdict", "Decided", "name", "What was decided and why, in words (`ACTION: WHY`): increase, decrease, keep or adjust gen0 budget, with the reasons the event's codes give (SizeAdaptationTuning); only the heap count's move for the events without codes."),
    d("datas.decisions.codes.change_decision.value", "Change decision", "count", "SizeAdaptationTuning's ChangeDecision as fired (the runtime's decide_change_condition); null codes for events without them."),
    d("datas.decisions.codes.change_decision.name", "Change decision", "name", "Its name in the runtime: init_change_condition (off target long enough: a change was considered), too_few_samples, not_enough_diff_accumulated, already_toward_target, tcp_in_range, temp_change; a value the runtime's table does not have is its number."),
    d("datas.decisions.codes.adjustment_reason.value", "Adjustment reason", "count", "AdjReason as fired: bits of the runtime's decide_adjustment_reason."),
    d("datas.decisions.codes.adjustment_reason.name", "Adjustment reason", "name", "The bits' names joined with |: limited_by_bounds, cannot_adjust_budget, change_pct_too_small, change_too_soon (init_adjustment_reason: none); unknown bits in hex."),
    d("datas.decisions.codes.change_frequency_factor", "Change spacing", "count", "HcChangeFreqFactor: how many times the usual spacing between heap-count changes DATAS waited for (0: not computed)."),
    d("datas.decisions.codes.change_frequency_reason.value", "Spacing reason", "count", "HcFreqReason as fired: bits of the runtime's hc_change_freq_reason."),
    d("datas.decisions.codes.change_frequency_reason.name", "Spacing reason", "name", "The bits' names joined with |: expensive_hc_change, dec, dec_multiple, fluctuation (default_reason: none); unknown bits in hex."),
    d("datas.decisions.codes.adjustment_metric.value", "Adjusted", "count", "AdjMetric as fired: the runtime's adjust_metric."),
    d("datas.decisions.codes.adjustment_metric.name", "Adjusted", "name", "not_adjusted, adjust_budget (the gen0 budget instead of the heap count) or adjust_hc (the heap count); another value is its number."),
    d("datas.decisions.other_fields", "Other fields", "name", "The event's fields not shown elsewhere, as name=value, raw, and any bytes past its known layout (hex)."),
    d("datas.changes.gc", "GC #", "count", "First GC with the new heap count."),
    d("datas.changes.ms", "Time", "ms", "That GC's pause start."),
    d("datas.changes.from", "From", "count", "Heaps of the GC before."),
    d("datas.changes.to", "To", "count", "Heaps from this GC on."),
    d("datas.changes.decision", "Decision", "count", "Index in decisions of the last decision before this GC that chose this count; null if the trace has none."),
    d("datas.gcs_by_heap_count.heaps", "Heaps", "count", "A heap count."),
    d("datas.gcs_by_heap_count.gcs", "GCs", "count", "GCs that ran with it."),
    d("datas.unknown_events", "Unknown dynamic events", "name", "GCDynamicEvent names this version does not decode, with their counts (\"unknown dynamic event NAME\")."),
    d("datas.dropped", "Dropped records", "count", "DATAS records beyond the kept maximum (262,144 of each kind), counted only."),
];

/// How rows are formed and where the model departs from PerfView/TraceEvent (in
/// `docs/reference/model.md`).
pub(super) const METHOD: &str = "\
## How GCs are put together

* One row per GCStart, numbered by its Count (a GC whose GCStart came before the trace started
  gets its row from its GCEnd, with type and reason Unknown). A GC the runtime counts but that
  fires no GCStart (started by `GC.TryStartNoGCRegion`) has no row. A GC without GCEnd (the trace ended) is kept
  with `complete: false`; rollups skip it.
* Pause: from the SuspendEEBegin (reason ForGC) before GCStart to the RestartEEEnd on the same
  thread. A background GC adds each later suspension (reason ForGCPrep) to its pause; the GC that
  runs first inside a background GC's suspension has suspend 0 and its pause starts at its GCStart.
* GCHeapStats, GCGlobalHeapHistory and GCPerHeapHistory belong to the GC in progress, whichever
  thread fires them (in server GC any GC thread fires a foreground GC's histories, the one that
  suspended for a background GC included); a background GC's histories (the runtime marks its
  GCGlobalHeapHistory with the Concurrent mechanism) that arrive while a foreground GC is
  restarting go to the background GC; for server GC, histories fired after the background GC's
  GCEnd go to it.
* Derived figures are recomputed when the trace ends, so late events always count.

## Machine-wide ETW traces: one model per process

An ETW trace holds every process of the machine. The model stays per process:
`gc::ProcessRouter` sends each event to the model of its process (by the event's process id), made
when the process first shows a runtime event, and names the processes from the kernel's process
events (Start, Stop, DCStart, DCStop, Defunct: image name and command line). Its `processes()` lists
the processes with GC events (pid, name, runtime version, command line, GC count, total pause of
the complete GCs), most GC pause first; `choose` picks one by pid, by name or, by default, the one
with the most GC pause. The CLI says which it chose on stderr and lists the others
(`--pid N` / `--process NAME` choose). An EventPipe trace is one process and gives the same model
as before. For a trace of several processes, each process is charged its own events: the ETW
decoder counts the events the reader's filter skips per process id (with their first and last
times; at most 4,096 processes), and the router counts the kernel's process events per process id,
so a process's `events`, `runtime_events` and time in the trace equal what `gcscope events --pid N`
counts for it.

## .NET Framework 4.x traces (ETW)

The same figures, from the older events .NET Framework writes (checked on the net.4.5.2 traces in
`core/tests/etl_model.rs`: every GC TraceEvent counts, generations, reasons, the first pause, and
each GC's per-heap sizes against its GCHeapStats):

* **GCStart twice per GC.** .NET Framework 4.5.x writes each GCStart as version 1 and again as
  version 2 ([docs/reference/formats.md](formats.md), \"The .NET runtime providers in ETW\"). Both
  are counted as events (as TraceEvent does); the model makes one GC of them: a second GCStart with
  the number of the GC still open is the same GC (no note).
* **Per-heap and global histories come from the private provider**
  (Microsoft-Windows-DotNETRuntimePrivate): GCGlobalHeapHistory versions 0/1 (no pause mode,
  memory pressure, condemn reasons or phase times) and GCPerHeapHistory in its .NET Framework
  layout (version 2: five generation records of ten pointers, then the condemn reasons, memory
  pressure, expand and compact mechanisms, heap index; read where TraceEvent reads it). That layout
  has no free-list or pinned-allocation figures: `free_list_allocated_bytes` and the others of
  version 3 are 0. Version 0 (.NET 4.0) orders its records differently and is not read (the GC keeps
  its row without per-heap histories).
  The heap index is read right after CompactMechanisms, where the fields put it (TraceEvent reads
  it one byte earlier, which gives PerfView's own workstation GC in net.4.5.2.x64 heap 128).
* **GC mode**: GC/Settings (private provider) says ServerGC and the segment size; in the shared
  traces .NET Framework fired it for the process already running when the session began
  (PerfView's own), not for the one started during it. Runtime/Start says the runtime is .NET
  Framework (Sku DesktopClr): segments, no DATAS; its StartupFlags are read as on .NET 6+.
  `pointer_size` is the process's own (its records' headers), not the machine's.
* **GCHeapStats version 1** (no pinned object heap: `poh` figures are absent).
* **Mark events** come twice too (the public ids 25-28 and the private ids 7-10); they carry no
  byte counts, so `marked_bytes` and the roots insight stay empty, as on .NET Core before
  GCMarkWithType.

## Differences from PerfView / TraceEvent (checked GC by GC in `core/tests/model_fixtures.rs`)

1. The pinned object heap counts in `before_bytes`, `peak_bytes` and `allocated_bytes`
   (TraceEvent 3.1.3 leaves it out of those three but keeps it in the size after).
2. `survival_pct` is survived / objects before over all heaps; TraceEvent averages per-heap
   integer percentages, and says 0 where the generation was empty (the model: null).
3. A background GC keeps its own GCGlobalHeapHistory and GCPerHeapHistory (TraceEvent can give
   them to a foreground GC, or drop them: 3.1.3 takes a history at 1 heap for workstation GC, so a
   server background GC's history after its GCHeapStats goes nowhere under DATAS at 1 heap).
   Every other GC's history is TraceEvent's (`core/tests/model_fixtures.rs`,
   `each_gc_has_the_global_history_traceevent_gives_it`).
4. Allocation is measured from the GC that ended last before this one started (TraceEvent: the
   GC just before in the list, which may be a background GC still running).
5. A background GC that the runtime ran inside its first suspension has its real pause (to the
   RestartEEEnd after it); TraceEvent reports only its suspension, which is wrong. The raw events
   show it: there is no RestartEE between the GC's SuspendEEStart and its GC/Stop (only a RestartEE
   resumes managed threads), and no thread allocates until the RestartEE, although the workload's
   threads allocate right before and after. It happens on .NET 8, 9 and 10, workstation and
   server: 11 of the committed fixtures hold one, from 0.7 to 31.7 ms, and a fresh .NET 10
   `server` trace one of 101.4 ms that TraceEvent gives as 0.013 ms (there it is the process's
   first background GC, and the runtime creates the background GC threads inside it)
   (`core/tests/bgc_single_suspension.rs`). The % paused and the latency figures count it.
6. `promoted_per_gc_ms_bytes` divides by GC duration: EventPipe traces have no CPU samples for
   PerfView's GC CPU time.
7. A GC whose GCStart came without a suspension (trace started mid-GC) is kept, its pause
   measured from GCStart and the gap listed in `missing`; TraceEvent drops it.
8. `heap_count` is each GC's own (its GCGlobalHeapHistory). TraceEvent 3.1.3's `HeapCount` is the
   first GC's count for every GC: wrong once DATAS changes the count (on the .NET 9 and 10
   `datas` fixtures it says 1 heap for GCs that ran with 2; its own copy of each GC's
   GCGlobalHeapHistory agrees with the model; `core/tests/model_fixtures.rs`,
   `traceevent_heap_count_is_the_first_gcs_under_datas`).

## GC mode (`process.gc_mode`, `datas`, `concurrent`, `regions`, `gc_mode_evidence`)

Each setting comes from the events that carry it, never from a default: server GC from
Runtime/Start's StartupFlags (SERVER_GC; before .NET 6 the runtime writes 0 there whatever its
GC, dotnet/runtime#52042, so a 0 says nothing), a
GCGlobalHeapHistory with 2+ heaps, GCPerHeapHistory of heap 1+, any GCJoin (workstation GC fires
none) or DATAS events; workstation from StartupFlags without SERVER_GC (.NET 6+), or 1 heap with
Verbose GC events and no GCJoin; on .NET Framework also from GC/Settings (private provider,
ServerGC). DATAS from its events (SizeAdaptationSample/Tuning/FullGCTuning,
HeapCountSample/Tuning on .NET 8) or a heap count that changes; off for server GC whose trace has
GC Informational events without them. Background GC from GCSettingsRundown, a background GC, or
StartupFlags' CONCURRENT_GC. Regions from small small-object-heap GCCreateSegment events (segments
are 64 MiB and more) or the runtime version (before .NET 7: segments). The hard limit from
GCSettingsRundown. GCConserveMemory: no event carries it (always unknown). Where the trace cannot
tell, the value is null and `gc_mode_evidence` names the events that would. The overview and
`gcscope summary` show `gc::mode::label`: \"server, DATAS: 1-2 heaps (heap count changed 2 times)\".
";
