//! Decoding one file on several workers (see `gcscope_core::parts`). This worker reads the file
//! once ([`super::feed`]) and runs the boundary pass on it, hands the tasks it cuts, with the
//! buffers that hold their blocks, to part workers it starts ([`super::part`]), and merges their
//! results in file order into the one reader, which delivers the events to the GC model here,
//! exactly as decoding the file here would. The merge and the model are about half the work, so N
//! workers are this one and N - 1 part workers.
//!
//! No memory is shared: a task, its bytes and its result are `ArrayBuffer`s that are transferred
//! (so plain static hosting, without cross-origin isolation, works). The file is read once, by
//! this worker: reading a `Blob` costs the browser as much as decoding costs a worker (a BYOB
//! stream read 268 MB in 0.24-0.35 s here), so parts reading their own slices of it would read it
//! twice. A compressed file (.zip, .gz), and whatever the parts leave (a damaged block, the end of
//! the file), is read here, from where the merge says, as a one-worker read does.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use gcscope_core::container::{sniff, Kind};
use gcscope_core::nettrace::part::PartContext;
use gcscope_core::parts::{self, wire, FilterFn, Merged, Planner, Task};
use gcscope_core::reader::TraceReader;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, ErrorEvent, MessageEvent, Url, Worker};

use super::chunks::{js_err, ChunkSource, Pumped};
use super::feed::{Feed, TaskBytes, Waker};
use crate::protocol::{
    ENV_TYPE, FILTER_GC, MODE_PART, MSG_FILTER, MSG_MODE, MSG_PIECES, MSG_TASK, PART_ERROR,
    PART_INDEX, PART_PAYLOADS, PART_PIECES, PART_RECORDS,
};
use gcscope_core::decode::Sink;
/// Tasks a part worker holds at once (queued in its message queue: it decodes one at a time).
const PER_WORKER: u32 = 4;

/// Where the decoding worker's events come from.
pub(super) enum Source {
    /// This worker reads the file itself.
    One(ChunkSource),
    /// Part workers decode it, this one merges (see the module docs).
    Parts(Box<Parts>),
}

impl Source {
    /// Reads `blob` with up to `workers` workers (this one included): parts when there are two or
    /// more and the worker's script is known, else this worker alone. `filter` is the reader's.
    pub(super) fn open(
        blob: &Blob,
        workers: u32,
        worker_js: Option<String>,
        filter: Option<FilterFn>,
    ) -> Result<Source, String> {
        match worker_js {
            Some(js) if workers >= 2 => Ok(Source::Parts(Box::new(Parts::new(
                blob,
                workers - 1,
                js,
                filter,
            )?))),
            _ => Ok(Source::One(ChunkSource::new(blob)?)),
        }
    }

    /// Reads and decodes the next piece of the file into `reader` (see [`ChunkSource::pump`]).
    pub(super) async fn pump(
        &mut self,
        reader: &mut TraceReader,
        sink: &mut Sink<'_>,
    ) -> Result<Pumped, String> {
        match self {
            Source::One(c) => c.pump(reader, sink).await,
            Source::Parts(p) => p.pump(reader, sink).await,
        }
    }

    /// Bytes of the file decoded so far.
    pub(super) fn offset(&self) -> f64 {
        match self {
            Source::One(c) => c.offset,
            Source::Parts(p) => p.offset(),
        }
    }

    /// Workers decoding now, this one included.
    pub(super) fn workers(&self) -> u32 {
        match self {
            Source::One(_) => 1,
            Source::Parts(p) if p.tail.is_some() => 1,
            Source::Parts(p) => p.pool.workers.len() as u32 + 1,
        }
    }

    /// Notes how many workers decode now (for [`used`](Self::used)).
    pub(super) fn note_workers(&mut self) {
        let n = self.workers();
        if let Source::Parts(p) = self {
            p.most_workers = p.most_workers.max(n);
        }
    }

    /// The most workers that decoded at once, and the bytes part workers decoded.
    pub(super) fn used(&self) -> (u32, f64) {
        match self {
            Source::One(_) => (1, 0.0),
            Source::Parts(p) => (p.most_workers.max(1), p.part_bytes),
        }
    }

    /// Why the file is read by this worker alone although more were allowed.
    pub(super) fn one_worker(&self) -> Option<String> {
        match self {
            Source::Parts(p) => p.one_worker.clone(),
            Source::One(_) => None,
        }
    }
}

