//! The GC table's columns: every figure of a [`Gc`] row, keyed by its JSON path (the same key as
//! core's definitions, so the header tooltip is the model's own one-line definition).

use std::sync::OnceLock;

use gcscope_core::gc::{Gc, Generations};

use super::callers::{self, CallerIndex, CALLER};
use super::cell::{fmt_column_cell, Cell};
use super::defs;

pub type Getter = fn(&Gc) -> Cell;

pub struct Column {
    /// JSON path of the figure (`generations.gen2.survival_pct`).
    pub id: String,
    pub label: String,
    pub unit: &'static str,
    pub help: &'static str,
    pub get: Getter,
}

impl Column {
    pub fn is_num(&self) -> bool {
        !matches!(self.unit, "name" | "bool")
    }

    /// The cell as shown: units and separators, so every figure reads the same way.
    pub fn show(&self, gc: &Gc) -> String {
        fmt_column_cell(&self.id, self.unit, &(self.get)(gc))
    }
}

fn names<S: AsRef<str>>(v: &[S]) -> String {
    v.iter().map(|s| s.as_ref()).collect::<Vec<_>>().join(", ")
}

fn text(s: impl Into<String>) -> Cell {
    Cell::Text(s.into())
}

fn yes_no(b: bool) -> Cell {
    text(if b { "yes" } else { "no" })
}

/// Columns that hold one figure of the GC row itself.
fn top_level() -> Vec<(&'static str, Getter)> {
    vec![
        ("number", |g| Cell::num(Some(g.number))),
        ("gen", |g| Cell::num(Some(g.gen))),
        ("type", |g| text(g.gc_type.name())),
        ("reason", |g| text(g.reason.as_ref())),
        ("reason_code", |g| Cell::num(Some(g.reason_code))),
        ("induced", |g| yes_no(g.induced)),
        ("complete", |g| yes_no(g.complete)),
        ("start_ms", |g| Cell::num(Some(g.start_ms))),
        ("gc_start_ms", |g| Cell::num(Some(g.gc_start_ms))),
        ("end_ms", |g| Cell::num(g.end_ms)),
        ("duration_ms", |g| Cell::num(g.duration_ms)),
        ("suspend_ms", |g| Cell::num(g.suspend_ms)),
        ("pause_ms", |g| Cell::num(g.pause_ms)),
        ("bgc_final_pause_ms", |g| Cell::num(g.bgc_final_pause_ms)),
        ("since_previous_gc_ms", |g| {
            Cell::num(g.since_previous_gc_ms)
        }),
        ("pause_pct", |g| Cell::num(g.pause_pct)),
        ("gen0_allocated_bytes", |g| {
            Cell::u64(g.gen0_allocated_bytes)
        }),
        ("loh_allocated_bytes", |g| Cell::u64(g.loh_allocated_bytes)),
        ("poh_allocated_bytes", |g| Cell::u64(g.poh_allocated_bytes)),
        ("allocated_bytes", |g| Cell::u64(g.allocated_bytes)),
        ("gen0_alloc_rate_bytes_per_s", |g| {
            Cell::num(g.gen0_alloc_rate_bytes_per_s)
        }),
        ("alloc_rate_bytes_per_s", |g| {
            Cell::num(g.alloc_rate_bytes_per_s)
        }),
        ("alloc_tick_bytes", |g| Cell::u64(g.alloc_tick_bytes)),
        ("before_bytes", |g| Cell::u64(g.before_bytes)),
        ("peak_bytes", |g| Cell::u64(g.peak_bytes)),
        ("after_bytes", |g| Cell::u64(g.after_bytes)),
        ("peak_after_ratio", |g| Cell::num(g.peak_after_ratio)),
        ("promoted_bytes", |g| Cell::u64(g.promoted_bytes)),
    ]
}

