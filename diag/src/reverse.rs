//! Reverse connect: the tool listens and the runtime connects to it. A process started with
//! `DOTNET_DiagnosticPorts=ADDRESS,connect,suspend` (.NET 5 and later) opens a connection to
//! ADDRESS, writes its advertise message (`ADVR_V1`, cookie, pid) and then waits for one command
//! on it, as on a connection to its own server; it opens the next connection once that one is
//! taken. With `suspend` it runs no managed code until a ResumeRuntime comes, so a session
//! started first sees the process from its start.
//!
//! Unix only: the address is a Unix domain socket's path. On Windows the runtime connects to a
//! named pipe, which std cannot create; [`Listener::bind`] says so there.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::client::{exchange, start_with, Started};
use crate::endpoint::Conn;
use crate::protocol::{self, Advertise};
use crate::{Error, SessionConfig};

/// A socket in a folder of its own, only ours to open (0700), removed on drop.
pub struct Listener {
    #[cfg(unix)]
    inner: std::os::unix::net::UnixListener,
    dir: PathBuf,
    path: PathBuf,
}

/// How long the connection the runtime opens may take to say who it is.
const ADVERTISE_WAIT: Duration = Duration::from_secs(5);

impl Listener {
    /// Listens on `port.sock` in a new folder under `parent`.
    #[cfg(unix)]
    pub fn bind(parent: &Path) -> io::Result<Listener> {
        use std::os::unix::fs::DirBuilderExt;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = parent.join(format!("gcscope-{}-{nanos:08x}", std::process::id()));
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        let path = dir.join("port.sock");
        let inner = match std::os::unix::net::UnixListener::bind(&path) {
            Ok(l) => l,
            Err(e) => {
                let _ = std::fs::remove_dir(&dir);
                return Err(e);
            }
        };
        inner.set_nonblocking(true)?;
        Ok(Listener { inner, dir, path })
    }

