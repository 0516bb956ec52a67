//! What the page holds of a `.gcdump` heap snapshot: the heap worker's answers
//! (`protocol::heap`), written by `loader::heap` and read by the Heap tab. The graph itself stays
//! in the worker.

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;

use crate::protocol::heap::{HeapDiff, HeapSummary, Paths, TreeNode};

/// One level of the dominator tree, as the worker answered it.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    pub nodes: Vec<TreeNode>,
    /// Children left out (the smallest).
    pub more: u64,
}

#[derive(Clone, Copy)]
pub struct HeapState {
    /// The snapshot open (its file name), from the moment it is known to be one.
    pub open: RwSignal<Option<String>>,
    /// Its summary, once read.
    pub summary: RwSignal<Option<Arc<HeapSummary>>>,
    /// Why it could not be read.
    pub error: RwSignal<Option<String>>,
    /// The dominator-tree levels answered so far, by the node whose children they are.
    pub levels: RwSignal<BTreeMap<u32, Arc<Level>>>,
    /// The paths of the type last asked for.
    pub paths: RwSignal<Option<Arc<Paths>>>,
    /// The difference with a second snapshot, its file name while it is read, and its error.
    pub diff: RwSignal<Option<Arc<HeapDiff>>>,
    pub diff_loading: RwSignal<Option<String>>,
    pub diff_error: RwSignal<Option<String>>,
    /// When the snapshot was opened (ms, `Date.now`), and how long after it each stage of its
    /// summary came (`HeapStage` order: types, retained, complete).
    pub opened_at: RwSignal<f64>,
    pub shown_ms: RwSignal<[Option<f64>; 3]>,
}

impl HeapState {
    pub fn new() -> HeapState {
        HeapState {
            open: RwSignal::new(None),
            summary: RwSignal::new(None),
            error: RwSignal::new(None),
            levels: RwSignal::new(BTreeMap::new()),
            paths: RwSignal::new(None),
            diff: RwSignal::new(None),
            diff_loading: RwSignal::new(None),
            diff_error: RwSignal::new(None),
            opened_at: RwSignal::new(0.0),
            shown_ms: RwSignal::new([None; 3]),
        }
    }

    /// Forgets everything of the snapshot (another file is opened).
    pub fn clear(&self) {
        self.open.set(None);
        self.summary.set(None);
        self.error.set(None);
        self.levels.set(BTreeMap::new());
        self.paths.set(None);
        self.clear_diff();
    }

    pub fn clear_diff(&self) {
        self.diff.set(None);
        self.diff_loading.set(None);
        self.diff_error.set(None);
    }
}

impl Default for HeapState {
    fn default() -> Self {
        Self::new()
    }
}
