//! The one table of rules: what each looks at, its threshold and where that comes from, the advice
//! and its sources, the events it needs and what dropped events could do to it.
//! `docs/reference/findings.md` is this table ([`super::markdown`]); each rule module reads its
//! entry, so a finding's threshold, advice and sources are the documented ones.
//!
//! Source tags are those of `FINDINGS-SOURCES.md` and are listed with their addresses in
//! [`SOURCES`]. A threshold marked `chosen` is gcscope's own number where the sources give none.

use super::types::Goal;

/// A source a rule cites.
#[derive(Debug, Clone, Copy)]
pub struct Source {
    pub tag: &'static str,
    pub title: &'static str,
    pub address: &'static str,
}

pub const SOURCES: &[Source] = &[
    Source { tag: "MD", title: "Maoni Stephens, .NET Memory Performance Analysis (§ = section)", address: "https://github.com/Maoni0/mem-doc/blob/master/doc/.NETMemoryPerformanceAnalysis.md" },
    Source { tag: "PV-GCS", title: "PerfView GCStats (src/PerfView/GcStats.cs)", address: "https://github.com/microsoft/perfview/blob/main/src/PerfView/GcStats.cs" },
    Source { tag: "PV-TMP", title: "TraceEvent's GC analysis (src/TraceEvent/Computers/TraceManagedProcess.cs)", address: "https://github.com/microsoft/perfview/blob/main/src/TraceEvent/Computers/TraceManagedProcess.cs" },
    Source { tag: "PV-HUG", title: "PerfView HTML report users' guide, Understanding GC Performance Data", address: "https://github.com/microsoft/perfview/blob/main/src/PerfView/SupportFiles/HtmlReportUsersGuide.htm" },
    Source { tag: "DOC-PERF", title: "Garbage Collection and Performance", address: "https://learn.microsoft.com/dotnet/standard/garbage-collection/performance" },
    Source { tag: "DOC-CFG", title: "Runtime configuration options for garbage collection", address: "https://learn.microsoft.com/dotnet/core/runtime-config/garbage-collector" },
    Source { tag: "DOC-DATAS", title: "Dynamic adaptation to application sizes (DATAS)", address: "https://learn.microsoft.com/dotnet/standard/garbage-collection/datas" },
    Source { tag: "DOC-D10", title: "dotnet/docs PR 48665, DATAS .NET 10 configs (Target TCP)", address: "https://github.com/dotnet/docs/pull/48665" },
    Source { tag: "DOC-LOH", title: "The large object heap on Windows systems", address: "https://learn.microsoft.com/dotnet/standard/garbage-collection/large-object-heap" },
    Source { tag: "DOC-IND", title: "Induced collections", address: "https://learn.microsoft.com/dotnet/standard/garbage-collection/induced" },
    Source { tag: "DOC-LAT", title: "Latency modes", address: "https://learn.microsoft.com/dotnet/standard/garbage-collection/latency" },
    Source { tag: "DOC-HC", title: "<GCHeapCount> element", address: "https://learn.microsoft.com/dotnet/framework/configure-apps/file-schema/runtime/gcheapcount-element" },
    Source { tag: "RT-PR", title: "dotnet/runtime PR 103554, make the default target lower (DATAS)", address: "https://github.com/dotnet/runtime/pull/103554" },
    Source { tag: "BLOG-MG", title: "Middle Ground between Server and Workstation GC", address: "https://devblogs.microsoft.com/dotnet/middle-ground-between-server-and-workstation-gc/" },
    Source { tag: "BLOG-N10", title: "Preparing for the .NET 10 GC", address: "https://devblogs.microsoft.com/dotnet/preparing-for-dotnet-10-gc/" },
    Source { tag: "BLOG-WF2", title: "Work flow of diagnosing memory performance issues, part 2", address: "https://devblogs.microsoft.com/dotnet/work-flow-of-diagnosing-memory-performance-issues-part-2/" },
    Source { tag: "GCI", title: "GC team's GC.Analysis.API (dotnet/performance)", address: "https://github.com/dotnet/performance/tree/main/src/benchmarks/gc/GC.Infrastructure/GC.Analysis.API" },
    Source { tag: "JB", title: "dotMemory automatic inspections (finalizable objects)", address: "https://www.jetbrains.com/help/dotmemory/Inspections.html" },
];

