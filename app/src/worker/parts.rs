//! Decoding one file on several workers (see `gcscope_core::parts`). This worker reads the file
//! for the boundary pass ([`super::feed`]: a few bytes per block are all the planner reads), hands
//! the tasks it cuts to part workers the page started for it ([`super::part`], [`Pool`]), which
//! read their tasks' bytes
//! from the file themselves, and merges their results in file order into the one reader, which
//! delivers the events to the GC model here, exactly as decoding the file here would. N workers are
//! this one and N - 1 part workers. This worker's own share (planning, copying the parts' results
//! in, the merge and the model) is most of what one worker does alone, which bounds what more
//! workers can gain (docs/performance-log/journal.md, "Several workers in the tab, again").
//!
//! No memory is shared: a task and its result are `ArrayBuffer`s that are transferred, and the file
//! a `Blob` that every worker reads (so plain static hosting, without cross-origin isolation,
//! works). The file's bytes do not pass through this worker: reading them here and transferring
//! them would cost this worker more than the parts save it (docs/performance-log/journal.md,
//! "Several workers in the tab, again"). A compressed file (.zip, .gz), and whatever the parts
//! leave (a damaged block, the end of the file), is read here, from where the merge says, as a
//! one-worker read does.

use std::collections::{BTreeMap, VecDeque};

use gcscope_core::container::{sniff, Kind};
use gcscope_core::parts::{self, wire, FilterFn, Merged, Planner, Task};
use gcscope_core::reader::TraceReader;
use gcscope_core::sink::Sink;
use gcscope_core::Consumer;
use web_sys::{Blob, MessagePort};

use super::chunks::{js_err, release, ChunkSource, Pumped};
use super::feed::{Feed, Planned, Waker};
use super::part::read_task;
use super::pool::{Pool, PER_WORKER};

/// Milliseconds without a word from any part worker after which they are given up (a task takes
/// them tens of milliseconds).
const STALL_MS: f64 = 10_000.0;

/// Where the decoding worker's events come from.
pub(super) enum Source {
    /// This worker reads the file itself.
    One(ChunkSource),
    /// Part workers decode it, this one merges (see the module docs).
    Parts(Box<Parts>),
}

