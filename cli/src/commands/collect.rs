//! `gcscope collect --pid P -o FILE.nettrace`: an EventPipe session of a running process, written
//! to a file as it comes. Ctrl-C or `--duration` stops the session (StopTracing) and the file gets
//! the rest of the stream, rundown and end included; a process that exits mid-session leaves the
//! file with everything it wrote. The stream also goes through the decoder, for the GC count said
//! at the end.
//!
//! `gcscope collect -o FILE -- CMD ARGS` starts CMD and records it from its start, by reverse
//! connect (`live::reverse`); the session ends when CMD exits.

use std::fs::File;
use std::io::{BufWriter, Write};

use gcscope_core::gc::ModelBuilder;
use gcscope_core::ticks::Consumer;
use gcscope_core::TraceReader;

use crate::live::{self, Ended, Failure, Feed, Flow, Profile};

#[derive(clap::Args, Debug)]
pub struct Opts {
    /// The process to attach to (or give a command after --)
    #[arg(
        long,
        value_name = "PID",
        required_unless_present = "command",
        conflicts_with = "command"
    )]
    pub pid: Option<u32>,
    /// Stop after this long (30s, 2m, 500ms); default: until Ctrl-C or the process exits
    #[arg(long, value_name = "TIME", value_parser = live::parse_duration)]
    pub duration: Option<std::time::Duration>,
    /// What to record
    #[arg(long, value_enum, default_value = "gc")]
    pub profile: Profile,
    /// The trace file to write
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: String,
    /// Start this command (.NET 5 or later) and record it from its start until it exits
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

pub fn run(o: &Opts) -> Result<u8, Failure> {
    let config = o.profile.config();
    if let Some(pid) = o.pid {
        let ep = live::endpoint(pid)?;
        return record(o, &mut |on_start, consume| {
            let outcome = live::run(
                &ep,
                &config,
                o.duration,
                &mut |s| on_start(s, u64::from(pid)),
                consume,
            )?;
            let code = match outcome.ended {
                Ended::ProcessExited => live::EXIT_PROCESS_EXITED,
                _ => 0,
            };
            Ok((outcome, code, None))
        });
    }
    record(o, &mut |on_start, consume| {
        let l = live::reverse::run(&o.command, &config, o.duration, on_start, consume)?;
        let note = match l.child {
            Some(s) => format!("{} exited ({s})", o.command[0]),
            None => format!("{} was stopped with the session", o.command[0]),
        };
        Ok((l.outcome, 0, Some(note)))
    })
}

/// What a session gives [`record`]: how it went, the exit status, a note on the child.
type Recorded = (live::Outcome, u8, Option<String>);

/// A session, however started, written to the file and decoded on the way.
#[allow(clippy::type_complexity)]
fn record(
    o: &Opts,
    session: &mut dyn FnMut(
        &mut dyn FnMut(&gcscope_diag::Started, u64),
        &mut dyn FnMut(Feed<'_>) -> Flow,
    ) -> Result<Recorded, Failure>,
) -> Result<u8, Failure> {
    let file = File::create(&o.output).map_err(|e| (1, format!("{}: {e}", o.output)))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut write_err: Option<std::io::Error> = None;
    let mut reader = TraceReader::new().with_consumer(Consumer::Model);
    let mut model = ModelBuilder::new(&Default::default());
    let mut have_info = false;
    let outcome = session(
        &mut |s, pid| {
            eprintln!(
                "gcscope collect: pid {pid} session started (CollectTracing{}); writing {}; Ctrl-C stops",
                s.version, o.output
            );
            if let Some(n) = &s.fell_back {
                eprintln!("gcscope collect: {n}");
            }
        },
        &mut |feed| {
            match feed {
                Feed::Data(d) => {
                    if write_err.is_none() {
                        if let Err(e) = out.write_all(d) {
                            write_err = Some(e);
                            return Flow::Stop;
                        }
                    }
                    let _ = reader.push(d, &mut |e| model.on_event(e));
                    if let (false, Some(info)) = (have_info, reader.info()) {
                        model.set_info(info);
                        have_info = true;
                    }
                }
                Feed::Pause => {
                    // What came is on disk at each pause, so a crash of this process keeps it.
                    if let Err(e) = out.flush() {
                        write_err.get_or_insert(e);
                        return Flow::Stop;
                    }
                    reader.release(&mut |e| model.on_event(e));
                }
            }
            Flow::More
        },
    );
    let (outcome, code, child_note) = match outcome {
        Ok(x) => x,
        Err(f) => {
            drop(out);
            let _ = std::fs::remove_file(&o.output);
            return Err(f);
        }
    };
    let flushed = out
        .into_inner()
        .map_err(|e| e.into_error())
        .and_then(|f| f.sync_all());
    if let Some(e) = write_err.or(flushed.err()) {
        return Err((1, format!("{}: {e}", o.output)));
    }
    let cut = reader.finish(&mut |e| model.on_event(e)).err();
    let m = model.finish(Some(reader.stats()));
    for n in outcome.notes.iter().chain(&child_note) {
        eprintln!("gcscope collect: {n}");
    }
    let how = match outcome.ended {
        Ended::Stopped => "stopped",
        Ended::ProcessExited => "the process exited or ended the session",
        Ended::CutShort => "cut short",
    };
    eprintln!(
        "gcscope collect: wrote {}: {} bytes, {} GCs, {:.1} s ({how})",
        o.output,
        outcome.bytes,
        m.gcs.len(),
        outcome.elapsed.as_secs_f64()
    );
    if let Some(e) = cut {
        eprintln!(
            "gcscope collect: the stream ended early: {e}; the events before it are in the file"
        );
    }
    Ok(code)
}
