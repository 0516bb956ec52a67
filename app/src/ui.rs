//! The Leptos components. `App` owns the state (decoded rows, model, view state) and the views are
//! functions of it. The view state lives in the address bar (`view_state.rs` maps it both ways).

use std::sync::Arc;

use gcscope_core::gc::{Gc, GcModel};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, DragEvent, HtmlInputElement, KeyboardEvent, MouseEvent};

use crate::charts::{self, Axis};
use crate::columns::{self, fmt_cell, Cell};
use crate::format::{bytes, ms, thousands};
use crate::heap_store::HeapStore;
use crate::insights;
use crate::protocol::{Analysis, Progress, ToUi};
use crate::side_table::{SideTableView, TableState};
use crate::tables::{self, Table};
use crate::view_state::{visible_rows, Sort, Tab, ViewState};
use crate::worker_client::{self, JobEvent};

/// The sample traces bundled with the app (static/samples/, listed in index.json).
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
struct Sample {
    file: String,
    title: String,
    #[serde(default)]
    description: String,
}

/// Everything the views read. Signals are `Copy`, so this is passed by value.
#[derive(Clone, Copy)]
pub(crate) struct Ctx {
    /// GC rows: streamed while decoding, then the model's final rows.
    pub(crate) gcs: RwSignal<Vec<Gc>>,
    /// The rows' per-heap histories, packed, by row index (the rows' own `heaps` are empty). Not
    /// reactive: it changes with `gcs`, whose signal tells the views.
    pub(crate) heaps: StoredValue<HeapStore>,
    /// The model without its rows (they are in `gcs`), once decoding is done.
    pub(crate) model: RwSignal<Option<Arc<GcModel>>>,
    pub(crate) analysis: RwSignal<Option<Arc<Analysis>>>,
    /// The analysis with the insights finished from the worker's records and the rows. A lazy
    /// memo: built the first time a view (or the report) reads it, not while the GC table loads.
    pub(crate) insight_analysis: Memo<Option<Arc<Analysis>>>,
    loading: RwSignal<Option<(String, Progress)>>,
    error: RwSignal<Option<String>>,
    pub(crate) vs: RwSignal<ViewState>,
    /// When the current file was opened (ms, `Date.now`), and when its first rows arrived.
    opened_at: RwSignal<f64>,
    first_rows_ms: RwSignal<Option<f64>>,
}

impl Ctx {
    pub(crate) fn set_vs(&self, f: impl FnOnce(&mut ViewState)) {
        self.vs.update(f);
    }
    pub(crate) fn select(&self, n: u32) {
        self.vs.update(|v| v.selected = Some(n));
    }
}

thread_local! {
    /// The file open now (a `Blob` is not `Send`, so it cannot live in a signal): opening another
    /// trace of the same .zip reads it again.
    static CURRENT_FILE: std::cell::RefCell<Option<(String, Blob)>> = const { std::cell::RefCell::new(None) };
}

fn open_blob(cx: Ctx, name: String, blob: Blob) {
    open_entry(cx, name, blob, 0);
}

/// Opens trace number `entry` of the current .zip (listed in `Analysis::trace_entries`).
fn open_other_entry(cx: Ctx, entry: usize) {
    if let Some((name, blob)) = CURRENT_FILE.with(|c| c.borrow().clone()) {
        open_entry(cx, name, blob, entry);
    }
}

/// How often rows that arrive while loading are shown (see `open_entry`).
const ROWS_SHOWN_EVERY_MS: f64 = 2500.0;

thread_local! {
    /// When rows arriving while loading were last shown.
    static LAST_SHOWN: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

fn open_entry(cx: Ctx, name: String, blob: Blob, entry: usize) {
    CURRENT_FILE.with(|c| *c.borrow_mut() = Some((name.clone(), blob.clone())));
    cx.error.set(None);
    cx.gcs.set(Vec::new());
    cx.heaps.set_value(HeapStore::default());
    cx.model.set(None);
    cx.analysis.set(None);
    cx.first_rows_ms.set(None);
    cx.opened_at.set(js_sys::Date::now());
    cx.loading.set(Some((
        name,
        Progress {
            total: blob.size(),
            ..Default::default()
        },
    )));
    let started = worker_client::start(blob, entry, move |ev| match ev {
        JobEvent::Message(ToUi::Progress(p)) => cx.loading.update(|l| {
            if let Some((_, progress)) = l {
                *progress = p;
            }
        }),
        JobEvent::Message(ToUi::Gcs { rows: batch, heaps }) => {
            if cx.first_rows_ms.get_untracked().is_none() {
                cx.first_rows_ms
                    .set(Some(js_sys::Date::now() - cx.opened_at.get_untracked()));
            }
            // Reserve for the whole trace from how far the worker has read: growing by doubling
            // would copy every row again and again and leave the wasm heap at twice the size.
            let (read, total) = cx
                .loading
                .with_untracked(|l| l.as_ref().map_or((0.0, 0.0), |(_, p)| (p.bytes, p.total)));
            let first = cx.gcs.with_untracked(Vec::is_empty);
            cx.gcs.update_untracked(|v| {
                let need = v.len() + batch.len();
                if need > v.capacity() {
                    // At most 4x at a time: GCs bunched at the start must not reserve gigabytes.
                    let expected = crate::analysis::expected_total(need, read, total).min(need * 4);
                    v.reserve_exact(expected.max(need) - v.len());
                }
                v.extend(batch)
            });
            cx.heaps.update_value(|h| h.push(heaps));
            // The views see new rows at once the first time (first rows within a second), then at
            // most every ROWS_SHOWN_EVERY_MS: redrawing the table and its filters for every batch
            // took a core from the worker on a 2-core machine (1 GiB: 3.6-4.1 s with the GC table
            // shown while loading, 2.9 s with the events tab). Done shows the rest.
            let now = js_sys::Date::now();
            if first || now - LAST_SHOWN.get() >= ROWS_SHOWN_EVERY_MS {
                LAST_SHOWN.set(now);
                cx.gcs.notify();
            }
        }
        JobEvent::Message(ToUi::Done(mut a)) => {
            worker_client::cancel();
            cx.gcs.notify();
            cx.loading.set(None);
            match &a.error {
                // Nothing could be read: say why, and offer the way forward instead of empty tables.
                Some(e) if a.events == 0.0 => {
                    cx.gcs.set(Vec::new());
                    cx.heaps.set_value(HeapStore::default());
                    cx.error.set(Some(format!(
                        "{}: {e}. gcscope reads .nettrace and .netperf files (or a .zip/.gz of one) \
                         written by dotnet-trace or DOTNET_EnableEventPipe.",
                        a.file_name
                    )))
                }
                _ => {
                    if let Some(e) = &a.error {
                        cx.error.set(Some(format!(
                            "{e} — the figures cover everything before that point."
                        )));
                    }
                    // The rows all came in `Gcs` batches; the model comes without them.
                    if let Some(m) = a.model.take() {
                        cx.model.set(Some(Arc::new(m)));
                    }
                    cx.analysis.set(Some(Arc::new(*a)));
                }
            }
        }
        JobEvent::Message(ToUi::Ready) => {}
        JobEvent::Crashed(msg) => {
            worker_client::cancel();
            // The rows read before the crash are shown.
            cx.gcs.notify();
            cx.loading.set(None);
            cx.error.set(Some(format!(
                "The decoder stopped unexpectedly ({msg}). Try the file again or another file."
            )));
        }
    });
    if let Err(e) = started {
        cx.loading.set(None);
        cx.error.set(Some(e));
    }
}

async fn fetch_blob(url: &str) -> Result<Blob, String> {
    let window = web_sys::window().ok_or("no window")?;
    let resp = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| format!("could not fetch {url}: {}", js_text(&e)))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| "fetch gave no response")?;
    if !resp.ok() {
        return Err(format!("could not fetch {url}: HTTP {}", resp.status()));
    }
    let blob = JsFuture::from(resp.blob().map_err(|e| js_text(&e))?)
        .await
        .map_err(|e| format!("could not read {url}: {}", js_text(&e)))?;
    blob.dyn_into().map_err(|_| "not a blob".to_string())
}

