//! Events: counts by provider and event name (TraceEvent's names; a machine-wide trace's: every
//! process's), the decode time and how soon the first rows came.

use leptos::prelude::*;

use crate::format::{ms, thousands};
use crate::state::use_app;
use crate::tables::model;
use crate::widgets::table::{DataTable, Rows};

#[component]
pub fn Events() -> impl IntoView {
    let app = use_app();
    move || {
        app.analysis.get().map(|a| {
            let table = model::events_table(&a.event_counts);
            // A machine-wide trace's counts are every process's, as `gcscope events` and
            // TraceEvent count them: the model's own are on the overview.
            let scope = a.processes.as_ref().map(|_| {
                view! { <p id="events-scope" class="muted">"Every process of this ETW trace: the counts are the whole file's (as TraceEvent's), not only the process shown."</p> }
            });
            view! {
                {scope}
                <dl class="facts">
                    <dt>"Events"</dt><dd id="event-count">{thousands(a.events)}</dd>
                    <dt>"GC/Start events"</dt><dd id="gc-count">{thousands(a.gc_starts)}</dd>
                    <dt>"Decoded in"</dt><dd id="decode-ms">{ms(a.decode_ms)}</dd>
                    <dt>"First rows after"</dt><dd id="first-rows-ms">{app.first_rows_ms.get().map(ms).unwrap_or_else(|| "–".into())}</dd>
                </dl>
                <DataTable id="event-table" rows=Signal::stored(Rows::all(table)) caption="Events by provider and name" />
            }
        })
    }
}
