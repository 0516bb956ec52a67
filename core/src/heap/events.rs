//! A heap snapshot from the runtime's heap-walk events: the GCBulk* events an EventPipe or ETW
//! session with the GCHeapDump keyword gets during the blocking gen2 GC it induces, turned into the
//! same [`HeapGraph`] a `.gcdump` holds (the facts are in docs/reference/formats.md, "Heap walks in
//! event traces").
//!
//! The builder is fed one event at a time and keeps only what the walk's events carried (a node
//! in 20 bytes, an edge in 8, each from a payload element of at least as many bytes), so its memory
//! is bounded by the bytes read, never by a count an event claims. Nodes are matched to their edges
//! by order: node `i` of the walk owns the next `EdgeCount` edges of the walk's edge stream, which
//! is why a lost GCBulkNode or GCBulkEdge event (a gap in the events' `Index`) ends the edges that
//! can be told apart; everything after such a gap is reported, not guessed.

use super::graph::{HeapGraph, SnapshotInfo, TypeEntry};
use crate::clr::enums::{GcRootKind, GcType};
use crate::clr::gc::{BulkKind, GcBulk};
use crate::clr::{self, ClrEvent};
use crate::event::Event;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The root flag of a weak reference: not a root (GCBulkRootEdge's GCRootFlag).
const ROOT_FLAG_PINNING: u32 = 0x1;
const ROOT_FLAG_WEAK: u32 = 0x2;
const ROOT_FLAG_REF_COUNTED: u32 = 0x8;
/// BulkType's flag of an externally implemented COM object (an RCW's type).
const TYPE_FLAG_COM_OBJECT: u32 = 0x2;
/// BulkType's flag of an array type.
const TYPE_FLAG_ARRAY: u32 = 0x4;
/// GCBulkRootStaticVar's flag of a thread-static field.
const STATIC_FLAG_THREAD_LOCAL: u32 = 0x1;
/// The size dotnet-gcdump gives a COM-callable wrapper's node (it is not on the GC heap).
const CCW_NODE_SIZE: u32 = 200;
/// Malformed events whose description is kept (the rest are counted).
const KEEP_BAD: usize = 16;

/// Where the walk stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// No heap-walk event of the chosen GC seen yet.
    Idle,
    /// Between the walk's first event and its GC's end.
    Walking,
    /// The walk's GC ended: later heap-walk events belong to another walk.
    Done,
}

/// One GCBulkNode element, as kept until the walk ends.
#[derive(Debug, Clone, Copy)]
struct RawNode {
    address: u64,
    /// Index into `type_ids`.
    ty: u32,
    size: u32,
    edge_count: u32,
}

/// Which pseudo-node of the root tree a root goes under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum RootSlot {
    LocalVars,
    StrongHandles,
    PinningHandles,
    FinalizerHandles,
    OtherHandles,
    ComObjects,
    DependentHandles,
}

impl RootSlot {
    fn name(self) -> &'static str {
        match self {
            RootSlot::LocalVars => "[local vars]",
            RootSlot::StrongHandles => "[strong Handles]",
            RootSlot::PinningHandles => "[pinning Handles]",
            RootSlot::FinalizerHandles => "[finalizer Handles]",
            RootSlot::OtherHandles => "[other Handles]",
            RootSlot::ComObjects => "[COM/WinRT Objects]",
            RootSlot::DependentHandles => "[Dependent Handles]",
        }
    }
    /// Whether the slot hangs below `[other roots]` (the stack's roots hang below the root).
    fn under_other_roots(self) -> bool {
        self != RootSlot::LocalVars
    }
}

/// A static field holding an object.
#[derive(Debug, Clone)]
struct StaticRoot {
    type_id: u64,
    field: String,
    thread_local: bool,
    object: u64,
}

/// A COM-callable wrapper: a native object that keeps a managed one alive.
#[derive(Debug, Clone, Copy)]
struct Ccw {
    iunknown: u64,
    object: u64,
    type_id: u64,
}

/// A type's description from Type/BulkType.
#[derive(Debug, Clone)]
struct TypeInfo {
    name: String,
    flags: u32,
    type_name_id: u32,
}

