//! One row per trace (`gcscope summary A B ... --csv|--jsonl|--parquet`, or a folder): the
//! process facts, rollup and pause percentiles of each trace, flat, for a query engine.

use super::{d, Definition};

/// Every column of the table. `<kind>_` columns come once per kind of GC: `all`,
/// `gen0_blocking`, `gen1_blocking`, `gen2_blocking`, `background`, `foreground`.
#[rustfmt::skip]
pub const SUMMARY_ROW_FIELDS: &[Definition] = &[
    d("trace", "Trace", "name", "The trace file, as given or as found in a folder."),
    d("format", "Format", "name", "process.format."),
    d("runtime_version", "Runtime", "name", "process.runtime_version."),
    d("gc_mode", "GC mode", "name", "process.gc_mode (server or workstation)."),
    d("heap_count", "Heaps", "count", "process.heap_count."),
    d("concurrent", "Concurrent", "bool", "process.concurrent."),
    d("processor_count", "CPUs", "count", "process.processor_count."),
    d("events", "Events", "count", "process.events."),
    d("dropped_events", "Dropped", "count", "process.dropped_events."),
    d("trace_duration_ms", "Duration", "ms", "process.trace_duration_ms: the process's time in the trace."),
    d("gc_span_ms", "GC span", "ms", "process.gc_span_ms (TraceEvent's ProcessDuration)."),
    d("gc_count", "GCs", "count", "process.gc_count (complete or not)."),
    d("incomplete_gc_count", "Incomplete", "count", "process.incomplete_gc_count."),
    d("pause_time_pct", "% time paused", "%", "The rollup's pause_time_pct for all GCs: total pause / trace_duration_ms."),
    d("gc_span_pause_pct", "% of GC span", "%", "The rollup's gc_span_pause_pct for all GCs (PerfView's % time paused)."),
    d("total_pause_ms", "Total pause", "ms", "Sum of the complete GCs' pauses."),
    d("gen0_count", "Gen0 GCs", "count", "Complete gen0 GCs (rollup)."),
    d("gen1_count", "Gen1 GCs", "count", "Complete gen1 GCs (rollup)."),
    d("gen2_count", "Gen2 GCs", "count", "Complete gen2 GCs (rollup)."),
    d("induced_count", "Induced", "count", "Complete induced GCs."),
    d("total_allocated_bytes", "Allocated", "bytes", "The rollup's total_allocated_bytes for all GCs."),
    d("max_peak_bytes", "Max peak", "bytes", "The rollup's max_peak_bytes."),
    d("mean_after_bytes", "Mean after", "bytes", "The rollup's mean_after_bytes (rounded to whole bytes)."),
    d("total_promoted_bytes", "Promoted", "bytes", "The rollup's total_promoted_bytes."),
    d("<kind>_count", "GCs", "count", "Complete GCs of the kind with a known pause (latency pauses.count)."),
    d("<kind>_p50_ms", "p50", "ms", "Their median pause, nearest rank (latency pauses.p50_ms)."),
    d("<kind>_p90_ms", "p90", "ms", "90th percentile pause, nearest rank."),
    d("<kind>_p95_ms", "p95", "ms", "95th percentile pause, nearest rank."),
    d("<kind>_p99_ms", "p99", "ms", "99th percentile pause, nearest rank."),
    d("<kind>_p999_ms", "p99.9", "ms", "99.9th percentile pause, nearest rank."),
    d("<kind>_max_ms", "Max", "ms", "Longest pause."),
    d("<kind>_mean_ms", "Mean", "ms", "Mean pause."),
];
