//! The app's layers, as `src/lib.rs` draws them: a module uses only the layers below its own
//! (worker -> protocol -> state -> views, one way), no view uses another view, and nothing but the
//! shell (and the tab list itself) uses `views`. Read from the sources' `crate::` paths, so a new
//! module that breaks the picture fails here, before it becomes an import cycle.

// The same source reading as core's layer test.
#[path = "../../core/tests/source_scan/mod.rs"]
mod source_scan;

use source_scan::{code, crate_paths, files};
use std::path::{Path, PathBuf};

/// Each top-level module's layer: a module may use modules of a lower layer, and its own.
const LAYERS: &[(&str, u8)] = &[
    ("format", 0),
    ("plot", 0),
    ("time_range", 0),
    ("testdata", 0),
    ("protocol", 1),
    ("tables", 2),
    ("worker", 3),
    ("state", 3),
    ("report", 3),
    ("loader", 4),
    ("widgets", 4),
    ("views", 5),
    ("shell", 6),
    ("lib", 7),
    ("main", 7),
    ("bin", 7),
];

fn layer(module: &str) -> u8 {
    LAYERS
        .iter()
        .find(|(m, _)| *m == module)
        .unwrap_or_else(|| panic!("src/{module}: add it to LAYERS (and to lib.rs's picture)"))
        .1
}

/// `src/` and every `.rs` file below it.
fn sources() -> (PathBuf, Vec<PathBuf>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    (src, all)
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let (src, all) = sources();
    let mut problems = Vec::new();
    for path in &all {
        let rel = path.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let text = code(&std::fs::read_to_string(path).unwrap());
        for used in crate_paths(&text) {
            if used == top {
                continue;
            }
            if layer(&used) >= layer(&top) {
                problems.push(format!("{}: uses crate::{used}", rel.display()));
            }
        }
        // A view is one tab: what two views share is a widget (or state), never the other view.
        if top == "views" && rel != Path::new("views/mod.rs") {
            let view = rel
                .components()
                .nth(1)
                .unwrap()
                .as_os_str()
                .to_string_lossy();
            let view = view.trim_end_matches(".rs");
            if text.contains("crate::views") {
                problems.push(format!("{}: uses crate::views", rel.display()));
            }
            let in_own_dir = rel.components().count() > 2;
            if text.contains("super::") && !in_own_dir {
                problems.push(format!("{}: uses super:: (another view?)", rel.display()));
            }
            if in_own_dir && text.contains("super::super::") {
                problems.push(format!(
                    "{} ({view}): reaches out of its view",
                    rel.display()
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "layering broken:\n{}",
        problems.join("\n")
    );
    assert!(all.len() > 40, "read {} files", all.len());
}

/// Core's definitions (labels, units, hover text) are reached only through `tables/defs.rs`, so a
/// change to how core keeps them touches that one file.
#[test]
fn only_tables_defs_reads_core_definitions() {
    let (src, all) = sources();
    let mut problems = Vec::new();
    for path in &all {
        let rel = path.strip_prefix(&src).unwrap();
        if rel == Path::new("tables/defs.rs") {
            continue;
        }
        let text = code(&std::fs::read_to_string(path).unwrap());
        // A statement naming core and its definitions: `use gcscope_core::gc::definitions::..`,
        // `use gcscope_core::gc::{definitions, ..}` or a full path in an expression.
        if text
            .split(';')
            .any(|s| s.contains("gcscope_core") && s.contains("definitions"))
        {
            problems.push(rel.display().to_string());
        }
    }
    assert!(
        problems.is_empty(),
        "read core's definitions through crate::tables::defs instead:\n{}",
        problems.join("\n")
    );
}
