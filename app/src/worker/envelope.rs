//! How a message goes to the page: encoded straight into a JS buffer (`protocol::wire`), in an
//! envelope with its kind and the facts the page reads without decoding it ([`Facts`]), the buffer
//! transferred rather than copied.

use wasm_bindgen::prelude::*;
use web_sys::DedicatedWorkerGlobalScope;

use super::chunks::js_err;
use super::processes::{Encoded, Facts};
use crate::protocol::{
    ToUi, ENV_BYTES, ENV_DECODE_MS, ENV_ERROR, ENV_PART_BYTES, ENV_ROWS, ENV_TYPE, ENV_WAITED_MS,
    ENV_WORKERS,
};

/// Writes into a JS byte array from the start.
struct JsBytesOut {
    out: js_sys::Uint8Array,
    at: u32,
}

impl std::io::Write for JsBytesOut {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = (self.out.length() - self.at).min(buf.len() as u32);
        if n == 0 && !buf.is_empty() {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        self.out
            .subarray(self.at, self.at + n)
            .copy_from(&buf[..n as usize]);
        self.at += n;
        Ok(n as usize)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Posts `msg` in its envelope (see `protocol`), transferring the bytes to the page.
pub(super) fn post(scope: &DedicatedWorkerGlobalScope, msg: &ToUi) {
    // Straight into a JS buffer of the right size, a 64 KiB piece at a time (`wire::encode_sized`):
    // the whole message never sits in wasm memory, which never shrinks.
    let encoded = msg
        .encode_sized(|len| JsBytesOut {
            out: js_sys::Uint8Array::new_with_length(len as u32),
            at: 0,
        })
        .map(|w| w.out);
    match encoded {
        Ok(out) => send(scope, &out.buffer(), msg.kind(), &Facts::of(msg)),
        Err(e) => web_sys::console::error_1(&format!("worker: {e}").into()),
    }
}

/// Posts a message encoded before (one kept for switching processes).
pub(super) fn post_encoded(scope: &DedicatedWorkerGlobalScope, e: &Encoded) {
    let out = js_sys::Uint8Array::new_with_length(e.bytes.len() as u32);
    out.copy_from(&e.bytes);
    send(scope, &out.buffer(), e.kind, &e.facts);
}

/// The envelope: the message's kind, its bytes (transferred), and the facts read without decoding
/// them (see [`Facts`]).
fn send(scope: &DedicatedWorkerGlobalScope, buffer: &js_sys::ArrayBuffer, kind: &str, f: &Facts) {
    let envelope = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| {
        let _ = js_sys::Reflect::set(&envelope, &JsValue::from_str(k), v);
    };
    set(ENV_TYPE, &JsValue::from_str(kind));
    set(ENV_BYTES, buffer);
    match kind {
        "gcs" => set(ENV_ROWS, &JsValue::from_f64(f.rows as f64)),
        "done" => {
            let error = f.error.as_deref();
            set(ENV_ERROR, &error.map_or(JsValue::NULL, JsValue::from_str));
            set(ENV_DECODE_MS, &JsValue::from_f64(f.decode_ms));
            set(ENV_WORKERS, &JsValue::from_f64(f.workers as f64));
            set(ENV_PART_BYTES, &JsValue::from_f64(f.part_bytes));
            set(ENV_WAITED_MS, &JsValue::from_f64(f.waited_ms));
        }
        _ => {}
    }
    let transfer = js_sys::Array::of1(buffer);
    if let Err(e) = scope.post_message_with_transfer(&envelope, &transfer) {
        web_sys::console::error_1(&format!("worker: cannot post: {}", js_err(e)).into());
    }
}