fn counters() -> Vec<(&'static str, Getter)> {
    vec![
        ("finalization_promoted_bytes", |g| {
            Cell::u64(g.finalization_promoted_bytes)
        }),
        ("finalization_promoted_count", |g| {
            Cell::u64(g.finalization_promoted_count)
        }),
        ("pinned_object_count", |g| Cell::num(g.pinned_object_count)),
        ("gc_handle_count", |g| Cell::num(g.gc_handle_count)),
        ("sync_block_count", |g| Cell::num(g.sync_block_count)),
        ("heap_count", |g| Cell::num(g.heap_count)),
        ("condemned_gen", |g| Cell::num(g.condemned_gen)),
        ("pause_mode", |g| {
            text(g.pause_mode.as_deref().unwrap_or(""))
        }),
        ("memory_pressure_pct", |g| Cell::num(g.memory_pressure_pct)),
        ("global_mechanisms", |g| {
            text(
                g.global_mechanisms
                    .as_deref()
                    .map(names)
                    .unwrap_or_default(),
            )
        }),
        ("gen0_budget_bytes", |g| Cell::u64(g.gen0_budget_bytes)),
        ("gen0_reduction_count", |g| {
            Cell::num(g.gen0_reduction_count)
        }),
        ("phase_times_us.mark_sized_ref", |g| {
            Cell::num(g.phase_times_us.as_ref().and_then(|p| p.mark_sized_ref))
        }),
        ("phase_times_us.mark_roots", |g| {
            Cell::num(g.phase_times_us.as_ref().and_then(|p| p.mark_roots))
        }),
        ("phase_times_us.mark_short_weak", |g| {
            Cell::num(g.phase_times_us.as_ref().and_then(|p| p.mark_short_weak))
        }),
        ("phase_times_us.mark_finalization", |g| {
            Cell::num(g.phase_times_us.as_ref().and_then(|p| p.mark_finalization))
        }),
        ("phase_times_us.mark_long_weak", |g| {
            Cell::num(g.phase_times_us.as_ref().and_then(|p| p.mark_long_weak))
        }),
        ("phase_times_us.plan", |g| {
            Cell::num(g.phase_times_us.as_ref().and_then(|p| p.plan))
        }),
        ("phase_times_us.relocate", |g| {
            Cell::num(g.phase_times_us.as_ref().and_then(|p| p.relocate))
        }),
        ("phase_times_us.compact", |g| {
            Cell::num(g.phase_times_us.as_ref().and_then(|p| p.compact))
        }),
        ("phase_times_us.sweep", |g| {
            Cell::num(g.phase_times_us.as_ref().and_then(|p| p.sweep))
        }),
        ("condemn.initial_gen", |g| {
            Cell::num(g.condemn.as_ref().map(|c| c.initial_gen))
        }),
        ("condemn.final_gen", |g| {
            Cell::num(g.condemn.as_ref().map(|c| c.final_gen))
        }),
        ("condemn.alloc_budget_gen", |g| {
            Cell::num(g.condemn.as_ref().map(|c| c.alloc_budget_gen))
        }),
        ("condemn.time_tuning_gen", |g| {
            Cell::num(g.condemn.as_ref().map(|c| c.time_tuning_gen))
        }),
        ("condemn.conditions", |g| {
            text(
                g.condemn
                    .as_ref()
                    .map(|c| names(&c.conditions))
                    .unwrap_or_default(),
            )
        }),
        ("condemn.raw0", |g| {
            Cell::num(g.condemn.as_ref().map(|c| c.raw0))
        }),
        ("condemn.raw1", |g| {
            Cell::num(g.condemn.as_ref().map(|c| c.raw1))
        }),
        ("pinned_objects_bytes", |g| {
            Cell::u64(g.pinned_objects_bytes)
        }),
        ("pinned_plug_bytes", |g| Cell::u64(g.pinned_plug_bytes)),
        ("user_pinned_plug_bytes", |g| {
            Cell::u64(g.user_pinned_plug_bytes)
        }),
        ("pinned_object_pct", |g| Cell::num(g.pinned_object_pct)),
        ("marked_bytes.stack", |g| {
            Cell::u64(g.marked_bytes.as_ref().map(|m| m.stack))
        }),
        ("marked_bytes.finalize_queue", |g| {
            Cell::u64(g.marked_bytes.as_ref().map(|m| m.finalize_queue))
        }),
        ("marked_bytes.handles", |g| {
            Cell::u64(g.marked_bytes.as_ref().map(|m| m.handles))
        }),
        ("marked_bytes.older", |g| {
            Cell::u64(g.marked_bytes.as_ref().map(|m| m.older))
        }),
        ("marked_bytes.sized_ref", |g| {
            Cell::u64(g.marked_bytes.as_ref().map(|m| m.sized_ref))
        }),
        ("marked_bytes.overflow", |g| {
            Cell::u64(g.marked_bytes.as_ref().map(|m| m.overflow))
        }),
        ("marked_bytes.dependent_handles", |g| {
            Cell::u64(g.marked_bytes.as_ref().map(|m| m.dependent_handles))
        }),
        ("marked_bytes.new_finalize_queue", |g| {
            Cell::u64(g.marked_bytes.as_ref().map(|m| m.new_finalize_queue))
        }),
        ("marked_bytes.steal", |g| {
            Cell::u64(g.marked_bytes.as_ref().map(|m| m.steal))
        }),
        ("marked_bytes.bgc", |g| {
            Cell::u64(g.marked_bytes.as_ref().map(|m| m.bgc))
        }),
        ("missing", |g| text(names(&g.missing))),
    ]
}

