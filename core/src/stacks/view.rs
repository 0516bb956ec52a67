//! The stacks a user asks "who did this?" about, summed by stack and built into call trees.
//!
//! [`StackSamplesBuilder::on_event`] keeps one [`Sample`] per event of interest (an allocation
//! tick, a GC trigger, a pinned handle's creation), with its stack's table id, not its frames: 40
//! bytes a sample, besides the table's bytes per distinct stack ([`super`]), so a view can choose
//! its type and time range again without reading the trace again. A caller whose choice is known
//! before the read sums as it reads ([`StackSamplesBuilder::summing`]) and keeps 16 bytes per
//! distinct stack instead. A [`Selection`] picks
//! samples (which events, a type, a time range, a process) and [`StackSamples::sum`] sums them by
//! stack; [`CallTree::top_down`] and [`CallTree::bottom_up`] turn the sums into the tree a flame
//! graph or a call tree draws, each node with its inclusive and exclusive value. [`Frames`] names
//! each address ([`super::methods`]); [`folded`] writes Brendan Gregg's collapsed format.
//!
//! The value of a sample is its sampled bytes for an allocation tick (the bytes allocated since
//! the previous tick of its kind, which the tick stands for) and 1 for any other event.

use super::chunks::Chunks;
use super::methods::{Lookup, MethodMap, Unresolved};
use super::{StackTable, MISSING_STACK, NO_STACK};
use crate::clr::enums::{GcAllocationKind, GcReason};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

mod builder;
pub use builder::{interest, StackSamplesBuilder};

/// What a sample is of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SampleKind {
    /// A GCAllocationTick: the heap it allocated on, and its type (index into
    /// [`StackSamples::type_name`]; u32::MAX where the tick names none, before version 2).
    Alloc {
        kind: GcAllocationKind,
        type_index: u32,
    },
    /// A GCTriggered: the reason of the GC the allocation (or call) on this stack started.
    Triggered { reason: GcReason },
    /// A SetGCHandle of kind Pinned: where the handle was made.
    PinnedHandle,
}

/// One event's stack and value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub time_ms: f64,
    pub process_id: u32,
    /// The stack's id in the [`StackTable`] ([`NO_STACK`], [`MISSING_STACK`]).
    pub stack: u32,
    pub kind: SampleKind,
    /// Sampled bytes for an allocation, 1 otherwise.
    pub value: u64,
}

// The app's stacks worker keeps one per sampled event (docs/performance.md, "Stacks"): a field
// added here grows it by millions of times its size.
const _: () = assert!(core::mem::size_of::<Sample>() == 40);

/// Which samples to sum: the `gcscope stacks --event` choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Which {
    /// Allocation ticks, of every heap or one ([`GcAllocationKind`]).
    Alloc(Option<GcAllocationKind>),
    /// GCTriggered events whose reason is an induced one (`GC.Collect`, ...).
    Induced,
    /// Every GCTriggered.
    Triggered,
    /// SetGCHandle events of kind Pinned.
    PinnedHandles,
}

impl Which {
    /// The value's unit: "bytes" for allocations, "count" otherwise.
    pub fn unit(self) -> &'static str {
        match self {
            Which::Alloc(_) => "bytes",
            _ => "count",
        }
    }

    fn takes(self, k: &SampleKind) -> bool {
        match (self, k) {
            (Which::Alloc(None), SampleKind::Alloc { .. }) => true,
            (Which::Alloc(Some(want)), SampleKind::Alloc { kind, .. }) => *kind == want,
            (Which::Induced, SampleKind::Triggered { reason }) => reason.is_induced(),
            (Which::Triggered, SampleKind::Triggered { .. }) => true,
            (Which::PinnedHandles, SampleKind::PinnedHandle) => true,
            _ => false,
        }
    }
}

/// Which samples [`StackSamples::sum`] sums.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    pub which: Which,
    /// Allocations of this type only (its name as the tick gives it, exactly).
    pub type_name: Option<String>,
    /// Samples at or after this time (ms since the trace start).
    pub from_ms: Option<f64>,
    /// Samples at or before this time.
    pub to_ms: Option<f64>,
    pub process_id: Option<u32>,
}

