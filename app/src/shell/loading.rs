//! The progress of the file being read: bytes, %, events/s, GCs so far, and Cancel.

use leptos::prelude::*;

use crate::format::{bytes, thousands};
use crate::loader;
use crate::protocol::Progress;
use crate::state::use_app;

/// How the file is being decoded: on how many workers, or why on one.
fn workers_note(p: &Progress) -> String {
    match (&p.one_worker, p.workers) {
        (Some(why), _) => format!(" · {why}"),
        (None, n) if n > 1 => format!(" · decoding on {n} workers"),
        _ => String::new(),
    }
}

#[component]
pub fn Loading(name: String, progress: Progress) -> impl IntoView {
    let app = use_app();
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
                <button id="cancel" on:click=move |_| loader::cancel(app)>
                    "Cancel"
                </button>
            </div>
            <p class="progress-text">
                {format!(
                    "{} of {} ({pct:.0}%) · {} events · {} events/s · {} GCs so far{}",
                    bytes(progress.bytes),
                    bytes(progress.total),
                    thousands(progress.events),
                    thousands(rate),
                    thousands(progress.gcs),
                    workers_note(&progress),
                )}
            </p>
        </section>
    }
}
