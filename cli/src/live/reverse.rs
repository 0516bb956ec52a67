//! Reverse connect for `collect -- CMD ARGS`: gcscope listens on a socket of its own, starts CMD
//! with `DOTNET_DiagnosticPorts` naming it (connect, suspend), and takes the runtime's connections
//! as they come (`gcscope_diag::Listener`): the first starts the session, the next resumes the
//! runtime, a later one carries StopTracing. The session so sees the process from before its
//! first managed code: every GC is in it.
//!
//! The child shares gcscope's stdin, stdout and stderr. When the session ends because the child
//! exited, its exit status is reported; when gcscope stops it first (Ctrl-C, `--duration`), the
//! child, started for the trace, is killed once the stream is complete.

use std::process::{Child, Command, ExitStatus};
use std::sync::Arc;
use std::time::Duration;

use gcscope_diag::{Listener, SessionConfig, Started};

use super::{failure, Ended, Failure, Feed, Flow, Outcome, EXIT_NOT_DOTNET};

/// How long the child's runtime may take to connect (a runtime before .NET 5 never does).
const CONNECT_WAIT: Duration = Duration::from_secs(30);
/// How long each later connection (resume, stop) may take: the runtime opens it at once.
const NEXT_WAIT: Duration = Duration::from_secs(10);

/// A session of a child process and how the child ended.
pub struct Launched {
    pub outcome: Outcome,
    /// The child's exit status; `None` when gcscope killed it after stopping the session.
    pub child: Option<ExitStatus>,
}

fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Starts `command` with its runtime connecting to us, records a session of it until it exits or
/// gcscope stops it, and resumes it once the session is on.
pub fn run(
    command: &[String],
    config: &SessionConfig,
    duration: Option<Duration>,
    on_start: &mut dyn FnMut(&Started, u64),
    consume: &mut dyn FnMut(Feed<'_>) -> Flow,
) -> Result<Launched, Failure> {
    super::signals::install();
    let (program, args) = command
        .split_first()
        .ok_or_else(|| (2, "no command after --".to_string()))?;
    let listener = Listener::bind(&gcscope_diag::endpoint::temp_dir())
        .map_err(|e| (1, format!("cannot listen for the runtime: {e}")))?;
    let listener = Arc::new(listener);
    let mut child = Command::new(program)
        .args(args)
        .env("DOTNET_DiagnosticPorts", listener.port_setting())
        .spawn()
        .map_err(|e| (1, format!("cannot start {program}: {e}")))?;
    let mut exited: Option<ExitStatus> = None;
    let start = listener.start(config, CONNECT_WAIT, &mut || {
        if exited.is_none() {
            exited = child.try_wait().ok().flatten();
        }
        exited.is_some()
    });
    let (ad, started) = match start {
        Ok(x) => x,
        Err(e) => {
            let msg = match exited {
                Some(s) => format!(
                    "{program} exited ({s}) before its runtime connected: not .NET 5 or later, \
                     or its diagnostics are off (DOTNET_EnableDiagnostics=0)"
                ),
                None => {
                    kill(&mut child);
                    match &e {
                        gcscope_diag::Error::Io(io)
                            if io.kind() == std::io::ErrorKind::TimedOut =>
                        {
                            format!(
                                "{program}'s runtime did not connect within {:.0} s (reverse \
                                 connect needs .NET 5 or later); it was stopped",
                                CONNECT_WAIT.as_secs_f64()
                            )
                        }
                        _ => return Err(failure(&e)),
                    }
                }
            };
            return Err((EXIT_NOT_DOTNET, msg));
        }
    };
    on_start(&started, ad.pid);
    if let Err(e) = listener.resume(NEXT_WAIT) {
        kill(&mut child);
        let (code, msg) = failure(&e);
        return Err((code, format!("ResumeRuntime: {msg}")));
    }
    let l = listener.clone();
    let outcome = super::run_started(
        started,
        Arc::new(move |id| l.stop(id, NEXT_WAIT)),
        duration,
        consume,
    );
    let outcome = match outcome {
        Ok(o) => o,
        Err(f) => {
            kill(&mut child);
            return Err(f);
        }
    };
    let status = if outcome.ended == Ended::ProcessExited {
        child.wait().ok()
    } else {
        match child.try_wait() {
            Ok(Some(s)) => Some(s),
            _ => {
                kill(&mut child);
                None
            }
        }
    };
    Ok(Launched {
        outcome,
        child: status,
    })
}
