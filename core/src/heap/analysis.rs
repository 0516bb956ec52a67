//! The views of one snapshot: totals, types with retained bytes, root categories, shortest paths
//! to the root for a type's instances, generations, and the dominator tree to browse.

use super::dominators::{Dominators, NONE};
use super::gcdump::{read_gcdump, DOTNET_GCDUMP_NODE_CAP};
use super::graph::HeapGraph;
use crate::error::Result;
use alloc::collections::BTreeMap;
use alloc::collections::VecDeque;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::Serialize;

/// The most hops of a path kept from a node back to the root; a longer path ends in `…`.
pub const MAX_PATH_HOPS: usize = 64;

/// A snapshot read and analysed: the graph, its dominator tree, and its types merged by name.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub graph: HeapGraph,
    pub dominators: Dominators,
    /// Each type-table entry's group (entries that share a name are one group).
    type_group: Vec<u32>,
    /// The group names, in name order.
    group_names: Vec<String>,
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

/// One type (all type-table entries of one name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

/// What a root-tree node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RootCategory {
    Statics,
    PinningHandles,
    StrongHandles,
    Stacks,
    FinalizerQueue,
    Other,
}

impl RootCategory {
    pub const ALL: [RootCategory; 6] = [
        RootCategory::Statics,
        RootCategory::PinningHandles,
        RootCategory::StrongHandles,
        RootCategory::Stacks,
        RootCategory::FinalizerQueue,
        RootCategory::Other,
    ];
    pub fn label(self) -> &'static str {
        match self {
            RootCategory::Statics => "statics",
            RootCategory::PinningHandles => "pinning handles",
            RootCategory::StrongHandles => "strong handles",
            RootCategory::Stacks => "stacks",
            RootCategory::FinalizerQueue => "finalizer queue",
            RootCategory::Other => "other",
        }
    }
    /// The category a root-tree node's name says, if it says one. The names are the producers'
    /// (`[static vars]`, `[local vars]` from dotnet-gcdump; `[Pinned handles]`, `[Strong handles]`
    /// from PerfView; `[finalization handles]`...).
    pub fn from_name(name: &str) -> Option<Self> {
        let l = name.to_ascii_lowercase();
        if l.contains("static") {
            Some(RootCategory::Statics)
        } else if l.contains("local var") || l.contains("stack") || l.contains("thread") {
            // `[Pinned local vars]` too: a stack root that happens to pin.
            Some(RootCategory::Stacks)
        } else if l.contains("pinn") || l.contains("overlapped") {
            Some(RootCategory::PinningHandles)
        } else if l.contains("strong") {
            Some(RootCategory::StrongHandles)
        } else if l.contains("final") {
            Some(RootCategory::FinalizerQueue)
        } else {
            None
        }
    }
}

/// One node of the root tree (the root and the pseudo-nodes below it, named in brackets).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootNode {
    pub node: u32,
    pub name: String,
    pub category: RootCategory,
    /// 0 for the root.
    pub depth: u32,
    /// Objects (not root-tree nodes) it references directly.
    pub objects: u64,
    /// Bytes of the objects whose immediate dominator it is.
    pub retained_bytes: u64,
}

/// One root category's figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CategoryRow {
    pub category: RootCategory,
    /// Root-tree nodes of the category.
    pub root_nodes: u64,
    /// Distinct objects its root-tree nodes reference directly.
    pub objects: u64,
    /// Bytes only this category keeps alive (objects immediately dominated by its root-tree nodes).
    pub retained_bytes: u64,
    /// Bytes reachable from its roots, whoever else holds them too.
    pub reachable_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootReport {
    /// The categories of the root tree's nodes below the root.
    pub categories: Vec<CategoryRow>,
    /// Bytes the root itself immediately dominates: held through several root-tree nodes, so
    /// retained by no one category.
    pub shared_retained_bytes: u64,
    pub tree: Vec<RootNode>,
}

/// Instances of a type that share one shortest path from the root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathGroup {
    /// Type names from the root to the instance's type; a run of one type is one step with
    /// `repeat` > 1 and a path cut at [`MAX_PATH_HOPS`] starts with `…`.
    pub path: Vec<PathStep>,
    pub instances: u64,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathStep {
    pub name: String,
    pub repeat: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathReport {
    pub type_name: String,
    pub instances: u64,
    pub unreachable_instances: u64,
    /// Largest group first.
    pub groups: Vec<PathGroup>,
}

/// A type's instances by generation (0-2, 3 the large object heap, 4 the pinned object heap).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GenerationRow {
    pub name: String,
    pub count: [u64; 5],
    pub bytes: [u64; 5],
    /// Instances outside every segment (pseudo-nodes, objects the segments do not cover).
    pub outside_count: u64,
    pub outside_bytes: u64,
}

