//! [`StackSamplesBuilder`]: what a read keeps of the events whose stacks are summed (allocation
//! ticks, one by one, from their digest or in the tick lane's batches; GC triggers; pinned
//! handles), and the filter of a reader for it ([`interest`]).

use super::{add, sorted, Sample, SampleKind, SampleStats, Selection, StackSamples, StackSums};
use crate::clr::enums::{GcAllocationKind, GcHandleKind};
use crate::clr::ClrEvent;
use crate::event::Event;
use crate::filter::Interest;
use crate::stacks::chunks::Chunks;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

/// Collects the samples of a trace, and its method events ([`MethodMapBuilder`]).
///
/// [`MethodMapBuilder`]: crate::stacks::methods::MethodMapBuilder
#[derive(Debug, Default)]
pub struct StackSamplesBuilder {
    samples: Chunks<Sample>,
    types: Vec<String>,
    type_index: BTreeMap<String, u32>,
    stats: SampleStats,
    methods: crate::stacks::methods::MethodMapBuilder,
    /// Where the selection is known before the read ([`Self::summing`]): it, and its sums so
    /// far by stack, kept instead of the samples.
    only: Option<Selection>,
    by_stack: Vec<(u64, u64)>,
    partial: StackSums,
    /// Per type-name slot of the reader's tick batches, [`Self::slot_type`]'s answer.
    by_slot: Vec<u32>,
}

/// Where a sample was taken: the fields of its event (or of its tick in a batch) it keeps.
#[derive(Debug, Clone, Copy)]
struct At {
    time_ms: f64,
    process_id: u32,
    stack: u32,
}

impl At {
    fn of(ev: &Event<'_>) -> At {
        At {
            time_ms: ev.time_ms,
            process_id: ev.process_id,
            stack: ev.stack,
        }
    }
}

