//! `gcscope gcdump --pid P -o FILE.gcdump`: a heap snapshot of a running process, as dotnet-gcdump
//! takes one. A first, short session makes the runtime forget which types it has already named
//! (it names each type once per session set), so that the walk's BulkType events name them all;
//! the second enables the runtime provider with the heap-snapshot keywords, which makes the
//! runtime induce a blocking gen2 GC and walk the heap inside it. The stream is decoded as it
//! comes, the session stopped when that GC ends, and the graph written as a `.gcdump`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use gcscope_core::heap::{write_gcdump, HeapWalkBuilder, SnapshotInfo};
use gcscope_core::TraceReader;
use gcscope_diag::{Provider, SessionConfig};

use crate::live::{self, Ended, Failure, Feed, Flow, RUNTIME};

/// GC (0x1) | Type (0x80000) | GCHeapDump (0x100000) | GCHeapCollect (0x800000) |
/// GCHeapAndTypeNames (0x1000000): TraceEvent's GCHeapSnapshot set, which dotnet-gcdump enables.
pub const HEAP_SNAPSHOT_KEYWORDS: u64 = 0x1_980_001;
/// The provider of the type-table flush session (any session start and stop flushes it).
const SAMPLE_PROFILER: &str = "Microsoft-DotNETCore-SampleProfiler";
/// .NET `DateTime` ticks at the Unix epoch.
const UNIX_EPOCH_TICKS: i64 = 621_355_968_000_000_000;

#[derive(clap::Args, Debug)]
pub struct Opts {
    /// The process to take the snapshot of
    #[arg(long, value_name = "PID")]
    pub pid: u32,
    /// The .gcdump file to write
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: String,
    /// Give up when the heap walk has not ended after this long (30s, 2m)
    #[arg(long, value_name = "TIME", value_parser = live::parse_duration, default_value = "30s")]
    pub timeout: Duration,
    /// Also write the session's event stream (the heap walk's events) to this .nettrace
    #[arg(long, value_name = "FILE")]
    pub nettrace: Option<String>,
}

/// The heap-snapshot session: the runtime provider, Verbose, no rundown (the graph needs none).
pub fn config() -> SessionConfig {
    SessionConfig {
        buffer_mb: 256,
        rundown: false,
        stacks: false,
        providers: vec![Provider {
            name: RUNTIME.into(),
            keywords: HEAP_SNAPSHOT_KEYWORDS,
            level: 5,
            filter: String::new(),
        }],
    }
}

