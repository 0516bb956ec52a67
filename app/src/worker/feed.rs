//! The file as the parts path reads it (see [`super::parts`]): once, in order, in pieces of 4 MiB
//! (the first ones smaller, for the first rows) read ahead while the planner and the merge work,
//! each piece a buffer of its own, so it can be handed to a part worker whole (transferred, not
//! copied). The planner gets the few bytes it asks for (block headers, the small blocks between
//! them); a task gets the pieces that hold its blocks, and only the end of a piece that the next
//! task starts in is copied.
//!
//! A BYOB reader of `Blob.stream()`, where the browser has one (it read 268 MB in 0.24-0.35 s here
//! where 4 MiB `Blob.slice`s took 0.48-1.6 s), else slices.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use gcscope_core::parts::{Planner, Task};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;

use super::chunks::{byob_reader, js_err};

/// Bytes read at once, once the first reads are done.
const PIECE: u32 = 4 << 20;
/// The first reads: small, so the first task (and the first GC rows) come quickly.
const FIRST_PIECE: u32 = 512 << 10;
/// Bytes given to the planner past what it asks for (the next few small units, if they are there).
const PLAN_EXTRA: usize = 4096;

/// One piece of the file held: its offset and bytes (a view of a buffer of its own).
struct Piece {
    at: f64,
    bytes: js_sys::Uint8Array,
}

/// A task's bytes, as the pieces that hold them: (buffer, offset in it, length), in order.
pub(super) struct TaskBytes {
    pub pieces: Vec<(js_sys::ArrayBuffer, u32, u32)>,
}

impl TaskBytes {
    /// Pieces as they travel: `[[buffer, offset, length], ...]`.
    pub fn from_js(pieces: &JsValue) -> Result<TaskBytes, String> {
        let pieces: &js_sys::Array = pieces.dyn_ref().ok_or("pieces that are not an array")?;
        let mut out = Vec::with_capacity(pieces.length() as usize);
        for p in pieces.iter() {
            let p: js_sys::Array = p
                .dyn_into()
                .map_err(|_| "a piece that is not [buffer, offset, length]")?;
            let buf: js_sys::ArrayBuffer = p
                .get(0)
                .dyn_into()
                .map_err(|_| "a piece without its buffer")?;
            let off = p.get(1).as_f64().unwrap_or(0.0) as u32;
            let len = p.get(2).as_f64().unwrap_or(0.0) as u32;
            if off as u64 + len as u64 > buf.byte_length() as u64 {
                return Err("a piece past its buffer".into());
            }
            out.push((buf, off, len));
        }
        Ok(TaskBytes { pieces: out })
    }

    /// The pieces as they travel (see [`from_js`](Self::from_js)), and the buffers to transfer.
    pub fn to_js(&self) -> (js_sys::Array, js_sys::Array) {
        let pieces = js_sys::Array::new();
        let transfer = js_sys::Array::new();
        for (b, off, len) in &self.pieces {
            pieces.push(&js_sys::Array::of3(
                b,
                &JsValue::from_f64(*off as f64),
                &JsValue::from_f64(*len as f64),
            ));
            if !transfer.includes(b, 0) {
                transfer.push(b);
            }
        }
        (pieces, transfer)
    }

    /// The bytes, copied into one vector (a part worker's, or this worker's when it decodes the
    /// task itself).
    pub fn to_vec(&self) -> Vec<u8> {
        let len = self.pieces.iter().map(|p| p.2 as usize).sum();
        let mut out = vec![0u8; len];
        let mut at = 0usize;
        for (buf, off, n) in &self.pieces {
            let n = *n as usize;
            js_sys::Uint8Array::new_with_byte_offset_and_length(buf, *off, n as u32)
                .copy_to(&mut out[at..at + n]);
            at += n;
        }
        out
    }
}

/// Wakes the decoding worker's merge loop when something it waits for happens (a read of the
/// file, a part worker's message): one promise at a time.
#[derive(Clone, Default)]
pub(super) struct Waker(Rc<RefCell<Option<js_sys::Function>>>);

impl Waker {
    pub fn wake(&self) {
        let f = self.0.borrow_mut().take();
        if let Some(f) = f {
            let _ = f.call0(&JsValue::NULL);
        }
    }

