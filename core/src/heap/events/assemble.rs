//! The walk's events made into a [`HeapGraph`] once its GC ends: the types named as dotnet-gcdump
//! names them, the nodes and their edges matched by order, and the root tree of pseudo-nodes
//! (`[static vars]`, `[pinning handles]`, ...) above the roots.

use super::{
    HeapWalk, HeapWalkBuilder, TypeInfo, CCW_NODE_SIZE, TYPE_FLAG_ARRAY, TYPE_FLAG_COM_OBJECT,
};
use crate::heap::graph::{HeapGraph, SnapshotInfo, TypeEntry};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl HeapWalkBuilder {
    pub(super) fn build(mut self, info: SnapshotInfo) -> HeapWalk {
        let mut report = core::mem::take(&mut self.report);
        let n = self.nodes.len();
        let mut g = HeapGraph {
            pointer_size: self.pointer_size,
            info,
            ..Default::default()
        };
        g.info.average_count_multiplier = 1.0;
        g.info.average_size_multiplier = 1.0;

        // Types: 0 is the undefined nodes' type, then the walk's node types by first use.
        let mut types = TypeTable::default();
        // `remap[k]`: the entry of walk type k (0: undefined, i + 1: `type_ids[i]`).
        let mut remap = alloc::vec![types.push_distinct(String::from("UNDEFINED"), 0)];
        let mut first_size = alloc::vec![None::<u32>; self.type_ids.len()];
        for node in &self.nodes {
            let s = &mut first_size[node.ty as usize];
            s.get_or_insert(node.size);
        }
        for (i, &id) in self.type_ids.iter().enumerate() {
            let name = match self.types.get(&id) {
                Some(t) => type_name(t),
                None => {
                    report.unnamed_types += 1;
                    format!("Type(0x{id:x})")
                }
            };
            remap.push(types.push_distinct(name, first_size[i].unwrap_or(0)));
        }

        // Defined nodes keep the walk's order; a repeated address keeps its first node.
        let mut by_address: Vec<(u64, u32)> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, nd)| (nd.address, i as u32))
            .collect();
        by_address.sort_unstable();
        let before = by_address.len();
        by_address.dedup_by_key(|p| p.0);
        report.duplicate_nodes = (before - by_address.len()) as u64;
        let mut lookup = Lookup {
            defined: by_address,
            undefined: BTreeMap::new(),
            next: n as u32,
        };

        let aligned = self
            .aligned_edges
            .unwrap_or(u64::MAX)
            .min(self.edges.len() as u64) as usize;
        let rcw_of: BTreeMap<u64, u64> = self.rcws.iter().copied().collect();
        let mut com_nodes: BTreeMap<u64, u32> = BTreeMap::new();
        let com_type = types.push_distinct(String::from("[COM object]"), 0);
        let mut pos = 0usize;
        g.edge_start.push(0);
        let mut pending_com: Vec<u64> = Vec::new();
        for node in &self.nodes {
            let want = node.edge_count as usize;
            let end = pos.saturating_add(want);
            if end > aligned {
                report.missing_edges += (end - aligned.max(pos)) as u64;
            }
            for &target in self.edges.get(pos..end.min(aligned)).unwrap_or(&[]) {
                if target != 0 {
                    g.edges.push(lookup.index(target));
                }
            }
            pos = end.min(aligned).max(pos);
            if let Some(&iu) = rcw_of.get(&node.address) {
                // The COM object an RCW wraps: a node of its own, defined below.
                let next = com_nodes.len() as u32;
                let k = *com_nodes.entry(iu).or_insert_with(|| {
                    pending_com.push(iu);
                    next
                });
                g.edges.push(u32::MAX - k);
            }
            g.node_type.push(node.ty + 1);
            g.node_size.push(node.size);
            g.address.push(node.address);
            g.edge_start.push(g.edges.len() as u32);
        }
        report.unattached_edges = (self.edges.len() - pos.min(self.edges.len())) as u64;
        // `missing_edges` counts claimed edges past the aligned ones; those that did come but
        // are past a loss are unattached, not missing.
        report.missing_edges = report.missing_edges.saturating_sub(report.unattached_edges);
        // Types that share a name share an entry.
        for t in g.node_type.iter_mut() {
            *t = remap.get(*t as usize).copied().unwrap_or(0);
        }

        // The root tree's targets, then the pseudo-nodes that hold them.
        let mut tree = RootTree::default();
        for &(slot, addr) in &self.roots {
            let idx = lookup.index(addr);
            let parent = if slot.under_other_roots() {
                Some("[other roots]")
            } else {
                None
            };
            tree.add(parent, slot.name(), idx);
        }
        for s in &self.statics {
            let tn = self
                .types
                .get(&s.type_id)
                .map(type_name)
                .unwrap_or_else(|| format!("Type(0x{:x})", s.type_id));
            let parent = if s.thread_local {
                "[thread static vars]"
            } else {
                "[static vars]"
            };
            let idx = lookup.index(s.object);
            tree.add(Some(parent), &format!("[static var {tn}.{}]", s.field), idx);
        }
        let mut ccw_nodes: Vec<(u32, u32, u32)> = Vec::new();
        for c in &self.ccws {
            let obj = lookup.index(c.object);
            let tn = self
                .types
                .get(&c.type_id)
                .map(type_name)
                .unwrap_or_else(|| format!("Type(0x{:x})", c.type_id));
            let ty = types.push_distinct(
                format!("[CCW 0x{:x} for type {tn}]", c.iunknown),
                CCW_NODE_SIZE,
            );
            ccw_nodes.push((ty, obj, 0));
        }

        // Undefined nodes: referenced addresses no node defined.
        let undefined = lookup.undefined;
        let u = undefined.len();
        let mut undefined_address = alloc::vec![0u64; u];
        for (&a, &i) in &undefined {
            undefined_address[i as usize - n] = a;
        }
        for a in undefined_address {
            g.node_type.push(0);
            g.node_size.push(0);
            g.address.push(a);
            g.edge_start.push(g.edges.len() as u32);
        }
        // COM objects of RCWs, then CCW nodes (each with its managed object as its child).
        let com_base = (n + u) as u32;
        for iu in &pending_com {
            g.node_type.push(com_type);
            g.node_size.push(0);
            g.address.push(*iu);
            g.edge_start.push(g.edges.len() as u32);
        }
        for e in g.edges.iter_mut() {
            if *e > u32::MAX - com_nodes.len() as u32 {
                *e = com_base + (u32::MAX - *e);
            }
        }
        let ccw_base = com_base + pending_com.len() as u32;
        for (i, (ty, obj, _)) in ccw_nodes.iter().enumerate() {
            g.node_type.push(*ty);
            g.node_size.push(CCW_NODE_SIZE);
            g.address.push(self.ccws[i].iunknown);
            g.edges.push(*obj);
            g.edge_start.push(g.edges.len() as u32);
            tree.add(None, "[COM/WinRT Objects]", ccw_base + i as u32);
        }

        // The pseudo-nodes: the root, its groups, their groups.
        let pseudo_base = ccw_base + ccw_nodes.len() as u32;
        tree.emit(&mut g, &mut types, pseudo_base);

        g.types = types.entries;
        g.undefined = alloc::vec![0u64; g.node_type.len().div_ceil(64)];
        for i in n..n + u {
            g.undefined[i / 64] |= 1 << (i % 64);
        }
        g.stated_total_bytes = g.total_bytes() as i64;
        HeapWalk { graph: g, report }
    }
}

