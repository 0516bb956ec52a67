//! Every figure gcscope serializes, the GC model's and the insights' alike, in one table: the
//! definitions the app shows on hover, `docs/reference/model.md` and `docs/reference/insights.md`
//! document (both are [`markdown`]'s output) and the CLI's JSON/CSV keys follow.
//!
//! [`TABLES`] lists every table: which serialized value its field paths start from ([`Root`]), which
//! document lists it ([`Doc`]), its title there and its fields, one [`Definition`] per line. A new
//! figure is one line in its table (`model.rs` for the model, `insights.rs` for the insights); a new
//! view's figures are one more [`Table`] here. Field paths are JSON paths: `generations.*.x` is the
//! same field for gen0, gen1, gen2, loh and poh; array elements share their array's path
//! (`heaps.heap`).

mod compare;
mod fleet;
mod insights;
mod latency;
mod model;

pub use compare::COMPARE_FIELDS;
pub use fleet::SUMMARY_ROW_FIELDS;
pub use insights::{
    ALLOCATION_FIELDS, BUDGET_FIELDS, COMPACTION_FIELDS, COUNTER_FIELDS, FINALIZATION_FIELDS,
    KEY_GROUPS, PRESSURE_FIELDS, ROOT_FIELDS, SEGMENT_FIELDS, SUSPENSION_FIELDS,
};
pub use latency::LATENCY_FIELDS;
pub use model::{DATAS_FIELDS, GC_FIELDS, PROCESS_FIELDS, ROLLUP_FIELDS, SUMMARY_FIELDS};

use alloc::string::String;
use alloc::vec::Vec;

/// A figure's name, unit and meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Definition {
    /// JSON path of the field.
    pub field: &'static str,
    /// Short column label.
    pub label: &'static str,
    /// "ms", "bytes", "%", "bytes/s", "count", "gen", "name", "bool", "ratio", "address", "us", or
    /// "per row" (a value in the unit its row names: a comparison's figures).
    pub unit: &'static str,
    pub definition: &'static str,
}

pub(crate) const fn d(
    field: &'static str,
    label: &'static str,
    unit: &'static str,
    definition: &'static str,
) -> Definition {
    Definition {
        field,
        label,
        unit,
        definition,
    }
}

/// The serialized value a table's field paths start from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// One [`crate::gc::Gc`] (a row of `gcscope gcs --json`).
    Gc,
    /// One [`crate::gc::GenRollup`].
    Rollup,
    /// [`crate::gc::ProcessFacts`].
    Process,
    /// The whole [`crate::gc::GcModel`] (its parts other than the three above).
    Model,
    /// [`crate::gc::insights::Insights`].
    Insights,
    /// [`crate::latency::Latency`].
    Latency,
    /// [`crate::compare::Comparison`].
    Comparison,
    /// A row of `gcscope summary`'s table over several traces.
    SummaryRow,
}

/// The generated document that lists a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Doc {
    /// `docs/reference/model.md`.
    Model,
    /// `docs/reference/insights.md`.
    Insights,
}

/// One table of definitions.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    pub root: Root,
    /// The document that lists it (None: hover text only).
    pub doc: Option<Doc>,
    /// Its heading there.
    pub title: &'static str,
    /// A paragraph under the heading, before the fields ("" for none).
    pub intro: &'static str,
    pub fields: &'static [Definition],
}

const fn table(
    root: Root,
    doc: Option<Doc>,
    title: &'static str,
    fields: &'static [Definition],
) -> Table {
    Table {
        root,
        doc,
        title,
        intro: "",
        fields,
    }
}

impl Table {
    /// The table with a paragraph under its heading.
    const fn with_intro(self, intro: &'static str) -> Table {
        Table { intro, ..self }
    }
}