/// One rule: everything `docs/reference/findings.md` says about it.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Stable id (`--json`'s `rule`, the app's links).
    pub id: &'static str,
    pub title: &'static str,
    /// One of MD's three definitive signs of a GC problem (ranked first).
    pub definitive: bool,
    /// The goal it matters for (`None`: any); for another goal a finding is info.
    pub goal: Option<Goal>,
    /// What it looks at, in the trace's terms.
    pub evidence: &'static str,
    /// The threshold as a sentence, with its number(s).
    pub threshold: &'static str,
    /// The sources of the threshold and what they say.
    pub threshold_source: &'static str,
    /// The number is gcscope's own (the sources give none): say so, rank lower.
    pub chosen: bool,
    /// (advice, its source)
    pub advice: &'static [(&'static str, &'static str)],
    /// The events it needs and how to capture them.
    pub needs: &'static str,
    /// What lost events (the runtime's or the ETW session's) could do to it.
    pub dropped: &'static str,
}

// Thresholds (each appears in its rule's `threshold` sentence; a test checks it).

/// A GC's suspension at or above this is a definitive problem.
pub const SUSPEND_MS: f64 = 10.0;
/// Long-GC outlier: its GC work is at least this many times its peers' median ...
pub const OUTLIER_FACTOR: f64 = 5.0;
/// ... and at least this long ...
pub const OUTLIER_MIN_MS: f64 = 10.0;
/// ... among at least this many peers of its generation ...
pub const OUTLIER_MIN_PEERS: usize = 3;
/// ... that promoted within this factor of what it promoted.
pub const OUTLIER_PROMOTED_FACTOR: f64 = 2.0;
/// More than this share of the gen2 GCs blocking is "most".
pub const BLOCKING_GEN2_SHARE_PCT: f64 = 50.0;
/// ... counted from this many gen2 GCs on.
pub const BLOCKING_GEN2_MIN: usize = 3;
/// % of time paused above this is a throughput problem.
pub const PAUSE_PCT: f64 = 5.0;
/// Induced GCs at or above this count.
pub const INDUCED_MIN: usize = 1;
/// LOH-triggered gen2 GCs: at least this many (and the most common trigger of gen2 GCs).
pub const LOH_GEN2_MIN: usize = 2;
/// A thread's wait on LOH allocation during a background GC longer than this.
pub const LOH_WAIT_MS: f64 = 200.0;
/// Memory load (or heap size against the hard limit) at or above this %.
pub const HIGH_MEMORY_PCT: f64 = 90.0;
/// Gen2 fragmentation at a background GC's start at or above this %.
pub const BGC_ENTRY_FRAG_PCT: f64 = 70.0;
/// A GC that found at least this many pinned objects.
pub const PINNED_OBJECTS: u32 = 10;
/// DATAS's default throughput-cost target (GCDTargetTCP), %.
pub const DATAS_TARGET_TCP_PCT: f64 = 2.0;
/// Growing gen2: at least this many gen2 GCs ...
pub const GROWTH_MIN_GEN2: usize = 4;
/// ... the last promoting at least this many times the first.
pub const GROWTH_FACTOR: f64 = 1.5;
/// Finalizable survivors at or above this % of all promoted bytes.
pub const FINALIZATION_PCT: f64 = 5.0;

const CAPTURE_GC: &str =
    "GC keyword at Informational level: `--providers Microsoft-Windows-DotNETRuntime:0x1:4`";

