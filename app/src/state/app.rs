//! [`AppState`]: the signals every view reads, provided once as context by the shell.

use std::sync::Arc;

use gcscope_core::compare::{RowLog, TraceDigest};
use gcscope_core::gc::{Gc, GcModel};
use gcscope_core::latency::{Options, PauseLog, TimeRange as Range};
use leptos::prelude::*;

use crate::plot::Axis;
use crate::protocol::processes::Processes;
use crate::protocol::stacks::{Callers, Export, StackTree, TriggerStack};
use crate::protocol::{Analysis, Progress};
use crate::tables::Starts;
use crate::time_range::TimeRange;

use super::filter::Filter;
use super::heap_store::HeapStore;
use super::view_state::ViewState;

/// Everything the views read. Signals are `Copy`, so this is too: `use_app()` anywhere below the
/// shell.
#[derive(Clone, Copy)]
pub struct AppState {
    /// GC rows: streamed while decoding, then the model's final rows.
    pub gcs: RwSignal<Vec<Gc>>,
    /// The rows' per-heap histories, packed, by row index (the rows' own `heaps` are empty). Not
    /// reactive: it changes with `gcs`, whose signal tells the views.
    pub heaps: StoredValue<HeapStore>,
    /// The model without its rows (they are in `gcs`), once decoding is done.
    pub model: RwSignal<Option<Arc<GcModel>>>,
    pub analysis: RwSignal<Option<Arc<Analysis>>>,
    /// The analysis with the insights finished from the worker's records and the rows. A lazy
    /// memo: built the first time a view (or the report) reads it, not while the GC table loads.
    pub insight_analysis: Memo<Option<Arc<Analysis>>>,
    /// A machine-wide (ETW) trace's processes (the picker's list): set when the trace is read,
    /// kept while the page switches from one process to another.
    pub processes: RwSignal<Option<Arc<Processes>>>,
    /// The file being read and how far the worker is.
    pub loading: RwSignal<Option<(String, Progress)>>,
    pub error: RwSignal<Option<String>>,
    /// The `?trace=URL` that could not be fetched because the network is gone or unreachable: the
    /// page offers to open a local copy instead.
    pub unreachable: RwSignal<Option<Unreachable>>,
    /// What the user is looking at (mirrored in the address bar).
    pub vs: RwSignal<ViewState>,
    /// When the current file was opened (ms, `Date.now`), and when its first rows arrived.
    pub opened_at: RwSignal<f64>,
    pub first_rows_ms: RwSignal<Option<f64>>,
    /// The rows' pauses, for the latency figures (a lazy memo: built when a view reads it), and
    /// how long building it took (ms).
    pub pauses: Memo<Arc<(PauseLog, f64)>>,
    /// The trace the open one is compared with ("B"), its worker's progress and its error.
    pub other: RwSignal<Option<Arc<OtherTrace>>>,
    pub other_loading: RwSignal<Option<(String, Progress)>>,
    pub other_error: RwSignal<Option<String>>,
    /// The Stacks tab's call tree of its current selection, from the stacks worker
    /// (`loader::stacks`), and its last export to download.
    pub stacks: RwSignal<Option<Arc<StackTree>>>,
    pub stacks_export: RwSignal<Option<Arc<Export>>>,
    /// The stack of the GCTriggered that started the GC the detail panel shows.
    pub trigger_stack: RwSignal<Option<Arc<TriggerStack>>>,
    /// Every GC's trigger caller, for the GC table's Caller column (`tables::callers`).
    pub callers: RwSignal<Option<Arc<Callers>>>,
    /// A `.gcdump` heap snapshot's answers from the heap worker (`loader::heap`).
    pub heap: super::heap::HeapState,
}

/// A trace address that no request reached (the fetch failed before any answer came).
#[derive(Clone, Debug, PartialEq)]
pub struct Unreachable {
    pub url: String,
    /// The browser says it has no network (`navigator.onLine` is false).
    pub offline: bool,
    /// The browser's own words for the failure.
    pub detail: String,
}

/// The second trace of a comparison: its model without rows, and what a comparison keeps of its
/// rows (pauses and heap points, ~100 bytes a GC: the rows themselves are dropped as they come).
pub struct OtherTrace {
    pub name: String,
    pub model: Arc<GcModel>,
    pub rows: RowLog,
    /// Its rows without per-heap histories, for its findings.
    pub gcs: Arc<Vec<Gc>>,
}

impl OtherTrace {
    /// Its digest for a comparison (the whole trace's latency with `opts`).
    pub fn digest(&self, opts: &Options) -> TraceDigest {
        self.rows
            .clone()
            .digest(self.name.clone(), &self.model, opts)
    }
}

/// The page's clock (`performance.now()`, ms), for timing what the page computes.
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// The app state provided by the shell.
pub fn use_app() -> AppState {
    expect_context::<AppState>()
}

