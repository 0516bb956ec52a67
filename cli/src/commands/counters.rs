//! `gcscope counters FILE`: the classic ".NET CLR Memory" performance counters, one sample at the
//! end of each GC (see docs/reference/insights.md for each counter's definition).

use gcscope_core::gc::insights::CounterSample;

use crate::args::JsonCsvOpts;
use crate::input::model::load_insights;
use crate::output::stdout::{print, print_json};
use crate::output::table::{self, csv_line, Align, Table};

/// (CSV/JSON key, table label, value).
fn columns(c: &CounterSample) -> Vec<(&'static str, &'static str, String)> {
    let n = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    let n32 = |v: Option<u32>| v.map_or(String::new(), |v| v.to_string());
    let f = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.3}"));
    vec![
        ("gc_number", "GC", c.gc_number.to_string()),
        ("ms", "Time ms", format!("{:.3}", c.ms)),
        ("gen0_collections", "#Gen0", c.gen0_collections.to_string()),
        ("gen1_collections", "#Gen1", c.gen1_collections.to_string()),
        ("gen2_collections", "#Gen2", c.gen2_collections.to_string()),
        ("induced_gcs", "#Induced", c.induced_gcs.to_string()),
        (
            "gen0_heap_size_bytes",
            "Gen0 size",
            n(c.gen0_heap_size_bytes),
        ),
        (
            "gen1_heap_size_bytes",
            "Gen1 size",
            n(c.gen1_heap_size_bytes),
        ),
        (
            "gen2_heap_size_bytes",
            "Gen2 size",
            n(c.gen2_heap_size_bytes),
        ),
        ("loh_size_bytes", "LOH size", n(c.loh_size_bytes)),
        ("poh_size_bytes", "POH size", n(c.poh_size_bytes)),
        ("bytes_in_all_heaps", "All heaps", n(c.bytes_in_all_heaps)),
        (
            "promoted_from_gen0_bytes",
            "Prom gen0",
            n(c.promoted_from_gen0_bytes),
        ),
        (
            "promoted_from_gen1_bytes",
            "Prom gen1",
            n(c.promoted_from_gen1_bytes),
        ),
        (
            "promoted_finalization_from_gen0_bytes",
            "Prom fin",
            n(c.promoted_finalization_from_gen0_bytes),
        ),
        (
            "finalization_survivors",
            "Fin surv",
            n(c.finalization_survivors),
        ),
        ("gc_handles", "Handles", n32(c.gc_handles)),
        ("pinned_objects", "Pinned", n32(c.pinned_objects)),
        ("sync_blocks_in_use", "Sync blk", n32(c.sync_blocks_in_use)),
        ("time_in_gc_pct", "%GC", f(c.time_in_gc_pct)),
        (
            "allocated_bytes_per_s",
            "Alloc B/s",
            f(c.allocated_bytes_per_s),
        ),
    ]
}

pub fn run(opts: &JsonCsvOpts) -> Result<(), String> {
    let (_, ins) = load_insights(&opts.input)?;
    let cs = &ins.counters;
    if opts.json {
        return print_json(cs);
    }
    let empty = CounterSample {
        gc_number: 0,
        ms: 0.0,
        gen0_collections: 0,
        gen1_collections: 0,
        gen2_collections: 0,
        induced_gcs: 0,
        gen0_heap_size_bytes: None,
        gen1_heap_size_bytes: None,
        gen2_heap_size_bytes: None,
        loh_size_bytes: None,
        poh_size_bytes: None,
        bytes_in_all_heaps: None,
        promoted_from_gen0_bytes: None,
        promoted_from_gen1_bytes: None,
        promoted_finalization_from_gen0_bytes: None,
        finalization_survivors: None,
        gc_handles: None,
        pinned_objects: None,
        sync_blocks_in_use: None,
        time_in_gc_pct: None,
        allocated_bytes_per_s: None,
        total_committed_bytes: None,
    };
    let head = columns(&empty);
    let mut s = String::new();
    if opts.csv {
        s.push_str(&csv_line(
            &head.iter().map(|c| c.0.to_string()).collect::<Vec<_>>(),
        ));
        for c in cs {
            s.push_str(&csv_line(
                &columns(c).into_iter().map(|c| c.2).collect::<Vec<_>>(),
            ));
        }
        return print(&s);
    }
    if cs.is_empty() {
        s.push_str("No complete GCs: no counter samples.\n");
        return print(&s);
    }
    s.push_str(".NET CLR Memory counters at the end of each GC (sizes in bytes; Gen0 size is the gen0 budget, as the classic counter)\n\n");
    let mut t = Table::new(&head.iter().map(|c| (c.1, Align::Right)).collect::<Vec<_>>());
    for c in cs {
        t.row(
            columns(c)
                .into_iter()
                .map(|c| if c.2.is_empty() { table::dash() } else { c.2 })
                .collect(),
        );
    }
    s.push_str(&t.render());
    print(&s)
}
