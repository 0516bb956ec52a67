//! `gcscope budgets FILE`: per GC, each generation's budget, sizes, survival and fragmentation
//! (all heaps), and why the GC collected the generation it did.

use gcscope_core::gc::insights::{budgets_in, GcBudget, GenBudget};
use gcscope_core::gc::packed::PackedHeaps;
use gcscope_core::gc::Gc;
use std::io::Write;

use crate::args::JsonOpts;
use crate::input::model::load_rows_with_packed_heaps;
use crate::output::json_array::{self, SerializedAsMade};
use crate::output::stdout::{print, print_json, print_with};
use crate::output::table::{self, Align, Table};

const GENS: [&str; 5] = ["gen0", "gen1", "gen2", "loh", "poh"];

pub fn run(opts: &JsonOpts) -> Result<(), String> {
    let json = opts.json("budgets")?;
    // The budgets come from the rows and their heaps alone: no insights to build (no tick is
    // looked at one by one), and the heaps are kept packed, read back one GC at a time.
    let (model, heaps) = load_rows_with_packed_heaps(&opts.input)?;
    if json {
        // Each GC's budgets, per heap, written as they are made and let go: every GC's, held at
        // once, would grow with the GCs times the heaps (docs/performance-log/journal.md, "The
        // CLI's rows kept lean, `budgets --json` on threads").
        let (gcs, jobs) = (&model.gcs, opts.input.jobs());
        if jobs > 1 {
            return print_with(|out| write_json_on(out, jobs, CHUNK_GCS, gcs, &heaps));
        }
        let all = SerializedAsMade::new(budgets_in(gcs, &heaps, true, 0..gcs.len()));
        return print_json(&all);
    }
    let all = 0..model.gcs.len();
    let budgets: Vec<GcBudget> = budgets_in(&model.gcs, &heaps, false, all).collect();
    let mut s = String::new();
    if budgets.is_empty() {
        s.push_str("No GCPerHeapHistory events: budgets need the GC keyword (0x1) at Informational level or above.\n");
        return print(&s);
    }
    s.push_str("Budget = NewAllocation left after the GC (MB, all heaps); Used % = allocated since the previous GC / the budget it left (gen0, LOH, POH).\n\n");
    let mut t = Table::new(&[
        ("GC", Align::Right),
        ("GC gen", Align::Right),
        ("Generation", Align::Left),
        ("Budget MB", Align::Right),
        ("Used %", Align::Right),
        ("Before MB", Align::Right),
        ("After MB", Align::Right),
        ("Obj after MB", Align::Right),
        ("Survived MB", Align::Right),
        ("In MB", Align::Right),
        ("Frag MB", Align::Right),
    ]);
    for b in &budgets {
        for (i, name) in GENS.iter().enumerate() {
            let Some(g): Option<&GenBudget> = b.total.get(i) else {
                continue;
            };
            let first = i == 0;
            t.row(vec![
                if first {
                    b.gc_number.to_string()
                } else {
                    String::new()
                },
                if first {
                    b.gen.to_string()
                } else {
                    String::new()
                },
                name.to_string(),
                table::mb3(g.budget_bytes),
                table::pct(g.budget_used_pct),
                table::mb3(g.size_before_bytes),
                table::mb3(g.size_after_bytes),
                table::mb3(g.obj_size_after_bytes),
                table::mb3(g.survived_bytes),
                table::mb3(g.in_bytes),
                table::mb3(g.fragmentation_bytes),
            ]);
        }
    }
    s.push_str(&t.render());
    s.push_str("\nWhy each GC collected its generation\n");
    let mut w = Table::new(&[
        ("GC", Align::Right),
        ("Gen", Align::Right),
        ("Initial", Align::Right),
        ("Over budget", Align::Right),
        ("Escalated", Align::Left),
        ("Why", Align::Left),
    ]);
    for b in &budgets {
        w.row(vec![
            b.gc_number.to_string(),
            b.gen.to_string(),
            table::num(b.initial_gen),
            table::num(b.budget_exceeded_gen),
            if b.escalated {
                "yes".into()
            } else {
                String::new()
            },
            b.why.clone(),
        ]);
    }
    s.push_str(&w.render());
    print(&s)
}

/// GCs whose budgets one thread makes at a time: a few MB of JSON with many heaps.
const CHUNK_GCS: usize = 64;

/// The budgets' array (without the final newline), chunks of `chunk` GCs made on `jobs` threads:
/// writing it is most of `budgets --json`'s time on a many-heap trace
/// (docs/performance-log/journal.md, "The CLI's rows kept lean, `budgets --json` on threads"), and
/// each GC's budgets depend only on the rows and the packed heaps. The bytes are those of
/// [`print_json`] of every GC at once.
fn write_json_on(
    out: &mut (impl Write + ?Sized),
    jobs: usize,
    chunk: usize,
    gcs: &[Gc],
    heaps: &PackedHeaps,
) -> std::io::Result<()> {
    let ranges = (0..gcs.len().div_ceil(chunk)).map(|k| k * chunk..(k + 1) * chunk);
    let make =
        |range| json_array::pretty(&SerializedAsMade::new(budgets_in(gcs, heaps, true, range)));
    json_array::write(out, jobs, ranges, make, |_| false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::test_traces::{fixture, input, WITH_HEAPS};
    use gcscope_core::gc::insights::analyze_with_insights;

    #[test]
    fn json_made_in_chunks_on_threads_is_the_whole_analysis_budgets() {
        // The reference: core's whole-file analysis (rows holding their heaps, every budget in one
        // vector), printed at once. Under test: the rows kept without their heaps, those packed,
        // the budgets made in chunks on threads and joined.
        let mut chunks_seen = 0;
        for name in WITH_HEAPS {
            let path = fixture(name);
            let bytes = std::fs::read(&path).unwrap();
            let (whole, ins) = analyze_with_insights(&bytes).unwrap();
            assert!(!ins.budgets.is_empty(), "{name}");
            let want = serde_json::to_string_pretty(&ins.budgets).unwrap() + "\n";
            let input = input(&path, 1);
            let (m, heaps) = load_rows_with_packed_heaps(&input).unwrap();
            assert_eq!(m.gcs.len(), whole.gcs.len(), "{name}");
            for chunk in [1, 2, 7, CHUNK_GCS, 1000] {
                for jobs in [1, 2, 3] {
                    let mut out = Vec::new();
                    write_json_on(&mut out, jobs, chunk, &m.gcs, &heaps).unwrap();
                    out.push(b'\n');
                    let have = String::from_utf8(out).unwrap();
                    assert!(have == want, "{name}: {jobs} threads, chunks of {chunk}");
                    chunks_seen += m.gcs.len().div_ceil(chunk);
                }
            }
        }
        assert!(chunks_seen > 1000, "{chunks_seen}");
        // No GC with heaps: an empty array, as serde writes it.
        let mut out = Vec::new();
        write_json_on(&mut out, 2, 3, &[], &PackedHeaps::default()).unwrap();
        assert_eq!(out, b"[]");
    }
}
