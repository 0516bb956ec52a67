//! Tests that run inside headless Chromium (wasm-bindgen-test): the decoder compiled to wasm, fed
//! like the worker feeds it, and the app mounting. Expected numbers come from TraceEvent's reading
//! of the committed fixture, not from gcscope.
#![cfg(target_arch = "wasm32")]

use gcscope_app::worker::summary::summarize;
use gcscope_core::reader::TraceReader;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const FIXTURE: &[u8] = include_bytes!("../../fixtures/traces/net8.0/wks-concurrent.nettrace");
const TRACEEVENT: &str =
    include_str!("../../fixtures/traces/net8.0/wks-concurrent.traceevent.json");

/// GC/Start count from TraceEvent's own reading, parsed with the browser's JSON.
fn traceevent_gc_starts() -> f64 {
    let v = js_sys::JSON::parse(TRACEEVENT).expect("traceevent.json parses");
    let rows = js_sys::Reflect::get(&v, &"events".into()).expect("events key");
    let rows: js_sys::Array = rows.dyn_into().expect("events is an array");
    for row in rows.iter() {
        let get = |k: &str| js_sys::Reflect::get(&row, &k.into()).ok();
        if get("provider").and_then(|p| p.as_string()).as_deref()
            == Some("Microsoft-Windows-DotNETRuntime")
            && get("name").and_then(|p| p.as_string()).as_deref() == Some("GC/Start")
        {
            return get("count").and_then(|c| c.as_f64()).expect("count");
        }
    }
    panic!("no GC/Start row in traceevent.json");
}

#[wasm_bindgen_test]
fn decoder_in_wasm_counts_the_same_gcs_as_traceevent_in_odd_sized_chunks() {
    // Filtered as the worker reads: counts come from the reader, delivered or not.
    let mut reader = TraceReader::new().with_filter(gcscope_core::gc::interest);
    // 65,521 is prime: chunk edges fall everywhere, as with Blob.slice of any size.
    for chunk in FIXTURE.chunks(65_521) {
        reader.push(chunk, &mut |_| {}).expect("decodes");
    }
    reader.finish(&mut |_| {}).expect("finishes");
    let result = summarize(&reader, "wks-concurrent.nettrace", FIXTURE.len() as f64);
    assert_eq!(result.gc_starts, traceevent_gc_starts());
    assert!(!result.format.is_empty());
}

#[wasm_bindgen_test]
fn app_mounts_and_shows_the_empty_state() {
    leptos::mount::mount_to_body(gcscope_app::App);
    let doc = web_sys::window().unwrap().document().unwrap();
    let h2 = doc
        .query_selector(".empty h2")
        .unwrap()
        .expect("empty state heading");
    assert!(h2.text_content().unwrap().contains("Drop a .nettrace"));
    assert!(doc.get_element_by_id("file-input").is_some());
}

/// What the worker does, in wasm: decode in chunks, feed the model, post the settled rows in
/// batches and the model at the end, through serde-wasm-bindgen both ways (as the real messages).
#[wasm_bindgen_test]
fn worker_messages_carry_streamed_rows_and_the_model_through_structured_clone() {
    use gcscope_app::protocol::{Analysis, ToUi};
    use gcscope_core::event::TraceInfo;
    use gcscope_core::gc::ModelBuilder;
    let mut reader = TraceReader::new();
    let mut model = ModelBuilder::new(&TraceInfo::default());
    let mut streamed = Vec::new();
    let mut store = gcscope_app::state::heap_store::HeapStore::default();
    for chunk in FIXTURE.chunks(65_521) {
        reader
            .push(chunk, &mut |ev| model.on_event(ev))
            .expect("decodes");
        let settled = model.completed_gcs();
        if settled.len() > streamed.len() {
            let msg = ToUi::gcs(settled[streamed.len()..].to_vec());
            let back: ToUi = serde_wasm_bindgen::from_value(
                serde_wasm_bindgen::to_value(&msg).expect("serializes"),
            )
            .expect("deserializes");
            match back {
                ToUi::Gcs { rows, heaps } => {
                    streamed.extend(rows);
                    store.push(heaps);
                }
                _ => panic!("wrong message"),
            }
        }
    }
    reader
        .finish(&mut |ev| model.on_event(ev))
        .expect("finishes");
    let m = model.finish(Some(reader.stats()));
    assert!(!streamed.is_empty(), "rows are streamed before the end");
    assert_eq!(m.gcs.len() as f64, traceevent_gc_starts());
    // Streamed rows are the final rows' GCs, in order.
    let nums: Vec<u32> = m
        .gcs
        .iter()
        .map(|g| g.number)
        .take(streamed.len())
        .collect();
    assert_eq!(streamed.iter().map(|g| g.number).collect::<Vec<_>>(), nums);
    // Their per-heap histories came packed beside them, each GC's own.
    assert_eq!(store.len(), streamed.len());
    for (i, g) in m.gcs.iter().take(streamed.len()).enumerate() {
        assert!(streamed[i].heaps.is_empty());
        assert_eq!(store.unpack(i), g.heaps, "GC {}", g.number);
    }
    assert!(m.gcs.iter().any(|g| !g.heaps.is_empty()));
    let done = ToUi::Done(Box::new(Analysis {
        model: Some(m.clone()),
        ..Default::default()
    }));
    let back: ToUi =
        serde_wasm_bindgen::from_value(serde_wasm_bindgen::to_value(&done).expect("serializes"))
            .expect("deserializes");
    match back {
        ToUi::Done(a) => assert_eq!(a.model.as_ref(), Some(&m)),
        _ => panic!("wrong message"),
    }
}

