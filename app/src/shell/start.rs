//! The start page: where to drop a trace, the bundled samples, a trace by address, the keys.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen_futures::JsFuture;

use crate::loader;
use crate::state::use_app;

/// The bundled samples' list, fetched once (it fills the start page when it arrives).
pub fn samples() -> RwSignal<Vec<Sample>> {
    let samples = RwSignal::new(Vec::<Sample>::new());
    spawn_local(async move {
        if let Ok(blob) = loader::fetch_blob("samples/index.json").await {
            if let Ok(text) = JsFuture::from(blob.text()).await {
                let list: Vec<Sample> = text
                    .as_string()
                    .and_then(|t| js_sys::JSON::parse(&t).ok())
                    .and_then(|v| serde_wasm_bindgen::from_value(v).ok())
                    .unwrap_or_default();
                samples.set(list);
            }
        }
    });
    samples
}

/// The sample traces bundled with the app (static/samples/, listed in index.json).
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct Sample {
    file: String,
    title: String,
    #[serde(default)]
    description: String,
}

#[component]
pub fn StartPage(samples: RwSignal<Vec<Sample>>) -> impl IntoView {
    let app = use_app();
    let url_text = RwSignal::new(String::new());
    view! {
        <section class="empty">
            <h2>"Drop a .nettrace, .etl, .etl.zip, .trace.zip or .zip anywhere on this page"</h2>
            <p>
                "Capture one with "
                <code>"dotnet-trace collect --providers Microsoft-Windows-DotNETRuntime:0x1:5 -p PID"</code>
                ", or on Windows with "
                <code>"PerfView /GCCollectOnly collect"</code>
                ". The file is read in this tab; nothing leaves your machine."
            </p>
            <div class="samples">
                <For
                    each=move || samples.get().into_iter().enumerate()
                    key=|(i, s)| (*i, s.file.clone())
                    children=move |(i, s)| {
                        let file = s.file.clone();
                        view! {
                            <button
                                class="sample-button"
                                id=format!("sample-{i}")
                                on:click=move |_| {
                                    loader::open_trace_url(app, format!("samples/{file}"));
                                }
                                title=s.description.clone()
                            >
                                "Open sample: "
                                {s.title.clone()}
                            </button>
                        }
                    }
                />
            </div>
            <form
                id="url-form"
                class="url-form"
                on:submit=move |ev: leptos::ev::SubmitEvent| {
                    ev.prevent_default();
                    let url = url_text.get_untracked().trim().to_string();
                    if !url.is_empty() {
                        loader::open_trace_url(app, url);
                    }
                }
            >
                <input
                    id="url-input"
                    type="url"
                    placeholder="…or paste the https:// address of a trace"
                    title="Fetched by this tab; its server must allow cross-origin requests (CORS)"
                    aria-label="Address of a trace file to fetch"
                    prop:value=move || url_text.get()
                    on:input=move |ev| url_text.set(event_target_value(&ev))
                />
                <button type="submit" class="small">"Open URL"</button>
            </form>
            <p class="hint">"Keys: 1–9 switch views · / filters · ↑↓ move in the GC table · Enter opens a GC · Esc closes it · Ctrl+V a trace file or its address"</p>
        </section>
    }
}
