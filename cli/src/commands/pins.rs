//! `gcscope pins FILE`: pinned objects by type, and pinning per GC.

use serde::Serialize;

use crate::args::JsonOpts;
use crate::input::model::load_rows;
use crate::output::stdout::{print, print_json};
use crate::output::table::{self, Align, Table};

#[derive(Serialize)]
struct PerGc {
    number: u32,
    gen: u8,
    start_ms: f64,
    pinned_object_count: Option<u32>,
    pinned_objects_reported: usize,
    pinned_objects_bytes: Option<u64>,
    pinned_plugs: usize,
    pinned_plug_bytes: Option<u64>,
    pinned_object_pct: Option<f64>,
}

#[derive(Serialize)]
struct PinsJson<'a> {
    pinning: &'a gcscope_core::gc::PinSummary,
    per_gc: Vec<PerGc>,
}

pub fn run(opts: &JsonOpts) -> Result<(), String> {
    let json = opts.json("pins")?;
    let m = load_rows(&opts.input)?;
    let per_gc: Vec<PerGc> = m
        .gcs
        .iter()
        .filter(|g| {
            !g.pinned_objects.is_empty()
                || !g.pinned_plugs.is_empty()
                || g.pinned_object_count.unwrap_or(0) > 0
        })
        .map(|g| PerGc {
            number: g.number,
            gen: g.gen,
            start_ms: g.start_ms,
            pinned_object_count: g.pinned_object_count,
            pinned_objects_reported: g.pinned_objects.len(),
            pinned_objects_bytes: g.pinned_objects_bytes,
            pinned_plugs: g.pinned_plugs.len(),
            pinned_plug_bytes: g.pinned_plug_bytes,
            pinned_object_pct: g.pinned_object_pct,
        })
        .collect();
    if json {
        return print_json(&PinsJson {
            pinning: &m.pinning,
            per_gc,
        });
    }
    let p = &m.pinning;
    let mut s = String::new();
    if !p.has_events {
        s.push_str("No PinObjectAtGCTime / PinPlugAtGCTime events (they need the GC keyword at Verbose level).\n");
    } else {
        s.push_str(&format!(
            "{} pinned-object reports in {} GCs, {} pinned-plug reports\n\nPinned objects by type\n",
            p.pinned_object_events, p.gcs_with_pins, p.pinned_plug_events
        ));
        let mut t = Table::new(&[
            ("Type", Align::Left),
            ("Reports", Align::Right),
            ("Bytes", Align::Right),
            ("In GCs", Align::Right),
        ]);
        for ty in &p.by_type {
            t.row(vec![
                ty.type_name.clone(),
                ty.count.to_string(),
                ty.total_bytes.to_string(),
                ty.gcs.to_string(),
            ]);
        }
        s.push_str(&t.render());
    }
    if !per_gc.is_empty() {
        s.push_str(
            "\nGCs with pinning (Pinned # from GCHeapStats; reported = PinObjectAtGCTime)\n",
        );
        let mut t = Table::new(&[
            ("GC#", Align::Right),
            ("Gen", Align::Right),
            ("Start ms", Align::Right),
            ("Pinned #", Align::Right),
            ("Reported", Align::Right),
            ("Obj bytes", Align::Right),
            ("Plugs", Align::Right),
            ("Plug bytes", Align::Right),
            ("Obj % of plugs", Align::Right),
        ]);
        for g in &per_gc {
            t.row(vec![
                g.number.to_string(),
                g.gen.to_string(),
                format!("{:.3}", g.start_ms),
                table::num(g.pinned_object_count),
                g.pinned_objects_reported.to_string(),
                table::num(g.pinned_objects_bytes),
                g.pinned_plugs.to_string(),
                table::num(g.pinned_plug_bytes),
                table::pct(g.pinned_object_pct),
            ]);
        }
        s.push_str(&t.render());
    }
    print(&s)
}
