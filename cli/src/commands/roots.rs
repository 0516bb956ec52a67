//! `gcscope roots FILE`: bytes marked from each root kind (GCMarkWithType), in total and per GC.

use crate::args::JsonOpts;
use crate::input::model::load_insights;
use crate::output::stdout::{print, print_json};
use crate::output::table::{self, Align, Table};

/// Root kinds in `RootMarks` order, as column labels.
const LABELS: [&str; 10] = [
    "Stack",
    "FinalizeQ",
    "Handles",
    "Older",
    "SizedRef",
    "Overflow",
    "Dependent",
    "NewFQ",
    "Steal",
    "BGC",
];

pub fn run(opts: &JsonOpts) -> Result<(), String> {
    let json = opts.json("roots")?;
    let (_, ins) = load_insights(&opts.input)?;
    let r = &ins.roots;
    if json {
        return print_json(r);
    }
    let mut s = String::new();
    if !r.has_events {
        s.push_str("No GCMarkWithType events (.NET Core 2.2+, GC keyword 0x1).\n");
        return print(&s);
    }
    s.push_str(&format!(
        "{} GCMarkWithType events, {} GCs, {} MB marked in total\n\n",
        r.event_count,
        r.per_gc.len(),
        table::mb3(r.total_bytes)
    ));
    let mut t = Table::new(&[
        ("Root kind", Align::Left),
        ("Marked MB", Align::Right),
        ("%", Align::Right),
        ("GCs", Align::Right),
    ]);
    for k in &r.by_kind {
        t.row(vec![
            k.kind.to_string(),
            table::mb3(k.bytes),
            table::pct(Some(k.pct)),
            k.gcs.to_string(),
        ]);
    }
    s.push_str(&t.render());
    s.push_str("\nPer GC (MB)\n");
    let mut headers = vec![("GC", Align::Right), ("Gen", Align::Right)];
    headers.extend(LABELS.iter().map(|l| (*l, Align::Right)));
    headers.push(("Total", Align::Right));
    let mut p = Table::new(&headers);
    for g in &r.per_gc {
        let mut row = vec![g.gc_number.to_string(), g.gen.to_string()];
        row.extend(
            gcscope_core::gc::insights::root_values(&g.marked)
                .iter()
                .map(|&b| table::mb3(b)),
        );
        row.push(table::mb3(g.total_bytes));
        p.row(row);
    }
    s.push_str(&p.render());
    print(&s)
}
