//! The installed, offline app: the service worker (`static/sw.js`) is registered here, and the
//! page says when a new version of the app is ready; the files the OS opens the installed app with
//! (the File Handling API's `launchQueue`) are opened as a dropped file is. Each part is
//! feature-detected: a browser without service workers or `launchQueue` runs the app as before.
//!
//! The bindings are declared here, not taken from web-sys: `launchQueue` is in no web-sys release,
//! and only three members of the service worker API are used.

use std::cell::{Cell, RefCell};

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::loader;
use crate::state::AppState;

#[wasm_bindgen]
extern "C" {
    /// `navigator.serviceWorker`.
    #[wasm_bindgen(extends = web_sys::EventTarget)]
    #[derive(Clone)]
    type Container;
    #[wasm_bindgen(method)]
    fn register(this: &Container, url: &str) -> js_sys::Promise;
    #[wasm_bindgen(method, getter)]
    fn controller(this: &Container) -> Option<Sw>;

    #[wasm_bindgen(extends = web_sys::EventTarget)]
    #[derive(Clone)]
    type Registration;
    #[wasm_bindgen(method, getter)]
    fn waiting(this: &Registration) -> Option<Sw>;
    #[wasm_bindgen(method, getter)]
    fn installing(this: &Registration) -> Option<Sw>;

    #[wasm_bindgen(extends = web_sys::EventTarget)]
    #[derive(Clone)]
    type Sw;
    #[wasm_bindgen(method, getter)]
    fn state(this: &Sw) -> String;
    #[wasm_bindgen(method, js_name = postMessage)]
    fn post_message(this: &Sw, message: &str);

    /// `window.launchQueue` and what its consumer is given.
    type LaunchQueue;
    #[wasm_bindgen(method, js_name = setConsumer)]
    fn set_consumer(this: &LaunchQueue, consumer: &js_sys::Function);
    type LaunchParams;
    #[wasm_bindgen(method, getter)]
    fn files(this: &LaunchParams) -> Option<js_sys::Array>;
    type FileHandle;
    #[wasm_bindgen(method, js_name = getFile)]
    fn get_file(this: &FileHandle) -> js_sys::Promise;
}

thread_local! {
    /// The new version's worker, installed and waiting for this page to let it take over.
    static WAITING: RefCell<Option<Sw>> = const { RefCell::new(None) };
    /// Set when the user chose to reload: the page reloads once the new worker controls it.
    static RELOADING: Cell<bool> = const { Cell::new(false) };
}

fn property(of: &JsValue, name: &str) -> Option<JsValue> {
    js_sys::Reflect::get(of, &JsValue::from_str(name))
        .ok()
        .filter(|v| !v.is_undefined() && !v.is_null())
}

fn listen(target: &web_sys::EventTarget, event: &str, f: impl FnMut() + 'static) {
    let f = Closure::<dyn FnMut()>::new(f);
    let _ = target.add_event_listener_with_callback(event, f.as_ref().unchecked_ref());
    // Listeners live as long as the page.
    f.forget();
}

/// Registers the service worker (the page's own `sw.js`, relative to its base, so its scope is the
/// app's directory on any sub-path). `ready` turns true when a new version is installed and waits
/// for this page, or has taken over from another tab of the app: the page offers to reload.
pub fn register(ready: RwSignal<bool>) {
    let Some(window) = web_sys::window() else {
        return;
    };
    // Undefined where the browser has none, or in an insecure context (http:// but localhost).
    let Some(container) = property(&window.navigator(), "serviceWorker") else {
        return;
    };
    let container: Container = container.unchecked_into();
    // Whether an older version served this page: the first install is no new version.
    let had_controller = container.controller().is_some();
    listen(&container, "controllerchange", move || {
        if RELOADING.get() {
            if let Some(w) = web_sys::window() {
                let _ = w.location().reload();
            }
        } else if had_controller {
            // Another tab let the new version take over: this page's own files are gone from the
            // cache, so it offers to reload as well.
            ready.set(true);
        }
    });
    let promise = container.register("sw.js");
    leptos::task::spawn_local(async move {
        // A page served where the worker cannot be registered (file://, a host that serves no
        // sw.js) runs as before, online only.
        let Ok(reg) = JsFuture::from(promise).await else {
            return;
        };
        let reg: Registration = reg.unchecked_into();
        if let Some(w) = reg.waiting() {
            if container.controller().is_some() {
                offer(w, ready);
            }
        }
        // An update may be installing already (the browser checks for one as the page loads).
        if let Some(w) = reg.installing() {
            watch(w, container.clone(), ready);
        }
        let r = reg.clone();
        listen(&reg, "updatefound", move || {
            if let Some(w) = r.installing() {
                watch(w, container.clone(), ready);
            }
        });
    });
}

/// Offers `worker` once it is installed, if it is a new version (an older one controls the page).
fn watch(worker: Sw, container: Container, ready: RwSignal<bool>) {
    let w = worker.clone();
    listen(&worker, "statechange", move || {
        if w.state() == "installed" && container.controller().is_some() {
            offer(w.clone(), ready);
        }
    });
}

fn offer(worker: Sw, ready: RwSignal<bool>) {
    WAITING.with(|w| *w.borrow_mut() = Some(worker));
    ready.set(true);
}

/// Lets the waiting version take over and reloads the page into it.
fn reload_into_new_version() {
    match WAITING.with(|w| w.borrow_mut().take()) {
        Some(worker) => {
            RELOADING.set(true);
            worker.post_message("skip-waiting");
        }
        None => {
            if let Some(w) = web_sys::window() {
                let _ = w.location().reload();
            }
        }
    }
}

/// The banner that says a new version is ready, with the button that reloads into it.
#[component]
pub fn UpdateBanner(ready: RwSignal<bool>) -> impl IntoView {
    view! {
        <Show when=move || ready.get()>
            <div id="update-ready" class="notice update" role="status">
                "A new version of gcscope is ready."
                <button
                    id="update-reload"
                    title="Reload the page into the new version (a trace opened from a file is to be opened again)"
                    on:click=move |_| reload_into_new_version()
                >
                    "Reload"
                </button>
            </div>
        </Show>
    }
}

/// Opens the file the OS launched the installed app with (File Handling API), the way a dropped
/// file is opened. With several files, the first is opened.
pub fn open_launched_files(app: AppState) {
    let Some(queue) = web_sys::window().and_then(|w| property(&w, "launchQueue")) else {
        return;
    };
    let queue: LaunchQueue = queue.unchecked_into();
    let consumer = Closure::<dyn FnMut(JsValue)>::new(move |params: JsValue| {
        let params: LaunchParams = params.unchecked_into();
        let Some(handle) = params.files().and_then(|f| f.iter().next()) else {
            return;
        };
        let promise = handle.unchecked_into::<FileHandle>().get_file();
        leptos::task::spawn_local(async move {
            match JsFuture::from(promise)
                .await
                .map(|f| f.dyn_into::<web_sys::File>())
            {
                Ok(Ok(file)) => loader::open_file(app, file),
                _ => app.error.set(Some(
                    "The file the system opened gcscope with could not be read.".into(),
                )),
            }
        });
    });
    queue.set_consumer(consumer.as_ref().unchecked_ref());
    consumer.forget();
}
