//! Reading the dropped file a chunk at a time, the next read in flight while the decoder works.

use gcscope_core::reader::TraceReader;
use gcscope_core::sink::Sink;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;

/// Bytes read per `Blob.slice`: large enough to amortise the JS call, small enough to bound memory.
const CHUNK: f64 = 4.0 * 1024.0 * 1024.0;
/// The first chunks are smaller so the first GC rows reach the table quickly.
const FIRST_CHUNK: f64 = 512.0 * 1024.0;
/// Bytes of the file behind one stream where there is no BYOB reader (WebKit): its stream reads
/// on ahead of the decoder without backpressure, so each stream covers only this much of the file.
const SEGMENT: f64 = 16.0 * 1024.0 * 1024.0;

/// Reads a Blob front to back, one chunk at a time, while the caller decodes the previous one.
///
/// Preferably through a BYOB ("bring your own buffer") reader of `Blob.stream()`, so every chunk
/// lands in the same JS buffer: `Blob.arrayBuffer()` per slice makes a fresh ArrayBuffer per chunk,
/// each left for the garbage collector
/// (docs/performance-log/journal.md, "Issue 7: decode throughput"). Browsers
/// without BYOB reading of a Blob stream (WebKit) read the file in [`SEGMENT`]s, each a Blob slice
/// read through its stream's default reader, each chunk freed once copied; browsers without
/// `Blob.stream()` read `Blob.slice().arrayBuffer()`s.
pub(super) struct ChunkSource {
    blob: Blob,
    total: f64,
    /// Bytes handed out so far.
    pub(super) offset: f64,
    /// The read in flight (a reader's: resolves to `{ value, done }`; a slice's: to an ArrayBuffer).
    pending: Option<JsFuture>,
    way: Way,
    reads: u32,
    /// The chunk being decoded (wasm memory: the decoder cannot read the JS buffer in place).
    buf: Vec<u8>,
}

/// How a [`ChunkSource`] reads its Blob.
enum Way {
    /// A BYOB reader of `Blob.stream()`, reading into the buffer of the chunk before.
    Byob(JsValue),
    /// [`SEGMENT`]s of the file, each a slice read through its stream's default reader: the
    /// current segment's reader (`None` between segments) and where the segment starts.
    Segments { reader: Option<JsValue>, start: f64 },
    /// `Blob.slice().arrayBuffer()`, a slice at a time.
    Slices,
}

impl ChunkSource {
    pub(super) fn new(blob: &Blob) -> Result<ChunkSource, String> {
        let way = match byob_reader(blob) {
            Some(reader) => Way::Byob(reader),
            None if has_stream(blob) => Way::Segments {
                reader: None,
                start: 0.0,
            },
            None => Way::Slices,
        };
        let mut s = ChunkSource {
            blob: blob.clone(),
            total: blob.size(),
            offset: 0.0,
            pending: None,
            way,
            reads: 0,
            buf: vec![0; CHUNK as usize],
        };
        // The one buffer a BYOB reader reads every chunk into; the other ways do not use it.
        let first = match s.way {
            Way::Byob(_) => CHUNK as u32,
            _ => 0,
        };
        s.pending = s.read(&js_sys::ArrayBuffer::new(first))?;
        Ok(s)
    }

    /// Starts the next read (`buffer`: where a BYOB reader reads into); `None` past the end.
    fn read(&mut self, buffer: &js_sys::ArrayBuffer) -> Result<Option<JsFuture>, String> {
        match &self.way {
            Way::Byob(reader) => {
                let view = js_sys::Uint8Array::new_with_byte_offset_and_length(
                    buffer,
                    0,
                    self.next_len() as u32,
                );
                Ok(Some(reader_read(reader, Some(&view))?))
            }
            Way::Segments { .. } => self.segment_read(),
            Way::Slices => self.slice_read(),
        }
    }

    /// The first reads are small so the first GC rows reach the table quickly.
    fn next_len(&self) -> f64 {
        if self.reads < 4 {
            FIRST_CHUNK
        } else {
            CHUNK
        }
    }

