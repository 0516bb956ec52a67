//! The allocation kinds of GCAllocationTick (small, large, pinned) and bytes split by them: the
//! vocabulary the tick records ([`super::types`]) and their time bins ([`super::tick_bins`]) share.

use serde::{Deserialize, Serialize};

/// Allocation kind of a tick (GCAllocationTick AllocationKind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AllocKind {
    /// Small object heap (gen0).
    Small,
    /// Large object heap.
    Large,
    /// Pinned object heap (.NET 5+).
    Pinned,
}

impl AllocKind {
    pub fn from_code(code: u32) -> AllocKind {
        match code {
            1 => AllocKind::Large,
            2 => AllocKind::Pinned,
            _ => AllocKind::Small,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            AllocKind::Small => "Small",
            AllocKind::Large => "Large",
            AllocKind::Pinned => "Pinned",
        }
    }
}

/// Sampled bytes split by allocation kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct KindBytes {
    pub small: u64,
    pub large: u64,
    pub pinned: u64,
}

impl KindBytes {
    pub fn add(&mut self, kind: AllocKind, bytes: u64) {
        let slot = match kind {
            AllocKind::Small => &mut self.small,
            AllocKind::Large => &mut self.large,
            AllocKind::Pinned => &mut self.pinned,
        };
        *slot = slot.saturating_add(bytes);
    }
    pub fn total(&self) -> u64 {
        self.small
            .saturating_add(self.large)
            .saturating_add(self.pinned)
    }
}
