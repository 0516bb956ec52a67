//! The page's side of the stacks worker (`worker::stacks`): started the first time the Stacks tab
//! asks for a call tree, it reads the open file once and answers each selection; its answers go
//! into `AppState::stacks` and `AppState::stacks_export`. One request is in flight at a time
//! (`side_worker`): asked while one is, the newest tree request waits (older ones are dropped), and
//! exports wait in turn.

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;
use web_sys::Blob;

use super::side_worker::{Side, SideWorker};
use crate::protocol::stacks::{Heap, StackEvent, StackTree, StacksRequest};
use crate::protocol::ToUi;
use crate::state::AppState;

struct Job {
    worker: SideWorker<StacksRequest>,
    /// The last tree asked for (a request for it again is dropped).
    last: Option<StacksRequest>,
}

thread_local! {
    static JOB: RefCell<Option<Job>> = const { RefCell::new(None) };
    /// Asked during a live session, which has no file yet: asked again once the session's
    /// trace is there (`retry`).
    static WAITING: RefCell<Option<StacksRequest>> = const { RefCell::new(None) };
}

/// What a view shows for the stacks of a live session still running: its trace is read for them
/// once the session ends.
const LIVE_WAIT: &str = "The call stacks come once the session ends (Stop): a live session's are \
                         read from its trace.";

/// The call tree the address bar asks for (`?sevent=`, `?sheap=`, `?stype=`, `?sorder=`, the
/// time range): the Stacks tab's, and the one the findings' stacks come with.
pub fn request_of(v: &crate::state::view_state::ViewState) -> StacksRequest {
    StacksRequest {
        event: v
            .stacks_event
            .as_deref()
            .and_then(StackEvent::from_key)
            .unwrap_or_default(),
        heap: v
            .stacks_heap
            .as_deref()
            .and_then(Heap::from_key)
            .unwrap_or_default(),
        type_name: v.stacks_type.clone(),
        from_ms: v.filter.t0,
        to_ms: v.filter.t1,
        bottom_up: v.stacks_up,
        export: None,
        trigger: None,
        callers: None,
    }
}

/// Asks for the findings' stacks, which come with every call tree: the tree the address bar
/// asks for, unless one is there or asked for already.
pub fn request_findings(app: AppState) {
    if app.stacks.with_untracked(|t| t.is_some()) || !app.has_data() {
        return;
    }
    let req = app.vs.with_untracked(request_of);
    request(app, req);
}

/// Asks again what was asked before the file was there (a live session's trace, once it ended).
pub fn retry(app: AppState) {
    if let Some(req) = WAITING.with(|w| w.borrow_mut().take()) {
        app.stacks.set(None);
        request(app, req);
    }
}

/// What was asked before the file was there cannot be answered: the file will not come (`why`).
pub fn give_up(app: AppState, why: String) {
    if WAITING.with(|w| w.borrow_mut().take()).is_some() {
        failed(app, why);
    }
}

/// Stops the stacks worker (a new file is opened) and forgets its answers.
pub fn forget(app: AppState) {
    if let Some(job) = JOB.with(|j| j.borrow_mut().take()) {
        job.worker.stop();
    }
    WAITING.with(|w| w.borrow_mut().take());
    app.stacks.set(None);
    app.stacks_export.set(None);
    app.trigger_stack.set(None);
    app.callers.set(None);
}

/// Asks for `req`'s call tree (or export) of the open file.
pub fn request(app: AppState, req: StacksRequest) {
    let started = JOB.with(|j| j.borrow().is_some());
    if !started {
        let Some(blob) = super::current_blob() else {
            if super::file_comes_later() {
                WAITING.with(|w| *w.borrow_mut() = Some(req.clone()));
                app.stacks.set(Some(Arc::new(StackTree {
                    later: Some(LIVE_WAIT.into()),
                    request: req,
                    ..Default::default()
                })));
            }
            return;
        };
        if let Err(e) = start(app, blob) {
            app.stacks.set(Some(Arc::new(StackTree {
                error: Some(e),
                request: req,
                ..Default::default()
            })));
            return;
        }
    }
    JOB.with(|j| {
        if let Some(job) = j.borrow_mut().as_mut() {
            // Exports, trigger stacks and callers wait in turn; of the trees only the newest.
            let tree = |r: &StacksRequest| {
                r.export.is_none() && r.trigger.is_none() && r.callers.is_none()
            };
            if tree(&req) {
                if job.last.as_ref() == Some(&req) {
                    return;
                }
                job.last = Some(req.clone());
                job.worker.waiting(|w| w.retain(|(w, _)| !tree(w)));
            }
            job.worker.push(req, None);
        }
    });
}

fn start(app: AppState, blob: Blob) -> Result<(), String> {
    let worker = SideWorker::start(
        Side::Stacks,
        Some(blob),
        |_| true,
        move |reply| match reply {
            Ok(ToUi::StackTree(t)) => app.stacks.set(Some(Arc::new(*t))),
            Ok(ToUi::StacksExport(e)) => app.stacks_export.set(Some(Arc::new(*e))),
            Ok(ToUi::TriggerStack(t)) => app.trigger_stack.set(Some(Arc::new(*t))),
            Ok(ToUi::Callers(c)) => app.callers.set(Some(Arc::new(*c))),
            Ok(_) => {}
            Err(e) => failed(app, e),
        },
        move |e| failed(app, format!("the stacks worker stopped: {e}")),
    )?;
    JOB.with(|j| *j.borrow_mut() = Some(Job { worker, last: None }));
    Ok(())
}

fn failed(app: AppState, e: String) {
    app.stacks.set(Some(Arc::new(StackTree {
        error: Some(e),
        ..Default::default()
    })));
}
