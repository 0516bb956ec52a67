//! Core's layers, as `src/lib.rs`'s header lists them: each top-level module (`src/X.rs` or
//! `src/X/`) has a tier, and a module uses only modules of lower tiers (a type two modules share
//! lives in the lower one). Read from the sources' `crate::` paths (a `use super::..` stays inside
//! its module), so a new import that breaks the order fails here, before it becomes a cycle; and
//! lib.rs's list is checked against the table, so the documented order is the enforced one.

mod source_scan;

use source_scan::{code, crate_paths, files};
use std::path::{Path, PathBuf};

/// Each top-level module and its tier, lowest first, in the order of lib.rs's header. The tiers
/// are the imports of today: each module one tier above the highest module it uses.
const LAYERS: &[(&str, u8)] = &[
    ("error", 0),
    ("filter", 0),
    ("bytes", 1),
    ("clr", 1),
    ("event", 1),
    ("inflate", 1),
    ("ticks", 1),
    ("heap", 2),
    ("sink", 2),
    ("sort", 2),
    ("stacks", 2),
    ("etl", 3),
    ("ctf", 3),
    ("container", 4),
    ("nettrace", 5),
    ("reader", 6),
    ("encode", 6),
    ("parts", 7),
    ("gc", 7),
    ("findings", 8),
    ("latency", 8),
    ("compare", 9),
    ("consumer", 9),
    // The crate root declares and re-exports every module.
    ("lib", 10),
];

/// Modules of one tier that use each other, and why. `event::Event` carries the allocation ticks
/// a part decoded (`ticks::Ticks`, which hold `clr::gc::TickDigest`s), while `clr::decode` and
/// `clr::event_name_for` read an `Event`: the three are one tier until the digest's type moves
/// below them. Module by module there is no cycle (`event` and `ticks` use `clr::gc`, which uses
/// neither; `scripts/check-cycles.py core/src` finds none).
const ONE_TIER: &[(&str, &str)] = &[
    ("event", "clr"),
    ("event", "ticks"),
    ("ticks", "clr"),
    ("clr", "event"),
];

fn tier(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, t)| *t)
}

/// `src/` and every `.rs` file below it.
fn sources() -> (PathBuf, Vec<PathBuf>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    all.sort();
    (src, all)
}

/// The top-level module a file belongs to: `x` for `src/x.rs` and everything under `src/x/`.
fn top_module(rel: &Path) -> String {
    let first = rel.components().next().expect("a path under src");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

#[test]
fn every_module_uses_only_lower_tiers() {
    let (src, all) = sources();
    let mut problems = Vec::new();
    for path in &all {
        let rel = path.strip_prefix(&src).expect("under src");
        let top = top_module(rel);
        let Some(own) = tier(&top) else {
            problems.push(format!(
                "src/{}: module `{top}` is not in LAYERS: add it with its tier (one above the \
                 highest module it uses) and give it a line in lib.rs's header",
                rel.display()
            ));
            continue;
        };
        let text = code(&std::fs::read_to_string(path).expect("source"));
        for used in crate_paths(&text) {
            if used == top {
                continue;
            }
            match tier(&used) {
                None => problems.push(format!(
                    "src/{}: uses crate::{used}, which is not in LAYERS",
                    rel.display()
                )),
                Some(t) if t < own => {}
                Some(t) if t == own && ONE_TIER.contains(&(top.as_str(), used.as_str())) => {}
                Some(t) => problems.push(format!(
                    "src/{}: `{top}` (tier {own}) uses crate::{used} (tier {t}): a module uses \
                     only lower tiers; move what both need into the lower one",
                    rel.display()
                )),
            }
        }
    }
    assert!(
        problems.is_empty(),
        "core's layering broken:\n{}",
        problems.join("\n")
    );
    assert!(all.len() > 100, "read {} files", all.len());
}

#[test]
fn every_table_entry_is_a_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (m, _) in LAYERS {
        assert!(
            src.join(format!("{m}.rs")).is_file() || src.join(m).join("mod.rs").is_file(),
            "LAYERS names `{m}`, which is neither src/{m}.rs nor src/{m}/mod.rs"
        );
    }
    let mut seen = Vec::new();
    let mut last = 0;
    for (m, t) in LAYERS {
        assert!(!seen.contains(m), "LAYERS names `{m}` twice");
        assert!(
            *t >= last,
            "LAYERS lists `{m}` (tier {t}) after tier {last}: lowest first"
        );
        seen.push(*m);
        last = *t;
    }
}

/// The module lines of lib.rs's `//!` header: `//! - [`name`] (tier N): what it holds` (the
/// brackets, a doc link, are left out for a module behind a feature).
fn header_modules(lib: &str) -> Vec<(String, u8)> {
    lib.lines()
        .take_while(|l| l.starts_with("//!"))
        .filter_map(|l| {
            let item = l.strip_prefix("//! - ")?;
            let name = item.trim_start_matches('[').strip_prefix('`')?;
            let name = &name[..name.find('`')?];
            let t = item.split("(tier ").nth(1)?;
            let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
            let t = digits.parse().ok()?;
            Some((name.to_string(), t))
        })
        .collect()
}

#[test]
fn lib_rs_lists_the_table_in_order() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let lib = std::fs::read_to_string(path).expect("src/lib.rs");
    let listed = header_modules(&lib);
    let table: Vec<(String, u8)> = LAYERS
        .iter()
        .filter(|(m, _)| *m != "lib")
        .map(|(m, t)| (m.to_string(), *t))
        .collect();
    assert_eq!(
        listed, table,
        "lib.rs's header (`//! - [`name`] (tier N): ...` lines) and this test's LAYERS differ"
    );
    // Every declared module is listed (and so is in the table).
    let code = code(&lib);
    for l in code.lines() {
        let l = l.trim();
        if let Some(rest) = l
            .strip_prefix("pub mod ")
            .or_else(|| l.strip_prefix("mod "))
        {
            let name = rest.trim_end_matches(';');
            assert!(
                table.iter().any(|(m, _)| m == name),
                "lib.rs declares `{name}`, which its header and LAYERS lack"
            );
        }
    }
}

#[test]
fn crate_paths_reads_single_and_grouped_uses() {
    let text = "use crate::a::B;\nuse crate::{c::D, e, f::{g, h}};\nlet x = crate::i::j();";
    assert_eq!(crate_paths(text), ["a", "c", "e", "f", "i"]);
}
