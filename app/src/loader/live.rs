//! A live session (`gcscope serve`): the page opened with `?live=ADDRESS` reads that address, the
//! session's stream, in a decoding worker of its own (`worker::stream`). Each GC reaches the table
//! as it ends, and the views, which read the rows, grow with it; every few seconds the analysis so
//! far follows (`ToUi::Interim`: the model's summaries, the insights' records, the trace's facts),
//! so that the Overview, its findings and the other views grow too; the worker's status (GCs in
//! progress, bytes read) goes into a [`Live`] context for the live bar, with what the runtime said
//! of its process before the session ([`LiveProcess`](crate::protocol::live::LiveProcess): its version and command line, which the
//! stream says only at its end, fill the facts until then); when the stream ends (Stop,
//! Ctrl-C in gcscope, the process exiting) the analysis follows as for a file. The addresses are
//! resolved against the page's base, so that `stream`, `stop` and `trace.nettrace` are the ones
//! under `gcscope serve`'s token.

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Url, Worker};

use super::worker_client::{decode_envelope, spawn_worker, JobEvent};
use crate::protocol::live::LiveProcess;
use crate::protocol::{ToUi, LIVE_BYTES, LIVE_OPEN, MODE_LIVE, MSG_MODE, MSG_URL};
use crate::state::AppState;

/// What the live bar shows.
#[derive(Clone, Copy)]
pub struct Live {
    /// GCs in progress (begun, not ended) at the last read.
    pub open: RwSignal<u32>,
    pub bytes: RwSignal<f64>,
    /// The stream ended: the session is over and its trace complete.
    pub ended: RwSignal<bool>,
    /// Stop was pressed.
    pub stopping: RwSignal<bool>,
    /// What the runtime said of its process (`None` until fetched, or where it could not be).
    pub process: RwSignal<Option<LiveProcess>>,
}