fn js_text(e: &wasm_bindgen::JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

fn open_url(cx: Ctx, url: String) {
    spawn_local(async move {
        let name = crate::view_state::trace_file_name(&url);
        match fetch_blob(&url).await {
            Ok(blob) => open_blob(cx, name.clone(), worker_client::named(blob, &name)),
            Err(e) => cx.error.set(Some(e)),
        }
    });
}

/// Opens a trace by address and keeps the address in the view state (so the link reopens it).
fn open_trace_url(cx: Ctx, url: String) {
    cx.set_vs(|v| v.trace = Some(url.clone()));
    open_url(cx, url);
}

/// Ctrl+V outside a text field: a copied file opens like a dropped one, a copied http(s) address
/// like `?trace=`.
fn on_paste(cx: Ctx, ev: web_sys::ClipboardEvent) {
    let in_field = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA"));
    let Some(data) = ev.clipboard_data() else {
        return;
    };
    if in_field {
        return;
    }
    if let Some(file) = data.files().and_then(|f| f.get(0)) {
        ev.prevent_default();
        open_blob(cx, file.name(), file.into());
        return;
    }
    let text = data.get_data("text").unwrap_or_default();
    let text = text.trim();
    if text.starts_with("https://") || text.starts_with("http://") {
        ev.prevent_default();
        open_trace_url(cx, text.to_string());
    }
}

fn location_search() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// Writes the view state into the address bar: a new history entry for navigation, the same entry
/// for typing in a filter box.
fn sync_url(prev: &ViewState, next: &ViewState) {
    let q = next.to_query();
    if location_search().trim_start_matches('?') == q {
        return;
    }
    let Some(w) = web_sys::window() else { return };
    let Ok(history) = w.history() else { return };
    let path = w.location().pathname().unwrap_or_default();
    let url = if q.is_empty() {
        path
    } else {
        format!("{path}?{q}")
    };
    let _ = if prev.is_navigation_to(next) {
        history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    } else {
        history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    };
}

/// Offers `text` as a file download.
fn download(name: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = Blob::new_with_str_sequence_and_options(&parts, &opts) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
        if let Ok(a) = doc.create_element("a") {
            let _ = a.set_attribute("href", &url);
            let _ = a.set_attribute("download", name);
            if let Some(a) = a.dyn_ref::<web_sys::HtmlElement>() {
                a.click();
            }
        }
    }
    let cleanup = url.clone();
    spawn_local(async move {
        gloo_timers::future::TimeoutFuture::new(10_000).await;
        let _ = web_sys::Url::revoke_object_url(&cleanup);
    });
}

fn base_name(cx: Ctx) -> String {
    let n = cx
        .analysis
        .get_untracked()
        .map(|a| a.file_name.clone())
        .unwrap_or_else(|| "trace".into());
    n.split('.').next().unwrap_or("trace").to_string()
}

/// CSV and JSON buttons for a table.
#[component]
pub(crate) fn ExportButtons(cx: Ctx, table: Signal<Table>) -> impl IntoView {
    let export = move |json: bool| {
        let t = table.get_untracked();
        let name = format!(
            "{}-{}.{}",
            base_name(cx),
            t.id,
            if json { "json" } else { "csv" }
        );
        if json {
            download(&name, "application/json", &t.to_json());
        } else {
            download(&name, "text/csv", &t.to_csv());
        }
    };
    view! {
        <span class="exports">
            <button class="small export-csv" title="Download this table as CSV" on:click=move |_| export(false)>"CSV"</button>
            <button class="small export-json" title="Download this table as JSON" on:click=move |_| export(true)>"JSON"</button>
        </span>
    }
}