/// The GC table's filtering and sorting over 100,000 rows (the fixture's GCs repeated), in wasm:
/// what the UI recomputes when a filter or sort changes. Only the visible rows are then rendered.
#[wasm_bindgen_test]
fn filter_and_sort_of_100_000_rows_stays_interactive() {
    use gcscope_app::state::filter::{visible_rows, Filter};
    use gcscope_app::tables::Sort;
    let model = gcscope_core::gc::analyze(FIXTURE).expect("analyzes");
    let mut rows = Vec::with_capacity(100_000);
    for i in 0..100_000u32 {
        let mut g = model.gcs[i as usize % model.gcs.len()].clone();
        g.number = i + 1;
        g.start_ms += i as f64;
        rows.push(g);
    }
    let sort = Sort {
        column: "pause_ms".into(),
        desc: true,
    };
    let t = js_sys::Date::now();
    let all = visible_rows(
        &rows,
        &|_| &[],
        &Filter::default(),
        Some(&sort),
        &Default::default(),
    );
    let sorted_ms = js_sys::Date::now() - t;
    assert_eq!(all.len(), 100_000);
    let p = |i: u32| rows[i as usize].pause_ms.unwrap_or(-1.0);
    assert!(
        all.windows(2).all(|w| p(w[0]) >= p(w[1])),
        "sorted by pause, descending"
    );
    let t = js_sys::Date::now();
    let f = Filter {
        gens: vec![1],
        min_pause_ms: Some(1.0),
        ..Default::default()
    };
    let some = visible_rows(&rows, &|_| &[], &f, Some(&sort), &Default::default());
    let filtered_ms = js_sys::Date::now() - t;
    let want = rows
        .iter()
        .filter(|g| g.gen == 1 && g.pause_ms.is_some_and(|p| p >= 1.0))
        .count();
    assert_eq!(some.len(), want);
    web_sys::console::log_1(
        &format!("100,000 rows: sort {sorted_ms} ms, filter+sort {filtered_ms} ms").into(),
    );
    // Debug-built wasm; the release build is several times faster.
    assert!(
        sorted_ms < 3000.0 && filtered_ms < 3000.0,
        "sort {sorted_ms} ms, filter {filtered_ms} ms"
    );
}

/// The tab list: every tab under its own key, each key back from the address to its tab, and an
/// unknown or default key to the first (the address then leaves `tab` out).
#[wasm_bindgen_test]
fn every_tab_round_trips_under_its_own_key() {
    use gcscope_app::state::view_state::ViewState;
    use gcscope_app::views::{self, TABS};
    let mut keys: Vec<&str> = TABS.iter().map(|t| t.key).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), TABS.len(), "tab keys are distinct");
    for t in TABS {
        let v = ViewState {
            tab: views::key_of(t),
            ..Default::default()
        };
        let mut back = ViewState::from_query(&v.to_query());
        views::normalize(&mut back);
        assert_eq!(views::current(back.tab.as_deref()).key, t.key);
        assert_eq!(back, v, "{}", t.key);
    }
    assert_eq!(views::current(Some("allocs")).title, "Allocations");
    for q in ["tab=nope", "tab=overview", "", "tab="] {
        let mut v = ViewState::from_query(q);
        views::normalize(&mut v);
        assert_eq!(v.tab, None, "{q}");
        assert_eq!(views::current(v.tab.as_deref()).key, "overview", "{q}");
        assert_eq!(v.to_query(), "", "{q}");
    }
}