/// What the walk's events said about themselves: how much came, what was lost or malformed.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct WalkReport {
    /// The number of the GC that made the walk (GCStart's Count), when its GCStart was seen.
    pub gc_number: Option<u32>,
    /// Whether the walk's GC ended in the trace (the walk is complete unless events were lost).
    pub ended: bool,
    pub node_events: u64,
    pub edge_events: u64,
    pub root_events: u64,
    pub type_events: u64,
    /// GCBulkNode / GCBulkEdge events missing by their `Index` (lost by the session).
    pub lost_node_events: u64,
    pub lost_edge_events: u64,
    /// Edges that could not be given to a node: after a lost event, or beyond the nodes' counts.
    pub unattached_edges: u64,
    /// Edges the nodes claim that never came.
    pub missing_edges: u64,
    /// Heap-walk events of the process after the walk's GC ended (another walk), not used.
    pub later_walk_events: u64,
    /// Nodes whose address an earlier node of the walk already had (kept once).
    pub duplicate_nodes: u64,
    /// Node types no BulkType event named (named `Type(0x...)`).
    pub unnamed_types: u64,
    /// Events whose payload does not fit its layout, and the first few of them described.
    pub bad_events: u64,
    pub bad: Vec<String>,
}

impl WalkReport {
    /// What makes the graph incomplete or suspect, for the user; empty for a clean walk.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if !self.ended {
            w.push(String::from(
                "the trace ends before the heap walk's GC does: the walk can be cut short",
            ));
        }
        if self.lost_node_events + self.lost_edge_events > 0 {
            w.push(format!(
                "the session lost {} GCBulkNode and {} GCBulkEdge events: the objects after the \
                 first loss have no references",
                self.lost_node_events, self.lost_edge_events
            ));
        }
        if self.unattached_edges > 0 {
            w.push(format!(
                "{} references could not be matched to their objects",
                self.unattached_edges
            ));
        }
        if self.missing_edges > 0 {
            w.push(format!(
                "the objects claim {} references that never came",
                self.missing_edges
            ));
        }
        if self.duplicate_nodes > 0 {
            w.push(format!(
                "{} objects were reported twice; the first report is kept",
                self.duplicate_nodes
            ));
        }
        if self.unnamed_types > 0 {
            w.push(format!(
                "{} types have no BulkType event naming them (shown as Type(0x...))",
                self.unnamed_types
            ));
        }
        if self.later_walk_events > 0 {
            w.push(format!(
                "{} heap-walk events of a later walk are left out (the first walk is read)",
                self.later_walk_events
            ));
        }
        if self.bad_events > 0 {
            let mut s = format!(
                "{} heap-walk events are malformed and left out",
                self.bad_events
            );
            if let Some(first) = self.bad.first() {
                s.push_str(": ");
                s.push_str(first);
            }
            w.push(s);
        }
        w
    }
}

/// A heap snapshot built from a trace's heap walk.
#[derive(Debug, Clone)]
pub struct HeapWalk {
    pub graph: HeapGraph,
    pub report: WalkReport,
}

/// Builds the heap graph from a trace's events; see the module's documentation.
#[derive(Debug, Default)]
pub struct HeapWalkBuilder {
    state: Option<State>,
    /// The process whose walk is read (the first to walk, in a machine-wide trace).
    process_id: Option<u32>,
    pointer_size: u8,
    /// A blocking gen2 GC in progress: a walk's candidate.
    candidate_gc: Option<u32>,
    types: BTreeMap<u64, TypeInfo>,
    /// The node types by first use; a node's `ty` indexes this.
    type_ids: Vec<u64>,
    type_index: BTreeMap<u64, u32>,
    nodes: Vec<RawNode>,
    edges: Vec<u64>,
    /// Edges [0, this) are matched to nodes in order; set at the first lost node or edge event.
    aligned_edges: Option<u64>,
    /// The sum of the edge counts of the nodes so far.
    claimed_edges: u64,
    next_node_index: u32,
    next_edge_index: u32,
    roots: Vec<(RootSlot, u64)>,
    statics: Vec<StaticRoot>,
    ccws: Vec<Ccw>,
    rcws: Vec<(u64, u64)>,
    report: WalkReport,
    events_seen: u64,
}

