//! Reading one trace file on several threads (`--jobs N`), with core's parts
//! ([`gcscope_core::parts`]): the calling thread runs the boundary pass, reading only the block
//! headers and the small blocks between them, and hands the tasks it cuts to N - 1 threads, which
//! read their own byte ranges of the file (`pread`) and decode them; it merges their results in
//! file order into the one reader, which delivers the events to the sink exactly as a sequential
//! read does. The merge and the sink (the GC model, about half the work) run on the calling thread
//! while the others decode: N threads in all. With one or two decoding threads, when the task the
//! merge needs next is not decoded yet, the calling thread decodes one still queued itself rather
//! than wait.
//! A .zip or .gz, and whatever the parts leave, is read by the calling thread from the offset the
//! merge says.

use gcscope_core::error::Result as DecodeResult;
use gcscope_core::parts::{self, FilterFn, Merged, Output, Planner, Task};
use gcscope_core::sink::Sink;
use gcscope_core::TraceReader;
use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

/// Bytes the boundary pass reads at once while the units it steps over are small (many headers
/// per read). Once a unit it skips is larger than what it read, it reads only what it needs: the
/// runtime's event blocks are larger than this, and reading them whole here (only for their
/// headers) would copy the whole file a second time on the merging thread, which bounds the read
/// (docs/performance-log/journal.md, "The merging thread").
const PLAN_READ: usize = 64 << 10;
/// At most this many tasks ahead of the merge, whatever `--jobs` says: what 8 threads keep in
/// flight. More threads do not read faster (the merging thread is the bound) but would hold more
/// tasks, each its buffer and records (docs/performance-log/journal.md, "Sixteen cores").
const AHEAD_MAX: usize = 18;
/// The merging thread decodes queued tasks itself only with this many decoding threads or fewer:
/// with more, they outpace it, and every task it decoded would delay the merge, which is then the
/// bound (docs/performance-log/journal.md, "Sixteen cores").
const STEAL_UP_TO: usize = 2;
/// Bytes the sequential tail is read in.
const TAIL_READ: usize = 1 << 20;

