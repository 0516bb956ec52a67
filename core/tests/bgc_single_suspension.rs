//! Background GCs that the runtime runs inside one suspension: which pause is true, told from the
//! raw events (issue 44, item 9; docs/reference/model.md, "Differences from PerfView / TraceEvent",
//! 5).
//!
//! On .NET 9 and 10 (and in some workstation traces) a background GC can run from its SuspendEE to
//! its GC/Stop without restarting the runtime once. TraceEvent 3.1.3 then reports the suspension
//! alone as the pause (about 0.01 ms); gcscope reports the time to the RestartEE after the GC
//! (up to ~100 ms). The raw events decide it, without gcscope's model:
//! * the runtime resumes managed threads only by a RestartEE, and there is none between the GC's
//!   SuspendEEStart and its GC/Stop;
//! * no thread allocated while it ran: no AllocationTick between the SuspendEEStop and the
//!   RestartEEStart, although the workload's threads allocate on both sides of it.
//!
//! So the application's threads were stopped for the whole GC, and the test also checks that the
//! model's pause is exactly that span and that TraceEvent's is only the suspension.
//!
//! Every committed fixture is read, and the fresh traces of `GCSCOPE_FRESH_TRACES` when set
//! (tools/tracegen/check-fresh.sh).

use std::path::{Path, PathBuf};

use gcscope_core::event::Event;
use gcscope_core::gc::{analyze, GcType};
use gcscope_core::TraceReader;
use serde_json::Value;

/// The raw events that matter here, in time order.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Raw {
    SuspendStart,
    SuspendStop,
    RestartStart,
    RestartStop,
    /// GC/Start or GC/Stop with the GC's number (its Count field).
    Start(u32),
    Stop(u32),
    Tick,
}

fn raw_events(bytes: &[u8]) -> Vec<(f64, Raw)> {
    let mut out = Vec::new();
    let mut r = TraceReader::new();
    let mut take = |e: &Event<'_>| {
        if !e.provider.starts_with("Microsoft-Windows-DotNETRuntime") {
            return;
        }
        let count = || {
            e.payload
                .get(..4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .unwrap_or(u32::MAX)
        };
        let raw = match e.name {
            "GC/SuspendEEStart" => Raw::SuspendStart,
            "GC/SuspendEEStop" => Raw::SuspendStop,
            "GC/RestartEEStart" => Raw::RestartStart,
            "GC/RestartEEStop" => Raw::RestartStop,
            "GC/Start" => Raw::Start(count()),
            "GC/Stop" => Raw::Stop(count()),
            "GC/AllocationTick" => Raw::Tick,
            _ => return,
        };
        out.push((e.time_ms, raw));
    };
    r.push(bytes, &mut take).expect("the trace decodes");
    r.finish(&mut take).expect("the trace decodes");
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// For GC `n`: the raw span of its one suspension when the runtime never restarted between its
/// SuspendEEStart and its GC/Stop: (suspend start, suspend stop, restart start, restart stop).
fn single_suspension(raw: &[(f64, Raw)], n: u32) -> Option<(f64, f64, f64, f64)> {
    let start = raw.iter().position(|&(_, r)| r == Raw::Start(n))?;
    let stop = raw.iter().position(|&(_, r)| r == Raw::Stop(n))?;
    let suspend = raw[..start]
        .iter()
        .rposition(|&(_, r)| r == Raw::SuspendStart)?;
    if raw[suspend..stop]
        .iter()
        .any(|&(_, r)| matches!(r, Raw::RestartStart | Raw::RestartStop))
    {
        return None;
    }
    let suspended = raw[suspend..start]
        .iter()
        .find(|&&(_, r)| r == Raw::SuspendStop)?
        .0;
    let restart = stop
        + raw[stop..]
            .iter()
            .position(|&(_, r)| r == Raw::RestartStart)?;
    let restarted = raw[restart..]
        .iter()
        .find(|&&(_, r)| r == Raw::RestartStop)?
        .0;
    Some((raw[suspend].0, suspended, raw[restart].0, restarted))
}

fn traces() -> Vec<PathBuf> {
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces")];
    match std::env::var_os("GCSCOPE_FRESH_TRACES") {
        Some(d) => dirs.push(PathBuf::from(d)),
        None => eprintln!("GCSCOPE_FRESH_TRACES is not set: the committed fixtures only"),
    }
    let mut out = Vec::new();
    for d in dirs {
        for rt in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            for f in std::fs::read_dir(rt.path()).into_iter().flatten().flatten() {
                let p = f.path();
                let te = p.with_extension("traceevent.json");
                if p.extension().is_some_and(|x| x == "nettrace") && te.exists() {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_bgc_inside_one_suspension_stops_the_threads_for_its_whole_run() {
    let mut found = Vec::new();
    for path in traces() {
        let bytes = std::fs::read(&path).unwrap();
        let te: Value =
            serde_json::from_slice(&std::fs::read(path.with_extension("traceevent.json")).unwrap())
                .unwrap();
        let raw = raw_events(&bytes);
        let model = analyze(&bytes).unwrap();
        let name = path.display().to_string();
        for gc in model.gcs.iter().filter(|g| g.gc_type == GcType::Background) {
            let Some((s0, s1, r0, r1)) = single_suspension(&raw, gc.number) else {
                continue;
            };
            // No thread allocated while the runtime was stopped.
            let ticks = raw
                .iter()
                .filter(|&&(t, r)| r == Raw::Tick && t > s1 && t < r0)
                .count();
            assert_eq!(
                ticks, 0,
                "{name} GC {}: allocations while suspended",
                gc.number
            );
            // The model's pause is the raw span, suspension start to restart end.
            let pause = gc.pause_ms.expect("a complete GC has a pause");
            assert!(
                (pause - (r1 - s0)).abs() < 1e-6,
                "{name} GC {}: {pause} vs {}",
                gc.number,
                r1 - s0
            );
            // TraceEvent's is the suspension alone.
            let t = te["gcs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["Number"].as_u64() == Some(gc.number as u64))
                .expect("TraceEvent lists the GC");
            let te_pause = t["PauseDurationMSec"].as_f64().unwrap();
            let te_suspend = t["SuspendDurationMSec"].as_f64().unwrap();
            assert!(
                (te_pause - te_suspend).abs() < 1e-6,
                "{name} GC {}",
                gc.number
            );
            // Where the trace has allocation ticks (Verbose) and the GC ran long enough for the
            // workload to allocate many times over, its threads did allocate right before and
            // after (so the silence above is the pause's).
            let (len, window) = (r0 - s1, 20.0);
            if len > window && raw.iter().any(|&(_, r)| r == Raw::Tick) {
                let around = raw
                    .iter()
                    .filter(|&&(t, r)| {
                        r == Raw::Tick
                            && ((t > s0 - window && t < s0) || (t > r1 && t < r1 + window))
                    })
                    .count();
                assert!(
                    around > 0,
                    "{name} GC {}: no allocation around a {len:.1} ms GC",
                    gc.number
                );
            }
            found.push(format!(
                "{name} GC {}: {pause:.3} ms (TraceEvent {te_pause:.3})",
                gc.number
            ));
        }
    }
    eprintln!("{}", found.join("\n"));
    // The committed .NET 9 and 10 fixtures hold such GCs: the test is not vacuous.
    assert!(found.len() >= 5, "{found:?}");
}