pub const SUSPENSION: Rule = Rule {
    id: "suspension",
    title: "Suspending threads takes too long",
    definitive: true,
    goal: None,
    evidence: "Each GC's suspension: SuspendEEBegin to SuspendEEEnd (`suspend_ms`; a background GC's suspensions summed), against the median GC's.",
    threshold: "a GC's suspension >= 10 ms",
    threshold_source: "MD §Suspension is too long: suspension is normally well under 1 ms; tens or hundreds of ms is a definitive problem.",
    chosen: false,
    advice: &[
        ("This is the runtime stopping threads, not GC work: a thread in a long loop without a safe point, or in native code when it returns, delays it. Find what the suspending thread waits for: capture with PerfView /StopOnGCSuspendOverMSec:200 and ThreadTime kernel events.", "MD §Part of the GC pause that's not doing GC at all; MD §Debugging a random long GC; BLOG-WF2"),
    ],
    needs: CAPTURE_GC,
    dropped: "a lost SuspendEEEnd or RestartEEEnd makes a suspension or pause unknown (that GC is skipped), never longer",
};

pub const LONG_GC_OUTLIER: Rule = Rule {
    id: "long-gc-outlier",
    title: "A GC far longer than its peers that promoted about the same",
    definitive: true,
    goal: None,
    evidence: "Blocking GCs' work (GCStart to GCEnd, `duration_ms`: suspension left out) against the median of the GCs of the same generation that promoted within a factor 2 of the same bytes (`promoted_bytes`).",
    threshold: "GC work >= 5x the median of at least 3 peers (same generation, promoted within a factor 2) and >= 10 ms",
    threshold_source: "MD §Random long GC pauses: GCs promoting ~2 MB take 5 ms, one takes 200 ms. The sources give no number: the factor 5, the 3 peers, the factor 2 and the 10 ms floor are gcscope's.",
    chosen: true,
    advice: &[
        ("The GC did not get the CPU: look at the CPU samples of every process during that GC. Server GC threads run at THREAD_PRIORITY_HIGHEST, one per core; a thread at a higher priority (an antivirus at 15) on those cores stalls the GC.", "MD §Server GC; MD §Debugging a random long GC; GCI (AffinitizedAnalysis)"),
        ("Several Server GC processes on one machine: give each fewer heaps (GCHeapCount) and its own cores (GCHeapAffinitizeMask / GCHeapAffinitizeRanges).", "BLOG-MG; DOC-CFG §Heap count"),
    ],
    needs: CAPTURE_GC,
    dropped: "a lost event can leave a GC's end unknown (it is skipped) or, with a lost GCStart, make a GC look longer",
};

pub const MOSTLY_BLOCKING_GEN2: Rule = Rule {
    id: "mostly-blocking-gen2",
    title: "Most gen2 GCs are full blocking GCs",
    definitive: true,
    goal: None,
    evidence: "Gen2 GCs by type (GCStart Type: NonConcurrent = blocking, Background), with the blocking ones' triggers and condemn conditions.",
    threshold: "more than 50% of the gen2 GCs blocking, from 3 gen2 GCs on",
    threshold_source: "MD §Most GCs are full blocking GCs: a definitive problem; gen2 should be mostly background GCs. \"Most\" is more than half; the minimum of 3 gen2 GCs is gcscope's.",
    chosen: false,
    advice: &[
        ("Find why each blocking gen2 GC happened from its trigger and condemn reasons (the Condemn reasons view), not from heap snapshots: the usual causes are induced GCs, high memory load and gen2 fragmentation.", "MD §Most GCs are full blocking GCs"),
        ("With background GC off (gcConcurrent=0, System.GC.Concurrent=false) every gen2 GC blocks: turn it back on unless it was turned off on purpose.", "DOC-CFG §Background GC"),
        ("If fragmentation makes the GC block and memory is plentiful, GCSettings.LatencyMode = SustainedLowLatency makes it block only when it must (the heap grows and fragments more).", "MD §How often GCs are triggered; DOC-LAT"),
    ],
    needs: CAPTURE_GC,
    dropped: "a lost GCStart hides a GC and its type; the share can move either way",
};

