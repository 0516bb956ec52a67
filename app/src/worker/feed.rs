//! The file as the parts path's planner reads it (see [`super::parts`]): once, in order, through
//! the one-worker reader ([`ChunkSource`]: a BYOB reader into one reused buffer where the browser
//! has one), each chunk copied into wasm memory once and let go of when the planner is past it.
//! The planner reads a few bytes per block of them; the part workers read their tasks' bytes
//! themselves (`Blob.slice`), so no file bytes leave this worker. (Handing the planner a few bytes
//! per block out of JS buffers costs JS calls per block; one copy per chunk costs a memcpy:
//! docs/performance-log/journal.md, "Several workers in the tab, again".)

use std::collections::VecDeque;

use gcscope_core::parts::{Planner, Task};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::chunks::ChunkSource;

/// Chunks kept for reuse once let go of.
const SPARE: usize = 2;

pub(super) struct Feed {
    source: ChunkSource,
    /// Chunks held, in file order: (offset, bytes).
    held: VecDeque<(u64, Vec<u8>)>,
    /// Where the bytes held end.
    held_to: u64,
    /// The blob is read to its end.
    ended: bool,
    first: Option<Vec<u8>>,
    /// Bytes the planner wants that span chunks, copied together.
    joined: Vec<u8>,
    spare: Vec<Vec<u8>>,
}

/// What [`Feed::plan`] did.
pub(super) enum Planned {
    /// The planner was fed.
    Fed,
    /// The bytes it wants are not read yet: [`Feed::read`] them.
    NeedRead,
}

impl Feed {
    pub fn new(source: ChunkSource) -> Feed {
        Feed {
            source,
            held: VecDeque::new(),
            held_to: 0,
            ended: false,
            first: None,
            joined: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// The file's first bytes, once read.
    pub fn first_bytes(&self) -> Option<&[u8]> {
        self.first.as_deref()
    }

    /// Reads the next chunk into wasm memory (the one after it is read meanwhile).
    pub async fn read(&mut self) -> Result<(), String> {
        match self.source.next_chunk().await? {
            Some(bytes) if !bytes.is_empty() => {
                let mut v = self.spare.pop().unwrap_or_default();
                v.clear();
                v.extend_from_slice(bytes);
                if self.held_to == 0 {
                    self.first = Some(v[..v.len().min(4096)].to_vec());
                }
                let at = self.held_to;
                self.held_to += v.len() as u64;
                self.held.push_back((at, v));
            }
            _ => self.ended = true,
        }
        Ok(())
    }

    /// Gives the planner the bytes it wants next, from where it wants them to the end of the
    /// chunk that holds them (it plans every block whose header is in them at once). The tasks
    /// it completes go to `tasks`.
    pub fn plan(&mut self, planner: &mut Planner, tasks: &mut Vec<Task>) -> Planned {
        let Some((at, need)) = planner.want() else {
            return Planned::Fed;
        };
        self.let_go_before(at);
        let need_end = at + need.max(1) as u64;
        if self.held_to < need_end && !self.ended {
            return Planned::NeedRead;
        }
        let Some(i) = self
            .held
            .iter()
            .position(|(c_at, c)| c_at + c.len() as u64 > at)
        else {
            // Nothing held from `at` on, and the blob is read: the file ends there.
            planner.end_of_file(tasks);
            return Planned::Fed;
        };
        let (c_at, c) = &self.held[i];
        let data: &[u8] = if c_at + c.len() as u64 >= need_end {
            &c[(at - c_at) as usize..]
        } else {
            // What it needs spans chunks (a block header, or a small block it reads whole):
            // copied together.
            self.joined.clear();
            for (a, c) in self.held.iter().skip(i) {
                let lo = at.saturating_sub(*a) as usize;
                let hi = (need_end.saturating_sub(*a) as usize).min(c.len());
                if lo < hi {
                    self.joined.extend_from_slice(&c[lo..hi]);
                }
            }
            &self.joined
        };
        let short = data.len() < need;
        planner.feed(at, data, tasks);
        if short && planner.want() == Some((at, need)) {
            // The file ends inside what the planner needs: the rest is the sequential decoder's.
            planner.end_of_file(tasks);
        }
        Planned::Fed
    }

    /// Lets go of the chunks that end at or before `at` (the planner does not go back).
    fn let_go_before(&mut self, at: u64) {
        while let Some((c_at, c)) = self.held.front() {
            if c_at + c.len() as u64 > at {
                break;
            }
            if let Some((_, c)) = self.held.pop_front() {
                if self.spare.len() < SPARE {
                    self.spare.push(c);
                }
            }
        }
    }
}

/// Wakes the decoding worker's merge loop when something it waits for happens (a part worker's
/// message): one promise at a time.
#[derive(Clone, Default)]
pub(super) struct Waker(std::rc::Rc<std::cell::RefCell<Option<js_sys::Function>>>);

impl Waker {
    pub fn wake(&self) {
        let f = self.0.borrow_mut().take();
        if let Some(f) = f {
            let _ = f.call0(&wasm_bindgen::JsValue::NULL);
        }
    }

    /// Until the next [`wake`](Self::wake), or `ms` milliseconds: whether it was woken.
    pub async fn wait(&self, ms: f64) -> bool {
        let slot = self.0.clone();
        let p = js_sys::Promise::new(&mut |resolve, _| {
            *slot.borrow_mut() = Some(resolve.clone());
            let set_timeout = js_sys::Reflect::get(&js_sys::global(), &"setTimeout".into())
                .ok()
                .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
            if let Some(set_timeout) = set_timeout {
                let resolve = resolve.clone();
                let timed_out = wasm_bindgen::closure::Closure::once_into_js(move || {
                    let _ = resolve.call1(&wasm_bindgen::JsValue::NULL, &"timeout".into());
                });
                let _ = set_timeout.call2(&wasm_bindgen::JsValue::NULL, &timed_out, &ms.into());
            }
        });
        let woken = JsFuture::from(p).await;
        // A timeout leaves the resolver in the slot: taken out, so a later wake wakes nothing.
        let timed_out = woken.is_ok_and(|v| v.as_string().as_deref() == Some("timeout"));
        if timed_out {
            self.0.borrow_mut().take();
        }
        !timed_out
    }
}
