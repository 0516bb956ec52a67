//! What changed between two snapshots of one process, type by type.

use super::analysis::Snapshot;
use super::type_table::TypeRow;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// One type's figures in A and B (0 where absent) and B - A.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffRow {
    pub name: String,
    pub count_a: u64,
    pub count_b: u64,
    pub bytes_a: u64,
    pub bytes_b: u64,
    pub retained_a: u64,
    pub retained_b: u64,
    pub count_change: i64,
    pub bytes_change: i64,
    pub retained_change: i64,
    /// In B and not in A.
    pub new: bool,
    /// In A and not in B.
    pub gone: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnapshotDiff {
    pub nodes_a: u64,
    pub nodes_b: u64,
    pub bytes_a: u64,
    pub bytes_b: u64,
    /// Every type of either snapshot, most grown (bytes, then retained, then count) first.
    pub types: Vec<DiffRow>,
}

impl SnapshotDiff {
    /// The types in B and not in A.
    pub fn new_types(&self) -> impl Iterator<Item = &DiffRow> {
        self.types.iter().filter(|r| r.new)
    }
}

/// The difference B - A, by type name.
pub fn diff(a: &Snapshot, b: &Snapshot) -> SnapshotDiff {
    diff_rows(&a.types(), &b.types(), a.totals(), b.totals())
}

fn diff_rows(
    a: &[TypeRow],
    b: &[TypeRow],
    ta: super::analysis::Totals,
    tb: super::analysis::Totals,
) -> SnapshotDiff {
    let mut m: BTreeMap<&str, (Option<&TypeRow>, Option<&TypeRow>)> = BTreeMap::new();
    for r in a {
        m.entry(r.name.as_str()).or_default().0 = Some(r);
    }
    for r in b {
        m.entry(r.name.as_str()).or_default().1 = Some(r);
    }
    let d = |x: u64, y: u64| (y as i64).wrapping_sub(x as i64);
    let mut types: Vec<DiffRow> = m
        .into_iter()
        .map(|(name, (ra, rb))| {
            let (ca, ba, xa) = ra.map_or((0, 0, 0), |r| (r.count, r.bytes, r.retained_bytes));
            let (cb, bb, xb) = rb.map_or((0, 0, 0), |r| (r.count, r.bytes, r.retained_bytes));
            DiffRow {
                name: String::from(name),
                count_a: ca,
                count_b: cb,
                bytes_a: ba,
                bytes_b: bb,
                retained_a: xa,
                retained_b: xb,
                count_change: d(ca, cb),
                bytes_change: d(ba, bb),
                retained_change: d(xa, xb),
                new: ra.is_none(),
                gone: rb.is_none(),
            }
        })
        .collect();
    types.sort_by(|x, y| {
        y.bytes_change
            .cmp(&x.bytes_change)
            .then(y.retained_change.cmp(&x.retained_change))
            .then(y.count_change.cmp(&x.count_change))
            .then(x.name.cmp(&y.name))
    });
    SnapshotDiff {
        nodes_a: ta.nodes,
        nodes_b: tb.nodes,
        bytes_a: ta.total_bytes,
        bytes_b: tb.total_bytes,
        types,
    }
}
