//! The heap worker's side in the browser: a request's file read from its `Blob` (a plain trace a
//! slice at a time, anything else whole) and handed to [`Kept`](super::Kept).

use std::cell::RefCell;

use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;

use super::Kept;
use crate::protocol::heap::{HeapAnswer, HeapRequest};
use crate::protocol::ToUi;
use crate::protocol::{MSG_BLOB, MSG_REQUEST};

thread_local! {
    static KEPT: RefCell<Kept> = RefCell::new(Kept::default());
}

/// Answers `{ mode: "heap", blob?, request }`. The caller posts the answer; `post` posts the
/// earlier stages of a summary (see `Kept::open`).
pub async fn serve(data: &JsValue, post: &dyn Fn(&ToUi)) -> ToUi {
    let get = |k: &str| js_sys::Reflect::get(data, &JsValue::from_str(k)).ok();
    let req: Result<HeapRequest, String> = get(MSG_REQUEST)
        .map(|b| js_sys::Uint8Array::new(&b).to_vec())
        .ok_or_else(|| "a heap request without its request".to_string())
        .and_then(|bytes| {
            crate::protocol::wire::decode(&bytes).map_err(|e| format!("a bad heap request: {e}"))
        });
    let req = match req {
        Ok(r) => r,
        Err(error) => {
            return ToUi::Heap(Box::new(HeapAnswer::Failed {
                request: HeapRequest::Children { node: 0 },
                error,
            }))
        }
    };
    let blob = get(MSG_BLOB).and_then(|b| b.dyn_into::<Blob>().ok());
    let Some(blob) = blob else {
        return ToUi::Heap(Box::new(KEPT.with(|k| k.borrow().answer(&req))));
    };
    let mut post = |a| post(&ToUi::Heap(Box::new(a)));
    let answer = match plain_trace(&blob).await {
        // A trace's walk is read a slice at a time and the rest left unread once it ended: a
        // trace can be far larger than the walk, and than the memory a tab may take.
        Ok(true) => {
            let t0 = js_sys::Date::now();
            let read = walk_slices(&blob).await.map(super::graph_of);
            KEPT.with(|k| {
                k.borrow_mut().open_graph(
                    &req,
                    read,
                    blob.size(),
                    t0,
                    &js_sys::Date::now,
                    &mut post,
                )
            })
        }
        // A snapshot is read at random, and a zip or gzip unwrapped, whole.
        Ok(false) => match read_all(&blob).await {
            Ok(bytes) => KEPT.with(|k| {
                k.borrow_mut()
                    .open(&req, bytes, &js_sys::Date::now, &mut post)
            }),
            Err(error) => HeapAnswer::Failed {
                request: req.clone(),
                error,
            },
        },
        Err(error) => HeapAnswer::Failed {
            request: req.clone(),
            error,
        },
    };
    ToUi::Heap(Box::new(answer))
}

/// Bytes the first look at a file reads: enough for `sniff` to tell a `.gcdump` from a trace.
const HEAD: f64 = 64.0 * 1024.0;
/// Bytes of a trace read at a time for its walk.
const SLICE: f64 = 8.0 * 1024.0 * 1024.0;

/// Whether `blob` is a trace that nothing wraps (a `.nettrace`, `.netperf` or `.etl`), from
/// its first bytes.
async fn plain_trace(blob: &Blob) -> Result<bool, String> {
    let head = read_slice(blob, 0.0, HEAD.min(blob.size())).await?;
    let whole = head.len() as f64 >= blob.size();
    Ok(matches!(
        gcscope_core::container::sniff(&head, whole),
        Ok(Some(gcscope_core::container::Kind::Trace))
    ))
}

/// A plain trace's first heap walk, fed to core's `WalkReader` a slice at a time until the
/// walk's GC has ended.
async fn walk_slices(blob: &Blob) -> Result<gcscope_core::heap::HeapWalk, String> {
    let mut r = gcscope_core::reader::WalkReader::new();
    let size = blob.size();
    let mut at = 0.0;
    while at < size && !r.walk_ended() {
        let end = (at + SLICE).min(size);
        r.push(&read_slice(blob, at, end).await?);
        at = end;
    }
    super::walk_of(r.finish())
}

async fn read_slice(blob: &Blob, from: f64, to: f64) -> Result<Vec<u8>, String> {
    let part = blob
        .slice_with_f64_and_f64(from, to)
        .map_err(|e| format!("cannot read the file: {e:?}"))?;
    read_all(&part).await
}

async fn read_all(blob: &Blob) -> Result<Vec<u8>, String> {
    let buf = JsFuture::from(blob.array_buffer())
        .await
        .map_err(|e| format!("cannot read the file: {e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}
