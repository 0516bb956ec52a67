//! The app's state, in one place: what the page holds for the trace (the rows, their packed heaps,
//! the model, the analysis, loading and error: [`AppState`]) and what the user is looking at
//! ([`view_state`], kept in the address bar by [`address_bar`]).
//!
//! Data flows one way: the worker's messages (`protocol`) come in through `loader`, which writes
//! here; the views read it (`use_app()`) and change only the view state.

pub mod filter;
pub mod heap_store;
pub mod insights;
pub mod rows;
pub mod view_state;

#[cfg(target_arch = "wasm32")]
pub mod address_bar;
#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
pub mod heap;

#[cfg(target_arch = "wasm32")]
pub use app::{now_ms, use_app, AppState, OtherTrace, Unreachable};
