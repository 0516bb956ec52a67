//! A live stream (an EventPipe session read from the runtime's socket as it grows): the reader is
//! fed chunk after chunk and told at each pause to deliver what it holds (`TraceReader::release`),
//! and the model shows each GC as it ends (`ModelBuilder::closed_gcs`), before any end tag. Checked
//! on the real traces of the four runtimes against the runtimes' own collection counts, and against
//! a whole read of the same file where the cuts cannot reorder events.

use gcscope_core::gc::ModelBuilder;
use gcscope_core::ticks::Consumer;
use gcscope_core::TraceReader;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn traces() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let mut out = Vec::new();
    for rt in ["netcore3.1", "net8.0", "net9.0", "net10.0"] {
        for w in ["wks-nonconcurrent", "wks-concurrent", "induced", "server"] {
            let p = dir.join(rt).join(format!("{w}.nettrace"));
            if p.is_file() {
                out.push(p);
            }
        }
    }
    out
}

/// The model's JSON from one whole read.
fn whole(bytes: &[u8]) -> String {
    let mut r = TraceReader::new().with_consumer(Consumer::Model);
    let mut b = ModelBuilder::new(&Default::default());
    let mut have_info = false;
    let _ = r.push_with_info(bytes, &mut |info, e| {
        if !have_info {
            b.set_info(info);
            have_info = true;
        }
        b.on_event(e)
    });
    let _ = r.finish(&mut |e| b.on_event(e));
    serde_json::to_string(&b.finish(Some(r.stats()))).expect("model JSON")
}

#[test]
fn gcs_show_as_they_end_in_a_growing_stream() {
    let list = traces();
    assert!(!list.is_empty(), "no fixture traces");
    for path in list {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).expect("read trace");
        let oracle: serde_json::Value = serde_json::from_slice(
            &std::fs::read(path.with_extension("oracle.json")).expect("oracle"),
        )
        .expect("oracle JSON");
        let count = oracle["collection_count"]["gen0"]
            .as_u64()
            .expect("gen0 count") as u32;
        let skipped: BTreeSet<u32> = oracle["no_gc_region"]["gcs_without_gcstart"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_u64())
                    .map(|v| v as u32)
                    .collect()
            })
            .unwrap_or_default();

        let mut r = TraceReader::new().with_consumer(Consumer::Model);
        let mut b = ModelBuilder::new(&Default::default());
        // GC numbers in the order they closed, each once, before the stream ended.
        let mut shown: Vec<u32> = Vec::new();
        let mut seen = BTreeSet::new();
        let mut have_info = false;
        for chunk in bytes.chunks(4096) {
            r.push(chunk, &mut |e| b.on_event(e)).expect("push");
            if let (false, Some(info)) = (have_info, r.info()) {
                b.set_info(info);
                have_info = true;
            }
            r.release(&mut |e| b.on_event(e));
            for g in b.closed_gcs() {
                if seen.insert(g.number) {
                    shown.push(g.number);
                }
            }
        }
        // Every GC the runtime counted closed before the end, but the one the process may have
        // been in when the session ended.
        let want: Vec<u32> = (1..=count).filter(|n| !skipped.contains(n)).collect();
        let mut sorted = shown.clone();
        sorted.sort_unstable();
        let missing: Vec<u32> = want.iter().copied().filter(|n| !seen.contains(n)).collect();
        assert!(
            missing.len() <= 1,
            "{name}: GCs not shown before the end: {missing:?}"
        );
        assert!(
            sorted.iter().all(|n| want.contains(n)),
            "{name}: a GC the runtime did not count: {sorted:?}"
        );
        // Blocking GCs close in number order (only a background GC closes after later ones).
        let blocking: Vec<u32> = b
            .gcs()
            .iter()
            .filter(|g| g.gc_type.name() != "Background")
            .map(|g| g.number)
            .collect();
        let shown_blocking: Vec<u32> = shown
            .iter()
            .copied()
            .filter(|n| blocking.contains(n))
            .collect();
        assert!(
            shown_blocking.windows(2).all(|w| w[0] < w[1]),
            "{name}: out of order: {shown_blocking:?}"
        );

        r.finish(&mut |e| b.on_event(e)).expect("finish");
        let live = serde_json::to_string(&b.finish(Some(r.stats()))).expect("model JSON");
        // Cut anywhere, a release can come mid-flush, where another thread's earlier events are
        // still to come (a background GC's thread and the allocating one): only a trace whose GC
        // events come from one thread reads the same whatever the cuts. The runtime's pauses come
        // between its flushes (docs/reference/formats.md, "Diagnostics IPC").
        if name.contains("wks-nonconcurrent") {
            assert!(
                live == whole(&bytes),
                "{name}: the live read's model differs from a whole read's"
            );
        }
    }
}