    /// The next slice as an ArrayBuffer, `None` past the end.
    fn slice_read(&self) -> Result<Option<JsFuture>, String> {
        if self.offset >= self.total {
            return Ok(None);
        }
        let end = (self.offset + self.next_len()).min(self.total);
        let part = self
            .blob
            .slice_with_f64_and_f64(self.offset, end)
            .map_err(js_err)?;
        Ok(Some(JsFuture::from(part.array_buffer())))
    }

    /// The next chunk of the current segment, opening the next segment's stream when there is
    /// none; `None` past the end.
    fn segment_read(&mut self) -> Result<Option<JsFuture>, String> {
        let Way::Segments { reader, start } = &mut self.way else {
            return Ok(None);
        };
        if reader.is_none() {
            if self.offset >= self.total {
                return Ok(None);
            }
            let end = (self.offset + SEGMENT).min(self.total);
            let part = self
                .blob
                .slice_with_f64_and_f64(self.offset, end)
                .map_err(js_err)?;
            *reader = stream_reader(&part, None);
            *start = self.offset;
        }
        match reader {
            Some(reader) => Ok(Some(reader_read(reader, None)?)),
            None => Err("cannot read the file: its stream has no reader".into()),
        }
    }

    /// Copies the next chunk into `buf` and starts reading the one after it: its length, or `None`
    /// at the end of the blob.
    async fn next(&mut self) -> Result<Option<usize>, String> {
        let (buffer, bytes) = loop {
            let Some(pending) = self.pending.take() else {
                return Ok(None);
            };
            let result = pending.await.map_err(js_err)?;
            if let Way::Slices = self.way {
                break (result.clone(), js_sys::Uint8Array::new(&result));
            }
            let get =
                |k: &str| js_sys::Reflect::get(&result, &JsValue::from_str(k)).map_err(js_err);
            if !get("done")?.as_bool().unwrap_or(true) {
                let value: js_sys::Uint8Array = get("value")?.dyn_into().map_err(js_err)?;
                break (value.buffer().into(), value);
            }
            let Way::Segments { reader, start } = &mut self.way else {
                return Ok(None);
            };
            // The segment is read: on to the next one's stream. One that gave nothing would be
            // opened again at the same place for ever: the file is shorter than it said.
            if self.offset == *start && self.offset < self.total {
                return Err(format!(
                    "the file ended at byte {} of the {} it had when opened: was it changed \
                     while being read? Open it again.",
                    self.offset, self.total
                ));
            }
            *reader = None;
            self.pending = self.segment_read()?;
        };
        let n = bytes.length() as usize;
        if n > self.buf.len() {
            self.buf.resize(n, 0);
        }
        bytes.copy_to(&mut self.buf[..n]);
        // The copy is ours: read on (into the same buffer, with BYOB) while the caller decodes
        // it; other ways' buffers are freed.
        if !matches!(self.way, Way::Byob(_)) {
            release(&buffer);
        }
        self.offset += n as f64;
        self.reads += 1;
        self.pending = self.read(&bytes.buffer())?;
        Ok(Some(n))
    }
}

impl ChunkSource {
    /// The next chunk of the blob (read ahead while the caller works on it), `None` at the end.
    pub(super) async fn next_chunk(&mut self) -> Result<Option<&[u8]>, String> {
        Ok(self.next().await?.map(|n| &self.buf[..n]))
    }
}

/// What one [`ChunkSource::pump`] did.
pub(super) enum Pumped {
    /// A chunk went through the reader.
    Chunk,
    /// The blob is read and the reader finished.
    End,
    /// The decoder stopped on this error; what it delivered before stands.
    Failed(String),
}