pub const PAUSE_TIME: Rule = Rule {
    id: "pause-time",
    title: "High % of time paused in GC",
    definitive: false,
    goal: Some(Goal::Throughput),
    evidence: "Total pause (SuspendEEBegin to RestartEEEnd of every complete GC) over the span from the first GC's pause start to the last GC's end (the rollup's `gc_span_pause_pct`, PerfView's % time paused; the share of the whole trace, `pause_time_pct`, beside it), split by kind of GC.",
    threshold: "% of time paused > 5%",
    threshold_source: "MD §When to worry about GC (throughput): a well-behaved app pauses < 5% of the time while busy; at ~3% GC work is not worth pursuing. PV-HUG: most apps spend < 10% of CPU in GC. DATAS's target is 2% (DOC-D10).",
    chosen: false,
    advice: &[
        ("Split it: too many GCs (what dies drives how often GCs run: cut temporary allocations, see the Allocations view, sampled by AllocationTick) or GCs too long (what survives drives their length: see the long-pause and blocking-gen2 findings).", "MD §High % Pause time in GC; MD §Measure allocations"),
        ("Judge it over the busy window only: an average over idle time understates it. Drag across the pause chart to see a window's %.", "MD §When to worry about GC"),
    ],
    needs: CAPTURE_GC,
    dropped: "lost GCs make the % lower than it was",
};

pub const PAUSES_OVER_BUDGET: Rule = Rule {
    id: "pauses-over-budget",
    title: "Pauses longer than the pause budget",
    definitive: false,
    goal: Some(Goal::Latency),
    evidence: "Each complete GC's pause (`pause_ms`: suspension included), by kind: ephemeral, blocking gen2, background.",
    threshold: "a pause > the pause budget (default 100 ms, --budget)",
    threshold_source: "PV-HUG: pauses over ~100 ms can hurt a user's experience; PV-GCS lists pauses over 200 ms; MD §Tail latency: only pauses in the percentile you optimise matter, so set the budget to yours.",
    chosen: false,
    advice: &[
        ("Ephemeral GCs: the pause grows with what survives; a jump in promoted bytes means objects survive that should not, often held by older objects (see the Roots view: bytes marked from older generations): null such references.", "MD §Figuring out the amount of work for ephemeral GCs"),
        ("Blocking gen2 GCs: see why they block (the mostly-blocking-gen2 rule). Long background-GC pauses are rare: a runtime bug or work that must stop the world.", "MD §Are the long pauses due to...; MD §Long pause due to bugs"),
        ("Capture the next one: PerfView /StopOnGCOverMSec (blocking GCs) or /StopOnBGCFinalPauseOverMSec.", "MD §PerfView GC stop triggers"),
    ],
    needs: CAPTURE_GC,
    dropped: "a lost RestartEEEnd leaves a pause unknown (skipped): a long pause can hide",
};

pub const INDUCED: Rule = Rule {
    id: "induced",
    title: "Induced GCs",
    definitive: false,
    goal: None,
    evidence: "GCs whose GCStart reason says the program asked for them: Induced (GC.Collect), InducedNotForced (GC.Collect Optimized, GC.AddMemoryPressure), InducedLowMemory, InducedCompacting, InducedAggressive; blocking or background; their pause.",
    threshold: "at least 1 induced GC",
    threshold_source: "MD §Finding out what induced GCs: induced GCs are almost always a red flag, and the most common cause of traces full of blocking gen2 GCs (MD §Most GCs are full blocking GCs).",
    chosen: false,
    advice: &[
        ("Find the caller: the GCTriggered event's stack (GC keyword with stacks, which dotnet-trace collects by default).", "MD §Finding out what induced GCs"),
        ("Let the GC schedule itself. A GC.Collect that must stay: call it rarely, pass GCCollectionMode.Optimized so the GC may skip an unproductive one, and blocking: false to get a background GC.", "DOC-IND"),
    ],
    needs: CAPTURE_GC,
    dropped: "a lost GCStart hides an induced GC: the count can be low",
};

