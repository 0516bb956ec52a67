//! Decoding each runtime event once (`gc::feed`, `ModelBuilder::on_clr`, `InsightsBuilder::on_clr`)
//! builds the same GC model and insights as feeding `on_event` to both (which decode separately),
//! on every fixture trace, every reference trace, and events with malformed payloads. Allocation
//! ticks go through their digest in `gc::feed` and `ModelBuilder::on_event`, and are decoded whole
//! in `InsightsBuilder::on_event` and the `OnClr` way: so the digest is checked against the whole
//! decode for the model and for the insights.

mod common;

use gcscope_core::clr;
use gcscope_core::event::Event;
use gcscope_core::gc::{self, insights::InsightsBuilder, ModelBuilder};
use gcscope_core::TraceReader;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug)]
enum Way {
    /// `on_event` on both builders.
    Separate,
    /// `gc::feed`.
    Feed,
    /// One `clr::decode`, then `on_clr` on both; `on_event` for what does not decode.
    OnClr,
}

/// Calls its argument with every event of a trace, in order.
type Events<'s> = dyn FnMut(&mut dyn FnMut(&Event<'_>)) + 's;

fn build(events: &mut Events<'_>, way: Way) -> (String, String) {
    let mut b = ModelBuilder::new(&Default::default());
    let mut ib = InsightsBuilder::new();
    events(&mut |e: &Event<'_>| match way {
        Way::Separate => {
            b.on_event(e);
            ib.on_event(e);
        }
        Way::Feed => gc::feed(&mut b, &mut ib, e),
        Way::OnClr => match clr::decode(e) {
            Some(Ok(d)) => {
                b.on_clr(e, &d);
                ib.on_clr(e, &d);
            }
            _ => {
                b.on_event(e);
                ib.on_event(e);
            }
        },
    });
    let model = b.finish(None);
    let insights = ib.finish(&model);
    (
        serde_json::to_string(&model).expect("model to JSON"),
        serde_json::to_string(&insights).expect("insights to JSON"),
    )
}

fn check_trace(name: &str, bytes: &[u8]) {
    let mut decode = |sink: &mut dyn FnMut(&Event<'_>)| {
        let mut r = TraceReader::new();
        let _ = r.push(bytes, &mut |e| sink(e));
        let _ = r.finish(&mut |e| sink(e));
    };
    let separate = build(&mut decode, Way::Separate);
    for way in [Way::Feed, Way::OnClr] {
        let got = build(&mut decode, way);
        assert!(got.0 == separate.0, "{name}: model differs ({way:?})");
        assert!(got.1 == separate.1, "{name}: insights differ ({way:?})");
    }
}

#[test]
fn one_decode_builds_the_same_model_and_insights_on_fixtures() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let mut n = 0;
    for sub in std::fs::read_dir(&dir).expect("fixtures/traces").flatten() {
        for f in std::fs::read_dir(sub.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let p = f.path();
            if p.extension().is_some_and(|e| e == "nettrace") {
                check_trace(&p.display().to_string(), &std::fs::read(&p).expect("read"));
                n += 1;
            }
        }
    }
    assert!(n >= 5, "fixture traces missing");
}

#[test]
fn one_decode_builds_the_same_model_and_insights_on_reference_traces() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut zips = common::eventpipe_zips(&shared);
    assert!(!zips.is_empty());
    // The ETW ones too: .NET Framework's ticks, and 4-byte pointers in the x86 trace (every
    // process's events into one model: the same either way).
    let etl: Vec<_> = ["gcevents", "net.4.5.2.x64", "net.4.5.2.x86"]
        .iter()
        .map(|n| shared.join(format!("traces/perfview/{n}.etl.zip")))
        .filter(|p| p.is_file())
        .collect();
    assert_eq!(etl.len(), 3, "the ETW reference traces");
    zips.extend(etl);
    for zip in zips {
        check_trace(
            &zip.display().to_string(),
            &std::fs::read(&zip).expect("read"),
        );
    }
}

fn event<'a>(provider: &'a str, id: u32, version: u32, ms: f64, payload: &'a [u8]) -> Event<'a> {
    Event {
        provider,
        event_id: id,
        version,
        name: "GC/Test",
        timestamp: (ms * 1000.0) as i64,
        time_ms: ms,
        thread_id: 7,
        capture_thread_id: 7,
        pointer_size: 8,
        payload,
        ..Event::default()
    }
}

