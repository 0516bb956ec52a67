//! The page's side of the heap worker (`worker::heap`): started when the open file turns out to
//! be a `.gcdump` heap snapshot, it reads the snapshot once and answers the Heap tab's requests
//! (`protocol::heap`); the answers go into `AppState::heap`. One request is in flight at a time,
//! the others wait in order (`side_worker`); a second snapshot to compare with waits until the
//! first is read.

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;
use web_sys::Blob;

use super::side_worker::{Side, SideWorker};
use crate::protocol::heap::{HeapAnswer, HeapRequest, HeapStage};
use crate::protocol::ToUi;
use crate::state::heap::Level;
use crate::state::AppState;

thread_local! {
    static JOB: RefCell<Option<SideWorker<HeapRequest>>> = const { RefCell::new(None) };
    /// A snapshot to compare with that came before the first was known to be one.
    static PENDING_B: RefCell<Option<(String, Blob)>> = const { RefCell::new(None) };
}

/// Stops the heap worker (another file is opened) and forgets its answers.
pub fn forget(app: AppState) {
    if let Some(job) = JOB.with(|j| j.borrow_mut().take()) {
        job.stop();
    }
    app.heap.clear();
}

/// Whether a second file opened for comparison is a heap snapshot: a `.gcdump` is open alone, or
/// a trace's heap walk is open and its Heap tab shown (the trace's other tabs compare traces).
pub fn is_open(app: AppState) -> bool {
    let open = app.heap.open.with_untracked(|o| o.is_some());
    let trace = app.model.with_untracked(|m| m.is_some());
    let heap_tab = app
        .vs
        .with_untracked(|v| v.tab.as_deref() == Some(crate::state::view_state::HEAP_TAB));
    open && (!trace || heap_tab)
}

/// Reads the open trace's heap walk for the Heap tab, once.
pub fn open_walk(app: AppState) {
    if app.heap.open.with_untracked(|o| o.is_some()) {
        return;
    }
    if let Some((name, blob)) = super::current_file() {
        open(app, name, blob);
    }
}

/// Reads `blob` (named `name`) as the heap snapshot to show.
pub fn open(app: AppState, name: String, blob: Blob) {
    forget(app);
    app.heap.open.set(Some(name.clone()));
    app.heap.opened_at.set(js_sys::Date::now());
    app.heap.shown_ms.set([None; 3]);
    if let Err(e) = start(app) {
        app.heap.error.set(Some(e));
        return;
    }
    push(HeapRequest::Open { file_name: name }, Some(blob));
    if let Some((name, blob)) = PENDING_B.with(|p| p.borrow_mut().take()) {
        compare(app, name, blob);
    }
}

/// Reads `blob` as the snapshot to compare the open one with ("B").
pub fn compare(app: AppState, name: String, blob: Blob) {
    if JOB.with(|j| j.borrow().is_none()) {
        PENDING_B.with(|p| *p.borrow_mut() = Some((name, blob)));
        return;
    }
    app.heap.clear_diff();
    app.heap.diff_loading.set(Some(name.clone()));
    push(HeapRequest::Compare { file_name: name }, Some(blob));
}

/// Ends the comparison.
pub fn leave_compare(app: AppState) {
    PENDING_B.with(|p| p.borrow_mut().take());
    app.heap.clear_diff();
}

/// Asks for the children of dominator-tree node `node` (once).
pub fn children(app: AppState, node: u32) {
    if app.heap.levels.with_untracked(|l| l.contains_key(&node)) {
        return;
    }
    let req = HeapRequest::Children { node };
    let asked = JOB.with(|j| {
        j.borrow()
            .as_ref()
            .is_some_and(|job| job.waiting(|w| w.iter().any(|(r, _)| *r == req)))
    });
    if !asked {
        push(req, None);
    }
}

/// Asks for the paths of `type_name`'s instances (a newer ask replaces one not sent yet).
pub fn paths(type_name: String) {
    JOB.with(|j| {
        if let Some(job) = j.borrow().as_ref() {
            job.waiting(|w| w.retain(|(r, _)| !matches!(r, HeapRequest::Paths { .. })));
        }
    });
    push(HeapRequest::Paths { type_name }, None);
}

fn push(req: HeapRequest, blob: Option<Blob>) {
    JOB.with(|j| {
        if let Some(job) = j.borrow().as_ref() {
            job.push(req, blob);
        }
    });
}

fn start(app: AppState) -> Result<(), String> {
    let worker = SideWorker::start(
        Side::Heap,
        None,
        |a| !matches!(a, ToUi::Heap(a) if is_early(a)),
        move |reply| match reply {
            Ok(ToUi::Heap(a)) => on_answer(app, *a),
            Ok(_) => {}
            Err(e) => app.heap.error.set(Some(e)),
        },
        move |e| {
            app.heap.error.set(Some(format!(
                "the heap worker stopped ({e}); a snapshot this large may not fit in the page's memory"
            )))
        },
    )?;
    JOB.with(|j| *j.borrow_mut() = Some(worker));
    Ok(())
}

/// Whether `a` is a summary's earlier stage, with more of it to come for the same request.
pub fn is_early(a: &HeapAnswer) -> bool {
    matches!(a, HeapAnswer::Summary(s) if s.stage != HeapStage::Complete)
}

fn on_answer(app: AppState, a: HeapAnswer) {
    let h = app.heap;
    match a {
        HeapAnswer::Summary(s) => {
            let ms = js_sys::Date::now() - h.opened_at.get_untracked();
            h.shown_ms.update(|t| t[s.stage as usize] = Some(ms));
            h.summary.set(Some(Arc::new(*s)));
        }
        HeapAnswer::Children { node, nodes, more } => h.levels.update(|l| {
            l.insert(node, Arc::new(Level { nodes, more }));
        }),
        HeapAnswer::Paths(p) => h.paths.set(Some(Arc::new(*p))),
        HeapAnswer::Diff(d) => {
            // An answer for a comparison already left is dropped.
            if h.diff_loading.get_untracked().is_some() {
                h.diff_loading.set(None);
                h.diff.set(Some(Arc::new(*d)));
            }
        }
        HeapAnswer::Failed { request, error } => match request {
            HeapRequest::Open { .. } => h.error.set(Some(error)),
            HeapRequest::Compare { .. } => {
                h.diff_loading.set(None);
                h.diff_error.set(Some(error));
            }
            HeapRequest::Children { .. } | HeapRequest::Paths { .. } => {
                web_sys::console::warn_1(&format!("heap worker: {error}").into())
            }
        },
    }
}
