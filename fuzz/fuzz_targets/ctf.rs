//! libFuzzer's entry for [`gcscope_fuzz::targets::ctf`], where the target's body lives (so that
//! core/tests/fuzz_regressions.rs replays the same code on the committed inputs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gcscope_fuzz::targets::ctf::run(data));
