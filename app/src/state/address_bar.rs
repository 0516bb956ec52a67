//! The address bar and the view state, kept in step (the mapping itself is `view_state`): every
//! change of the view state writes the query (a new history entry for navigation, the same entry
//! for typing in a filter box), and Back/Forward read it back.

use leptos::prelude::*;

use super::view_state::ViewState;
use super::AppState;

/// The page's query string, with its `?`.
pub fn location_search() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// Writes the view state into the address bar.
fn write(prev: &ViewState, next: &ViewState) {
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

/// The view state the address bar holds now, made canonical by `normalize` (which knows the tabs).
pub fn read(normalize: fn(&mut ViewState)) -> ViewState {
    let mut v = ViewState::from_query(&location_search());
    normalize(&mut v);
    v
}

/// Keeps the address bar and `app.vs` in step from now on.
pub fn keep_in_step(app: AppState, normalize: fn(&mut ViewState)) {
    let prev = StoredValue::new(app.vs.get_untracked());
    Effect::new(move |_| {
        let next = app.vs.get();
        write(&prev.get_value(), &next);
        prev.set_value(next);
    });
    let _ = window_event_listener(leptos::ev::popstate, move |_| {
        let v = read(normalize);
        prev.set_value(v.clone());
        app.vs.set(v);
    });
}
