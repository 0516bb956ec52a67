//! Shortest paths from the root to a type's instances, grouped by the types along them.

use super::analysis::Snapshot;
use super::dominators::NONE;
use alloc::collections::BTreeMap;
use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// The most hops of a path kept from a node back to the root; a longer path ends in `…`.
pub const MAX_PATH_HOPS: usize = 64;

/// Instances of a type that share one shortest path from the root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathGroup {
    /// Type names from the root to the instance's type; a run of one type is one step with
    /// `repeat` > 1 and a path cut at [`MAX_PATH_HOPS`] starts with `…`.
    pub path: Vec<PathStep>,
    pub instances: u64,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

impl Snapshot {
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
}