impl Selection {
    pub fn new(which: Which) -> Self {
        Selection {
            which,
            type_name: None,
            from_ms: None,
            to_ms: None,
            process_id: None,
        }
    }
}

/// Events of interest whose payload does not fit its layout, and the like.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SampleStats {
    pub alloc_ticks: u64,
    pub triggered: u64,
    pub pinned_handles: u64,
    /// Events of the three kinds whose payload did not decode.
    pub bad_payloads: u64,
}

/// The samples of a trace, and the methods to name their frames.
#[derive(Debug, Default)]
pub struct StackSamples {
    /// In event order; in chunks, so that millions of them do not peak at three times their size
    /// while they are read.
    pub samples: Chunks<Sample>,
    types: Vec<String>,
    pub stats: SampleStats,
    pub methods: MethodMap,
}

/// One stack's share of a selection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct StackSum {
    /// The stack's table id.
    pub stack: u32,
    pub value: u64,
    pub count: u64,
}

/// A selection's samples summed by stack.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct StackSums {
    /// Largest value first; ties by stack id.
    pub stacks: Vec<StackSum>,
    pub total_value: u64,
    pub total_count: u64,
    /// Of the totals: samples whose event came without a stack (the runtime recorded none).
    pub no_stack: StackSum,
    /// Of the totals: samples whose stack id named no stack of the trace (a bad or lost
    /// StackBlock).
    pub missing_stack: StackSum,
}

impl StackSamples {
    /// The name of type `index` ([`SampleKind::Alloc::type_index`]).
    pub fn type_name(&self, index: u32) -> Option<&str> {
        self.types.get(index as usize).map(String::as_str)
    }

    /// Whether `s` is in `sel`.
    pub fn selects(&self, sel: &Selection, s: &Sample) -> bool {
        if !sel.which.takes(&s.kind)
            || sel.from_ms.is_some_and(|t| s.time_ms < t)
            || sel.to_ms.is_some_and(|t| s.time_ms > t)
            || sel.process_id.is_some_and(|p| s.process_id != p)
        {
            return false;
        }
        match (&sel.type_name, s.kind) {
            (Some(want), SampleKind::Alloc { type_index, .. }) => {
                self.type_name(type_index) == Some(want.as_str())
            }
            (Some(_), _) => false,
            (None, _) => true,
        }
    }

    /// The selected samples summed by stack.
    pub fn sum(&self, sel: &Selection) -> StackSums {
        let mut by_stack: Vec<(u64, u64)> = Vec::new();
        let mut partial = StackSums::default();
        for s in self.samples.iter().filter(|s| self.selects(sel, s)) {
            add(&mut partial, &mut by_stack, s.stack, s.value);
        }
        sorted(partial, by_stack)
    }
}

/// Adds a sample of `value` on `stack` to the totals and to its stack's sums.
///
/// The sums by stack are indexed by the stack's table id (the ids are dense, from 1), so a sample
/// costs an index, not a search: the CLI sums every allocation tick of a trace this way.
fn add(out: &mut StackSums, by_stack: &mut Vec<(u64, u64)>, stack: u32, value: u64) {
    out.total_value = out.total_value.saturating_add(value);
    out.total_count += 1;
    let slot = match stack {
        NO_STACK => &mut out.no_stack,
        MISSING_STACK => &mut out.missing_stack,
        id => {
            let i = id as usize;
            if i >= by_stack.len() {
                by_stack.resize(i + 1, (0, 0));
            }
            let e = &mut by_stack[i];
            e.0 = e.0.saturating_add(value);
            e.1 += 1;
            return;
        }
    };
    slot.value = slot.value.saturating_add(value);
    slot.count += 1;
}

/// The sums with the stacks' in order: largest value first, ties by stack id.
fn sorted(mut out: StackSums, by_stack: Vec<(u64, u64)>) -> StackSums {
    out.no_stack.stack = NO_STACK;
    out.missing_stack.stack = MISSING_STACK;
    out.stacks = by_stack
        .into_iter()
        .enumerate()
        .filter(|(_, (_, count))| *count > 0)
        .map(|(stack, (value, count))| StackSum {
            stack: stack as u32,
            value,
            count,
        })
        .collect();
    out.stacks
        .sort_by(|a, b| b.value.cmp(&a.value).then(a.stack.cmp(&b.stack)));
    out
}

