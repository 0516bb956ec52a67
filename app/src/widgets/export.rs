//! Downloads: a table as CSV or JSON (what it shows, after filter and sort, with raw values), or
//! any text as a file.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use web_sys::Blob;

use crate::state::use_app;
use crate::tables::Table;

/// Offers `text` as a file download.
pub fn download(name: &str, mime: &str, text: &str) {
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

/// CSV and JSON buttons for a table (read when clicked).
#[component]
pub fn ExportButtons(table: Signal<Table>) -> impl IntoView {
    let app = use_app();
    let export = move |json: bool| {
        let t = table.get_untracked();
        let name = format!(
            "{}-{}.{}",
            app.file_stem(),
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
