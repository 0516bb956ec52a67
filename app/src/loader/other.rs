//! The trace the open one is compared with ("B"): dropped, chosen or pasted, or fetched by address
//! (`?compare=URL`), it decodes in a worker of its own (`Slot::Compare`) while the first stays
//! shown. What the figures' comparison needs of its rows (pauses and heap points,
//! `compare::RowLog`) is taken from each batch as it comes; the rows themselves are kept without
//! their per-heap histories, as `gcscope compare` keeps them, for B's findings (a row's size so:
//! docs/performance-log/journal.md, "Findings (issue 22)").

use std::cell::RefCell;
use std::sync::Arc;

use gcscope_core::compare::RowLog;
use gcscope_core::gc::Gc;
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::Blob;

use crate::protocol::{Progress, ToUi};
use crate::state::view_state::{trace_file_name, COMPARE_TAB};
use crate::state::{AppState, OtherTrace};

use super::fetch_blob;
use super::worker_client::{self, JobEvent, Slot};

thread_local! {
    /// B's pauses and heap points, gathered while its worker reads.
    static ROWS: RefCell<RowLog> = RefCell::new(RowLog::default());
    /// B's rows so far (without per-heap histories, which no rule reads), for its findings.
    static GCS: RefCell<Vec<Gc>> = const { RefCell::new(Vec::new()) };
    /// B's file while its worker reads it: a heap snapshot goes on to the heap worker.
    static BLOB: RefCell<Option<Blob>> = const { RefCell::new(None) };
}

/// Forgets what B's reading gathered so far.
fn forget_rows() {
    ROWS.with(|r| *r.borrow_mut() = RowLog::default());
    GCS.with(|g| *g.borrow_mut() = Vec::new());
}

/// Decodes `blob` as the trace to compare with; the views show the comparison when it is read.
pub fn open_blob(app: AppState, name: String, blob: Blob) {
    // Beside a heap snapshot, B is one too: the heap worker compares the two.
    if super::heap::is_open(app) {
        super::heap::compare(app, name, blob);
        return;
    }
    BLOB.with(|b| *b.borrow_mut() = Some(blob.clone()));
    forget_rows();
    app.other.set(None);
    app.other_error.set(None);
    app.other_loading.set(Some((
        name.clone(),
        Progress {
            total: blob.size(),
            ..Default::default()
        },
    )));
    let on_event = move |ev| on_job_event(app, &name, ev);
    // A machine-wide (ETW) trace B: its process with the most GC pause.
    if let Err(e) = worker_client::start(Slot::Compare, blob, 0, None, None, on_event) {
        app.other_loading.set(None);
        app.other_error.set(Some(e));
    }
}

/// A local file (dropped, chosen or pasted) to compare with: the address keeps no `compare=`.
pub fn open_file(app: AppState, file: web_sys::File) {
    app.set_vs(|v| {
        v.compare = None;
        v.tab = Some(COMPARE_TAB.into());
    });
    open_blob(app, file.name(), file.into());
}

/// A trace by address to compare with; the address keeps it (`?compare=URL`), so the link reopens
/// the comparison.
pub fn open_url(app: AppState, url: String) {
    app.set_vs(|v| {
        v.compare = Some(url.clone());
        v.tab = Some(COMPARE_TAB.into());
    });
    fetch_and_open(app, url);
}

/// Fetches `url` and opens it as the trace to compare with (the address is already in the view
/// state: `?compare=` on the page's first load).
pub fn fetch_and_open(app: AppState, url: String) {
    app.other_error.set(None);
    app.other_loading
        .set(Some((trace_file_name(&url), Progress::default())));
    spawn_local(async move {
        match fetch_blob(&url).await {
            Ok(blob) => {
                let name = trace_file_name(&url);
                open_blob(app, name.clone(), worker_client::named(blob, &name))
            }
            Err(e) => {
                app.other_loading.set(None);
                app.other_error.set(Some(e.message(&url)));
            }
        }
    });
}

/// Ends the comparison: B's worker stops, B is forgotten, the address drops `compare=`.
pub fn leave(app: AppState) {
    worker_client::cancel(Slot::Compare);
    super::heap::leave_compare(app);
    forget_rows();
    app.other.set(None);
    app.other_loading.set(None);
    app.other_error.set(None);
    app.set_vs(|v| v.compare = None);
}

fn on_job_event(app: AppState, name: &str, ev: JobEvent) {
    match ev {
        JobEvent::Message(ToUi::Progress(p)) => app.other_loading.update(|l| {
            if let Some((_, progress)) = l {
                *progress = p;
            }
        }),
        JobEvent::Message(ToUi::Gcs { rows, .. }) => {
            ROWS.with(|r| {
                let mut log = r.borrow_mut();
                rows.iter().for_each(|g| log.add(g));
            });
            GCS.with(|g| {
                g.borrow_mut().extend(rows.into_iter().map(|mut r| {
                    r.heaps = Vec::new();
                    r
                }))
            });
        }
        JobEvent::Message(ToUi::Done(mut a)) => {
            worker_client::cancel(Slot::Compare);
            app.other_loading.set(None);
            let rows = ROWS.with(|r| std::mem::take(&mut *r.borrow_mut()));
            let gcs = GCS.with(|g| std::mem::take(&mut *g.borrow_mut()));
            let blob = BLOB.with(|b| b.borrow_mut().take());
            match (a.model.take(), &a.error) {
                (_, Some(e))
                    if a.events == 0.0 && crate::protocol::heap::is_heap_snapshot_error(e) =>
                {
                    if let Some(blob) = blob {
                        super::heap::compare(app, name.to_string(), blob);
                    }
                }
                (Some(model), error) if a.events > 0.0 => {
                    if let Some(e) = error {
                        app.other_error.set(Some(format!(
                            "{name}: {e} — its figures cover everything before that point."
                        )));
                    }
                    app.other.set(Some(Arc::new(OtherTrace {
                        name: a.file_name.clone(),
                        model: Arc::new(model),
                        rows,
                        gcs: Arc::new(gcs),
                    })));
                }
                (_, error) => app.other_error.set(Some(format!(
                    "{name}: {}. gcscope compares EventPipe traces (.nettrace, .netperf) and ETW traces (.etl, .etl.zip), or a .zip/.gz of one.",
                    error.as_deref().unwrap_or("no trace could be read")
                ))),
            }
        }
        JobEvent::Message(ToUi::Ready) => {}
        // The stacks and heap workers' (`loader::stacks`, `loader::heap`), never the decoding worker's.
        JobEvent::Message(
            ToUi::StackTree(_)
            | ToUi::StacksExport(_)
            | ToUi::TriggerStack(_)
            | ToUi::Callers(_)
            | ToUi::Heap(_),
        ) => {}
        // A live session's (`loader::live` handles it), never a file's.
        JobEvent::Message(ToUi::Interim(_)) => {}
        // The rows so far were another process's (an ETW trace: the lead in GC pause changed).
        JobEvent::Message(ToUi::Reset) => forget_rows(),
        JobEvent::Crashed(msg) => {
            worker_client::cancel(Slot::Compare);
            app.other_loading.set(None);
            app.other_error.set(Some(format!(
                "The decoder stopped unexpectedly reading {name} ({msg}). Try the file again."
            )));
        }
    }
}
