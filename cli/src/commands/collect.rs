//! `gcscope collect --pid P -o FILE.nettrace`: an EventPipe session of a running process, written
//! to a file as it comes. Ctrl-C or `--duration` stops the session (StopTracing) and the file gets
//! the rest of the stream, rundown and end included; a process that exits mid-session leaves the
//! file with everything it wrote. The stream also goes through the decoder, for the GC count said
//! at the end.

use std::fs::File;
use std::io::{BufWriter, Write};

use gcscope_core::gc::ModelBuilder;
use gcscope_core::ticks::Consumer;
use gcscope_core::TraceReader;

use crate::live::{self, Ended, Failure, Feed, Flow, Profile};

#[derive(clap::Args, Debug)]
pub struct Opts {
    /// The process to attach to
    #[arg(long, value_name = "PID")]
    pub pid: u32,
    /// Stop after this long (30s, 2m, 500ms); default: until Ctrl-C or the process exits
    #[arg(long, value_name = "TIME", value_parser = live::parse_duration)]
    pub duration: Option<std::time::Duration>,
    /// What to record
    #[arg(long, value_enum, default_value = "gc")]
    pub profile: Profile,
    /// The trace file to write
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: String,
}

pub fn run(o: &Opts) -> Result<u8, Failure> {
    let ep = live::endpoint(o.pid)?;
    let file = File::create(&o.output).map_err(|e| (1, format!("{}: {e}", o.output)))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut write_err: Option<std::io::Error> = None;
    let mut reader = TraceReader::new().with_consumer(Consumer::Model);
    let mut model = ModelBuilder::new(&Default::default());
    let mut have_info = false;
    let config = o.profile.config();
    let outcome = live::run(
        &ep,
        &config,
        o.duration,
        &mut |s| {
            eprintln!(
                "gcscope collect: pid {} session started (CollectTracing{}); writing {}; Ctrl-C stops",
                o.pid, s.version, o.output
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
    let outcome = match outcome {
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
    for n in &outcome.notes {
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
    Ok(match outcome.ended {
        Ended::ProcessExited => live::EXIT_PROCESS_EXITED,
        _ => 0,
    })
}
