//! A .zip of several ETL files of one recording (a Visual Studio Diagnostics Hub session: the user
//! files, the kernel file), written by the test encoder where every event is known: every `.etl`
//! member is read whatever its name, a member of another recording is left out and said so, and in
//! the machine-wide trace each process is charged its own events, the skipped ones included.
#![cfg(feature = "encode")]

mod common;

use gcscope_core::encode::etl::{EtlEvent, EtlWriter, Options};
use gcscope_core::etl::names::RUNTIME_GUID;
use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::gc::ProcessRouter;
use gcscope_core::{Consumer, TraceReader};

const APP: u32 = 4242;
const OTHER: u32 = 77;

/// A runtime event the GC model has no use for (MethodLoadVerbose, id 143): the model's reader
/// skips it and counts it.
fn method_load(pid: u32, timestamp: i64) -> EtlEvent<'static> {
    EtlEvent {
        provider: RUNTIME_GUID,
        id: 143,
        version: 1,
        opcode: 37,
        task: 9,
        process_id: pid,
        thread_id: 7,
        timestamp,
        pointer_size: 8,
        extended: &[],
        payload: &[0; 40],
    }
}

/// GCStart version 2 of APP (count 1, gen 0, reason 0, type 0, ClrInstanceID 0, no client
/// sequence): a runtime event the model reads, so that APP has a model.
fn gc_start(timestamp: i64) -> (EtlEvent<'static>, Vec<u8>) {
    let mut payload = Vec::new();
    for v in [1u32, 0, 0, 0] {
        payload.extend_from_slice(&v.to_le_bytes());
    }
    payload.extend_from_slice(&0u16.to_le_bytes());
    payload.extend_from_slice(&0u64.to_le_bytes());
    let e = EtlEvent {
        provider: RUNTIME_GUID,
        id: 1,
        version: 2,
        opcode: 1,
        task: 1,
        process_id: APP,
        thread_id: 7,
        timestamp,
        pointer_size: 8,
        extended: &[],
        payload: &[],
    };
    (e, payload)
}

/// The user file: one GCStart of APP at 0.005 ms, then `n` skipped runtime events of APP, one per
/// 1,000 ticks (0.1 ms), and 5 of OTHER.
fn user_file(opts: Options, n: u32) -> Vec<u8> {
    let mut w = EtlWriter::new(opts);
    let (start, payload) = gc_start(opts.header_timestamp + 50);
    w.event(
        0,
        &EtlEvent {
            payload: &payload,
            ..start
        },
    );
    for i in 0..n {
        w.event(
            i % 2,
            &method_load(APP, opts.header_timestamp + 1_000 * (i as i64 + 1)),
        );
    }
    for i in 0..5 {
        w.event(0, &method_load(OTHER, opts.header_timestamp + 10 + i));
    }
    w.finish()
}

/// Kernel Process/DCStart (version 4, 64-bit) naming `pid` as `name`.
fn process_payload(pid: u32, name: &[u8]) -> Vec<u8> {
    let mut p = vec![0u8; 8];
    for v in [pid, 1, 1, 0] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    p.extend_from_slice(&[0; 16]);
    p.extend_from_slice(name);
    p.push(0);
    p.extend_from_slice(&[b'M', 0, 0, 0]);
    p
}

/// The kernel file: DCStart of both processes (each in its own header's process id), at 0.5 ms.
fn kernel_file(opts: Options) -> Vec<u8> {
    let mut w = EtlWriter::new(opts);
    for (pid, name) in [(APP, &b"MyApp.exe"[..]), (OTHER, &b"Other.exe"[..])] {
        w.kernel(
            0,
            0x0303,
            4,
            pid,
            1,
            opts.header_timestamp + 5_000,
            &process_payload(pid, name),
        );
    }
    w.finish()
}

struct Read {
    names: Vec<String>,
    router: ProcessRouter,
    reader: TraceReader,
}

fn read(zip: &[u8], chunk: usize) -> Read {
    let mut reader = TraceReader::new().with_consumer(Consumer::Model);
    let mut router = ProcessRouter::new();
    let mut names = Vec::new();
    let mut sink = |info: &TraceInfo, e: &Event<'_>| {
        names.push(e.name.to_string());
        router.on_event(info, e);
    };
    for piece in zip.chunks(chunk) {
        reader.push_with_info(piece, &mut sink).unwrap();
    }
    reader.finish_with_info(&mut sink).unwrap();
    Read {
        names,
        router,
        reader,
    }
}

/// Members named as a Diagnostics Hub session names them, user file first, in other folders: no
/// name says they belong together, their logfile headers do.
#[test]
fn members_are_paired_by_their_headers_not_their_names() {
    let opts = Options::default();
    let (user, kernel) = (user_file(opts, 40), kernel_file(opts));
    let zip = common::stored_zip(&[
        ("session/diaghub.user_paged.1.etl", &user),
        ("other/diaghub.kernel.1.etl", &kernel),
    ]);
    for chunk in [7usize, 1000, zip.len()] {
        let r = read(&zip, chunk);
        // The kernel file's two DCStarts were delivered (the model's reader skips the method
        // loads and both files' logfile-header events).
        let kernel_seen = r.names.iter().filter(|n| *n == "Process/DCStart").count();
        assert_eq!(kernel_seen, 2, "chunk {chunk}: {:?}", r.names);
        assert!(r.reader.stats().left_out_files.is_empty());
        assert_eq!(r.reader.stats().filtered_events, 40 + 5 + 2);
    }
}