/// Reads `file` through `reader` on `jobs` threads (at least 2: this one and the decoding ones),
/// the parts decoded for the reader's consumer (its filter, and what it reads of the ticks),
/// delivering events to `sink`. Returns the reader's result (an I/O error is the outer `Err`).
pub fn read(
    file: &File,
    path: &str,
    reader: &mut TraceReader,
    jobs: usize,
    sink: &mut Sink<'_>,
) -> Result<DecodeResult<()>, String> {
    let consumer = reader.consumer();
    let filter = consumer.filter();
    let decoders = jobs.max(2) - 1;
    // Tasks planned and not merged yet: enough to keep every thread busy while the merge waits
    // for the oldest, few enough to bound the memory (a task is 4 MiB of blocks and its records).
    let ahead = (2 * decoders + 2).min(AHEAD_MAX);
    std::thread::scope(|s| {
        let (task_tx, task_rx) = mpsc::channel::<Arc<Task>>();
        let task_rx = Arc::new(Mutex::new(task_rx));
        let (out_tx, out_rx) = mpsc::channel::<(u64, Output)>();
        // Task buffers the reader is done with, and outputs merged (their vectors' memory), for
        // the decoding threads to read and decode into again.
        let (pool_tx, pool_rx) = mpsc::channel::<Vec<u8>>();
        let (spent_tx, spent_rx) = mpsc::channel::<Output>();
        let pool = Arc::new(Spare {
            buffers: Mutex::new(pool_rx),
            outputs: Mutex::new(spent_rx),
        });
        for _ in 0..decoders {
            let (rx, tx, pool) = (task_rx.clone(), out_tx.clone(), pool.clone());
            s.spawn(move || decode_tasks(file, &rx, &tx, &pool, filter));
        }
        drop(out_tx);
        let mut planner = match task_bytes() {
            Some(b) => Planner::with_task_bytes(consumer, b),
            None => Planner::for_consumer(consumer),
        };
        let mut planned: VecDeque<Arc<Task>> = VecDeque::new();
        let mut done: BTreeMap<u64, Output> = BTreeMap::new();
        let mut head = vec![0u8; PLAN_READ];
        let mut bulk = true;
        let mut new_tasks = Vec::new();
        let mut resume = None;
        let mut result = Ok(());
        loop {
            while planned.len() < ahead && planner.want().is_some() {
                plan_more(
                    file,
                    path,
                    &mut planner,
                    &mut head,
                    &mut bulk,
                    &mut new_tasks,
                )?;
                for t in new_tasks.drain(..) {
                    let t = Arc::new(t);
                    if t.has_blocks() {
                        // Every thread gone (one panicked): the merge below says so.
                        let _ = task_tx.send(t.clone());
                    }
                    planned.push_back(t);
                }
            }
            let Some(task) = planned.pop_front() else {
                break;
            };
            let mut output = if task.has_blocks() {
                loop {
                    while let Ok((i, o)) = out_rx.try_recv() {
                        done.insert(i, o);
                    }
                    if let Some(o) = done.remove(&task.index) {
                        break o;
                    }
                    // The next task is still being decoded: rather than wait, decode one still
                    // queued here (every thread busy), so that with few decoding threads this one
                    // is not idle while they have work left (docs/performance-log/journal.md, "A
                    // stall in the sort buffer, rows on their own thread, compressed per-heap
                    // histories").
                    if let Some(t) = (decoders <= STEAL_UP_TO).then(|| steal(&task_rx)).flatten() {
                        let o = decode_one(file, &t, &pool, filter);
                        done.insert(t.index, o);
                        continue;
                    }
                    let (i, o) = out_rx
                        .recv()
                        .map_err(|_| format!("'{path}': a decoding thread stopped"))?;
                    done.insert(i, o);
                }
            } else {
                parts::decode(&task, Vec::new(), filter)
            };
            let merged = parts::merge_keeping(reader, &task, &mut output, sink);
            while let Some(b) = reader.take_spent_buffer() {
                let _ = pool_tx.send(b);
            }
            // An .etl output was moved into the merge whole: nothing of it to reuse.
            if matches!(output, Output::EventPipe(_)) {
                let _ = spent_tx.send(output);
            }
            match merged {
                Ok(Merged::Done) => {}
                Ok(Merged::Sequential { from }) => {
                    resume = Some(from);
                    break;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        // The threads finish the task in hand and stop.
        drop(task_tx);
        if result.is_ok() {
            let from = resume.or(planner.tail()).unwrap_or(0);
            result = read_from(file, path, from, reader, sink)?;
        }
        Ok(result)
    })
}

/// Bytes of blocks per task, when `GCSCOPE_TASK_BYTES` sets it (tests: many tasks from a small
/// trace); else the planner's own sizes.
fn task_bytes() -> Option<u64> {
    std::env::var("GCSCOPE_TASK_BYTES").ok()?.parse().ok()
}

/// What the merge is done with, for the decoding threads to use again: task buffers (their pages
/// are there and written: a new 4 MiB buffer is zeroed and faulted in page by page by the read) and
/// outputs (their vectors grown to a task's events, where new ones would fault in their pages again
/// for every task; docs/performance-log/journal.md, "Outputs decoded into again; the CLI's insights
/// bounded").
struct Spare {
    buffers: Mutex<mpsc::Receiver<Vec<u8>>>,
    outputs: Mutex<mpsc::Receiver<Output>>,
}

/// One thread: takes tasks until there are none, reads each one's bytes and decodes them.
fn decode_tasks(
    file: &File,
    tasks: &Mutex<mpsc::Receiver<Arc<Task>>>,
    out: &mpsc::Sender<(u64, Output)>,
    pool: &Spare,
    filter: Option<FilterFn>,
) {
    loop {
        let task = match tasks.lock() {
            Ok(rx) => match rx.recv() {
                Ok(t) => t,
                Err(_) => return,
            },
            Err(_) => return,
        };
        let output = decode_one(file, &task, pool, filter);
        if out.send((task.index, output)).is_err() {
            return;
        }
    }
}

/// A task still queued, if no decoding thread is waiting for one (one that waits holds the queue's
/// lock, and then the queue is empty).
fn steal(tasks: &Mutex<mpsc::Receiver<Arc<Task>>>) -> Option<Arc<Task>> {
    tasks.try_lock().ok()?.try_recv().ok()
}

/// Reads one task's bytes and decodes them.
fn decode_one(file: &File, task: &Task, pool: &Spare, filter: Option<FilterFn>) -> Output {
    // The part keeps the bytes (its events' payloads point into them): one buffer per task,
    // no longer than the file (the planner frames blocks by their size fields alone, so a
    // damaged one can make a task claim up to 2 GiB past the end).
    let size = file.metadata().map_or(u64::MAX, |m| m.len());
    let len = task.len.min(size.saturating_sub(task.offset)) as usize;
    let mut buf = pool
        .buffers
        .lock()
        .ok()
        .and_then(|p| p.try_recv().ok())
        .unwrap_or_default();
    if buf.len() >= len {
        buf.truncate(len);
    } else {
        buf.resize(len, 0);
    }
    // A short read (the file changed, an I/O error) makes the part stop where its bytes end;
    // the calling thread then reads from there itself and reports what is wrong.
    let n = read_full(file, &mut buf, task.offset);
    buf.truncate(n);
    // A part that panicked (a bug) leaves its task to the sequential decoder rather than
    // leave the merge waiting.
    let spare = pool.outputs.lock().ok().and_then(|p| p.try_recv().ok());
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        parts::decode_reusing(task, buf, filter, spare)
    }))
    .unwrap_or_else(|_| parts::decode(task, Vec::new(), filter))
}