/// One node of the dominator tree, to browse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TreeNode {
    pub node: u32,
    pub type_name: String,
    pub bytes: u64,
    pub retained_bytes: u64,
    /// How many nodes it immediately dominates.
    pub children: u64,
}

/// Spreads each node's bits in `mask` to every node it reaches from `starts`, in two walks: a
/// depth-first walk finds the strongly connected components (Tarjan's algorithm, as a loop),
/// which come out with every edge leading to a component found earlier; the components are then
/// visited in reverse, each passing its bits to the components its edges enter, so every node is
/// visited once whatever the number of categories and cycles.
fn spread_masks(g: &HeapGraph, starts: &[u32], mask: &mut [u8]) {
    let n = g.node_count();
    if starts.is_empty() {
        return;
    }
    // Discovery index (0: not yet), lowest index reachable, and component (NONE: not assigned).
    let mut index = vec![0u32; n];
    let mut low = vec![0u32; n];
    let mut comp = vec![NONE; n];
    // Nodes by component, in the order the components are found, and each component's start.
    let mut order: Vec<u32> = Vec::new();
    let mut comp_start: Vec<u32> = Vec::new();
    let mut open: Vec<u32> = Vec::new();
    let mut stack: Vec<(u32, u32, u32)> = Vec::new();
    let mut counter = 0u32;
    let range = |v: u32| {
        (
            g.edge_start.get(v as usize).copied().unwrap_or(0),
            g.edge_start.get(v as usize + 1).copied().unwrap_or(0),
        )
    };
    for &s in starts {
        if index[s as usize] != 0 {
            continue;
        }
        counter += 1;
        index[s as usize] = counter;
        low[s as usize] = counter;
        open.push(s);
        let (a, b) = range(s);
        stack.push((s, a, b));
        while let Some(top) = stack.last_mut() {
            let v = top.0;
            if top.1 < top.2 {
                let w = g.edges.get(top.1 as usize).copied().unwrap_or(v);
                top.1 += 1;
                if index[w as usize] == 0 {
                    counter += 1;
                    index[w as usize] = counter;
                    low[w as usize] = counter;
                    open.push(w);
                    let (a, b) = range(w);
                    stack.push((w, a, b));
                } else if comp[w as usize] == NONE && index[w as usize] < low[v as usize] {
                    low[v as usize] = index[w as usize];
                }
                continue;
            }
            stack.pop();
            if low[v as usize] == index[v as usize] {
                let c = comp_start.len() as u32;
                comp_start.push(order.len() as u32);
                while let Some(x) = open.pop() {
                    comp[x as usize] = c;
                    order.push(x);
                    if x == v {
                        break;
                    }
                }
            }
            if let Some(parent) = stack.last() {
                let p = parent.0 as usize;
                if low[v as usize] < low[p] {
                    low[p] = low[v as usize];
                }
            }
        }
    }
    drop((index, low, open, stack));
    comp_start.push(order.len() as u32);
    // Each component's bits: its nodes' own, then those of the components with an edge into it.
    let comps = comp_start.len() - 1;
    let mut bits = vec![0u8; comps];
    for &v in &order {
        bits[comp[v as usize] as usize] |= mask[v as usize];
    }
    for c in (0..comps).rev() {
        let m = bits[c];
        if m == 0 {
            continue;
        }
        for &v in &order[comp_start[c] as usize..comp_start[c + 1] as usize] {
            for &w in g.children(v) {
                let cw = comp[w as usize] as usize;
                bits[cw] |= m;
            }
        }
    }
    for &v in &order {
        mask[v as usize] = bits[comp[v as usize] as usize];
    }
}

fn undefined_type() -> super::graph::TypeEntry {
    super::graph::TypeEntry {
        name: String::from("UNDEFINED"),
        module: None,
        size: 0,
    }
}

