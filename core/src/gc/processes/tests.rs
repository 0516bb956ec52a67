use super::*;
use crate::clr::names::RUNTIME_PROVIDER;

/// Runtime/Start (RuntimeInformation) of a .NET 8 process whose command line is `cmd`:
/// ClrInstanceID, Sku, eight version words, StartupFlags, StartupMode, then the command line.
fn runtime_start(cmd: &str) -> Vec<u8> {
    let mut p = Vec::new();
    for w in [0u16, 2, 8, 0, 0, 0, 8, 0, 0, 0] {
        p.extend_from_slice(&w.to_le_bytes());
    }
    p.extend_from_slice(&0u32.to_le_bytes());
    p.push(0);
    for u in cmd.encode_utf16().chain([0]) {
        p.extend_from_slice(&u.to_le_bytes());
    }
    p
}

/// A machine-wide trace with two .NET processes and no GC at all.
fn router() -> ProcessRouter {
    let info = TraceInfo {
        format: "etl".into(),
        qpc_frequency: 10_000_000,
        ..TraceInfo::default()
    };
    let mut r = ProcessRouter::models_only();
    for (pid, cmd) in [(40, r#""C:\apps\Worker.exe" --fast"#), (41, "svc.exe")] {
        let payload = runtime_start(cmd);
        r.on_event(
            &info,
            &Event {
                provider: RUNTIME_PROVIDER,
                event_id: 187,
                name: "Runtime/Start",
                process_id: pid,
                payload: &payload,
                ..Event::default()
            },
        );
    }
    r
}

#[test]
fn a_process_without_gcs_is_chosen_by_pid_and_by_name() {
    let r = router();
    assert!(r.processes().is_empty(), "no process has GC events");
    assert_eq!(r.choose(&ProcessChoice::Pid(41)), Ok(41));
    // The name comes from the command line: no folder, no quotes, no `.exe`, any case.
    assert_eq!(r.choose(&ProcessChoice::Name("worker".into())), Ok(40));
    assert_eq!(r.choose(&ProcessChoice::Name("SVC".into())), Ok(41));
}

#[test]
fn an_absent_process_is_an_error_listing_those_there_are() {
    let r = router();
    let e = r
        .choose(&ProcessChoice::Pid(7))
        .expect_err("pid 7 is not there");
    assert!(
        e.starts_with("no process in the trace matches pid 7"),
        "{e}"
    );
    assert!(e.contains("Worker (pid 40): 0 GCs"), "{e}");
    assert!(e.contains("svc (pid 41): 0 GCs"), "{e}");
    let e = ProcessRouter::new()
        .choose(&ProcessChoice::Pid(7))
        .expect_err("an empty trace");
    assert!(e.contains("no .NET process"), "{e}");
}
