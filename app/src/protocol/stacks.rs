//! The Stacks tab's messages: what the page asks the stacks worker (a selection of the trace's
//! sampled events, and the call tree's direction), and the call tree it gets back.
//!
//! The worker keeps the samples and the stacks (`worker::stacks`); the page receives only the
//! tree of the current selection, pruned to [`MAX_NODES`] nodes, so a reply is bounded whatever
//! the trace holds (docs/design/app.md, "The Stacks tab").

use serde::{Deserialize, Serialize};

/// Most nodes a reply holds: the largest (by inclusive value) first, every node's parent kept.
pub const MAX_NODES: usize = 2000;

/// Which heap's allocation ticks: the `?sheap=` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Heap {
    #[default]
    All,
    Soh,
    Loh,
    Poh,
}

impl Heap {
    pub const ALL: [Heap; 4] = [Heap::All, Heap::Soh, Heap::Loh, Heap::Poh];

    /// The address bar's word (`?sheap=`) and the CLI's `--event` for it.
    pub fn key(self) -> &'static str {
        match self {
            Heap::All => "all",
            Heap::Soh => "soh",
            Heap::Loh => "loh",
            Heap::Poh => "poh",
        }
    }

    pub fn from_key(k: &str) -> Option<Heap> {
        Heap::ALL.into_iter().find(|h| h.key() == k)
    }

    pub fn label(self) -> &'static str {
        match self {
            Heap::All => "All heaps",
            Heap::Soh => "Small (SOH)",
            Heap::Loh => "Large (LOH)",
            Heap::Poh => "Pinned (POH)",
        }
    }
}

/// Which events' stacks: the `?sevent=` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum StackEvent {
    /// Allocation ticks (of [`StacksRequest::heap`]): sampled bytes.
    #[default]
    Alloc,
    /// GCTriggered of induced GCs: who called `GC.Collect`. A count.
    Induced,
    /// Every GCTriggered: the allocation or call that started each GC. A count.
    Triggered,
    /// SetGCHandle of kind Pinned: where pinned handles were made. A count.
    Pinned,
}

impl StackEvent {
    pub const ALL: [StackEvent; 4] = [
        StackEvent::Alloc,
        StackEvent::Induced,
        StackEvent::Triggered,
        StackEvent::Pinned,
    ];

    /// The address bar's word (`?sevent=`).
    pub fn key(self) -> &'static str {
        match self {
            StackEvent::Alloc => "alloc",
            StackEvent::Induced => "induced",
            StackEvent::Triggered => "triggered",
            StackEvent::Pinned => "pinned",
        }
    }

    pub fn from_key(k: &str) -> Option<StackEvent> {
        StackEvent::ALL.into_iter().find(|h| h.key() == k)
    }

    pub fn label(self) -> &'static str {
        match self {
            StackEvent::Alloc => "Allocations (sampled bytes)",
            StackEvent::Induced => "Induced GCs (callers of GC.Collect)",
            StackEvent::Triggered => "GC triggers (what started each GC)",
            StackEvent::Pinned => "Pinned handles (where they were made)",
        }
    }

    /// The value is sampled bytes (allocations) or a count of events.
    pub fn bytes(self) -> bool {
        self == StackEvent::Alloc
    }

    /// What one event is called in the totals.
    pub fn events(self) -> &'static str {
        match self {
            StackEvent::Alloc => "ticks",
            StackEvent::Induced | StackEvent::Triggered => "GCs",
            StackEvent::Pinned => "handles",
        }
    }
}

/// The GCTriggered that started a GC: asked by the GC detail panel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TriggerAsk {
    /// The GC's number (the answer names it).
    pub gc: u32,
    /// The GC's GCStart: the trigger is the last GCTriggered at or before it...
    pub start_ms: f64,
    /// ...and after the previous GC's GCStart (None: the first GC).
    pub after_ms: Option<f64>,
}

/// What the runtime recorded of the GCTriggered that started a GC.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TriggerStack {
    pub gc: u32,
    /// Distinct stacks in the trace (0: it has none).
    pub trace_stacks: u64,
    /// The GCTriggered found (None: none between the previous GC's start and this one's).
    pub time_ms: Option<f64>,
    /// It came without a stack, or with a stack id the trace lacks.
    pub no_stack: bool,
    /// Leaf first (`module!method` or the address in hex).
    pub frames: Vec<String>,
    /// Each reason a frame stayed unnamed.
    pub unresolved: Vec<String>,
    /// Reading the file failed (after what it read).
    pub error: Option<String>,
}

