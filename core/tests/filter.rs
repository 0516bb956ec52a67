//! The reader's consumer filter (`TraceReader::set_filter`, `gc::interest`): skipped events are
//! counted exactly as an unfiltered run counts the events it delivers (per Provider/EventName,
//! totals, first and last time), the delivered ones are the same events in the same order, and the
//! GC model and insights built from a reader filtered with `gc::interest` are identical to those of
//! an unfiltered one, on every fixture trace and every EventPipe reference trace. Per-name counts are
//! also checked against TraceEvent's baselines where the unfiltered decoder agrees with them
//! (baselines.rs says why the others differ).

mod common;

use gcscope_core::event::Event;
use gcscope_core::gc::{self, insights::InsightsBuilder, ModelBuilder};
use gcscope_core::{DecodeStats, Interest, TraceReader};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// (timestamp, provider, event id, name, thread, payload length) of a delivered event.
type Seen = (i64, String, u32, String, u64, usize);

/// What one run saw.
struct Run {
    /// Provider/EventName -> count: counted from delivered events (unfiltered) or taken from
    /// `event_counts` (filtered).
    counts: BTreeMap<String, u64>,
    /// Every delivered event, in order.
    delivered: Vec<Seen>,
    first_ms: Option<f64>,
    last_ms: Option<f64>,
    stats: DecodeStats,
    model: String,
    insights: String,
    result: Result<(), String>,
}

fn key(provider: &str, name: &str) -> String {
    format!("{provider}/{name}")
}

fn run(bytes: &[u8], chunk: usize, filter: Option<fn(&str, u32, u32) -> Interest>) -> Run {
    let mut reader = TraceReader::new();
    if let Some(f) = filter {
        reader.set_filter(f);
    }
    let mut b = ModelBuilder::new(&Default::default());
    let mut ib = InsightsBuilder::new();
    let mut counts = BTreeMap::new();
    let mut delivered = Vec::new();
    let (mut first_ms, mut last_ms) = (None, None::<f64>);
    let mut sink = |e: &Event<'_>| {
        b.on_event(e);
        ib.on_event(e);
        *counts.entry(key(e.provider, e.name)).or_insert(0u64) += 1;
        delivered.push((
            e.timestamp,
            e.provider.to_string(),
            e.event_id,
            e.name.to_string(),
            e.thread_id,
            e.payload.len(),
        ));
        first_ms.get_or_insert(e.time_ms);
        last_ms = Some(last_ms.map_or(e.time_ms, |l| l.max(e.time_ms)));
    };
    let mut result = Ok(());
    for piece in bytes.chunks(chunk) {
        if let Err(e) = reader.push(piece, &mut sink) {
            result = Err(e.to_string());
            break;
        }
    }
    if result.is_ok() {
        result = reader.finish(&mut sink).map_err(|e| e.to_string());
    }
    if let Some(info) = reader.info() {
        b.set_info(info);
    }
    let model = b.finish(Some(reader.stats()));
    let insights = ib.finish(&model);
    if filter.is_some() {
        counts.clear();
        for c in reader.event_counts() {
            *counts.entry(key(c.provider, c.name)).or_insert(0) += c.count;
        }
    }
    Run {
        counts,
        delivered,
        first_ms,
        last_ms,
        stats: reader.stats().clone(),
        model: serde_json::to_string(&model).expect("model to JSON"),
        insights: serde_json::to_string(&insights).expect("insights to JSON"),
        result,
    }
}

fn skip_all(_: &str, _: u32, _: u32) -> Interest {
    Interest::Skip
}

