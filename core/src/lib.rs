//! gcscope-core: a streaming, `no_std` decoder for .NET EventPipe and ETW traces and the GC model built from them.
//!
//! Layers (each only reads the one before it):
//! 1. [`container`]: sniffs the input and unwraps `.zip` / gzip into the raw trace bytes.
//! 2. [`nettrace`]: the EventPipe container formats (NetPerf V1-V3, NetTrace V4/V5, V6) → [`event::Event`]s;
//!    beside it [`etl`]: ETW log files (.etl, PerfView's .etl.zip), machine-wide, → the same events.
//! 3. [`clr`]: the runtime's providers: TraceEvent-style event names, enums and typed GC payloads.
//! 4. [`gc`]: the GC model (one row per collection, rollups, condemn reasons, pins, handles).
//! 5. [`findings`]: what is wrong with the process's GC, with the evidence and what to change.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod clr;
pub mod compare;
mod consumer;
pub mod container;
pub mod decode;
#[cfg(feature = "encode")]
pub mod encode;
pub mod error;
pub mod etl;
pub mod event;
pub mod filter;
pub mod findings;
pub mod gc;
pub mod latency;
pub mod nettrace;
pub mod parts;
pub mod read;
pub mod reader;
pub mod sort;
pub mod ticks;

pub use filter::Interest;
pub use reader::{decode_all, DecodeStats, TraceReader};
pub use ticks::Consumer;
