//! The Heap tab's tables: a heap snapshot's types, root categories and generations, and the
//! difference of two snapshots by type, as the heap worker answered them (`protocol::heap`).
//! The definitions are docs/guide/heap.md's ("What the numbers mean").

use crate::protocol::heap::{CategoryRow, GenerationRow, HeapDiff, TypeRow};

use super::{col, nu, t, yes, Cell, Col, Table};

pub const COUNT: &str = "Instances of the type (types are merged by name).";
pub const SHALLOW: &str = "Shallow bytes: the instances' own sizes, summed.";
pub const RETAINED: &str = "Retained bytes: what would become garbage if the type's instances \
    went away. From the exact dominator tree from the root: an object retains itself and every \
    object all of whose paths from the root pass through it. A type's figure sums its instances \
    that have no instance of the same type above them in that tree, so nested instances are not \
    counted twice. Unreachable objects retain nothing. Not comparable to PerfView's figures, \
    which credit each object to one parent of a spanning tree.";
pub const UNREACHABLE: &str = "Instances the root does not reach (garbage the snapshot's GC had \
    not freed, or parts of a broken walk): they count in the totals and retain nothing.";

fn change(v: i64) -> Cell {
    Cell::Num(Some(v as f64))
}

/// Every type: count, shallow and retained bytes, unreachable instances.
/// `pending`: the dominator tree is still being computed, so the retained and unreachable
/// columns are empty and say so in their titles (a sort on them waits for the figures).
pub fn types_table(rows: &[TypeRow], pending: bool) -> Table {
    let mut cols = types_cols();
    if pending {
        for c in &mut cols[3..] {
            c.label.push_str(" (computing…)");
        }
    }
    let tree = |v: u64| if pending { Cell::Num(None) } else { nu(v) };
    Table {
        id: "heap-types",
        title: "Types".into(),
        cols,
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    t(r.name.clone()),
                    nu(r.count),
                    nu(r.bytes),
                    tree(r.retained_bytes),
                    tree(r.unreachable_count),
                ]
            })
            .collect(),
    }
}

fn types_cols() -> Vec<Col> {
    vec![
        col(
            "name",
            "Type",
            "name",
            "The type's name, as the snapshot stores it.",
        ),
        col("count", "Count", "count", COUNT),
        col("bytes", "Bytes", "bytes", SHALLOW),
        col("retained_bytes", "Retained", "bytes", RETAINED),
        col("unreachable_count", "Unreachable", "count", UNREACHABLE),
    ]
}

/// What each kind of root holds.
pub fn categories_table(rows: &[CategoryRow], shared_retained: u64) -> Table {
    let mut out: Vec<Vec<Cell>> = rows
        .iter()
        .filter(|r| r.root_nodes > 0)
        .map(|r| {
            vec![
                t(r.category.clone()),
                nu(r.root_nodes),
                nu(r.objects),
                nu(r.retained_bytes),
                nu(r.reachable_bytes),
            ]
        })
        .collect();
    out.push(vec![
        t("held by several (the root)"),
        Cell::Num(None),
        Cell::Num(None),
        nu(shared_retained),
        Cell::Num(None),
    ]);
    Table {
        id: "heap-roots",
        title: "Root categories".into(),
        cols: vec![
            col(
                "category",
                "Category",
                "name",
                "Statics, pinning handles, strong handles, stacks, the finalizer queue or other, \
                 from the names of the root tree's nodes.",
            ),
            col(
                "root_nodes",
                "Root nodes",
                "count",
                "Nodes of the root tree (such as [static vars]) in this category.",
            ),
            col(
                "objects",
                "Objects",
                "count",
                "Distinct objects its root nodes reference directly.",
            ),
            col(
                "retained_bytes",
                "Retained",
                "bytes",
                "Bytes only this category keeps alive (objects its root nodes immediately \
                 dominate). What several categories hold is retained by the root itself, on its \
                 own row.",
            ),
            col(
                "reachable_bytes",
                "Reachable",
                "bytes",
                "Bytes reachable from its roots, whoever else holds them too.",
            ),
        ],
        rows: out,
    }
}

/// Each type's bytes by generation.
pub fn generations_table(rows: &[GenerationRow]) -> Table {
    const GENS: [&str; 5] = ["gen0", "gen1", "gen2", "loh", "poh"];
    let mut cols = vec![col("name", "Type", "name", "The type's name.")];
    for (i, g) in GENS.iter().enumerate() {
        cols.push(Col {
            key: format!("{g}_bytes"),
            label: format!("{} bytes", ["Gen 0", "Gen 1", "Gen 2", "LOH", "POH"][i]),
            unit: "bytes",
            help: "Shallow bytes of the type's instances in this generation (from the \
                   snapshot's segments).",
        });
    }
    cols.push(col(
        "outside_bytes",
        "Outside",
        "bytes",
        "Bytes of instances outside every segment (pseudo-nodes, objects the segments do not \
         cover).",
    ));
    Table {
        id: "heap-generations",
        title: "Types by generation".into(),
        cols,
        rows: rows
            .iter()
            .map(|r| {
                let mut v = vec![t(r.name.clone())];
                v.extend(r.bytes.iter().map(|&b| nu(b)));
                v.push(nu(r.outside_bytes));
                v
            })
            .collect(),
    }
}