/// Every table, in the order the documents list them.
#[rustfmt::skip]
pub const TABLES: &[Table] = &[
    table(Root::Gc, Some(Doc::Model), "Per GC (`gcscope gcs --json`, one object per GC)", GC_FIELDS),
    table(Root::Rollup, Some(Doc::Model), "Rollup by generation (`summary --json`: `rollup`)", ROLLUP_FIELDS),
    table(Root::Process, Some(Doc::Model), "Process facts (`summary --json`: `process`)", PROCESS_FIELDS),
    table(Root::Model, Some(Doc::Model), "DATAS (`gcscope datas --json`, the model's `datas`)", DATAS_FIELDS)
        .with_intro("DATAS decides after a GC; the new heap count takes effect at the next GC. `gcscope datas` also prints one sentence per change (`gc::datas::explain`)."),
    table(Root::Model, None, "Condemn reasons, handles, pinning and notes (`summary --json`)", SUMMARY_FIELDS),
    table(Root::Latency, Some(Doc::Model), "Latency (`gcscope latency --json`; `summary --json` has its `pauses`): complete GCs' pauses, over the trace or a time range", LATENCY_FIELDS),
    table(Root::Comparison, Some(Doc::Model), "Comparing two traces (`gcscope compare A B --json`)", COMPARE_FIELDS),
    table(Root::SummaryRow, Some(Doc::Model), "Many traces: one row per trace (`gcscope summary A B ... --csv|--jsonl|--parquet`, or a folder)", SUMMARY_ROW_FIELDS),
    table(Root::Insights, Some(Doc::Insights), "Allocations (`gcscope allocs --json`)", ALLOCATION_FIELDS),
    table(Root::Insights, Some(Doc::Insights), "Generation budgets (`gcscope budgets --json`)", BUDGET_FIELDS),
    table(Root::Insights, Some(Doc::Insights), "Mark roots (`gcscope roots --json`)", ROOT_FIELDS),
    table(Root::Insights, Some(Doc::Insights), "Compaction (`gcscope memory --json`: `compaction`)", COMPACTION_FIELDS),
    table(Root::Insights, Some(Doc::Insights), "Suspensions (`gcscope suspensions --json`)", SUSPENSION_FIELDS),
    table(Root::Insights, Some(Doc::Insights), "Finalization (`gcscope memory --json`: `finalization`)", FINALIZATION_FIELDS),
    table(Root::Insights, Some(Doc::Insights), "Memory pressure (`gcscope memory --json`: `memory_pressure`)", PRESSURE_FIELDS),
    table(Root::Insights, Some(Doc::Insights), "Segments and regions (`gcscope memory --json`: `segments`)", SEGMENT_FIELDS),
    table(Root::Insights, Some(Doc::Insights), ".NET CLR Memory counters (`gcscope counters --json|--csv`)", COUNTER_FIELDS),
];

/// The definition of the field at JSON path `path` from `root`, written concretely
/// (`generations.gen2.survival_pct`, `budgets.total.gen2.budget_bytes`): see [`generic`].
pub fn field(root: Root, path: &str) -> Option<&'static Definition> {
    let key = generic(root, path);
    TABLES
        .iter()
        .filter(|t| t.root == root)
        .flat_map(|t| t.fields.iter())
        .find(|d| d.field == key)
}

/// A per-GC field by JSON path (`generations.gen2.survival_pct` finds `generations.*.survival_pct`).
pub fn gc_field(path: &str) -> Option<&'static Definition> {
    field(Root::Gc, path)
}

/// An insights field by JSON path (`budgets.total.gen2.budget_bytes` finds
/// `budgets.total.*.budget_bytes`, `allocations.by_kind.small` finds `allocations.by_kind.*`).
pub fn insights_field(path: &str) -> Option<&'static Definition> {
    field(Root::Insights, path)
}

/// A concrete JSON path from `root` written as the tables write it: a generation key in a
/// per-generation group becomes `*`, and so does the last key under a [`KEY_GROUPS`] group.
pub fn generic(root: Root, path: &str) -> String {
    const GENS: [&str; 5] = ["gen0", "gen1", "gen2", "loh", "poh"];
    let mut parts: Vec<&str> = path.split('.').collect();
    match root {
        // A row's `generations.<any key>.x`.
        Root::Gc if parts.len() >= 3 && parts[0] == "generations" => parts[1] = "*",
        Root::Insights => {
            for i in 1..parts.len().saturating_sub(1) {
                if GENS.contains(&parts[i])
                    && (parts[i - 1] == "total" || parts[i - 1] == "generations")
                    && parts[0] == "budgets"
                {
                    parts[i] = "*";
                }
            }
            if parts.len() >= 2 {
                let parent = parts[..parts.len() - 1].join(".");
                if KEY_GROUPS.contains(&parent.as_str()) {
                    let n = parts.len();
                    parts[n - 1] = "*";
                }
            }
        }
        _ => {}
    }
    parts.join(".")
}