/// A type's display name as dotnet-gcdump writes it: generic arity marks dropped and the
/// runtime's `[...]` type arguments in `<...>` (an array's `[]` stays); an RCW's type marked.
pub(super) fn type_name(t: &TypeInfo) -> String {
    let mut name = if t.name.is_empty() {
        if t.flags & TYPE_FLAG_ARRAY != 0 {
            format!("ArrayType(0x{:x})", t.type_name_id)
        } else {
            format!("Type(0x{:x})", t.type_name_id)
        }
    } else {
        let mut s = String::with_capacity(t.name.len());
        let mut chars = t.name.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '`' if chars.peek().is_some_and(|d| d.is_ascii_digit()) => {
                    while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                        chars.next();
                    }
                }
                '[' => s.push('<'),
                ']' => s.push('>'),
                _ => s.push(c),
            }
        }
        s.replace("<>", "[]")
    };
    if t.flags & TYPE_FLAG_COM_OBJECT != 0 {
        name = format!("[RCW {name}]");
    }
    name
}

/// The type table being built: one entry per distinct name.
#[derive(Default)]
struct TypeTable {
    entries: Vec<TypeEntry>,
    by_name: BTreeMap<String, u32>,
}

impl TypeTable {
    /// The entry named `name`, made (with `size`) if new.
    fn push_distinct(&mut self, name: String, size: u32) -> u32 {
        if let Some(&i) = self.by_name.get(&name) {
            return i;
        }
        let i = self.entries.len() as u32;
        self.entries.push(TypeEntry {
            name: name.clone(),
            module: None,
            size: size.min(i32::MAX as u32) as i32,
        });
        self.by_name.insert(name, i);
        i
    }
}

