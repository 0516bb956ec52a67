//! gcscope-diag: a client of the .NET runtime's diagnostics IPC, the protocol `dotnet-trace` and
//! `dotnet-counters` speak, std only and native only (WebAssembly cannot open sockets).
//!
//! - [`protocol`]: the messages as bytes (header, strings, CollectTracing payloads, ProcessInfo).
//! - [`endpoint`]: where a process listens (socket names, containers, Windows' pipe), connecting.
//! - [`client`]: the commands: ProcessInfo (2, then 1), CollectTracing (3, then 2), StopTracing.
//! - [`reverse`]: reverse connect, the runtime connecting to us (`DOTNET_DiagnosticPorts`),
//!   ResumeRuntime.
//!
//! The protocol's facts are in docs/reference/formats.md ("Diagnostics IPC"); why this crate sits
//! beside core rather than in the CLI is in docs/design/architecture.md ("Live sessions").

pub mod client;
pub mod endpoint;
pub mod protocol;
pub mod reverse;

use std::io;
use std::path::PathBuf;

pub use client::{process_info, start, stop, Session, Started};
pub use endpoint::{find, list, Endpoint};
pub use protocol::{Advertise, ProcessInfo, Provider, SessionConfig};
pub use reverse::Listener;

/// What went wrong talking to a process; each kind has its own exit status in the CLI.
#[derive(Debug)]
pub enum Error {
    /// No process has this pid.
    NoProcess(u32),
    /// The process has no diagnostics socket: not .NET, or started with `DOTNET_EnableDiagnostics=0`.
    NotDotnet { pid: u32, looked: Vec<PathBuf> },
    /// The socket or the folder holding it is not ours to open.
    PermissionDenied {
        pid: u32,
        path: PathBuf,
        in_container: bool,
    },
    /// The socket is there but nothing answers (the process is gone or exiting).
    Refused { pid: u32, path: PathBuf },
    /// The runtime answered a command with an error code (e.g. UNKNOWN_COMMAND).
    Runtime { command: &'static str, code: u32 },
    /// The runtime's reply is not what the protocol says.
    Protocol(String),
    /// Any other I/O error.
    Io(io::Error),
}

impl Error {
    fn from_connect(ep: &Endpoint, e: io::Error) -> Error {
        match e.kind() {
            io::ErrorKind::PermissionDenied => Error::PermissionDenied {
                pid: ep.pid,
                path: ep.path.clone(),
                in_container: ep.in_container(),
            },
            io::ErrorKind::ConnectionRefused | io::ErrorKind::NotFound => Error::Refused {
                pid: ep.pid,
                path: ep.path.clone(),
            },
            _ => Error::Io(e),
        }
    }

    /// Whether the runtime does not know the command (an older runtime): the caller falls back.
    pub fn is_unknown_command(&self) -> bool {
        matches!(self, Error::Runtime { code, .. } if *code == protocol::E_UNKNOWN_COMMAND)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NoProcess(pid) => write!(f, "no process has pid {pid}"),
            Error::NotDotnet { pid, looked } => {
                let dirs: Vec<String> = looked.iter().map(|d| d.display().to_string()).collect();
                write!(
                    f,
                    "process {pid} is not a .NET process with a diagnostics server: no \
                     dotnet-diagnostic-{pid}-*-socket in {} (.NET Core 3.0 or later, not started \
                     with DOTNET_EnableDiagnostics=0)",
                    dirs.join(", ")
                )
            }
            Error::PermissionDenied {
                pid,
                path,
                in_container,
            } => {
                write!(
                    f,
                    "permission denied opening {} of process {pid}: run gcscope as the process's \
                     user or as root",
                    path.display()
                )?;
                if *in_container {
                    write!(
                        f,
                        "; the process is in a container: run gcscope as root on the host, or \
                         inside the container (docker exec / kubectl exec, or a sidecar sharing \
                         its /tmp and pid namespace)"
                    )?;
                }
                Ok(())
            }
            Error::Refused { pid, path } => write!(
                f,
                "process {pid}'s diagnostics socket {} does not answer: the process has exited \
                 or is exiting",
                path.display()
            ),
            Error::Runtime { command, code } => write!(
                f,
                "the runtime answered {command} with {} (0x{code:08X})",
                protocol::error_name(*code)
            ),
            Error::Protocol(m) => write!(f, "diagnostics IPC: {m}"),
            Error::Io(e) => write!(f, "diagnostics IPC: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Io(e)
    }
}
