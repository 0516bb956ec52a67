//! `gcscope reasons FILE`: why GCs happened (trigger reasons) and why they condemned their
//! generation (GCPerHeapHistory condemn reasons, per heap for server GC).

use gcscope_core::clr::enums::CondemnCondition;
use gcscope_core::gc::reasons::condition_help;
use gcscope_core::gc::{GcModel, ReasonCount};
use serde::Serialize;

use crate::args::JsonOpts;
use crate::summary::{load_model, print};
use crate::table::{Align, Table};

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

fn disagreements(m: &GcModel) -> Vec<HeapDisagreement> {
    m.gcs
        .iter()
        .filter(|g| {
            g.heaps.len() > 1
                && g.heaps
                    .iter()
                    .any(|h| h.condemn.final_gen != g.heaps[0].condemn.final_gen)
        })
        .map(|g| HeapDisagreement {
            number: g.number,
            gen: g.gen,
            final_gen_per_heap: g.heaps.iter().map(|h| h.condemn.final_gen).collect(),
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
            // Keep lines within 100 columns; docs/model.md has the full text.
            cells.push(crate::summary::clip(help_for(&r.reason), 52));
        }
        t.row(cells);
    }
    t.render()
}

pub fn run(opts: &JsonOpts) -> Result<(), String> {
    let json = opts.json("reasons")?;
    let m = load_model(&opts.input)?;
    let dis = disagreements(&m);
    if json {
        let mut s = serde_json::to_string_pretty(&ReasonsJson {
            condemn_reasons: &m.condemn_reasons,
            heaps_disagreeing: dis,
        })
        .map_err(|e| e.to_string())?;
        s.push('\n');
        return print(&s);
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
