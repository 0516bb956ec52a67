//! GC handles: SetGCHandle / DestroyGCHandle paired by handle id.

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::reasons::handle_kind_name;
use super::types::{HandleKindCount, HandleSummary, LiveHandle, TimePoint};
use crate::clr::enums::GcHandleKind;

/// Kinds beyond the named ones are counted in one "Unknown" slot.
const KINDS: usize = GcHandleKind::ALL.len() + 1;

#[derive(Debug, Clone)]
struct Live {
    object: u64,
    kind: u32,
    generation: u32,
    created_ms: f64,
}

#[derive(Debug, Clone, Default)]
pub struct HandleTracker {
    live: BTreeMap<u64, Live>,
    /// Type names learnt from PinObjectAtGCTime, by handle id (only for handles still live).
    type_names: BTreeMap<u64, String>,
    created: [u64; KINDS],
    destroyed: [u64; KINDS],
    destroyed_unmatched: u64,
    reused: u64,
    events: u64,
    series: Vec<TimePoint>,
}

fn slot(kind: u32) -> usize {
    (kind as usize).min(KINDS - 1)
}

impl HandleTracker {
    /// Returns false when the handle id was already live (its destroy event was missed).
    pub fn on_set(
        &mut self,
        ms: f64,
        handle: u64,
        object: u64,
        kind: u32,
        generation: u32,
    ) -> bool {
        self.events += 1;
        self.created[slot(kind)] += 1;
        let fresh = self
            .live
            .insert(
                handle,
                Live {
                    object,
                    kind,
                    generation,
                    created_ms: ms,
                },
            )
            .is_none();
        if !fresh {
            self.reused += 1;
            self.type_names.remove(&handle);
        }
        fresh
    }

    pub fn on_destroy(&mut self, _ms: f64, handle: u64) {
        self.events += 1;
        match self.live.remove(&handle) {
            Some(l) => {
                self.destroyed[slot(l.kind)] += 1;
                self.type_names.remove(&handle);
            }
            None => self.destroyed_unmatched += 1,
        }
    }

    pub fn set_type_name(&mut self, handle: u64, type_name: &str) {
        if self.live.contains_key(&handle) && !self.type_names.contains_key(&handle) {
            self.type_names.insert(handle, String::from(type_name));
        }
    }

    /// Records the live count at a GC start (only once handle events have been seen).
    pub fn sample(&mut self, ms: f64) {
        if self.events > 0 {
            self.series.push(TimePoint {
                ms,
                value: self.live.len() as u64,
            });
        }
    }

    pub fn summary(mut self, end_ms: f64) -> HandleSummary {
        let has_events = self.events > 0;
        if has_events {
            self.series.push(TimePoint {
                ms: end_ms,
                value: self.live.len() as u64,
            });
        }
        let mut alive = [0u64; KINDS];
        for l in self.live.values() {
            alive[slot(l.kind)] += 1;
        }
        let mut by_kind = Vec::new();
        for (k, &alive_k) in alive.iter().enumerate() {
            if self.created[k] + self.destroyed[k] + alive_k > 0 {
                let name = if k < KINDS - 1 {
                    handle_kind_name(k as u32)
                } else {
                    "Unknown"
                };
                by_kind.push(HandleKindCount {
                    kind: Cow::Borrowed(name),
                    created: self.created[k],
                    destroyed: self.destroyed[k],
                    alive_at_end: alive_k,
                });
            }
        }
        let type_names = &mut self.type_names;
        let alive_at_end = self
            .live
            .into_iter()
            .map(|(handle, l)| LiveHandle {
                handle,
                object: l.object,
                kind: Cow::Borrowed(handle_kind_name(l.kind)),
                generation: l.generation,
                created_ms: l.created_ms,
                type_name: type_names.remove(&handle),
            })
            .collect();
        HandleSummary {
            has_events,
            created: self.created.iter().sum(),
            destroyed: self.destroyed.iter().sum(),
            destroyed_unmatched: self.destroyed_unmatched,
            reused_without_destroy: self.reused,
            by_kind,
            live_over_time: self.series,
            alive_at_end,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_and_destroy_pair_by_handle_id() {
        let mut t = HandleTracker::default();
        assert!(t.on_set(1.0, 0x10, 0xa, 3, 0));
        assert!(t.on_set(2.0, 0x20, 0xb, 1, 2));
        t.sample(2.5);
        t.on_destroy(3.0, 0x10);
        t.on_destroy(3.5, 0x99); // created before the trace
        t.set_type_name(0x20, "System.Byte[]");
        let s = t.summary(4.0);
        assert_eq!((s.created, s.destroyed, s.destroyed_unmatched), (2, 1, 1));
        assert_eq!(
            s.live_over_time,
            [
                TimePoint { ms: 2.5, value: 2 },
                TimePoint { ms: 4.0, value: 1 }
            ]
        );
        assert_eq!(s.alive_at_end.len(), 1);
        assert_eq!(s.alive_at_end[0].kind, "WeakLong");
        assert_eq!(s.alive_at_end[0].generation, 2);
        assert_eq!(
            s.alive_at_end[0].type_name.as_deref(),
            Some("System.Byte[]")
        );
        let pinned = s.by_kind.iter().find(|k| k.kind == "Pinned").unwrap();
        assert_eq!(
            (pinned.created, pinned.destroyed, pinned.alive_at_end),
            (1, 1, 0)
        );
    }
}
