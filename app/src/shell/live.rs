//! The live bar of a session served by `gcscope serve` (`loader::live`): the process, the GCs seen
//! and those in progress, the bytes read, Stop (ends the session) and the trace's download.

use leptos::prelude::*;

use crate::format::bytes;
use crate::loader::live::{self, Live};
use crate::state::use_app;
use crate::tables::model::runtime_label;

#[component]
pub fn LiveBar() -> impl IntoView {
    let Some(l) = use_context::<Live>() else {
        return ().into_any();
    };
    let app = use_app();
    let download = live::resolve("trace.nettrace").unwrap_or_default();
    let state = move || {
        if l.ended.get() {
            "Session ended: the trace is complete".to_string()
        } else if l.stopping.get() {
            "Stopping…".to_string()
        } else {
            "Live".to_string()
        }
    };
    let counts = move || {
        let n = app.gcs.with(|g| g.len());
        let open = l.open.get();
        let mut s = format!("{n} GC{} ended", if n == 1 { "" } else { "s" });
        if open > 0 {
            s.push_str(&format!(", {open} in progress"));
        }
        format!("{s} · {} read", bytes(l.bytes.get()))
    };
    // The process as its runtime described it before the session, the command line on hover.
    let process = move || {
        l.process.get().map(|p| {
            let mut s = format!("pid {}", p.pid);
            if !p.name.is_empty() {
                s = format!("{} · {s}", p.name);
            }
            if p.runtime_version.is_some() {
                s.push_str(&format!(
                    " · {}",
                    runtime_label(p.runtime_version.as_deref())
                ));
            }
            view! { " · " <span id="live-process" title=p.command_line.clone()>{s}</span> }
        })
    };
    view! {
        <div id="live-bar" class="notice" role="status" data-ended=move || l.ended.get().to_string()>
            <strong id="live-state">{state}</strong>
            {process}
            " · "
            <span id="live-counts">{counts}</span>
            " "
            <button
                id="live-stop"
                disabled=move || l.ended.get() || l.stopping.get()
                on:click=move |_| live::stop(l)
            >
                "Stop"
            </button>
            " "
            <a id="live-download" class="button" href=download download="live.nettrace">
                "Download .nettrace"
            </a>
        </div>
    }
    .into_any()
}
