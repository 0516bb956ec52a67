//! The Leptos components. State is owned by `App` and passed down; views are functions of it.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, DragEvent, HtmlInputElement};

use crate::format::{bytes, ms, thousands};
use crate::protocol::{Analysis, Progress, ToUi};
use crate::worker_client::{self, JobEvent};

/// Where the page is in its life: nothing open, decoding, or showing a result.
#[derive(Clone, Debug, PartialEq)]
enum Phase {
    Empty,
    Loading { name: String, progress: Progress },
    Loaded(Box<Analysis>),
    Failed(String),
}

/// The sample traces bundled with the app (static/samples/, listed in index.json).
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
struct Sample {
    file: String,
    title: String,
    #[serde(default)]
    description: String,
}

fn open_blob(phase: RwSignal<Phase>, name: String, blob: Blob) {
    phase.set(Phase::Loading {
        name,
        progress: Progress {
            total: blob.size(),
            ..Default::default()
        },
    });
    let started = worker_client::start(blob, move |ev| match ev {
        JobEvent::Message(ToUi::Progress(p)) => phase.update(|ph| {
            if let Phase::Loading { progress, .. } = ph {
                *progress = p;
            }
        }),
        JobEvent::Message(ToUi::Done(a)) => {
            worker_client::cancel();
            match &a.error {
                // Nothing could be read: say why, and offer the way forward instead of empty tables.
                Some(e) if a.events == 0.0 => phase.set(Phase::Failed(format!(
                    "{}: {e}. gcscope reads .nettrace and .netperf files (or a .zip/.gz of one) \
                     written by dotnet-trace or DOTNET_EnableEventPipe.",
                    a.file_name
                ))),
                _ => phase.set(Phase::Loaded(a)),
            }
        }
        JobEvent::Message(ToUi::Ready) => {}
        JobEvent::Crashed(msg) => {
            worker_client::cancel();
            phase.set(Phase::Failed(format!(
                "The decoder stopped unexpectedly ({msg}). Try the file again or another file."
            )));
        }
    });
    if let Err(e) = started {
        phase.set(Phase::Failed(e));
    }
}

async fn fetch_blob(url: &str) -> Result<Blob, String> {
    let window = web_sys::window().ok_or("no window")?;
    let resp = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| format!("could not fetch {url}: {e:?}"))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| "fetch gave no response")?;
    if !resp.ok() {
        return Err(format!("could not fetch {url}: HTTP {}", resp.status()));
    }
    let blob = JsFuture::from(resp.blob().map_err(|e| format!("{e:?}"))?)
        .await
        .map_err(|e| format!("could not read {url}: {e:?}"))?;
    blob.dyn_into().map_err(|_| "not a blob".to_string())
}

#[component]
pub fn App() -> impl IntoView {
    let phase = RwSignal::new(Phase::Empty);
    let samples = RwSignal::new(Vec::<Sample>::new());
    spawn_local(async move {
        if let Ok(blob) = fetch_blob("samples/index.json").await {
            if let Ok(text) = JsFuture::from(blob.text()).await {
                let list: Vec<Sample> = text
                    .as_string()
                    .and_then(|t| serde_json_lite(&t))
                    .unwrap_or_default();
                samples.set(list);
            }
        }
    });

    let dragging = RwSignal::new(false);
    let on_drop = move |ev: DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let file = ev
            .data_transfer()
            .and_then(|dt| dt.files())
            .and_then(|files| files.get(0));
        if let Some(f) = file {
            open_blob(phase, f.name(), f.into());
        }
    };
    let on_file = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        if let Some(f) = input.files().and_then(|files| files.get(0)) {
            open_blob(phase, f.name(), f.into());
        }
        // Reset so that choosing the same file again still fires `change`.
        input.set_value("");
    };

    view! {
        <div
            id="drop-zone"
            class="page"
            class:dragging=move || dragging.get()
            on:dragover=move |ev: DragEvent| {
                ev.prevent_default();
                dragging.set(true);
            }
            on:dragleave=move |_| dragging.set(false)
            on:drop=on_drop
        >
            <header class="topbar">
                <h1>"gcscope"</h1>
                <span class="tagline">".NET GC trace viewer: runs in your browser, nothing is uploaded"</span>
                <label class="button" for="file-input">"Open trace…"</label>
                <input
                    id="file-input"
                    type="file"
                    accept=".nettrace,.netperf,.zip,.gz"
                    aria-label="Open a trace file"
                    on:change=on_file
                />
            </header>
            <main>
                {move || match phase.get() {
                    Phase::Empty => view! { <EmptyState samples=samples phase=phase /> }.into_any(),
                    Phase::Loading { name, progress } => view! { <Loading name=name progress=progress phase=phase /> }.into_any(),
                    Phase::Loaded(a) => view! { <Results analysis=*a /> }.into_any(),
                    Phase::Failed(msg) => view! {
                        <div id="error" class="error" role="alert">{msg}</div>
                        <EmptyState samples=samples phase=phase />
                    }.into_any(),
                }}
            </main>
        </div>
    }
}