/// The Markdown of one document: `docs/reference/model.md` or `docs/reference/insights.md` is this
/// output.
pub fn markdown(doc: Doc) -> String {
    match doc {
        Doc::Model => model_markdown(),
        Doc::Insights => insights_markdown(),
    }
}

fn tables_of(doc: Doc) -> impl Iterator<Item = &'static Table> {
    TABLES.iter().filter(move |t| t.doc == Some(doc))
}

fn write_intro(s: &mut String, t: &Table) {
    if !t.intro.is_empty() {
        s.push_str(t.intro);
        s.push_str("\n\n");
    }
}

fn write_rows(s: &mut String, fields: &[Definition]) {
    use core::fmt::Write;
    for d in fields {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} |",
            d.field,
            d.label,
            d.unit,
            d.definition.replace('|', "\\|")
        );
    }
}

fn model_markdown() -> String {
    use core::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "# The GC model: every figure\n");
    let _ = writeln!(
        s,
        "Generated from `core/src/gc/definitions.rs` (`GCSCOPE_WRITE_DOCS=1 cargo test -p gcscope-core --test model_definitions`). \
         Units: bytes, ms from the trace start, % as 0-100, bytes/s. A field is `null` when the trace \
         lacks the event it comes from; the GC's `missing` list says which. JSON keys are the paths below; \
         CSV columns flatten them with `_` (`generations.gen0.size_after_bytes` -> `gen0_size_after_bytes`).\n"
    );
    for t in tables_of(Doc::Model) {
        let _ = writeln!(s, "## {}\n", t.title);
        write_intro(&mut s, t);
        let _ = writeln!(
            s,
            "| field | label | unit | definition |\n|---|---|---|---|"
        );
        write_rows(&mut s, t.fields);
        s.push('\n');
    }
    s.push_str(model::METHOD);
    let _ = writeln!(
        s,
        "\n## Condemn conditions (`condemn.conditions`)\n\n| condition | meaning |\n|---|---|"
    );
    for c in crate::clr::enums::CondemnCondition::ALL {
        let _ = writeln!(
            s,
            "| `{}` | {} |",
            c.name(),
            super::reasons::condition_help(*c)
        );
    }
    s
}

fn insights_markdown() -> String {
    use core::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "# Beyond the GC table: every insights figure\n");
    let _ = writeln!(
        s,
        "Generated from `core/src/gc/definitions.rs` (`GCSCOPE_WRITE_DOCS=1 cargo test -p gcscope-core --test insights_definitions`). \
         Units: bytes, ms from the trace start, % as 0-100, bytes/s. JSON keys are the paths below (`.*.` = each of gen0, gen1, gen2, loh, poh; \
         a trailing `.*` = each key of a small group). The core API is `gc::insights::InsightsBuilder` (fed the same events as the model, \
         finished with the model) or `gc::insights::analyze_with_insights`.\n"
    );
    s.push_str(insights::METHOD);
    for t in tables_of(Doc::Insights) {
        let _ = writeln!(s, "\n## {}\n", t.title);
        write_intro(&mut s, t);
        let _ = writeln!(
            s,
            "| field | label | unit | definition |\n|---|---|---|---|"
        );
        write_rows(&mut s, t.fields);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_field_is_defined_once_with_a_known_unit() {
        const UNITS: &[&str] = &[
            "ms", "bytes", "%", "bytes/s", "count", "gen", "name", "bool", "ratio", "address",
            "us", "per row",
        ];
        let mut seen: Vec<(Root, &str)> = Vec::new();
        for t in TABLES {
            for d in t.fields {
                assert!(
                    !seen.contains(&(t.root, d.field)),
                    "{} is defined twice",
                    d.field
                );
                seen.push((t.root, d.field));
                assert!(UNITS.contains(&d.unit), "{}: unit {}", d.field, d.unit);
                assert!(
                    !d.label.is_empty() && !d.definition.is_empty(),
                    "{}",
                    d.field
                );
                // Each definition is found by its own path (for `*` keys, by a concrete one).
                let concrete = d.field.replace(".*", ".gen2");
                assert_eq!(field(t.root, &concrete), Some(d), "{}", d.field);
            }
        }
        assert!(seen.len() > 300, "{}", seen.len());
    }
}
