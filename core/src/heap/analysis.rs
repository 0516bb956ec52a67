//! One snapshot read and analysed ([`Snapshot`]): its graph, its dominator tree and its types
//! merged by name, with the totals, the warnings, the generations and the dominator tree to browse.
//! The other views of it live beside this module: the types table (`type_table`), the root
//! categories (`roots`) and the paths to the root (`paths`).

use super::dominators::Dominators;
use super::gcdump::{read_gcdump, DOTNET_GCDUMP_NODE_CAP};
use super::graph::{group_types, undefined_type, HeapGraph};
use crate::error::Result;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// A snapshot read and analysed: the graph, its dominator tree, and its types merged by name.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub graph: HeapGraph,
    pub dominators: Dominators,
    /// Each type-table entry's group (entries that share a name are one group).
    pub(super) type_group: Vec<u32>,
    /// The group names, in name order.
    pub(super) group_names: Vec<String>,
}

/// The snapshot's totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub nodes: u64,
    pub edges: u64,
    pub total_bytes: u64,
    /// Distinct type names.
    pub types: u64,
    pub reachable_nodes: u64,
    pub reachable_bytes: u64,
    /// Nodes the root does not reach: they count in the totals and retain nothing.
    pub unreachable_nodes: u64,
    pub unreachable_bytes: u64,
    /// Nodes referenced but never defined (the walk lost them).
    pub undefined_nodes: u64,
}

/// A type's instances by generation (0-2, 3 the large object heap, 4 the pinned object heap).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationRow {
    pub name: String,
    pub count: [u64; 5],
    pub bytes: [u64; 5],
    /// Instances outside every segment (pseudo-nodes, objects the segments do not cover).
    pub outside_count: u64,
    pub outside_bytes: u64,
}

/// One node of the dominator tree, to browse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeNode {
    pub node: u32,
    pub type_name: String,
    pub bytes: u64,
    pub retained_bytes: u64,
    /// How many nodes it immediately dominates.
    pub children: u64,
}

impl Snapshot {
    /// Reads a `.gcdump` and computes its dominator tree.
    pub fn read(file: &[u8]) -> Result<Self> {
        Ok(Self::new(read_gcdump(file)?))
    }

    pub fn new(mut graph: HeapGraph) -> Self {
        // A node whose type is outside the table (a graph built by hand) counts as the first
        // type, so there must be one.
        if graph.types.is_empty() {
            graph.types.push(undefined_type());
        }
        let dominators = Dominators::compute(&graph);
        let (type_group, group_names) = group_types(&graph.types);
        Snapshot {
            graph,
            dominators,
            type_group,
            group_names,
        }
    }

    /// Node `v`'s type group.
    pub(super) fn group(&self, v: u32) -> usize {
        let t = self.graph.node_type[v as usize] as usize;
        self.type_group.get(t).copied().unwrap_or(0) as usize
    }

    pub fn totals(&self) -> Totals {
        let g = &self.graph;
        let d = &self.dominators;
        // The root retains every node it reaches.
        let reachable_bytes = d.preorder.first().map_or(0, |&r| d.retained[r as usize]);
        let total = g.total_bytes();
        Totals {
            nodes: g.node_count() as u64,
            edges: g.edge_count() as u64,
            total_bytes: total,
            types: {
                // The type entries used, then their groups; a node whose type is outside the
                // table counts in group 0 (as `group` says).
                let mut used_entry = vec![false; g.types.len()];
                let mut outside = false;
                for &t in &g.node_type {
                    match used_entry.get_mut(t as usize) {
                        Some(u) => *u = true,
                        None => outside = true,
                    }
                }
                let mut used = vec![false; self.group_names.len()];
                for (t, &u) in used_entry.iter().enumerate() {
                    if u {
                        used[self.type_group[t] as usize] = true;
                    }
                }
                if outside {
                    used[0] = true;
                }
                used.iter().filter(|&&u| u).count() as u64
            },
            reachable_nodes: d.reachable_count() as u64,
            reachable_bytes,
            unreachable_nodes: (g.node_count() - d.reachable_count()) as u64,
            unreachable_bytes: total - reachable_bytes,
            undefined_nodes: g.undefined_count() as u64,
        }
    }