#[test]
fn malformed_payloads_are_counted_once_either_way() {
    let rt = clr::names::RUNTIME_PROVIDER;
    // GC/Start v1: Count, Depth, Reason, Type, ClrInstanceID; GC/Stop v1: Count, Depth, ClrInstanceID.
    let mut start = Vec::new();
    for v in [1u32, 0, 0, 0] {
        start.extend_from_slice(&v.to_le_bytes());
    }
    start.extend_from_slice(&[0, 0]);
    let mut end = Vec::new();
    for v in [1u32, 0] {
        end.extend_from_slice(&v.to_le_bytes());
    }
    end.extend_from_slice(&[0, 0]);
    // AllocationTick v2: AllocationAmount, AllocationKind, ClrInstanceID, AllocationAmount64,
    // TypeID, TypeName "T", HeapIndex.
    let mut tick = Vec::new();
    tick.extend_from_slice(&100_000u32.to_le_bytes());
    tick.extend_from_slice(&0u32.to_le_bytes());
    tick.extend_from_slice(&[0, 0]);
    tick.extend_from_slice(&100_000u64.to_le_bytes());
    tick.extend_from_slice(&0x1234u64.to_le_bytes());
    tick.extend_from_slice(&[b'T', 0, 0, 0]);
    tick.extend_from_slice(&0u32.to_le_bytes());
    // One byte longer than its layout: the model notes the extra bytes, so it is decoded whole.
    let mut long_tick = tick.clone();
    long_tick.push(0);
    // Version 3 with 4-byte pointers: TypeID and Address are 4 bytes.
    let mut tick3 = Vec::new();
    tick3.extend_from_slice(&50_000u32.to_le_bytes());
    tick3.extend_from_slice(&1u32.to_le_bytes());
    tick3.extend_from_slice(&[0, 0]);
    tick3.extend_from_slice(&50_000u64.to_le_bytes());
    tick3.extend_from_slice(&0x1234u32.to_le_bytes());
    tick3.extend_from_slice(&[b'U', 0, b'V', 0, 0, 0]);
    tick3.extend_from_slice(&3u32.to_le_bytes());
    tick3.extend_from_slice(&0x5678u32.to_le_bytes());
    let suspend = [1u8, 0, 0, 0, 1, 0, 0, 0, 0, 0];
    let events = [
        event("MyEventSource", 1, 0, 0.5, &[1, 2, 3]),
        event(rt, 9, 1, 1.0, &suspend),
        event(rt, 8, 1, 1.1, &[0, 0]),
        event(rt, 1, 1, 1.2, &start),
        event(rt, 10, 2, 1.3, &tick),
        // Truncated: payload errors for the model, nothing for the insights.
        event(rt, 1, 1, 1.4, &start[..5]),
        event(rt, 10, 2, 1.5, &tick[..9]),
        event(rt, 10, 2, 1.6, &long_tick),
        Event {
            pointer_size: 4,
            ..event(rt, 10, 3, 1.7, &tick3)
        },
        event(rt, 2, 1, 2.0, &end),
        event(rt, 3, 1, 2.5, &[0, 0]),
        // No layout: counted only.
        event(rt, 80, 1, 2.6, &[]),
    ];
    let mut feed = |sink: &mut dyn FnMut(&Event<'_>)| events.iter().for_each(&mut *sink);
    let separate = build(&mut feed, Way::Separate);
    let model: serde_json::Value = serde_json::from_str(&separate.0).unwrap();
    assert_eq!(model["process"]["payload_errors"], 2, "{}", separate.0);
    assert_eq!(model["process"]["events"], 12);
    let insights: serde_json::Value = serde_json::from_str(&separate.1).unwrap();
    assert!(separate.1.contains("\"T\""), "the tick's type: {insights}");
    assert!(
        separate.1.contains("\"UV\""),
        "the x86 tick's type: {insights}"
    );
    for way in [Way::Feed, Way::OnClr] {
        let got = build(&mut feed, way);
        assert_eq!(got.0, separate.0, "model ({way:?})");
        assert_eq!(got.1, separate.1, "insights ({way:?})");
    }
}
