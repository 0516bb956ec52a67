//! The decoding worker (runs inside the Web Worker, see `bin/worker.rs`): the file in, the
//! protocol's messages out. The page only renders.

pub mod heap;
pub mod processes;
pub mod stacks;
pub mod summary;

#[cfg(target_arch = "wasm32")]
mod chunks;
#[cfg(target_arch = "wasm32")]
mod decode;
#[cfg(target_arch = "wasm32")]
mod envelope;
#[cfg(target_arch = "wasm32")]
mod feed;
#[cfg(target_arch = "wasm32")]
mod part;
#[cfg(target_arch = "wasm32")]
mod parts;
#[cfg(target_arch = "wasm32")]
mod pool;
#[cfg(target_arch = "wasm32")]
mod stream;

#[cfg(target_arch = "wasm32")]
pub use decode::run_worker;