    /// Until the next [`wake`](Self::wake).
    pub async fn wait(&self) {
        let slot = self.0.clone();
        let p = js_sys::Promise::new(&mut |resolve, _| *slot.borrow_mut() = Some(resolve));
        let _ = JsFuture::from(p).await;
    }
}

/// A read's result: its bytes (None: the stream ended), or the browser's error.
type ReadResult = Result<Option<js_sys::Uint8Array>, String>;

pub(super) struct Feed {
    blob: Blob,
    total: f64,
    byob: Option<JsValue>,
    held: VecDeque<Piece>,
    /// Reads in flight, and reads done by number, waiting for the ones before them (slices may
    /// finish out of order).
    reading: usize,
    done: Rc<RefCell<BTreeMap<u32, ReadResult>>>,
    /// The number of the next read to take.
    taken: u32,
    waker: Waker,
    /// Slices: bytes asked for so far.
    asked: f64,
    /// Every byte is read (or the stream said it ended).
    ended: bool,
    /// Where the bytes held end (reads done and taken in order).
    held_to: f64,
    reads: u32,
    first: Option<Vec<u8>>,
    buf: Vec<u8>,
}

/// Reads in flight at once.
const READ_AHEAD: usize = 3;

impl Feed {
    pub fn new(blob: &Blob, waker: Waker) -> Feed {
        Feed {
            blob: blob.clone(),
            total: blob.size(),
            byob: byob_reader(blob),
            held: VecDeque::new(),
            reading: 0,
            done: Rc::default(),
            taken: 0,
            waker,
            asked: 0.0,
            ended: false,
            held_to: 0.0,
            reads: 0,
            first: None,
            buf: Vec::new(),
        }
    }

    /// The file's first bytes, once read.
    pub fn first_bytes(&self) -> Option<&[u8]> {
        self.first.as_deref()
    }

    /// Takes the reads that are done (in file order) and starts more, up to [`READ_AHEAD`].
    pub fn poll(&mut self) -> Result<(), String> {
        loop {
            let next = self.done.borrow_mut().remove(&self.taken);
            let Some(result) = next else { break };
            self.taken += 1;
            self.reading -= 1;
            match result? {
                Some(bytes) if bytes.length() > 0 => {
                    let at = self.held_to;
                    self.held_to = at + bytes.length() as f64;
                    self.held.push_back(Piece { at, bytes });
                }
                _ => {
                    // The stream ended (early, if the file shrank): what is held is all there is.
                    self.total = self.held_to;
                    self.ended = true;
                }
            }
        }
        if self.held_to >= self.total {
            self.ended = true;
        }
        // A stream is read until it says it ended (each read gives what it has, at most what was
        // asked); slices until every byte is asked for.
        while self.reading < READ_AHEAD
            && !self.ended
            && (self.byob.is_some() || self.asked < self.total)
        {
            self.read_next()?;
        }
        Ok(())
    }

