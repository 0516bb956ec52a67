//! `gcscope budgets FILE`: per GC, each generation's budget, sizes, survival and fragmentation
//! (all heaps), and why the GC collected the generation it did.

use gcscope_core::gc::insights::GenBudget;

use crate::args::JsonOpts;
use crate::insight::{load, mb, mb_i, print_json};
use crate::table::{self, Align, Table};

const GENS: [&str; 5] = ["gen0", "gen1", "gen2", "loh", "poh"];

pub fn run(opts: &JsonOpts) -> Result<(), String> {
    let json = opts.json("budgets")?;
    let (_, ins) = load(&opts.input)?;
    if json {
        return print_json(&ins.budgets);
    }
    let mut s = String::new();
    if ins.budgets.is_empty() {
        s.push_str("No GCPerHeapHistory events: budgets need the GC keyword (0x1) at Informational level or above.\n");
        return crate::summary::print(&s);
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
    for b in &ins.budgets {
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
                mb_i(g.budget_bytes),
                table::pct(g.budget_used_pct),
                mb(g.size_before_bytes),
                mb(g.size_after_bytes),
                mb(g.obj_size_after_bytes),
                mb(g.survived_bytes),
                mb(g.in_bytes),
                mb(g.fragmentation_bytes),
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
    for b in &ins.budgets {
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
    crate::summary::print(&s)
}
