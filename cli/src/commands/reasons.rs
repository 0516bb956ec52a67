//! `gcscope reasons FILE`: why GCs happened (trigger reasons) and why they condemned their
//! generation (GCPerHeapHistory condemn reasons, per heap for server GC).

use gcscope_core::clr::enums::CondemnCondition;
use gcscope_core::gc::packed::{HeapSource, PackedHeaps};
use gcscope_core::gc::reasons::condition_help;
use gcscope_core::gc::{GcModel, ReasonCount};
use serde::Serialize;

use crate::args::JsonOpts;
use crate::input::model::load_rows_with_packed_heaps;
use crate::output::stdout::{print, print_json};
use crate::output::table::{Align, Table};

#[derive(Serialize)]
struct ReasonsJson<'a> {
    condemn_reasons: &'a gcscope_core::gc::CondemnBreakdown,
    /// Server GC: GCs whose heaps did not all want the same generation.
    heaps_disagreeing: Vec<HeapDisagreement>,
}

#[derive(Serialize)]
struct HeapDisagreement {
    number: u32,
    gen: u8,
    /// Final generation each heap wanted, in heap order.
    final_gen_per_heap: Vec<u8>,
}

/// The GCs whose heaps wanted different generations, from each GC's packed heaps.
fn disagreements(m: &GcModel, heaps: &PackedHeaps) -> Vec<HeapDisagreement> {
    m.gcs
        .iter()
        .enumerate()
        .filter(|&(i, _)| heaps.heap_count(i) > 1)
        .filter_map(|(i, g)| {
            let final_gen_per_heap: Vec<u8> =
                heaps.heaps(i).iter().map(|h| h.condemn.final_gen).collect();
            final_gen_per_heap
                .windows(2)
                .any(|w| w[0] != w[1])
                .then_some(HeapDisagreement {
                    number: g.number,
                    gen: g.gen,
                    final_gen_per_heap,
                })
        })
        .collect()
}

fn help_for(reason: &str) -> &'static str {
    match reason {
        gcscope_core::gc::ALLOC_BUDGET => "the generation's allocation budget was exceeded",
        gcscope_core::gc::TIME_TUNING => "too long since the generation was last collected",
        _ => CondemnCondition::ALL
            .iter()
            .find(|c| c.name() == reason)
            .map_or("", |c| condition_help(*c)),
    }
}

fn table(rows: &[ReasonCount], with_help: bool) -> String {
    let mut head = vec![
        ("Reason", Align::Left),
        ("Gen0", Align::Right),
        ("Gen1", Align::Right),
        ("Gen2", Align::Right),
        ("Total", Align::Right),
    ];
    if with_help {
        head.push(("Meaning", Align::Left));
    }
    let mut t = Table::new(&head);
    for r in rows {
        let mut cells = vec![
            r.reason.to_string(),
            r.per_gen[0].to_string(),
            r.per_gen[1].to_string(),
            r.per_gen[2].to_string(),
            r.total.to_string(),
        ];
        if with_help {
            // Keep lines within 100 columns; docs/reference/model.md has the full text.
            cells.push(crate::output::table::clip(help_for(&r.reason), 52));
        }
        t.row(cells);
    }
    t.render()
}

pub fn run(opts: &JsonOpts) -> Result<(), String> {
    let json = opts.json("reasons")?;
    let (m, heaps) = load_rows_with_packed_heaps(&opts.input)?;
    let dis = disagreements(&m, &heaps);
    if json {
        return print_json(&ReasonsJson {
            condemn_reasons: &m.condemn_reasons,
            heaps_disagreeing: dis,
        });
    }
    let c = &m.condemn_reasons;
    let mut s = String::from("Trigger reasons (GCStart Reason): GCs per generation\n");
    s.push_str(&table(&c.by_trigger, false));
    s.push_str("\nCondemn reasons (GCPerHeapHistory of the deciding heap, with GCGlobalHeapHistory's): GCs per generation\n");
    if c.by_condition.is_empty() {
        s.push_str("(no GCPerHeapHistory events in this trace)\n");
    } else {
        s.push_str(&table(&c.by_condition, true));
    }
    let w = c.without_history;
    if w.iter().any(|n| *n > 0) {
        s.push_str(&format!(
            "GCs without condemn reasons: gen0 {}, gen1 {}, gen2 {}\n",
            w[0], w[1], w[2]
        ));
    }
    if !dis.is_empty() {
        s.push_str(&format!(
            "\nServer GC: {} GCs where heaps wanted different generations, e.g.\n",
            dis.len()
        ));
        for d in dis.iter().take(10) {
            s.push_str(&format!(
                "  GC {} (gen {}): per heap {:?}\n",
                d.number, d.gen, d.final_gen_per_heap
            ));
        }
    }
    print(&s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::test_traces::{fixture, input, WITH_HEAPS};

    #[test]
    fn heaps_that_disagree_are_found_in_the_packed_heaps() {
        // The reference: core's whole-file analysis, whose rows hold their heaps, compared heap by
        // heap here. Under test: the rows kept without their heaps and those packed beside them.
        let mut found = 0;
        for name in WITH_HEAPS {
            let path = fixture(name);
            let whole = gcscope_core::gc::analyze(&std::fs::read(&path).unwrap()).unwrap();
            let want: Vec<(u32, Vec<u8>)> = whole
                .gcs
                .iter()
                .filter_map(|g| {
                    let gens: Vec<u8> = g.heaps.iter().map(|h| h.condemn.final_gen).collect();
                    gens.windows(2)
                        .any(|w| w[0] != w[1])
                        .then_some((g.number, gens))
                })
                .collect();
            let input = input(&path, 2);
            let (m, heaps) = load_rows_with_packed_heaps(&input).unwrap();
            let have: Vec<(u32, Vec<u8>)> = disagreements(&m, &heaps)
                .into_iter()
                .map(|d| (d.number, d.final_gen_per_heap))
                .collect();
            assert_eq!(have, want, "{name}");
            found += want.len();
        }
        assert!(found >= 10, "{found}");
    }
}
