//! Entry point of the UI bundle: mounts the Leptos app on `<body>`.

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    // Before the app rewrites the address with the parameters it knows.
    gcscope_app::remember_asked_workers();
    leptos::mount::mount_to_body(gcscope_app::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("gcscope-app is a browser app: build it with `trunk build` (see README)");
}