#[component]
pub fn App() -> impl IntoView {
    let gcs = RwSignal::new(Vec::<Gc>::new());
    let heaps = StoredValue::new(HeapStore::default());
    let analysis = RwSignal::new(None::<Arc<Analysis>>);
    let insight_analysis = Memo::new_with_compare(
        move |_| {
            let a = analysis.get()?;
            let shipped = a.insight_inputs.as_ref()?;
            let insights =
                gcs.with(|g| heaps.with_value(|h| crate::insights::ship::finish(shipped, g, h)));
            let mut with = (*a).clone();
            with.insight_inputs = None;
            with.insights = Some(insights);
            Some(Arc::new(with))
        },
        // Changed unless both are the same Arc (or both none): never compares whole insights.
        |old, new| match (old.and_then(Option::as_ref), new.and_then(Option::as_ref)) {
            (Some(a), Some(b)) => !Arc::ptr_eq(a, b),
            (None, None) => old.is_none() != new.is_none(),
            _ => true,
        },
    );
    let cx = Ctx {
        gcs,
        heaps,
        model: RwSignal::new(None),
        analysis,
        insight_analysis,
        loading: RwSignal::new(None),
        error: RwSignal::new(None),
        vs: RwSignal::new(ViewState::from_query(&location_search())),
        opened_at: RwSignal::new(0.0),
        first_rows_ms: RwSignal::new(None),
    };
    let samples = RwSignal::new(Vec::<Sample>::new());
    spawn_local(async move {
        if let Ok(blob) = fetch_blob("samples/index.json").await {
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
    // `?trace=URL` opens that trace.
    if let Some(url) = cx.vs.get_untracked().trace {
        open_url(cx, url);
    }

    // Address bar <-> view state.
    let prev = StoredValue::new(cx.vs.get_untracked());
    Effect::new(move |_| {
        let next = cx.vs.get();
        sync_url(&prev.get_value(), &next);
        prev.set_value(next);
    });
    let _pop = window_event_listener(leptos::ev::popstate, move |_| {
        let v = ViewState::from_query(&location_search());
        prev.set_value(v.clone());
        cx.vs.set(v);
    });
    let _paste = window_event_listener(leptos::ev::paste, move |ev| on_paste(cx, ev));
    // Keyboard: 1-9 switch tabs, Escape closes the detail panel, "/" focuses the filter box.
    let _keys = window_event_listener(leptos::ev::keydown, move |ev: KeyboardEvent| {
        let in_field = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"));
        if in_field || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let key = ev.key();
        if let Some(d) = key.chars().next().and_then(|c| c.to_digit(10)) {
            if key.len() == 1 && (1..=Tab::ALL.len() as u32).contains(&d) {
                cx.set_vs(|v| v.tab = Tab::ALL[d as usize - 1]);
            }
        } else if key == "Escape" {
            cx.set_vs(|v| v.selected = None);
        } else if key == "/" {
            if let Some(el) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id("filter-text"))
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
            {
                ev.prevent_default();
                let _ = el.focus();
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
            cx.set_vs(|v| v.trace = None);
            open_blob(cx, f.name(), f.into());
        }
    };
    let on_file = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        if let Some(f) = input.files().and_then(|files| files.get(0)) {
            cx.set_vs(|v| v.trace = None);
            open_blob(cx, f.name(), f.into());
        }
        // Reset so that choosing the same file again still fires `change`.
        input.set_value("");
    };
    let has_data = move || !cx.gcs.with(|g| g.is_empty()) || cx.analysis.with(|a| a.is_some());
    let copied = RwSignal::new(false);
    let copy_link = move |_| {
        if let Some(w) = web_sys::window() {
            let href = w.location().href().unwrap_or_default();
            let _ = w.navigator().clipboard().write_text(&href);
            copied.set(true);
            spawn_local(async move {
                gloo_timers::future::TimeoutFuture::new(2000).await;
                copied.set(false);
            });
        }
    };
    let report = move |_| {
        let (Some(m), Some(a)) = (
            cx.model.get_untracked(),
            cx.insight_analysis.get_untracked(),
        ) else {
            return;
        };
        let html = cx.gcs.with_untracked(|g| crate::report::html(&m, g, &a));
        download(
            &format!("{}-gcscope-report.html", base_name(cx)),
            "text/html",
            &html,
        );
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
                <span class="tagline">
                    {move || cx.analysis.get().map(|a| a.file_name.clone()).unwrap_or_else(|| ".NET GC trace viewer: runs in your browser, nothing is uploaded".into())}
                </span>
                <Show when=move || cx.model.with(|m| m.is_some())>
                    <button id="report" title="Download the whole analysis as one HTML file (opens offline)" on:click=report>"HTML report"</button>
                </Show>
                <button id="copy-link" title="Copy a link to this exact view" on:click=copy_link>
                    {move || if copied.get() { "Link copied" } else { "Copy link" }}
                </button>
                <label class="button primary" for="file-input">"Open trace…"</label>
                <input
                    id="file-input"
                    type="file"
                    accept=".nettrace,.netperf,.zip,.gz"
                    aria-label="Open a trace file"
                    on:change=on_file
                />
            </header>
            <main>
                {move || cx.error.get().map(|msg| view! { <div id="error" class="error" role="alert">{msg}</div> })}
                <ZipEntries cx=cx />
                {move || cx.loading.get().map(|(name, p)| view! { <Loading cx=cx name=name progress=p /> })}
                {move || if has_data() {
                    view! { <Results cx=cx /> }.into_any()
                } else if cx.loading.with(|l| l.is_none()) {
                    view! { <EmptyState samples=samples cx=cx /> }.into_any()
                } else {
                    ().into_any()
                }}
            </main>
        </div>
    }
}

#[component]
fn EmptyState(samples: RwSignal<Vec<Sample>>, cx: Ctx) -> impl IntoView {
    let url_text = RwSignal::new(String::new());
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
                        let file = s.file.clone();
                        view! {
                            <button
                                class="sample-button"
                                id=format!("sample-{i}")
                                on:click=move |_| {
                                    open_trace_url(cx, format!("samples/{file}"));
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
                        open_trace_url(cx, url);
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

#[component]
fn Loading(cx: Ctx, name: String, progress: Progress) -> impl IntoView {
    let pct = if progress.total > 0.0 {
        100.0 * progress.bytes / progress.total
    } else {
        0.0
    };
    let rate = if progress.elapsed_ms > 0.0 {
        progress.events / progress.elapsed_ms * 1000.0
    } else {
        0.0
    };
    view! {
        <section class="loading" aria-live="polite">
            <div class="loading-row">
                <strong>"Reading " {name}</strong>
                <progress id="progress" max="100" value=format!("{pct:.1}")></progress>
                <button
                    id="cancel"
                    on:click=move |_| {
                        worker_client::cancel();
                        cx.loading.set(None);
                        cx.gcs.set(Vec::new());
                    }
                >
                    "Cancel"
                </button>
            </div>
            <p class="progress-text">
                {format!(
                    "{} of {} ({pct:.0}%) · {} events · {} events/s · {} GCs so far",
                    bytes(progress.bytes),
                    bytes(progress.total),
                    thousands(progress.events),
                    thousands(rate),
                    thousands(progress.gcs),
                )}
            </p>
        </section>
    }
}

#[component]
fn Results(cx: Ctx) -> impl IntoView {
    let tab = move || cx.vs.with(|v| v.tab);
    view! {
        <nav class="tabs" role="tablist">
            {Tab::ALL.iter().enumerate().map(|(i, t)| {
                let t = *t;
                view! {
                    <button
                        role="tab"
                        id=format!("tab-{}", t.key())
                        class="tab"
                        class:active=move || tab() == t
                        aria-selected=move || (tab() == t).to_string()
                        title=if i < 9 { format!("{} (key {})", t.title(), i + 1) } else { t.title().to_string() }
                        on:click=move |_| cx.set_vs(|v| v.tab = t)
                    >
                        {t.title()}
                    </button>
                }
            }).collect_view()}
            <RangeBadge cx=cx />
        </nav>
        <div class="tab-body">
            {move || match tab() {
                Tab::Overview => view! { <Overview cx=cx /> }.into_any(),
                Tab::Gcs => view! { <GcTable cx=cx /> }.into_any(),
                Tab::Reasons => view! { <Reasons cx=cx /> }.into_any(),
                Tab::Pins => view! { <Pins cx=cx /> }.into_any(),
                Tab::Charts => view! { <Charts cx=cx /> }.into_any(),
                Tab::Events => view! { <Events cx=cx /> }.into_any(),
                Tab::Allocs => view! { <insights::allocations::Allocations cx=cx /> }.into_any(),
                Tab::Budgets => view! { <insights::budgets::Budgets cx=cx /> }.into_any(),
                Tab::Roots => view! { <insights::roots::Roots cx=cx /> }.into_any(),
                Tab::Suspensions => view! { <insights::suspensions::Suspensions cx=cx /> }.into_any(),
                Tab::Memory => view! { <insights::memory::Memory cx=cx /> }.into_any(),
                Tab::Counters => view! { <insights::counters::Counters cx=cx /> }.into_any(),
            }}
        </div>
        <Show when=move || cx.vs.with(|v| v.selected.is_some())>
            <Detail cx=cx />
        </Show>
    }
}

/// Shows the time range that filters every view, with a way to clear it.
#[component]
fn RangeBadge(cx: Ctx) -> impl IntoView {
    move || {
        let (t0, t1) = cx.vs.with(|v| (v.filter.t0, v.filter.t1));
        (t0.is_some() || t1.is_some()).then(|| {
            view! {
                <span id="range" class="range-badge">
                    {format!(
                        "Time range {} – {}",
                        t0.map(ms).unwrap_or_else(|| "start".into()),
                        t1.map(ms).unwrap_or_else(|| "end".into())
                    )}
                    <button class="small" id="clear-range" on:click=move |_| cx.set_vs(|v| {
                        v.filter.t0 = None;
                        v.filter.t1 = None;
                    })>"×"</button>
                </span>
            }
        })
    }
}

fn in_range(cx: Ctx) -> impl Fn(&Gc) -> bool {
    let f = cx.vs.with(|v| v.filter.clone());
    move |g: &Gc| f.in_range(g.start_ms)
}

fn dropped_note(m: &GcModel) -> Option<String> {
    m.process.dropped_events.filter(|d| *d > 0).map(|d| {
        format!(
            "{} events were dropped by the runtime: GC counts, pauses and sizes may be incomplete",
            thousands(d as f64)
        )
    })
}

#[component]
fn Overview(cx: Ctx) -> impl IntoView {
    view! {
        <section class="overview">
            {move || {
                let Some(m) = cx.model.get() else {
                    return view! { <p class="muted">"Reading… the overview appears when the whole trace is read; the GC table fills as GCs are found."</p> }.into_any();
                };
                let a = cx.analysis.get();
                let (name, size) = a.as_ref().map(|a| (a.file_name.clone(), a.file_size)).unwrap_or_default();
                let facts = tables::facts(&m, &name, size);
                let dropped = dropped_note(&m);
                let warn = dropped.clone();
                let ranged = cx.vs.with(|v| v.filter.t0.is_some() || v.filter.t1.is_some());
                // % paused: whole trace from the model, or over the selected range.
                let keep = in_range(cx);
                let (paused, span, count) = cx.gcs.with(|g| {
                    let sel: Vec<&Gc> = g.iter().filter(|g| g.complete && keep(g)).collect();
                    let total: f64 = sel.iter().filter_map(|g| g.pause_ms).sum();
                    let span = match (sel.first(), sel.iter().filter_map(|g| g.end_ms).reduce(f64::max)) {
                        (Some(f), Some(l)) if l > f.start_ms => l - f.start_ms,
                        _ => 0.0,
                    };
                    (total, span, sel.len())
                });
                let pct = if ranged {
                    if span > 0.0 { Some(paused * 100.0 / span) } else { None }
                } else {
                    m.rollup.first().and_then(|r| r.pause_time_pct)
                };
                let rollup = tables::rollup_table(&m);
                view! {
                    <div class="overview-grid">
                        <div>
                            <h2>"Trace"</h2>
                            <dl id="facts" class="facts">
                                {facts.into_iter().map(|(k, v, help)| {
                                    let id = format!("fact-{}", k.to_lowercase().replace([' ', '/'], "-"));
                                    let skewed = dropped.is_some() && matches!(k.as_str(), "GCs" | "Events" | "GC events");
                                    view! {
                                        <dt title=help>{k}</dt>
                                        <dd id=id>{v}{skewed.then(|| view! { <span class="warn" title=dropped.clone().unwrap_or_default()>" ⚠ events dropped"</span> })}</dd>
                                    }
                                }).collect_view()}
                            </dl>
                        </div>
                        <div>
                            <h2>"Time paused"</h2>
                            <div class="big" id="pause-pct" title="Total pause / span from the first complete GC's pause start to the last GC's end">
                                {pct.map(|p| format!("{p:.2}%")).unwrap_or_else(|| "–".into())}
                                {warn.map(|w| view! { <span class="warn" title=w>" ⚠"</span> })}
                            </div>
                            <p class="muted">
                                {format!("{} paused over {} GCs{}", ms(paused), thousands(count as f64), if ranged { " in the selected range" } else { "" })}
                            </p>
                            <h2>"Worst pauses"</h2>
                            <WorstPauses cx=cx />
                        </div>
                    </div>
                    <h2>"Pause per GC " <span class="muted small-text">"(hover for the GC, click to open it, drag to select a time range)"</span></h2>
                    <PauseChart cx=cx />
                    <div class="table-head">
                        <h2>"Rollup by generation"</h2>
                        <ExportButtons cx=cx table=Signal::derive(move || tables::rollup_table(&m)) />
                        {ranged.then(|| view! { <span class="muted">"(whole trace)"</span> })}
                    </div>
                    <StaticTable table=rollup id="rollup" />
                }.into_any()
            }}
        </section>
    }
}

#[component]
fn WorstPauses(cx: Ctx) -> impl IntoView {
    move || {
        let keep = in_range(cx);
        let worst: Vec<Gc> = cx.gcs.with(|g| {
            let mut v: Vec<&Gc> = g
                .iter()
                .filter(|g| g.pause_ms.is_some() && keep(g))
                .collect();
            v.sort_by(|a, b| {
                b.pause_ms
                    .unwrap_or(0.0)
                    .total_cmp(&a.pause_ms.unwrap_or(0.0))
            });
            v.into_iter().take(8).cloned().collect()
        });
        view! {
            <ol id="worst-pauses" class="worst">
                {worst.into_iter().map(|g| {
                    let n = g.number;
                    let why = g.condemn.as_ref().map(|c| c.conditions.join(", ")).unwrap_or_default();
                    view! {
                        <li>
                            <button class="link worst-gc" data-gc=n.to_string() on:click=move |_| cx.select(n)>
                                // A list to compare down: one unit for every entry.
                                <span class="num">{crate::format::column_ms(g.pause_ms.unwrap_or(0.0))}</span>
                                {format!(" GC #{n} · gen{} {} · {}", g.gen, g.gc_type.name(), g.reason)}
                                {(!why.is_empty()).then(|| format!(" · {why}"))}
                            </button>
                        </li>
                    }
                }).collect_view()}
            </ol>
        }
    }
}

/// A small table with formatted cells (rollups; no sorting needed).
#[component]
fn StaticTable(table: Table, id: &'static str) -> impl IntoView {
    let t = table;
    view! {
        <table id=id class="grid">
            <thead><tr>
                {t.cols.iter().map(|c| view! {
                    <th scope="col" class:num=c.unit != "name" title=c.help>{c.label.clone()}</th>
                }).collect_view()}
            </tr></thead>
            <tbody>
                {(0..t.rows.len()).map(|r| view! {
                    <tr>{(0..t.cols.len()).map(|c| view! {
                        <td class:num=t.cols[c].unit != "name">{t.shown(r, c)}</td>
                    }).collect_view()}</tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}

const ROW_H: f64 = 22.0;

#[component]
fn GcTable(cx: Ctx) -> impl IntoView {
    // Only a change of filter or sort re-sorts (not a selection or a tab change).
    let filter_sort = Memo::new(move |_| cx.vs.with(|v| (v.filter.clone(), v.sort.clone())));
    let rows = Memo::new(move |_| {
        let (f, s) = filter_sort.get();
        Arc::new(cx.gcs.with(|g| {
            cx.heaps
                .with_value(|h| visible_rows(g, &|i| h.words(i), &f, s.as_ref()))
        }))
    });
    let cols = Memo::new(move |_| {
        cx.vs.with(|v| {
            v.visible_columns()
                .iter()
                .map(|c| c.id.clone())
                .collect::<Vec<_>>()
        })
    });
    let scroll = RwSignal::new(0.0f64);
    let viewport = RwSignal::new(600.0f64);
    let body = NodeRef::<leptos::html::Div>::new();
    let table_sig = Signal::derive(move || {
        let cs: Vec<&columns::Column> = cols
            .get()
            .iter()
            .filter_map(|c| columns::by_id(c))
            .collect();
        cx.gcs.with(|g| tables::gc_table(g, &rows.get(), &cs))
    });
    // Keep the selected row in view when it changes by keyboard.
    let move_sel = move |delta: i64| {
        let r = rows.get_untracked();
        if r.is_empty() {
            return;
        }
        let sel = cx.vs.with_untracked(|v| v.selected);
        let pos = cx.gcs.with_untracked(|g| {
            sel.and_then(|n| r.iter().position(|&i| g[i as usize].number == n))
        });
        let next = match pos {
            Some(p) => (p as i64 + delta).clamp(0, r.len() as i64 - 1) as usize,
            None => 0,
        };
        let n = cx.gcs.with_untracked(|g| g[r[next] as usize].number);
        cx.select(n);
        if let Some(el) = body.get_untracked() {
            let top = next as f64 * ROW_H;
            let h = el.client_height() as f64 - ROW_H * 2.0;
            let st = el.scroll_top() as f64;
            if top < st {
                el.set_scroll_top(top as i32);
            } else if top > st + h {
                el.set_scroll_top((top - h) as i32);
            }
        }
    };
    let on_key = move |ev: KeyboardEvent| match ev.key().as_str() {
        "ArrowDown" | "j" => {
            ev.prevent_default();
            move_sel(1)
        }
        "ArrowUp" | "k" => {
            ev.prevent_default();
            move_sel(-1)
        }
        "PageDown" => {
            ev.prevent_default();
            move_sel((viewport.get_untracked() / ROW_H) as i64)
        }
        "PageUp" => {
            ev.prevent_default();
            move_sel(-((viewport.get_untracked() / ROW_H) as i64))
        }
        "Enter" if cx.vs.with_untracked(|v| v.selected.is_none()) => move_sel(0),
        _ => {}
    };
    let sort_by = move |id: String| {
        cx.set_vs(|v| {
            v.sort = match &v.sort {
                Some(s) if s.column == id && !s.desc => Some(Sort {
                    column: id,
                    desc: true,
                }),
                Some(s) if s.column == id => None,
                _ => Some(Sort {
                    column: id,
                    desc: false,
                }),
            }
        })
    };
    view! {
        <section class="gc-table">
            <Filters cx=cx />
            <div class="table-head">
                <span id="row-count" class="muted">
                    {move || format!("{} of {} GCs", thousands(rows.get().len() as f64), thousands(cx.gcs.with(|g| g.len()) as f64))}
                </span>
                <ColumnChooser cx=cx />
                <ExportButtons cx=cx table=table_sig />
            </div>
            <div
                class="scroller"
                id="gc-scroller"
                tabindex="0"
                node_ref=body
                on:scroll=move |_| {
                    if let Some(el) = body.get_untracked() {
                        scroll.set(el.scroll_top() as f64);
                        viewport.set(el.client_height() as f64);
                    }
                }
                on:keydown=on_key
            >
                <table id="gc-table" class="grid virtual">
                    <thead><tr>
                        {move || cols.get().into_iter().filter_map(|id| columns::by_id(&id)).map(|c| {
                            let id = c.id.clone();
                            let id2 = id.clone();
                            let arrow = move || cx.vs.with(|v| match &v.sort {
                                Some(s) if s.column == id2 => if s.desc { " ▼" } else { " ▲" },
                                _ => "",
                            });
                            let id3 = id.clone();
                            let id4 = id.clone();
                            view! {
                                <th
                                    scope="col"
                                    tabindex="0"
                                    data-col=id.clone()
                                    class:num=c.is_num()
                                    title=format!("{} ({}) — click to sort", c.help, c.unit)
                                    aria-sort=move || cx.vs.with(|v| match &v.sort {
                                        Some(s) if s.column == id4 => if s.desc { "descending" } else { "ascending" },
                                        _ => "none",
                                    })
                                    on:click=move |_| sort_by(id.clone())
                                    on:keydown=move |ev: KeyboardEvent| if ev.key() == "Enter" || ev.key() == " " {
                                        ev.prevent_default();
                                        // Not also "open the first row" in the table's handler.
                                        ev.stop_propagation();
                                        sort_by(id3.clone());
                                    }
                                >
                                    {c.label.clone()}{arrow}
                                </th>
                            }
                        }).collect_view()}
                    </tr></thead>
                    <tbody>
                        {move || {
                            let r = rows.get();
                            let first = ((scroll.get() / ROW_H).floor() as usize).saturating_sub(5);
                            // Enough rows for the scroller at any height it can have (it is never
                            // taller than the window), before its first scroll event is measured.
                            let window_h = web_sys::window()
                                .and_then(|w| w.inner_height().ok())
                                .and_then(|h| h.as_f64())
                                .unwrap_or(0.0);
                            let count = (viewport.get().max(window_h) / ROW_H).ceil() as usize + 12;
                            let last = (first + count).min(r.len());
                            let first = first.min(last);
                            let cs: Vec<&columns::Column> = cols.get().iter().filter_map(|c| columns::by_id(c)).collect();
                            let selected = cx.vs.with(|v| v.selected);
                            let ncols = cs.len().max(1);
                            let top = first as f64 * ROW_H;
                            let bottom = (r.len() - last) as f64 * ROW_H;
                            let body_rows = cx.gcs.with(|g| {
                                r[first..last].iter().map(|&i| {
                                    let gc = &g[i as usize];
                                    let n = gc.number;
                                    let cells: Vec<(String, bool)> = cs.iter().map(|c| (c.show(gc), c.is_num())).collect();
                                    view! {
                                        <tr
                                            class=format!("gen{}", gc.gen)
                                            class:selected=selected == Some(n)
                                            class:incomplete=!gc.complete
                                            data-gc=n.to_string()
                                            on:click=move |_| cx.select(n)
                                        >
                                            {cells.into_iter().map(|(s, num)| view! { <td class:num=num>{s}</td> }).collect_view()}
                                        </tr>
                                    }
                                }).collect_view()
                            });
                            view! {
                                <tr class="spacer" style=format!("height:{top}px")><td colspan=ncols></td></tr>
                                {body_rows}
                                <tr class="spacer" style=format!("height:{bottom}px")><td colspan=ncols></td></tr>
                            }
                        }}
                    </tbody>
                </table>
            </div>
        </section>
    }
}

#[component]
fn Filters(cx: Ctx) -> impl IntoView {
    let f = move || cx.vs.with(|v| v.filter.clone());
    let reasons = move || {
        let mut r: Vec<String> = cx
            .gcs
            .with(|g| g.iter().map(|g| g.reason.to_string()).collect());
        r.sort();
        r.dedup();
        r
    };
    let gen_box = move |g: u8| {
        view! {
            <label class="check">
                <input
                    type="checkbox"
                    id=format!("filter-gen{g}")
                    prop:checked=move || f().gens.contains(&g)
                    on:change=move |_| cx.set_vs(|v| {
                        if let Some(p) = v.filter.gens.iter().position(|x| *x == g) {
                            v.filter.gens.remove(p);
                        } else {
                            v.filter.gens.push(g);
                            v.filter.gens.sort();
                        }
                    })
                />
                {format!("gen{g}")}
            </label>
        }
    };
    view! {
        <div class="filters" role="search">
            <span class="muted">"Gen"</span>
            {gen_box(0)}{gen_box(1)}{gen_box(2)}
            <select id="filter-type" aria-label="GC type" on:change=move |ev| {
                let v = event_target_value(&ev);
                cx.set_vs(|s| s.filter.gc_type = (!v.is_empty()).then_some(v));
            } prop:value=move || f().gc_type.unwrap_or_default()>
                <option value="">"any type"</option>
                <option value="NonConcurrent">"NonConcurrent"</option>
                <option value="Background">"Background"</option>
                <option value="Foreground">"Foreground"</option>
            </select>
            <select id="filter-reason" aria-label="Trigger reason" on:change=move |ev| {
                let v = event_target_value(&ev);
                cx.set_vs(|s| s.filter.reason = (!v.is_empty()).then_some(v));
            } prop:value=move || f().reason.unwrap_or_default()>
                <option value="">"any trigger"</option>
                {move || {
                    let mut r = reasons();
                    if let Some(cur) = f().reason { if !r.contains(&cur) { r.push(cur); } }
                    r.into_iter().map(|r| view! { <option value=r.clone()>{r.clone()}</option> }).collect_view()
                }}
            </select>
            <select id="filter-induced" aria-label="Induced" on:change=move |ev| {
                let v = event_target_value(&ev);
                cx.set_vs(|s| s.filter.induced = match v.as_str() { "1" => Some(true), "0" => Some(false), _ => None });
            } prop:value=move || match f().induced { Some(true) => "1", Some(false) => "0", None => "" }>
                <option value="">"induced or not"</option>
                <option value="1">"induced only"</option>
                <option value="0">"not induced"</option>
            </select>
            <label class="check">"pause ≥ "
                <input id="filter-minpause" type="number" min="0" step="any" class="narrow"
                    prop:value=move || f().min_pause_ms.map(|m| m.to_string()).unwrap_or_default()
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        cx.set_vs(|s| s.filter.min_pause_ms = v.trim().parse().ok());
                    }
                />" ms"
            </label>
            <label class="check">"from "
                <input id="filter-t0" type="number" step="any" class="narrow"
                    prop:value=move || f().t0.map(|m| m.to_string()).unwrap_or_default()
                    on:change=move |ev| { let v = event_target_value(&ev); cx.set_vs(|s| s.filter.t0 = v.trim().parse().ok()); }
                />" to "
                <input id="filter-t1" type="number" step="any" class="narrow"
                    prop:value=move || f().t1.map(|m| m.to_string()).unwrap_or_default()
                    on:change=move |ev| { let v = event_target_value(&ev); cx.set_vs(|s| s.filter.t1 = v.trim().parse().ok()); }
                />" ms"
            </label>
            <input id="filter-text" type="search" placeholder="reason / condition text  ( / )" aria-label="Filter by reason text"
                prop:value=move || f().text
                on:input=move |ev| { let v = event_target_value(&ev); cx.set_vs(|s| s.filter.text = v); }
            />
            {move || f().cond.map(|c| view! {
                <span class="chip" id="filter-cond">{format!("condition: {c}")}
                    <button class="small" on:click=move |_| cx.set_vs(|s| s.filter.cond = None)>"×"</button>
                </span>
            })}
            <Show when=move || !f().is_empty()>
                <button class="small" id="clear-filters" on:click=move |_| cx.set_vs(|s| s.filter = Default::default())>"Clear filters"</button>
            </Show>
        </div>
    }
}

#[component]
fn ColumnChooser(cx: Ctx) -> impl IntoView {
    view! {
        <details class="chooser" id="column-chooser">
            <summary>"Columns"</summary>
            <div class="chooser-list">
                <button class="small" on:click=move |_| cx.set_vs(|v| v.columns = None)>"Defaults"</button>
                {columns::all().iter().map(|c| {
                    let id = c.id.clone();
                    let id2 = id.clone();
                    view! {
                        <label class="check" title=c.help>
                            <input type="checkbox" data-col=id.clone()
                                prop:checked=move || cx.vs.with(|v| v.visible_columns().iter().any(|x| x.id == id))
                                on:change=move |_| cx.set_vs(|v| {
                                    let mut cur: Vec<String> = v.visible_columns().iter().map(|c| c.id.clone()).collect();
                                    if let Some(p) = cur.iter().position(|x| *x == id2) { cur.remove(p); } else {
                                        // Keep the model's column order.
                                        cur.push(id2.clone());
                                        cur.sort_by_key(|x| columns::all().iter().position(|c| c.id == *x));
                                    }
                                    v.columns = Some(cur);
                                })
                            />
                            {c.label.clone()}
                        </label>
                    }
                }).collect_view()}
            </div>
        </details>
    }
}

/// The detail panel of the selected GC.
#[component]
fn Detail(cx: Ctx) -> impl IntoView {
    move || {
        let n = cx.vs.with(|v| v.selected)?;
        let found = cx.gcs.with(|g| {
            g.iter()
                .position(|g| g.number == n)
                .map(|i| (i, g[i].clone()))
        });
        let (row, gc) = found.unzip();
        let close = move |_| cx.set_vs(|v| v.selected = None);
        let Some(gc) = gc else {
            return Some(view! {
                <aside id="detail" class="detail"><button class="close" on:click=close>"×"</button><p>{format!("GC #{n} is not in this trace.")}</p></aside>
            }.into_any());
        };
        let field = |id: &str| columns::by_id(id).map(|c| (c.label.clone(), c.show(&gc), c.help));
        let summary: Vec<_> = [
            "gen",
            "type",
            "reason",
            "induced",
            "start_ms",
            "pause_ms",
            "suspend_ms",
            "duration_ms",
            "bgc_final_pause_ms",
            "pause_pct",
            "allocated_bytes",
            "before_bytes",
            "peak_bytes",
            "after_bytes",
            "promoted_bytes",
            "heap_count",
            "condemned_gen",
            "pause_mode",
            "memory_pressure_pct",
            "global_mechanisms",
            "pinned_object_count",
            "gc_handle_count",
        ]
        .iter()
        .filter_map(|id| field(id))
        .filter(|(_, v, _)| !v.is_empty())
        .collect();
        let gens: Vec<(&str, Vec<String>)> = gcscope_core::gc::Generations::NAMES
            .iter()
            .map(|gname| {
                let vals = [
                    "size_before_bytes",
                    "size_after_bytes",
                    "survived_bytes",
                    "survival_pct",
                    "fragmentation_pct",
                    "budget_bytes",
                ]
                .iter()
                .map(|f| {
                    columns::by_id(&format!("generations.{gname}.{f}"))
                        .map(|c| c.show(&gc))
                        .unwrap_or_default()
                })
                .collect();
                (*gname, vals)
            })
            .collect();
        let phases: Vec<(String, String)> = gc
            .phase_times_us
            .as_ref()
            .map(|_| {
                columns::all()
                    .iter()
                    .filter(|c| c.id.starts_with("phase_times_us."))
                    .map(|c| (c.label.clone(), c.show(&gc)))
                    .filter(|(_, v)| !v.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let condemn = gc.condemn.clone();
        let heaps = row
            .map(|i| cx.heaps.with_value(|h| h.unpack(i)))
            .unwrap_or_default();
        let pins = gc.pinned_objects.clone();
        let missing = gc.missing.clone();
        Some(view! {
            <aside id="detail" class="detail" aria-label=format!("GC {n}")>
                <button class="close" title="Close (Esc)" on:click=close>"×"</button>
                <h2 id="detail-title">{format!("GC #{n} · gen{} {}", gc.gen, gc.gc_type.name())}</h2>
                <dl class="facts two">
                    {summary.into_iter().map(|(k, v, h)| view! { <dt title=h>{k}</dt><dd>{v}</dd> }).collect_view()}
                </dl>
                <h3>"Why this generation"</h3>
                {match condemn {
                    Some(c) => view! {
                        <dl class="facts two" id="detail-condemn">
                            <dt>"Initial gen"</dt><dd>{c.initial_gen}</dd>
                            <dt>"Final gen"</dt><dd>{c.final_gen}</dd>
                            <dt title="Highest generation whose allocation budget was exceeded">"Budget exceeded"</dt><dd>{format!("gen{}", c.alloc_budget_gen)}</dd>
                            <dt>"Time tuning"</dt><dd>{if c.time_tuning_gen == 0 { "–".to_string() } else { format!("gen{}", c.time_tuning_gen) }}</dd>
                            <dt>"Conditions"</dt><dd id="detail-conditions">{if c.conditions.is_empty() { "none".to_string() } else { c.conditions.join(", ") }}</dd>
                        </dl>
                    }.into_any(),
                    None => view! { <p class="muted">"No GCPerHeapHistory for this GC: condemn reasons unknown."</p> }.into_any(),
                }}
                <h3>"Generations"</h3>
                <table class="grid compact">
                    <thead><tr><th></th><th class="num">"Before"</th><th class="num">"After"</th><th class="num">"Survived"</th><th class="num">"Surv %"</th><th class="num">"Frag %"</th><th class="num">"Budget"</th></tr></thead>
                    <tbody>{gens.into_iter().map(|(g, vals)| view! {
                        <tr><th scope="row">{g}</th>{vals.into_iter().map(|v| view! { <td class="num">{v}</td> }).collect_view()}</tr>
                    }).collect_view()}</tbody>
                </table>
                {(!phases.is_empty()).then(|| view! {
                    <h3>"Phase times"</h3>
                    <dl class="facts two">{phases.into_iter().map(|(k, v)| view! { <dt>{k}</dt><dd>{v}</dd> }).collect_view()}</dl>
                })}
                {(!heaps.is_empty()).then(|| view! {
                    <h3>{format!("Per heap ({})", heaps.len())}</h3>
                    <table class="grid compact" id="detail-heaps">
                        <thead><tr><th>"Heap"</th><th>"Final gen"</th><th>"Budget gen"</th><th>"Conditions"</th><th>"Compact"</th><th>"Expand"</th><th class="num">"Gen0 before"</th><th class="num">"Gen0 surv %"</th></tr></thead>
                        <tbody>{heaps.into_iter().map(|h| {
                            let g0 = h.generations.first().cloned().unwrap_or_default();
                            view! {
                                <tr>
                                    <td class="num">{h.heap}</td>
                                    <td>{h.condemn.final_gen}</td>
                                    <td>{h.condemn.alloc_budget_gen}</td>
                                    <td>{h.condemn.conditions.join(", ")}</td>
                                    <td>{h.compact_mechanism.map(|s| s.to_string()).unwrap_or_default()}</td>
                                    <td>{h.expand_mechanism.map(|s| s.to_string()).unwrap_or_default()}</td>
                                    <td class="num">{bytes(g0.size_before_bytes as f64)}</td>
                                    <td class="num">{g0.survival_pct.map(|p| format!("{p:.1}%")).unwrap_or_default()}</td>
                                </tr>
                            }
                        }).collect_view()}</tbody>
                    </table>
                })}
                <h3>{format!("Pinned objects ({})", pins.len())}</h3>
                {if pins.is_empty() {
                    view! { <p class="muted">"None reported (PinObjectAtGCTime needs the GC keyword at Verbose level)."</p> }.into_any()
                } else {
                    view! {
                        <table class="grid compact" id="detail-pins">
                            <thead><tr><th>"Type"</th><th class="num">"Size"</th><th class="num">"Object"</th></tr></thead>
                            <tbody>{pins.into_iter().take(500).map(|p| view! {
                                <tr><td>{p.type_name}</td><td class="num">{bytes(p.size_bytes as f64)}</td><td class="num">{format!("0x{:x}", p.address)}</td></tr>
                            }).collect_view()}</tbody>
                        </table>
                    }.into_any()
                }}
                {(!missing.is_empty()).then(|| view! {
                    <h3>"Missing"</h3>
                    <ul class="muted">{missing.into_iter().map(|m| view! { <li>{m.to_string()}</li> }).collect_view()}</ul>
                })}
            </aside>
        }.into_any())
    }
}

#[component]
fn Reasons(cx: Ctx) -> impl IntoView {
    move || {
        let Some(m) = cx.model.get() else {
            return view! { <p class="muted">"Condemn reasons appear when the whole trace is read."</p> }.into_any();
        };
        let ranged = cx
            .vs
            .with(|v| v.filter.t0.is_some() || v.filter.t1.is_some());
        let keep = in_range(cx);
        let (trig, cond, without) = if ranged {
            cx.gcs.with(|g| {
                let sel: Vec<&Gc> = g.iter().filter(|g| keep(g)).collect();
                tables::breakdown(&sel)
            })
        } else {
            (
                tables::reasons_table(&m, false),
                tables::reasons_table(&m, true),
                m.condemn_reasons.without_history,
            )
        };
        let t1 = trig.clone();
        let c1 = cond.clone();
        view! {
            <section class="reasons">
                <p class="muted">"Complete GCs per generation. Click a count to see those GCs in the GC table; open a GC for its per-heap reasons."</p>
                <div class="table-head"><h2>"Trigger reason × generation"</h2><ExportButtons cx=cx table=Signal::derive(move || t1.clone()) /></div>
                <ReasonGrid cx=cx table=trig by_condition=false />
                <div class="table-head"><h2>"Condemn condition × generation"</h2><ExportButtons cx=cx table=Signal::derive(move || c1.clone()) /></div>
                <ReasonGrid cx=cx table=cond by_condition=true />
                <p class="muted" id="without-history">{format!(
                    "GCs without GCPerHeapHistory (no condemn reasons): gen0 {}, gen1 {}, gen2 {}",
                    without[0], without[1], without[2]
                )}</p>
            </section>
        }.into_any()
    }
}

#[component]
fn ReasonGrid(cx: Ctx, table: Table, by_condition: bool) -> impl IntoView {
    let t = table;
    let help = |r: &str| {
        gcscope_core::clr::enums::CondemnCondition::ALL
            .iter()
            .find(|c| c.name() == r)
            .map(|c| gcscope_core::gc::reasons::condition_help(*c))
            .unwrap_or("")
    };
    view! {
        <table class="grid reason-grid" id=if by_condition { "condition-grid" } else { "trigger-grid" }>
            <thead><tr>{t.cols.iter().map(|c| view! { <th class:num=c.unit != "name" title=c.help>{c.label.clone()}</th> }).collect_view()}</tr></thead>
            <tbody>
                {t.rows.iter().map(|row| {
                    let reason = match &row[0] { Cell::Text(s) => s.clone(), _ => String::new() };
                    let h = help(&reason);
                    view! {
                        <tr>
                            <th scope="row" title=h>{reason.clone()}</th>
                            {(1..row.len()).map(|ci| {
                                let v = match row[ci] { Cell::Num(Some(v)) => v, _ => 0.0 };
                                let reason = reason.clone();
                                let gen = (ci <= 3).then(|| ci as u8 - 1);
                                view! {
                                    <td class="num">
                                        {if v > 0.0 {
                                            view! {
                                                <button class="link cell" data-reason=reason.clone() data-gen=gen.map(|g| g.to_string()).unwrap_or_else(|| "all".into())
                                                    on:click=move |_| cx.set_vs(|s| {
                                                        s.filter = crate::view_state::Filter { t0: s.filter.t0, t1: s.filter.t1, ..Default::default() };
                                                        s.filter.gens = gen.into_iter().collect();
                                                        if by_condition { s.filter.cond = Some(reason.clone()) } else { s.filter.reason = Some(reason.clone()) }
                                                        s.tab = Tab::Gcs;
                                                    })
                                                >{thousands(v)}</button>
                                            }.into_any()
                                        } else {
                                            view! { <span class="muted">"·"</span> }.into_any()
                                        }}
                                    </td>
                                }
                            }).collect_view()}
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}

#[component]
fn Pins(cx: Ctx) -> impl IntoView {
    move || {
        let Some(m) = cx.model.get() else {
            return view! { <p class="muted">"Pinning and handles appear when the whole trace is read."</p> }.into_any();
        };
        let ranged = cx
            .vs
            .with(|v| v.filter.t0.is_some() || v.filter.t1.is_some());
        let pins = if ranged {
            let keep = in_range(cx);
            cx.gcs
                .with(|g| tables::pins_from_rows(g.iter().filter(|g| keep(g))))
        } else {
            tables::pins_table(&m)
        };
        let h = &m.handles;
        let p = &m.pinning;
        let live: Vec<(f64, f64)> = h
            .live_over_time
            .iter()
            .map(|t| (t.ms, t.value as f64))
            .collect();
        view! {
            <section class="pins">
                <p class="muted" id="pin-summary">{if p.has_events {
                    format!("{} pinned-object reports in {} GCs · {} pinned-plug reports", thousands(p.pinned_object_events as f64), thousands(p.gcs_with_pins as f64), thousands(p.pinned_plug_events as f64))
                } else {
                    "No PinObjectAtGCTime events: capture with the GC keyword at Verbose level (Microsoft-Windows-DotNETRuntime:0x1:5).".to_string()
                }}</p>
                <SideTableView cx=cx table=pins id="pinned-types" state=TableState::in_url(cx, |v| &mut v.pins) />
                <p class="muted" id="handle-summary">{if h.has_events {
                    format!("{} handles created, {} destroyed ({} created before the trace)", thousands(h.created as f64), thousands(h.destroyed as f64), thousands(h.destroyed_unmatched as f64))
                } else {
                    "No GC handle events: capture with the GCHandle keyword (Microsoft-Windows-DotNETRuntime:0x3:5).".to_string()
                }}</p>
                <SideTableView cx=cx table=tables::kinds_table(&m) id="handle-kinds" state=TableState::in_url(cx, |v| &mut v.kinds) />
                <h2>"Live handles over time"</h2>
                <LineChart cx=cx series=vec![("live handles".into(), "var(--accent)".into(), live)] unit="count" id="live-chart" />
                <SideTableView cx=cx table=tables::live_table(&m) id="handles-alive" state=TableState::in_url(cx, |v| &mut v.live) />
            </section>
        }.into_any()
    }
}

#[component]
fn Events(cx: Ctx) -> impl IntoView {
    move || {
        cx.analysis.get().map(|a| {
            let rows = a.event_counts.clone();
            view! {
                <dl class="facts">
                    <dt>"Events"</dt><dd id="event-count">{thousands(a.events)}</dd>
                    <dt>"GC/Start events"</dt><dd id="gc-count">{thousands(a.gc_starts)}</dd>
                    <dt>"Decoded in"</dt><dd id="decode-ms">{ms(a.decode_ms)}</dd>
                    <dt>"First rows after"</dt><dd id="first-rows-ms">{cx.first_rows_ms.get().map(ms).unwrap_or_else(|| "–".into())}</dd>
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
            }
        })
    }
}

fn gen_color(g: u8) -> &'static str {
    match g {
        0 => "var(--gen0)",
        1 => "var(--gen1)",
        _ => "var(--gen2)",
    }
}

/// Time axis of the charts: the whole trace.
fn trace_axis(cx: Ctx) -> Axis {
    let end = cx
        .model
        .with(|m| m.as_ref().map(|m| m.process.trace_duration_ms))
        .unwrap_or_else(|| {
            cx.gcs.with(|g| {
                g.last()
                    .map(|g| g.end_ms.unwrap_or(g.start_ms))
                    .unwrap_or(1.0)
            })
        });
    Axis::new(0.0, end.max(1.0))
}

/// Selection overlay and mouse handling shared by the charts: drag selects a time range.
fn frac_of(ev: &MouseEvent) -> f64 {
    let Some(el) = ev
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return 0.0;
    };
    let r = el.get_bounding_client_rect();
    if r.width() <= 0.0 {
        return 0.0;
    }
    (ev.client_x() as f64 - r.left()) / r.width()
}

#[component]
fn PauseChart(cx: Ctx) -> impl IntoView {
    let hover = RwSignal::new(None::<(f64, String, u32)>);
    let drag = RwSignal::new(None::<(f64, f64)>);
    let data = Memo::new(move |_| {
        let axis = trace_axis(cx);
        cx.gcs.with(|g| {
            let max = charts::nice_max(g.iter().filter_map(|g| g.pause_ms).fold(0.0, f64::max));
            let per_gen: Vec<(u8, charts::Columns)> = (0..3u8)
                .map(|gen| {
                    let pts = g
                        .iter()
                        .enumerate()
                        .filter(|(_, g)| g.gen == gen)
                        .filter_map(|(i, g)| g.pause_ms.map(|p| (g.start_ms, p, i)));
                    (gen, charts::max_per_column(&axis, pts))
                })
                .collect();
            (axis, max, per_gen)
        })
    });
    let paths = move || {
        let (_, max, per_gen) = data.get();
        per_gen
            .iter()
            .map(|(gen, cols)| view! { <path d=charts::bars_path(cols, max) stroke=gen_color(*gen) class="bars" /> })
            .collect_view()
    };
    let nearest = move |frac: f64| -> Option<usize> {
        let (axis, _, per_gen) = data.get_untracked();
        let col = axis.col(axis.at(frac)) as i64;
        // The tallest bar within 3 columns of the pointer.
        let mut best: Option<(f64, usize)> = None;
        for (_, cols) in &per_gen {
            for c in (col - 3).max(0)..=(col + 3).min(charts::WIDTH as i64 - 1) {
                if let Some((v, i)) = cols[c as usize] {
                    if best.is_none_or(|(b, _)| v > b) {
                        best = Some((v, i));
                    }
                }
            }
        }
        best.map(|(_, i)| i)
    };
    let on_move = move |ev: MouseEvent| {
        let frac = frac_of(&ev);
        if let Some((a, _)) = drag.get_untracked() {
            drag.set(Some((a, frac)));
        }
        let tip = nearest(frac).and_then(|i| {
            cx.gcs.with_untracked(|g| {
                g.get(i).map(|g| {
                    (
                        frac,
                        format!(
                            "GC #{} · gen{} {} · {} · pause {} · at {}",
                            g.number,
                            g.gen,
                            g.gc_type.name(),
                            g.reason,
                            ms(g.pause_ms.unwrap_or(0.0)),
                            ms(g.start_ms)
                        ),
                        g.number,
                    )
                })
            })
        });
        hover.set(tip);
    };
    let on_up = move |ev: MouseEvent| {
        let frac = frac_of(&ev);
        let Some((a, _)) = drag.get_untracked() else {
            return;
        };
        drag.set(None);
        let (axis, _, _) = data.get_untracked();
        if (frac - a).abs() * charts::WIDTH as f64 > 4.0 {
            let (lo, hi) = (axis.at(a.min(frac)), axis.at(a.max(frac)));
            cx.set_vs(|v| {
                v.filter.t0 = Some((lo * 1000.0).round() / 1000.0);
                v.filter.t1 = Some((hi * 1000.0).round() / 1000.0);
            });
        } else if let Some(n) = hover.get_untracked().map(|h| h.2) {
            cx.select(n);
        }
    };
    view! {
        <div class="chart-wrap" id="pause-chart">
            <ChartFrame cx=cx max=Signal::derive(move || data.get().1) unit="ms" />
            <svg
                class="chart"
                viewBox=format!("0 0 {} {}", charts::WIDTH, charts::HEIGHT)
                preserveAspectRatio="none"
                on:mousemove=on_move
                on:mouseleave=move |_| { hover.set(None); drag.set(None); }
                on:mousedown=move |ev: MouseEvent| { ev.prevent_default(); drag.set(Some((frac_of(&ev), frac_of(&ev)))); }
                on:mouseup=on_up
            >
                <RangeOverlay cx=cx axis=Signal::derive(move || data.get().0) />
                {paths}
                {move || drag.get().map(|(a, b)| view! {
                    <rect class="drag" x=(a.min(b) * charts::WIDTH as f64).to_string() y="0" width=((a - b).abs() * charts::WIDTH as f64).to_string() height=charts::HEIGHT.to_string() />
                })}
                {move || hover.get().map(|(f, _, _)| view! {
                    <line class="cursor" x1=(f * charts::WIDTH as f64).to_string() x2=(f * charts::WIDTH as f64).to_string() y1="0" y2=charts::HEIGHT.to_string() />
                })}
            </svg>
            <div class="chart-tip" id="chart-tip">{move || hover.get().map(|h| h.1).unwrap_or_else(|| "\u{a0}".into())}</div>
            <XAxis cx=cx />
            <div class="legend"><span class="sw gen0"></span>"gen0 "<span class="sw gen1"></span>"gen1 "<span class="sw gen2"></span>"gen2"</div>
        </div>
    }
}

/// The shaded selected time range on a chart.
#[component]
fn RangeOverlay(cx: Ctx, axis: Signal<Axis>) -> impl IntoView {
    move || {
        let (t0, t1) = cx.vs.with(|v| (v.filter.t0, v.filter.t1));
        if t0.is_none() && t1.is_none() {
            return None;
        }
        let a = axis.get();
        let x0 = a.x(t0.unwrap_or(a.t0)).max(0.0);
        let x1 = a.x(t1.unwrap_or(a.t1)).min(charts::WIDTH as f64);
        Some(
            view! { <rect class="range" x=x0.to_string() y="0" width=(x1 - x0).max(1.0).to_string() height=charts::HEIGHT.to_string() /> },
        )
    }
}

/// Y-axis label of a chart.
#[component]
fn ChartFrame(cx: Ctx, max: Signal<f64>, unit: &'static str) -> impl IntoView {
    let _ = cx;
    view! {
        <div class="chart-axis">
            <span>{move || fmt_cell(unit, &Cell::Num(Some(max.get())))}</span>
            <span>"0"</span>
        </div>
    }
}

/// Time labels under a chart: start, quarters, end of the trace.
#[component]
fn XAxis(cx: Ctx) -> impl IntoView {
    let a = trace_axis(cx);
    let ticks: Vec<f64> = (0..=4).map(|i| a.at(i as f64 / 4.0)).collect();
    view! {
        <div class="x-axis">
            {crate::format::axis_ms(&ticks).into_iter().map(|l| view! { <span>{l}</span> }).collect_view()}
        </div>
    }
}

pub(crate) type Series = (String, String, Vec<(f64, f64)>);

#[component]
pub(crate) fn LineChart(
    cx: Ctx,
    series: Vec<Series>,
    unit: &'static str,
    id: &'static str,
) -> impl IntoView {
    let axis = trace_axis(cx);
    let max = charts::nice_max(
        series
            .iter()
            .flat_map(|s| s.2.iter().map(|p| p.1))
            .fold(0.0, f64::max),
    );
    let drag = RwSignal::new(None::<(f64, f64)>);
    let on_up = move |ev: MouseEvent| {
        let frac = frac_of(&ev);
        let Some((a, _)) = drag.get_untracked() else {
            return;
        };
        drag.set(None);
        if (frac - a).abs() * charts::WIDTH as f64 > 4.0 {
            cx.set_vs(|v| {
                v.filter.t0 = Some((axis.at(a.min(frac)) * 1000.0).round() / 1000.0);
                v.filter.t1 = Some((axis.at(a.max(frac)) * 1000.0).round() / 1000.0);
            });
        }
    };
    let legend: Vec<(String, String)> = series.iter().map(|s| (s.0.clone(), s.1.clone())).collect();
    view! {
        <div class="chart-wrap" id=id>
            <ChartFrame cx=cx max=Signal::derive(move || max) unit=unit />
            <svg class="chart" viewBox=format!("0 0 {} {}", charts::WIDTH, charts::HEIGHT) preserveAspectRatio="none"
                on:mousedown=move |ev: MouseEvent| { ev.prevent_default(); drag.set(Some((frac_of(&ev), frac_of(&ev)))); }
                on:mousemove=move |ev: MouseEvent| if let Some((a, _)) = drag.get_untracked() { drag.set(Some((a, frac_of(&ev)))) }
                on:mouseleave=move |_| drag.set(None)
                on:mouseup=on_up
            >
                <RangeOverlay cx=cx axis=Signal::derive(move || axis) />
                {series.into_iter().map(|(_, color, pts)| view! {
                    <path d=charts::line_path(&axis, &pts, max) stroke=color class="line" />
                }).collect_view()}
                {move || drag.get().map(|(a, b)| view! {
                    <rect class="drag" x=(a.min(b) * charts::WIDTH as f64).to_string() y="0" width=((a - b).abs() * charts::WIDTH as f64).to_string() height=charts::HEIGHT.to_string() />
                })}
            </svg>
            <XAxis cx=cx />
            <div class="legend">{legend.into_iter().map(|(name, color)| view! {
                <span class="sw" style=format!("background:{color}")></span>{name}" "
            }).collect_view()}</div>
        </div>
    }
}

#[component]
fn Charts(cx: Ctx) -> impl IntoView {
    move || {
        let (heap, alloc, pinned) = cx.gcs.with(|g| {
            let size = |f: fn(&Gc) -> Option<u64>| -> Vec<(f64, f64)> {
                let mut v: Vec<(f64, f64)> = g
                    .iter()
                    .filter_map(|x| f(x).map(|v| (x.end_ms.unwrap_or(x.start_ms), v as f64)))
                    .collect();
                // Background GCs end after later GCs: the line must run forward in time.
                v.sort_by(|a, b| a.0.total_cmp(&b.0));
                v
            };
            let heap: Vec<Series> = vec![
                (
                    "gen0".into(),
                    "var(--gen0)".into(),
                    size(|x| x.generations.gen0.size_after_bytes),
                ),
                (
                    "gen1".into(),
                    "var(--gen1)".into(),
                    size(|x| x.generations.gen1.size_after_bytes),
                ),
                (
                    "gen2".into(),
                    "var(--gen2)".into(),
                    size(|x| x.generations.gen2.size_after_bytes),
                ),
                (
                    "LOH".into(),
                    "var(--loh)".into(),
                    size(|x| x.generations.loh.size_after_bytes),
                ),
                (
                    "POH".into(),
                    "var(--poh)".into(),
                    size(|x| x.generations.poh.size_after_bytes),
                ),
            ];
            let alloc: Vec<(f64, f64)> = g
                .iter()
                .filter_map(|x| x.alloc_rate_bytes_per_s.map(|v| (x.start_ms, v)))
                .collect();
            let pinned: Vec<(f64, f64)> = g
                .iter()
                .filter_map(|x| x.pinned_object_count.map(|v| (x.start_ms, v as f64)))
                .collect();
            (heap, alloc, pinned)
        });
        view! {
            <section class="charts">
                <p class="muted">"Drag on any chart to select a time range; it filters every view. Whole trace on the x axis."</p>
                <h2>"Pause per GC"</h2>
                <PauseChart cx=cx />
                <h2>"Heap size after each GC, by generation"</h2>
                <LineChart cx=cx series=heap unit="bytes" id="heap-chart" />
                <h2>"Allocation rate before each GC"</h2>
                <LineChart cx=cx series=vec![("alloc rate".into(), "var(--accent)".into(), alloc)] unit="bytes/s" id="alloc-chart" />
                <h2>"Pinned objects per GC (GCHeapStats)"</h2>
                <LineChart cx=cx series=vec![("pinned objects".into(), "var(--gen2)".into(), pinned)] unit="count" id="pinned-chart" />
            </section>
        }
    }
}

/// A .zip holding several traces: say which one is shown and open any other with one click.
#[component]
fn ZipEntries(cx: Ctx) -> impl IntoView {
    move || {
        let a = cx.analysis.get()?;
        if a.trace_entries.len() < 2 {
            return None;
        }
        let shown = a.trace_entries.get(a.entry).cloned().unwrap_or_default();
        let others = a
            .trace_entries
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != a.entry)
            .map(|(i, name)| {
                let name = name.clone();
                view! {
                    <button class="zip-entry" data-entry=i on:click=move |_| open_other_entry(cx, i)>
                        {name}
                    </button>
                }
            })
            .collect_view();
        Some(view! {
            <div id="zip-entries" class="notice" role="status">
                {format!("This .zip holds {} traces; showing ", a.trace_entries.len())}
                <strong>{shown}</strong>
                ". Open another: "
                {others}
            </div>
        })
    }
}
