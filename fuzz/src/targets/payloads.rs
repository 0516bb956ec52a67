//! Typed runtime payload decoders: any (provider, id, version, pointer size, payload). Decoded
//! events are serialized, which walks every lazily decoded array and string. The same events
//! also feed a heap-walk builder, whose graph must be one the snapshot views, the `.gcdump`
//! writer and its reader take.

use super::super::records;
use gcscope_core::clr;
use gcscope_core::heap::{read_gcdump, write_gcdump, HeapWalkBuilder, Snapshot, SnapshotInfo};

/// One execution: what the `payloads` fuzz target runs on each input.
pub fn run(data: &[u8]) {
    let mut walk = HeapWalkBuilder::new();
    for r in records(data).take(64) {
        let ev = r.event(1.0);
        let _ = clr::event_name_for(&ev);
        if let Some(Ok(decoded)) = clr::decode(&ev) {
            let _ = serde_json::to_vec(&decoded);
        }
        walk.on_event(&ev);
    }
    if let Some(w) = walk.finish(SnapshotInfo::default()) {
        let _ = w.report.warnings();
        let back = read_gcdump(&write_gcdump(&w.graph)).expect("a written graph reads back");
        assert_eq!(back.edges, w.graph.edges);
        let s = Snapshot::new(w.graph);
        let _ = s.types();
        s.roots();
    }
}
