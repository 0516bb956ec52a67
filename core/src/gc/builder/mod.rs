//! The streaming state machine: typed GC events in timestamp order → [`Gc`] rows.
//!
//! Attribution follows TraceEvent's `TraceLoadedDotNetRuntime` (the reference our tests compare
//! against): a GC's pause starts at the SuspendEEBegin (reason ForGC) that precedes its GCStart and
//! ends at the RestartEEEnd on the suspending thread; a background GC adds every later
//! suspension (reason ForGCPrep) it makes; HeapStats, PerHeapHistory and GlobalHeapHistory belong to
//! the GC in progress (for server background GCs, which fire them after GCEnd, to the background GC
//! that just ended), except a background GC's GCGlobalHeapHistory that arrives while a foreground
//! GC is in progress (see `global_history_target`). Where TraceEvent drops a GC (no suspension
//! seen), we keep it and say why.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::alloc_waits::AllocWaitTracker;
use super::datas::DatasBuilder;
use super::derive;
use super::handles::HandleTracker;
use super::mode::ModeEvidence;
use super::pins::PinTracker;
use super::raw::{GcRaw, HeapStatsRaw};
use super::rows::Rows;
use super::summary::SummaryAcc;
use super::types::*;
use crate::event::TraceInfo;

mod facts;
mod histories;
mod lifecycle;

/// SuspendEE reasons that start a GC pause (GCSuspendEEReason).
const SUSPEND_FOR_GC: u32 = 1;
const SUSPEND_FOR_GC_PREP: u32 = 6;
/// Reason/type code for a GC seen only from its GCEnd (named "Unknown").
const UNKNOWN_CODE: u32 = u32::MAX;
/// GCReason values with special handling.
const REASON_PM_FULL_GC: u32 = 12;
/// Rows a GC's derived figures look back over (its baseline GC); rows older than this behind the
/// settled ones can be dropped once handed out.
pub(crate) const LOOK_BACK: usize = super::derive::BASELINE_LOOKBACK + 1;
/// Keep at most this many free-text notes; the rest are only counted.
const MAX_NOTES: usize = 200;

/// One GCHeapStats payload, as the model needs it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct HeapStatsInput {
    pub generation_size: [u64; 5],
    pub promoted_size: [u64; 5],
    pub has_poh: bool,
    pub finalization_promoted_size: u64,
    pub finalization_promoted_count: u64,
    pub pinned_object_count: u32,
    pub sync_block_count: u32,
    pub gc_handle_count: u32,
}

/// One GCGlobalHeapHistory payload.
#[derive(Debug, Clone, Default)]
pub(crate) struct GlobalHistoryInput<'a> {
    pub final_youngest_desired: u64,
    pub num_heaps: i32,
    pub condemned_generation: u32,
    pub gen0_reduction_count: u32,
    pub reason: u32,
    pub global_mechanisms: u32,
    pub pause_mode: Option<u32>,
    pub memory_pressure: Option<u32>,
    pub condemn_reasons: Option<(u32, u32)>,
    pub times: &'a [u32],
}

/// One GCPerHeapHistory payload (v3 layout; older versions fill what they have).
#[derive(Debug, Clone, Default)]
pub(crate) struct PerHeapInput<'a> {
    pub heap_index: u32,
    pub free_list_allocated: u64,
    pub free_list_rejected: u64,
    pub end_of_seg_allocated: u64,
    pub condemned_allocated: u64,
    pub pinned_allocated: u64,
    pub pinned_allocated_advance: u64,
    pub running_free_list_efficiency: u32,
    pub condemn_reasons0: u32,
    pub condemn_reasons1: u32,
    pub compact_mechanisms: u32,
    pub expand_mechanisms: u32,
    pub extra_gen0_commit: u64,
    /// Per generation: SizeBefore, FreeListBefore, FreeObjBefore, SizeAfter, FreeListAfter,
    /// FreeObjAfter, In, PinnedSurv, NonPinnedSurv, NewAllocation.
    pub generations: &'a [[u64; 10]],
}

/// Builds a [`GcModel`] from events as they arrive.
#[derive(Debug, Clone)]
pub struct ModelBuilder {
    pub(crate) info: TraceInfo,
    pub(crate) gcs: Rows<Gc>,
    pub(crate) raw: Rows<GcRaw>,
    /// Length of the prefix of `gcs` that is closed (no further events expected).
    settled: usize,
    /// Rows before this were handed out by [`Self::drain_completed`] (clones; the builder keeps
    /// the last few for look-backs, and drops older ones into `dropped`).
    pub(crate) handed_out: usize,
    /// What the whole-trace summaries need from the rows dropped so far.
    pub(crate) dropped: SummaryAcc,
    /// The last GCHeapStats among the dropped rows (look-backs for sizes before a GC).
    pub(crate) dropped_heap_stats: Option<HeapStatsRaw>,
    /// A background GC that just closed: server GC fires its histories after its GCEnd and
    /// GCHeapStats, so it settles only when the next GC starts.
    awaiting_late: Option<usize>,