/// Each process of the machine-wide trace gets its own events: its skipped runtime events (which
/// the ETW decoder counts per process) and its kernel event; its time in the trace ends at its own
/// last event.
#[test]
fn each_process_is_charged_its_own_events() {
    let opts = Options::default();
    let zip = common::stored_zip(&[
        ("a/user.etl", &user_file(opts, 40)),
        ("b/kernel.etl", &kernel_file(opts)),
    ]);
    for chunk in [3usize, zip.len()] {
        let r = read(&zip, chunk);
        let stats = r.reader.stats().clone();
        let app = stats
            .filtered_by_process
            .iter()
            .find(|f| f.process_id == APP)
            .expect("APP's skipped events are counted");
        assert_eq!((app.events, app.runtime_events), (40, 40));
        // 40 events 0.1 ms apart, the first 0.1 ms after the header.
        assert!((app.first_event_ms - 0.1).abs() < 1e-9, "{app:?}");
        assert!((app.last_event_ms - 4.0).abs() < 1e-9, "{app:?}");
        let other = stats
            .filtered_by_process
            .iter()
            .find(|f| f.process_id == OTHER)
            .expect("OTHER's skipped events are counted");
        assert_eq!((other.events, other.runtime_events), (5, 5));
        let (model, _) = r.router.finish(APP, Some(&stats)).unwrap();
        let p = &model.process;
        // GCStart + 40 method loads + its kernel DCStart; OTHER's 5 and its DCStart are not APP's.
        assert_eq!((p.events, p.runtime_events), (42, 41), "chunk {chunk}");
        assert_eq!(p.process_name.as_deref(), Some("MyApp"));
        assert!(
            (p.trace_duration_ms - 4.0).abs() < 1e-9,
            "{}",
            p.trace_duration_ms
        );
    }
}

/// A member whose header shows another recording (another boot, or a span that does not overlap
/// the first file's) is left out, and the reader and the model say which and why.
#[test]
fn a_member_of_another_recording_is_left_out() {
    let opts = Options {
        end_time: Options::default().start_time + 50_000_000,
        ..Options::default()
    };
    let rebooted = Options {
        boot_time: opts.boot_time + 36_000_000_000,
        ..opts
    };
    let later = Options {
        start_time: opts.start_time + 36_000_000_000,
        end_time: opts.start_time + 36_050_000_000,
        ..opts
    };
    for (other, why) in [(rebooted, "another boot"), (later, "does not overlap")] {
        let zip = common::stored_zip(&[
            ("s/user.etl", &user_file(opts, 10)),
            ("s/kernel.etl", &kernel_file(opts)),
            ("s/yesterday.etl", &kernel_file(other)),
        ]);
        for chunk in [5usize, zip.len()] {
            let r = read(&zip, chunk);
            assert_eq!(
                r.names.iter().filter(|n| *n == "Process/DCStart").count(),
                2,
                "the left-out file's events are not read"
            );
            let left = &r.reader.stats().left_out_files;
            assert_eq!(left.len(), 1, "{left:?}");
            assert!(left[0].contains("'s/yesterday.etl'"), "{}", left[0]);
            assert!(left[0].contains(why), "{}", left[0]);
        }
    }
}

/// The left-out member is the model's first note, so the summary and the app show it.
#[test]
fn the_model_notes_a_left_out_member() {
    let opts = Options::default();
    let rebooted = Options {
        boot_time: opts.boot_time + 1,
        ..opts
    };
    let mut gc = EtlWriter::new(opts);
    let (start, payload) = gc_start(opts.header_timestamp + 100);
    gc.event(
        0,
        &EtlEvent {
            payload: &payload,
            ..start
        },
    );
    let zip = common::stored_zip(&[("a.etl", &gc.finish()), ("b.etl", &kernel_file(rebooted))]);
    let r = read(&zip, zip.len());
    let (model, _) = r.router.finish(APP, Some(r.reader.stats())).unwrap();
    assert!(
        model
            .notes
            .first()
            .is_some_and(|n| n.contains("'b.etl' is left out")),
        "{:?}",
        model.notes
    );
}

/// PerfView's test input of a Diagnostics Hub session (four ETLs in a zip, ../shared): process
/// 2140's events as the model counts them (most skipped by its reader) equal those a reader of
/// every event counts for that process id, and its runtime events are the 21,757.
#[test]
fn diaghub_session_charges_its_process() {
    let Some(shared) = common::shared_dir() else {
        eprintln!("skipped: ../shared is absent");
        return;
    };
    let path = shared.join("traces/perfview/diaghub-dotnetcore3.1-win-x64-diagsession.zip");
    let Ok(zip) = std::fs::read(&path) else {
        eprintln!("skipped: {} is absent", path.display());
        return;
    };
    let (mut all, mut runtime) = (0u64, 0u64);
    let mut every = TraceReader::new();
    let mut count = |e: &Event<'_>| {
        if e.process_id == 2140 {
            all += 1;
            runtime += u64::from(e.provider.starts_with("Microsoft-Windows-DotNETRuntime"));
        }
    };
    every.push(&zip, &mut count).unwrap();
    every.finish(&mut count).unwrap();
    assert_eq!(runtime, 21_757);
    let r = read(&zip, 1 << 20);
    assert!(r.reader.stats().left_out_files.is_empty());
    let (model, _) = r.router.finish(2140, Some(r.reader.stats())).unwrap();
    assert_eq!(model.process.events, all);
    assert_eq!(model.process.runtime_events, runtime);
    assert_eq!(model.process.process_name.as_deref(), Some("locProject"));
}
