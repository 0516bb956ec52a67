//! `gcscope suspensions FILE`: every execution-engine suspension by reason, time to suspend per GC,
//! and the suspensions that were not for a GC.

use crate::args::JsonOpts;
use crate::input::model::load_insights;
use crate::output::stdout::{print, print_json};
use crate::output::table::{self, Align, Table};

/// Suspensions not for a GC listed in the human output (all are in --json).
const SHOW_OTHER: usize = 20;

pub fn run(opts: &JsonOpts) -> Result<(), String> {
    let json = opts.json("suspensions")?;
    let (_, ins) = load_insights(&opts.input)?;
    let su = &ins.suspensions;
    if json {
        return print_json(su);
    }
    let mut s = String::new();
    if !su.has_events {
        s.push_str("No GCSuspendEEBegin events.\n");
        return print(&s);
    }
    s.push_str(&format!(
        "{} suspensions: {} for GCs, {} for other reasons\n\n",
        su.count,
        su.for_gc.len(),
        su.not_for_gc.len()
    ));
    let mut t = Table::new(&[
        ("Reason", Align::Left),
        ("Count", Align::Right),
        ("Total suspend ms", Align::Right),
        ("Max suspend ms", Align::Right),
        ("Total pause ms", Align::Right),
        ("Max pause ms", Align::Right),
    ]);
    for r in &su.by_reason {
        t.row(vec![
            r.reason.to_string(),
            r.count.to_string(),
            table::ms(Some(r.total_suspend_ms)),
            table::ms(Some(r.max_suspend_ms)),
            table::ms(Some(r.total_pause_ms)),
            table::ms(Some(r.max_pause_ms)),
        ]);
    }
    s.push_str(&t.render());
    s.push_str("\nPer GC\n");
    let mut p = Table::new(&[
        ("GC", Align::Right),
        ("Gen", Align::Right),
        ("#", Align::Right),
        ("Reasons", Align::Left),
        ("Suspend ms", Align::Right),
        ("Max suspend ms", Align::Right),
        ("Pause ms", Align::Right),
    ]);
    for g in &su.per_gc {
        p.row(vec![
            g.gc_number.to_string(),
            g.gen.to_string(),
            g.count.to_string(),
            g.reasons.join(", "),
            table::ms(Some(g.total_suspend_ms)),
            table::ms(Some(g.max_suspend_ms)),
            table::ms(Some(g.total_pause_ms)),
        ]);
    }
    s.push_str(&p.render());
    if !su.not_for_gc.is_empty() {
        s.push_str("\nNot for a GC (longest pauses first)\n");
        let mut other: Vec<_> = su.not_for_gc.iter().collect();
        other.sort_by(|a, b| {
            b.pause_ms
                .unwrap_or(0.0)
                .total_cmp(&a.pause_ms.unwrap_or(0.0))
        });
        let mut o = Table::new(&[
            ("Begin ms", Align::Right),
            ("Reason", Align::Left),
            ("Thread", Align::Right),
            ("Suspend ms", Align::Right),
            ("Pause ms", Align::Right),
        ]);
        for x in other.iter().take(SHOW_OTHER) {
            o.row(vec![
                format!("{:.3}", x.begin_ms),
                x.reason.to_string(),
                x.thread.to_string(),
                table::ms(x.suspend_ms),
                table::ms(x.pause_ms),
            ]);
        }
        s.push_str(&o.render());
        if other.len() > SHOW_OTHER {
            s.push_str(&format!(
                "... {} more (--json lists all)\n",
                other.len() - SHOW_OTHER
            ));
        }
    }
    print(&s)
}
