//! The views beyond the GC table, built on core's `gc::insights`: allocations, generation budgets,
//! mark roots and compaction, suspensions, finalization / memory pressure / segments, and the
//! classic counters. `ship` bounds what the worker sends; the rest renders it.

pub mod ship;
pub mod tables;

#[cfg(target_arch = "wasm32")]
pub(crate) mod allocations;
#[cfg(target_arch = "wasm32")]
pub(crate) mod budgets;
#[cfg(target_arch = "wasm32")]
pub(crate) mod counters;
#[cfg(target_arch = "wasm32")]
pub(crate) mod memory;
#[cfg(target_arch = "wasm32")]
pub(crate) mod roots;
#[cfg(target_arch = "wasm32")]
pub(crate) mod suspensions;
#[cfg(target_arch = "wasm32")]
mod widgets;