/// Addresses to node indices: the defined nodes (sorted), and undefined nodes made on first use.
struct Lookup {
    defined: Vec<(u64, u32)>,
    undefined: BTreeMap<u64, u32>,
    next: u32,
}

impl Lookup {
    fn index(&mut self, address: u64) -> u32 {
        if let Ok(i) = self.defined.binary_search_by_key(&address, |p| p.0) {
            return self.defined[i].1;
        }
        let next = &mut self.next;
        *self.undefined.entry(address).or_insert_with(|| {
            let i = *next;
            *next += 1;
            i
        })
    }
}

/// The root tree's pseudo-nodes: `[.NET Roots]`, the groups below it, and the groups below those
/// (`[other roots]` holds the handle kinds; `[static vars]` one node per static field).
#[derive(Default)]
struct RootTree {
    /// (parent group or none for the root, name) → children.
    groups: Vec<(Option<&'static str>, String, Vec<u32>)>,
    index: BTreeMap<(Option<&'static str>, String), usize>,
}

impl RootTree {
    fn add(&mut self, parent: Option<&'static str>, name: &str, child: u32) {
        let key = (parent, String::from(name));
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                self.groups.push((parent, String::from(name), Vec::new()));
                self.index.insert(key, self.groups.len() - 1);
                self.groups.len() - 1
            }
        };
        self.groups[i].2.push(child);
    }

    /// Appends the pseudo-nodes from `base` on: the root first, then the top groups (below the
    /// root), then the parents named by groups, then the groups below them.
    fn emit(self, g: &mut HeapGraph, types: &mut TypeTable, base: u32) {
        let mut parents: Vec<&'static str> = Vec::new();
        for (p, _, _) in &self.groups {
            if let Some(p) = p {
                if !parents.contains(p) {
                    parents.push(p);
                }
            }
        }
        // Node order: root, top-level groups, parent groups, child groups.
        let top: Vec<usize> = (0..self.groups.len())
            .filter(|&i| self.groups[i].0.is_none())
            .collect();
        let below: Vec<usize> = (0..self.groups.len())
            .filter(|&i| self.groups[i].0.is_some())
            .collect();
        let root = base;
        let top_base = root + 1;
        let parent_base = top_base + top.len() as u32;
        let below_base = parent_base + parents.len() as u32;
        g.root = root;
        let mut push = |g: &mut HeapGraph, name: &str, children: &[u32]| {
            let ty = types.push_distinct(String::from(name), 0);
            g.node_type.push(ty);
            g.node_size.push(0);
            g.address.push(0);
            g.edges.extend_from_slice(children);
            g.edge_start.push(g.edges.len() as u32);
        };
        let mut root_children: Vec<u32> = (0..top.len() as u32).map(|i| top_base + i).collect();
        root_children.extend((0..parents.len() as u32).map(|i| parent_base + i));
        push(g, "[.NET Roots]", &root_children);
        for &i in &top {
            push(g, &self.groups[i].1, &self.groups[i].2);
        }
        for p in &parents {
            let children: Vec<u32> = below
                .iter()
                .enumerate()
                .filter(|(_, &i)| self.groups[i].0 == Some(*p))
                .map(|(k, _)| below_base + k as u32)
                .collect();
            push(g, p, &children);
        }
        for &i in &below {
            push(g, &self.groups[i].1, &self.groups[i].2);
        }
    }
}