impl Source {
    /// Reads `blob` with up to `workers` workers (this one included): parts when there are two or
    /// more and part workers' `ports` (see [`Pool`]), else this worker alone. `consumer` is the
    /// reader's ([`gcscope_core::TraceReader::consumer`]): the parts are decoded for it.
    pub(super) fn open(
        blob: &Blob,
        workers: u32,
        mut ports: Vec<MessagePort>,
        consumer: Consumer,
    ) -> Result<Source, String> {
        ports.truncate(workers.saturating_sub(1) as usize);
        if ports.is_empty() {
            return Ok(Source::One(ChunkSource::new(blob)?));
        }
        Ok(Source::Parts(Box::new(Parts::new(blob, ports, consumer)?)))
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
            Source::Parts(p) => p.pool.as_ref().map_or(1, |pool| pool.len() as u32 + 1),
        }
    }

    /// Notes how many workers decode now (for [`used`](Self::used)).
    pub(super) fn note_workers(&mut self) {
        let n = self.workers();
        if let Source::Parts(p) = self {
            p.most_workers = p.most_workers.max(n);
        }
    }

    /// The most workers that decoded at once, the bytes part workers decoded, and the
    /// milliseconds this worker waited for them.
    pub(super) fn used(&self) -> (u32, f64, f64) {
        match self {
            Source::One(_) => (1, 0.0, 0.0),
            Source::Parts(p) => (p.most_workers.max(1), p.part_bytes, p.waited_ms),
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
    /// The planner's reader, until this worker reads the rest itself.
    feed: Option<Feed>,
    /// Tasks planned and not merged yet, in file order, and whether no part worker has taken
    /// them yet.
    planned: VecDeque<(Task, bool)>,
    /// Tasks in flight: task index -> part worker.
    assigned: BTreeMap<u64, usize>,
    waker: Waker,
    /// Tasks planned ahead of the merge (enough to keep every part worker busy).
    ahead: usize,
    /// The part workers, started once the file turns out to have a task for them (a compressed
    /// file, or one of a single task, never starts them).
    pool: Option<Pool>,
    /// The part workers' ports, until they are needed.
    ports: Vec<MessagePort>,
    /// Where the file is read by this worker alone, once it is: (offset, reader of the rest).
    tail: Option<(f64, ChunkSource)>,
    merged: f64,
    one_worker: Option<String>,
    most_workers: u32,
    /// Bytes of blocks merged from part workers' results.
    part_bytes: f64,
    /// Milliseconds spent waiting: for part workers' results, and for reads of the file.
    waited_ms: f64,
}

impl Parts {
    fn new(blob: &Blob, ports: Vec<MessagePort>, consumer: Consumer) -> Result<Parts, String> {
        let waker = Waker::default();
        Ok(Parts {
            blob: blob.clone(),
            total: blob.size(),
            filter: consumer.filter(),
            planner: Planner::for_consumer(consumer),
            feed: Some(Feed::new(ChunkSource::new(blob)?)),
            planned: VecDeque::new(),
            assigned: BTreeMap::new(),
            waker: waker.clone(),
            ahead: PER_WORKER as usize * ports.len() + 2,
            pool: None,
            ports,
            tail: None,
            merged: 0.0,
            one_worker: None,
            most_workers: 1,
            part_bytes: 0.0,
            waited_ms: 0.0,
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
            let r = tail.pump(reader, sink).await;
            return r;
        }
        // Until the next task can be merged: plan what the bytes read allow, hand tasks to the
        // part workers, decode one here if none of them has room, else wait for a read or a
        // result.
        loop {
            let mut need_read = false;
            while let Some(feed) = self.feed.as_mut() {
                if self.planned.len() >= self.ahead || self.planner.want().is_none() {
                    break;
                }
                let mut tasks = Vec::new();
                if let Planned::NeedRead = feed.plan(&mut self.planner, &mut tasks) {
                    need_read = true;
                    break;
                }
                for t in tasks {
                    let unsent = t.has_blocks();
                    self.planned.push_back((t, unsent));
                }
            }
            if self.pool.is_none()
                && self
                    .planned
                    .iter()
                    .any(|(t, unsent)| *unsent && t.index > 0)
            {
                let pool = Pool::start(std::mem::take(&mut self.ports), self.waker.clone());
                self.pool = Some(pool);
            }
            self.dispatch();
            let head_ready = match self.planned.front() {
                None => self.planner.want().is_none(),
                Some((t, true)) => {
                    // No part worker took it: none is ready. The first task is decoded here
                    // (the first rows should not wait for the workers to start); the others
                    // wait for them, unless they all failed.
                    t.index == 0 || self.pool.as_ref().is_none_or(Pool::all_dead)
                }
                Some((t, _)) => {
                    !t.has_blocks()
                        || self.assigned.get(&t.index).is_none_or(|&w| {
                            self.pool
                                .as_ref()
                                .is_none_or(|p| p.has_result(t.index) || p.dead(w))
                        })
                }
            };
            if head_ready {
                break;
            }
            let t0 = js_sys::Date::now();
            match self.feed.as_mut() {
                // Reading is quick (the next chunk is read while this one is planned): part
                // results that come meanwhile wait in the pool.
                Some(feed) if need_read => {
                    feed.read().await?;
                }
                _ => self.wait_for_parts().await,
            }
            self.waited_ms += js_sys::Date::now() - t0;
        }
        let Some((task, unsent)) = self.planned.pop_front() else {
            // Every task is merged: the rest of the file (its end, or a unit the planner left)
            // is this worker's.
            let from = self.planner.tail().unwrap_or(0);
            if from == 0 {
                self.one_worker = Some(
                    match (self.feed.as_ref())
                        .and_then(Feed::first_bytes)
                        .and_then(|h| sniff(h, true).ok()?)
                    {
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
        let (output, from_worker) = self.output_of(&task, unsent).await?;
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

    /// Until a part worker says something, or [`STALL_MS`] (then they are given up).
    async fn wait_for_parts(&mut self) {
        if !self.waker.wait(STALL_MS).await {
            self.stalled();
        }
    }

    /// No part worker said anything for [`STALL_MS`] while this worker waited for one: they are
    /// given up (the tasks they hold are read here, as for a failed worker), and the console says
    /// so, with what was waited for.
    fn stalled(&mut self) {
        let Some(pool) = self.pool.as_ref() else {
            return;
        };
        let head = self.planned.front().map(|(t, unsent)| (t.index, *unsent));
        web_sys::console::error_1(
            &format!(
                "gcscope: no part worker answered for {} s; the rest of the file is read by one \
                 worker (next task {head:?}, assigned {:?}, workers {})",
                STALL_MS / 1000.0,
                head.and_then(|(i, _)| self.assigned.get(&i)),
                pool.state()
            )
            .into(),
        );
        pool.give_up();
    }

    /// From `from` on, this worker reads the file itself; the part workers stop.
    fn read_rest_here(&mut self, from: f64) -> Result<(), String> {
        self.feed = None;
        if let Some(mut pool) = self.pool.take() {
            pool.stop();
        }
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
        for (task, unsent) in self.planned.iter_mut() {
            if !*unsent {
                continue;
            }
            let Some(pool) = self.pool.as_mut() else {
                break;
            };
            let Some(w) = pool.idle() else {
                break;
            };
            if !pool.send(w, task, &self.blob, self.filter) {
                break;
            }
            self.assigned.insert(task.index, w);
            *unsent = false;
        }
    }

    /// A task's output, and whether a part worker decoded it: from the part worker that has it,
    /// or decoded here when none took it (they are still starting), or a part that stopped at
    /// once (the merge then reads the task's bytes here) when its worker failed.
    async fn output_of(
        &mut self,
        task: &Task,
        unsent: bool,
    ) -> Result<(parts::Output, bool), String> {
        if unsent {
            let t0 = js_sys::Date::now();
            let (buffer, bytes) = read_task(&self.blob, task).await?;
            self.waited_ms += js_sys::Date::now() - t0;
            release(&buffer);
            return Ok((parts::decode(task, bytes, self.filter), false));
        }
        let Some(&w) = self.assigned.get(&task.index) else {
            return Ok((parts::decode(task, Vec::new(), self.filter), false));
        };
        let result = loop {
            let Some(pool) = self.pool.as_mut() else {
                break Err("the part workers stopped".to_string());
            };
            if let Some(r) = pool.take(task.index) {
                break r;
            }
            if pool.dead(w) {
                break Err("a part worker stopped".to_string());
            }
            let t0 = js_sys::Date::now();
            self.wait_for_parts().await;
            self.waited_ms += js_sys::Date::now() - t0;
        };
        self.assigned.remove(&task.index);
        let output = result.and_then(|r| {
            let records = copied(&r.records, r.records_len);
            let payloads = copied(&r.payloads, r.payloads_len);
            // Both buffers go back to the part worker, to read and write its next tasks into.
            if let Some(pool) = self.pool.as_ref() {
                pool.give_back(w, &r.records);
                pool.give_back(w, &r.payloads);
            }
            wire::output_from_bytes(&records, payloads).map_err(|e| e.to_string())
        });
        // A result that is not there stands for a part that stopped at its first block.
        Ok(match output {
            Ok(o) => (o, true),
            Err(_) => (parts::decode(task, Vec::new(), self.filter), false),
        })
    }
}

/// The first `len` bytes of `buffer` (at most all of them), copied into wasm memory (into a new
/// Vec, not zeroed first: `to_vec`).
fn copied(buffer: &js_sys::ArrayBuffer, len: u32) -> Vec<u8> {
    let len = len.min(buffer.byte_length());
    js_sys::Uint8Array::new_with_byte_offset_and_length(buffer, 0, len).to_vec()
}
