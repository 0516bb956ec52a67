//! The types table: each type's count, shallow and retained bytes, with or without the dominator
//! tree ([`shallow_types`] is what the graph alone gives, for a viewer to show first).

use super::analysis::Snapshot;
use super::graph::{group_types, undefined_type, HeapGraph};
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// One type (all type-table entries of one name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeRow {
    pub name: String,
    pub count: u64,
    /// Shallow bytes: the instances' own sizes.
    pub bytes: u64,
    /// The bytes the instances keep alive: the retained bytes of each instance that has no
    /// instance of the same type above it in the dominator tree.
    pub retained_bytes: u64,
    /// Instances the root does not reach.
    pub unreachable_count: u64,
}

/// Per type group: instances and shallow bytes (a node whose type is outside the table counts
/// in group 0).
fn count_groups(g: &HeapGraph, type_group: &[u32], groups: usize) -> (Vec<u64>, Vec<u64>) {
    let mut count = vec![0u64; groups];
    let mut bytes = vec![0u64; groups];
    for (&t, &size) in g.node_type.iter().zip(&g.node_size) {
        let k = type_group.get(t as usize).copied().unwrap_or(0) as usize;
        count[k] += 1;
        bytes[k] += size as u64;
    }
    (count, bytes)
}

/// What the graph alone says, before its dominator tree: each type's count and shallow bytes
/// (`retained_bytes` and `unreachable_count` 0, largest shallow bytes first), as
/// [`Snapshot::types`] counts them, for a viewer to show while the tree is computed.
pub fn shallow_types(g: &HeapGraph) -> Vec<TypeRow> {
    let undefined = [undefined_type()];
    let types = if g.types.is_empty() {
        &undefined[..]
    } else {
        &g.types[..]
    };
    let (type_group, names) = group_types(types);
    let (count, bytes) = count_groups(g, &type_group, names.len());
    let mut rows: Vec<TypeRow> = names
        .into_iter()
        .enumerate()
        .filter(|&(k, _)| count[k] > 0)
        .map(|(k, name)| TypeRow {
            name,
            count: count[k],
            bytes: bytes[k],
            retained_bytes: 0,
            unreachable_count: 0,
        })
        .collect();
    rows.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.name.cmp(&b.name)));
    rows
}

impl Snapshot {
    /// Every type with its count, shallow and retained bytes, largest retained first.
    pub fn types(&self) -> Vec<TypeRow> {
        let g = &self.graph;
        let groups = self.group_names.len();
        let (count, bytes) = count_groups(g, &self.type_group, groups);
        let mut unreachable = vec![0u64; groups];
        for v in 0..g.node_count() as u32 {
            if !self.dominators.reachable(v) {
                unreachable[self.group(v)] += 1;
            }
        }
        let retained = self.type_retained();
        let mut rows: Vec<TypeRow> = (0..groups)
            .filter(|&k| count[k] > 0)
            .map(|k| TypeRow {
                name: self.group_names[k].clone(),
                count: count[k],
                bytes: bytes[k],
                retained_bytes: retained[k],
                unreachable_count: unreachable[k],
            })
            .collect();
        rows.sort_by(|a, b| {
            b.retained_bytes
                .cmp(&a.retained_bytes)
                .then(b.bytes.cmp(&a.bytes))
                .then(a.name.cmp(&b.name))
        });
        rows
    }

    /// Per type group: the retained bytes of its instances with no instance of the group above
    /// them in the dominator tree (a walk of the tree counting each group's open instances).
    ///
    /// The walk runs on preorder positions: each position's group and retained bytes are gathered
    /// first, in one pass over the preorder, and the tree's child lists hold positions, so the
    /// walk itself reads arrays indexed by position, not the node arrays at random.
    fn type_retained(&self) -> Vec<u64> {
        let d = &self.dominators;
        let mut out = vec![0u64; self.group_names.len()];
        let mut open = vec![0u32; self.group_names.len()];
        if d.preorder.is_empty() {
            return out;
        }
        let (group, retained): (Vec<u32>, Vec<u64>) = d
            .preorder
            .iter()
            .map(|&v| (self.group(v) as u32, d.retained[v as usize]))
            .unzip();
        // (position, next child to visit)
        let mut stack: Vec<(u32, u32)> = vec![(0, 0)];
        out[group[0] as usize] += retained[0];
        open[group[0] as usize] += 1;
        while let Some(top) = stack.last_mut() {
            let (i, next) = *top;
            let ch = d.child_positions(i as usize);
            if let Some(&c) = ch.get(next as usize) {
                top.1 += 1;
                let k = group[c as usize] as usize;
                if open[k] == 0 {
                    out[k] += retained[c as usize];
                }
                open[k] += 1;
                stack.push((c, 0));
            } else {
                stack.pop();
                open[group[i as usize] as usize] -= 1;
            }
        }
        out
    }
}