/// Each type-table entry's group (entries that share a name are one group) and the group names,
/// in name order.
fn group_types(types: &[super::graph::TypeEntry]) -> (Vec<u32>, Vec<String>) {
    let mut by_name: BTreeMap<&str, u32> = BTreeMap::new();
    for t in types {
        by_name.entry(t.name.as_str()).or_insert(0);
    }
    let mut group_names = Vec::with_capacity(by_name.len());
    for (i, (name, g)) in by_name.iter_mut().enumerate() {
        *g = i as u32;
        group_names.push(String::from(*name));
    }
    let type_group = types
        .iter()
        .map(|t| by_name.get(t.name.as_str()).copied().unwrap_or(0))
        .collect();
    (type_group, group_names)
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

fn is_pseudo(name: &str) -> bool {
    name.starts_with('[') && name.ends_with(']')
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
    fn group(&self, v: u32) -> usize {
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
    fn type_retained(&self) -> Vec<u64> {
        let d = &self.dominators;
        let mut out = vec![0u64; self.group_names.len()];
        let mut open = vec![0u32; self.group_names.len()];
        let Some(&root) = d.preorder.first() else {
            return out;
        };
        let mut stack: Vec<(u32, u32)> = vec![(root, 0)];
        let k = self.group(root);
        out[k] += d.retained[root as usize];
        open[k] += 1;
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            let ch = d.children(v);
            if (i as usize) < ch.len() {
                top.1 += 1;
                let w = ch[i as usize];
                let k = self.group(w);
                if open[k] == 0 {
                    out[k] += d.retained[w as usize];
                }
                open[k] += 1;
                stack.push((w, 0));
            } else {
                stack.pop();
                open[self.group(v)] -= 1;
            }
        }
        out
    }

    /// The root tree and the root categories.
    pub fn roots(&self) -> RootReport {
        let g = &self.graph;
        let d = &self.dominators;
        let n = g.node_count();
        let pseudo: Vec<bool> = g.types.iter().map(|t| is_pseudo(&t.name)).collect();
        let is_pseudo_node = |v: u32| {
            g.node_type
                .get(v as usize)
                .and_then(|&t| pseudo.get(t as usize))
                .copied()
                .unwrap_or(false)
        };
        let mut tree = Vec::new();
        // A bit per node: in the root tree.
        let mut in_tree = vec![0u64; n.div_ceil(64)];
        let has = |set: &[u64], v: u32| set[v as usize / 64] & (1 << (v % 64)) != 0;
        if (g.root as usize) < n {
            // The root and the bracketed pseudo-nodes under it, breadth first.
            let mut queue = VecDeque::new();
            queue.push_back((g.root, 0u32, RootCategory::Other));
            in_tree[g.root as usize / 64] |= 1 << (g.root % 64);
            while let Some((v, depth, inherited)) = queue.pop_front() {
                let name = g.type_name(v);
                let category = RootCategory::from_name(name).unwrap_or(inherited);
                let mut objects = 0u64;
                for &c in g.children(v) {
                    if is_pseudo_node(c) {
                        if !has(&in_tree, c) {
                            in_tree[c as usize / 64] |= 1 << (c % 64);
                            queue.push_back((c, depth + 1, category));
                        }
                    } else {
                        objects += 1;
                    }
                }
                tree.push(RootNode {
                    node: v,
                    name: String::from(name),
                    category,
                    depth,
                    objects,
                    retained_bytes: 0,
                });
            }
        }
        // Objects immediately dominated by a root-tree node count for that node.
        for r in &mut tree {
            r.retained_bytes = d
                .children(r.node)
                .iter()
                .filter(|&&c| !has(&in_tree, c))
                .map(|&c| d.retained[c as usize])
                .sum();
        }
        // Each node's categories, a bit each: first the objects the categories' root-tree nodes
        // reference directly (counted once per category), then every node they reach.
        let bit = |c: RootCategory| 1u8 << (c as u8);
        let mut mask = vec![0u8; n];
        let mut objects = [0u64; RootCategory::ALL.len()];
        let mut root_nodes = [0u64; RootCategory::ALL.len()];
        let mut retained = [0u64; RootCategory::ALL.len()];
        let mut starts: Vec<u32> = Vec::new();
        for r in tree.iter().filter(|r| r.depth > 0) {
            let c = r.category as usize;
            root_nodes[c] += 1;
            retained[c] += r.retained_bytes;
            let b = bit(r.category);
            for &ch in g.children(r.node) {
                if has(&in_tree, ch) {
                    continue;
                }
                let m = &mut mask[ch as usize];
                if *m & b == 0 {
                    objects[c] += 1;
                    if *m == 0 {
                        starts.push(ch);
                    }
                    *m |= b;
                }
            }
        }
        spread_masks(g, &starts, &mut mask);
        let mut reachable = [0u64; RootCategory::ALL.len()];
        for (&m, &size) in mask.iter().zip(&g.node_size) {
            if m != 0 {
                for (c, r) in reachable.iter_mut().enumerate() {
                    if m & (1 << c) != 0 {
                        *r += size as u64;
                    }
                }
            }
        }
        let categories = RootCategory::ALL
            .iter()
            .map(|&c| CategoryRow {
                category: c,
                root_nodes: root_nodes[c as usize],
                objects: objects[c as usize],
                retained_bytes: retained[c as usize],
                reachable_bytes: reachable[c as usize],
            })
            .collect();
        let shared_retained_bytes = tree.first().map_or(0, |r| r.retained_bytes);
        RootReport {
            categories,
            shared_retained_bytes,
            tree,
        }
    }

    /// The shortest path from the root (breadth first) to each node: its parent on it, `NONE`
    /// for the root and unreachable nodes.
    pub fn bfs_parents(&self) -> Vec<u32> {
        let g = &self.graph;
        let n = g.node_count();
        let mut parent = vec![NONE; n];
        if (g.root as usize) >= n {
            return parent;
        }
        let mut seen = vec![false; n];
        let mut queue = VecDeque::new();
        seen[g.root as usize] = true;
        queue.push_back(g.root);
        while let Some(v) = queue.pop_front() {
            for &c in g.children(v) {
                if !seen[c as usize] {
                    seen[c as usize] = true;
                    parent[c as usize] = v;
                    queue.push_back(c);
                }
            }
        }
        parent
    }

    /// The names of the types whose name contains `needle` (case-insensitive), for a search box.
    pub fn type_names_matching(&self, needle: &str) -> Vec<&str> {
        let n = needle.to_ascii_lowercase();
        self.group_names
            .iter()
            .filter(|s| s.to_ascii_lowercase().contains(&n))
            .map(|s| s.as_str())
            .collect()
    }

    /// The shortest paths from the root to the instances of the type named `type_name`, grouped by
    /// the path's type names, largest group first.
    pub fn paths(&self, type_name: &str) -> PathReport {
        let g = &self.graph;
        let parent = self.bfs_parents();
        let target = self.group_names.iter().position(|s| s == type_name);
        let mut groups: BTreeMap<Vec<(u32, u32)>, (u64, u64)> = BTreeMap::new();
        let mut instances = 0u64;
        let mut unreachable = 0u64;
        if let Some(target) = target {
            let cut = self.group_names.len() as u32;
            for v in 0..g.node_count() as u32 {
                if self.group(v) != target {
                    continue;
                }
                instances += 1;
                if v != g.root && parent[v as usize] == NONE {
                    unreachable += 1;
                    continue;
                }
                // From the instance up to the root, runs of one type folded.
                let mut key: Vec<(u32, u32)> = Vec::new();
                let mut u = v;
                let mut hops = 0;
                loop {
                    let k = self.group(u) as u32;
                    match key.last_mut() {
                        Some(last) if last.0 == k => last.1 += 1,
                        _ => key.push((k, 1)),
                    }
                    if u == g.root {
                        break;
                    }
                    hops += 1;
                    if hops > MAX_PATH_HOPS {
                        key.push((cut, 1));
                        break;
                    }
                    u = parent[u as usize];
                }
                key.reverse();
                let e = groups.entry(key).or_insert((0, 0));
                e.0 += 1;
                e.1 += g.node_size[v as usize] as u64;
            }
        }
        let mut out: Vec<PathGroup> = groups
            .into_iter()
            .map(|(key, (instances, bytes))| PathGroup {
                path: key
                    .into_iter()
                    .map(|(k, repeat)| PathStep {
                        name: self
                            .group_names
                            .get(k as usize)
                            .cloned()
                            .unwrap_or_else(|| String::from("…")),
                        repeat,
                    })
                    .collect(),
                instances,
                bytes,
            })
            .collect();
        out.sort_by(|a, b| {
            b.instances
                .cmp(&a.instances)
                .then(b.bytes.cmp(&a.bytes))
                .then(a.path.len().cmp(&b.path.len()))
        });
        PathReport {
            type_name: String::from(type_name),
            instances,
            unreachable_instances: unreachable,
            groups: out,
        }
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