/// The boundary pass, the part workers and the merge.
pub(super) struct Parts {
    blob: Blob,
    total: f64,
    filter: Option<FilterFn>,
    planner: Planner,
    feed: Feed,
    /// Tasks planned and not merged yet, in file order, with their blocks' bytes until a part
    /// worker takes them.
    planned: VecDeque<(Task, Option<TaskBytes>)>,
    /// Tasks in flight: task index -> part worker.
    assigned: BTreeMap<u64, usize>,
    waker: Waker,
    /// Tasks planned ahead of the merge (enough to keep every part worker busy).
    ahead: usize,
    pool: Pool,
    /// Where the file is read by this worker alone, once it is: (offset, reader of the rest).
    tail: Option<(f64, ChunkSource)>,
    merged: f64,
    one_worker: Option<String>,
    most_workers: u32,
    /// Bytes of blocks merged from part workers' results.
    part_bytes: f64,
}

impl Parts {
    fn new(
        blob: &Blob,
        part_workers: u32,
        worker_js: String,
        filter: Option<FilterFn>,
    ) -> Result<Parts, String> {
        let waker = Waker::default();
        Ok(Parts {
            blob: blob.clone(),
            total: blob.size(),
            filter,
            planner: Planner::cut_at_limits(filter),
            feed: Feed::new(blob, waker.clone()),
            planned: VecDeque::new(),
            assigned: BTreeMap::new(),
            waker: waker.clone(),
            ahead: PER_WORKER as usize * part_workers as usize + 2,
            pool: Pool::start(part_workers as usize, &worker_js, waker)?,
            tail: None,
            merged: 0.0,
            one_worker: None,
            most_workers: 1,
            part_bytes: 0.0,
        })
    }

    fn offset(&self) -> f64 {
        match &self.tail {
            Some((from, c)) => from + c.offset,
            None => self.merged,
        }
    }

    async fn pump(
        &mut self,
        reader: &mut TraceReader,
        sink: &mut Sink<'_>,
    ) -> Result<Pumped, String> {
        if let Some((_, tail)) = &mut self.tail {
            return tail.pump(reader, sink).await;
        }
        // Until the next task can be merged: plan what the bytes read allow, hand tasks to the
        // part workers, decode one here if none of them has room, else wait for a read or a
        // result.
        loop {
            while self.planned.len() < self.ahead && self.planner.want().is_some() {
                let mut tasks = Vec::new();
                if !self.feed.plan(&mut self.planner, &mut tasks)? {
                    break;
                }
                for t in tasks {
                    let bytes = t.has_blocks().then(|| self.feed.take(&t));
                    self.planned.push_back((t, bytes));
                }
            }
            self.dispatch();
            let head_ready = match self.planned.front() {
                None => self.planner.want().is_none(),
                Some((t, bytes)) if bytes.is_some() => {
                    // No part worker took it: none is ready. The first task is decoded here
                    // (the first rows should not wait for the workers to start); the others
                    // wait for them, unless they all failed.
                    t.index == 0 || self.pool.all_dead()
                }
                Some((t, _)) => {
                    !t.has_blocks()
                        || self
                            .assigned
                            .get(&t.index)
                            .is_none_or(|&w| self.pool.has_result(t.index) || self.pool.dead(w))
                }
            };
            if head_ready {
                break;
            }
            self.waker.wait().await;
            self.feed.poll()?;
        }
        let Some((task, bytes)) = self.planned.pop_front() else {
            // Every task is merged: the rest of the file (its end, or a unit the planner left)
            // is this worker's.
            let from = self.planner.tail().unwrap_or(0);
            if from == 0 {
                self.one_worker = Some(
                    match self.feed.first_bytes().and_then(|h| sniff(h, true).ok()?) {
                        Some(Kind::Zip) | Some(Kind::Gzip) => {
                            "a compressed file (.zip, .gz) is decoded on one worker".to_string()
                        }
                        _ => "this file is decoded on one worker".to_string(),
                    },
                );
            }
            self.read_rest_here(from as f64)?;
            return Ok(Pumped::Chunk);
        };
        let (output, from_worker) = self.output_of(&task, bytes).await?;
        let merged = parts::merge(reader, &task, output, sink);
        match merged {
            Ok(Merged::Done) => {
                if task.has_blocks() {
                    self.merged = self.merged.max((task.offset + task.len) as f64);
                    if from_worker {
                        self.part_bytes += task.len as f64;
                    }
                }
                Ok(Pumped::Chunk)
            }
            Ok(Merged::Sequential { from }) => {
                self.read_rest_here(from as f64)?;
                Ok(Pumped::Chunk)
            }
            Err(e) => Ok(Pumped::Failed(e.to_string())),
        }
    }

    /// From `from` on, this worker reads the file itself; the part workers stop.
    fn read_rest_here(&mut self, from: f64) -> Result<(), String> {
        self.pool.stop();
        self.planned.clear();
        let rest = self
            .blob
            .slice_with_f64_and_f64(from.min(self.total), self.total)
            .map_err(js_err)?;
        self.tail = Some((from, ChunkSource::new(&rest)?));
        Ok(())
    }

