//! Streaming collection: each typed runtime event becomes a compact record. Nothing here knows
//! about GCs; attribution to GCs happens in `finish`, once the model's GC windows are final.

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::alloc_kind::AllocKind;
use super::inputs::{FinalizerEnd, InsightInputs, RangeEvent};
use super::tick_bins::TickBinner;
use super::types::*;
use crate::clr::enums::GcSegmentType;
use crate::clr::gc::{BulkKind, DynamicPayload, TickDigest, TypeIndex};
use crate::clr::{self, ClrEvent, Utf16Str};
use crate::event::Event;
use crate::gc::GcModel;
use crate::ticks::TickBatch;

/// Collects the records the insights are made of. Feed it the same events as the model.
#[derive(Debug, Clone, Default)]
pub struct InsightsBuilder {
    /// Type name index by the name's raw UTF-16 bytes (a tick's name is looked up without
    /// decoding or allocating).
    type_index: TypeIndex,
    /// The index in `type_names` of each name of the merge's table ([`TypeRef::merged`](crate::clr::gc::TypeRef::merged)), or
    /// `u32::MAX` until a tick of it is delivered: indices are given in the order ticks are
    /// delivered, as when every name is looked up in `type_index`.
    merged_index: Vec<u32>,
    pub(crate) type_names: Vec<String>,
    pub(crate) samples: Vec<AllocSample>,
    /// The ticks kept as samples besides `tick_bins`: those with `from <= ms < to` (every one for
    /// [`InsightsBuilder::new`]); None: none (see [`InsightsBuilder::bounded`]).
    keep_samples: Option<(f64, f64)>,
    tick_bins: TickBinner,
    pub(crate) mark_events: u64,
    pub(crate) range_events: Vec<RangeEvent>,
    pub(crate) suspensions: Vec<Suspension>,
    /// Indices in `suspensions` of suspensions not yet restarted (one per suspending thread;
    /// restarts are matched by thread, as the model does: traces carry restarts of suspensions
    /// that began before the trace, on other threads).
    open_suspensions: Vec<usize>,
    finalizers_begin: Option<f64>,
    pub(crate) finalizer_ends: Vec<FinalizerEnd>,
    pub(crate) finalize_objects: BTreeMap<u64, u64>,
    pub(crate) finalize_names: BTreeMap<u64, String>,
    pub(crate) finalize_object_events: u64,
    /// Type names from Type/BulkType, kept only to name finalized types.
    bulk_type_names: BTreeMap<u64, String>,
    pub(crate) pressure: MemoryPressure,
    pub(crate) segments: Segments,
    live_segments: BTreeMap<u64, usize>,
    reserved: SegmentBytes,
    /// The last event was a GCGenerationRange: the next one extends the same snapshot.
    in_range_burst: bool,
    /// GC/CommittedUsage (.NET 8+): (time, committed bytes without the GC's bookkeeping).
    pub(crate) committed: Vec<(f64, u64)>,
}

fn segment_kind(t: GcSegmentType) -> &'static str {
    match t {
        GcSegmentType::SmallObjectHeap => "SOH",
        GcSegmentType::LargeObjectHeap => "LOH",
        GcSegmentType::PinnedObjectHeap => "POH",
        GcSegmentType::ReadOnlyHeap => "ReadOnly",
        GcSegmentType::Unknown(_) => "Unknown",
    }
}

fn reserved_slot<'a>(b: &'a mut SegmentBytes, kind: &str) -> &'a mut u64 {
    match kind {
        "LOH" => &mut b.loh,
        "POH" => &mut b.poh,
        "ReadOnly" => &mut b.read_only,
        _ => &mut b.soh,
    }
}

impl InsightsBuilder {
    /// Keeps every allocation tick (`Allocations::samples`: exact figures for any time range).
    /// Memory grows with the ticks (a sample each; docs/performance-log/journal.md, "Outputs
    /// decoded into again; the CLI's insights bounded"): for a bounded one,
    /// [`bounded`](Self::bounded) or [`keeping_samples_in`](Self::keeping_samples_in).
    pub fn new() -> InsightsBuilder {
        Self::keeping_samples_in(f64::NEG_INFINITY, f64::INFINITY)
    }