impl ChunkSource {
    /// Reads the next chunk and pushes it through `reader` into `sink` (each event with the trace
    /// header's facts); at the end of the blob, finishes the reader. Browser read errors are `Err`.
    pub(super) async fn pump(
        &mut self,
        reader: &mut TraceReader,
        sink: &mut Sink<'_>,
    ) -> Result<Pumped, String> {
        let read = self.next().await?;
        let pushed = match read {
            Some(n) => reader.push_with_info(&self.buf[..n], sink),
            None => reader.finish_with_info(sink),
        };
        Ok(match pushed {
            Err(e) => Pumped::Failed(e.to_string()),
            Ok(()) if read.is_some() => Pumped::Chunk,
            Ok(()) => Pumped::End,
        })
    }
}

/// `blob.stream().getReader({ mode: "byob" })`, or `None` where the browser cannot.
///
/// Whether it can is asked of an empty Blob first: WebKit's `Blob.stream()` is not a byte stream
/// (its BYOB reader throws), and the stream made to find that out starts reading the whole file
/// into its queue all the same. Probing the dropped file itself would grow WebKit's web process by
/// the file's size and slow the read, that stream competing with the slices for the disk
/// (docs/performance-log/journal.md, "The WebKit tab's memory";
/// `tests/bench/read-bench.mjs --ways slice,probe-slice`).
pub(super) fn byob_reader(blob: &Blob) -> Option<JsValue> {
    let probe = Blob::new().ok()?;
    stream_reader(&probe, Some("byob"))?;
    stream_reader(blob, Some("byob"))
}

/// `blob.stream().getReader({ mode })` (the default reader without a mode), `None` where that
/// throws or is missing.
pub(super) fn stream_reader(blob: &Blob, mode: Option<&str>) -> Option<JsValue> {
    let get = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &JsValue::from_str(k)).ok();
    let stream_fn: js_sys::Function = get(blob, "stream")?.dyn_into().ok()?;
    let stream = stream_fn.call0(blob).ok()?;
    let get_reader: js_sys::Function = get(&stream, "getReader")?.dyn_into().ok()?;
    match mode {
        None => get_reader.call0(&stream).ok(),
        Some(mode) => {
            let opts = js_sys::Object::new();
            js_sys::Reflect::set(&opts, &JsValue::from_str("mode"), &JsValue::from_str(mode))
                .ok()?;
            get_reader.call1(&stream, &opts).ok()
        }
    }
}

/// Whether the Blob has a `stream()` method.
fn has_stream(blob: &Blob) -> bool {
    js_sys::Reflect::get(blob, &JsValue::from_str("stream")).is_ok_and(|f| f.is_function())
}

/// `reader.read(view)` (BYOB) or `reader.read()`: resolves to `{ value, done }`.
pub(super) fn reader_read(
    reader: &JsValue,
    view: Option<&js_sys::Uint8Array>,
) -> Result<JsFuture, String> {
    let read: js_sys::Function = js_sys::Reflect::get(reader, &JsValue::from_str("read"))
        .map_err(js_err)?
        .dyn_into()
        .map_err(|_| "the stream reader has no read()".to_string())?;
    let called = match view {
        Some(view) => read.call1(reader, view),
        None => read.call0(reader),
    };
    let promise: js_sys::Promise = called.map_err(js_err)?.dyn_into().map_err(js_err)?;
    Ok(JsFuture::from(promise))
}

/// Frees a slice's or a stream chunk's ArrayBuffer now that it is copied: `transfer(0)` detaches
/// it, which lets go of its bytes at once instead of when the garbage collector next runs, which
/// JavaScriptCore does rarely for a worker that spends its time in wasm, so without it the slices
/// read pile up in WebKit's web process
/// (docs/performance-log/journal.md, "The WebKit tab's memory"). Engines without `transfer` leave
/// the buffer to the collector.
pub(super) fn release(buffer: &JsValue) {
    let transfer = js_sys::Reflect::get(buffer, &JsValue::from_str("transfer"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(transfer) = transfer {
        let _ = transfer.call1(buffer, &JsValue::from_f64(0.0));
    }
}

/// A browser error as text.
pub(super) fn js_err(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "unknown browser error".into())
}
