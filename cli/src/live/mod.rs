//! Live sessions over the diagnostics IPC (`gcscope-diag`): the session loop that `collect`,
//! `watch` and `gcdump` ([`gcdump`]) share, the profiles, Ctrl-C, and the exit codes a script can tell apart.
//!
//! The loop reads the session's stream on a thread of its own and hands the bytes on as they
//! come; when no byte has come for [`PAUSE`], it says so, so that a decoder delivers what it
//! holds (the runtime writes its buffers about every 100 ms, each flush whole). Stopping sends
//! StopTracing on a second connection from another thread while this one goes on reading: the
//! runtime writes the rundown into the stream before it answers, and then ends the stream.

pub mod gcdump;
pub mod http;
pub mod reverse;
pub mod signals;

use std::io::Read;
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

use gcscope_diag::{Endpoint, Provider, SessionConfig};

/// No data for this long is a pause between the runtime's flushes.
pub const PAUSE: Duration = Duration::from_millis(20);
/// How long to wait for the stream's end after StopTracing (a large rundown takes seconds).
const STOP_WAIT: Duration = Duration::from_secs(30);

/// Exit statuses of the live commands (0, 1 and 2 as everywhere: done, failed, usage).
pub const EXIT_NOT_DOTNET: u8 = 4;
pub const EXIT_PERMISSION: u8 = 5;
pub const EXIT_PROCESS_EXITED: u8 = 6;

/// A failure: the message and the exit status.
pub type Failure = (u8, String);

/// The exit status and message of a diagnostics error.
pub fn failure(e: &gcscope_diag::Error) -> Failure {
    use gcscope_diag::Error as E;
    let code = match e {
        E::NoProcess(_) | E::NotDotnet { .. } | E::Refused { .. } => EXIT_NOT_DOTNET,
        E::PermissionDenied { .. } => EXIT_PERMISSION,
        _ => 1,
    };
    (code, e.to_string())
}

/// Finds process `pid`'s endpoint.
pub fn endpoint(pid: u32) -> Result<Endpoint, Failure> {
    gcscope_diag::find(pid).map_err(|e| failure(&e))
}

/// What a session records.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// GC events at Informational (keyword 0x1), as dotnet-trace's gc-collect: the GC table
    Gc,
    /// Plus allocation ticks (Verbose), GC handles, loader and JIT events, stacks and the rundown
    GcVerbose,
    /// Plus the GC's survival and movement events (keyword 0x400000) at Verbose
    GcHeap,
}

pub const RUNTIME: &str = "Microsoft-Windows-DotNETRuntime";
const GC: u64 = 0x1;
const GC_HANDLE: u64 = 0x2;
const LOADER: u64 = 0x8;
const JIT: u64 = 0x10;
const GC_HEAP_SURVIVAL_AND_MOVEMENT: u64 = 0x40_0000;

impl Profile {
    /// The session for this profile. With the rundown asked for, the runtime enables its rundown
    /// provider (Microsoft-Windows-DotNETRuntimeRundown) when the session stops, so that the
    /// stacks' addresses resolve to methods.
    pub fn config(self) -> SessionConfig {
        let (keywords, level, rundown, stacks) = match self {
            Profile::Gc => (GC, 4, false, false),
            Profile::GcVerbose => (GC | GC_HANDLE | LOADER | JIT, 5, true, true),
            Profile::GcHeap => (GC | GC_HEAP_SURVIVAL_AND_MOVEMENT, 5, false, false),
        };
        SessionConfig {
            buffer_mb: 256,
            rundown,
            stacks,
            providers: vec![Provider {
                name: RUNTIME.into(),
                keywords,
                level,
                filter: String::new(),
            }],
        }
    }
}

/// What the loop hands its consumer.
pub enum Feed<'a> {
    Data(&'a [u8]),
    /// No data for [`PAUSE`]: the runtime is between flushes.
    Pause,
}

/// Whether the consumer wants more.
#[derive(PartialEq, Eq)]
pub enum Flow {
    More,
    Stop,
}

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Stopped by us (Ctrl-C, --duration, --count, a closed stdout), the stream complete.
    Stopped,
    /// The stream ended before we stopped it: the process exited (or ended the session).
    ProcessExited,
    /// Stopped by us, but the stream did not end in time (or a second Ctrl-C): cut short.
    CutShort,
}

pub struct Outcome {
    pub ended: Ended,
    pub bytes: u64,
    pub elapsed: Duration,
    /// What fell back or went wrong on the way, for the user.
    pub notes: Vec<String>,
}

enum Chunk {
    Data(Vec<u8>),
    End(Option<std::io::Error>),
}

/// Sends StopTracing for a session id, however the session's process is reached.
pub type Stopper = Arc<dyn Fn(u64) -> Result<(), gcscope_diag::Error> + Send + Sync>;