    /// [`bounded`](Self::bounded), and keeps the allocation ticks with `from_ms <= ms < to_ms` as
    /// samples too (exact figures for that range, `Allocations::samples_in`), where a caller knows
    /// the range it will ask about before the trace is read. The whole trace's allocation figures
    /// then come from the bins, as a bounded builder's do, unless every tick is in the range.
    pub fn keeping_samples_in(from_ms: f64, to_ms: f64) -> InsightsBuilder {
        InsightsBuilder {
            keep_samples: Some((from_ms, to_ms)),
            ..InsightsBuilder::default()
        }
    }

    /// Keeps allocation ticks only as per-type sums in time bins (`Allocations::tick_bins`), so
    /// memory does not grow with the number of ticks; `samples` stays empty. For the browser.
    pub fn bounded() -> InsightsBuilder {
        InsightsBuilder::default()
    }

    /// Feeds one event (timestamp order). Events other than the runtime's GC events cost a
    /// provider check.
    pub fn on_event(&mut self, e: &Event<'_>) {
        if !clr::names::is_runtime_provider(e.provider) {
            return;
        }
        if let Some(tick) = e.tick() {
            return self.on_tick(e, tick);
        }
        let Some(Ok(ev)) = clr::decode(e) else {
            // Undecodable payloads are counted and noted by the model.
            return;
        };
        self.on_clr(e, &ev);
    }

