//! The heap graph a snapshot holds: typed, sized nodes and their references, in flat arrays.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

/// One entry of the snapshot's type table. Several entries may share a name (the views merge
/// them by name); a size-bucket name such as `System.String (Bytes > 10K)` is an entry of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeEntry {
    pub name: String,
    /// The module the type comes from, where the producer stored it.
    pub module: Option<String>,
    /// The size a node of this type has unless the node stores its own.
    pub size: i32,
}

/// One GC heap segment with its generations' upper bounds, as the producer stored it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Segment {
    pub start: u64,
    pub end: u64,
    /// Upper bounds of generations 0..=4 within the segment (0 where not stored).
    pub gen_end: [u64; 5],
}

impl Segment {
    /// The generation of an address in this segment: the highest generation (4 down to 0) whose
    /// upper bound is above the address, the rule the format's producer uses; `None` outside.
    pub fn generation(&self, address: u64) -> Option<u8> {
        if address < self.start || address >= self.end {
            return None;
        }
        (0..5u8).rev().find(|&g| address < self.gen_end[g as usize])
    }
}

/// A heap snapshot as a graph: node `i` has type `node_type[i]`, `node_size[i]` bytes and the
/// children `edges[edge_start[i]..edge_start[i + 1]]`. Node indices are the file's.
#[derive(Debug, Clone, Default)]
pub struct HeapGraph {
    pub types: Vec<TypeEntry>,
    pub node_type: Vec<u32>,
    pub node_size: Vec<u32>,
    /// `node_count + 1` offsets into `edges`.
    pub edge_start: Vec<u32>,
    pub edges: Vec<u32>,
    /// A bit per node: set for a node the file references but never defines.
    pub undefined: Vec<u64>,
    /// Each node's address in the process (empty when the file stores none).
    pub address: Vec<u64>,
    /// The node the root tree starts from.
    pub root: u32,
    /// The heap's segments, where the producer stored them (PerfView's own dumps do; dotnet-gcdump
    /// does not).
    pub segments: Vec<Segment>,
    /// 4 or 8 where the file says; 0 when it does not.
    pub pointer_size: u8,
    /// The total the file's graph header states (the sum of the node sizes when intact).
    pub stated_total_bytes: i64,
    /// Facts of the snapshot's header.
    pub info: SnapshotInfo,
}

/// What the snapshot says about where and how it was taken; empty where not stored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SnapshotInfo {
    /// The container object's format version (`GCHeapDump` 10 today).
    pub version: i32,
    pub process_name: Option<String>,
    pub process_id: i32,
    pub machine_name: Option<String>,
    /// .NET `DateTime` ticks (100 ns since 0001-01-01); 0 when not stored.
    pub time_ticks: i64,
    pub creation_tool: Option<String>,
    /// The producer's log of the collection (PerfView's dumps keep one).
    pub collection_log: Option<String>,
    /// Whether the dump is a JavaScript heap (it stores a `JSHeapInfo`, or its root is `[JS Roots]`).
    pub javascript: bool,
    /// Types the file names only by module and id (.NET Native); their names stay the table's.
    pub deferred_types: u32,
    /// The sampling multipliers of a dump of a sampled heap (1.0 when not sampled).
    pub average_count_multiplier: f32,
    pub average_size_multiplier: f32,
}

impl HeapGraph {
    pub fn node_count(&self) -> usize {
        self.node_type.len()
    }
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }
    /// The children of node `n`.
    #[inline]
    pub fn children(&self, n: u32) -> &[u32] {
        let n = n as usize;
        match (self.edge_start.get(n), self.edge_start.get(n + 1)) {
            (Some(&a), Some(&b)) => self.edges.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
    pub fn is_undefined(&self, n: u32) -> bool {
        self.undefined
            .get(n as usize / 64)
            .is_some_and(|w| w & (1 << (n % 64)) != 0)
    }
    pub fn undefined_count(&self) -> usize {
        self.undefined.iter().map(|w| w.count_ones() as usize).sum()
    }
    /// The name of node `n`'s type ("" for an index outside the table).
    pub fn type_name(&self, n: u32) -> &str {
        self.node_type
            .get(n as usize)
            .and_then(|&t| self.types.get(t as usize))
            .map_or("", |t| t.name.as_str())
    }
    /// The sum of the node sizes.
    pub fn total_bytes(&self) -> u64 {
        self.node_size.iter().map(|&s| s as u64).sum()
    }
    /// The generation of node `n` from its address and the segments; `None` when either is missing.
    pub fn generation(&self, n: u32) -> Option<u8> {
        let a = *self.address.get(n as usize)?;
        self.segments.iter().find_map(|s| s.generation(a))
    }
    /// Whether generations can be told (the file stores segments and addresses).
    pub fn has_generations(&self) -> bool {
        !self.segments.is_empty() && self.address.len() == self.node_count()
    }

    /// Builds a graph from nodes given as (type, size, children); for tests and synthetic inputs.
    pub fn from_nodes(types: Vec<TypeEntry>, root: u32, nodes: &[(u32, u32, Vec<u32>)]) -> Self {
        let mut g = HeapGraph {
            types,
            root,
            ..Default::default()
        };
        g.edge_start.push(0);
        for (t, s, ch) in nodes {
            g.node_type.push(*t);
            g.node_size.push(*s);
            // A child outside the node list is dropped: every edge of a graph names a node.
            g.edges
                .extend(ch.iter().copied().filter(|&c| (c as usize) < nodes.len()));
            g.edge_start.push(g.edges.len() as u32);
        }
        g.undefined = alloc::vec![0; nodes.len().div_ceil(64)];
        g.stated_total_bytes = g.total_bytes() as i64;
        g
    }
}

/// The type every node of a graph with an empty type table counts as.
pub(super) fn undefined_type() -> TypeEntry {
    TypeEntry {
        name: String::from("UNDEFINED"),
        module: None,
        size: 0,
    }
}

/// Each type-table entry's group (entries that share a name are one group) and the group names,
/// in name order.
pub(super) fn group_types(types: &[TypeEntry]) -> (Vec<u32>, Vec<String>) {
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