/// Minimal JSON reading for the samples index without pulling serde_json into the wasm.
fn open_sample(phase: RwSignal<Phase>, s: Sample) {
    spawn_local(async move {
        match fetch_blob(&format!("samples/{}", s.file)).await {
            Ok(blob) => open_blob(phase, s.file.clone(), blob),
            Err(e) => phase.set(Phase::Failed(e)),
        }
    });
}

fn serde_json_lite(text: &str) -> Option<Vec<Sample>> {
    let v = js_sys::JSON::parse(text).ok()?;
    serde_wasm_bindgen::from_value(v).ok()
}

#[component]
fn EmptyState(samples: RwSignal<Vec<Sample>>, phase: RwSignal<Phase>) -> impl IntoView {
    view! {
        <section class="empty">
            <h2>"Drop a .nettrace, .netperf or .zip anywhere on this page"</h2>
            <p>
                "Capture one with "
                <code>"dotnet-trace collect --providers Microsoft-Windows-DotNETRuntime:0x1:5 -p PID"</code>
                ". The file is read in this tab; nothing leaves your machine."
            </p>
            <div class="samples">
                <For
                    each=move || samples.get().into_iter().enumerate()
                    key=|(i, s)| (*i, s.file.clone())
                    children=move |(i, s)| {
                        let s2 = s.clone();
                        view! {
                            <button
                                class="sample-button"
                                id=format!("sample-{i}")
                                on:click=move |_| open_sample(phase, s2.clone())
                                title=s.description.clone()
                            >
                                "Open sample: "
                                {s.title.clone()}
                            </button>
                        }
                    }
                />
            </div>
        </section>
    }
}

#[component]
fn Loading(name: String, progress: Progress, phase: RwSignal<Phase>) -> impl IntoView {
    let pct = if progress.total > 0.0 { 100.0 * progress.bytes / progress.total } else { 0.0 };
    let rate = if progress.elapsed_ms > 0.0 { progress.events / progress.elapsed_ms * 1000.0 } else { 0.0 };
    view! {
        <section class="loading" aria-live="polite">
            <h2>"Reading " {name}</h2>
            <progress id="progress" max="100" value=format!("{pct:.1}")></progress>
            <p class="progress-text">
                {format!(
                    "{} of {} ({pct:.0}%) · {} events · {} events/s",
                    bytes(progress.bytes),
                    bytes(progress.total),
                    thousands(progress.events),
                    thousands(rate),
                )}
            </p>
            <button
                id="cancel"
                class="button"
                on:click=move |_| {
                    worker_client::cancel();
                    phase.set(Phase::Empty);
                }
            >
                "Cancel"
            </button>
        </section>
    }
}

#[component]
fn Results(analysis: Analysis) -> impl IntoView {
    let a = analysis;
    let error = a.error.clone();
    let rows = a.event_counts.clone();
    view! {
        <section class="results">
            {error.map(|e| view! {
                <div id="error" class="error" role="alert">
                    {e}
                    " — the figures below cover everything before that point."
                </div>
            })}
            <h2 id="trace-title">{a.file_name.clone()}</h2>
            <dl id="facts" class="facts">
                <dt>"GCs"</dt><dd id="gc-count">{thousands(a.gc_starts)}</dd>
                <dt>"Events"</dt><dd id="event-count">{thousands(a.events)}</dd>
                <dt>"Duration"</dt><dd>{ms(a.duration_ms)}</dd>
                <dt>"Format"</dt><dd id="format">{a.format.clone()}</dd>
                <dt>"Pointer size"</dt><dd>{format!("{} bytes", a.pointer_size)}</dd>
                <dt>"Process id"</dt><dd>{a.process_id}</dd>
                <dt>"Processors"</dt><dd>{a.processor_count}</dd>
                <dt>"File size"</dt><dd>{bytes(a.file_size)}</dd>
                <dt>"Decoded in"</dt><dd>{ms(a.decode_ms)}</dd>
            </dl>
            <table id="event-table" class="grid">
                <caption>"Events by provider and name"</caption>
                <thead><tr><th scope="col">"Provider/Event"</th><th scope="col" class="num">"Count"</th></tr></thead>
                <tbody>
                    {rows.into_iter().map(|(name, n)| view! {
                        <tr><td>{name}</td><td class="num">{thousands(n)}</td></tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}
