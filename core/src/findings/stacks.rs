//! The call stacks a finding's evidence lists ([`Evidence::stacks`]): the induced GCs' callers
//! (`induced`), the top LOH allocation stacks (`loh-triggered-gen2`, `loh-alloc-waits`) and where
//! pinned handles were made (`pinning`).
//!
//! The rules read the GC model, which holds no stacks; the stacks come from a read of the trace
//! for them ([`crate::stacks::view::StackSamplesBuilder`], [`crate::Consumer::Stacks`]). A caller
//! reads them only when [`wanted`] says a finding of its report lists them, so a report without
//! those findings (and every view that shows none) costs no stack read; [`FindingStacks::attach`]
//! then fills the findings' evidence.
//!
//! [`Evidence::stacks`]: super::Evidence::stacks

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::rules::{INDUCED, LOH_ALLOC_WAITS, LOH_TRIGGERED_GEN2, PINNING};
use super::types::Report;
pub use super::types::{EvidenceStack, StackEvidence};
use crate::clr::enums::GcAllocationKind;
use crate::stacks::view::{Frame, Frames, Selection, StackSamples, Which};

pub use super::types::TOP_STACKS;

/// What a finding's stacks are of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// GCTriggered of induced GCs: who called `GC.Collect`.
    Induced,
    /// Allocation ticks on the large object heap.
    Loh,
    /// SetGCHandle of kind Pinned.
    PinnedHandles,
}

impl Topic {
    pub const ALL: [Topic; 3] = [Topic::Induced, Topic::Loh, Topic::PinnedHandles];

    /// The stacks' selection.
    pub fn which(self) -> Which {
        match self {
            Topic::Induced => Which::Induced,
            Topic::Loh => Which::Alloc(Some(GcAllocationKind::Large)),
            Topic::PinnedHandles => Which::PinnedHandles,
        }
    }

    /// `gcscope stacks --event` for it.
    pub fn event(self) -> &'static str {
        match self {
            Topic::Induced => "induced",
            Topic::Loh => "alloc-loh",
            Topic::PinnedHandles => "pinned-handles",
        }
    }

    /// The topic of a rule's stacks (None: its findings list none).
    pub fn for_rule(rule: &str) -> Option<Topic> {
        if rule == INDUCED.id {
            Some(Topic::Induced)
        } else if rule == LOH_TRIGGERED_GEN2.id || rule == LOH_ALLOC_WAITS.id {
            Some(Topic::Loh)
        } else if rule == PINNING.id {
            Some(Topic::PinnedHandles)
        } else {
            None
        }
    }
}

/// Whether a finding of `report` lists stacks: only then is reading them worth it.
pub fn wanted(report: &Report) -> bool {
    report
        .findings
        .iter()
        .any(|f| Topic::for_rule(&f.rule).is_some())
}

/// The note of a stack of `topic` whose leaf frame is `leaf`.
pub fn cut_short_note(topic: Topic, leaf: Option<&Frame>) -> Option<String> {
    match (topic, leaf) {
        (Topic::PinnedHandles, Some(leaf)) => Some(format!(
            "the runtime recorded no frames above {}",
            leaf.label()
        )),
        _ => None,
    }
}

/// The evidence of `topic`: the selection's stacks (of one process, or every one), grouped by
/// their frames' labels, the largest [`TOP_STACKS`].
pub fn evidence(
    topic: Topic,
    samples: &StackSamples,
    frames: &Frames<'_>,
    process_id: Option<u32>,
) -> StackEvidence {
    let which = topic.which();
    let mut sel = Selection::new(which);
    sel.process_id = process_id;
    let sums = samples.sum(&sel);
    // Stacks at other call sites of the same methods are one stack here, as in `gcscope stacks`.
    let mut grouped: Vec<(Vec<Frame>, u64, u64)> = Vec::new();
    let mut at: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    for st in &sums.stacks {
        let fs = frames.frames(st.stack);
        let key: Vec<String> = fs.iter().map(Frame::label).collect();
        match at.get(&key) {
            Some(&i) => {
                grouped[i].1 = grouped[i].1.saturating_add(st.value);
                grouped[i].2 += st.count;
            }
            None => {
                at.insert(key, grouped.len());
                grouped.push((fs, st.value, st.count));
            }
        }
    }
    grouped.sort_by_key(|g| core::cmp::Reverse(g.1));
    let distinct = grouped.len() as u64;
    let top = grouped
        .into_iter()
        .take(TOP_STACKS)
        .map(|(fs, value, count)| EvidenceStack {
            value,
            count,
            note: cut_short_note(topic, fs.first()),
            frames: fs.iter().map(Frame::label).collect(),
        })
        .collect();
    StackEvidence {
        event: Cow::Borrowed(topic.event()),
        unit: Cow::Borrowed(which.unit()),
        total_value: sums.total_value,
        total_count: sums.total_count,
        no_stack: sums.no_stack.count,
        missing_stack: sums.missing_stack.count,
        distinct,
        top,
        trace_stacks: frames.table.len() as u64,
    }
}

/// The evidence of every topic, as the page's stacks worker sends it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindingStacks {
    pub induced: StackEvidence,
    pub loh: StackEvidence,
    pub pinned_handles: StackEvidence,
}

impl FindingStacks {
    /// The three topics' evidence of the samples (of one process, or every one).
    pub fn read(samples: &StackSamples, frames: &Frames<'_>, process_id: Option<u32>) -> Self {
        FindingStacks {
            induced: evidence(Topic::Induced, samples, frames, process_id),
            loh: evidence(Topic::Loh, samples, frames, process_id),
            pinned_handles: evidence(Topic::PinnedHandles, samples, frames, process_id),
        }
    }

    pub fn get(&self, topic: Topic) -> &StackEvidence {
        match topic {
            Topic::Induced => &self.induced,
            Topic::Loh => &self.loh,
            Topic::PinnedHandles => &self.pinned_handles,
        }
    }

    /// Fills the stacks of the report's findings that list them.
    pub fn attach(&self, report: &mut Report) {
        for f in &mut report.findings {
            if let Some(t) = Topic::for_rule(&f.rule) {
                f.evidence.stacks = Some(self.get(t).clone());
            }
        }
    }
}