/// Runs a session until it stops: the consumer gets the stream's bytes and its pauses.
pub fn run(
    ep: &Endpoint,
    config: &SessionConfig,
    duration: Option<Duration>,
    on_start: &mut dyn FnMut(&gcscope_diag::Started),
    consume: &mut dyn FnMut(Feed<'_>) -> Flow,
) -> Result<Outcome, Failure> {
    signals::install();
    let started = gcscope_diag::start(ep, config).map_err(|e| failure(&e))?;
    on_start(&started);
    let ep = ep.clone();
    run_started(
        started,
        Arc::new(move |id| gcscope_diag::stop(&ep, id)),
        duration,
        consume,
    )
}

/// [`run`] for a session already started; `stopper` sends its StopTracing.
pub fn run_started(
    started: gcscope_diag::Started,
    stopper: Stopper,
    duration: Option<Duration>,
    consume: &mut dyn FnMut(Feed<'_>) -> Flow,
) -> Result<Outcome, Failure> {
    signals::install();
    let mut notes: Vec<String> = Vec::new();
    let id = started.session.id;
    let mut stream = started.session.stream;
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => {
                    let _ = tx.send(Chunk::End(None));
                    return;
                }
                Ok(n) => {
                    if tx.send(Chunk::Data(buf[..n].to_vec())).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let _ = tx.send(Chunk::End(Some(e)));
                    return;
                }
            }
        }
    });
    let t0 = Instant::now();
    let mut bytes = 0u64;
    let mut unreleased = false;
    let mut stop_sent: Option<Instant> = None;
    let mut stop_result: Option<mpsc::Receiver<Result<(), gcscope_diag::Error>>> = None;
    let interrupts_at_start = signals::interrupts();
    let ended = loop {
        let want_stop = stop_sent.is_none()
            && (signals::interrupts() > interrupts_at_start
                || duration.is_some_and(|d| t0.elapsed() >= d));
        if want_stop {
            stop_sent = Some(Instant::now());
            stop_result = Some(send_stop(&stopper, id));
        }
        if let Some(at) = stop_sent {
            if at.elapsed() > STOP_WAIT || signals::interrupts() > interrupts_at_start + 1 {
                notes.push("the stream did not end after StopTracing; what came is kept".into());
                break Ended::CutShort;
            }
        }
        match rx.recv_timeout(PAUSE) {
            Ok(Chunk::Data(d)) => {
                bytes += d.len() as u64;
                unreleased = true;
                if consume(Feed::Data(&d)) == Flow::Stop && stop_sent.is_none() {
                    stop_sent = Some(Instant::now());
                    stop_result = Some(send_stop(&stopper, id));
                }
            }
            Ok(Chunk::End(err)) => {
                if let Some(e) = err {
                    notes.push(format!("the session's stream failed: {e}"));
                }
                break if stop_sent.is_some() {
                    Ended::Stopped
                } else {
                    Ended::ProcessExited
                };
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if unreleased {
                    unreleased = false;
                    if consume(Feed::Pause) == Flow::Stop && stop_sent.is_none() {
                        stop_sent = Some(Instant::now());
                        stop_result = Some(send_stop(&stopper, id));
                    }
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break Ended::ProcessExited,
        }
    };
    consume(Feed::Pause);
    if let Some(r) = stop_result {
        if let Ok(Err(e)) = r.recv_timeout(Duration::from_millis(200)) {
            if ended != Ended::ProcessExited {
                notes.push(format!("StopTracing: {e}"));
            }
        }
    }
    Ok(Outcome {
        ended,
        bytes,
        elapsed: t0.elapsed(),
        notes,
    })
}

/// StopTracing from a thread of its own: its reply comes only once the stream has the rundown,
/// which this thread's caller is reading.
fn send_stop(stopper: &Stopper, id: u64) -> mpsc::Receiver<Result<(), gcscope_diag::Error>> {
    let (tx, rx) = mpsc::channel();
    let stopper = stopper.clone();
    thread::spawn(move || {
        let _ = tx.send(stopper(id));
    });
    rx
}

/// Parses `30s`, `2m`, `500ms`, `1h` or plain seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let n: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a duration (e.g. 30s, 2m, 500ms)"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("'{s}': unknown unit '{unit}' (ms, s, m, h)")),
    };
    if !secs.is_finite() || secs <= 0.0 {
        return Err(format!("'{s}': the duration must be positive"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("3 parsecs").is_err());
    }

    #[test]
    fn gc_profile_is_gc_collect() {
        let c = Profile::Gc.config();
        assert_eq!((c.providers[0].keywords, c.providers[0].level), (1, 4));
        assert!(!c.rundown && !c.stacks);
    }
}
