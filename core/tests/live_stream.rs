//! A live stream (an EventPipe session read from the runtime's socket as it grows): the reader is
//! fed chunk after chunk and told at each pause to deliver what it holds (`TraceReader::release`),
//! and the model shows each GC as it ends (`ModelBuilder::closed_gcs`), before any end tag. Checked
//! on the real traces of the four runtimes against the runtimes' own collection counts, and against
//! a whole read of the same file where the cuts cannot reorder events.

use gcscope_core::gc::{ModelBuilder, ProcessRouter};
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

/// The live read of `bytes` in `cuts` chunks (each chunk released, the last finished) up to and
/// including chunk `upto`, routed by a router that drains nothing and snapshots nothing.
fn read_to(bytes: &[u8], cuts: usize, upto: usize) -> ProcessRouter {
    let mut r = TraceReader::new().with_consumer(Consumer::ModelAndInsights);
    let mut router = ProcessRouter::bounded();
    let chunks: Vec<&[u8]> = bytes.chunks(bytes.len() / cuts + 1).collect();
    for (i, chunk) in chunks.iter().enumerate().take(upto + 1) {
        let mut sink = |info: &gcscope_core::event::TraceInfo,
                        e: &gcscope_core::event::Event<'_>| {
            router.on_event(info, e)
        };
        r.push_with_info(chunk, &mut sink).expect("push");
        if i + 1 == chunks.len() {
            r.finish_with_info(&mut sink).expect("finish");
        } else {
            r.release_with_info(&mut sink);
        }
    }
    router
}

/// The paths where two JSON documents differ (for the failure message).
fn differing(a: &str, b: &str) -> Vec<String> {
    fn walk(a: &serde_json::Value, b: &serde_json::Value, at: String, out: &mut Vec<String>) {
        match (a, b) {
            (serde_json::Value::Object(x), serde_json::Value::Object(y)) => {
                for (k, v) in x {
                    match y.get(k) {
                        Some(w) => walk(v, w, format!("{at}.{k}"), out),
                        None => out.push(format!("{at}.{k}")),
                    }
                }
            }
            _ if a != b => out.push(format!("{at}: {a} vs {b}")),
            _ => {}
        }
    }
    let (a, b) = (
        serde_json::from_str(a).expect("JSON"),
        serde_json::from_str(b).expect("JSON"),
    );
    let mut out = Vec::new();
    walk(&a, &b, String::new(), &mut out);
    out
}

/// The model without its rows, as JSON, and its rows' numbers.
fn split(mut m: gcscope_core::gc::GcModel) -> (String, Vec<u32>) {
    let rows = m.gcs.drain(..).map(|g| g.number).collect();
    (serde_json::to_string(&m).expect("model JSON"), rows)
}

/// A live page shows the findings and the trace's facts as the session grows: the worker takes a
/// snapshot of the process's builders (`ProcessRouter::snapshot`) every few seconds while it reads
/// on, after handing the settled rows out and letting them go. Each snapshot must be the model a
/// fresh read of the events so far gives, by brute force: the summaries over every GC, drained
/// ones included, and the rows not yet drained; its insights builder the fresh one's.
#[test]
fn a_snapshot_mid_stream_is_the_model_of_the_events_so_far() {
    let list = traces();
    assert!(!list.is_empty(), "no fixture traces");
    let (mut mid_stream, mut any_drained) = (0, false);
    for path in list {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).expect("read trace");
        let mut r = TraceReader::new().with_consumer(Consumer::ModelAndInsights);
        let mut router = ProcessRouter::bounded();
        let mut pid = None;
        let mut delivered = 0usize;
        let mut drained = 0usize;
        let mut checked = 0;
        let cuts = 6;
        let chunks: Vec<&[u8]> = bytes.chunks(bytes.len() / cuts + 1).collect();
        for (i, chunk) in chunks.iter().enumerate() {
            let mut sink = |info: &gcscope_core::event::TraceInfo,
                            e: &gcscope_core::event::Event<'_>| {
                pid.get_or_insert(e.process_id);
                router.on_event(info, e);
                delivered += 1;
            };
            r.push_with_info(chunk, &mut sink).expect("push");
            if i + 1 == chunks.len() {
                r.finish_with_info(&mut sink).expect("finish");
            } else {
                r.release_with_info(&mut sink);
            }
            let Some(p) = pid else { continue };
            if let Some(b) = router.model_mut(p) {
                drained += b.drain_completed().len();
            }
            let (model, insights) = router.snapshot(p, None).expect("snapshot");
            let (want_model, want_insights) = read_to(&bytes, cuts, i)
                .finish_parts(p, None)
                .expect("the fresh read's process");
            let full = want_model.clone();
            let (got, got_rows) = split(model);
            let (want, want_rows) = split(want_model);
            assert!(
                got == want,
                "{name}, after {delivered} events: the snapshot's summaries differ from a fresh \
                 read's in {:?}",
                differing(&got, &want)
            );
            assert_eq!(
                got_rows,
                want_rows[drained.min(want_rows.len())..],
                "{name}, after {delivered} events: the rows not yet drained"
            );
            let json = |i: gcscope_core::gc::insights::InsightsBuilder| {
                serde_json::to_string(&i.finish(&full)).expect("insights JSON")
            };
            assert!(
                json(insights) == json(want_insights),
                "{name}, after {delivered} events: the snapshot's insights differ from a fresh read's"
            );
            checked += 1;
        }
        assert!(checked >= 1, "{name}: no snapshot checked");
        mid_stream += checked - 1;
        any_drained |= drained > 0;
    }
    // Snapshots before the end, and across rows already let go, were among them.
    assert!(mid_stream >= 10, "{mid_stream} snapshots before the end");
    assert!(
        any_drained,
        "no row was drained, so nothing was checked across it"
    );
}