/// Reads `buf.len()` bytes at `offset`, fewer only at the end of the file or on an error.
fn read_full(file: &File, buf: &mut [u8], offset: u64) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], offset + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    n
}

/// Gives the planner the bytes it wants: at least `need` at its offset, up to [`PLAN_READ`] more
/// while `bulk` (which it clears once the planner skips past what it was given, and sets again
/// when a read held more than one unit).
fn plan_more(
    file: &File,
    path: &str,
    planner: &mut Planner,
    head: &mut Vec<u8>,
    bulk: &mut bool,
    tasks: &mut Vec<Task>,
) -> Result<(), String> {
    let Some((at, need)) = planner.want() else {
        return Ok(());
    };
    let len = if *bulk { need.max(PLAN_READ) } else { need };
    if head.len() < len {
        head.resize(len, 0);
    }
    let mut n = 0;
    while n < need {
        match file.read_at(&mut head[n..len], at + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(format!(
                    "cannot read '{path}' at byte {}: {e}",
                    at + n as u64
                ))
            }
        }
    }
    planner.feed(at, &head[..n], tasks);
    if let Some((next, _)) = planner.want() {
        // Skipped past the bytes read: reading ahead was wasted. Stopped short of them: it was not.
        *bulk = next < at + n as u64;
    }
    if n < need && planner.want() == Some((at, need)) {
        // The file ends inside what it needs: the rest is the sequential decoder's.
        planner.end_of_file(tasks);
    }
    Ok(())
}

/// The file from `from` to its end, through the reader as a sequential read does, then its end.
fn read_from(
    file: &File,
    path: &str,
    from: u64,
    reader: &mut TraceReader,
    sink: &mut Sink<'_>,
) -> Result<DecodeResult<()>, String> {
    let mut buf = vec![0u8; TAIL_READ];
    let mut at = from;
    loop {
        let n = match file.read_at(&mut buf, at) {
            Ok(0) => return Ok(reader.finish_with_info(sink)),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("cannot read '{path}' at byte {at}: {e}")),
        };
        at += n as u64;
        if let Err(e) = reader.push_with_info(&buf[..n], sink) {
            return Ok(Err(e));
        }
    }
}