/// `fn` pointers cannot capture, so each (generation, field) getter is spelled out by a macro.
macro_rules! gen_getters {
    ($($g:ident),*) => {
        vec![$(
            (stringify!($g), vec![
                ("size_before_bytes", (|g: &Gc| Cell::u64(g.generations.$g.size_before_bytes)) as Getter),
                ("size_after_bytes", |g: &Gc| Cell::u64(g.generations.$g.size_after_bytes)),
                ("promoted_bytes", |g: &Gc| Cell::u64(g.generations.$g.promoted_bytes)),
                ("survived_bytes", |g: &Gc| Cell::u64(g.generations.$g.survived_bytes)),
                ("survival_pct", |g: &Gc| Cell::num(g.generations.$g.survival_pct)),
                ("fragmentation_bytes", |g: &Gc| Cell::u64(g.generations.$g.fragmentation_bytes)),
                ("fragmentation_pct", |g: &Gc| Cell::num(g.generations.$g.fragmentation_pct)),
                ("budget_bytes", |g: &Gc| Cell::u64(g.generations.$g.budget_bytes)),
                ("in_bytes", |g: &Gc| Cell::u64(g.generations.$g.in_bytes)),
            ]),
        )*]
    };
}

type GenGetters = Vec<(&'static str, Vec<(&'static str, Getter)>)>;

fn gen_label(gen: &str) -> &'static str {
    match gen {
        "gen0" => "Gen0",
        "gen1" => "Gen1",
        "gen2" => "Gen2",
        "loh" => "LOH",
        _ => "POH",
    }
}