    /// Feeds one event already decoded: `ev` is what `clr::decode(e)` returned (`Some(Ok(ev))`).
    /// The same as [`InsightsBuilder::on_event`] without decoding again; see [`crate::gc::feed`]
    /// for feeding the model and the insights from one decode.
    pub fn on_clr(&mut self, e: &Event<'_>, ev: &ClrEvent<'_>) {
        let ms = e.time_ms;
        let was_burst = core::mem::replace(&mut self.in_range_burst, false);
        match ev {
            ClrEvent::GcAllocationTick(a) => {
                let type_index = self.intern(a.type_name.unwrap_or_default());
                self.alloc_tick(ms, type_index, a.kind.raw(), a.amount(), a.heap_index)
            }
            ClrEvent::GcMarkWithType(_) => self.mark_events += 1,
            ClrEvent::GcBulk(b) if b.kind == BulkKind::MovedObjectRanges => {
                let (mut ranges, mut bytes, mut relocated) = (0u64, 0u64, 0u64);
                for r in b.moved_ranges() {
                    ranges += 1;
                    bytes = bytes.saturating_add(r.range_length);
                    if r.old_range_base != r.new_range_base {
                        relocated = relocated.saturating_add(r.range_length);
                    }
                }
                self.range_events.push(RangeEvent {
                    ms,
                    moved: true,
                    ranges,
                    bytes,
                    relocated_bytes: relocated,
                });
            }
            ClrEvent::GcBulk(b) if b.kind == BulkKind::SurvivingObjectRanges => {
                let (mut ranges, mut bytes) = (0u64, 0u64);
                for r in b.surviving_ranges() {
                    ranges += 1;
                    bytes = bytes.saturating_add(r.range_length);
                }
                self.range_events.push(RangeEvent {
                    ms,
                    moved: false,
                    ranges,
                    bytes,
                    relocated_bytes: 0,
                });
            }
            ClrEvent::GcSuspendEeBegin(s) => {
                let th = e.thread_id;
                let sus = &self.suspensions;
                self.open_suspensions.retain(|&i| sus[i].thread != th);
                self.suspensions.push(Suspension {
                    begin_ms: ms,
                    reason: Cow::Borrowed(s.reason.name()),
                    reason_code: s.reason.raw(),
                    thread: e.thread_id,
                    suspend_ms: None,
                    pause_ms: None,
                    gc_number: None,
                });
                self.open_suspensions.push(self.suspensions.len() - 1);
            }
            ClrEvent::GcSuspendEeEnd(_) => {
                if let Some(s) = self.open_on(e.thread_id) {
                    if s.suspend_ms.is_none() {
                        s.suspend_ms = Some(ms - s.begin_ms);
                    }
                }
            }
            ClrEvent::GcRestartEeEnd(_) => {
                if let Some(s) = self.open_on(e.thread_id) {
                    s.pause_ms = Some(ms - s.begin_ms);
                }
                let (sus, th) = (&self.suspensions, e.thread_id);
                self.open_suspensions.retain(|&i| sus[i].thread != th);
            }
            ClrEvent::GcFinalizersBegin(_) => self.finalizers_begin = Some(ms),
            ClrEvent::GcFinalizersEnd(f) => {
                let begin_ms = self.finalizers_begin.take();
                self.finalizer_ends.push(FinalizerEnd {
                    begin_ms,
                    end_ms: ms,
                    count: f.count,
                });
            }
            ClrEvent::FinalizeObject(f) => {
                // The private provider repeats each public FinalizeObject with the type name:
                // count the public one, take the name from the private one.
                if e.provider != clr::names::PRIVATE_PROVIDER {
                    self.finalize_object_events += 1;
                    *self.finalize_objects.entry(f.type_id).or_insert(0) += 1;
                }
                if let Some(n) = f.type_name {
                    self.finalize_names
                        .entry(f.type_id)
                        .or_insert_with(|| n.to_string_lossy());
                }
            }
            ClrEvent::BulkType(t) => {
                for d in t.types() {
                    self.bulk_type_names
                        .entry(d.type_id)
                        .or_insert_with(|| d.name.to_string_lossy());
                }
            }
            ClrEvent::IncreaseMemoryPressure(p) => self.on_pressure(ms, p.bytes, true),
            ClrEvent::DecreaseMemoryPressure(p) => self.on_pressure(ms, p.bytes, false),
            ClrEvent::GcCreateSegment(s) => {
                let kind = segment_kind(s.segment_type);
                let sg = &mut self.segments;
                sg.has_events = true;
                sg.created += 1;
                self.live_segments.insert(s.address, sg.segments.len());
                sg.segments.push(Segment {
                    address: s.address,
                    size_bytes: Some(s.size),
                    kind: Cow::Borrowed(kind),
                    created_ms: Some(ms),
                    freed_ms: None,
                });
                let slot = reserved_slot(&mut self.reserved, kind);
                *slot = slot.saturating_add(s.size);
                self.push_reserved(ms);
            }
            ClrEvent::GcFreeSegment(s) => {
                let sg = &mut self.segments;
                sg.has_events = true;
                sg.freed += 1;
                match self.live_segments.remove(&s.address) {
                    Some(i) => {
                        let seg = &mut sg.segments[i];
                        seg.freed_ms = Some(ms);
                        let (size, kind) = (seg.size_bytes.unwrap_or(0), seg.kind.clone());
                        let slot = reserved_slot(&mut self.reserved, &kind);
                        *slot = slot.saturating_sub(size);
                        self.push_reserved(ms);
                    }
                    None => sg.segments.push(Segment {
                        address: s.address,
                        size_bytes: None,
                        kind: Cow::Borrowed("Unknown"),
                        created_ms: None,
                        freed_ms: Some(ms),
                    }),
                }
            }
            ClrEvent::GcDynamicEvent(d) => {
                if let Ok(DynamicPayload::CommittedUsage(c)) = d.payload() {
                    let heap = c.total().saturating_sub(c.total_bookkeeping_committed);
                    self.committed.push((ms, heap));
                }
            }
            ClrEvent::GcGenerationRange(r) => {
                let sg = &mut self.segments;
                sg.generation_range_events += 1;
                if !was_burst || sg.range_snapshots.is_empty() {
                    sg.range_snapshots.push(RangeSnapshot {
                        ms,
                        gc_number: None,
                        ranges: 0,
                        used_bytes: GenBytes::default(),
                        reserved_bytes: GenBytes::default(),
                    });
                }
                if let Some(snap) = sg.range_snapshots.last_mut() {
                    snap.ranges += 1;
                    snap.used_bytes.add(r.generation, r.range_used_length);
                    snap.reserved_bytes
                        .add(r.generation, r.range_reserved_length);
                }
                self.in_range_burst = true;
            }
            _ => {}
        }
    }

