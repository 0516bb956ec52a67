//! GCDynamicEvent (id 39, DATAS and the GC's other payload-named events) is named by its payload
//! in both formats: the runtime events of the DATAS fixtures, relogged by the test-only writer into
//! an .etl, come out of the ETW decoder with the names the EventPipe decoder gives them, kind by
//! kind (`GC/SizeAdaptationSample`, `GC/SizeAdaptationTuning`, ...), not one `GC/DynamicTraceEvent`.

use gcscope_core::clr::names::RUNTIME_PROVIDER;
use gcscope_core::encode::etl::{from_events, Options};
use gcscope_core::event::Event;
use std::collections::BTreeMap;
use std::path::PathBuf;

const GC_DYNAMIC_EVENT: u32 = 39;

struct Owned {
    event_id: u32,
    version: u32,
    timestamp: i64,
    thread_id: u64,
    pointer_size: u8,
    payload: Vec<u8>,
}

/// The names of `bytes`' GCDynamicEvents, counted.
fn dynamic_names(bytes: &[u8]) -> BTreeMap<String, u64> {
    let mut names = BTreeMap::new();
    gcscope_core::decode_all(bytes, &mut |e| {
        if e.provider == RUNTIME_PROVIDER && e.event_id == GC_DYNAMIC_EVENT {
            *names.entry(e.name.to_string()).or_insert(0) += 1;
        }
    })
    .expect("decode");
    names
}

#[test]
fn gc_dynamic_events_have_their_kinds_names_in_an_etl_too() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    for rt in ["net9.0", "net10.0"] {
        let bytes = std::fs::read(root.join(rt).join("datas.nettrace")).expect("fixture");
        let mut runtime = Vec::new();
        gcscope_core::decode_all(&bytes, &mut |e| {
            if e.provider == RUNTIME_PROVIDER {
                runtime.push(Owned {
                    event_id: e.event_id,
                    version: e.version,
                    timestamp: e.timestamp,
                    thread_id: e.thread_id,
                    pointer_size: e.pointer_size,
                    payload: e.payload.to_vec(),
                });
            }
        })
        .expect("decode the fixture");
        let etl = from_events(
            Options::default(),
            4242,
            runtime.iter().map(|o| Event {
                provider: RUNTIME_PROVIDER,
                event_id: o.event_id,
                version: o.version,
                timestamp: o.timestamp,
                thread_id: o.thread_id,
                pointer_size: o.pointer_size,
                payload: &o.payload,
                ..Event::default()
            }),
        );
        let eventpipe = dynamic_names(&bytes);
        let dynamic = runtime
            .iter()
            .filter(|o| o.event_id == GC_DYNAMIC_EVENT)
            .count() as u64;
        assert_eq!(eventpipe.values().sum::<u64>(), dynamic, "{rt}");
        assert!(
            eventpipe.len() >= 2 && !eventpipe.contains_key("GC/DynamicTraceEvent"),
            "{rt}: the fixture's dynamic events are of several known kinds: {eventpipe:?}"
        );
        assert_eq!(dynamic_names(&etl), eventpipe, "{rt}: the .etl's names");
    }
}