    // Suspension in progress (TraceEvent's suspendThreadID*).
    suspend_thread_gc: Option<u64>,
    suspend_thread_bgc: Option<u64>,
    suspend_thread_other: Option<u64>,
    suspend_start_ms: Option<f64>,
    suspend_end_ms: Option<f64>,
    last_suspend_reason: u32,

    current_bgc: Option<usize>,
    /// Where the last GCGlobalHeapHistory went: the GCPerHeapHistory events that follow belong there.
    history_gc: Option<usize>,
    last_completed: Option<usize>,
    /// Time of the last GCHeapStats (TraceEvent's "last restart end"): the previous GC's end.
    last_gc_end_ms: Option<f64>,

    alloc_tick_total: [u64; 3],
    alloc_tick_at_last_gc: [u64; 3],
    has_alloc_ticks: bool,

    pub(crate) handles: HandleTracker,
    pub(crate) pins: PinTracker,
    pub(crate) alloc_waits: AllocWaitTracker,
    pub(crate) process: ProcessFacts,
    pub(crate) notes: Vec<String>,
    notes_dropped: u64,
    /// What the events say about the GC's setup (server, DATAS, background GC, ...).
    pub(crate) mode: ModeEvidence,
    pub(crate) datas: DatasBuilder,
    /// Events whose payload is longer than the layout we know: (name, version, known bytes,
    /// count, the first one's extra bytes).
    extra_payloads: Vec<(String, u32, usize, u64, Vec<u8>)>,
}

impl ModelBuilder {
    pub fn new(info: &TraceInfo) -> ModelBuilder {
        let mut b = ModelBuilder {
            info: info.clone(),
            gcs: Rows::default(),
            raw: Rows::default(),
            settled: 0,
            handed_out: 0,
            dropped: SummaryAcc::default(),
            dropped_heap_stats: None,
            awaiting_late: None,
            suspend_thread_gc: None,
            suspend_thread_bgc: None,
            suspend_thread_other: None,
            suspend_start_ms: None,
            suspend_end_ms: None,
            last_suspend_reason: 0,
            current_bgc: None,
            history_gc: None,
            last_completed: None,
            last_gc_end_ms: None,
            alloc_tick_total: [0; 3],
            alloc_tick_at_last_gc: [0; 3],
            has_alloc_ticks: false,
            handles: HandleTracker::default(),
            pins: PinTracker::default(),
            alloc_waits: AllocWaitTracker::default(),
            process: ProcessFacts::default(),
            notes: Vec::new(),
            notes_dropped: 0,
            mode: ModeEvidence::default(),
            datas: DatasBuilder::default(),
            extra_payloads: Vec::new(),
        };
        b.set_info(info);
        b
    }

    /// Sets the trace header's facts (when the builder was made before the header was read).
    pub fn set_info(&mut self, info: &TraceInfo) {
        self.info = info.clone();
        let p = &mut self.process;
        p.format = info.format.clone();
        p.pointer_size = info.pointer_size;
        p.process_id = info.process_id;
        p.processor_count = info.processor_count;
        p.trace_start_utc = format_utc(&info.sync_time_utc);
    }

    /// Every GC the builder holds, in GCStart order (all of them unless
    /// [`Self::drain_completed`] is used); rows still in progress have `complete == false` and
    /// their derived figures are not filled yet.
    pub fn gcs(&self) -> &[Gc] {
        self.gcs.held()
    }

    /// Says how many GCs the trace will probably hold (e.g. from the fraction of the file read), so
    /// the rows grow to it in one step instead of doubling: a doubling vector of 1.6 KB rows can
    /// hold up to twice what it uses. Grows at most 4x at a time; never shrinks.
    pub fn expect_gcs(&mut self, total: usize) {
        let len = self.gcs.len();
        let want = total.min(len.max(16) * 4);
        if want > self.gcs.capacity() {
            self.gcs.reserve_exact(want - len);
        }
        if want > self.raw.capacity() {
            let raw_len = self.raw.len();
            self.raw.reserve_exact(want.saturating_sub(raw_len));
        }
    }

    /// The GCs that are finished and whose figures are final (a prefix of [`Self::gcs`]): a GC
    /// still in progress (e.g. a background GC) holds back the rows after it, and the last GC is
    /// settled only when the next one starts (or by [`Self::finish`]).
    pub fn completed_gcs(&self) -> &[Gc] {
        self.gcs.window(self.gcs.base(), self.settled)
    }

