//! The classic ".NET CLR Memory" counters, one sample at the end of each GC.

use gcscope_core::gc::insights::{CounterSample, Insights};

use super::{dcol, gc_in, n, Cell, Col, Starts, Table};
use crate::time_range::TimeRange;

/// The counters (key, JSON field) in the order the view lists them.
pub const COUNTERS: [&str; 20] = [
    "gen0_collections",
    "gen1_collections",
    "gen2_collections",
    "induced_gcs",
    "gen0_heap_size_bytes",
    "gen1_heap_size_bytes",
    "gen2_heap_size_bytes",
    "loh_size_bytes",
    "poh_size_bytes",
    "bytes_in_all_heaps",
    "promoted_from_gen0_bytes",
    "promoted_from_gen1_bytes",
    "promoted_finalization_from_gen0_bytes",
    "finalization_survivors",
    "gc_handles",
    "pinned_objects",
    "sync_blocks_in_use",
    "time_in_gc_pct",
    "allocated_bytes_per_s",
    "total_committed_bytes",
];

/// One counter's value in a sample.
pub fn counter_value(c: &CounterSample, key: &str) -> Option<f64> {
    let u = |v: Option<u64>| v.map(|v| v as f64);
    let i = |v: Option<u32>| v.map(f64::from);
    match key {
        "gen0_collections" => Some(c.gen0_collections.into()),
        "gen1_collections" => Some(c.gen1_collections.into()),
        "gen2_collections" => Some(c.gen2_collections.into()),
        "induced_gcs" => Some(c.induced_gcs.into()),
        "gen0_heap_size_bytes" => u(c.gen0_heap_size_bytes),
        "gen1_heap_size_bytes" => u(c.gen1_heap_size_bytes),
        "gen2_heap_size_bytes" => u(c.gen2_heap_size_bytes),
        "loh_size_bytes" => u(c.loh_size_bytes),
        "poh_size_bytes" => u(c.poh_size_bytes),
        "bytes_in_all_heaps" => u(c.bytes_in_all_heaps),
        "promoted_from_gen0_bytes" => u(c.promoted_from_gen0_bytes),
        "promoted_from_gen1_bytes" => u(c.promoted_from_gen1_bytes),
        "promoted_finalization_from_gen0_bytes" => u(c.promoted_finalization_from_gen0_bytes),
        "finalization_survivors" => u(c.finalization_survivors),
        "gc_handles" => i(c.gc_handles),
        "pinned_objects" => i(c.pinned_objects),
        "sync_blocks_in_use" => i(c.sync_blocks_in_use),
        "time_in_gc_pct" => c.time_in_gc_pct,
        "allocated_bytes_per_s" => c.allocated_bytes_per_s,
        "total_committed_bytes" => u(c.total_committed_bytes),
        _ => None,
    }
}

pub fn counter_col(key: &str) -> Col {
    dcol(key, &format!("counters.{key}"), None)
}

pub fn counters(ins: &Insights, r: &TimeRange, starts: &Starts) -> Table {
    let mut cols = vec![counter_col("gc_number"), counter_col("ms")];
    cols.extend(COUNTERS.iter().map(|k| counter_col(k)));
    Table {
        id: "counters",
        title: "Counters at the end of each GC".into(),
        cols,
        rows: ins
            .counters
            .iter()
            .filter(|c| gc_in(r, starts, c.gc_number))
            .map(|c| {
                let mut r = vec![n(c.gc_number), n(c.ms)];
                r.extend(COUNTERS.iter().map(|k| Cell::Num(counter_value(c, k))));
                r
            })
            .collect(),
    }
}
