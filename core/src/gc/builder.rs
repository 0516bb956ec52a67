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

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::datas::DatasBuilder;
use super::derive;
use super::handles::HandleTracker;
use super::mode::ModeEvidence;
use super::pins::PinTracker;
use super::raw::{GcRaw, HeapStatsRaw};
use super::reasons;
use super::rows::Rows;
use super::summary::SummaryAcc;
use super::types::*;
use crate::clr::enums::GlobalMechanisms;
use crate::event::TraceInfo;

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
#[derive(Debug)]
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

    // ---------------------------------------------------------------------------------------
    // Event handlers. `ms` is the event time (ms since trace start), `thread` the OS thread.

    pub(crate) fn on_suspend_begin(&mut self, ms: f64, thread: u64, reason: u32) {
        match reason {
            SUSPEND_FOR_GC => self.suspend_thread_gc = Some(thread),
            SUSPEND_FOR_GC_PREP => {
                self.suspend_thread_bgc = Some(thread);
            }
            _ => {
                self.suspend_thread_other = Some(thread);
                return;
            }
        }
        self.last_suspend_reason = reason;
        self.suspend_start_ms = Some(ms);
        self.suspend_end_ms = None;
    }

    pub(crate) fn on_suspend_end(&mut self, ms: f64, thread: u64) {
        if Some(thread) != self.suspend_thread_gc && Some(thread) != self.suspend_thread_bgc {
            return;
        }
        if self.suspend_thread_bgc.is_some() {
            if let (Some(b), Some(start)) = (self.current_bgc, self.suspend_start_ms) {
                let s = self.gcs[b].suspend_ms.unwrap_or(0.0);
                self.gcs[b].suspend_ms = Some(s + (ms - start));
            }
        }
        self.suspend_end_ms = Some(ms);
    }

    pub(crate) fn on_gc_start(
        &mut self,
        ms: f64,
        thread: u64,
        number: u32,
        depth: u32,
        reason: u32,
        gc_type: u32,
    ) {
        if let Some(i) = self.find_recent(number) {
            // .NET Framework writes each GCStart twice, as version 1 and version 2 (fact 19): the
            // second, right after the first in the GC still open, is the same GC, not an anomaly.
            let framework_pair = i + 1 == self.gcs.len() && !self.raw[i].closed;
            if !framework_pair {
                self.note(format!(
                    "GC {number}: a second GCStart at {ms:.3} ms was ignored"
                ));
            }
            return;
        }
        let gc_type = GcType::from_code(gc_type);
        // The ephemeral GC a background GC runs first shares the background GC's suspension.
        let ephemeral_in_bgc = gc_type == GcType::NonConcurrent
            && self
                .gcs
                .last()
                .is_some_and(|g| g.gc_type == GcType::Background)
            && self.raw.last().is_some_and(|r| !r.closed);
        // A provisional-mode full GC ends the gen1 GC before it.
        if reason == REASON_PM_FULL_GC {
            if let Some(c) = self.current() {
                self.close(c);
            }
        }
        // A blocking GC still open when the next one starts lost its RestartEEEnd.
        if let Some(last) = self.gcs.len().checked_sub(1) {
            if !self.raw[last].closed
                && self.gcs[last].gc_type != GcType::Background
                && !ephemeral_in_bgc
            {
                self.close(last);
            }
        }

        let in_suspension = self.suspend_thread_gc.is_some() || self.suspend_thread_other.is_some();
        let mut no_suspend = false;
        let (start_ms, suspend_ms) = if ephemeral_in_bgc || reason == REASON_PM_FULL_GC {
            (ms, Some(0.0))
        } else if let (true, Some(s)) = (in_suspension, self.suspend_start_ms) {
            let end = *self.suspend_end_ms.get_or_insert(ms);
            (s, Some(end - s))
        } else {
            no_suspend = true;
            // Its restart is the next one on this thread.
            self.suspend_thread_gc = Some(thread);

            (ms, None)
        };
        let depth = depth.min(2) as u8;
        let gc = Gc {
            number,
            gen: depth,
            gc_type,
            reason: Cow::Borrowed(reasons::gc_reason_name(reason)),
            reason_code: reason,
            induced: reasons::is_induced(reason),
            complete: false,
            missing: Vec::new(),
            start_ms,
            gc_start_ms: ms,
            end_ms: None,
            duration_ms: None,
            suspend_ms,
            pause_ms: if gc_type == GcType::Background {
                suspend_ms
            } else {
                None
            },
            bgc_final_pause_ms: None,
            bgc_pauses: match (gc_type, suspend_ms) {
                (GcType::Background, Some(p)) => alloc::vec![PauseSpan {
                    start_ms,
                    end_ms: start_ms + p,
                }],
                _ => Vec::new(),
            },
            since_previous_gc_ms: None,
            pause_pct: None,
            gen0_allocated_bytes: None,
            loh_allocated_bytes: None,
            poh_allocated_bytes: None,
            allocated_bytes: None,
            gen0_alloc_rate_bytes_per_s: None,
            alloc_rate_bytes_per_s: None,
            alloc_tick_bytes: None,
            before_bytes: None,
            peak_bytes: None,
            after_bytes: None,
            peak_after_ratio: None,
            promoted_bytes: None,
            generations: Generations::default(),
            finalization_promoted_bytes: None,
            finalization_promoted_count: None,
            pinned_object_count: None,
            gc_handle_count: None,
            sync_block_count: None,
            heap_count: None,
            condemned_gen: None,
            pause_mode: None,
            memory_pressure_pct: None,
            global_mechanisms: None,
            gen0_budget_bytes: None,
            gen0_reduction_count: None,
            phase_times_us: None,
            condemn: None,
            heaps: Vec::new(),
            pinned_objects: Vec::new(),
            pinned_objects_bytes: None,
            pinned_plugs: Vec::new(),
            pinned_plug_bytes: None,
            user_pinned_plug_bytes: None,
            pinned_object_pct: None,
            marked_bytes: None,
        };
        self.gcs.push(gc);
        self.raw.push(GcRaw {
            no_suspend,
            ..GcRaw::default()
        });
        self.history_gc = None;
        self.awaiting_late = None;
        self.advance_settled();
        let idx = self.gcs.len() - 1;
        if gc_type == GcType::Background {
            self.current_bgc = Some(idx);
            self.process.concurrent = Some(true);
        }
        self.handles.sample(ms);
    }

    pub(crate) fn on_gc_end(&mut self, ms: f64, thread: u64, number: u32, depth: u32) {
        let idx = match self.find_by_number(number) {
            Some(i) if !self.gcs[i].complete => i,
            Some(_) => {
                self.note(format!(
                    "GC {number}: a second GCEnd at {ms:.3} ms was ignored"
                ));
                return;
            }
            None if self.current().is_none() => {
                // The trace started during this GC: its GCStart is not in the trace. Keep a row
                // for it (number and generation from GCEnd); start, type and reason are unknown.
                self.on_gc_start(ms, thread, number, depth, UNKNOWN_CODE, UNKNOWN_CODE);
                let i = self.gcs.len() - 1;
                self.raw[i].no_start = true;
                self.gcs[i].suspend_ms = None;
                self.gcs[i].complete = true;
                self.gcs[i].end_ms = Some(ms);
                return;
            }
            None => {
                self.note(format!(
                    "GCEnd {number} at {ms:.3} ms has no GCStart in the trace"
                ));
                return;
            }
        };
        let gc = &mut self.gcs[idx];
        gc.end_ms = Some(ms);
        gc.duration_ms = Some(ms - gc.gc_start_ms);
        gc.complete = true;
        if depth.min(2) as u8 != gc.gen {
            let g = gc.gen;
            self.note(format!(
                "GC {number}: GCStart depth {g} but GCEnd depth {depth}"
            ));
        }
    }

    pub(crate) fn on_restart_end(&mut self, ms: f64, thread: u64) {
        if Some(thread) == self.suspend_thread_other {
            self.suspend_thread_other = None;
        }
        if Some(thread) != self.suspend_thread_bgc && Some(thread) != self.suspend_thread_gc {
            return;
        }
        // A background GC that did all its work inside its first suspension (the runtime ran it
        // blocking) has already closed at its GCHeapStats: this restart ends its only pause.
        // TraceEvent leaves such a GC's pause at its suspension time.
        if self.current().is_none() && Some(thread) == self.suspend_thread_gc {
            if let Some(b) = self
                .last_completed
                .filter(|&b| self.gcs[b].gc_type == GcType::Background && !self.raw[b].restart_seen)
                // ... and the suspension ending now is the one that started it.
                .filter(|&b| self.suspend_start_ms == Some(self.gcs[b].start_ms))
            {
                set_one_pause(&mut self.gcs[b], ms);
                self.raw[b].restart_seen = true;
                self.derive(b);
            }
        }
        if let Some(c) = self.current() {
            if self.gcs[c].gc_type == GcType::Background {
                let gc = &mut self.gcs[c];
                match (self.suspend_thread_bgc, self.suspend_start_ms) {
                    (Some(_), Some(s)) => {
                        let pause = ms - s;
                        gc.pause_ms = Some(gc.pause_ms.unwrap_or(0.0) + pause);
                        gc.bgc_pauses.push(PauseSpan {
                            start_ms: s,
                            end_ms: ms,
                        });
                        if self.last_suspend_reason == SUSPEND_FOR_GC_PREP {
                            gc.bgc_final_pause_ms = Some(pause);
                        }
                    }
                    _ => set_one_pause(gc, ms),
                }
                self.raw[c].restart_seen = true;
            } else {
                // Without its GCStart the pause start is unknown.
                if !self.raw[c].no_start {
                    self.gcs[c].pause_ms = Some(ms - self.gcs[c].start_ms);
                }
                self.raw[c].restart_seen = true;
                if self.raw[c].heap_stats.is_some() {
                    self.last_completed = Some(c);
                    self.close(c);
                }
            }
        }
        self.suspend_start_ms = None;
        self.suspend_end_ms = None;
        self.suspend_thread_bgc = None;
        self.suspend_thread_gc = None;
    }

    pub(crate) fn on_heap_stats(&mut self, ms: f64, hs: &HeapStatsInput) {
        if let Some(c) = self.current() {
            let since_from = self.last_gc_end_ms.unwrap_or(0.0);
            let alloc_tick = self.has_alloc_ticks.then(|| {
                let mut d = [0u64; 3];
                for (k, v) in d.iter_mut().enumerate() {
                    *v = self.alloc_tick_total[k].saturating_sub(self.alloc_tick_at_last_gc[k]);
                }
                d
            });
            let gc = &mut self.gcs[c];
            gc.since_previous_gc_ms = Some(if gc.gc_type == GcType::Background {
                ms - since_from
            } else {
                gc.start_ms - since_from
            });
            gc.finalization_promoted_bytes = Some(hs.finalization_promoted_size);
            gc.finalization_promoted_count = Some(hs.finalization_promoted_count);
            gc.pinned_object_count = Some(hs.pinned_object_count);
            gc.sync_block_count = Some(hs.sync_block_count);
            gc.gc_handle_count = Some(hs.gc_handle_count);
            let raw = &mut self.raw[c];
            raw.heap_stats = Some(HeapStatsRaw {
                size: hs.generation_size,
                promoted: hs.promoted_size,
                has_poh: hs.has_poh,
            });
            raw.heap_stats_ms = Some(ms);
            raw.alloc_tick = alloc_tick;
            if gc.gc_type == GcType::Background && self.current_bgc == Some(c) {
                // A background GC ends here: it has no RestartEE of its own at the end.
                self.current_bgc = None;
                self.last_completed = Some(c);
                self.close(c);
            }
        } else {
            self.note(format!("GCHeapStats at {ms:.3} ms outside any GC"));
        }
        self.alloc_tick_at_last_gc = self.alloc_tick_total;
        self.last_gc_end_ms = Some(ms);
    }

    /// Where a GCGlobalHeapHistory goes: TraceEvent's GetLastGC (the GC in progress, else a server
    /// background GC that just ended), whichever thread fires it: in server GC the foreground GCs'
    /// histories come from any GC thread, the one that suspended for a background GC included.
    /// One exception, where TraceEvent is wrong: the runtime marks a background GC's history with
    /// the Concurrent mechanism (gc.cpp records `settings.concurrent`), and when that GC ends while
    /// a foreground GC is still restarting, its history arrives before that GC's RestartEEEnd.
    /// TraceEvent then gives it to the foreground GC (over the GC's own); it goes to the
    /// background GC in progress.
    fn global_history_target(&self, concurrent: bool) -> Option<usize> {
        let cur = self.history_target()?;
        if concurrent && self.gcs[cur].gc_type != GcType::Background {
            if let Some(b) = self.current_bgc {
                return Some(b);
            }
        }
        Some(cur)
    }

    pub(crate) fn on_global_history(&mut self, ms: f64, h: &GlobalHistoryInput<'_>) {
        if h.num_heaps > 0 {
            self.mode.on_heap_count(h.num_heaps as u32);
        }
        let concurrent = GlobalMechanisms(h.global_mechanisms).concurrent();
        let Some(c) = self.global_history_target(concurrent) else {
            self.note(format!("GCGlobalHeapHistory at {ms:.3} ms outside any GC"));
            return;
        };
        self.history_gc = Some(c);
        let gc = &mut self.gcs[c];
        gc.heap_count = (h.num_heaps > 0).then_some(h.num_heaps as u32);
        if let Some(n) = gc.heap_count {
            self.datas.on_gc_heaps(gc.number, gc.start_ms, n);
        }
        gc.condemned_gen = Some(h.condemned_generation.min(255) as u8);
        gc.gen0_budget_bytes = Some(h.final_youngest_desired);
        gc.gen0_reduction_count = Some(h.gen0_reduction_count);
        gc.pause_mode = h
            .pause_mode
            .map(|m| Cow::Borrowed(reasons::pause_mode_name(m)));
        gc.memory_pressure_pct = h.memory_pressure;
        gc.global_mechanisms = Some(reasons::global_mechanism_names(h.global_mechanisms));
        if !h.times.is_empty() {
            gc.phase_times_us = Some(reasons::phase_times(h.times, h.global_mechanisms));
        }
        self.raw[c].global_condemn = h
            .condemn_reasons
            .map(|(r0, r1)| reasons::decode_condemn(r0, r1));
        let (n, r) = (gc.number, gc.reason_code);
        if h.reason != r {
            self.note(format!(
                "GC {n}: GCStart reason {r} but GCGlobalHeapHistory reason {}",
                h.reason
            ));
        }
        self.raw[c].global_seen = true;
        if self.raw[c].closed {
            self.derive(c);
        }
    }

    pub(crate) fn on_per_heap_history(&mut self, ms: f64, h: &PerHeapInput<'_>) {
        self.mode.on_per_heap(h.heap_index);
        // The per-heap events follow their GCGlobalHeapHistory (one per heap).
        let after_global = self.history_gc.filter(|&g| {
            let gc = &self.gcs[g];
            (gc.heaps.len() as u32) < gc.heap_count.unwrap_or(1)
                && !gc.heaps.iter().any(|x| x.heap == h.heap_index)
        });
        let Some(c) = after_global.or_else(|| self.history_target()) else {
            self.note(format!("GCPerHeapHistory at {ms:.3} ms outside any GC"));
            return;
        };
        let mut gens = Vec::with_capacity(h.generations.len());
        for g in h.generations {
            gens.push(derive::heap_gen(g));
        }
        let hist = HeapHistory {
            heap: h.heap_index,
            condemn: reasons::decode_condemn(h.condemn_reasons0, h.condemn_reasons1),
            compact_mechanism: reasons::compact_mechanism_name(h.compact_mechanisms)
                .map(Cow::Borrowed),
            expand_mechanism: reasons::expand_mechanism_name(h.expand_mechanisms)
                .map(Cow::Borrowed),
            free_list_allocated_bytes: h.free_list_allocated,
            free_list_rejected_bytes: h.free_list_rejected,
            end_of_seg_allocated_bytes: h.end_of_seg_allocated,
            condemned_allocated_bytes: h.condemned_allocated,
            pinned_allocated_bytes: h.pinned_allocated,
            pinned_allocated_advance_bytes: h.pinned_allocated_advance,
            running_free_list_efficiency_pct: h.running_free_list_efficiency,
            extra_gen0_commit_bytes: h.extra_gen0_commit,
            generations: gens,
        };
        let heaps = &mut self.gcs[c].heaps;
        // Keep heap order even if events arrive out of order.
        let pos = heaps
            .iter()
            .position(|x| x.heap > hist.heap)
            .unwrap_or(heaps.len());
        heaps.insert(pos, hist);
        if self.raw[c].closed {
            self.derive(c);
        }
    }

    pub(crate) fn on_pin_object(
        &mut self,
        ms: f64,
        handle: u64,
        object: u64,
        size: u64,
        type_name: String,
    ) {
        self.pins.on_pinned_object(&type_name, size, self.gcs.len());
        self.handles.set_type_name(handle, &type_name);
        let Some(c) = self.current() else {
            self.note(format!("PinObjectAtGCTime at {ms:.3} ms outside any GC"));
            return;
        };
        let gc = &mut self.gcs[c];
        if gc.pinned_objects.iter().any(|p| p.address == object) {
            return; // TraceEvent counts each object once per GC.
        }
        gc.pinned_objects.push(PinnedObject {
            handle,
            address: object,
            size_bytes: size,
            type_name,
        });
    }

    pub(crate) fn on_pin_plug(&mut self, ms: f64, start: u64, end: u64, gap_before: u64) {
        self.pins.pinned_plug_events += 1;
        let Some(c) = self.current() else {
            self.note(format!("PinPlugAtGCTime at {ms:.3} ms outside any GC"));
            return;
        };
        self.gcs[c].pinned_plugs.push(PinnedPlug {
            start,
            end,
            gap_before_bytes: gap_before,
            by_user: false,
        });
    }

    /// GCMarkWithType: bytes marked from one root kind on one heap (summed over heaps).
    pub(crate) fn on_mark(&mut self, root_kind: u32, bytes: u64) {
        if let Some(c) = self.current() {
            let m = self.gcs[c]
                .marked_bytes
                .get_or_insert_with(RootMarks::default);
            m.add(root_kind, bytes);
        }
    }

    pub(crate) fn on_allocation_tick(&mut self, bytes: u64, kind: u32) {
        self.has_alloc_ticks = true;
        self.mode.on_verbose_gc();
        let k = (kind as usize).min(2);
        self.alloc_tick_total[k] = self.alloc_tick_total[k].saturating_add(bytes);
    }

    pub(crate) fn on_set_handle(
        &mut self,
        ms: f64,
        handle: u64,
        object: u64,
        kind: u32,
        generation: u32,
    ) {
        // A reused live id (the runtime freed it silently) is counted in the handle summary.
        self.handles.on_set(ms, handle, object, kind, generation);
    }

    pub(crate) fn on_destroy_handle(&mut self, ms: f64, handle: u64) {
        self.handles.on_destroy(ms, handle);
    }

    pub(crate) fn on_gc_settings(&mut self, hard_limit: u64, bit_settings: u32) {
        self.mode.on_settings(hard_limit, bit_settings);
    }

    /// A payload with bytes past its known layout (a newer version's fields): counted per event
    /// name and version, the first one's extra bytes kept (up to 64) for the notes.
    pub(crate) fn on_extra_payload(
        &mut self,
        name: &str,
        version: u32,
        known: usize,
        extra: &[u8],
    ) {
        const MAX_KINDS: usize = 16;
        const MAX_BYTES: usize = 64;
        let kinds = self.extra_payloads.len();
        match self
            .extra_payloads
            .iter_mut()
            .find(|x| x.0 == name && x.1 == version)
        {
            Some(x) => x.3 += 1,
            None if kinds < MAX_KINDS => self.extra_payloads.push((
                String::from(name),
                version,
                known,
                1,
                extra[..extra.len().min(MAX_BYTES)].to_vec(),
            )),
            None => {}
        }
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

    /// Computes a GC's derived figures and advances the settled prefix.
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
            notes: self.notes,
            datas: self.datas.finish(),
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