    /// The rows held whose figures are computed, in GCStart order: a GC is closed as it ends (a
    /// blocking GC at its RestartEEEnd once it has its GCHeapStats, a background GC at its
    /// GCHeapStats), while [`Self::completed_gcs`] settles the last GC only when the next starts.
    /// For a view of a live session that shows each GC as it ends. A closed background GC's
    /// figures can still change when its late events (server GC's histories) come.
    pub fn closed_gcs(&self) -> impl Iterator<Item = &Gc> + '_ {
        (self.gcs.base()..self.gcs.len())
            .filter(|&i| self.raw[i].closed)
            .map(|i| &self.gcs[i])
    }

    /// The rows held that are still in progress (not closed; see [`Self::closed_gcs`]), e.g. a
    /// background GC with foreground GCs inside it, or a GC the stream has not finished yet.
    pub fn open_gcs(&self) -> impl Iterator<Item = &Gc> + '_ {
        (self.gcs.base()..self.gcs.len())
            .filter(|&i| !self.raw[i].closed)
            .map(|i| &self.gcs[i])
    }

    /// Hands out the rows settled since the last call (final: see [`Self::completed_gcs`]) and
    /// forgets older ones, keeping only what later rows look back at. For a consumer that ships
    /// rows away as they settle (the browser's worker), memory then stays flat however many GCs
    /// the trace holds. Once it is used, [`Self::finish`]'s model holds only the rows not handed
    /// out yet; its summaries still cover every GC.
    pub fn drain_completed(&mut self) -> Vec<Gc> {
        let out = self.gcs.window(self.handed_out, self.settled).to_vec();
        self.handed_out = self.settled;
        let keep_from = self.settled.saturating_sub(LOOK_BACK);
        let dropped = &mut self.dropped;
        self.gcs.drop_before(keep_from, |gc| dropped.add(&gc));
        let last_stats = &mut self.dropped_heap_stats;
        self.raw.drop_before(keep_from, |r| {
            if r.heap_stats.is_some() {
                *last_stats = r.heap_stats;
            }
        });
        // Nothing may point at a dropped row (they are all settled, so nothing should).
        let base = self.gcs.base();
        for r in [
            &mut self.current_bgc,
            &mut self.history_gc,
            &mut self.last_completed,
            &mut self.awaiting_late,
        ] {
            if r.is_some_and(|i| i < base) {
                *r = None;
            }
        }
        out
    }

    pub(crate) fn note(&mut self, msg: String) {
        if self.notes.len() < MAX_NOTES {
            self.notes.push(msg);
        } else {
            self.notes_dropped += 1;
        }
    }

    /// Settles closed GCs, but never the last one: a GC's late events (a server background GC's
    /// histories, a background GC's restart) come before the next GCStart, so a settled row is final.
    fn advance_settled(&mut self) {
        while self.settled + 1 < self.gcs.len()
            && self.raw[self.settled].closed
            && self.awaiting_late != Some(self.settled)
        {
            self.settled += 1;
        }
    }

    /// TraceEvent's GetCurrentGC: the last GC if it is still open, else the background GC in progress.
    fn current(&self) -> Option<usize> {
        let last = self.gcs.len().checked_sub(1)?;
        if !self.raw[last].closed {
            Some(last)
        } else {
            self.current_bgc
        }
    }

    /// TraceEvent's GetLastGC: the current GC, or for server GC the background GC that just ended
    /// (server background GCs fire their history events after GCEnd/GCHeapStats).
    fn history_target(&self) -> Option<usize> {
        if let Some(i) = self.current() {
            return Some(i);
        }
        let i = self.last_completed?;
        (self.gcs[i].gc_type == GcType::Background).then_some(i)
    }

    /// The row of GC `number` among the last few rows or the background GC in progress (cheap:
    /// called for every GCStart to catch duplicates).
    fn find_recent(&self, number: u32) -> Option<usize> {
        let recent = self
            .gcs
            .held()
            .iter()
            .rev()
            .take(16)
            .position(|g| g.number == number);
        recent
            .map(|p| self.gcs.len() - 1 - p)
            .or(self.current_bgc.filter(|&b| self.gcs[b].number == number))
    }

    /// The row of GC `number` anywhere (a GCEnd whose GCStart is far back).
    fn find_by_number(&self, number: u32) -> Option<usize> {
        self.find_recent(number)
            .or_else(|| self.gcs.rposition(|g| g.number == number))
    }
    pub(crate) fn on_runtime_version(&mut self, version: String) {
        if self.process.runtime_version.is_none() {
            self.process.runtime_version = Some(version);
        }
    }

    /// GCs started so far and the total pause of the complete ones (rows handed out by
    /// [`Self::drain_completed`] included): the running figures of a process list.
    pub fn pause_so_far(&self) -> (u32, f64) {
        let (_, dropped_pause) = self.dropped.gcs_and_pause();
        // Every held row (settled or only closed: a row's pause is final once it is complete).
        let pause: f64 = self
            .gcs
            .held()
            .iter()
            .filter(|g| g.complete)
            .map(|g| g.pause_ms.unwrap_or(0.0))
            .sum();
        (self.gcs.len() as u32, dropped_pause + pause)
    }

    /// The process's name and command line from the kernel's process events (machine-wide traces).
    pub(crate) fn on_process_name(&mut self, name: String, command_line: String) {
        let keep = |s: String| (!s.is_empty()).then_some(s);
        self.process.process_name = self.process.process_name.take().or(keep(name));
        self.process.command_line = self.process.command_line.take().or(keep(command_line));
    }

    pub(crate) fn on_process_info(&mut self, command_line: String, os: String, arch: String) {
        let keep = |s: String| (!s.is_empty()).then_some(s);
        self.process.command_line = self.process.command_line.take().or(keep(command_line));
        self.process.os = self.process.os.take().or(keep(os));
        self.process.arch = self.process.arch.take().or(keep(arch));
    }

    /// (Re)computes GC `i`'s derived figures from its row, its raw facts and the rows before it.
    fn derive(&mut self, i: usize) {
        let has_pin_events = self.pins.has_events();
        derive::derive(
            &mut self.gcs,
            &self.raw,
            self.dropped_heap_stats,
            has_pin_events,
            i,
        );
    }

    /// Computes a GC's derived figures and advances the settled prefix. A GC completes as
    /// TraceEvent's GCStats completes it (its `TraceGC.OnEnd`: a blocking GC at its RestartEEEnd
    /// once it has its GCHeapStats, a background GC at its GCHeapStats, the GC before a
    /// provisional-mode full GC at that GC's start).
    fn close(&mut self, i: usize) {
        if self.raw[i].closed {
            return;
        }
        self.raw[i].closed = true;
        if self.gcs[i].gc_type == GcType::Background {
            self.awaiting_late = Some(i);
        }
        self.derive(i);
        // A closed blocking GC that follows a background GC completes that BGC's peak window
        // only when the BGC closes; derive handles that from the BGC side.
        self.advance_settled();
    }

    /// Closes every GC, computes the whole-trace summaries and returns the model.
    pub(crate) fn finish_model(mut self, dropped_events: Option<u64>) -> GcModel {
        // GCs still open when the trace ended get their figures now. Closed GCs are already
        // final: data that arrives after a close (a background GC's late histories or restart)
        // re-derives that GC when it arrives, and later GCs only ever look back at closed ones.
        for i in self.gcs.base()..self.gcs.len() {
            if !self.raw[i].closed {
                self.raw[i].closed = true;
                self.derive(i);
            }
        }
        self.settled = self.gcs.len();
        for (name, version, known, count, extra) in core::mem::take(&mut self.extra_payloads) {
            let hex: String = extra.iter().map(|b| format!("{b:02x}")).collect();
            self.notes.push(format!(
                "{name} v{version}: {count} events carry bytes past the {known} this version \
                 decodes (a newer runtime's fields), kept raw; the first one's: {hex}"
            ));
        }
        if self.notes_dropped > 0 {
            let n = self.notes_dropped;
            self.notes.push(format!("... and {n} more notes"));
        }
        self.process.dropped_events = dropped_events;
        let background_seen = self.dropped.any_background
            || self
                .gcs
                .held()
                .iter()
                .any(|g| g.gc_type == GcType::Background);
        let heap_changes = self.datas.heap_changes();
        super::mode::decide(&self.mode, background_seen, heap_changes, &mut self.process);
        super::summary::build(super::summary::Parts {
            gcs: self.gcs,
            handed_out: self.handed_out,
            dropped: self.dropped,
            handles: self.handles,
            pins: self.pins,
            process: self.process,
            last_heap_stats_ms: self.last_gc_end_ms,
            notes: self.notes,
            datas: self.datas.finish(),
            alloc_waits: self.alloc_waits.finish(),
        })
    }
}

fn format_utc(t: &[u16; 7]) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t[0], t[1], t[2], t[3], t[4], t[5], t[6]
    )
}

/// A background GC whose pause is one stretch, from its pause start to `restart_ms` (it did all
/// its work in its first suspension, or its later suspensions were not seen).
fn set_one_pause(gc: &mut Gc, restart_ms: f64) {
    gc.pause_ms = Some(restart_ms - gc.start_ms);
    gc.bgc_pauses.clear();
    gc.bgc_pauses.push(PauseSpan {
        start_ms: gc.start_ms,
        end_ms: restart_ms,
    });
}