/// B - A by type, most grown first (the worker's order).
pub fn diff_table(d: &HeapDiff) -> Table {
    let c = |key: &str, label: &str, unit: &'static str, help: &'static str| {
        col(key, label, unit, help)
    };
    Table {
        id: "heap-diff",
        title: format!("{} → {}: change by type", d.name_a, d.name_b),
        cols: vec![
            c("name", "Type", "name", "The type's name."),
            c("new", "New", "bool", "The type has no instance in A."),
            c(
                "count_change",
                "Count +/-",
                "count",
                "Instances in B minus instances in A.",
            ),
            c(
                "bytes_change",
                "Bytes +/-",
                "bytes",
                "Shallow bytes in B minus A.",
            ),
            c(
                "retained_change",
                "Retained +/-",
                "bytes",
                "Retained bytes in B minus A (dominator-tree based, see the types table).",
            ),
            c("count_b", "Count B", "count", COUNT),
            c("bytes_b", "Bytes B", "bytes", SHALLOW),
            c("retained_b", "Retained B", "bytes", RETAINED),
            c("count_a", "Count A", "count", COUNT),
            c("bytes_a", "Bytes A", "bytes", SHALLOW),
        ],
        rows: d
            .types
            .iter()
            .map(|r| {
                vec![
                    t(r.name.clone()),
                    yes(r.new),
                    change(r.count_change),
                    change(r.bytes_change),
                    change(r.retained_change),
                    nu(r.count_b),
                    nu(r.bytes_b),
                    nu(r.retained_b),
                    nu(r.count_a),
                    nu(r.bytes_a),
                ]
            })
            .collect(),
    }
}

/// Where each of core's warnings belongs: next to the figure it skews.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skews {
    Nodes,
    Bytes,
    Unreachable,
    Retained,
}

/// The figure a warning of core's (`heap::Snapshot::warnings`) skews, from its words.
pub fn skews(warning: &str) -> Skews {
    if warning.contains("not reachable") {
        Skews::Unreachable
    } else if warning.contains("cap") {
        Skews::Nodes
    } else if warning.contains("the file states") {
        Skews::Bytes
    } else {
        Skews::Retained
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::heap::DiffRow;
    use crate::tables::{Sort, SortFilter};

    fn row(name: &str, count: u64, bytes: u64, retained: u64) -> TypeRow {
        TypeRow {
            name: name.into(),
            count,
            bytes,
            retained_bytes: retained,
            unreachable_count: 0,
        }
    }

    #[test]
    fn the_types_table_sorts_and_filters_by_name() {
        let t = types_table(
            &[
                row("System.String", 3, 90, 90),
                row("System.Byte[]", 1, 500, 500),
                row("MyApp.Cache", 1, 24, 700),
            ],
            false,
        );
        let st = SortFilter {
            sort: Some(Sort {
                column: "bytes".into(),
                desc: true,
            }),
            text: "system".into(),
        };
        let order = t.view(&st);
        let names: Vec<String> = order.iter().map(|&r| t.shown(r, 0)).collect();
        assert_eq!(names, ["System.Byte[]", "System.String"]);
        assert_eq!(t.shown(2, 3), "700 B");
    }

    #[test]
    fn a_types_table_before_the_tree_leaves_retained_empty_and_says_why() {
        let rows = [row("A", 2, 90, 0), row("B", 1, 500, 0)];
        let t = types_table(&rows, true);
        assert_eq!(t.cols[3].label, "Retained (computing…)");
        assert_eq!(t.cols[4].label, "Unreachable (computing…)");
        assert_eq!(t.cols[1].label, "Count");
        assert_eq!(
            (t.shown(0, 1).as_str(), t.shown(0, 2).as_str()),
            ("2", "90 B")
        );
        assert_eq!((t.shown(0, 3).as_str(), t.shown(0, 4).as_str()), ("", ""));
        // A sort on retained waits: the rows keep the order the worker gave them.
        let st = SortFilter {
            sort: Some(Sort {
                column: "retained_bytes".into(),
                desc: true,
            }),
            text: String::new(),
        };
        assert_eq!(t.view(&st), [0, 1]);
        // The same rows once the tree is known: the figures, the plain titles.
        let t = types_table(&rows, false);
        assert_eq!(t.cols[3].label, "Retained");
        assert_eq!(t.shown(1, 3), "0 B");
    }

    #[test]
    fn the_diff_table_marks_new_types() {
        let d = HeapDiff {
            name_a: "a".into(),
            name_b: "b".into(),
            nodes_a: 1,
            nodes_b: 2,
            bytes_a: 10,
            bytes_b: 30,
            types: vec![DiffRow {
                name: "T".into(),
                count_a: 0,
                count_b: 1,
                bytes_a: 0,
                bytes_b: 20,
                retained_a: 0,
                retained_b: 20,
                count_change: 1,
                bytes_change: 20,
                retained_change: 20,
                new: true,
                gone: false,
            }],
        };
        let t = diff_table(&d);
        assert_eq!(t.shown(0, 1), "yes");
        assert_eq!(t.shown(0, 3), "20 B");
    }

    #[test]
    fn warnings_go_next_to_what_they_skew() {
        assert_eq!(
            skews("5 nodes (10 bytes) are not reachable from the root: ..."),
            Skews::Unreachable
        );
        assert_eq!(
            skews("3 nodes are referenced but never defined"),
            Skews::Retained
        );
        assert_eq!(
            skews("the nodes sum to 1 bytes, the file states 2"),
            Skews::Bytes
        );
        assert_eq!(
            skews("the dump has exactly 10000000 nodes, dotnet-gcdump's cap"),
            Skews::Nodes
        );
    }
}
