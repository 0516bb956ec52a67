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

use super::graph::{HeapGraph, SnapshotInfo};
use crate::clr::enums::{GcRootKind, GcType};
use crate::clr::gc::{BulkKind, GcBulk};
use crate::clr::{self, ClrEvent};
use crate::event::Event;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

mod assemble;
mod report;

pub use report::WalkReport;

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

#[cfg(test)]
mod tests;