fn build() -> Vec<Column> {
    let mut out = Vec::new();
    let push = |out: &mut Vec<Column>, id: String, get: Getter, prefix: &str| {
        let def = defs::gc_field(&id);
        let label = def.map(|d| d.label).unwrap_or("?");
        out.push(Column {
            label: if prefix.is_empty() {
                label.to_string()
            } else {
                format!("{prefix} {label}")
            },
            unit: def.map(|d| d.unit).unwrap_or("count"),
            help: def.map(|d| d.definition).unwrap_or(""),
            id,
            get,
        });
    };
    for (id, get) in top_level() {
        push(&mut out, id.to_string(), get, "");
        if id == "reason" {
            // Beside the trigger reason: who triggered it. Not a figure of the row (the stacks
            // worker's, `tables::callers`): its cells come from [`cell`].
            out.push(Column {
                id: CALLER.to_string(),
                label: "Caller".into(),
                unit: "name",
                help: callers::HELP,
                get: |_| Cell::Text(String::new()),
            });
        }
    }
    debug_assert_eq!(Generations::NAMES.len(), 5);
    let gens: GenGetters = gen_getters!(gen0, gen1, gen2, loh, poh);
    for (gen, getters) in gens {
        for (field, get) in getters {
            push(
                &mut out,
                format!("generations.{gen}.{field}"),
                get,
                gen_label(gen),
            );
        }
    }
    for (id, get) in counters() {
        push(&mut out, id.to_string(), get, "");
    }
    out
}

/// Every column, in display order.
pub fn all() -> &'static [Column] {
    static COLS: OnceLock<Vec<Column>> = OnceLock::new();
    COLS.get_or_init(build)
}

/// A GC's cell of column `c`: the row's own figure, or for the Caller column its trigger caller.
pub fn cell(c: &Column, gc: &Gc, callers: &CallerIndex) -> Cell {
    if c.id == CALLER {
        Cell::Text(callers.label(gc.number).unwrap_or_default().to_string())
    } else {
        (c.get)(gc)
    }
}

pub fn by_id(id: &str) -> Option<&'static Column> {
    all().iter().find(|c| c.id == id)
}

/// What the table shows until the user picks columns: the figures PerfView's GCStats leads with.
pub const DEFAULT_COLUMNS: &[&str] = &[
    "number",
    "gen",
    "type",
    "reason",
    "start_ms",
    "pause_ms",
    "suspend_ms",
    "duration_ms",
    "pause_pct",
    "allocated_bytes",
    "alloc_rate_bytes_per_s",
    "peak_bytes",
    "after_bytes",
    "promoted_bytes",
    "generations.gen0.survival_pct",
    "generations.gen2.fragmentation_pct",
    "pinned_object_count",
    "condemn.conditions",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_has_a_definition_and_ids_are_unique() {
        let cols = all();
        assert!(cols.len() > 100, "{} columns", cols.len());
        for c in cols {
            assert!(!c.help.is_empty(), "{} has no definition in core", c.id);
        }
        let mut ids: Vec<_> = cols.iter().map(|c| c.id.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), cols.len());
        for d in DEFAULT_COLUMNS {
            assert!(by_id(d).is_some(), "{d}");
        }
    }

    #[test]
    fn generation_columns_read_their_own_generation() {
        let mut g = crate::testdata::gc(3);
        g.generations.loh.size_after_bytes = Some(77);
        g.generations.gen1.survival_pct = Some(12.5);
        let loh = by_id("generations.loh.size_after_bytes").unwrap();
        assert_eq!((loh.get)(&g), Cell::Num(Some(77.0)));
        assert_eq!(loh.label, "LOH Size after");
        let s = by_id("generations.gen1.survival_pct").unwrap();
        assert_eq!((s.get)(&g), Cell::Num(Some(12.5)));
        assert_eq!(s.show(&g), "12.5%");
    }

    #[test]
    fn an_ms_column_keeps_one_unit() {
        let start = by_id("start_ms").unwrap();
        let pause = by_id("pause_ms").unwrap();
        let mut g = crate::testdata::gc(1);
        let mut shown = |ms: f64| {
            g.start_ms = ms;
            g.pause_ms = Some(ms);
            (start.show(&g), pause.show(&g))
        };
        assert_eq!(shown(950.3), ("950.300 ms".into(), "950 ms".into()));
        assert_eq!(
            shown(12_400.0),
            ("12,400.000 ms".into(), "12,400 ms".into())
        );
        assert_eq!(shown(1.25), ("1.250 ms".into(), "1.250 ms".into()));
    }
}