struct Job {
    _worker: Worker,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

thread_local! {
    static JOB: RefCell<Option<Job>> = const { RefCell::new(None) };
}

/// An address of the server's, resolved against the page's base (its token's folder).
pub fn resolve(name: &str) -> Option<String> {
    let base = web_sys::window()?.document()?.base_uri().ok()??;
    Url::new_with_base(name, &base).ok().map(|u| u.href())
}

/// Whether the page shows a live session.
pub fn active() -> bool {
    use_context::<Live>().is_some()
}

/// Opens the live session at `address` (relative to the page) and provides its [`Live`] context.
pub fn open(app: AppState, address: String) {
    let live = Live {
        open: RwSignal::new(0),
        bytes: RwSignal::new(0.0),
        ended: RwSignal::new(false),
        stopping: RwSignal::new(false),
        process: RwSignal::new(None),
    };
    provide_context(live);
    wasm_bindgen_futures::spawn_local(fetch_process(app, live));
    super::clear(app, "live.nettrace".into(), 0.0);
    // The session's trace is the open file once it ends (`fetch_trace`).
    super::FILE_LATER.set(true);
    app.loading.set(None);
    let Some(url) = resolve(&address) else {
        app.error.set(Some(format!("{address}: not an address")));
        return;
    };
    if let Err(e) = start(app, live, url) {
        app.error
            .set(Some(format!("cannot start the decoding worker: {e:?}")));
    }
}

fn start(app: AppState, live: Live, url: String) -> Result<(), JsValue> {
    let worker = spawn_worker()?;
    let w = worker.clone();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |msg: MessageEvent| {
        let data = msg.data();
        if let Some(open) = js_sys::Reflect::get(&data, &LIVE_OPEN.into())
            .ok()
            .and_then(|v| v.as_f64())
        {
            live.open.set(open as u32);
            if let Some(b) = js_sys::Reflect::get(&data, &LIVE_BYTES.into())
                .ok()
                .and_then(|v| v.as_f64())
            {
                live.bytes.set(b);
            }
            return;
        }
        if let Some(reason) = js_sys::Reflect::get(&data, &"boot_failed".into())
            .ok()
            .and_then(|r| r.as_string())
        {
            super::on_job_event(app, JobEvent::Crashed(reason));
            return;
        }
        match decode_envelope(&data) {
            Ok(ToUi::Ready) => {
                let request = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&request, &MSG_MODE.into(), &MODE_LIVE.into());
                let _ = js_sys::Reflect::set(&request, &MSG_URL.into(), &url.as_str().into());
                let _ = w.post_message(&request);
            }
            Ok(m @ ToUi::Gcs { .. }) => {
                super::on_job_event(app, JobEvent::Message(m));
                // Each GC as it ends: a live session's rows come a few at a time.
                app.gcs.notify();
            }
            // The session's analysis so far: the Overview, its findings and the trace's facts show
            // it; the next one, or `Done`, replaces it.
            Ok(ToUi::Interim(mut a)) => {
                if let Some(mut m) = a.model.take() {
                    live.process
                        .with_untracked(|p| p.as_ref().map(|p| p.fill(&mut m.process)));
                    app.model.set(Some(Arc::new(m)));
                }
                app.analysis.set(Some(Arc::new(*a)));
            }
            Ok(ToUi::Done(mut a)) => {
                if let Some(m) = a.model.as_mut() {
                    live.process
                        .with_untracked(|p| p.as_ref().map(|p| p.fill(&mut m.process)));
                }
                let m = ToUi::Done(a);
                live.ended.set(true);
                live.open.set(0);
                super::on_job_event(app, JobEvent::Message(m));
                app.loading.set(None);
                wasm_bindgen_futures::spawn_local(fetch_trace(app));
            }
            Ok(m) => super::on_job_event(app, JobEvent::Message(m)),
            Err(e) => super::on_job_event(app, JobEvent::Crashed(e)),
        }
    });
    let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |e: ErrorEvent| {
        e.prevent_default();
        super::on_job_event(app, JobEvent::Crashed(e.message()));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    JOB.with(|j| {
        *j.borrow_mut() = Some(Job {
            _worker: worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    });
    Ok(())
}

/// Fetches what the runtime said of its process (`process`), and fills the facts shown so far.
async fn fetch_process(app: AppState, live: Live) {
    let Some(url) = resolve("process") else {
        return;
    };
    let Ok(blob) = super::fetch_blob(&url).await else {
        // A server without it (an older gcscope): the facts wait for the rundown.
        return;
    };
    let text = wasm_bindgen_futures::JsFuture::from(blob.text()).await;
    let Some(p) = text
        .ok()
        .and_then(|t| t.as_string())
        .and_then(|t| serde_json::from_str::<LiveProcess>(&t).ok())
    else {
        return;
    };
    if let Some(m) = app.model.get_untracked() {
        let mut m = (*m).clone();
        p.fill(&mut m.process);
        app.model.set(Some(Arc::new(m)));
    }
    live.process.set(Some(p));
}

/// Fetches the ended session's trace (the server keeps it at `trace.nettrace`) and makes it the
/// open file: the call stacks and the heap walk are read from a file, by workers of their own, and
/// what they were asked during the session is asked again.
async fn fetch_trace(app: AppState) {
    let Some(url) = resolve("trace.nettrace") else {
        return;
    };
    match super::fetch_blob(&url).await {
        Ok(blob) => {
            super::set_current_file("live.nettrace".into(), blob);
            super::stacks::retry(app);
        }
        Err(e) => {
            super::FILE_LATER.set(false);
            super::stacks::give_up(app, format!("the session's trace: {}", e.message(&url)))
        }
    }
}

/// Asks the server to end the session (`POST stop`); the stream then ends with the rundown.
pub fn stop(live: Live) {
    let (Some(w), Some(url)) = (web_sys::window(), resolve("stop")) else {
        return;
    };
    live.stopping.set(true);
    let init = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&init, &"method".into(), &"POST".into());
    let fetch = js_sys::Reflect::get(&w, &"fetch".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(f) = fetch {
        let _ = f.call2(&w, &url.as_str().into(), &init);
    }
}