    #[cfg(not(unix))]
    pub fn bind(_parent: &Path) -> io::Result<Listener> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "reverse connect is implemented for Unix domain sockets only (Linux, macOS)",
        ))
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The value of `DOTNET_DiagnosticPorts` that makes a runtime connect here and wait for
    /// ResumeRuntime: `address[,(listen|connect)][,(suspend|nosuspend)]`.
    pub fn port_setting(&self) -> String {
        format!("{},connect,suspend", self.path.display())
    }

    /// The next connection the runtime opens and its advertise message; `Err` (TimedOut) when
    /// none comes within `wait`, or when `give_up` says so first (a child that exited).
    #[cfg(unix)]
    pub fn accept(
        &self,
        wait: Duration,
        give_up: &mut dyn FnMut() -> bool,
    ) -> Result<(Advertise, Conn), Error> {
        let end = Instant::now() + wait;
        loop {
            match self.inner.accept() {
                Ok((mut conn, _)) => {
                    conn.set_nonblocking(false)?;
                    conn.set_read_timeout(Some(ADVERTISE_WAIT))?;
                    let mut b = [0u8; protocol::ADVERTISE_LEN];
                    conn.read_exact(&mut b)?;
                    conn.set_read_timeout(None)?;
                    let ad = protocol::parse_advertise(&b).map_err(Error::Protocol)?;
                    return Ok((ad, conn));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if Instant::now() >= end || give_up() {
                        return Err(Error::Io(io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!(
                                "no runtime connected to {} within {:.0} s",
                                self.path.display(),
                                wait.as_secs_f64()
                            ),
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::Io(e)),
            }
        }
    }

    #[cfg(not(unix))]
    pub fn accept(
        &self,
        _wait: Duration,
        _give_up: &mut dyn FnMut() -> bool,
    ) -> Result<(Advertise, Conn), Error> {
        Err(Error::Io(io::Error::from(io::ErrorKind::Unsupported)))
    }

    /// Starts a session on the runtime's next connection (a second one where it lacks
    /// CollectTracing3); the advertise message says which process it is.
    pub fn start(
        &self,
        config: &SessionConfig,
        wait: Duration,
        give_up: &mut dyn FnMut() -> bool,
    ) -> Result<(Advertise, Started), Error> {
        let mut first: Option<Advertise> = None;
        let started = start_with(
            &mut || {
                let (ad, conn) = self.accept(wait, give_up)?;
                first.get_or_insert(ad);
                Ok(conn)
            },
            config,
        )?;
        let ad = first.ok_or_else(|| Error::Protocol("no advertise message".into()))?;
        Ok((ad, started))
    }

    /// ResumeRuntime on the runtime's next connection.
    pub fn resume(&self, wait: Duration) -> Result<(), Error> {
        let (_, conn) = self.accept(wait, &mut || false)?;
        exchange(
            conn,
            "ResumeRuntime",
            protocol::SET_PROCESS,
            protocol::PROCESS_RESUME,
            &[],
        )
        .map(|_| ())
    }

    /// StopTracing for session `id` on the runtime's next connection (see [`crate::stop`]).
    pub fn stop(&self, id: u64, wait: Duration) -> Result<(), Error> {
        let (_, conn) = self.accept(wait, &mut || false)?;
        exchange(
            conn,
            "StopTracing",
            protocol::SET_EVENTPIPE,
            protocol::EVENTPIPE_STOP,
            &id.to_le_bytes(),
        )
        .map(|_| ())
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;

    /// A fake runtime: connects, advertises, reads one command and answers OK with `reply`.
    fn fake_runtime(path: PathBuf, pid: u64, reply: Vec<u8>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut c = std::os::unix::net::UnixStream::connect(path).expect("connect");
            let mut ad = b"ADVR_V1\0".to_vec();
            ad.extend_from_slice(&[7; 16]);
            ad.extend_from_slice(&pid.to_le_bytes());
            ad.extend_from_slice(&[0, 0]);
            c.write_all(&ad).expect("advertise");
            let mut h = [0u8; 20];
            c.read_exact(&mut h).expect("header");
            let size = u16::from_le_bytes([h[14], h[15]]) as usize;
            let mut cmd = h.to_vec();
            let mut body = vec![0u8; size - 20];
            c.read_exact(&mut body).expect("payload");
            cmd.extend_from_slice(&body);
            let ok = protocol::message(protocol::SET_SERVER, protocol::REPLY_OK, &reply).unwrap();
            c.write_all(&ok).expect("reply");
            cmd
        })
    }

    #[test]
    fn resume_and_stop_go_on_the_runtimes_connections() {
        let l = Listener::bind(&std::env::temp_dir()).expect("bind");
        assert!(l.port_setting().ends_with("/port.sock,connect,suspend"));
        let rt = fake_runtime(l.path().to_path_buf(), 99, vec![]);
        l.resume(Duration::from_secs(5)).expect("resume");
        let cmd = rt.join().unwrap();
        assert_eq!(&cmd[..14], b"DOTNET_IPC_V1\0");
        assert_eq!((cmd[16], cmd[17], cmd.len()), (0x04, 0x01, 20));
        let rt = fake_runtime(l.path().to_path_buf(), 99, vec![]);
        l.stop(0x1122, Duration::from_secs(5)).expect("stop");
        let cmd = rt.join().unwrap();
        assert_eq!((cmd[16], cmd[17]), (0x02, 0x01));
        assert_eq!(&cmd[20..], &0x1122u64.to_le_bytes());
        let rt = fake_runtime(l.path().to_path_buf(), 99, 0x55u64.to_le_bytes().to_vec());
        let config = SessionConfig {
            buffer_mb: 1,
            rundown: false,
            stacks: false,
            providers: vec![],
        };
        let (ad, s) = l
            .start(&config, Duration::from_secs(5), &mut || false)
            .expect("start");
        assert_eq!((ad.pid, s.session.id, s.version), (99, 0x55, 3));
        assert_eq!(rt.join().unwrap()[17], protocol::EVENTPIPE_COLLECT3);
        let dir = l.path().parent().unwrap().to_path_buf();
        drop(l);
        assert!(!dir.exists(), "the listener's folder is removed");
    }

    #[test]
    fn no_runtime_is_a_timeout() {
        let l = Listener::bind(&std::env::temp_dir()).expect("bind");
        let t = Instant::now();
        let e = l
            .accept(Duration::from_millis(50), &mut || false)
            .unwrap_err();
        assert!(matches!(e, Error::Io(ref e) if e.kind() == io::ErrorKind::TimedOut));
        assert!(t.elapsed() >= Duration::from_millis(50));
    }
}
