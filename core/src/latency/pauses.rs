//! The pauses the latency figures are computed from, taken from the GC rows as they settle: one
//! small record per complete GC (its kind, pause start and length) and the stretches of time the
//! program was stopped. 40-60 bytes a GC, so a consumer that drops rows as they settle (`gcscope
//! summary`, the app's worker) can keep them for 100,000s of GCs.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::types::{PauseKind, TimeRange};
use crate::gc::{Gc, GcType, PauseSpan};

/// One complete GC's pause.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pause {
    pub number: u32,
    pub kind: PauseKind,
    /// The pause start (the GC's `start_ms`).
    pub start_ms: f64,
    /// The GC's `pause_ms` (a background GC's pauses added up).
    pub pause_ms: f64,
}

/// The pauses of a trace's complete GCs, in GC order, and every stretch they stopped the program.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PauseLog {
    pub pauses: Vec<Pause>,
    /// Each pause's stretches of time (one per blocking GC, each pause of a background GC), in
    /// the order the GCs came: a background GC's later pauses come after the GCs that ran during it.
    pub spans: Vec<PauseSpan>,
}

impl PauseLog {
    pub fn from_gcs<'a>(gcs: impl IntoIterator<Item = &'a Gc>) -> PauseLog {
        let mut log = PauseLog::default();
        for gc in gcs {
            log.add(gc);
        }
        log
    }

    /// Takes one GC row: a complete GC with a known pause, as the rollups count complete GCs (a GC
    /// whose pause start is not in the trace has no pause to count).
    pub fn add(&mut self, gc: &Gc) {
        let Some(pause_ms) = gc.pause_ms.filter(|_| gc.complete) else {
            return;
        };
        self.pauses.push(Pause {
            number: gc.number,
            kind: PauseKind::of(gc),
            start_ms: gc.start_ms,
            pause_ms,
        });
        if gc.gc_type == GcType::Background && !gc.bgc_pauses.is_empty() {
            self.spans.extend_from_slice(&gc.bgc_pauses);
        } else {
            self.spans.push(PauseSpan {
                start_ms: gc.start_ms,
                end_ms: gc.start_ms + pause_ms,
            });
        }
    }

    /// The pauses that started in `range`, in GC order.
    pub fn in_range(&self, range: TimeRange) -> impl Iterator<Item = &Pause> {
        self.pauses
            .iter()
            .filter(move |p| range.contains(p.start_ms))
    }
}
