//! The app worker's decoding path (filtered reader, GC model, bounded insights: what
//! `core/examples/bench_worker.rs` runs natively), exported to JS without wasm-bindgen so that
//! `run.mjs` can time it in V8 on bytes already in wasm memory: the browser's own file reading,
//! which costs more CPU than the decoder on a 2-core machine, is left out.

use gcscope_core::event::{TickLane, TraceInfo};
use gcscope_core::gc::{self, insights::InsightsBuilder, ModelBuilder};
use gcscope_core::TraceReader;

/// A buffer of `len` zero bytes in wasm memory, for the trace (never freed: one per run).
#[no_mangle]
pub extern "C" fn alloc_bytes(len: usize) -> *mut u8 {
    let mut v = vec![0u8; len];
    let p = v.as_mut_ptr();
    core::mem::forget(v);
    p
}

/// Decodes the `len` bytes at `p`, fed in `chunk`-byte pieces. Mode 0: the worker's path, with its
/// tick lane (returns the GC count); mode 2: the same without the tick lane (the worker's path
/// before 2026-11-29); mode 1: every event decoded and nothing built (returns the event count). A
/// decoding error returns `u64::MAX`.
///
/// # Safety
/// `p..p + len` must be bytes this module allocated (`alloc_bytes`).
#[no_mangle]
pub unsafe extern "C" fn run(p: *const u8, len: usize, chunk: usize, mode: u32) -> u64 {
    let bytes = core::slice::from_raw_parts(p, len);
    let chunk = chunk.max(1);
    if mode == 1 {
        let mut r = TraceReader::new();
        let mut n = 0u64;
        for c in bytes.chunks(chunk) {
            if r.push(c, &mut |_| n += 1).is_err() {
                return u64::MAX;
            }
        }
        return match r.finish(&mut |_| n += 1) {
            Ok(()) => n,
            Err(_) => u64::MAX,
        };
    }
    let lane = if mode == 2 {
        TickLane::Off
    } else {
        TickLane::EachTick
    };
    let mut r = TraceReader::new()
        .with_filter(gc::interest)
        .with_tick_lane(lane);
    let mut m = ModelBuilder::new(&TraceInfo::default());
    let mut ib = InsightsBuilder::bounded();
    for c in bytes.chunks(chunk) {
        if r.push(c, &mut |e| gc::feed(&mut m, &mut ib, e)).is_err() {
            return u64::MAX;
        }
    }
    if r.finish(&mut |e| gc::feed(&mut m, &mut ib, e)).is_err() {
        return u64::MAX;
    }
    if let Some(info) = r.info() {
        m.set_info(info);
    }
    let model = m.finish(Some(r.stats()));
    // Kept opaque, so that building the insights is not optimised away.
    core::hint::black_box(ib.finish(&model));
    model.gcs.len() as u64
}