pub const LOH_TRIGGERED_GEN2: Rule = Rule {
    id: "loh-triggered-gen2",
    title: "Gen2 GCs triggered by large-object allocation",
    definitive: false,
    goal: None,
    evidence: "Gen2 GCs by GCStart reason: AllocLarge (the LOH budget ran out) and OutOfSpaceLOH, with the LOH's survival rate and what was allocated on it since the previous GC.",
    threshold: "AllocLarge/OutOfSpaceLOH the most common trigger of gen2 GCs, at least 2 of them",
    threshold_source: "MD §How to see why a GC decided to collect a generation: AllocLarge being the most common trigger likely means a problem. DOC-LOH: every GC a gen2 AllocLarge GC with ~1% LOH survival means temporary large objects. The minimum of 2 is gcscope's.",
    chosen: false,
    advice: &[
        ("The LOH is collected only with gen2, and using up its budget triggers a gen2 GC: pool and reuse large buffers (ArrayPool) instead of allocating temporary ones. The Allocations view (kind Large) names the types.", "MD §LOH; DOC-LOH §LOH performance implications"),
        ("GCLOHThreshold only raises the 85,000-byte limit (fewer objects go to the LOH, more to gen0): a stopgap, not a fix.", "DOC-CFG §Large object heap threshold"),
    ],
    needs: CAPTURE_GC,
    dropped: "a lost GCStart hides a GC and its trigger",
};

pub const LOH_ALLOC_WAITS: Rule = Rule {
    id: "loh-alloc-waits",
    title: "Threads wait on large-object allocation during background GCs",
    definitive: false,
    goal: Some(Goal::Latency),
    evidence: "BGCAllocWaitBegin/End pairs per thread (private provider): a thread allocating on the LOH waits while a background GC threads its free lists (GetLOHSeg, AllocDuringSweep) or after allocating too much during it (AllocDuringBGC).",
    threshold: "a thread's wait > 200 ms",
    threshold_source: "PV-GCS lists LOH allocation waits during background GCs over 200 ms; MD §Displaying top level GC metrics: when that table shows, reduce LOH allocations.",
    chosen: false,
    advice: &[
        ("Reduce LOH allocations while background GCs run: pool large buffers.", "MD §Displaying top level GC metrics; DOC-LOH §LOH performance implications"),
    ],
    needs: "the private provider's GC keyword: `--providers Microsoft-Windows-DotNETRuntimePrivate:0x1:4`",
    dropped: "a lost BGCAllocWaitEnd leaves a wait unpaired (not counted)",
};

pub const HIGH_MEMORY_LOAD: Rule = Rule {
    id: "high-memory-load",
    title: "GCs under high memory load",
    definitive: false,
    goal: None,
    evidence: "The memory load each GC saw (GCGlobalHeapHistory MemoryPressure, `memory_pressure_pct`); the heap against the hard limit when the trace gives it (GCSettings); the GC's own statements: condemn conditions high_mem, very_high_mem, before_oom, joined_limit_*, triggers LowMemory and OutOfSpaceSOH/LOH.",
    threshold: "memory load >= 90%, or a GC's peak heap >= 90% of the hard limit, or the GC saying memory is high or nearly out",
    threshold_source: "MD §GC is per process but is aware of physical memory load; DOC-CFG §High memory percent: high load is 90% of physical memory by default (a container's limit is its physical memory).",
    chosen: false,
    advice: &[
        ("Above the high load the GC prefers compacting full blocking GCs to shrink the heap: expect blocking gen2 GCs.", "MD §How often GCs are triggered"),
        ("A small process sharing the machine can raise GCHighMemPercent; a large one that owns it can lower it to compact sooner. GCHeapHardLimit / GCHeapHardLimitPercent cap the heap (in a memory-limited container the default is the larger of 20 MB and 75% of the limit).", "DOC-CFG §High memory percent, §Heap limit; MD §Are you seeing a heap size that makes sense"),
    ],
    needs: CAPTURE_GC,
    dropped: "a lost GCGlobalHeapHistory hides that GC's memory load",
};