    /// Gives the planned tasks, in order, to part workers that have room.
    fn dispatch(&mut self) {
        for (task, bytes) in self.planned.iter_mut() {
            if bytes.is_none() {
                continue;
            }
            let Some(w) = self.pool.idle() else {
                break;
            };
            if let Some(b) = bytes.take() {
                match self.pool.send(w, task, b, self.filter) {
                    Ok(()) => {
                        self.assigned.insert(task.index, w);
                    }
                    Err(b) => {
                        *bytes = Some(b);
                        break;
                    }
                }
            }
        }
    }

    /// A task's output, and whether a part worker decoded it: from the part worker that has it,
    /// or decoded here when none could take it (they are still starting), or a part that stopped
    /// at once (the merge then reads the task's bytes here) when its worker failed.
    async fn output_of(
        &mut self,
        task: &Task,
        bytes: Option<TaskBytes>,
    ) -> Result<(parts::Output, bool), String> {
        if let Some(b) = bytes {
            return Ok((parts::decode(task, b.to_vec(), self.filter), false));
        }
        let Some(&w) = self.assigned.get(&task.index) else {
            return Ok((parts::decode(task, Vec::new(), self.filter), false));
        };
        let result = loop {
            if let Some(r) = self.pool.take(task.index) {
                break r;
            }
            if self.pool.dead(w) {
                break Err("a part worker stopped".to_string());
            }
            self.waker.wait().await;
        };
        self.assigned.remove(&task.index);
        let output = result.and_then(|(records, payloads)| {
            let records = js_sys::Uint8Array::new(&records).to_vec();
            let payloads = match payloads.dyn_into::<js_sys::ArrayBuffer>() {
                Ok(b) => js_sys::Uint8Array::new(&b).to_vec(),
                Err(pieces) => TaskBytes::from_js(&pieces)?.to_vec(),
            };
            wire::output_from_bytes(&records, payloads).map_err(|e| e.to_string())
        });
        // A result that is not there stands for a part that stopped at its first block.
        Ok(match output {
            Ok(o) => (o, true),
            Err(_) => (parts::decode(task, Vec::new(), self.filter), false),
        })
    }
}

/// What the part workers' messages leave for the merge.
#[derive(Default)]
struct Shared {
    /// Results by task index: the output's two buffers, or why there is none.
    /// Results by task index: the output's records, and its payloads (one buffer, or the task's
    /// pieces sent back), or why there is none.
    results: BTreeMap<u64, Result<(js_sys::ArrayBuffer, JsValue), String>>,
    ready: Vec<bool>,
    dead: Vec<bool>,
    busy: Vec<u32>,
}

