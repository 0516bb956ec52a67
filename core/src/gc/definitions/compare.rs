//! The comparison of two traces (`gcscope compare A B --json`, the app's comparison view), from
//! `crate::compare`. A is the first trace, B the second; differences are B - A.

use super::{d, Definition};

/// Every field of a serialized [`crate::compare::Comparison`].
pub const COMPARE_FIELDS: &[Definition] = &[
    d("a", "A", "name", "The first trace (the baseline), as named on the command line or in the app."),
    d("b", "B", "name", "The second trace."),
    d("facts.key", "Fact", "name", "Which process fact (a field of the process facts: runtime_version, gc_mode, heap_count, concurrent, processor_count, pointer_size, hard_limit_bytes, format, os, trace_duration_ms, gc_count)."),
    d("facts.label", "Fact", "name", "Its label."),
    d("facts.a", "A", "name", "A's value, as text (- when the trace does not say)."),
    d("facts.b", "B", "name", "B's value, as text."),
    d("facts.same", "Same", "bool", "The two texts are equal."),
    d("figures.key", "Figure", "name", "Which figure: process.<field>, rollup.<gen>.<field> (gen all, 0, 1, 2), pauses.<kind>.<field> and latency.paused_pct (latency over the whole trace), budget.<field>, mmu.<window ms> (mmu.min_utilization_pct at that window), alloc_rate_bytes_per_s (all bytes allocated before the last complete GC / the time to its start)."),
    d("figures.label", "Figure", "name", "Its label."),
    d("figures.unit", "Unit", "name", "Its unit (ms, %, count, bytes, bytes/s)."),
    d("figures.a", "A", "per row", "A's value, in the figure's unit (null when A does not have it)."),
    d("figures.b", "B", "per row", "B's value."),
    d("figures.delta", "B - A", "per row", "b - a."),
    d("figures.delta_pct", "%", "%", "(b - a) / |a|: the change as a share of A (null when a is 0)."),
    d("figures.better", "Better", "name", "Which way the figure is better: lower (pauses, GC counts, % paused, heap sizes, promoted bytes, budget), higher (MMU) or neither (duration, allocation: properties of the workload)."),
    d("figures.verdict", "B is", "name", "better or worse (B against A, in the better direction), same (|delta_pct| under 1%, or equal), changed (a figure that is better neither way) or not_comparable (a side lacks it)."),
    d("histograms.lo_ms", "From", "ms", "A bucket of the pause histograms (the same 1-2-5 buckets for every trace: see histogram.lo_ms)."),
    d("histograms.hi_ms", "To", "ms", "Its upper edge (excluded)."),
    d("histograms.a", "A", "count", "A's GCs in the bucket."),
    d("histograms.b", "B", "count", "B's GCs in the bucket."),
    d("cdf_a.pause_ms", "Pause", "ms", "A's pause CDF (see cdf.pause_ms)."),
    d("cdf_a.pct", "% of GCs", "%", "Share of A's GCs that paused no longer."),
    d("cdf_b.pause_ms", "Pause", "ms", "B's pause CDF."),
    d("cdf_b.pct", "% of GCs", "%", "Share of B's GCs that paused no longer."),
    d("mmu_curves.window_ms", "Window", "ms", "A window size of the MMU curves (the same preferred numbers for every trace; each trace's own length is on its curve only)."),
    d("mmu_curves.a", "A", "%", "A's minimum mutator utilization at that window (null past A's length)."),
    d("mmu_curves.b", "B", "%", "B's."),
    d("bin_ms", "Bin", "ms", "Width of the time bins of over_time: the longer trace's length / 50."),
    d("over_time.start_ms", "From", "ms", "Start of a bin, ms from each trace's own start."),
    d("over_time.end_ms", "To", "ms", "End of the bin."),
    d("over_time.a_alloc_rate_bytes_per_s", "A alloc rate", "bytes/s", "Bytes allocated before A's GCs that started in the bin (their allocated_bytes), per second of the bin; null when none started in it."),
    d("over_time.b_alloc_rate_bytes_per_s", "B alloc rate", "bytes/s", "The same for B."),
    d("over_time.a_after_bytes", "A heap after", "bytes", "Mean heap size after A's GCs that started in the bin."),
    d("over_time.b_after_bytes", "B heap after", "bytes", "The same for B."),
    d("over_time.a_peak_bytes", "A peak", "bytes", "Largest peak heap size of A's GCs that started in the bin."),
    d("over_time.b_peak_bytes", "B peak", "bytes", "The same for B."),
];
