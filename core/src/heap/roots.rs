//! The root tree (the root and the bracketed pseudo-nodes under it) and the root categories: what
//! each kind of root keeps alive alone, and what it reaches.

use super::analysis::Snapshot;
use super::dominators::NONE;
use super::graph::HeapGraph;
use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::Serialize;

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

fn is_pseudo(name: &str) -> bool {
    name.starts_with('[') && name.ends_with(']')
}

impl Snapshot {
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
                .filter(|&c| !has(&in_tree, c))
                .map(|c| d.retained[c as usize])
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
}