pub fn run(o: &Opts) -> Result<u8, Failure> {
    let ep = live::endpoint(o.pid)?;
    flush_type_table(&ep)?;
    let mut reader = TraceReader::new();
    let mut walk = HeapWalkBuilder::new();
    let mut cut = None;
    let mut raw = match &o.nettrace {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| (1, format!("{p}: {e}")))?,
        )),
        None => None,
    };
    let mut raw_err: Option<std::io::Error> = None;
    let outcome = live::run(
        &ep,
        &config(),
        Some(o.timeout),
        &mut |_| {
            eprintln!(
                "gcscope gcdump: pid {}: a heap walk requested (an induced gen2 GC)",
                o.pid
            )
        },
        &mut |feed| {
            match feed {
                Feed::Data(d) => {
                    if let (Some(f), None) = (raw.as_mut(), raw_err.as_ref()) {
                        if let Err(e) = std::io::Write::write_all(f, d) {
                            raw_err = Some(e);
                        }
                    }
                    if cut.is_none() {
                        if let Err(e) = reader.push(d, &mut |e| walk.on_event(e)) {
                            cut = Some(e);
                            return Flow::Stop;
                        }
                    }
                }
                Feed::Pause => reader.release(&mut |e| walk.on_event(e)),
            }
            if walk.walk_ended() {
                Flow::Stop
            } else {
                Flow::More
            }
        },
    )?;
    if cut.is_none() {
        cut = reader.finish(&mut |e| walk.on_event(e)).err();
    }
    if let (Some(f), Some(p)) = (raw.take(), &o.nettrace) {
        let flushed = f.into_inner().map_err(|e| e.into_error()).map(|_| ());
        if let Some(e) = raw_err.or(flushed.err()) {
            return Err((1, format!("{p}: {e}")));
        }
    }
    for n in &outcome.notes {
        eprintln!("gcscope gcdump: {n}");
    }
    let ended = walk.walk_ended();
    let started = walk.walk_started();
    let info = SnapshotInfo {
        process_id: o.pid as i32,
        process_name: process_name(o.pid),
        time_ticks: now_ticks(),
        creation_tool: Some(format!("gcscope {}", env!("CARGO_PKG_VERSION"))),
        ..Default::default()
    };
    let exited = outcome.ended == Ended::ProcessExited;
    let Some(w) = walk.finish(info).filter(|_| ended) else {
        let why = match (started, exited) {
            (_, true) => "the process exited before the heap walk ended",
            (true, false) => "the heap walk did not end in time (raise --timeout)",
            (false, false) => "the runtime sent no heap walk in time (raise --timeout)",
        };
        let mut msg = format!("pid {}: {why}; no .gcdump written", o.pid);
        if let Some(e) = cut {
            msg.push_str(&format!(" (the stream broke off: {e})"));
        }
        return Err((if exited { live::EXIT_PROCESS_EXITED } else { 1 }, msg));
    };
    for warning in w.report.warnings() {
        eprintln!("gcscope gcdump: {warning}");
    }
    let bytes = write_gcdump(&w.graph);
    std::fs::write(&o.output, &bytes).map_err(|e| (1, format!("{}: {e}", o.output)))?;
    let g = &w.graph;
    let gc = w
        .report
        .gc_number
        .map_or(String::new(), |n| format!(", GC #{n}"));
    eprintln!(
        "gcscope gcdump: wrote {}: {} objects, {} bytes of heap{gc}, {:.1} s",
        o.output,
        g.node_count(),
        g.total_bytes(),
        outcome.elapsed.as_secs_f64()
    );
    Ok(0)
}

/// A short session of the sample profiler, stopped at its first bytes: starting and stopping a
/// session makes the runtime forget the types it has named, so that the walk names them again.
fn flush_type_table(ep: &gcscope_diag::Endpoint) -> Result<(), Failure> {
    let config = SessionConfig {
        buffer_mb: 16,
        rundown: false,
        stacks: false,
        providers: vec![Provider {
            name: SAMPLE_PROFILER.into(),
            keywords: 0,
            level: 4,
            filter: String::new(),
        }],
    };
    live::run(
        ep,
        &config,
        Some(Duration::from_secs(5)),
        &mut |_| {},
        &mut |feed| match feed {
            Feed::Data(_) => Flow::Stop,
            Feed::Pause => Flow::More,
        },
    )
    .map(|_| ())
}

fn process_name(pid: u32) -> Option<String> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
    Some(s.trim_end().to_string()).filter(|s| !s.is_empty())
}

fn now_ticks() -> i64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    UNIX_EPOCH_TICKS + (since.as_nanos() / 100) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_the_heap_snapshot_set() {
        // GC, Type, GCHeapDump, GCHeapCollect, GCHeapAndTypeNames (ClrEtwAll.man's keyword masks).
        assert_eq!(
            HEAP_SNAPSHOT_KEYWORDS,
            0x1 | 0x8_0000 | 0x10_0000 | 0x80_0000 | 0x100_0000
        );
        let c = config();
        assert_eq!(c.providers[0].level, 5);
        assert!(!c.rundown);
    }

    #[test]
    fn now_is_after_2026_in_ticks() {
        // 2026-01-01 in .NET ticks.
        assert!(now_ticks() > 639_028_224_000_000_000);
    }
}
