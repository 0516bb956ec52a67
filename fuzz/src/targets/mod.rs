//! The body of each fuzz target, one module each: `fuzz_targets/*.rs` hand libFuzzer's inputs to
//! these, and core/tests/fuzz_regressions.rs replays the committed corpus and crash inputs through
//! them on stable, so a regression runs the code that found it.

pub mod container;
pub mod ctf;
pub mod etl;
pub mod gcdump;
pub mod lz77;
pub mod model;
pub mod payloads;
