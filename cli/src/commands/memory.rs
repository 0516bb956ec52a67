//! `gcscope memory FILE`: compaction (moved / surviving ranges), finalization, memory pressure and
//! segments/regions, one section each.

use serde::Serialize;

use gcscope_core::gc::insights::{Compaction, Finalization, MemoryPressure, Segments};

use crate::args::JsonOpts;
use crate::input::model::load_insights;
use crate::output::stdout::{print, print_json};
use crate::output::table::{self, Align, Table};

/// Rows per list in the human output (all are in --json).
const SHOW: usize = 20;

#[derive(Serialize)]
struct MemoryJson<'a> {
    compaction: &'a Compaction,
    finalization: &'a Finalization,
    memory_pressure: &'a MemoryPressure,
    segments: &'a Segments,
}

fn more(s: &mut String, n: usize) {
    if n > SHOW {
        s.push_str(&format!("... {} more (--json lists all)\n", n - SHOW));
    }
}

pub fn run(opts: &JsonOpts) -> Result<(), String> {
    let json = opts.json("memory")?;
    let (_, ins) = load_insights(&opts.input)?;
    if json {
        return print_json(&MemoryJson {
            compaction: &ins.compaction,
            finalization: &ins.finalization,
            memory_pressure: &ins.memory_pressure,
            segments: &ins.segments,
        });
    }
    let mut s = String::new();

    let c = &ins.compaction;
    s.push_str("Compaction\n");
    if !c.has_events {
        s.push_str("  No GCBulkMovedObjectRanges / GCBulkSurvivingObjectRanges events (keyword 0x400000).\n");
    } else {
        s.push_str(&format!(
            "  {} moved-range events ({} MB moved, {} MB relocated), {} surviving-range events ({} MB)\n",
            c.moved_events,
            table::mb3(c.moved_bytes),
            table::mb3(c.relocated_bytes),
            c.surviving_events,
            table::mb3(c.surviving_bytes)
        ));
        let mut t = Table::new(&[
            ("GC", Align::Right),
            ("Gen", Align::Right),
            ("Moved ranges", Align::Right),
            ("Moved MB", Align::Right),
            ("Relocated MB", Align::Right),
            ("Surviving ranges", Align::Right),
            ("Surviving MB", Align::Right),
        ]);
        for g in c.per_gc.iter().take(SHOW) {
            t.row(vec![
                g.gc_number.to_string(),
                g.gen.to_string(),
                g.moved_ranges.to_string(),
                table::mb3(g.moved_bytes),
                table::mb3(g.relocated_bytes),
                g.surviving_ranges.to_string(),
                table::mb3(g.surviving_bytes),
            ]);
        }
        s.push_str(&t.render());
        more(&mut s, c.per_gc.len());
    }

    let f = &ins.finalization;
    s.push_str("\nFinalization\n");
    if !f.has_events {
        s.push_str("  No finalization events.\n");
    } else {
        s.push_str(&format!(
            "  {} finalizers run in {} batches; {} FinalizeObject events\n",
            f.finalizers_run,
            f.runs.len(),
            f.finalize_object_events
        ));
        let mut t = Table::new(&[
            ("GC", Align::Right),
            ("Gen", Align::Right),
            ("Fin promoted MB", Align::Right),
            ("Fin promoted #", Align::Right),
            ("Finalizers run", Align::Right),
        ]);
        let rows: Vec<_> = f
            .per_gc
            .iter()
            .filter(|g| g.promoted_count.unwrap_or(0) > 0 || g.finalizers_run.unwrap_or(0) > 0)
            .collect();
        for g in rows.iter().take(SHOW) {
            t.row(vec![
                g.gc_number.to_string(),
                g.gen.to_string(),
                table::mb(g.promoted_bytes),
                table::num(g.promoted_count),
                table::num(g.finalizers_run),
            ]);
        }
        s.push_str(&t.render());
        more(&mut s, rows.len());
        if !f.by_type.is_empty() {
            let mut t = Table::new(&[("Finalized type", Align::Left), ("Count", Align::Right)]);
            for ty in f.by_type.iter().take(SHOW) {
                t.row(vec![ty.type_name.clone(), ty.count.to_string()]);
            }
            s.push_str(&t.render());
            more(&mut s, f.by_type.len());
        }
    }

    let p = &ins.memory_pressure;
    s.push_str("\nMemory pressure\n");
    if !p.has_events {
        s.push_str("  No IncreaseMemoryPressure / DecreaseMemoryPressure events.\n");
    } else {
        s.push_str(&format!(
            "  {} adds ({} MB), {} removes ({} MB); net {} MB at the end, peak {} MB\n",
            p.increase_count,
            table::mb3(p.increased_bytes),
            p.decrease_count,
            table::mb3(p.decreased_bytes),
            table::mb3(p.net_bytes),
            table::mb3(p.peak_net_bytes)
        ));
    }

    let g = &ins.segments;
    s.push_str("\nSegments and regions\n");
    if !g.has_events {
        s.push_str("  No GCCreateSegment / GCFreeSegment / GCGenerationRange events.\n");
    } else {
        s.push_str(&format!(
            "  {} created, {} freed; {} generation-range events in {} snapshots\n",
            g.created,
            g.freed,
            g.generation_range_events,
            g.range_snapshots.len()
        ));
        if let Some(last) = g.reserved_over_time.last() {
            let b = &last.bytes;
            s.push_str(&format!(
                "  Reserved by segments created in the trace, at the end: {} MB (SOH {}, LOH {}, POH {}, read-only {})\n",
                table::mb3(b.total),
                table::mb3(b.soh),
                table::mb3(b.loh),
                table::mb3(b.poh),
                table::mb3(b.read_only)
            ));
        }
        let mut t = Table::new(&[
            ("Address", Align::Right),
            ("Kind", Align::Left),
            ("Size MB", Align::Right),
            ("Created ms", Align::Right),
            ("Freed ms", Align::Right),
        ]);
        for x in g.segments.iter().take(SHOW) {
            t.row(vec![
                format!("{:#x}", x.address),
                x.kind.to_string(),
                table::mb(x.size_bytes),
                table::ms(x.created_ms),
                table::ms(x.freed_ms),
            ]);
        }
        s.push_str(&t.render());
        more(&mut s, g.segments.len());
    }
    print(&s)
}
