//! gcscope's browser app. The UI thread only renders: decoding runs in a Web Worker
//! (`worker.rs`, protocol in `protocol.rs`, UI side in `worker_client.rs`).

pub mod analysis;
pub mod charts;
pub mod columns;
pub mod format;
pub mod heap_store;
pub mod insights;
pub mod protocol;
pub mod report;
#[cfg(target_arch = "wasm32")]
mod side_table;
pub mod tables;
#[cfg(test)]
mod testdata;
pub mod view_state;
#[cfg(target_arch = "wasm32")]
pub mod worker;
#[cfg(target_arch = "wasm32")]
mod worker_client;

#[cfg(target_arch = "wasm32")]
mod ui;
#[cfg(target_arch = "wasm32")]
pub use ui::App;