    /// Starts the next read; its result lands in `done` (by its number: reads are taken in the
    /// order they were asked, as a stream gives them) and wakes the merge loop.
    fn read_next(&mut self) -> Result<(), String> {
        let size = if self.reads < 2 { FIRST_PIECE } else { PIECE };
        let size = match &self.byob {
            Some(_) => size,
            None => (size as f64).min(self.total - self.asked) as u32,
        };
        let number = self.reads;
        self.reads += 1;
        let byob = self.byob.is_some();
        let promise: js_sys::Promise = match &self.byob {
            Some(reader) => {
                let view = js_sys::Uint8Array::new(&js_sys::ArrayBuffer::new(size));
                let read: js_sys::Function =
                    js_sys::Reflect::get(reader, &JsValue::from_str("read"))
                        .map_err(js_err)?
                        .dyn_into()
                        .map_err(|_| "the stream reader has no read()".to_string())?;
                read.call1(reader, &view)
                    .map_err(js_err)?
                    .dyn_into()
                    .map_err(js_err)?
            }
            None => self
                .blob
                .slice_with_f64_and_f64(self.asked, self.asked + size as f64)
                .map_err(js_err)?
                .array_buffer(),
        };
        self.asked += size as f64;
        self.reading += 1;
        let (done, waker) = (self.done.clone(), self.waker.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let result = JsFuture::from(promise).await.map_err(js_err).and_then(|r| {
                if !byob {
                    return Ok(Some(js_sys::Uint8Array::new(&r)));
                }
                let get = |k: &str| js_sys::Reflect::get(&r, &JsValue::from_str(k)).map_err(js_err);
                if get("done")?.as_bool().unwrap_or(true) {
                    return Ok(None);
                }
                Ok(Some(get("value")?.dyn_into().map_err(js_err)?))
            });
            done.borrow_mut().insert(number, result);
            waker.wake();
        });
        Ok(())
    }

    /// Gives the planner the bytes it wants next, if they are held (else false: a read in flight
    /// wakes the loop when it is done). The tasks it completes go to `tasks`; they end where the
    /// bytes held do.
    pub fn plan(&mut self, planner: &mut Planner, tasks: &mut Vec<Task>) -> Result<bool, String> {
        self.poll()?;
        let Some((at, need)) = planner.want() else {
            return Ok(false);
        };
        let at_f = at as f64;
        if at_f >= self.total {
            planner.end_of_file(tasks);
            return Ok(true);
        }
        let all_read = self.held_to >= self.total;
        if self.held_to < at_f + need as f64 && !all_read {
            return Ok(false);
        }
        // Tasks follow the pieces: a task ends with the last unit that ends in its piece (the
        // planner is told where the piece of the bytes it asks for ends).
        let last = at_f + need.max(1) as f64 - 1.0;
        let piece_end = self
            .held
            .iter()
            .map(|p| p.at + p.bytes.length() as f64)
            .find(|&end| end > last)
            .unwrap_or(self.held_to);
        planner.set_limit(piece_end as u64);
        // Copy [at, at + need + extra) out of the pieces held.
        let want = ((need + PLAN_EXTRA) as f64)
            .min(self.held_to - at_f)
            .max(0.0) as usize;
        self.buf.clear();
        self.buf.resize(want, 0);
        let mut done = 0usize;
        for p in &self.held {
            if done == want {
                break;
            }
            let from = at_f + done as f64;
            let end = p.at + p.bytes.length() as f64;
            if end <= from || p.at > from {
                continue;
            }
            let rel = (from - p.at) as u32;
            let n = ((p.bytes.length() - rel) as usize).min(want - done);
            p.bytes
                .subarray(rel, rel + n as u32)
                .copy_to(&mut self.buf[done..done + n]);
            done += n;
        }
        self.buf.truncate(done);
        if at == 0 {
            self.first = Some(self.buf.clone());
        }
        planner.feed(at, &self.buf, tasks);
        if self.buf.len() < need && planner.want() == Some((at, need)) {
            // The file ends inside what the planner needs: the rest is the sequential decoder's.
            planner.end_of_file(tasks);
        }
        Ok(true)
    }

    /// The bytes of `task`'s blocks, taken out of the pieces held: a piece that ends inside the
    /// task goes to it whole; the one it ends in is shared, and only its rest, which later tasks
    /// read, is copied. Bytes before the task are no one's any more (earlier tasks took theirs,
    /// and the units between them were copied by the planner).
    pub fn take(&mut self, task: &Task) -> TaskBytes {
        let (start, end) = (task.offset as f64, (task.offset + task.len) as f64);
        let mut pieces = Vec::new();
        while let Some(p) = self.held.front() {
            let p_end = p.at + p.bytes.length() as f64;
            if p_end <= start {
                self.held.pop_front();
                continue;
            }
            if p.at >= end {
                break;
            }
            let from = start.max(p.at);
            let to = end.min(p_end);
            let view_off = p.bytes.byte_offset() + (from - p.at) as u32;
            let buffer = p.bytes.buffer();
            if p_end > end {
                // The rest of the piece is the next tasks': copied before this one is handed on.
                let rest_at = (end - p.at) as u32;
                let rest = p.bytes.subarray(rest_at, p.bytes.length());
                let copy = js_sys::Uint8Array::new_with_length(rest.length());
                copy.set(&rest, 0);
                self.held[0] = Piece {
                    at: end,
                    bytes: copy,
                };
                pieces.push((buffer, view_off, (to - from) as u32));
                break;
            }
            pieces.push((buffer, view_off, (to - from) as u32));
            self.held.pop_front();
        }
        TaskBytes { pieces }
    }
}
