//! gcscope's browser app: a Leptos page that only renders, and a Web Worker that decodes.
//!
//! The modules, bottom up: a module uses only the modules named before it in this list
//! (`tests/layers.rs` checks it), so data flows one way, worker -> protocol -> state -> views.
//!
//! - `format`, `plot`, `time_range`: numbers as shown, chart geometry, the time range.
//! - `protocol`: the worker's messages and their wire format.
//! - `tables`: every table's rows as plain cells (views, exports and the HTML report share them),
//!   from the model or from the workers' answers, the GC table's columns, and the one door to
//!   core's definitions (`tables::defs`: no other module names `gcscope_core::gc::definitions`,
//!   `tests/layers.rs` checks it).
//! - `worker`: the decoding loop.
//! - `state`: what the page holds and what the user looks at (`AppState`, `view_state` with its
//!   address-bar mapping); `loader`: opening a file and writing the worker's messages into the
//!   state; `report`: the HTML report.
//! - `widgets`: the table, charts, facts and export buttons views are made of. A widget that asks
//!   a worker for something is given the loader's function by its view.
//! - `views`: one module per tab, and the tab list `views::TABS`; `shell`: the page around them.
//!
//! Where a change goes:
//! - **A new tab**: a module in `views/` with a props-less component that reads `use_app()`, and
//!   one line in `views::TABS` (key, title, component): the tab bar, keys 1-9 and `?tab=` follow.
//!   Its tables: `tables/NAME.rs` (rows as cells, native-tested, the report can print them), shown
//!   with `widgets::table_panel::TablePanel` (sort/filter kept by `TableState::in_url("name")` or
//!   `kept`); its charts: `widgets::chart::LineChart` (over time), `LogChart` (log x axis) or
//!   `BucketChart` (bars over buckets).
//! - **A new column of the GC table**: a getter in `tables/columns.rs`; its label, unit and
//!   definition come from core's definitions (add the figure in `core/src/gc/definitions/`).
//! - **A new event version**: in core (`core/src/clr/`), the one match arm that decodes it; the app
//!   sees the model's fields. A new field the model gains needs only a column (above).
//! - **A new message or field from the worker**: `protocol/` (encoded with postcard, `wire.rs`),
//!   the worker's side in `worker/`, the page's in `loader/` (into `state`).

pub mod format;
pub mod plot;
pub mod protocol;
pub mod report;
pub mod state;
pub mod tables;
#[cfg(test)]
mod testdata;
pub mod time_range;
pub mod worker;

#[cfg(target_arch = "wasm32")]
mod loader;
#[cfg(target_arch = "wasm32")]
mod shell;
#[cfg(target_arch = "wasm32")]
pub mod views;
#[cfg(target_arch = "wasm32")]
mod widgets;

#[cfg(target_arch = "wasm32")]
pub use loader::worker_client::remember_asked_workers;
#[cfg(target_arch = "wasm32")]
pub use shell::App;
