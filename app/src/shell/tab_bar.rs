//! The tab bar (from `views::TABS`) and the time range badge that clears the range.

use leptos::prelude::*;

use crate::format::ms;
use crate::state::use_app;
use crate::views::{self, TABS};

#[component]
pub fn TabBar(current: Memo<&'static str>) -> impl IntoView {
    let app = use_app();
    view! {
        <nav class="tabs" role="tablist">
            {move || TABS.iter().enumerate().filter(|(_, t)| views::shown(t, app.heap_snapshot_only(), app.trace_has_heap_walk())).map(|(i, t)| {
                let key = t.key;
                view! {
                    <button
                        role="tab"
                        id=format!("tab-{key}")
                        class="tab"
                        class:active=move || current.get() == key
                        aria-selected=move || (current.get() == key).to_string()
                        title=if i < 9 { format!("{} (key {})", t.title, i + 1) } else { t.title.to_string() }
                        on:click=move |_| app.set_vs(|v| v.tab = views::key_of(t))
                    >
                        {t.title}
                    </button>
                }
            }).collect_view()}
            <RangeBadge />
        </nav>
    }
}

/// Shows the time range that filters every view, with a way to clear it.
#[component]
fn RangeBadge() -> impl IntoView {
    let app = use_app();
    move || {
        let r = app.range();
        r.is_set().then(|| {
            view! {
                <span id="range" class="range-badge">
                    {format!(
                        "Time range {} – {}",
                        r.t0.map(ms).unwrap_or_else(|| "start".into()),
                        r.t1.map(ms).unwrap_or_else(|| "end".into())
                    )}
                    <button class="small" id="clear-range" on:click=move |_| app.clear_range()>"×"</button>
                </span>
            }
        })
    }
}