/// The caller of each GC's trigger (the GC table's Caller column), asked once for every GC.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CallersAsk {
    /// Each GC's number and GCStart time, in any order.
    pub gcs: Vec<(u32, f64)>,
}

/// A GC's trigger caller, or why it has none.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum CallerOf {
    /// `caller` and `leaf` index [`Callers::labels`]; `reason` indexes [`Callers::reasons`] where
    /// the caller frame stayed unnamed; `at_ms` is the GCTriggered's time.
    Frame {
        caller: u32,
        leaf: u32,
        reason: Option<u32>,
        at_ms: f64,
    },
    /// No GCTriggered between the previous GC's start and this one's.
    NoTrigger,
    /// The GCTriggered came without a stack (or with one the trace lacks, or with no frames).
    NoStack,
}

/// The stacks worker's answer to a [`CallersAsk`]: labels and reasons once each, so 100,000 GCs
/// of a few call sites cost a few bytes a GC.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Callers {
    /// Distinct stacks in the trace (0: it has none).
    pub trace_stacks: u64,
    /// Distinct frame labels (callers and leaves).
    pub labels: Vec<String>,
    /// Distinct reasons a caller frame stayed unnamed.
    pub reasons: Vec<String>,
    /// Each asked GC's number and its caller, in the order asked.
    pub gcs: Vec<(u32, CallerOf)>,
    /// Reading the file failed (after what it read).
    pub error: Option<String>,
}

/// What the page asks for.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StacksRequest {
    /// Which events' stacks ([`Self::heap`] and [`Self::type_name`] apply to allocations).
    pub event: StackEvent,
    pub heap: Heap,
    /// Allocations of this type only.
    pub type_name: Option<String>,
    pub from_ms: Option<f64>,
    pub to_ms: Option<f64>,
    /// Callers under their callees (leaf methods at the root) instead of callees under callers.
    pub bottom_up: bool,
    /// Instead of the tree: the whole selection as an export (`Export`).
    pub export: Option<ExportKind>,
    /// Instead of the tree: the stack of the GCTriggered of one GC ([`TriggerStack`]).
    pub trigger: Option<TriggerAsk>,
    /// Instead of the tree: every GC's trigger caller ([`Callers`]).
    pub callers: Option<CallersAsk>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExportKind {
    /// Brendan Gregg's collapsed stacks.
    Folded,
    /// speedscope's JSON file format.
    Speedscope,
}

/// One node of the call tree, as the page draws it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// `module!method`, or the address in hex.
    pub label: String,
    /// Index of the parent in [`StackTree::nodes`] (None: the root, node 0).
    pub parent: Option<u32>,
    /// Largest first.
    pub children: Vec<u32>,
    pub inclusive: u64,
    pub exclusive: u64,
    pub count: u64,
}

/// The stacks worker's answer to a [`StacksRequest`] without an export.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StackTree {
    /// Distinct stacks in the trace (0: it has none).
    pub trace_stacks: u64,
    /// Allocation ticks in the trace, any heap, any time.
    pub alloc_ticks: u64,
    /// GCTriggered events in the trace, and of them the induced GCs'.
    pub triggered: u64,
    pub induced: u64,
    /// SetGCHandle events of kind Pinned in the trace.
    pub pinned_handles: u64,
    /// For pinned handles: the leaf frame of the largest stack, above which the runtime recorded
    /// nothing (`GCHandle.Alloc`'s fast path pushes no frame).
    pub cut_short_above: Option<String>,
    /// The findings' stacks (the induced GCs' callers, the LOH allocations', the pinned
    /// handles' creators), for the Findings panel, Pinning and the report.
    pub findings: Option<gcscope_core::findings::stacks::FindingStacks>,
    /// Method events the trace holds (JIT loads and rundown).
    pub jit_loads: u64,
    pub rundown_methods: u64,
    /// Node 0 is the root ("all"); nodes past [`MAX_NODES`] are left out, their value still
    /// counted in their ancestors' inclusive values.
    pub nodes: Vec<Node>,
    /// Nodes of the whole tree (the reply's may be fewer).
    pub all_nodes: u64,
    pub total_value: u64,
    pub total_count: u64,
    /// Ticks of the selection that came without a stack, or whose stack is missing.
    pub no_stack: u64,
    pub missing_stack: u64,
    /// Each reason an address of the selection stayed unnamed, with an example address.
    pub unresolved: Vec<(String, String)>,
    /// The trace's allocated types, largest sampled bytes first (for the type picker), at most
    /// 200.
    pub types: Vec<String>,
    /// The request this answers.
    pub request: StacksRequest,
    /// Reading the file failed (after what it read).
    pub error: Option<String>,
    /// Set by the page, never by the worker: why the stacks come later (a live session's are
    /// read from its trace once the session ends).
    pub later: Option<String>,
}

