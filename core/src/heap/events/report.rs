//! What a heap walk's events said about themselves ([`WalkReport`]).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

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
