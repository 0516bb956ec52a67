//! Writes a machine-wide .etl with the test-only writer: the kernel's Process/DCStart for a dozen
//! Windows processes (as the kernel rundown names every process alive), and any number of .NET
//! processes, each the runtime events of a trace gcscope reads (a fixture's .nettrace) relogged
//! under its own pid, name and command line, interleaved in time as one machine's processes are.
//! With no trace: an ETW trace without any .NET process (what a WPR CPU profile looks like to a
//! GC tool). For the app's tests of the process picker and of a trace without GCs.
//!
//! ```text
//! cargo run --release -p gcscope-core --features encode --example etl_machine -- OUT.etl [--compressed] [--lost N] [PID:NAME:TRACE[:START_MS] ...]
//! ```
//! START_MS: when that process's trace starts in the machine's (default 0), to order the processes
//! in the file (a process that starts later is read later).
//! Prints `{"bytes": N, "processes": [{"pid": P, "name": "...", "events": E}, ...], "system": S}`.

use gcscope_core::encode::etl::{process_payload, Options, Relogger};
use gcscope_core::etl::names::hooks;
use gcscope_core::event::Event;
use gcscope_core::TraceReader;

/// Windows' own processes, as a kernel rundown lists them (pid, image).
const SYSTEM: &[(u32, &str)] = &[
    (4, "System"),
    (108, "Registry"),
    (412, "smss.exe"),
    (560, "csrss.exe"),
    (640, "wininit.exe"),
    (704, "services.exe"),
    (716, "lsass.exe"),
    (880, "svchost.exe"),
    (944, "svchost.exe"),
    (1320, "spoolsv.exe"),
    (2876, "explorer.exe"),
    (3120, "MsMpEng.exe"),
];

/// One runtime event of an input trace, owned, at its time since that trace's start (100 ns).
struct Owned {
    ticks: i64,
    pid: u32,
    provider: String,
    id: u32,
    version: u32,
    thread: u64,
    pointer_size: u8,
    payload: Vec<u8>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: etl_machine OUT.etl [--compressed] [--lost N] [PID:NAME:TRACE[:START_MS] ...]";
    let Some(output) = args.first() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let compressed = args.iter().any(|a| a == "--compressed");
    // Events the session lost, as its logfile header says (a session whose buffers filled up).
    let lost_at = args.iter().position(|a| a == "--lost");
    let events_lost = lost_at
        .and_then(|i| args.get(i + 1)?.parse::<u32>().ok())
        .unwrap_or(0);
    let mut events: Vec<Owned> = Vec::new();
    let mut dotnet: Vec<(u32, String, u64)> = Vec::new();
    let specs = args
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(i, a)| !a.starts_with("--") && Some(i - 1) != lost_at)
        .map(|(_, a)| a);
    for spec in specs {
        let mut it = spec.splitn(4, ':');
        let (Some(pid), Some(name), Some(path), start) = (
            it.next().and_then(|p| p.parse::<u32>().ok()),
            it.next(),
            it.next(),
            it.next().map(|s| s.parse::<i64>()),
        ) else {
            eprintln!("bad process '{spec}'; {usage}");
            std::process::exit(2);
        };
        let Ok(start_ticks) = start.unwrap_or(Ok(0)).map(|ms| ms * 10_000) else {
            eprintln!("bad START_MS in '{spec}'; {usage}");
            std::process::exit(2);
        };
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut reader = TraceReader::new();
        let before = events.len();
        let mut sink = |info: &gcscope_core::event::TraceInfo, e: &Event<'_>| {
            let since = e.timestamp - info.sync_time_qpc;
            events.push(Owned {
                ticks: start_ticks
                    + (since as i128 * 10_000_000 / info.qpc_frequency.max(1) as i128) as i64,
                pid,
                provider: e.provider.to_string(),
                id: e.event_id,
                version: e.version,
                thread: e.thread_id,
                pointer_size: e.pointer_size,
                payload: e.payload.to_vec(),
            });
        };
        reader.push_with_info(&bytes, &mut sink).expect("decode");
        reader.finish_with_info(&mut sink).expect("decode");
        dotnet.push((pid, name.to_string(), (events.len() - before) as u64));
    }
    events.sort_by_key(|e| e.ticks);
    let opts = Options {
        compressed,
        events_lost,
        processors: 4,
        perf_freq: 10_000_000,
        ..Options::default()
    };
    let t0 = opts.header_timestamp;
    let mut relog = Relogger::new(opts, 0);
    // The kernel's rundown names every process (its image and command line) at the start.
    let names = SYSTEM
        .iter()
        .map(|&(pid, image)| (pid, image.to_string(), String::new()))
        .chain(dotnet.iter().map(|(pid, name, _)| {
            let image = format!("{name}.exe");
            (
                *pid,
                format!("C:\\Apps\\{image}"),
                format!("{image} --serve"),
            )
        }));
    for (i, (pid, image, cmd)) in names.enumerate() {
        let p = process_payload(8, pid, 4, &image, &cmd);
        relog
            .writer
            .kernel(0, hooks::PROCESS_DC_START, 4, 0, 0, t0 + 10 + i as i64, &p);
    }
    let mut out = Vec::new();
    for e in &events {
        relog.process_id = e.pid;
        relog.event(&Event {
            provider: &e.provider,
            event_id: e.id,
            version: e.version,
            timestamp: t0 + 1000 + e.ticks,
            thread_id: e.thread,
            pointer_size: e.pointer_size,
            payload: &e.payload,
            ..Event::default()
        });
        out.extend(relog.writer.drain());
    }
    out.extend(relog.writer.finish());
    std::fs::write(output, &out).expect("write");
    let procs: Vec<String> = dotnet
        .iter()
        .map(|(pid, name, n)| format!("{{\"pid\": {pid}, \"name\": \"{name}\", \"events\": {n}}}"))
        .collect();
    println!(
        "{{\"bytes\": {}, \"processes\": [{}], \"system\": {}}}",
        out.len(),
        procs.join(", "),
        SYSTEM.len()
    );
}