/// Checks one trace; returns how many events the GC filter skipped.
fn check(name: &str, bytes: &[u8], chunk: usize) -> u64 {
    let plain = run(bytes, chunk, None);
    let gc = run(bytes, chunk, Some(gc::interest));
    let none = run(bytes, chunk, Some(skip_all));
    assert_eq!(plain.result, gc.result, "{name}: result");
    assert_eq!(plain.result, none.result, "{name}: result (skip all)");
    assert_eq!(plain.stats.filtered_events, 0, "{name}");
    assert!(plain.stats.filtered_by_provider.is_empty(), "{name}");

    // The unfiltered reader's own counts agree with what its sink saw.
    let mut reader = TraceReader::new();
    reader.push(bytes, &mut |_| {}).ok();
    reader.finish(&mut |_| {}).ok();
    let mut own = BTreeMap::new();
    for c in reader.event_counts() {
        *own.entry(key(c.provider, c.name)).or_insert(0) += c.count;
    }
    assert_eq!(own, plain.counts, "{name}: unfiltered event_counts");
    assert_eq!(plain.stats.first_event_ms, plain.first_ms, "{name}");
    assert_eq!(plain.stats.last_event_ms, plain.last_ms, "{name}");

    for (what, r) in [("gc::interest", &gc), ("skip all", &none)] {
        assert_eq!(r.counts, plain.counts, "{name} ({what}): counts per name");
        assert_eq!(
            r.stats.events, plain.stats.events,
            "{name} ({what}): events"
        );
        assert_eq!(
            r.stats.events - r.stats.filtered_events,
            r.delivered.len() as u64,
            "{name} ({what}): delivered"
        );
        let by_provider: u64 = r.stats.filtered_by_provider.iter().map(|p| p.1).sum();
        assert_eq!(by_provider, r.stats.filtered_events, "{name} ({what})");
        assert_eq!(
            r.stats.first_event_ms, plain.first_ms,
            "{name} ({what}): first event time"
        );
        assert_eq!(
            r.stats.last_event_ms, plain.last_ms,
            "{name} ({what}): last event time"
        );
        assert_eq!(r.stats.dropped_events, plain.stats.dropped_events, "{name}");
        assert_eq!(r.stats.skipped_events, plain.stats.skipped_events, "{name}");
    }
    assert!(
        none.delivered.is_empty(),
        "{name}: skip all delivered events"
    );
    assert_eq!(none.stats.filtered_events, plain.stats.events, "{name}");

    // The delivered events are the wanted ones of the unfiltered run, in the same order.
    let wanted: Vec<&Seen> = plain
        .delivered
        .iter()
        .filter(|e| gc::wants(&e.1, e.2))
        .collect();
    let got: Vec<&Seen> = gc.delivered.iter().collect();
    assert!(got == wanted, "{name}: delivered events differ");
    assert_eq!(
        gc.model, plain.model,
        "{name}: GC model differs with the filter"
    );
    assert_eq!(
        gc.insights, plain.insights,
        "{name}: insights differ with the filter"
    );
    gc.stats.filtered_events
}

fn fixture_traces() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let mut out = Vec::new();
    for sub in std::fs::read_dir(&dir).expect("fixtures/traces").flatten() {
        for f in std::fs::read_dir(sub.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let p = f.path();
            if p.extension().is_some_and(|e| e == "nettrace") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn filtered_reader_counts_and_models_like_the_unfiltered_one_on_fixtures() {
    let traces = fixture_traces();
    assert!(traces.len() >= 5, "fixture traces missing");
    let mut skipped = 0;
    for p in &traces {
        let bytes = std::fs::read(p).expect("read fixture");
        skipped += check(&p.display().to_string(), &bytes, 1 << 20);
    }
    assert!(
        skipped > 0,
        "the GC filter skipped nothing: the test would not test it"
    );
}

#[test]
fn filtered_reader_counts_and_models_like_the_unfiltered_one_on_reference_traces() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let zips = common::eventpipe_zips(&shared);
    assert!(!zips.is_empty());
    for zip in zips {
        let bytes = std::fs::read(&zip).expect("read zip");
        // Odd chunks: units and blocks cut everywhere.
        check(&zip.display().to_string(), &bytes, 64 * 1024 + 7);
    }
}

#[test]
fn skipped_counts_match_traceevent_baselines() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut compared = 0;
    for zip in common::eventpipe_zips(&shared) {
        let file = zip.file_name().unwrap().to_string_lossy().into_owned();
        let base = file.trim_end_matches(".zip");
        let baseline = zip.with_file_name(format!("{base}.baseline.txt"));
        let Ok(text) = std::fs::read_to_string(&baseline) else {
            continue;
        };
        let bytes = std::fs::read(&zip).expect("read zip");
        let plain = run(&bytes, 1 << 20, None);
        let none = run(&bytes, 1 << 20, Some(skip_all));
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        for line in text.lines() {
            let mut parts = line.splitn(3, ", ");
            let (Some(name), Some(count)) = (parts.next(), parts.next()) else {
                continue;
            };
            let Ok(count) = count.trim().parse::<u64>() else {
                continue;
            };
            // Where the decoder agrees with TraceEvent, counting without delivering agrees too.
            if plain.counts.get(name) == Some(&count) {
                assert_eq!(none.counts.get(name), Some(&count), "{file}: {name}");
                compared += 1;
            }
        }
    }
    assert!(compared > 50, "only {compared} baseline lines compared");
}

#[test]
fn a_filter_keeps_errors_and_their_offsets() {
    let p = &fixture_traces()[0];
    let bytes = std::fs::read(p).expect("read fixture");
    for cut in [100, bytes.len() / 3, bytes.len() - 5] {
        let plain = run(&bytes[..cut], 4096, None);
        let gc = run(&bytes[..cut], 4096, Some(gc::interest));
        assert!(plain.result.is_err(), "cut at {cut}");
        assert_eq!(plain.result, gc.result, "cut at {cut}");
        assert_eq!(plain.model, gc.model, "cut at {cut}");
    }
    let mut damaged = bytes.clone();
    let mid = damaged.len() / 2;
    damaged[mid..mid + 64].fill(0xff);
    let plain = run(&damaged, 4096, None);
    let gc = run(&damaged, 4096, Some(gc::interest));
    assert_eq!(plain.result, gc.result);
}