impl StackSamplesBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder that sums the samples of `sel` by stack as they come ([`Self::finish_sums`]),
    /// and keeps no sample: its memory is bounded by the distinct stacks, not the events (for a
    /// caller, like the CLI, whose selection is known before the read).
    pub fn summing(sel: Selection) -> Self {
        StackSamplesBuilder {
            only: Some(sel),
            ..Self::default()
        }
    }

    /// Reads `ev`: a method or module event, an allocation tick, a GCTriggered or a SetGCHandle of
    /// kind Pinned (any other event is ignored). A tick that a part of the file decoded comes with
    /// its digest ([`crate::ticks::Ticks::One`]), which is read instead of decoding the payload
    /// again: it holds what decoding gives (`TickDigest`).
    pub fn on_event(&mut self, ev: &Event<'_>) {
        self.methods.on_event(ev);
        match ev.ticks {
            Some(crate::ticks::Ticks::One(d)) => {
                let name = d.type_name(ev.payload, ev.pointer_size);
                let kind = GcAllocationKind::from_raw(d.kind);
                if let Some(k) = self.alloc_kind(kind, name) {
                    self.take(At::of(ev), k, d.amount);
                }
                return;
            }
            Some(crate::ticks::Ticks::Batch(b)) => {
                for t in &b.ticks {
                    self.stats.alloc_ticks += 1;
                    let Some(type_index) = self.slot_type(t.type_slot, b) else {
                        continue;
                    };
                    let kind = SampleKind::Alloc {
                        kind: GcAllocationKind::from_raw(t.kind),
                        type_index,
                    };
                    let at = At {
                        time_ms: t.time_ms,
                        process_id: ev.process_id,
                        stack: t.stack,
                    };
                    self.take(at, kind, t.amount);
                }
                return;
            }
            None => {}
        }
        let Some(decoded) = crate::clr::decode(ev) else {
            return;
        };
        let (kind, value) = match decoded {
            Ok(ClrEvent::GcAllocationTick(a)) => {
                let Some(k) = self.alloc_kind(a.kind, a.type_name) else {
                    return;
                };
                let bytes = a
                    .allocation_amount64
                    .unwrap_or(u64::from(a.allocation_amount));
                (k, bytes)
            }
            Ok(ClrEvent::GcTriggered(t)) => {
                self.stats.triggered += 1;
                (SampleKind::Triggered { reason: t.reason }, 1)
            }
            Ok(ClrEvent::SetGcHandle(h)) if h.kind == GcHandleKind::Pinned => {
                self.stats.pinned_handles += 1;
                (SampleKind::PinnedHandle, 1)
            }
            Err(_) if is_sampled_event(ev) => {
                self.stats.bad_payloads += 1;
                return;
            }
            _ => return,
        };
        self.take(At::of(ev), kind, value);
    }

    /// Counts an allocation tick, and gives its sample's kind (None: the selection does not take
    /// its type, [`Self::type_index`]).
    fn alloc_kind(
        &mut self,
        kind: GcAllocationKind,
        type_name: Option<crate::clr::payload::Utf16Str<'_>>,
    ) -> Option<SampleKind> {
        self.stats.alloc_ticks += 1;
        let type_index = self.type_index(type_name)?;
        Some(SampleKind::Alloc { kind, type_index })
    }

    /// [`Self::type_index`] of a batch's tick, by its name's slot in the batch: worked out once
    /// per slot (the slots are the reader's, kept from batch to batch).
    fn slot_type(&mut self, slot: u32, b: &crate::ticks::TickBatch) -> Option<u32> {
        const UNSEEN: u32 = u32::MAX - 1;
        const REFUSED: u32 = u32::MAX - 2;
        if slot == crate::ticks::BatchTick::NO_NAME {
            return self.type_index(None);
        }
        let i = slot as usize;
        if let Some(&known) = self.by_slot.get(i).filter(|&&k| k != UNSEEN) {
            return (known != REFUSED).then_some(known);
        }
        let found = self.type_index(b.type_name(slot).map(crate::clr::payload::Utf16Str));
        if self.by_slot.len() <= i {
            self.by_slot.resize(i + 1, UNSEEN);
        }
        self.by_slot[i] = found.unwrap_or(REFUSED);
        found
    }

    /// A tick's type index: its type compared with the selection's where the builder sums (None:
    /// another type; `u32::MAX`: taken), else interned (`u32::MAX`: no type name).
    fn type_index(&mut self, type_name: Option<crate::clr::payload::Utf16Str<'_>>) -> Option<u32> {
        let type_index = match type_name {
            // Summing: the type is compared, not interned.
            Some(t) if self.only.is_some() => {
                let want = self.only.as_ref().and_then(|s| s.type_name.as_deref());
                if want.is_some_and(|w| !t.eq_str(w)) {
                    return None;
                }
                u32::MAX
            }
            None if self.only.as_ref().is_some_and(|s| s.type_name.is_some()) => {
                return None;
            }
            Some(t) => {
                let name = t.to_string_lossy();
                match self.type_index.get(&name) {
                    Some(&i) => i,
                    None => {
                        let i = self.types.len() as u32;
                        self.types.push(name.clone());
                        self.type_index.insert(name, i);
                        i
                    }
                }
            }
            None => u32::MAX,
        };
        Some(type_index)
    }

    /// Sums (or keeps) a sample of `kind` and `value`, at `ev`, where the selection takes it.
    fn take(&mut self, ev: At, kind: SampleKind, value: u64) {
        if let Some(sel) = &self.only {
            let alloc = matches!(kind, SampleKind::Alloc { .. });
            if !sel.which.takes(&kind)
                || (sel.type_name.is_some() && !alloc)
                || sel.from_ms.is_some_and(|t| ev.time_ms < t)
                || sel.to_ms.is_some_and(|t| ev.time_ms > t)
                || sel.process_id.is_some_and(|p| ev.process_id != p)
            {
                return;
            }
            add(&mut self.partial, &mut self.by_stack, ev.stack, value);
            return;
        }
        self.samples.push(Sample {
            time_ms: ev.time_ms,
            process_id: ev.process_id,
            stack: ev.stack,
            kind,
            value,
        });
    }

    /// The sums of a [`summing`](Self::summing) builder's selection (empty for one made with
    /// [`new`](Self::new)), and what else it read (no samples).
    pub fn finish_sums(mut self) -> (StackSums, StackSamples) {
        let sums = sorted(
            core::mem::take(&mut self.partial),
            core::mem::take(&mut self.by_stack),
        );
        (sums, self.finish())
    }

    pub fn finish(self) -> StackSamples {
        StackSamples {
            samples: self.samples,
            types: self.types,
            stats: self.stats,
            methods: self.methods.finish(),
        }
    }
}

/// The filter of a reader for the stacks ([`crate::Consumer::Stacks`]): the method and module events
/// ([`super::methods`]), an .etl's kernel image events, and the events whose stacks are summed.
pub fn interest(provider: &str, event_id: u32, _version: u32) -> Interest {
    use crate::clr::ids::{rundown, runtime};
    let wanted = match provider {
        crate::clr::names::RUNTIME_PROVIDER => matches!(
            event_id,
            runtime::GC_ALLOCATION_TICK
                | runtime::GC_TRIGGERED
                | runtime::SET_GC_HANDLE
                | runtime::METHOD_LOAD_VERBOSE
                | runtime::MODULE_LOAD
        ),
        crate::clr::names::RUNDOWN_PROVIDER => matches!(
            event_id,
            rundown::METHOD_DC_START_VERBOSE
                | rundown::METHOD_DC_END_VERBOSE
                | rundown::MODULE_DC_START
                | rundown::MODULE_DC_END
        ),
        // An .etl's native images, which name the frames no method covers.
        crate::stacks::methods::KERNEL_PROVIDER => crate::stacks::methods::is_image_event(event_id),
        _ => false,
    };
    if wanted {
        Interest::Deliver
    } else {
        Interest::Skip
    }
}

fn is_sampled_event(ev: &Event<'_>) -> bool {
    use crate::clr::ids::runtime::{GC_ALLOCATION_TICK, GC_TRIGGERED, SET_GC_HANDLE};
    ev.provider == crate::clr::names::RUNTIME_PROVIDER
        && matches!(
            ev.event_id,
            GC_ALLOCATION_TICK | GC_TRIGGERED | SET_GC_HANDLE
        )
}
