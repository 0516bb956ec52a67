//! A trace read for the heap walk it holds: the GCBulk events a runtime writes while it walks the
//! heap during an induced gen2 GC (the heap-dump keywords, as `gcscope gcdump` and dotnet-gcdump
//! ask), assembled into a graph by [`crate::heap::HeapWalkBuilder`]. The CLI's `heap` commands and
//! the app's Heap tab open a trace with this, as they open a `.gcdump`.
//!
//! Here rather than in `heap` because it drives a [`TraceReader`], which sits above the heap module
//! in the layers.

use super::TraceReader;
use crate::error::Error;
use crate::heap::{HeapWalk, HeapWalkBuilder, SnapshotInfo};
use alloc::format;

/// Reads a trace a chunk at a time for its first heap walk.
#[derive(Default)]
pub struct WalkReader {
    reader: TraceReader,
    walk: HeapWalkBuilder,
    /// The decoder's error; the events before it were fed.
    cut: Option<Error>,
}

impl WalkReader {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next bytes of the trace. After an error the rest is ignored: [`Self::finish`]
    /// reports it, beside the walk read up to there.
    pub fn push(&mut self, chunk: &[u8]) {
        if self.cut.is_some() {
            return;
        }
        let walk = &mut self.walk;
        if let Err(e) = self.reader.push(chunk, &mut |e| walk.on_event(e)) {
            self.cut = Some(e);
        }
    }

    /// Whether the walk's GC has ended: the rest of the trace adds nothing to it, so a caller
    /// may stop reading.
    pub fn walk_ended(&self) -> bool {
        self.walk.walk_ended()
    }

    /// The walk, if the trace has one; a trace cut short before the walk's end keeps what was
    /// read and says so in the walk's report. An error only for bytes that are no trace at all
    /// (nothing decoded). Once the walk has ended the rest of the trace is not needed: what the
    /// reader still holds is later (it delivers in time order), and bytes never pushed are not
    /// missed.
    pub fn finish(mut self) -> Result<Option<HeapWalk>, Error> {
        if self.cut.is_none() && !self.walk.walk_ended() {
            let walk = &mut self.walk;
            self.cut = self.reader.finish(&mut |e| walk.on_event(e)).err();
        }
        let info = SnapshotInfo {
            process_id: self.reader.info().map_or(0, |i| i.process_id as i32),
            ..Default::default()
        };
        match (self.walk.finish(info), self.cut) {
            (Some(mut w), cut) => {
                if let Some(e) = cut {
                    w.report
                        .bad
                        .insert(0, format!("the trace is cut short: {e}"));
                    w.report.bad_events += 1;
                }
                Ok(Some(w))
            }
            (None, Some(e)) if self.reader.info().is_none() => Err(e),
            (None, _) => Ok(None),
        }
    }
}

/// The first heap walk of a whole trace's bytes (`.nettrace`, `.etl`, zipped or not), if it has
/// one: [`WalkReader`] over the bytes.
pub fn heap_walk(bytes: &[u8]) -> Result<Option<HeapWalk>, Error> {
    let mut r = WalkReader::new();
    for chunk in bytes.chunks(1 << 20) {
        r.push(chunk);
        if r.walk_ended() {
            break;
        }
    }
    r.finish()
}