/// An export: its file name and text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Export {
    pub file_name: String,
    pub mime: String,
    pub text: String,
}

/// Keeps the largest `max` nodes of a tree (by inclusive value; every kept node's ancestors are
/// larger or equal, so they are kept too) and renumbers them, children in their order.
pub fn prune(nodes: Vec<Node>, max: usize) -> Vec<Node> {
    if nodes.len() <= max {
        return nodes;
    }
    // Breadth first from the root, largest child first, so a parent comes before its children
    // and the kept set is closed under parents.
    let mut order: Vec<u32> = Vec::with_capacity(max);
    let mut heap = std::collections::BinaryHeap::new();
    heap.push((nodes[0].inclusive, std::cmp::Reverse(0u32)));
    while let Some((_, std::cmp::Reverse(i))) = heap.pop() {
        if order.len() == max {
            break;
        }
        order.push(i);
        for &c in &nodes[i as usize].children {
            heap.push((nodes[c as usize].inclusive, std::cmp::Reverse(c)));
        }
    }
    let mut new_index = vec![u32::MAX; nodes.len()];
    for (n, &i) in order.iter().enumerate() {
        new_index[i as usize] = n as u32;
    }
    order
        .iter()
        .map(|&i| {
            let n = &nodes[i as usize];
            Node {
                label: n.label.clone(),
                parent: n.parent.map(|p| new_index[p as usize]),
                children: n
                    .children
                    .iter()
                    .map(|&c| new_index[c as usize])
                    .filter(|&c| c != u32::MAX)
                    .collect(),
                inclusive: n.inclusive,
                exclusive: n.exclusive,
                count: n.count,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(label: &str, parent: Option<u32>, children: Vec<u32>, inclusive: u64) -> Node {
        Node {
            label: label.into(),
            parent,
            children,
            inclusive,
            exclusive: 0,
            count: 1,
        }
    }

    /// The callers' request and answer stay a few bytes a GC (docs/design/app.md).
    #[test]
    fn callers_cost_a_few_bytes_a_gc() {
        let n = 100_000u32;
        let ask = CallersAsk {
            gcs: (1..=n).map(|g| (g, g as f64 * 12.345)).collect(),
        };
        let ask_len = crate::protocol::wire::encoded_len(&ask).unwrap();
        let answer = Callers {
            trace_stacks: 3,
            labels: vec!["Workloads!Rt.CallGC(class System.String)".into(); 3],
            gcs: (1..=n)
                .map(|g| {
                    let of = CallerOf::Frame {
                        caller: g % 3,
                        leaf: 2,
                        reason: None,
                        at_ms: g as f64,
                    };
                    (g, of)
                })
                .collect(),
            ..Default::default()
        };
        let answer_len = crate::protocol::wire::encoded_len(&answer).unwrap();
        assert!(ask_len <= 11 * n as usize + 8, "{ask_len}");
        assert!(answer_len <= 15 * n as usize + 1000, "{answer_len}");
    }

    #[test]
    fn pruning_keeps_the_largest_nodes_and_their_parents() {
        // all(100) -> a(60) -> a1(50), a2(10); b(40) -> b1(40)
        let nodes = vec![
            node("all", None, vec![1, 4], 100),
            node("a", Some(0), vec![2, 3], 60),
            node("a1", Some(1), vec![], 50),
            node("a2", Some(1), vec![], 10),
            node("b", Some(0), vec![5], 40),
            node("b1", Some(4), vec![], 40),
        ];
        let p = prune(nodes.clone(), 4);
        let labels: Vec<&str> = p.iter().map(|n| n.label.as_str()).collect();
        assert_eq!(labels, ["all", "a", "a1", "b"]);
        assert_eq!(p[0].children, [1, 3]);
        assert_eq!(p[1].children, [2]);
        assert_eq!(p[3].parent, Some(0));
        assert!(p[3].children.is_empty());
        assert_eq!(prune(nodes.clone(), 10), nodes);
    }
}
