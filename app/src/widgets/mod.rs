//! The pieces views are made of. Each takes what it shows as props (signals passed down); the few
//! app-wide things they need (the time range, the trace's time axis, the file's name) they read
//! from the app state.
//!
//! - [`table::DataTable`]: the one table component: every table of the app, sortable by header,
//!   drawing only the rows in view when long; what it shows and its sort are passed in.
//!   [`table_panel::TablePanel`] puts a title, a filter box, the row count and the exports above
//!   it for a [`crate::tables::Table`], its sort and filter kept where a [`table_state::TableState`]
//!   says (the address bar, or this page).
//! - [`chart`]: the chart frame, axes, line charts and the drag that selects a time range;
//!   [`pause_chart::PauseChart`]: pause per GC, bars by generation, hover and click.
//! - [`facts`]: lists of figures with their definitions, and the notes that say why a view is empty.
//! - [`export`]: CSV/JSON buttons and file downloads.
//! - [`findings_panel::FindingsPanel`]: the ranked findings with links to their evidence, the
//!   goal and the pause budget (the Overview's top); [`findings_diff::FindingsDiff`]: those that
//!   appear, disappear or change from A to B (the Compare tab).
//! - [`top_stacks::TopStacks`]: the top call stacks behind a finding (induced GCs' callers, LOH
//!   allocations, pinned handles' creators), linked into the Stacks tab;
//!   [`trigger_stack::TriggerStack`]: the stack that started one GC (the GC detail panel).

pub mod chart;
pub mod export;
pub mod facts;
pub mod findings_diff;
pub mod findings_panel;
pub mod pause_chart;
pub mod table;
pub mod table_panel;
pub mod table_state;
pub mod top_stacks;
pub mod trigger_stack;
