//! The exact dominator tree of a heap graph from its root, and retained sizes.
//!
//! Semi-NCA (Lengauer-Tarjan's semidominators, then each immediate dominator as the nearest common
//! ancestor of the node's DFS parent and its semidominator): O(E log V), with every walk an
//! explicit loop, so a deep graph (a linked list of millions of nodes) needs no call stack.

use super::graph::HeapGraph;
use alloc::vec;
use alloc::vec::Vec;

/// `NONE` in the per-node arrays: a node not reachable from the root.
pub const NONE: u32 = u32::MAX;

/// The dominator tree: each reachable node's immediate dominator and retained bytes.
#[derive(Debug, Clone, Default)]
pub struct Dominators {
    /// The immediate dominator of each node (`NONE` for the root and unreachable nodes).
    pub idom: Vec<u32>,
    /// Bytes the node keeps alive: its size plus that of every node it dominates (0 when
    /// unreachable).
    pub retained: Vec<u64>,
    /// The reachable nodes in DFS preorder from the root (every dominator comes before the nodes
    /// it dominates).
    pub preorder: Vec<u32>,
    /// Dominator-tree children, as offsets into `child_list` (`node_count + 1` entries).
    child_start: Vec<u32>,
    child_list: Vec<u32>,
}

impl Dominators {
    /// Computes the tree from `g.root`; an invalid root leaves every node unreachable.
    pub fn compute(g: &HeapGraph) -> Self {
        let n = g.node_count();
        let mut d = Dominators {
            idom: vec![NONE; n],
            retained: vec![0; n],
            ..Default::default()
        };
        if (g.root as usize) >= n {
            d.child_start = vec![0; n + 1];
            return d;
        }
        // Preorder numbers from 1; 0 is "none".
        let mut num = vec![0u32; n];
        let mut vertex: Vec<u32> = vec![0];
        let mut parent: Vec<u32> = vec![0];
        {
            // Iterative DFS: a stack of (node, next child position).
            let mut stack: Vec<(u32, u32)> = Vec::new();
            num[g.root as usize] = 1;
            vertex.push(g.root);
            parent.push(0);
            stack.push((g.root, 0));
            while let Some(top) = stack.last_mut() {
                let (v, i) = *top;
                let ch = g.children(v);
                if (i as usize) < ch.len() {
                    top.1 += 1;
                    let w = ch[i as usize];
                    if num[w as usize] == 0 {
                        num[w as usize] = vertex.len() as u32;
                        vertex.push(w);
                        parent.push(num[v as usize]);
                        stack.push((w, 0));
                    }
                } else {
                    stack.pop();
                }
            }
        }
        let k = vertex.len() - 1;
        // Predecessors among reachable nodes, in preorder numbers.
        let mut pred_start = vec![0u32; k + 2];
        for &v in &vertex[1..] {
            for &w in g.children(v) {
                let nw = num[w as usize] as usize;
                if nw != 0 {
                    pred_start[nw + 1] += 1;
                }
            }
        }
        for i in 1..pred_start.len() {
            pred_start[i] += pred_start[i - 1];
        }
        let mut fill = pred_start.clone();
        let mut preds = vec![0u32; pred_start[k + 1] as usize];
        for &v in &vertex[1..] {
            let nv = num[v as usize];
            for &w in g.children(v) {
                let nw = num[w as usize] as usize;
                if nw != 0 {
                    preds[fill[nw] as usize] = nv;
                    fill[nw] += 1;
                }
            }
        }
        drop(fill);

        let mut semi: Vec<u32> = (0..=k as u32).collect();
        let mut label: Vec<u32> = (0..=k as u32).collect();
        let mut ancestor = vec![0u32; k + 1];
        let mut path: Vec<u32> = Vec::new();
        for w in (2..=k).rev() {
            for p in pred_start[w]..pred_start[w + 1] {
                let v = preds[p as usize];
                let u = eval(v, &mut ancestor, &mut label, &semi, &mut path);
                if semi[u as usize] < semi[w] {
                    semi[w] = semi[u as usize];
                }
            }
            ancestor[w] = parent[w];
        }
        drop(ancestor);
        drop(label);
        let mut idom_num = parent;
        for w in 2..=k {
            let mut x = idom_num[w];
            while x > semi[w] {
                x = idom_num[x as usize];
            }
            idom_num[w] = x;
        }
        for w in 2..=k {
            d.idom[vertex[w] as usize] = vertex[idom_num[w] as usize];
        }
        // Retained sizes: each node's subtree, children before their dominator (reverse preorder).
        for w in (1..=k).rev() {
            let v = vertex[w] as usize;
            d.retained[v] += g.node_size[v] as u64;
            if w > 1 {
                let p = vertex[idom_num[w] as usize] as usize;
                d.retained[p] += d.retained[v];
            }
        }
        // Children lists of the tree.
        let mut cs = vec![0u32; n + 1];
        for w in 2..=k {
            cs[vertex[idom_num[w] as usize] as usize + 1] += 1;
        }
        for i in 1..cs.len() {
            cs[i] += cs[i - 1];
        }
        let mut fill = cs.clone();
        let mut cl = vec![0u32; k.saturating_sub(1)];
        for w in 2..=k {
            let p = vertex[idom_num[w] as usize] as usize;
            cl[fill[p] as usize] = vertex[w];
            fill[p] += 1;
        }
        d.child_start = cs;
        d.child_list = cl;
        d.preorder = vertex.split_off(1);
        d
    }

    /// Whether node `v` is reachable from the root (the root is).
    pub fn reachable(&self, v: u32) -> bool {
        self.preorder.first() == Some(&v) || self.idom.get(v as usize).is_some_and(|&i| i != NONE)
    }
    /// How many nodes the root reaches (itself included).
    pub fn reachable_count(&self) -> usize {
        self.preorder.len()
    }
    /// The nodes `v` immediately dominates, in DFS order.
    pub fn children(&self, v: u32) -> &[u32] {
        let v = v as usize;
        match (self.child_start.get(v), self.child_start.get(v + 1)) {
            (Some(&a), Some(&b)) => &self.child_list[a as usize..b as usize],
            _ => &[],
        }
    }
    /// The nodes `v` immediately dominates, largest retained first.
    pub fn children_by_retained(&self, v: u32) -> Vec<u32> {
        let mut c = self.children(v).to_vec();
        c.sort_by(|a, b| {
            self.retained[*b as usize]
                .cmp(&self.retained[*a as usize])
                .then(a.cmp(b))
        });
        c
    }
}

/// Lengauer-Tarjan's EVAL with path compression, as a loop: the vertex of least semidominator on
/// the path from `v` up to (not including) the root of its tree in the forest.
fn eval(v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32], path: &mut Vec<u32>) -> u32 {
    if ancestor[v as usize] == 0 {
        return v;
    }
    path.clear();
    let mut u = v;
    while ancestor[ancestor[u as usize] as usize] != 0 {
        path.push(u);
        u = ancestor[u as usize];
    }
    while let Some(x) = path.pop() {
        let a = ancestor[x as usize] as usize;
        if semi[label[a] as usize] < semi[label[x as usize] as usize] {
            label[x as usize] = label[a];
        }
        ancestor[x as usize] = ancestor[a];
    }
    label[v as usize]
}