/// One frame, named.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Frame {
    pub address: u64,
    /// TraceEvent's FullMethodName, where a method covers the address.
    pub method: Option<String>,
    pub module: Option<String>,
    /// Why no method covers it.
    pub unresolved: Option<Unresolved>,
    /// Where no method covers it but a native image of an .etl's kernel image events does: the
    /// address's offset in that image ([`MethodMap::image`]), whose name is `module`.
    pub offset: Option<u64>,
}

impl Frame {
    /// The frame's label in trees, folded stacks and speedscope: `module!method`, the method
    /// alone where no module event named its module, or the address in hex. `;` (folded's frame
    /// separator) becomes `:`.
    pub fn label(&self) -> String {
        let s = match (&self.method, &self.module) {
            (Some(m), Some(module)) => format!("{module}!{m}"),
            (Some(m), None) => m.clone(),
            (None, Some(module)) if self.offset.is_some() => {
                format!("{module}+0x{:x}", self.offset.unwrap_or(0))
            }
            (None, _) => format!("0x{:x}", self.address),
        };
        s.replace(';', ":")
    }
}

/// Names stacks' frames: the table's addresses, looked up in the methods.
pub struct Frames<'a> {
    pub table: &'a StackTable,
    pub methods: &'a MethodMap,
}

impl Frames<'_> {
    pub fn frame(&self, address: u64) -> Frame {
        match self.methods.lookup(address) {
            Lookup::Method { name, module } => Frame {
                address,
                method: Some(String::from(name)),
                module: module.map(String::from),
                unresolved: None,
                offset: None,
            },
            Lookup::Unresolved(why) => {
                let image = self.methods.image(address);
                Frame {
                    address,
                    method: None,
                    module: image.map(|(name, _)| String::from(name)),
                    unresolved: Some(why),
                    offset: image.map(|(_, off)| off),
                }
            }
        }
    }

    /// Stack `id`'s frames, leaf first (empty for an id the table does not hold).
    pub fn frames(&self, id: u32) -> Vec<Frame> {
        self.table
            .addresses(id)
            .unwrap_or(&[])
            .iter()
            .map(|&a| self.frame(a))
            .collect()
    }

    /// Stack `id`'s labels, leaf first.
    pub fn labels(&self, id: u32) -> Vec<String> {
        self.frames(id).iter().map(Frame::label).collect()
    }
}

/// The label of the frames of samples that came without a stack, in trees and folded stacks.
pub const NO_STACK_LABEL: &str = "[no stack recorded]";
/// The label of the frames of samples whose stack id named no stack.
pub const MISSING_STACK_LABEL: &str = "[stack missing from the trace]";

/// A node of a [`CallTree`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TreeNode {
    /// The frame's label ([`Frame::label`]); the root's is "all".
    pub label: String,
    /// Index of the parent node (None for the root).
    pub parent: Option<u32>,
    /// Largest inclusive value first; ties by label.
    pub children: Vec<u32>,
    /// Value of the samples whose stack passes through this node.
    pub inclusive: u64,
    /// Value of the samples whose stack ends at this node.
    pub exclusive: u64,
    /// Samples through this node.
    pub count: u64,
}

/// A call tree of a selection's sums: node 0 is the root.
///
/// Top-down, a root's child is an outermost frame (a thread's start) and a leaf's exclusive value
/// is what its method allocated (or triggered, or pinned) itself; bottom-up, the root's children
/// are the leaf methods, and a node's children are its callers. A sample without a stack, or with
/// a missing one, is one frame labelled [`NO_STACK_LABEL`] or [`MISSING_STACK_LABEL`], so the
/// root's inclusive value is the selection's whole value.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CallTree {
    pub nodes: Vec<TreeNode>,
}

impl CallTree {
    /// Callees under their callers, the outermost frame under the root.
    pub fn top_down(sums: &StackSums, frames: &Frames<'_>) -> CallTree {
        Self::build(sums, frames, true)
    }

