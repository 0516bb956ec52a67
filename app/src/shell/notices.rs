//! Notices above the views: a .zip that holds several traces (open any other with one click), and
//! a trace address that the network could not reach (open a local copy instead).

use leptos::prelude::*;

use crate::loader;
use crate::state::use_app;

/// A .zip holding several traces: say which one is shown and open any other with one click.
#[component]
pub fn ZipEntries() -> impl IntoView {
    let app = use_app();
    move || {
        let a = app.analysis.get()?;
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
                    <button class="zip-entry" data-entry=i on:click=move |_| loader::open_other_entry(app, i)>
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

/// A `?trace=URL` that no request reached: say whether the browser is offline, and offer the file
/// picker for a local copy of the trace.
#[component]
pub fn Unreachable() -> impl IntoView {
    let app = use_app();
    move || {
        let u = app.unreachable.get()?;
        let why = if u.offline {
            format!("You are offline: the trace at {} cannot be fetched.", u.url)
        } else {
            format!(
                "The trace at {} could not be fetched: the network or its server cannot be \
                 reached, or the server does not let other sites read it ({}).",
                u.url,
                u.detail.trim_end_matches('.')
            )
        };
        Some(view! {
            <div id="unreachable" class="error" role="alert">
                {why}
                " If you have a copy of it, "
                <label class="button" for="file-input" id="open-local-copy">"Open a local copy…"</label>
            </div>
        })
    }
}
