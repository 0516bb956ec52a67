//! Page-wide keys and paste: 1-9 switch tabs, Escape closes the detail panel, "/" focuses the GC
//! table's text filter; Ctrl+V outside a text field opens a copied file like a dropped one, and a
//! copied http(s) address like `?trace=`.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;

use crate::loader;
use crate::state::view_state::COMPARE_TAB;
use crate::state::AppState;
use crate::views::{self, TABS};

/// Whether the event comes from a field the user types in (keys there are the field's).
fn in_field(target: Option<web_sys::EventTarget>, tags: &[&str]) -> bool {
    target
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|e| tags.contains(&e.tag_name().as_str()))
}

pub fn listen(app: AppState) {
    let _ = window_event_listener(leptos::ev::paste, move |ev| on_paste(app, ev));
    let _ = window_event_listener(leptos::ev::keydown, move |ev: KeyboardEvent| {
        if in_field(ev.target(), &["INPUT", "SELECT", "TEXTAREA"])
            || ev.ctrl_key()
            || ev.meta_key()
            || ev.alt_key()
        {
            return;
        }
        let key = ev.key();
        if let Some(d) = key.chars().next().and_then(|c| c.to_digit(10)) {
            if key.len() == 1 && (1..=TABS.len().min(9) as u32).contains(&d) {
                app.set_vs(|v| v.tab = views::key_of(&TABS[d as usize - 1]));
            }
        } else if key == "Escape" {
            app.set_vs(|v| v.selected = None);
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
}

fn on_paste(app: AppState, ev: web_sys::ClipboardEvent) {
    let Some(data) = ev.clipboard_data() else {
        return;
    };
    if in_field(ev.target(), &["INPUT", "TEXTAREA"]) {
        return;
    }
    // On the comparison's tab, with a trace open, what is pasted is the trace to compare with.
    let as_other = app.model.with_untracked(|m| m.is_some())
        && app
            .vs
            .with_untracked(|v| v.tab.as_deref() == Some(COMPARE_TAB));
    if let Some(file) = data.files().and_then(|f| f.get(0)) {
        ev.prevent_default();
        if as_other {
            loader::other::open_file(app, file);
        } else {
            loader::open_blob(app, file.name(), file.into());
        }
        return;
    }
    let text = data.get_data("text").unwrap_or_default();
    let text = text.trim();
    if text.starts_with("https://") || text.starts_with("http://") {
        ev.prevent_default();
        if as_other {
            loader::other::open_url(app, text.to_string());
        } else {
            loader::open_trace_url(app, text.to_string());
        }
    }
}
