//! `gcscope serve --pid P`: a live session of a running process, served to a browser on this
//! machine (`live::http`): the app's files, the session's bytes as they come (`stream`, which the
//! printed URL's `?live=stream` makes the app read: its live tab) and the bytes so far as a file
//! (`trace.nettrace`). The app's Stop (`POST stop`), Ctrl-C or `--duration` ends the session; the
//! whole .nettrace then stays downloadable from the same address (and is written to `-o FILE`
//! when given) until a second Ctrl-C ends gcscope.
//!
//! The app's files come from a folder (`--dist`), not from inside the binary: the CLI builds and
//! tests without the wasm toolchain, and a new build of the app needs no new build of the CLI.

use std::path::PathBuf;
use std::sync::Arc;

use crate::live::{self, http, Ended, Failure, Feed, Flow, Profile};

#[derive(clap::Args, Debug)]
pub struct Opts {
    /// The process to attach to
    #[arg(long, value_name = "PID")]
    pub pid: u32,
    /// The port on 127.0.0.1 (default: any free one)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub port: u16,
    /// The app's built files (scripts/build-app.sh's dist/); default: dist/ next to the binary, or
    /// the repository's dist/ for a binary in target/
    #[arg(long, value_name = "DIR")]
    pub dist: Option<PathBuf>,
    /// What to record
    #[arg(long, value_enum, default_value = "gc")]
    pub profile: Profile,
    /// Stop the session after this long (30s, 2m, 500ms)
    #[arg(long, value_name = "TIME", value_parser = live::parse_duration)]
    pub duration: Option<std::time::Duration>,
    /// Also write the session to this file
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
    /// Exit when the session ends, instead of serving its file until Ctrl-C
    #[arg(long)]
    pub exit_when_done: bool,
}

/// The app's folder: `--dist`, else `dist/` beside the binary or two folders up (target/X/).
fn dist(o: &Opts) -> Result<PathBuf, Failure> {
    if let Some(d) = &o.dist {
        return if d.join("index.html").is_file() {
            Ok(d.clone())
        } else {
            Err((2, format!("--dist {}: no index.html there", d.display())))
        };
    }
    let exe = std::env::current_exe().map_err(|e| (1, format!("the binary's path: {e}")))?;
    let mut tried = Vec::new();
    for up in exe.ancestors().skip(1).take(3) {
        let d = up.join("dist");
        if d.join("index.html").is_file() {
            return Ok(d);
        }
        tried.push(d.display().to_string());
    }
    Err((
        2,
        format!(
            "the app's files are not in {}: build them (scripts/build-app.sh) or give --dist DIR",
            tried.join(", ")
        ),
    ))
}

pub fn run(o: &Opts) -> Result<u8, Failure> {
    let dist = dist(o)?;
    let ep = live::endpoint(o.pid)?;
    let listener = http::bind(o.port).map_err(|e| (1, format!("127.0.0.1:{}: {e}", o.port)))?;
    let port = listener
        .local_addr()
        .map_err(|e| (1, e.to_string()))?
        .port();
    let shared = Arc::new(http::Shared::default());
    let token = http::token();
    // Asked before the session: the runtime answers one command per connection, and the stream's
    // own facts (version, command line) come only with the rundown at its end.
    let process = serde_json::to_vec(&super::ps::row(&ep)).map_err(|e| (1, e.to_string()))?;
    let server = Arc::new(http::Server {
        token: token.clone(),
        port,
        dist,
        shared: shared.clone(),
        process,
        on_stop: Arc::new(live::signals::interrupt),
    });
    http::serve(listener, server);
    let base = format!("http://127.0.0.1:{port}/{token}/");
    let config = o.profile.config();
    let outcome = live::run(
        &ep,
        &config,
        o.duration,
        &mut |s| {
            eprintln!(
                "gcscope serve: pid {} session started (CollectTracing{}); open the live tab:\n  \
                 {base}?live=stream\nthe trace so far: {base}trace.nettrace; the stream: \
                 {base}stream\nStop in the app, Ctrl-C or POST {base}stop ends the session",
                o.pid, s.version
            );
            if let Some(n) = &s.fell_back {
                eprintln!("gcscope serve: {n}");
            }
        },
        &mut |feed| {
            if let Feed::Data(d) = feed {
                shared.push(d);
            }
            Flow::More
        },
    );
    shared.end();
    let outcome = outcome?;
    for n in &outcome.notes {
        eprintln!("gcscope serve: {n}");
    }
    let how = match outcome.ended {
        Ended::Stopped => "stopped",
        Ended::ProcessExited => "the process exited or ended the session",
        Ended::CutShort => "cut short",
    };
    eprintln!(
        "gcscope serve: session ended ({how}): {} bytes in {:.1} s",
        outcome.bytes,
        outcome.elapsed.as_secs_f64()
    );
    if let Some(path) = &o.output {
        let (bytes, _) = shared.snapshot();
        std::fs::write(path, bytes).map_err(|e| (1, format!("{path}: {e}")))?;
        eprintln!("gcscope serve: wrote {path}");
    }
    if o.exit_when_done {
        shared.drain(std::time::Duration::from_secs(5));
    } else {
        eprintln!("gcscope serve: the trace is at {base}trace.nettrace; Ctrl-C exits");
        let seen = live::signals::interrupts();
        while live::signals::interrupts() == seen {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
    Ok(match outcome.ended {
        Ended::ProcessExited => live::EXIT_PROCESS_EXITED,
        _ => 0,
    })
}