    /// [`on_clr`](Self::on_clr) of a GCAllocationTick that a part decoded (see [`TickDigest`]).
    pub fn on_tick(&mut self, e: &Event<'_>, tick: &TickDigest) {
        self.on_tick_of_type(e, tick, None);
    }

    /// [`on_tick`](Self::on_tick) where the type's index is known already ([`known_type`](Self::known_type)
    /// of the tick's name).
    pub(crate) fn on_tick_of_type(&mut self, e: &Event<'_>, tick: &TickDigest, known: Option<u32>) {
        self.in_range_burst = false;
        let type_index = match (known, tick.type_ref.in_merge()) {
            (Some(i), _) => i,
            (None, Some(m)) => self.merged_type(m, e, tick),
            (None, None) => self.intern_tick_type(e, tick),
        };
        self.alloc_tick(
            e.time_ms,
            type_index,
            tick.kind,
            tick.amount,
            tick.heap_index,
        );
    }

    /// A batch of allocation ticks (a reader for
    /// [`Consumer::ModelAndInsights`](crate::ticks::Consumer::ModelAndInsights)): what
    /// [`on_tick`](Self::on_tick) does with each, in order. A batch without its ticks (a reader for
    /// [`Consumer::Model`](crate::ticks::Consumer::Model), the model alone) is a caller's
    /// mistake the insights cannot make up for: they would miss its ticks.
    pub fn on_tick_batch(&mut self, batch: &TickBatch) {
        debug_assert_eq!(
            batch.ticks.len() as u64,
            batch.count,
            "a batch without its ticks"
        );
        if batch.ticks.is_empty() {
            return;
        }
        self.in_range_burst = false;
        for t in &batch.ticks {
            let type_index = match batch.type_name(t.type_slot) {
                Some(name) => self.slot_type(t.type_slot, name),
                None => self.intern(Utf16Str(&[])),
            };
            self.alloc_tick(t.time_ms, type_index, t.kind, t.amount, t.heap_index);
        }
    }

    /// The index of the type at slot `m` of the merge's table (a batch's
    /// [`BatchTick::type_slot`](crate::ticks::BatchTick::type_slot) is that index), named `name`:
    /// interned when the first of its ticks arrives, as [`merged_type`](Self::merged_type) does.
    #[inline]
    fn slot_type(&mut self, m: u32, name: &[u8]) -> u32 {
        match self.merged_index.get(m as usize) {
            Some(&i) if i != u32::MAX => i,
            _ => self.intern_merged(m, Utf16Str(name)),
        }
    }

    /// Interns `name`, the name at `m` in the merge's table, and notes its index.
    #[cold]
    fn intern_merged(&mut self, m: u32, name: Utf16Str<'_>) -> u32 {
        let i = self.intern(name);
        let m = m as usize;
        if m >= self.merged_index.len() {
            self.merged_index.resize(m + 1, u32::MAX);
        }
        self.merged_index[m] = i;
        i
    }

    /// The index of the allocated type named `name` (UTF-16 bytes), if a tick named it before.
    pub(crate) fn known_type(&self, name: &[u8]) -> Option<u32> {
        self.type_index.find(name)
    }

    fn alloc_tick(&mut self, ms: f64, type_index: u32, kind: u32, bytes: u64, heap: Option<u32>) {
        let kind = AllocKind::from_code(kind);
        self.tick_bins.add(ms, type_index, kind, bytes);
        if matches!(self.keep_samples, Some((from, to)) if ms >= from && ms < to) {
            self.samples.push(AllocSample {
                ms,
                type_index,
                bytes,
                kind,
                heap,
            });
        }
    }

