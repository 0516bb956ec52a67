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
            "'{path}' is not a .NET trace ({what}).\n  gcscope reads EventPipe traces: .nettrace files from \
             `dotnet-trace collect` or DOTNET_EnableEventPipe, older .netperf files, or a .zip/.gz of one."
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
