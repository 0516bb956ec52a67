//! The page around the views: the top bar (file name, report, link, open), the drop zone, the
//! error and .zip notices, the start page, the progress bar, the tab bar and the selected tab's
//! view, and the detail panel. `App` creates the app state and provides it to everything below.

use leptos::prelude::*;
use web_sys::{DragEvent, HtmlInputElement};

use crate::loader;
use crate::state::address_bar;
use crate::state::{use_app, AppState};
use crate::views;
use crate::widgets::export::download;

mod keys;
mod live;
mod loading;
mod notices;
mod offline;
mod processes;
mod start;
mod tab_bar;

#[component]
pub fn App() -> impl IntoView {
    let app = AppState::provide(address_bar::read(views::normalize));
    // `?trace=URL` opens that trace, and `&compare=URL` the trace it is compared with.
    if let Some(url) = app.vs.get_untracked().trace {
        loader::open_url(app, url);
    }
    if let Some(url) = app.vs.get_untracked().compare {
        loader::other::fetch_and_open(app, url);
    }
    // `?live=ADDRESS`: a session `gcscope serve` streams.
    if let Some(address) = app.vs.get_untracked().live {
        loader::live::open(app, address);
    }
    let live_session = loader::live::active();
    address_bar::keep_in_step(app, views::normalize);
    // `?pid=` (the process picker, Back and Forward) switches the process shown.
    loader::follow_process(app);
    keys::listen(app);
    let samples = start::samples();
    let update_ready = RwSignal::new(false);
    offline::register(update_ready);
    offline::open_launched_files(app);

    let dragging = RwSignal::new(false);
    // What the page's main area shows, as memos: the closure below runs `Results` again whenever
    // what it reads changes. Reading the rows, the analysis or the progress directly, it would make
    // the results (every view's state and memos) again while the trace loads, disposing the ones
    // shown; behind these memos they are made once per trace
    // (docs/performance-log/journal.md, "The WebKit tab's memory"). The views follow the rows
    // themselves.
    let has_data = Memo::new(move |_| app.has_data());
    let idle = Memo::new(move |_| app.loading.with(|l| l.is_none()));
    let on_drop = move |ev: DragEvent| {
        dragging.set(false);
        // Handled below: the comparison's drop zone took it as the trace to compare with.
        if ev.default_prevented() {
            return;
        }
        ev.prevent_default();
        let file = ev
            .data_transfer()
            .and_then(|dt| dt.files())
            .and_then(|files| files.get(0));
        if let Some(f) = file {
            loader::open_file(app, f);
        }
    };
    let on_file = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        if let Some(f) = input.files().and_then(|files| files.get(0)) {
            loader::open_file(app, f);
        }
        // Reset so that choosing the same file again still fires `change`.
        input.set_value("");
    };
    let on_compare_file = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        if let Some(f) = input.files().and_then(|files| files.get(0)) {
            loader::other::open_file(app, f);
        }
        input.set_value("");
    };
    let copied = RwSignal::new(false);
    let copy_link = move |_| {
        if let Some(w) = web_sys::window() {
            let href = w.location().href().unwrap_or_default();
            let _ = w.navigator().clipboard().write_text(&href);
            copied.set(true);
            leptos::task::spawn_local(async move {
                gloo_timers::future::TimeoutFuture::new(2000).await;
                copied.set(false);
            });
        }
    };
    let report = move |_| {
        let (Some(m), Some(a)) = (
            app.model.get_untracked(),
            app.insight_analysis.get_untracked(),
        ) else {
            return;
        };
        let budget = app.vs.with_untracked(|v| v.budget());
        let settings = app
            .vs
            .with_untracked(|v| crate::tables::findings::settings(v.goal.as_deref(), v.budget_ms));
        // The findings' stacks where the stacks worker has read them (the Findings panel asks).
        let stacks = app.stacks.get_untracked().and_then(|t| t.findings.clone());
        let html = app
            .gcs
            .with_untracked(|g| crate::report::html(&m, g, &a, budget, &settings, stacks.as_ref()));
        download(
            &format!("{}-gcscope-report.html", app.file_stem()),
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
                    {move || app.analysis.get().map(|a| a.file_name.clone()).or_else(|| app.heap.open.get()).unwrap_or_else(|| ".NET GC trace viewer: runs in your browser, nothing is uploaded".into())}
                </span>
                <Show when=move || app.model.with(|m| m.is_some())>
                    <button id="report" title="Download the whole analysis as one HTML file (opens offline)" on:click=report>"HTML report"</button>
                </Show>
                <button id="copy-link" title="Copy a link to this exact view" on:click=copy_link>
                    {move || if copied.get() { "Link copied" } else { "Copy link" }}
                </button>
                <Show when=move || app.model.with(|m| m.is_some()) || app.heap.summary.with(|s| s.is_some())>
                    <label class="button" for="compare-input" title="Open a second trace and compare the two side by side">"Compare with…"</label>
                </Show>
                <input
                    id="compare-input"
                    type="file"
                    accept=".nettrace,.netperf,.gcdump,.zip,.gz"
                    aria-label="Open a trace to compare with the open one"
                    on:change=on_compare_file
                />
                <label class="button primary" for="file-input">"Open trace…"</label>
                <input
                    id="file-input"
                    type="file"
                    accept=".nettrace,.netperf,.etl,.gcdump,.zip,.gz"
                    aria-label="Open a trace file"
                    on:change=on_file
                />
            </header>
            <main>
                <offline::UpdateBanner ready=update_ready />
                <live::LiveBar />
                {move || app.error.get().map(|msg| view! { <div id="error" class="error" role="alert">{msg}</div> })}
                <notices::Unreachable />
                <notices::ZipEntries />
                <processes::ProcessPicker />
                {move || app.loading.get().map(|(name, p)| view! { <loading::Loading name=name progress=p /> })}
                {move || if has_data.get() {
                    view! { <Results /> }.into_any()
                } else if idle.get() && !live_session {
                    view! { <start::StartPage samples=samples /> }.into_any()
                } else {
                    ().into_any()
                }}
            </main>
        </div>
    }
}

/// The tab bar, the selected tab's view, and the detail panel of the selected GC.
#[component]
fn Results() -> impl IntoView {
    let app = use_app();
    // A heap snapshot shows the Heap tab alone.
    let tab = Memo::new(move |_| {
        if app.heap_snapshot_only() {
            views::HEAP_TAB
        } else {
            app.vs.with(|v| views::current(v.tab.as_deref()).key)
        }
    });
    view! {
        <tab_bar::TabBar current=tab />
        <div class="tab-body">
            {move || (views::current(Some(tab.get())).view)()}
        </div>
        <Show when=move || app.vs.with(|v| v.selected.is_some())>
            <views::detail::Detail />
        </Show>
    }
}