impl HeapWalkBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the walk's GC has ended (a live session can stop).
    pub fn walk_ended(&self) -> bool {
        self.state == Some(State::Done)
    }

    /// Whether any event of a heap walk has come.
    pub fn walk_started(&self) -> bool {
        matches!(self.state, Some(State::Walking | State::Done))
    }

    /// Nodes received so far.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Feeds one event; events of other providers and other processes are ignored.
    pub fn on_event(&mut self, ev: &Event<'_>) {
        self.events_seen += 1;
        if ev.provider != clr::names::RUNTIME_PROVIDER {
            return;
        }
        if let Some(p) = self.process_id {
            if ev.process_id != p {
                return;
            }
        }
        let Some(decoded) = clr::decode(ev) else {
            return;
        };
        let state = self.state.unwrap_or(State::Idle);
        let e = match decoded {
            Ok(e) => e,
            Err(err) => {
                if is_walk_event(ev.event_id) && state != State::Done {
                    // A malformed GCBulk event is still a walk's: it starts one.
                    if ev.event_id != clr::ids::runtime::BULK_TYPE && state == State::Idle {
                        self.begin(ev);
                    }
                    self.bad(ev, &format!("{err}"));
                }
                return;
            }
        };
        match e {
            // A blocking gen2 GC: the kind a heap walk follows.
            ClrEvent::GcStart(s)
                if state == State::Idle
                    && s.depth == Some(2)
                    && s.gc_type != Some(GcType::Background) =>
            {
                self.candidate_gc = Some(s.count);
            }
            ClrEvent::GcEnd(end) => {
                if state == State::Walking && self.report.gc_number.is_none_or(|n| n == end.count) {
                    self.state = Some(State::Done);
                    self.report.ended = true;
                } else if self.candidate_gc == Some(end.count) {
                    self.candidate_gc = None;
                }
            }
            ClrEvent::BulkType(t) => {
                // Types come whenever a type is first logged, in the walk or before it.
                self.report.type_events += 1;
                for d in t.types() {
                    self.types.entry(d.type_id).or_insert_with(|| TypeInfo {
                        name: d.name.to_string_lossy(),
                        flags: d.flags,
                        type_name_id: d.type_name_id,
                    });
                }
            }
            ClrEvent::GcBulk(b) => self.on_bulk(ev, &b),
            _ => {}
        }
    }

    /// The walk's first event: the walk is the open candidate GC's, and of this event's process.
    fn begin(&mut self, ev: &Event<'_>) {
        self.state = Some(State::Walking);
        self.report.gc_number = self.candidate_gc;
        self.process_id = Some(ev.process_id);
        self.pointer_size = ev.pointer_size;
    }

    fn bad(&mut self, ev: &Event<'_>, what: &str) {
        self.report.bad_events += 1;
        if self.report.bad.len() < KEEP_BAD {
            self.report.bad.push(format!(
                "event {} ({}, {:.3} ms): {what}",
                self.events_seen, ev.name, ev.time_ms
            ));
        }
    }

    fn on_bulk(&mut self, ev: &Event<'_>, b: &GcBulk<'_>) {
        if matches!(
            b.kind,
            BulkKind::SurvivingObjectRanges | BulkKind::MovedObjectRanges
        ) {
            return;
        }
        match self.state.unwrap_or(State::Idle) {
            State::Done => {
                self.report.later_walk_events += 1;
                return;
            }
            State::Idle => self.begin(ev),
            State::Walking => {}
        }
        // Elements are read until the first that does not fit; a count past the payload's bytes
        // is a malformed event (its whole elements are still used).
        let stride = b.kind.stride(ev.pointer_size);
        let fits = match stride {
            Some(s) => (b.count as usize).saturating_mul(s) <= b.values.len(),
            None => true,
        };
        let mut got = 0u64;
        match b.kind {
            BulkKind::Node => {
                self.report.node_events += 1;
                self.check_index(b.index, true);
                for n in b.nodes() {
                    got += 1;
                    self.add_node(n.address, n.size, n.type_id, n.edge_count);
                }
            }
            BulkKind::Edge => {
                self.report.edge_events += 1;
                self.check_index(b.index, false);
                for e in b.edges() {
                    got += 1;
                    self.edges.push(e.value);
                }
            }
            BulkKind::RootEdge => {
                self.report.root_events += 1;
                for r in b.root_edges() {
                    got += 1;
                    if r.root_flags & ROOT_FLAG_WEAK != 0 || r.rooted_node_address == 0 {
                        continue;
                    }
                    let slot = if r.root_kind == GcRootKind::Stack {
                        RootSlot::LocalVars
                    } else if r.root_flags & ROOT_FLAG_REF_COUNTED != 0 {
                        RootSlot::ComObjects
                    } else if r.root_kind == GcRootKind::Finalizer {
                        RootSlot::FinalizerHandles
                    } else if r.root_kind == GcRootKind::Handle {
                        if r.root_flags == ROOT_FLAG_PINNING {
                            RootSlot::PinningHandles
                        } else {
                            RootSlot::StrongHandles
                        }
                    } else {
                        RootSlot::OtherHandles
                    };
                    self.roots.push((slot, r.rooted_node_address));
                }
            }
            BulkKind::RootConditionalWeakTableElementEdge => {
                self.report.root_events += 1;
                for c in b.cwt_edges() {
                    got += 1;
                    // The value is alive only while the key is: a dead key roots nothing.
                    if c.key_node_id != 0 && c.value_node_id != 0 {
                        self.roots
                            .push((RootSlot::DependentHandles, c.value_node_id));
                    }
                }
            }
            BulkKind::RootStaticVar => {
                self.report.root_events += 1;
                for s in b.static_vars() {
                    got += 1;
                    if s.object_id == 0 {
                        continue;
                    }
                    self.statics.push(StaticRoot {
                        type_id: s.type_id,
                        field: s.field_name.to_string_lossy(),
                        thread_local: s.flags & STATIC_FLAG_THREAD_LOCAL != 0,
                        object: s.object_id,
                    });
                }
            }
            BulkKind::RootCcw => {
                self.report.root_events += 1;
                for c in b.root_ccws() {
                    got += 1;
                    // A wrapper whose IUnknown is not set yet has no node of its own.
                    if c.iunknown != 0 {
                        self.ccws.push(Ccw {
                            iunknown: c.iunknown,
                            object: c.object_id,
                            type_id: c.type_id,
                        });
                    }
                }
            }
            BulkKind::Rcw => {
                self.report.root_events += 1;
                for r in b.rcws() {
                    got += 1;
                    self.rcws.push((r.object_id, r.iunknown));
                }
            }
            BulkKind::SurvivingObjectRanges | BulkKind::MovedObjectRanges => {}
        }
        if !fits || got != u64::from(b.count) {
            self.bad(
                ev,
                &format!(
                    "payload byte {}: {} elements claimed, {got} fit in the {} bytes",
                    b.kind.header_len(),
                    b.count,
                    b.values.len()
                ),
            );
        }
    }

    /// Checks a GCBulkNode / GCBulkEdge event's `Index` (0, 1, 2... within a walk): a gap is a
    /// lost event, after which the edges can no longer be matched to their nodes.
    fn check_index(&mut self, index: Option<u32>, node: bool) {
        let Some(i) = index else { return };
        let next = if node {
            &mut self.next_node_index
        } else {
            &mut self.next_edge_index
        };
        if i > *next {
            let lost = u64::from(i - *next);
            if node {
                self.report.lost_node_events += lost;
                // The lost nodes' edges are somewhere after those of the nodes kept so far.
                let at = self.claimed_edges;
                self.aligned_edges = Some(self.aligned_edges.map_or(at, |a| a.min(at)));
            } else {
                self.report.lost_edge_events += lost;
                let at = self.edges.len() as u64;
                self.aligned_edges = Some(self.aligned_edges.map_or(at, |a| a.min(at)));
            }
        }
        *next = i.saturating_add(1).max(*next);
    }

    fn add_node(&mut self, address: u64, size: u64, type_id: u64, edge_count: u64) {
        let ty = match self.type_index.get(&type_id) {
            Some(&t) => t,
            None => {
                let t = self.type_ids.len() as u32;
                self.type_ids.push(type_id);
                self.type_index.insert(type_id, t);
                t
            }
        };
        self.claimed_edges = self.claimed_edges.saturating_add(edge_count);
        self.nodes.push(RawNode {
            address,
            ty,
            size: size.min(u64::from(u32::MAX)) as u32,
            edge_count: edge_count.min(u64::from(u32::MAX)) as u32,
        });
    }

    /// The graph of the walk, with the report; `None` when the events hold no heap walk.
    pub fn finish(self, info: SnapshotInfo) -> Option<HeapWalk> {
        if !self.walk_started() {
            return None;
        }
        Some(self.build(info))
    }

    fn build(mut self, info: SnapshotInfo) -> HeapWalk {
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

/// Whether `id` is one of the runtime's heap-walk event ids.
fn is_walk_event(id: u32) -> bool {
    use clr::ids::runtime::*;
    matches!(
        id,
        BULK_TYPE
            | GC_BULK_ROOT_EDGE
            | GC_BULK_ROOT_CWT_ELEMENT_EDGE
            | GC_BULK_NODE
            | GC_BULK_EDGE
            | GC_BULK_ROOT_CCW
            | GC_BULK_RCW
            | GC_BULK_ROOT_STATIC_VAR
    )
}

/// A type's display name as dotnet-gcdump writes it: generic arity marks dropped and the
/// runtime's `[...]` type arguments in `<...>` (an array's `[]` stays); an RCW's type marked.
fn type_name(t: &TypeInfo) -> String {
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

#[cfg(test)]
mod tests;