    /// Signs that the snapshot is incomplete or that its figures can mislead, in words.
    pub fn warnings(&self) -> Vec<String> {
        let g = &self.graph;
        let t = self.totals();
        let mut w = Vec::new();
        if (g.root as usize) >= g.node_count() {
            w.push(format!(
                "the root index is outside the {} nodes: nothing is reachable, retained bytes are 0",
                g.node_count()
            ));
        }
        if t.undefined_nodes > 0 {
            w.push(format!(
                "{} nodes are referenced but never defined (the heap walk lost them): retained \
                 bytes can be low",
                t.undefined_nodes
            ));
        }
        if g.node_count() == DOTNET_GCDUMP_NODE_CAP {
            w.push(format!(
                "the dump has exactly {DOTNET_GCDUMP_NODE_CAP} nodes, dotnet-gcdump's cap: the heap \
                 was probably cut short"
            ));
        }
        if g.stated_total_bytes != t.total_bytes as i64 {
            w.push(format!(
                "the nodes sum to {} bytes, the file states {}",
                t.total_bytes, g.stated_total_bytes
            ));
        }
        if t.unreachable_nodes > 0 {
            w.push(format!(
                "{} nodes ({} bytes) are not reachable from the root: they count in the totals \
                 and retain nothing",
                t.unreachable_nodes, t.unreachable_bytes
            ));
        }
        w
    }

    /// Each type's instances by generation, where the snapshot stores segments and addresses;
    /// largest bytes first.
    pub fn generations(&self) -> Option<Vec<GenerationRow>> {
        let g = &self.graph;
        if !g.has_generations() {
            return None;
        }
        let mut rows: Vec<GenerationRow> = self
            .group_names
            .iter()
            .map(|name| GenerationRow {
                name: name.clone(),
                count: [0; 5],
                bytes: [0; 5],
                outside_count: 0,
                outside_bytes: 0,
            })
            .collect();
        let mut used = vec![false; rows.len()];
        for v in 0..g.node_count() as u32 {
            let k = self.group(v);
            used[k] = true;
            let s = g.node_size[v as usize] as u64;
            match g.generation(v) {
                Some(gen) => {
                    rows[k].count[gen as usize] += 1;
                    rows[k].bytes[gen as usize] += s;
                }
                None => {
                    rows[k].outside_count += 1;
                    rows[k].outside_bytes += s;
                }
            }
        }
        let mut rows: Vec<GenerationRow> = rows
            .into_iter()
            .zip(used)
            .filter(|(_, u)| *u)
            .map(|(r, _)| r)
            .collect();
        rows.sort_by(|a, b| {
            let ta: u64 = a.bytes.iter().sum();
            let tb: u64 = b.bytes.iter().sum();
            tb.cmp(&ta).then(a.name.cmp(&b.name))
        });
        Some(rows)
    }

    /// A node of the dominator tree (the root: `graph.root`).
    pub fn tree_node(&self, v: u32) -> Option<TreeNode> {
        let g = &self.graph;
        if v as usize >= g.node_count() {
            return None;
        }
        Some(TreeNode {
            node: v,
            type_name: String::from(g.type_name(v)),
            bytes: g.node_size[v as usize] as u64,
            retained_bytes: self.dominators.retained[v as usize],
            children: self.dominators.children(v).len() as u64,
        })
    }

    /// The nodes `v` immediately dominates, largest retained first.
    pub fn dominator_children(&self, v: u32) -> Vec<TreeNode> {
        self.dominators
            .children_by_retained(v)
            .into_iter()
            .filter_map(|c| self.tree_node(c))
            .collect()
    }
}
