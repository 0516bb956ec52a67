//! The Heap tab's messages: what the page asks the heap worker (`worker::heap`) about a `.gcdump`
//! heap snapshot it read and keeps, and what it answers. The worker holds the graph and its
//! dominator tree; the page receives tables (one row per type), one level of the dominator tree
//! at a time, and the paths of one type, so the page never holds the graph.

use serde::{Deserialize, Serialize};

// The rows core computes travel as they are: the worker sends what `gcscope heap` prints.
pub use gcscope_core::heap::{DiffRow, GenerationRow, PathGroup, PathStep, TreeNode, TypeRow};

/// Most children of one dominator-tree node an answer holds (the largest retained first).
pub const MAX_CHILDREN: usize = 200;
/// Most path groups an answer holds (the most instances first).
pub const MAX_PATH_GROUPS: usize = 100;

/// What the page asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum HeapRequest {
    /// Read the snapshot sent with this request (`MSG_BLOB`) and answer its summary.
    Open { file_name: String },
    /// Read the second snapshot sent with this request and answer the difference B - A.
    Compare { file_name: String },
    /// The nodes this dominator-tree node immediately dominates.
    Children { node: u32 },
    /// The shortest paths from the root to the instances of this type.
    Paths { type_name: String },
}

/// The heap worker's answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum HeapAnswer {
    Summary(Box<HeapSummary>),
    Children {
        node: u32,
        nodes: Vec<TreeNode>,
        more: u64,
    },
    Paths(Box<Paths>),
    Diff(Box<HeapDiff>),
    /// A request could not be answered; for `Open`, the snapshot could not be read (core's
    /// message, with its byte offset).
    Failed {
        request: HeapRequest,
        error: String,
    },
}

/// How far the worker has got with a snapshot: it answers `Open` with one summary per stage, each
/// filling more of it, the page showing each in place of the last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub enum HeapStage {
    /// Read: the totals the graph alone gives (nodes, edges, bytes, types) and the types table
    /// with counts and shallow bytes; everything that needs the dominator tree is 0 or empty.
    Types,
    /// The dominator tree too: reachable and retained figures, the warnings, the root.
    Retained,
    /// The root categories and the generations too: the last answer.
    #[default]
    Complete,
}

/// A snapshot's figures, as `gcscope heap` prints them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HeapSummary {
    pub stage: HeapStage,
    pub file_name: String,
    pub file_size: f64,
    pub nodes: u64,
    pub edges: u64,
    pub total_bytes: u64,
    pub types: u64,
    pub reachable_nodes: u64,
    pub reachable_bytes: u64,
    pub unreachable_nodes: u64,
    pub unreachable_bytes: u64,
    pub undefined_nodes: u64,
    pub pointer_size: u8,
    pub process_name: Option<String>,
    pub process_id: i32,
    pub creation_tool: Option<String>,
    /// Core's warnings (an incomplete heap walk, unreachable bytes), in words.
    pub warnings: Vec<String>,
    /// Every type, largest retained first.
    pub type_rows: Vec<TypeRow>,
    pub categories: Vec<CategoryRow>,
    /// Bytes the root immediately dominates (held through several root-tree nodes).
    pub shared_retained_bytes: u64,
    /// Each type by generation, where the snapshot records segments.
    pub generations: Option<Vec<GenerationRow>>,
    /// The dominator tree's root.
    pub root: Option<TreeNode>,
    /// The worker's timings (ms): reading the file, the dominator tree, the types table (with
    /// the totals and warnings), the root categories and generations.
    pub read_ms: f64,
    pub dominators_ms: f64,
    pub types_ms: f64,
    pub roots_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CategoryRow {
    pub category: String,
    pub root_nodes: u64,
    pub objects: u64,
    pub retained_bytes: u64,
    pub reachable_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paths {
    pub type_name: String,
    pub instances: u64,
    pub unreachable_instances: u64,
    pub groups: Vec<PathGroup>,
    /// Groups left out past [`MAX_PATH_GROUPS`].
    pub more_groups: u64,
}

/// Snapshot B - A, type by type, most grown first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapDiff {
    pub name_a: String,
    pub name_b: String,
    pub nodes_a: u64,
    pub nodes_b: u64,
    pub bytes_a: u64,
    pub bytes_b: u64,
    pub types: Vec<DiffRow>,
}

/// Whether the decoding worker's error says the file is a `.gcdump` heap snapshot it cannot read
/// as a trace (the snapshot itself, or one in a gzip or a .zip): the page then opens it in the
/// heap worker.
/// The words are core's (`container::HEAP_SNAPSHOT_MESSAGE`, and the nettrace decoder's for a
/// FastSerialization stream that is not a trace).
pub fn is_heap_snapshot_error(error: &str) -> bool {
    error.contains(".gcdump heap snapshot (FastSerialization type '")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_says_a_heap_snapshot_in_these_words() {
        assert!(is_heap_snapshot_error(
            gcscope_core::container::HEAP_SNAPSHOT_MESSAGE
        ));
        // What the trace reader says of a .zip holding a .gcdump (local header, 1 stored byte,
        // end of the central directory): the heap worker unwraps it.
        let mut zip = 0x0403_4b50u32.to_le_bytes().to_vec();
        zip.extend_from_slice(&[
            20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,
        ]);
        zip.extend_from_slice(&[8, 0, 0, 0]);
        zip.extend_from_slice(b"a.gcdumpX");
        zip.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        zip.extend_from_slice(&[0; 18]);
        let mut u = gcscope_core::container::Unwrapper::new();
        let mut sink = |_: &[u8]| Ok(());
        let e = u
            .push(&zip, &mut sink)
            .and_then(|_| u.finish(&mut sink))
            .unwrap_err();
        assert!(is_heap_snapshot_error(&e.to_string()), "{e}");
        assert!(!is_heap_snapshot_error(
            "not a trace: looks like a PNG image"
        ));
    }
}
