//! Reading a trace file for any subcommand: streamed in 1 MiB chunks through the core decoder (the
//! whole file is never in memory), with error messages that say what went wrong, where, and what to do.

use gcscope_core::error::{Error, ErrorKind};
use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::gc;
use gcscope_core::{DecodeStats, TraceReader};
use std::fs::File;
use std::io::Read;

const CHUNK: usize = 1 << 20;

/// Decodes the trace at `path`, calling `sink` for every event in timestamp order.
///
/// A trace cut off mid-write (common: the session was killed) is not an error: the events before the
/// cut are delivered, a warning goes to stderr, and the result is Ok.
pub fn read_trace(
    path: &str,
    sink: &mut dyn FnMut(&TraceInfo, &Event<'_>),
) -> Result<(TraceInfo, DecodeStats), String> {
    read_trace_with(path, TraceReader::new(), sink)
}

/// [`read_trace`] for the GC model and its insights: only the events they read are delivered (the
/// rest are counted in the stats, which `ModelBuilder::finish` takes them from).
pub fn read_trace_for_model(
    path: &str,
    sink: &mut dyn FnMut(&TraceInfo, &Event<'_>),
) -> Result<(TraceInfo, DecodeStats), String> {
    read_trace_with(path, TraceReader::new().with_filter(gc::interest), sink)
}

fn read_trace_with(
    path: &str,
    mut reader: TraceReader,
    sink: &mut dyn FnMut(&TraceInfo, &Event<'_>),
) -> Result<(TraceInfo, DecodeStats), String> {
    let mut file = File::open(path).map_err(|e| format!("cannot open '{path}': {e}"))?;
    let mut buf = vec![0u8; CHUNK];
    let result = loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break reader.finish_with_info(sink),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(format!(
                    "cannot read '{path}' at byte {}: {e}",
                    reader.stats().bytes_in
                ))
            }
        };
        if let Err(e) = reader.push_with_info(&buf[..n], sink) {
            break Err(e);
        }
    };
    match result {
        Ok(()) => {}
        Err(Error {
            kind: ErrorKind::Truncated { what },
            offset,
        }) if reader.info().is_some() => {
            eprintln!(
                "gcscope: warning: '{path}' is cut off at byte {offset} of the trace (inside {what}); \
                 using the {} events before the cut",
                reader.stats().events
            );
        }
        Err(e) => return Err(describe_error(path, &e)),
    }
    let info = reader
        .info()
        .cloned()
        .ok_or_else(|| format!("'{path}' has no trace header"))?;
    Ok((info, reader.stats().clone()))
}

/// A message for people: what, where, and what to do about it.
pub fn describe_error(path: &str, e: &Error) -> String {
    match &e.kind {
        ErrorKind::NotATrace(what) => format!(
            "'{path}' is not a .NET trace ({what}).\n  gcscope reads EventPipe traces (.nettrace files from \
             `dotnet-trace collect` or DOTNET_EnableEventPipe, older .netperf files), ETW traces (.etl \
             from PerfView, WPR or xperf; PerfView's .etl.zip), or a .zip/.gz of one."
        ),
        ErrorKind::Truncated { what } => format!(
            "'{path}' ends at byte {} inside the {what}, before any events could be read; \
             the file is incomplete (was the trace still being written, or the download cut short?)",
            e.offset
        ),
        ErrorKind::Malformed(msg) => format!(
            "'{path}' is damaged at byte {} of the trace: {msg}.\n  The file may be corrupt; \
             re-collect the trace, or report it with the file if dotnet-trace/PerfView read it fine.",
            e.offset
        ),
        ErrorKind::Unsupported(msg) => format!(
            "'{path}' uses a feature gcscope does not read (at byte {}): {msg}.\n  \
             Please report it, with the runtime and tool versions that wrote the trace.",
            e.offset
        ),
    }
}

// ---- Machine-wide traces: which process the model is built for (`--pid N`, `--process NAME`). ----

use gcscope_core::gc::insights::Insights;
use gcscope_core::gc::{processes, GcModel, ProcessChoice, ProcessRouter};
use std::sync::OnceLock;