pub const GEN2_FRAGMENTATION: Rule = Rule {
    id: "gen2-fragmentation",
    title: "Gen2 fragmented when background GCs start",
    definitive: false,
    goal: Some(Goal::Footprint),
    evidence: "Gen2's fragmentation (free list and free objects / size, `generations.gen2.fragmentation_pct`) after the GC that ended just before each background GC started.",
    threshold: "gen2 fragmentation >= 70% at a background GC's start",
    threshold_source: "MD §Are you doing mostly BGCs for gen2 GCs? and §High gen2 fragmentation ratio on entry of BGC: up to 15% is nothing to worry about, 70-80% at a BGC's start is bad (the free list is not being used). DOC-PERF: gen2 fragmentation up to 20% is acceptable.",
    chosen: false,
    advice: &[
        ("Set GCConserveMemory (1-9): the GC then compacts gen2 when its fragmentation exceeds (10 - value) x 10%; the finding gives the value that would have caught what this trace shows. The docs suggest starting at 5-7; it also compacts a fragmented LOH.", "MD §High gen2 fragmentation ratio on entry of BGC; DOC-CFG §Conserve memory"),
        ("High fragmentation after a load peak is expected; persistently high otherwise is a background-GC scheduling issue worth reporting to the runtime.", "MD §High gen2 fragmentation ratio on entry of BGC"),
    ],
    needs: "GCPerHeapHistory (GC keyword, Informational)",
    dropped: "a lost GCPerHeapHistory hides a GC's fragmentation",
};

pub const PINNING: Rule = Rule {
    id: "pinning",
    title: "Many objects pinned during GCs",
    definitive: false,
    goal: Some(Goal::Footprint),
    evidence: "Pinned objects each GC found (GCHeapStats PinnedObjectCount), the pinned types (PinObjectAtGCTime), pinned GC handles (SetGCHandle kind Pinned), GCs that demoted, gen0 fragmentation after them.",
    threshold: "a GC that found >= 10 pinned objects",
    threshold_source: "DOC-PERF §The managed heap is too fragmented: high fragmentation may mean too many pinned objects; MD §Large GC heap size example: gen0 99.99% fragmented by pins. The sources give no count: 10 pinned objects in one GC is gcscope's.",
    chosen: true,
    advice: &[
        ("Pin briefly and in batches; buffers that stay pinned belong on the pinned object heap (GC.AllocateArray(pinned: true), .NET 5+), where they fragment nothing.", "MD §Pinning"),
        ("Pins that live long and are scattered keep demoted gen0 space unusable: see the Pinning & handles view for the types and handles.", "MD §Is the After size too large?"),
    ],
    needs: "GCHeapStats (GC keyword, Informational); types: PinObjectAtGCTime (Verbose: `0x1:5`); handles: GCHandle keyword `0x2`",
    dropped: "a lost GCHeapStats or PinObjectAtGCTime hides pins",
};

pub const SERVER_HEAPS: Rule = Rule {
    id: "server-heaps",
    title: "Server GC with a heap on every core",
    definitive: false,
    goal: Some(Goal::Footprint),
    evidence: "The heap count (GCGlobalHeapHistory NumHeaps) against the processor count (the trace header), for Server GC without DATAS.",
    threshold: "Server GC, DATAS off, heap count = processor count (more than 1)",
    threshold_source: "BLOG-MG: Server GC assumes it owns the machine; DOC-HC: effective heaps = min(GCHeapCount, CPUs the process may use). The sources give no number: one heap per core on all cores is gcscope's trigger to say so.",
    chosen: true,
    advice: &[
        ("If other processes share the machine (or this is one of several Server GC processes), set GCHeapCount and GCNoAffinitize, or GCHeapAffinitizeMask/Ranges so their cores do not overlap.", "BLOG-MG; DOC-HC; DOC-CFG §Heap count"),
        ("Or let the GC size itself: DATAS (GCDynamicAdaptationMode=1, the default for Server GC from .NET 9).", "DOC-DATAS"),
    ],
    needs: "GCGlobalHeapHistory (GC keyword, Informational); other Server GC processes need a machine-wide trace",
    dropped: "none that change the heap count",
};