impl AppState {
    /// Creates the state, starting from `vs`, and provides it to everything below.
    pub fn provide(vs: ViewState) -> AppState {
        let gcs = RwSignal::new(Vec::<Gc>::new());
        let heaps = StoredValue::new(HeapStore::default());
        let analysis = RwSignal::new(None::<Arc<Analysis>>);
        let insight_analysis = Memo::new_with_compare(
            move |_| {
                let a = analysis.get()?;
                let shipped = a.insight_inputs.as_ref()?;
                let insights =
                    gcs.with(|g| heaps.with_value(|h| super::insights::finish(shipped, g, h)));
                let mut with = (*a).clone();
                with.insight_inputs = None;
                with.insights = Some(insights);
                Some(Arc::new(with))
            },
            // Changed unless both are the same Arc (or both none): never compares whole insights.
            |old, new| match (old.and_then(Option::as_ref), new.and_then(Option::as_ref)) {
                (Some(a), Some(b)) => !Arc::ptr_eq(a, b),
                (None, None) => old.is_none() != new.is_none(),
                _ => true,
            },
        );
        let pauses = Memo::new_with_compare(
            move |_| {
                let t0 = now_ms();
                let log = gcs.with(|g| PauseLog::from_gcs(g.iter()));
                Arc::new((log, now_ms() - t0))
            },
            // Changed unless the same Arc: never compares whole logs.
            |old, new| match (old, new) {
                (Some(a), Some(b)) => !Arc::ptr_eq(a, b),
                _ => true,
            },
        );
        let app = AppState {
            gcs,
            heaps,
            model: RwSignal::new(None),
            analysis,
            insight_analysis,
            processes: RwSignal::new(None),
            loading: RwSignal::new(None),
            error: RwSignal::new(None),
            unreachable: RwSignal::new(None),
            vs: RwSignal::new(vs),
            opened_at: RwSignal::new(0.0),
            first_rows_ms: RwSignal::new(None),
            pauses,
            other: RwSignal::new(None),
            other_loading: RwSignal::new(None),
            other_error: RwSignal::new(None),
            stacks: RwSignal::new(None),
            stacks_export: RwSignal::new(None),
            trigger_stack: RwSignal::new(None),
            callers: RwSignal::new(None),
            heap: super::heap::HeapState::new(),
        };
        provide_context(app);
        app
    }

    pub fn set_vs(&self, f: impl FnOnce(&mut ViewState)) {
        self.vs.update(f);
    }

    /// Selects a GC (the detail panel opens on it).
    pub fn select(&self, n: u32) {
        self.vs.update(|v| v.selected = Some(n));
    }

    /// The GC table's filters (tracked).
    pub fn filter(&self) -> Filter {
        self.vs.with(|v| v.filter.clone())
    }

    /// The time range every view follows (tracked).
    pub fn range(&self) -> TimeRange {
        self.vs.with(|v| v.filter.range())
    }

    /// Selects a time range (rounded to the microsecond, so the address stays short).
    pub fn set_range(&self, from_ms: f64, to_ms: f64) {
        let round = |ms: f64| (ms * 1000.0).round() / 1000.0;
        self.set_vs(|v| {
            v.filter.t0 = Some(round(from_ms));
            v.filter.t1 = Some(round(to_ms));
        });
    }

    pub fn clear_range(&self) {
        self.set_vs(|v| {
            v.filter.t0 = None;
            v.filter.t1 = None;
        });
    }

    /// Whether a row's GC started in the time range (the range read now, tracked).
    pub fn in_range(&self) -> impl Fn(&Gc) -> bool {
        let r = self.range();
        move |g: &Gc| r.contains(g.start_ms)
    }

    /// The charts' time axis: the whole trace (tracked).
    pub fn trace_axis(&self) -> Axis {
        let end = self
            .model
            .with(|m| m.as_ref().map(|m| m.process.trace_duration_ms))
            .unwrap_or_else(|| {
                self.gcs.with(|g| {
                    g.last()
                        .map(|g| g.end_ms.unwrap_or(g.start_ms))
                        .unwrap_or(1.0)
                })
            });
        Axis::new(0.0, end.max(1.0))
    }

    /// GC number -> pause start, for the time range of rows that only name their GC (tracked).
    pub fn starts(&self) -> Starts {
        self.gcs
            .with(|g| g.iter().map(|g| (g.number, g.start_ms)).collect())
    }

    /// The latency figures' time range: the selected one, its open ends at the trace's ends
    /// (tracked).
    pub fn latency_range(&self) -> Range {
        let r = self.range();
        // The trace's length, as `gcscope latency` takes it (the chart axis until it is known).
        let end = self
            .model
            .with(|m| m.as_ref().map(|m| m.process.trace_duration_ms))
            .unwrap_or_else(|| self.trace_axis().t1);
        Range::new(r.t0.unwrap_or(0.0).max(0.0), r.t1.unwrap_or(end))
    }

    /// The open trace's digest for a comparison (whole trace, `opts`), once it is read (tracked).
    pub fn digest(&self, opts: &Options) -> Option<TraceDigest> {
        let m = self.model.get()?;
        let name = self
            .analysis
            .with(|a| a.as_ref().map(|a| a.file_name.clone()))
            .unwrap_or_default();
        let mut rows = RowLog::default();
        self.gcs.with(|g| g.iter().for_each(|g| rows.add(g)));
        Some(rows.digest(name, &m, opts))
    }

    /// Whether a `.gcdump` heap snapshot is open, alone: the Heap tab is all there is (tracked).
    /// A trace's heap walk opens in the Heap tab beside the trace's tabs.
    pub fn heap_snapshot_only(&self) -> bool {
        self.heap.open.with(|o| o.is_some()) && self.model.with(|m| m.is_none())
    }

    /// Whether the open trace holds a heap walk, which the Heap tab reads (tracked).
    pub fn trace_has_heap_walk(&self) -> bool {
        self.model
            .with(|m| m.as_ref().is_some_and(|m| m.process.heap_walk_gc.is_some()))
    }

    /// Whether anything of a trace is there to show (rows, or the finished analysis).
    pub fn has_data(&self) -> bool {
        !self.gcs.with(|g| g.is_empty())
            || self.analysis.with(|a| a.is_some())
            || self.heap.open.with(|o| o.is_some())
    }

    /// The file's name without its extensions, for the names of downloads (untracked).
    pub fn file_stem(&self) -> String {
        let n = self
            .analysis
            .get_untracked()
            .map(|a| a.file_name.clone())
            .or_else(|| self.heap.open.get_untracked())
            .unwrap_or_else(|| "trace".into());
        n.split('.').next().unwrap_or("trace").to_string()
    }
}