    /// The index of the type the merge's table holds at `m` (the tick's own name: the table's is
    /// the same bytes), interned when the first of its ticks arrives.
    fn merged_type(&mut self, m: u32, e: &Event<'_>, tick: &TickDigest) -> u32 {
        match self.merged_index.get(m as usize) {
            Some(&i) if i != u32::MAX => i,
            _ => self.intern_merged(
                m,
                tick.type_name(e.payload, e.pointer_size)
                    .unwrap_or_default(),
            ),
        }
    }

    /// The index of the tick's type, by the name in its payload.
    fn intern_tick_type(&mut self, e: &Event<'_>, tick: &TickDigest) -> u32 {
        self.intern(
            tick.type_name(e.payload, e.pointer_size)
                .unwrap_or_default(),
        )
    }

    fn intern(&mut self, name: Utf16Str<'_>) -> u32 {
        let (i, new) = self.type_index.index(name.0);
        if new {
            self.type_names.push(name.to_string_lossy());
        }
        i
    }

    /// The open suspension made by `thread`.
    fn open_on(&mut self, thread: u64) -> Option<&mut Suspension> {
        let i = *self
            .open_suspensions
            .iter()
            .rev()
            .find(|&&i| self.suspensions[i].thread == thread)?;
        self.suspensions.get_mut(i)
    }

    fn on_pressure(&mut self, ms: f64, bytes: u64, increase: bool) {
        let p = &mut self.pressure;
        p.has_events = true;
        let delta = i64::try_from(bytes).unwrap_or(i64::MAX);
        let delta = if increase {
            p.increase_count += 1;
            p.increased_bytes = p.increased_bytes.saturating_add(bytes);
            delta
        } else {
            p.decrease_count += 1;
            p.decreased_bytes = p.decreased_bytes.saturating_add(bytes);
            -delta
        };
        p.net_bytes = p.net_bytes.saturating_add(delta);
        p.peak_net_bytes = p.peak_net_bytes.max(p.net_bytes);
        p.over_time.push(PressurePoint {
            ms,
            delta_bytes: delta,
            net_bytes: p.net_bytes,
        });
    }

    fn push_reserved(&mut self, ms: f64) {
        let r = &mut self.reserved;
        // Segment sizes come from payloads: saturate rather than overflow (fuzz finding).
        r.total = r
            .soh
            .saturating_add(r.loh)
            .saturating_add(r.poh)
            .saturating_add(r.read_only);
        self.segments
            .reserved_over_time
            .push(ReservedPoint { ms, bytes: *r });
    }

    /// Attributes the records to the model's GCs and aggregates every view.
    pub fn finish(self, model: &GcModel) -> Insights {
        self.into_inputs().finish(&model.gcs)
    }

    /// The records collected, without the builder's working state: what [`InsightInputs::finish`]
    /// needs besides the rows (for finishing elsewhere, e.g. where the rows went).
    pub fn into_inputs(self) -> InsightInputs {
        let (names, bulk) = (self.finalize_names, self.bulk_type_names);
        // Bulk type names are kept only for the types that were finalized.
        let finalized_type_names = self
            .finalize_objects
            .keys()
            .filter_map(|id| Some((*id, names.get(id).or_else(|| bulk.get(id))?.clone())))
            .collect();
        InsightInputs {
            type_names: self.type_names,
            samples: self.samples,
            tick_bins: self.tick_bins.finish(),
            mark_events: self.mark_events,
            range_events: self.range_events,
            suspensions: self.suspensions,
            finalizer_ends: self.finalizer_ends,
            finalize_objects: self.finalize_objects,
            finalized_type_names,
            finalize_object_events: self.finalize_object_events,
            pressure: self.pressure,
            segments: self.segments,
            committed: self.committed,
        }
    }
}