pub const DATAS: Rule = Rule {
    id: "datas",
    title: "DATAS heap-count changes against its throughput-cost target",
    definitive: false,
    goal: Some(Goal::Throughput),
    evidence: "DATAS's heap-count changes (GCGlobalHeapHistory NumHeaps from one GC to the next) and its tuning events (SizeAdaptationSample/Tuning, HeapCountSample/Tuning): the throughput cost it measured, (pause + allocation wait / heaps) / elapsed.",
    threshold: "a heap-count change, or a median throughput cost > the 2% target",
    threshold_source: "DOC-D10, RT-PR 103554: DATAS's default target throughput cost (GCDTargetTCP) is 2%; TCP is about the % of time paused, except at startup and load ramps.",
    chosen: false,
    advice: &[
        ("DATAS trades a few % of throughput for a much smaller heap (TechEmpower, 48 cores: -2 to -3% RPS, > 80% less working set). Where throughput must not regress, or for startup-critical or mostly-gen2 workloads, turn it off: GCDynamicAdaptationMode=0.", "DOC-DATAS; BLOG-N10"),
        ("To keep it but trade differently: GCDTargetTCP (the cost it aims for), GCDGen0GrowthPercent, GCDGen0GrowthMinFactor (.NET 10).", "BLOG-N10; DOC-D10"),
    ],
    needs: CAPTURE_GC,
    dropped: "a lost GCGlobalHeapHistory can hide or fake a heap-count change",
};

pub const GEN2_GROWTH: Rule = Rule {
    id: "gen2-growth",
    title: "What survives gen2 GCs keeps growing",
    definitive: false,
    goal: Some(Goal::Footprint),
    evidence: "Bytes promoted by each gen2 GC (`promoted_bytes`: what was live), in order.",
    threshold: "at least 4 gen2 GCs, each promoting no less than the one before, the last >= 1.5x the first",
    threshold_source: "MD §First of all, do you have a managed memory leak?: stable gen2 survival is no leak, steady growth is one. The sources give no number: 4 GCs and the factor 1.5 are gcscope's.",
    chosen: true,
    advice: &[
        ("The GC cannot fix a leak: take heap snapshots (dotnet-gcdump) a while apart and compare what grew. Fragmentation is never a leak.", "MD §First of all, do you have a managed memory leak?; MD §3. managed memory leaks"),
    ],
    needs: "GCHeapStats (GC keyword, Informational)",
    dropped: "a lost gen2 GC breaks the sequence (it may then look steady or growing)",
};

pub const FINALIZATION: Rule = Rule {
    id: "finalization",
    title: "Finalizable objects kept alive",
    definitive: false,
    goal: None,
    evidence: "Bytes of finalizable objects each GC kept alive so their finalizers can run (GCHeapStats FinalizationPromotedSize, `finalization_promoted_bytes`) against all promoted bytes.",
    threshold: "finalizable survivors >= 5% of all promoted bytes",
    threshold_source: "MD §Finalizers: finalizable objects survive a GC they would have died in. The sources give no number: 5% is gcscope's.",
    chosen: true,
    advice: &[
        ("Dispose such objects and call GC.SuppressFinalize in Dispose, so the GC need not keep them for their finalizer; the Memory view names the finalized types (FinalizeObject, private provider).", "MD §Finalizers; JB"),
    ],
    needs: "GCHeapStats (GC keyword, Informational)",
    dropped: "a lost GCHeapStats hides a GC's figures",
};

/// Every rule, in the order the report lists them (the definitive signs first).
pub const RULES: &[&Rule] = &[
    &SUSPENSION,
    &LONG_GC_OUTLIER,
    &MOSTLY_BLOCKING_GEN2,
    &PAUSE_TIME,
    &PAUSES_OVER_BUDGET,
    &INDUCED,
    &LOH_TRIGGERED_GEN2,
    &LOH_ALLOC_WAITS,
    &HIGH_MEMORY_LOAD,
    &GEN2_FRAGMENTATION,
    &PINNING,
    &SERVER_HEAPS,
    &DATAS,
    &GEN2_GROWTH,
    &FINALIZATION,
];

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id == id)
}
