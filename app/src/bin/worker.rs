//! The decoding worker. It receives a `Blob` (a dropped `File` or a fetched sample), reads it in
//! chunks (`worker::chunks`, so a 2 GB file never sits in memory), feeds the
//! streaming decoder, and posts progress and the final analysis back. Cancelling = the UI terminates
//! this worker and starts a new one, so the loop needs no cancellation checks.

#[cfg(target_arch = "wasm32")]
fn main() {
    gcscope_app::worker::run_worker();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the worker only runs in a browser (wasm32)");
}
