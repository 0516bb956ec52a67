//! Typed runtime payload decoders: any (provider, id, version, pointer size, payload). Decoded
//! events are serialized, which walks every lazily decoded array and string.
#![no_main]

use gcscope_core::clr;
use gcscope_fuzz::records;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for r in records(data).take(64) {
        let ev = r.event(1.0);
        let _ = clr::event_name_for(&ev);
        if let Some(Ok(decoded)) = clr::decode(&ev) {
            let _ = serde_json::to_vec(&decoded);
        }
    }
});
