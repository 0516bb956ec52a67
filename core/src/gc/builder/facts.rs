//! Events that add facts to the GC in progress or to the process: pinned objects and plugs, mark
//! roots, allocation ticks, GC handles, GC settings and payload bytes past a known layout.

use super::ModelBuilder;
use crate::gc::types::{PinnedObject, PinnedPlug, RootMarks};
use alloc::format;
use alloc::string::String;

impl ModelBuilder {
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

    /// A GCBulkNode event: the GC in progress walks the heap (the first such GC is kept).
    pub(crate) fn on_heap_walk(&mut self) {
        if self.process.heap_walk_gc.is_none() {
            if let Some(c) = self.current() {
                self.process.heap_walk_gc = Some(self.gcs[c].number);
            }
        }
    }

    pub(crate) fn on_allocation_tick(&mut self, bytes: u64, kind: u32) {
        self.has_alloc_ticks = true;
        self.mode.on_verbose_gc();
        let k = (kind as usize).min(2);
        self.alloc_tick_total[k] = self.alloc_tick_total[k].saturating_add(bytes);
    }

    /// [`on_allocation_tick`](Self::on_allocation_tick) of several ticks, their bytes summed per
    /// kind (at least one tick).
    pub(crate) fn on_allocation_ticks(&mut self, bytes_by_kind: &[u64; 3]) {
        self.has_alloc_ticks = true;
        self.mode.on_verbose_gc();
        for (t, b) in self.alloc_tick_total.iter_mut().zip(bytes_by_kind) {
            *t = t.saturating_add(*b);
        }
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
}
