//! One pretty JSON array whose items are serialized on several threads, a chunk at a time, and
//! written in order: the bytes serde_json's pretty printer writes for the whole array. For the
//! outputs that are mostly serializing (`budgets --json`, `gcs --json` of a many-heap trace), which
//! on one thread take longer to print than the file takes to read (docs/performance-log/journal.md,
//! "The CLI's rows kept lean, `budgets --json` on threads").
//!
//! Chunk `k` goes to thread `k % threads`, each thread makes its chunks in order into its own
//! bounded queue, and the writer takes them back round the threads: the order needs no reordering
//! buffer, and memory stays at a few chunks a thread.

use std::cell::RefCell;
use std::io::{self, Write};
use std::sync::mpsc;

use serde::Serialize;

/// Chunks a thread may have made ahead of the writer.
const AHEAD: usize = 2;

/// The pretty JSON of `v`, for `make` in [`write()`] (of an array: a chunk's items).
pub fn pretty<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    let mut buf = Vec::new();
    // Into a Vec, from our own structs: it does not fail.
    let _ = serde_json::to_writer_pretty(&mut buf, v);
    buf
}

/// Writes to `out` one array of the items of `chunks`, in order, each chunk made into the pretty
/// JSON of an array of its items by `make` on one of `threads` threads (the chunks themselves are
/// taken on a thread of their own: they may come from a channel). Stops early, without an error,
/// once `stopped(out)` says the output went away (a closed pipe behind
/// [`crate::output::stdout::Out`]).
pub fn write<C: Send, W: Write + ?Sized>(
    out: &mut W,
    threads: usize,
    chunks: impl Iterator<Item = C> + Send,
    make: impl Fn(C) -> Vec<u8> + Sync,
    stopped: impl Fn(&W) -> bool,
) -> io::Result<()> {
    let threads = threads.max(1);
    let make = &make;
    std::thread::scope(|s| {
        let mut to_make = Vec::with_capacity(threads);
        let mut made = Vec::with_capacity(threads);
        for _ in 0..threads {
            let (tx, rx) = mpsc::sync_channel::<C>(1);
            let (done_tx, done_rx) = mpsc::sync_channel::<Vec<u8>>(AHEAD);
            s.spawn(move || {
                for c in rx {
                    // The writer has stopped: stop too (the chunks' thread then stops sending).
                    if done_tx.send(make(c)).is_err() {
                        return;
                    }
                }
            });
            to_make.push(tx);
            made.push(done_rx);
        }
        s.spawn(move || {
            for (k, c) in chunks.enumerate() {
                if to_make[k % threads].send(c).is_err() {
                    return;
                }
            }
        });
        out.write_all(b"[")?;
        let mut first = true;
        // Chunk k is thread k % threads' next; a thread with none left has closed its queue.
        for k in 0.. {
            let Ok(array) = made[k % threads].recv() else {
                break;
            };
            // "[\n  {...},\n  {...}\n]": the items, indented as in the whole array; "[]": none.
            let items = array
                .strip_prefix(b"[\n")
                .and_then(|c| c.strip_suffix(b"\n]"));
            if let Some(items) = items {
                out.write_all(if first { b"\n" } else { b",\n" })?;
                out.write_all(items)?;
                first = false;
            }
            if stopped(out) {
                return Ok(());
            }
        }
        out.write_all(if first { b"]" } else { b"\n]" })
    })
}

/// `items` in vectors of up to `n` (the last may hold fewer; none is empty).
pub fn chunks_of<T>(mut items: impl Iterator<Item = T>, n: usize) -> impl Iterator<Item = Vec<T>> {
    std::iter::from_fn(move || {
        let chunk: Vec<T> = items.by_ref().take(n.max(1)).collect();
        (!chunk.is_empty()).then_some(chunk)
    })
}

/// A sequence serialized as its items are made, for [`crate::output::stdout::print_json`] of what
/// is never held whole (`budgets --json`: each GC's budgets, per heap, made from its packed heaps
/// and let go).
pub struct SerializedAsMade<I>(RefCell<Option<I>>);

impl<I> SerializedAsMade<I> {
    pub fn new(items: I) -> Self {
        SerializedAsMade(RefCell::new(Some(items)))
    }
}

impl<I: Iterator<Item = T>, T: Serialize> Serialize for SerializedAsMade<I> {
    /// Serialized once: a second time gives an empty sequence.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.borrow_mut().take().into_iter().flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_made_on_threads_are_the_whole_arrays_bytes() {
        // The reference: serde's pretty printer on the whole array, of items that nest (their
        // indentation must be the array's) and of none.
        #[derive(Serialize, Clone)]
        struct Item {
            n: usize,
            inner: Vec<u32>,
            text: String,
        }
        for len in [0, 1, 2, 5, 64, 301] {
            let items: Vec<Item> = (0..len)
                .map(|n| Item {
                    n,
                    inner: (0..(n % 4) as u32).collect(),
                    text: format!("item {n}"),
                })
                .collect();
            let want = serde_json::to_string_pretty(&items).unwrap();
            for chunk in [1, 2, 7, 64, 1000] {
                for threads in [1, 2, 3, 8] {
                    let mut out = Vec::new();
                    let chunks = chunks_of(items.clone().into_iter(), chunk);
                    write(
                        &mut out,
                        threads,
                        chunks,
                        |c: Vec<Item>| pretty(&c),
                        |_| false,
                    )
                    .unwrap();
                    assert!(
                        out == want.as_bytes(),
                        "{len} items, chunks of {chunk}, {threads} threads"
                    );
                }
            }
        }
        // Empty chunks (a range of GCs without budgets) add nothing.
        let mut out = Vec::new();
        let chunks = [vec![], vec![1], vec![], vec![2, 3], vec![]].into_iter();
        write(&mut out, 2, chunks, |c: Vec<u32>| pretty(&c), |_| false).unwrap();
        assert_eq!(out, serde_json::to_vec_pretty(&[1, 2, 3]).unwrap());
    }

    #[test]
    fn a_stopped_output_stops_the_threads() {
        // The output goes away after the first chunk: the call returns, every thread ends (the
        // scope would hang otherwise), though a million chunks were offered.
        let mut out = Vec::new();
        let chunks = (0..1_000_000).map(|n| vec![n]);
        write(
            &mut out,
            3,
            chunks,
            |c: Vec<u32>| pretty(&c),
            |o| !o.is_empty(),
        )
        .unwrap();
        assert_eq!(out, b"[\n  0");
    }
}
