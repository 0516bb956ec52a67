//! Opening a trace: a dropped, chosen or pasted file, or one fetched by address, is handed to a
//! decoding worker ([`worker_client`]); its messages are written into the app state as they come.
//! The views never open anything: they read the state. A second trace to compare with ([`other`])
//! decodes in a worker of its own.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;

use crate::protocol::{Progress, ToUi};
use crate::state::heap_store::HeapStore;
use crate::state::rows::append_batch;
use crate::state::view_state;
use crate::state::{AppState, Unreachable};

pub mod heap;
pub mod live;
pub mod other;
pub mod side_worker;
pub mod stacks;
pub mod worker_client;

use worker_client::{JobEvent, Slot};

thread_local! {
    /// The file open now (a `Blob` is not `Send`, so it cannot live in a signal): opening another
    /// trace of the same .zip reads it again.
    static CURRENT_FILE: std::cell::RefCell<Option<(String, Blob)>> = const { std::cell::RefCell::new(None) };
    /// When rows arriving while loading were last shown.
    static LAST_SHOWN: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
    /// Which trace of the current .zip is open.
    static CURRENT_ENTRY: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// No file is open yet, and one will be (a live session's trace, once the session ends): the
    /// side workers' requests wait for it.
    static FILE_LATER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the open file comes later (a live session still running).
fn file_comes_later() -> bool {
    FILE_LATER.get()
}

/// How often rows that arrive while loading are shown (see [`open_entry`]).
const ROWS_SHOWN_EVERY_MS: f64 = 2500.0;

/// Opens a file (its first trace, when it is a .zip of several).
pub fn open_blob(app: AppState, name: String, blob: Blob) {
    open_entry(app, name, blob, 0);
}

/// Opens trace number `entry` of the current .zip (listed in `Analysis::trace_entries`).
pub fn open_other_entry(app: AppState, entry: usize) {
    if let Some((name, blob)) = CURRENT_FILE.with(|c| c.borrow().clone()) {
        open_entry(app, name, blob, entry);
    }
}

/// Stops reading the current file; what was read stays hidden (the start page shows again).
pub fn cancel(app: AppState) {
    worker_client::cancel(Slot::Main);
    app.loading.set(None);
    app.gcs.set(Vec::new());
}

/// Makes `blob` the file open now, for the side workers (stacks, heap) that read it, without
/// reading it for the GC table: a live session's trace, once the session has ended.
fn set_current_file(name: String, blob: Blob) {
    FILE_LATER.set(false);
    CURRENT_FILE.with(|c| *c.borrow_mut() = Some((name, blob)));
}

/// The file open now, and its name.
fn current_file() -> Option<(String, Blob)> {
    CURRENT_FILE.with(|c| c.borrow().clone())
}

/// The file open now.
fn current_blob() -> Option<Blob> {
    CURRENT_FILE.with(|c| c.borrow().as_ref().map(|(_, b)| b.clone()))
}

fn open_entry(app: AppState, name: String, blob: Blob, entry: usize) {
    stacks::forget(app);
    heap::forget(app);
    FILE_LATER.set(false);
    CURRENT_FILE.with(|c| *c.borrow_mut() = Some((name.clone(), blob.clone())));
    CURRENT_ENTRY.set(entry);
    app.processes.set(None);
    clear(app, name, blob.size());
    // The address's process (`?pid=`): a link to a machine-wide trace opens the same process.
    let pid = app.vs.with_untracked(|v| v.pid);
    start(app, blob, entry, pid);
}

/// Forgets what is shown and shows the progress of reading `name` instead.
fn clear(app: AppState, name: String, total: f64) {
    app.error.set(None);
    app.unreachable.set(None);
    app.gcs.set(Vec::new());
    app.heaps.set_value(HeapStore::default());
    app.model.set(None);
    app.analysis.set(None);
    app.first_rows_ms.set(None);
    app.opened_at.set(js_sys::Date::now());
    app.loading.set(Some((
        name,
        Progress {
            total,
            ..Default::default()
        },
    )));
}

fn start(app: AppState, blob: Blob, entry: usize, pid: Option<u32>) {
    if let Err(e) = worker_client::start(Slot::Main, blob, entry, pid, keep_bytes(), move |ev| {
        on_job_event(app, ev)
    }) {
        app.loading.set(None);
        app.error.set(Some(e));
    }
}

/// Tests only: `window.gcscopeKeepBytes`, what the worker may keep of a machine-wide trace's other
/// processes (0: switching reads the file again), as `protocol::MSG_KEEP_BYTES`.
fn keep_bytes() -> Option<f64> {
    let w = web_sys::window()?;
    js_sys::Reflect::get(&w, &"gcscopeKeepBytes".into())
        .ok()?
        .as_f64()
}

/// Shows process `pid` of the machine-wide trace open now: from what its worker kept, else by
/// reading the file again for it (its rows then fill the table as they are found).
fn show_process(app: AppState, pid: u32) {
    let Some((name, blob)) = CURRENT_FILE.with(|c| c.borrow().clone()) else {
        return;
    };
    clear(app, name, blob.size());
    if !worker_client::show_process(Slot::Main, pid) {
        start(app, blob, CURRENT_ENTRY.get(), Some(pid));
    }
}

/// Keeps the process shown the one the address names (`?pid=`, set by the process picker, or by
/// Back and Forward): switches when they differ. Without `?pid=` the trace's default is shown (the
/// most GC pause); a pid the trace has no GCs for stays shown as asked, with the default.
pub fn follow_process(app: AppState) {
    Effect::new(move |_| {
        let asked = app.vs.with(|v| v.pid);
        let Some(a) = app.analysis.get() else {
            return;
        };
        let Some(p) = &a.processes else { return };
        let Some(want) = asked.or(p.default_pid) else {
            return;
        };
        if want != a.process_id && p.get(want).is_some() && app.loading.get_untracked().is_none() {
            show_process(app, want);
        }
    });
}

/// One message from the decoding worker, into the state.
fn on_job_event(app: AppState, ev: JobEvent) {
    match ev {
        JobEvent::Message(ToUi::Progress(p)) => app.loading.update(|l| {
            if let Some((_, progress)) = l {
                *progress = p;
            }
        }),
        JobEvent::Message(ToUi::Gcs { rows: batch, heaps }) => {
            if app.first_rows_ms.get_untracked().is_none() {
                app.first_rows_ms
                    .set(Some(js_sys::Date::now() - app.opened_at.get_untracked()));
            }
            let (read, total) = app
                .loading
                .with_untracked(|l| l.as_ref().map_or((0.0, 0.0), |(_, p)| (p.bytes, p.total)));
            let first = app.gcs.with_untracked(Vec::is_empty);
            app.gcs
                .update_untracked(|v| append_batch(v, batch, read, total));
            app.heaps.update_value(|h| h.push(heaps));
            // The views see new rows at once the first time, then at most every
            // ROWS_SHOWN_EVERY_MS: redrawing the table and its filters for every batch takes a core
            // from the worker on a 2-core machine
            // (docs/performance-log/journal.md, "Earlier (stop 11)"). Done shows the rest.
            let now = js_sys::Date::now();
            if first || now - LAST_SHOWN.get() >= ROWS_SHOWN_EVERY_MS {
                LAST_SHOWN.set(now);
                app.gcs.notify();
            }
        }
        JobEvent::Message(ToUi::Done(mut a)) => {
            // A machine-wide trace's worker keeps the other processes to switch to.
            match &a.processes {
                Some(p) if p.with_gcs.len() > 1 => worker_client::idle(Slot::Main),
                _ => worker_client::cancel(Slot::Main),
            }
            if a.processes.is_some() {
                app.processes.set(a.processes.clone().map(Arc::new));
            }
            app.gcs.notify();
            app.loading.set(None);
            match &a.error {
                // Nothing could be read: say why, and offer the way forward instead of empty tables.
                // A heap snapshot: the heap worker reads it for the Heap tab.
                Some(e) if a.events == 0.0 && crate::protocol::heap::is_heap_snapshot_error(e) => {
                    app.gcs.set(Vec::new());
                    if let Some((name, blob)) = CURRENT_FILE.with(|c| c.borrow().clone()) {
                        heap::open(app, name, blob);
                    }
                }
                Some(e) if a.events == 0.0 => {
                    app.gcs.set(Vec::new());
                    app.heaps.set_value(HeapStore::default());
                    app.error.set(Some(format!(
                        "{}: {e}. gcscope reads EventPipe traces (.nettrace, .netperf: dotnet-trace, \
                         DOTNET_EnableEventPipe), ETW traces (.etl, PerfView's .etl.zip: PerfView, \
                         WPR, xperf), or a .zip/.gz of one.",
                        a.file_name
                    )))
                }
                _ => {
                    if let Some(e) = &a.error {
                        app.error.set(Some(format!(
                            "{e} — the figures cover everything before that point."
                        )));
                    }
                    // The rows all came in `Gcs` batches; the model comes without them.
                    if let Some(m) = a.model.take() {
                        app.model.set(Some(Arc::new(m)));
                    }
                    app.analysis.set(Some(Arc::new(*a)));
                }
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
        // The rows so far were another process's (the lead in GC pause changed while reading).
        JobEvent::Message(ToUi::Reset) => {
            app.gcs.set(Vec::new());
            app.heaps.set_value(HeapStore::default());
        }
        JobEvent::Crashed(msg) => {
            worker_client::cancel(Slot::Main);
            // The rows read before the crash are shown.
            app.gcs.notify();
            app.loading.set(None);
            app.error.set(Some(format!(
                "The decoder stopped unexpectedly ({msg}). Try the file again or another file."
            )));
        }
    }
}

/// Why a fetch gave no file.
#[derive(Debug)]
pub enum FetchError {
    /// No answer came: the network is gone, the host is unreachable, or the browser refused the
    /// answer (CORS). The browser's message, which does not say which.
    Unreachable(String),
    /// An answer came, but no file: an HTTP error, or the body could not be read.
    Failed(String),
}

impl FetchError {
    /// The message shown for `url`.
    pub fn message(&self, url: &str) -> String {
        match self {
            FetchError::Unreachable(e) => format!("could not fetch {url}: {e}"),
            FetchError::Failed(e) => e.clone(),
        }
    }
}

/// Fetches a file of ours or a trace by address.
pub async fn fetch_blob(url: &str) -> Result<Blob, FetchError> {
    let window = web_sys::window().ok_or(FetchError::Failed("no window".into()))?;
    let resp = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| FetchError::Unreachable(js_text(&e)))?;
    let resp: web_sys::Response = resp
        .dyn_into()
        .map_err(|_| FetchError::Failed("fetch gave no response".into()))?;
    if !resp.ok() {
        return Err(FetchError::Failed(format!(
            "could not fetch {url}: HTTP {}",
            resp.status()
        )));
    }
    let blob = JsFuture::from(resp.blob().map_err(|e| FetchError::Failed(js_text(&e)))?)
        .await
        .map_err(|e| FetchError::Failed(format!("could not read {url}: {}", js_text(&e))))?;
    blob.dyn_into()
        .map_err(|_| FetchError::Failed("not a blob".to_string()))
}

fn js_text(e: &wasm_bindgen::JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Fetches a trace by address and opens it.
pub fn open_url(app: AppState, url: String) {
    spawn_local(async move {
        let name = view_state::trace_file_name(&url);
        match fetch_blob(&url).await {
            Ok(blob) => open_blob(app, name.clone(), worker_client::named(blob, &name)),
            Err(FetchError::Unreachable(detail)) => {
                let offline = web_sys::window().is_some_and(|w| !w.navigator().on_line());
                app.unreachable.set(Some(Unreachable {
                    url,
                    offline,
                    detail,
                }));
            }
            Err(e) => app.error.set(Some(e.message(&url))),
        }
    });
}

/// Opens a trace by address and keeps the address in the view state (so the link reopens it).
pub fn open_trace_url(app: AppState, url: String) {
    app.set_vs(|v| {
        v.trace = Some(url.clone());
        v.live = None;
    });
    open_url(app, url);
}

/// Opens a local file (dropped, chosen or pasted): the address no longer names a trace.
pub fn open_file(app: AppState, file: web_sys::File) {
    app.set_vs(|v| {
        v.trace = None;
        v.live = None;
    });
    open_blob(app, file.name(), file.into());
}
