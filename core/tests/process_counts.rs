//! The process's event counts (`events`, `runtime_events`) against a plain count of what the
//! decoder delivers: every event, and those of the runtime's providers (public, private, rundown,
//! stress), counted by provider name without the model. The model reads its events filtered and
//! with the allocation ticks in batches, so the two paths share only the decoder.

mod common;

use gcscope_core::clr::names::is_runtime_provider;
use std::path::PathBuf;

fn traces() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).expect("fixtures/traces").flatten() {
        for f in std::fs::read_dir(dir.path())
            .expect("a runtime's fixtures")
            .flatten()
        {
            if f.path().extension().is_some_and(|x| x == "nettrace") {
                out.push(f.path());
            }
        }
    }
    if let Some(shared) = common::shared_dir() {
        out.extend(common::eventpipe_zips(&shared));
    }
    out.sort();
    out
}

#[test]
fn runtime_events_are_every_runtime_provider_event() {
    let files = traces();
    assert!(files.len() >= 10, "fixtures missing: {files:?}");
    for path in files {
        let bytes = std::fs::read(&path).expect("read trace");
        let (mut all, mut runtime) = (0u64, 0u64);
        gcscope_core::decode_all(&bytes, &mut |e| {
            all += 1;
            runtime += u64::from(is_runtime_provider(e.provider));
        })
        .expect("decode");
        let model = gcscope_core::gc::analyze(&bytes).expect("analyze");
        let name = path.file_name().unwrap().to_string_lossy();
        assert_eq!(
            model.process.runtime_events, runtime,
            "{name}: runtime events"
        );
        assert_eq!(model.process.events, all, "{name}: events");
    }
}
