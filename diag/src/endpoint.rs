//! Where a process's diagnostics server listens, and the connection to it.
//!
//! On Linux and macOS the runtime listens on a Unix domain socket named
//! `dotnet-diagnostic-{pid}-{key}-socket` in its `$TMPDIR` (`/tmp` when unset), `{key}` being the
//! process's start time, so a stale socket of an earlier process with the same pid has a smaller
//! key. A process in a container names the socket with its pid inside its own pid namespace (the
//! last `NSpid` of `/proc/PID/status`) and has its own `/tmp`, reached from outside as
//! `/proc/PID/root/tmp`. On Windows the server is the named pipe `\\.\pipe\dotnet-diagnostic-{pid}`.

use std::io;
use std::path::{Path, PathBuf};

use crate::Error;

/// A connection to a diagnostics server: a Unix domain socket, or on Windows the pipe opened as a
/// file.
#[cfg(unix)]
pub type Conn = std::os::unix::net::UnixStream;
#[cfg(windows)]
pub type Conn = std::fs::File;

/// A .NET process's diagnostics endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The pid as this machine's `ps` shows it.
    pub pid: u32,
    /// The pid inside the process's own pid namespace (the same as `pid` outside containers).
    pub ns_pid: u32,
    /// The socket (or pipe) path.
    pub path: PathBuf,
}

impl Endpoint {
    /// Whether the process runs in another pid namespace (a container).
    pub fn in_container(&self) -> bool {
        self.ns_pid != self.pid
    }

    /// Opens a new connection: the server answers one command per connection.
    pub fn connect(&self) -> Result<Conn, Error> {
        open(&self.path).map_err(|e| Error::from_connect(self, e))
    }
}

#[cfg(unix)]
fn open(path: &Path) -> io::Result<Conn> {
    std::os::unix::net::UnixStream::connect(path)
}

#[cfg(windows)]
fn open(path: &Path) -> io::Result<Conn> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
}

/// The pid a socket name belongs to and its key: `dotnet-diagnostic-{pid}-{key}-socket`.
pub fn parse_socket_name(name: &str) -> Option<(u32, u64)> {
    let rest = name
        .strip_prefix("dotnet-diagnostic-")?
        .strip_suffix("-socket")?;
    let (pid, key) = rest.split_once('-')?;
    Some((pid.parse().ok()?, key.parse().ok()?))
}

/// The pids in `/proc/PID/status`'s `NSpid` line, outermost first (Linux; None elsewhere or when
/// the process is gone).
pub fn ns_pids(pid: u32) -> Option<Vec<u32>> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("NSpid:"))?;
    let pids: Vec<u32> = line["NSpid:".len()..]
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect();
    (!pids.is_empty()).then_some(pids)
}

/// This process's temporary directory, where runtimes it can see put their sockets.
pub fn temp_dir() -> PathBuf {
    std::env::var_os("TMPDIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp"))
}

/// The folders that may hold `pid`'s socket: the process's own root's `/tmp` (and its `$TMPDIR`,
/// when its environment is readable), then ours.
#[cfg(unix)]
fn socket_dirs(pid: u32) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if cfg!(target_os = "linux") {
        let root = PathBuf::from(format!("/proc/{pid}/root"));
        if let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) {
            for kv in env.split(|&b| b == 0) {
                if let Some(v) = kv.strip_prefix(b"TMPDIR=") {
                    let v = String::from_utf8_lossy(v);
                    if v.starts_with('/') {
                        dirs.push(root.join(v.trim_start_matches('/')));
                    }
                }
            }
        }
        dirs.push(root.join("tmp"));
    }
    dirs.push(temp_dir());
    dirs
}

/// The newest socket of `ns_pid` in `dir` (largest key), or the error that stopped the search.
#[cfg(unix)]
fn newest_in(dir: &Path, ns_pid: u32) -> io::Result<Option<PathBuf>> {
    let mut best: Option<(u64, PathBuf)> = None;
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name();
        let Some((p, key)) = name.to_str().and_then(parse_socket_name) else {
            continue;
        };
        if p == ns_pid && best.as_ref().is_none_or(|(k, _)| key > *k) {
            best = Some((key, e.path()));
        }
    }
    Ok(best.map(|(_, p)| p))
}

