//! Heap snapshots: the `.gcdump` reader ([`read_gcdump`]) and writer ([`write_gcdump`]), the
//! heap walk of an event trace ([`HeapWalkBuilder`]), the graph it yields ([`HeapGraph`]),
//! its exact dominator tree ([`Dominators`]) and the views built on them ([`Snapshot`]: types with
//! retained bytes, root categories, paths to roots, generations, the dominator tree to browse) and
//! the difference of two snapshots ([`diff`]).

mod analysis;
mod diff;
mod dominators;
mod events;
mod gcdump;
mod graph;
mod paths;
mod roots;
mod type_table;
mod write;

pub use analysis::*;
pub use diff::{diff, DiffRow, SnapshotDiff};
pub use dominators::{Dominators, NONE};
pub use events::{HeapWalk, HeapWalkBuilder, WalkReport};
pub use gcdump::{looks_like_gcdump, read_gcdump, DOTNET_GCDUMP_NODE_CAP};
pub use graph::{HeapGraph, Segment, SnapshotInfo, TypeEntry};
pub use paths::*;
pub use roots::*;
pub use type_table::*;
pub use write::{write_gcdump, CREATION_TOOL};
