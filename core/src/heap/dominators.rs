//! The exact dominator tree of a heap graph from its root, and retained sizes.
//!
//! Semi-NCA (Lengauer-Tarjan's semidominators, then each immediate dominator as the nearest common
//! ancestor of the node's DFS parent and its semidominator): O(E log V), with every walk an
//! explicit loop, so a deep graph (a linked list of millions of nodes) needs no call stack.
//!
//! The work happens in DFS preorder indices, where a dominator always has a smaller index than the
//! nodes it dominates, so the per-node arrays are read in order and with locality; node indices
//! appear only at the start (the DFS) and at the end (the results scattered back). The DFS alone
//! reads the graph: it sorts each edge into what the semidominators need on the spot. An edge to a
//! node it has just numbered is a tree edge; one to a descendant numbered before (a forward edge)
//! lowers that node's semidominator candidate at once; only the edges to a smaller index (cross and
//! back edges) are kept, as a linked list per target, for the EVAL step. The forest of EVAL is the
//! DFS parent array itself: a node is linked once processed, that is, once its index is above the
//! node being processed, so no separate marker is needed, and its label is the smallest
//! semidominator index on its compressed path (not a vertex to look up).

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
    /// Each node's position in `preorder` plus one (0: not reachable).
    position: Vec<u32>,
    /// Dominator-tree children, by preorder position: offsets into `child_list`
    /// (`preorder.len() + 1` entries), whose entries are the children's preorder positions (a
    /// walk of the tree then reads per-position arrays, in order, and never `position`).
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
            position: vec![0; n],
            child_start: vec![0],
            ..Default::default()
        };
        if (g.root as usize) >= n || g.edge_start.len() != n + 1 {
            return d;
        }
        let es = &g.edge_start;
        let edges = &g.edges;
        let range = |v: u32| (es[v as usize], es[v as usize + 1]);
        // Per preorder index: the node, its DFS parent, its semidominator candidate (the parent and
        // forward edges so far), and the first kept edge that enters it.
        let mut vertex: Vec<u32> = Vec::new();
        let mut parent: Vec<u32> = Vec::new();
        let mut semi: Vec<u32> = Vec::new();
        let mut head: Vec<u32> = Vec::new();
        // The kept edges (cross and back): their source index and the next edge of the same target.
        let mut from: Vec<u32> = Vec::new();
        let mut next: Vec<u32> = Vec::new();
        {
            // Iterative DFS: a stack of (next edge, end of edges, preorder index).
            let mut stack: Vec<(u32, u32, u32)> = Vec::new();
            d.position[g.root as usize] = 1;
            vertex.push(g.root);
            parent.push(0);
            semi.push(0);
            head.push(NONE);
            let (a, b) = range(g.root);
            stack.push((a, b, 0));
            while let Some(top) = stack.last_mut() {
                if top.0 >= top.1 {
                    stack.pop();
                    continue;
                }
                let v = top.2;
                let Some(&w) = edges.get(top.0 as usize) else {
                    stack.pop();
                    continue;
                };
                top.0 += 1;
                let Some(p) = d.position.get_mut(w as usize) else {
                    continue;
                };
                if *p == 0 {
                    let i = vertex.len() as u32;
                    *p = i + 1;
                    vertex.push(w);
                    parent.push(v);
                    semi.push(v);
                    head.push(NONE);
                    let (a, b) = range(w);
                    stack.push((a, b, i));
                    continue;
                }
                let i = *p - 1;
                if i > v {
                    // A forward edge: `v` is an ancestor still being explored.
                    if v < semi[i as usize] {
                        semi[i as usize] = v;
                    }
                } else if i < v {
                    from.push(v);
                    next.push(head[i as usize]);
                    head[i as usize] = (from.len() - 1) as u32;
                }
            }
        }
        let k = vertex.len();
        // Semidominators, in decreasing preorder. `head` becomes each processed node's label: the
        // smallest semidominator on its path in the forest.
        let mut ancestor = parent.clone();
        let mut path: Vec<u32> = Vec::new();
        for w in (1..k).rev() {
            let mut s = semi[w];
            let mut e = head[w];
            while e != NONE {
                let u = from[e as usize];
                e = next[e as usize];
                let c = eval(u, w as u32, &mut ancestor, &mut head, &mut path);
                if c < s {
                    s = c;
                }
            }
            semi[w] = s;
            head[w] = s;
        }
        drop((ancestor, head, from, next, path));
        // Immediate dominators: the nearest common ancestor of the parent and the semidominator, in
        // increasing preorder (a dominator's own is known by then).
        let mut idom = parent;
        for w in 1..k {
            let s = semi[w];
            let mut x = idom[w];
            while x > s {
                x = idom[x as usize];
            }
            idom[w] = x;
        }
        drop(semi);
        // Retained bytes: each subtree, children before their dominator (decreasing preorder).
        let mut ret: Vec<u64> = vertex
            .iter()
            .map(|&v| g.node_size.get(v as usize).copied().unwrap_or(0) as u64)
            .collect();
        for w in (1..k).rev() {
            ret[idom[w] as usize] += ret[w];
        }
        for (w, &v) in vertex.iter().enumerate() {
            d.retained[v as usize] = ret[w];
            if w > 0 {
                d.idom[v as usize] = vertex[idom[w] as usize];
            }
        }
        drop(ret);
        // The tree's children lists by preorder position: counts, their running sum as each
        // list's end, filled backwards to leave each entry at its list's start.
        let mut cs = vec![0u32; k + 1];
        for &p in &idom[1..] {
            cs[p as usize + 1] += 1;
        }
        for i in 1..cs.len() {
            cs[i] += cs[i - 1];
        }
        let mut cl = vec![0u32; k.saturating_sub(1)];
        for w in (1..k).rev() {
            let p = idom[w] as usize + 1;
            cs[p] -= 1;
            cl[cs[p] as usize] = w as u32;
        }
        // Each list's start is now in its own slot, shifted by one: move it back.
        cs.remove(0);
        cs.push(cl.len() as u32);
        d.child_start = cs;
        d.child_list = cl;
        d.preorder = vertex;
        d
    }

    /// Whether node `v` is reachable from the root (the root is).
    pub fn reachable(&self, v: u32) -> bool {
        self.position.get(v as usize).is_some_and(|&p| p != 0)
    }
    /// How many nodes the root reaches (itself included).
    pub fn reachable_count(&self) -> usize {
        self.preorder.len()
    }
    /// Node `v`'s position in [`Self::preorder`], if reachable.
    pub fn preorder_position(&self, v: u32) -> Option<usize> {
        match self.position.get(v as usize) {
            Some(&p) if p != 0 => Some(p as usize - 1),
            _ => None,
        }
    }
    /// The nodes `v` immediately dominates, in DFS order.
    pub fn children(&self, v: u32) -> impl ExactSizeIterator<Item = u32> + '_ {
        let at = self
            .preorder_position(v)
            .map_or(&[][..], |i| self.child_positions(i));
        at.iter().map(|&c| self.preorder[c as usize])
    }
    /// The preorder positions of the children of the node at preorder position `i`, in order.
    pub fn child_positions(&self, i: usize) -> &[u32] {
        match (self.child_start.get(i), self.child_start.get(i + 1)) {
            (Some(&a), Some(&b)) => self.child_list.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
    /// The nodes `v` immediately dominates, largest retained first.
    pub fn children_by_retained(&self, v: u32) -> Vec<u32> {
        let mut c: Vec<u32> = self.children(v).collect();
        c.sort_by(|a, b| {
            self.retained[*b as usize]
                .cmp(&self.retained[*a as usize])
                .then(a.cmp(b))
        });
        c
    }
}

/// Lengauer-Tarjan's EVAL with path compression, as a loop, while node `w` is processed: the
/// smallest semidominator on the forest path from `u` (processed, so above `w`) up to, not
/// including, the first node not yet processed (at most `w`). `label` holds each processed node's
/// smallest semidominator on its compressed path.
#[inline]
fn eval(u: u32, w: u32, ancestor: &mut [u32], label: &mut [u32], path: &mut Vec<u32>) -> u32 {
    let a = ancestor[u as usize];
    if a <= w || ancestor[a as usize] <= w {
        // The path is `u` alone, or `u` and one processed node above it: nothing to compress
        // beyond one step.
        if a > w {
            let la = label[a as usize];
            if la < label[u as usize] {
                label[u as usize] = la;
            }
            ancestor[u as usize] = ancestor[a as usize];
        }
        return label[u as usize];
    }
    path.clear();
    let mut x = u;
    while ancestor[x as usize] > w {
        path.push(x);
        x = ancestor[x as usize];
    }
    // `x` is the path's last node; compress from the one below it down to `u`.
    while let Some(y) = path.pop() {
        let a = ancestor[y as usize] as usize;
        if label[a] < label[y as usize] {
            label[y as usize] = label[a];
        }
        ancestor[y as usize] = ancestor[a];
    }
    label[u as usize]
}