/// Finds the diagnostics endpoint of process `pid`.
#[cfg(unix)]
pub fn find(pid: u32) -> Result<Endpoint, Error> {
    let ns_pid = ns_pids(pid).and_then(|v| v.last().copied()).unwrap_or(pid);
    if cfg!(target_os = "linux") && !Path::new(&format!("/proc/{pid}")).exists() {
        return Err(Error::NoProcess(pid));
    }
    let mut denied = None;
    let mut looked = Vec::new();
    for dir in socket_dirs(pid) {
        // Our own /tmp names sockets by host pids: only a process in no container is found there.
        if dir == temp_dir() && ns_pid != pid {
            continue;
        }
        match newest_in(&dir, ns_pid) {
            Ok(Some(path)) => return Ok(Endpoint { pid, ns_pid, path }),
            Ok(None) => looked.push(dir),
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                denied.get_or_insert(dir);
            }
            Err(_) => looked.push(dir),
        }
    }
    match denied {
        Some(dir) => Err(Error::PermissionDenied {
            pid,
            path: dir,
            in_container: ns_pid != pid,
        }),
        None => Err(Error::NotDotnet { pid, looked }),
    }
}

/// Finds the diagnostics endpoint of process `pid`: its named pipe.
#[cfg(windows)]
pub fn find(pid: u32) -> Result<Endpoint, Error> {
    let path = PathBuf::from(format!(r"\\.\pipe\dotnet-diagnostic-{pid}"));
    if !path.exists() {
        return Err(Error::NotDotnet {
            pid,
            looked: vec![path],
        });
    }
    Ok(Endpoint {
        pid,
        ns_pid: pid,
        path,
    })
}

/// Every .NET process whose endpoint this user can see: the sockets of our `$TMPDIR` whose process
/// is alive, and (Linux) the processes in containers, found through `/proc/PID/root/tmp`. Sorted by
/// pid.
#[cfg(unix)]
pub fn list() -> Vec<Endpoint> {
    let mut found: std::collections::BTreeMap<u32, (u64, Endpoint)> = Default::default();
    let mut add = |key: u64, ep: Endpoint| {
        let keep = found.get(&ep.pid).is_none_or(|(k, _)| key > *k);
        if keep {
            found.insert(ep.pid, (key, ep));
        }
    };
    let ours = temp_dir();
    if let Ok(rd) = std::fs::read_dir(&ours) {
        for e in rd.flatten() {
            let name = e.file_name();
            let Some((pid, key)) = name.to_str().and_then(parse_socket_name) else {
                continue;
            };
            if !alive(pid) {
                continue;
            }
            // A host pid that is some container's process of the same inner pid is not this one.
            if ns_pids(pid).is_some_and(|v| v.len() > 1) {
                continue;
            }
            add(
                key,
                Endpoint {
                    pid,
                    ns_pid: pid,
                    path: e.path(),
                },
            );
        }
    }
    if let Ok(rd) = std::fs::read_dir("/proc") {
        for e in rd.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            let Some(ns) = ns_pids(pid) else { continue };
            let inner = *ns.last().unwrap_or(&pid);
            if ns.len() < 2 {
                continue;
            }
            for dir in socket_dirs(pid) {
                if dir == ours {
                    continue;
                }
                if let Ok(Some(path)) = newest_in(&dir, inner) {
                    let key = path
                        .file_name()
                        .and_then(|n| n.to_str())
                        .and_then(parse_socket_name)
                        .map_or(0, |(_, k)| k);
                    add(
                        key,
                        Endpoint {
                            pid,
                            ns_pid: inner,
                            path,
                        },
                    );
                    break;
                }
            }
        }
    }
    found.into_values().map(|(_, ep)| ep).collect()
}

/// Every .NET process's named pipe.
#[cfg(windows)]
pub fn list() -> Vec<Endpoint> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(r"\\.\pipe\") {
        for e in rd.flatten() {
            let name = e.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.strip_prefix("dotnet-diagnostic-"))
                .and_then(|p| p.parse().ok())
            else {
                continue;
            };
            out.push(Endpoint {
                pid,
                ns_pid: pid,
                path: e.path(),
            });
        }
    }
    out.sort_by_key(|e| e.pid);
    out
}

/// Whether process `pid` exists (Linux: its `/proc` entry; elsewhere assumed).
pub fn alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_names() {
        assert_eq!(
            parse_socket_name("dotnet-diagnostic-4242-123456-socket"),
            Some((4242, 123456))
        );
        assert_eq!(parse_socket_name("dotnet-diagnostic-4242-socket"), None);
        assert_eq!(parse_socket_name("dotnet-diagnostic-x-1-socket"), None);
        assert_eq!(parse_socket_name("clr-debug-pipe-4242-in"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn own_nspid_is_our_pid_outside_a_container() {
        let me = std::process::id();
        let ns = ns_pids(me).expect("NSpid of our own process");
        assert_eq!(ns[0], me);
    }
}
