//! `gcscope handles FILE`: GC handles created and destroyed by kind, and those alive at the end.

use crate::args::JsonOpts;
use crate::input::model::load_summaries;
use crate::output::stdout::{print, print_json};
use crate::output::table::{Align, Table};

/// Alive-at-end handles listed in the human output (all are in --json).
const SHOW_ALIVE: usize = 20;

pub fn run(opts: &JsonOpts) -> Result<(), String> {
    let json = opts.json("handles")?;
    let m = load_summaries(&opts.input)?;
    let h = &m.handles;
    if json {
        return print_json(h);
    }
    let mut s = String::new();
    if !h.has_events {
        s.push_str(
            "No SetGCHandle / DestroyGCHandle events (they need the GCHandle keyword, 0x2).\n",
        );
        return print(&s);
    }
    s.push_str(&format!(
        "{} handles created, {} destroyed, {} destroyed that were created before the trace, \
         {} ids reused without a destroy event, {} alive at end\n\n",
        h.created,
        h.destroyed,
        h.destroyed_unmatched,
        h.reused_without_destroy,
        h.alive_at_end.len()
    ));
    let mut t = Table::new(&[
        ("Kind", Align::Left),
        ("Created", Align::Right),
        ("Destroyed", Align::Right),
        ("Alive at end", Align::Right),
    ]);
    for k in &h.by_kind {
        t.row(vec![
            k.kind.to_string(),
            k.created.to_string(),
            k.destroyed.to_string(),
            k.alive_at_end.to_string(),
        ]);
    }
    s.push_str(&t.render());
    if let Some(peak) = h.live_over_time.iter().max_by_key(|p| p.value) {
        s.push_str(&format!(
            "\nLive handles (created in the trace): peak {} at {:.3} ms, {} at the end\n",
            peak.value,
            peak.ms,
            h.live_over_time.last().map_or(0, |p| p.value)
        ));
    }
    if !h.alive_at_end.is_empty() {
        s.push_str("\nAlive at end\n");
        let mut t = Table::new(&[
            ("Handle", Align::Right),
            ("Kind", Align::Left),
            ("Gen", Align::Right),
            ("Created ms", Align::Right),
            ("Object", Align::Right),
            ("Type", Align::Left),
        ]);
        for l in h.alive_at_end.iter().take(SHOW_ALIVE) {
            t.row(vec![
                format!("{:#x}", l.handle),
                l.kind.to_string(),
                l.generation.to_string(),
                format!("{:.3}", l.created_ms),
                format!("{:#x}", l.object),
                l.type_name.clone().unwrap_or_default(),
            ]);
        }
        s.push_str(&t.render());
        if h.alive_at_end.len() > SHOW_ALIVE {
            s.push_str(&format!(
                "... {} more (--json lists all)\n",
                h.alive_at_end.len() - SHOW_ALIVE
            ));
        }
    }
    print(&s)
}