    /// Callers under their callees, the leaf frames under the root.
    pub fn bottom_up(sums: &StackSums, frames: &Frames<'_>) -> CallTree {
        Self::build(sums, frames, false)
    }

    fn build(sums: &StackSums, frames: &Frames<'_>, root_first: bool) -> CallTree {
        let mut t = CallTree {
            nodes: alloc::vec![TreeNode {
                label: String::from("all"),
                parent: None,
                children: Vec::new(),
                inclusive: 0,
                exclusive: 0,
                count: 0,
            }],
        };
        let mut child: BTreeMap<(u32, String), u32> = BTreeMap::new();
        let mut add = |t: &mut CallTree, path: &[String], value: u64, count: u64| {
            let mut at = 0u32;
            t.nodes[0].inclusive = t.nodes[0].inclusive.saturating_add(value);
            t.nodes[0].count += count;
            for label in path {
                let key = (at, label.clone());
                let next = match child.get(&key) {
                    Some(&n) => n,
                    None => {
                        let n = t.nodes.len() as u32;
                        t.nodes.push(TreeNode {
                            label: label.clone(),
                            parent: Some(at),
                            children: Vec::new(),
                            inclusive: 0,
                            exclusive: 0,
                            count: 0,
                        });
                        t.nodes[at as usize].children.push(n);
                        child.insert(key, n);
                        n
                    }
                };
                let node = &mut t.nodes[next as usize];
                node.inclusive = node.inclusive.saturating_add(value);
                node.count += count;
                at = next;
            }
            let node = &mut t.nodes[at as usize];
            node.exclusive = node.exclusive.saturating_add(value);
        };
        for s in &sums.stacks {
            let mut labels = frames.labels(s.stack);
            if labels.is_empty() {
                labels.push(String::from(NO_STACK_LABEL));
            }
            if root_first {
                labels.reverse();
            }
            add(&mut t, &labels, s.value, s.count);
        }
        for (s, label) in [
            (&sums.no_stack, NO_STACK_LABEL),
            (&sums.missing_stack, MISSING_STACK_LABEL),
        ] {
            if s.count > 0 {
                add(&mut t, &[String::from(label)], s.value, s.count);
            }
        }
        // Deterministic order: largest first, ties by label.
        let order: Vec<(u64, String)> = t
            .nodes
            .iter()
            .map(|n| (n.inclusive, n.label.clone()))
            .collect();
        for n in &mut t.nodes {
            n.children.sort_by(|&a, &b| {
                let (va, la) = &order[a as usize];
                let (vb, lb) = &order[b as usize];
                vb.cmp(va).then(la.cmp(lb))
            });
        }
        t
    }
}

/// Brendan Gregg's collapsed stacks: one line per distinct stack, frames root first separated by
/// `;`, a space, the value; largest first (a stack's labels can repeat across ids, so lines with
/// equal frames are merged). Samples without a stack come as one frame
/// ([`NO_STACK_LABEL`], [`MISSING_STACK_LABEL`]).
pub fn folded(sums: &StackSums, frames: &Frames<'_>) -> String {
    let mut lines: BTreeMap<String, u64> = BTreeMap::new();
    for s in &sums.stacks {
        let mut labels = frames.labels(s.stack);
        if labels.is_empty() {
            labels.push(String::from(NO_STACK_LABEL));
        }
        labels.reverse();
        let e = lines.entry(labels.join(";")).or_insert(0);
        *e = e.saturating_add(s.value);
    }
    for (s, label) in [
        (&sums.no_stack, NO_STACK_LABEL),
        (&sums.missing_stack, MISSING_STACK_LABEL),
    ] {
        if s.count > 0 {
            let e = lines.entry(String::from(label)).or_insert(0);
            *e = e.saturating_add(s.value);
        }
    }
    let mut v: Vec<(String, u64)> = lines.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut out = String::new();
    for (stack, value) in v {
        out.push_str(&stack);
        out.push(' ');
        out.push_str(&format!("{value}"));
        out.push('\n');
    }
    out
}