/// The process every subcommand reads, set once from the command line.
static PROCESS_CHOICE: OnceLock<ProcessChoice> = OnceLock::new();

/// Removes `--pid N` / `--process NAME` from the arguments (any subcommand) and remembers them.
pub fn take_process_choice(args: &mut Vec<String>) -> Result<(), String> {
    let mut choice = ProcessChoice::Auto;
    let mut i = 0;
    while i < args.len() {
        let (name, value) = match args[i].as_str() {
            "--pid" | "--process" => {
                let v = args
                    .get(i + 1)
                    .cloned()
                    .ok_or_else(|| format!("{} needs a value", args[i]))?;
                let name = args[i].clone();
                args.drain(i..i + 2);
                (name, v)
            }
            _ => {
                i += 1;
                continue;
            }
        };
        choice = if name == "--pid" {
            ProcessChoice::Pid(
                value
                    .parse()
                    .map_err(|_| format!("--pid takes a process id, not '{value}'"))?,
            )
        } else {
            ProcessChoice::Name(value)
        };
    }
    let _ = PROCESS_CHOICE.set(choice);
    Ok(())
}

fn process_choice() -> ProcessChoice {
    PROCESS_CHOICE.get().cloned().unwrap_or_default()
}

/// Decodes FILE once and builds the model and insights of one process: the one `--pid`/`--process`
/// names, else the one with the most GC pause (said on stderr, with the others, when the trace
/// holds several). `drop_rows`: settled rows are dropped as the file streams (whole-trace figures
/// only; see `summary::load_summaries`).
pub fn load_process(path: &str, drop_rows: bool) -> Result<(GcModel, Insights), String> {
    /// Events between drains: often enough to bound memory, rarely enough to cost nothing.
    const DRAIN_EVERY: u32 = 1 << 16;
    let mut router = ProcessRouter::new();
    let mut since_drain = 0u32;
    let (info, stats) = read_trace_for_model(path, &mut |info, e| {
        router.on_event(info, e);
        if drop_rows {
            since_drain += 1;
            if since_drain == DRAIN_EVERY {
                since_drain = 0;
                for (_, m) in router.models_mut() {
                    drop(m.drain_completed());
                }
            }
        }
    })?;
    let choice = process_choice();
    let list = router.processes();
    let pid = match router.choose(&choice) {
        Ok(pid) => pid,
        // No runtime events at all: an empty model of the trace, as for an EventPipe file.
        Err(_) if list.is_empty() && choice == ProcessChoice::Auto => {
            let mut b = gcscope_core::gc::ModelBuilder::new(&info);
            b.set_info(&info);
            let model = b.finish(Some(&stats));
            let insights = gcscope_core::gc::insights::InsightsBuilder::new().finish(&model);
            return Ok((model, insights));
        }
        Err(e) => return Err(format!("'{path}': {e}")),
    };
    if choice == ProcessChoice::Auto && list.len() > 1 {
        let chosen = list.iter().find(|p| p.process_id == pid);
        eprintln!(
            "gcscope: '{path}' holds {} processes with GC events; showing {} (the most GC pause; \
             choose with --pid N or --process NAME). The others:",
            list.len(),
            chosen.map_or_else(|| format!("pid {pid}"), processes::describe)
        );
        for p in list.iter().filter(|p| p.process_id != pid) {
            eprintln!("  {}", processes::describe(p));
        }
    }
    router.finish(pid, Some(&stats))
}

/// The process id `--pid`/`--process` names (None: every process), resolved by a first pass over
/// FILE when a name is given (the kernel's process events may come anywhere in the file).
pub fn chosen_pid(path: &str) -> Result<Option<u32>, String> {
    match process_choice() {
        ProcessChoice::Auto => Ok(None),
        ProcessChoice::Pid(p) => Ok(Some(p)),
        choice => {
            let mut router = ProcessRouter::new();
            read_trace_for_model(path, &mut |info, e| router.on_event(info, e))?;
            router
                .choose(&choice)
                .map(Some)
                .map_err(|e| format!("'{path}': {e}"))
        }
    }
}
