//! The GC's heap figures: GCHeapStats, GCGlobalHeapHistory and GCPerHeapHistory, each given to the
//! GC it describes (which for a server background GC is not always the one in progress).

use alloc::borrow::Cow;
use alloc::format;
use alloc::vec::Vec;

use super::{GlobalHistoryInput, HeapStatsInput, ModelBuilder, PerHeapInput};
use crate::clr::enums::GlobalMechanisms;
use crate::gc::raw::HeapStatsRaw;
use crate::gc::types::{GcType, HeapHistory};
use crate::gc::{derive, reasons};

impl ModelBuilder {
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

    /// The background GC in progress, by number.
    pub(crate) fn current_bgc_number(&self) -> Option<u32> {
        self.current_bgc
            .and_then(|i| self.gcs.get(i))
            .map(|g| g.number)
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
}
