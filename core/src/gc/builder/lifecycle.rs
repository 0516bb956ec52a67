//! A GC's life as the runtime reports it: the suspension that starts its pause, GCStart, GCEnd
//! and the RestartEEEnd that ends the pause (with TraceEvent's attribution, see the parent module).
//! In every handler of the builder, `ms` is the event time (ms since trace start) and `thread` the
//! OS thread.

use alloc::borrow::Cow;
use alloc::format;
use alloc::vec::Vec;

use super::{
    set_one_pause, ModelBuilder, REASON_PM_FULL_GC, SUSPEND_FOR_GC, SUSPEND_FOR_GC_PREP,
    UNKNOWN_CODE,
};
use crate::gc::raw::GcRaw;
use crate::gc::reasons;
use crate::gc::types::{Gc, GcType, Generations, PauseSpan};

impl ModelBuilder {
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
            // .NET Framework writes each GCStart twice, as version 1 and version 2
            // (docs/reference/formats.md, "The .NET runtime providers in ETW"): the second, right
            // after the first in the GC still open, is the same GC, not an anomaly.
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
}