struct PartWorker {
    worker: Worker,
    /// The context this worker was sent last (a task with the same one is sent without it).
    context: Option<Arc<PartContext>>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

/// The part workers.
struct Pool {
    shared: Rc<RefCell<Shared>>,
    workers: Vec<PartWorker>,
}

impl Pool {
    /// Starts `n` part workers from the worker's script at `worker_js`, each given this worker's
    /// compiled wasm module (so none compiles it again).
    fn start(n: usize, worker_js: &str, waker: Waker) -> Result<Pool, String> {
        let shared = Rc::new(RefCell::new(Shared {
            ready: vec![false; n],
            dead: vec![false; n],
            busy: vec![0; n],
            ..Default::default()
        }));
        // The module comes in the first message; the worker's own handler replaces this one once
        // its wasm runs (and says so with its Ready message).
        let boot = format!(
            "importScripts({worker_js:?}); self.onmessage = function (e) {{ self.onmessage = null; \
             wasm_bindgen({{ module_or_path: e.data }}).catch(function (err) {{ \
             postMessage({{ boot_failed: String(err) }}); }}); }};"
        );
        let opts = BlobPropertyBag::new();
        opts.set_type("text/javascript");
        let script = Blob::new_with_str_sequence_and_options(
            &js_sys::Array::of1(&JsValue::from_str(&boot)),
            &opts,
        )
        .map_err(js_err)?;
        let url = Url::create_object_url_with_blob(&script).map_err(js_err)?;
        let mut workers = Vec::with_capacity(n);
        for i in 0..n {
            let worker = match Worker::new(&url) {
                Ok(w) => w,
                Err(_) => {
                    // A browser without nested workers: the merge reads what they would have.
                    shared.borrow_mut().dead[i] = true;
                    continue;
                }
            };
            let (s, w) = (shared.clone(), waker.clone());
            let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |m: MessageEvent| {
                on_part_message(&s, i, &m.data());
                w.wake();
            });
            let (s, w) = (shared.clone(), waker.clone());
            let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |e: ErrorEvent| {
                e.prevent_default();
                s.borrow_mut().dead[i] = true;
                w.wake();
            });
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            if worker.post_message(&wasm_bindgen::module()).is_err() {
                shared.borrow_mut().dead[i] = true;
            }
            workers.push(PartWorker {
                worker,
                context: None,
                _on_message: on_message,
                _on_error: on_error,
            });
        }
        let _ = Url::revoke_object_url(&url);
        Ok(Pool { shared, workers })
    }

    /// A ready part worker with room for a task (the least busy).
    fn idle(&self) -> Option<usize> {
        let s = self.shared.borrow();
        (0..self.workers.len())
            .filter(|&i| s.ready[i] && !s.dead[i] && s.busy[i] < PER_WORKER)
            .min_by_key(|&i| s.busy[i])
    }

    /// Sends `task` and its bytes to part worker `i` (the bytes back if it cannot be sent).
    fn send(
        &mut self,
        i: usize,
        task: &Task,
        bytes: TaskBytes,
        filter: Option<FilterFn>,
    ) -> Result<(), TaskBytes> {
        let Some(w) = self.workers.get_mut(i) else {
            return Err(bytes);
        };
        let changed = match (&w.context, &task.context) {
            (Some(a), Some(b)) => !Arc::ptr_eq(a, b),
            (None, Some(_)) => true,
            _ => false,
        };
        let encoded = wire::task_to_bytes(task, changed);
        let buffer = js_sys::Uint8Array::from(&encoded[..]).buffer();
        let msg = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| {
            let _ = js_sys::Reflect::set(&msg, &JsValue::from_str(k), v);
        };
        set(MSG_MODE, &JsValue::from_str(MODE_PART));
        set(MSG_TASK, &buffer);
        if filter.is_some() {
            set(MSG_FILTER, &JsValue::from_str(FILTER_GC));
        }
        // Every buffer transferred: a piece's buffer is this task's alone (`Feed::take`).
        let (pieces, transfer) = bytes.to_js();
        transfer.push(&buffer);
        set(MSG_PIECES, &pieces);
        if w.worker
            .post_message_with_transfer(&msg, &transfer)
            .is_err()
        {
            return Err(bytes);
        }
        if changed {
            w.context = task.context.clone();
        }
        self.shared.borrow_mut().busy[i] += 1;
        Ok(())
    }

    /// The result of task `index`, if it came.
    fn take(&mut self, index: u64) -> Option<Result<(js_sys::ArrayBuffer, JsValue), String>> {
        self.shared.borrow_mut().results.remove(&index)
    }

    fn dead(&self, i: usize) -> bool {
        self.shared.borrow().dead.get(i).copied().unwrap_or(true)
    }

    /// Whether every part worker failed (or none could start).
    fn all_dead(&self) -> bool {
        let s = self.shared.borrow();
        s.dead.iter().all(|&d| d)
    }

    /// Whether task `index`'s result came.
    fn has_result(&self, index: u64) -> bool {
        self.shared.borrow().results.contains_key(&index)
    }

    fn stop(&mut self) {
        for w in self.workers.drain(..) {
            w.worker.set_onmessage(None);
            w.worker.set_onerror(None);
            w.worker.terminate();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A part worker's message: it is ready, or a task's result (see [`super::part`]).
fn on_part_message(shared: &Rc<RefCell<Shared>>, i: usize, data: &JsValue) {
    let get = |k: &str| js_sys::Reflect::get(data, &JsValue::from_str(k)).ok();
    {
        let mut s = shared.borrow_mut();
        if get("boot_failed").is_some_and(|b| !b.is_undefined()) {
            s.dead[i] = true;
        } else if get(ENV_TYPE).and_then(|t| t.as_string()).as_deref() == Some("ready") {
            s.ready[i] = true;
        } else if let Some(index) = get(PART_INDEX).and_then(|x| x.as_f64()) {
            s.busy[i] = s.busy[i].saturating_sub(1);
            let result = match get(PART_ERROR).and_then(|e| e.as_string()) {
                Some(e) => Err(e),
                None => match (
                    get(PART_RECORDS).and_then(|b| b.dyn_into().ok()),
                    get(PART_PAYLOADS)
                        .filter(|p| !p.is_undefined())
                        .or_else(|| get(PART_PIECES)),
                ) {
                    (Some(r), Some(p)) => Ok((r, p)),
                    _ => Err("a part result without its bytes".to_string()),
                },
            };
            if index >= 0.0 {
                s.results.insert(index as u64, result);
            } else {
                // A task the worker could not even read: it is of no use any more.
                s.dead[i] = true;
            }
        }
    }
}
