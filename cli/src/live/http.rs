//! The small HTTP/1.1 server of `gcscope serve`, on std's `TcpListener`, one thread per
//! connection: the app's built files and a session's bytes, to a browser on this machine.
//!
//! Every path starts with a random token, `/TOKEN/...`: the app's files use relative addresses
//! (Trunk's `public_url = "./"`), so the page at `/TOKEN/` loads them under the token too, and a
//! request without it gets 403. The `Host` header must name 127.0.0.1 or localhost with our port
//! (a DNS-rebinding page reaches us under its own name: 403). No response carries
//! `Access-Control-Allow-Origin`, so no other origin's script can read one.
//!
//! Under the token: `stream` is the session's NetTrace bytes from the first, sent as chunks as
//! they arrive and ended when the session ends; `trace.nettrace` is the bytes so far (the whole
//! file once the session ended), as a download; `process` is what the runtime said of its process
//! before the session (`gcscope ps --json`'s row, as JSON): the runtime's version and the command
//! line, which the stream itself says only in the rundown at its end; `POST stop` ends the session;
//! anything else is a file of the app's folder (`index.html` for the folder itself).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// What the session thread and the connections share.
#[derive(Default)]
pub struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    bytes: Vec<u8>,
    ended: bool,
    /// Streams being sent now.
    streams: usize,
}

impl Shared {
    /// Appends the session's next bytes and wakes the streams.
    pub fn push(&self, d: &[u8]) {
        if let Ok(mut s) = self.state.lock() {
            s.bytes.extend_from_slice(d);
        }
        self.changed.notify_all();
    }

    /// The session ended: the streams end once they have sent everything.
    pub fn end(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.ended = true;
        }
        self.changed.notify_all();
    }

    /// Bytes from `from` on, waiting up to `wait` for some; `None` once the session ended and
    /// all were taken.
    fn next(&self, from: usize, wait: Duration) -> Option<Vec<u8>> {
        let s = self.state.lock().ok()?;
        let (s, _) = self
            .changed
            .wait_timeout_while(s, wait, |s| s.bytes.len() <= from && !s.ended)
            .ok()?;
        if s.bytes.len() > from {
            Some(s.bytes[from..].to_vec())
        } else if s.ended {
            None
        } else {
            Some(Vec::new())
        }
    }

    /// Waits, up to `wait`, until every stream has sent its end (before the process exits).
    pub fn drain(&self, wait: Duration) {
        if let Ok(s) = self.state.lock() {
            let _ = self.changed.wait_timeout_while(s, wait, |s| s.streams > 0);
        }
    }

    fn stream_count(&self, delta: isize) {
        if let Ok(mut s) = self.state.lock() {
            s.streams = s.streams.saturating_add_signed(delta);
        }
        self.changed.notify_all();
    }

    pub fn snapshot(&self) -> (Vec<u8>, bool) {
        self.state
            .lock()
            .map(|s| (s.bytes.clone(), s.ended))
            .unwrap_or_default()
    }
}

/// The server's settings.
pub struct Server {
    pub token: String,
    pub port: u16,
    pub dist: PathBuf,
    pub shared: Arc<Shared>,
    /// The `process` address's JSON.
    pub process: Vec<u8>,
    /// Called when the app asks the session to stop.
    pub on_stop: Arc<dyn Fn() + Send + Sync>,
}

/// A random token of 128 bits, as hex: from the OS's random source, else from the clock and the
/// pid through std's randomly keyed hasher.
pub fn token() -> String {
    let mut b = [0u8; 16];
    let ok = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .is_ok();
    if !ok {
        use std::hash::{BuildHasher, Hasher};
        for (i, chunk) in b.chunks_mut(8).enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            h.write_u32(std::process::id());
            h.write_usize(i);
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Binds 127.0.0.1:`port` (0: any free port).
pub fn bind(port: u16) -> std::io::Result<TcpListener> {
    TcpListener::bind(("127.0.0.1", port))
}

/// Serves connections until the process exits.
pub fn serve(listener: TcpListener, server: Arc<Server>) {
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let server = server.clone();
            std::thread::spawn(move || {
                let _ = handle(conn, &server);
            });
        }
    });
}

struct Request {
    method: String,
    path: String,
    host: Option<String>,
}

/// The request line and the Host header; the headers may take 16 KiB at most.
fn read_request(conn: &TcpStream) -> std::io::Result<Option<Request>> {
    conn.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut r = BufReader::new(conn.take(16 * 1024));
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Ok(None);
    };
    let (method, path) = (method.to_string(), path.to_string());
    let mut host = None;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 {
            return Ok(None);
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("host") {
                host = Some(v.trim().to_string());
            }
        }
    }
    Ok(Some(Request { method, path, host }))
}

fn respond(
    conn: &mut TcpStream,
    status: &str,
    ctype: &str,
    body: &[u8],
    extra: &str,
) -> std::io::Result<()> {
    write!(
        conn,
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\nConnection: close\r\n{extra}\r\n",
        body.len()
    )?;
    conn.write_all(body)?;
    conn.flush()
}

fn forbidden(conn: &mut TcpStream) -> std::io::Result<()> {
    respond(conn, "403 Forbidden", "text/plain", b"forbidden\n", "")
}

fn handle(mut conn: TcpStream, server: &Server) -> std::io::Result<()> {
    let Some(req) = read_request(&conn)? else {
        return Ok(());
    };
    let hosts = [
        format!("127.0.0.1:{}", server.port),
        format!("localhost:{}", server.port),
    ];
    if !req.host.as_ref().is_some_and(|h| hosts.contains(h)) {
        return forbidden(&mut conn);
    }
    let path = req.path.split(['?', '#']).next().unwrap_or("");
    let Some(rest) = path
        .strip_prefix('/')
        .and_then(|p| p.strip_prefix(server.token.as_str()))
    else {
        return forbidden(&mut conn);
    };
    let rest = match rest.strip_prefix('/') {
        Some(r) => r,
        None if rest.is_empty() => {
            // `/TOKEN` alone: the folder, so that relative addresses resolve under the token.
            let to = format!("Location: /{}/\r\n", server.token);
            return respond(&mut conn, "301 Moved Permanently", "text/plain", b"", &to);
        }
        None => return forbidden(&mut conn),
    };
    match (req.method.as_str(), rest) {
        ("GET", "stream") => stream(conn, server),
        ("GET", "trace.nettrace") => {
            let (bytes, _) = server.shared.snapshot();
            respond(
                &mut conn,
                "200 OK",
                "application/octet-stream",
                &bytes,
                "Content-Disposition: attachment; filename=\"live.nettrace\"\r\n",
            )
        }
        ("GET", "process") => respond(&mut conn, "200 OK", "application/json", &server.process, ""),
        ("POST", "stop") => {
            (server.on_stop)();
            respond(&mut conn, "200 OK", "text/plain", b"stopping\n", "")
        }
        ("GET" | "HEAD", file) => match app_file(&server.dist, file) {
            Some((bytes, ctype)) => {
                if req.method == "HEAD" {
                    respond(&mut conn, "200 OK", ctype, b"", "")
                } else {
                    respond(&mut conn, "200 OK", ctype, &bytes, "")
                }
            }
            None => respond(&mut conn, "404 Not Found", "text/plain", b"not found\n", ""),
        },
        _ => respond(
            &mut conn,
            "405 Method Not Allowed",
            "text/plain",
            b"method not allowed\n",
            "",
        ),
    }
}

/// The session's bytes as chunks (`Transfer-Encoding: chunked`), from the first, as they come.
fn stream(conn: TcpStream, server: &Server) -> std::io::Result<()> {
    server.shared.stream_count(1);
    let r = send_stream(conn, server);
    server.shared.stream_count(-1);
    r
}

fn send_stream(mut conn: TcpStream, server: &Server) -> std::io::Result<()> {
    conn.set_nodelay(true)?;
    write!(
        conn,
        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
    )?;
    let mut sent = 0usize;
    while let Some(d) = server.shared.next(sent, Duration::from_secs(1)) {
        if d.is_empty() {
            continue;
        }
        write!(conn, "{:x}\r\n", d.len())?;
        conn.write_all(&d)?;
        conn.write_all(b"\r\n")?;
        conn.flush()?;
        sent += d.len();
    }
    conn.write_all(b"0\r\n\r\n")?;
    conn.flush()
}

/// A file of the app's folder and its type; `None` for a path that is not plainly inside it.
fn app_file(dist: &Path, rel: &str) -> Option<(Vec<u8>, &'static str)> {
    let rel = if rel.is_empty() { "index.html" } else { rel };
    if rel
        .split('/')
        .any(|s| s.is_empty() || s == "." || s == ".." || s.contains(['\\', '%', ':']))
    {
        return None;
    }
    let p = dist.join(rel);
    let p = if p.is_dir() { p.join("index.html") } else { p };
    let bytes = std::fs::read(&p).ok()?;
    Some((bytes, content_type(&p)))
}

fn content_type(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript",
        "wasm" => "application/wasm",
        "css" => "text/css",
        "json" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_bits_of_hex_and_differ() {
        let (a, b) = (token(), token());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn paths_outside_the_folder_are_refused() {
        let dir = std::env::temp_dir().join(format!("gcscope-http-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("index.html"), b"<html>").unwrap();
        std::fs::write(dir.join("sub/a.wasm"), b"\0asm").unwrap();
        assert_eq!(app_file(&dir, "").unwrap().1, "text/html; charset=utf-8");
        assert_eq!(app_file(&dir, "sub/a.wasm").unwrap().1, "application/wasm");
        for bad in [
            "../index.html",
            "sub/../index.html",
            "%2e%2e/x",
            "sub//a.wasm",
            "/etc/passwd",
        ] {
            assert!(app_file(&dir, bad).is_none(), "{bad}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_stream_reader_gets_every_byte_then_the_end() {
        let s = Shared::default();
        s.push(b"abc");
        assert_eq!(s.next(0, Duration::ZERO).unwrap(), b"abc");
        assert_eq!(s.next(3, Duration::ZERO).unwrap(), b"");
        s.push(b"de");
        s.end();
        assert_eq!(s.next(3, Duration::ZERO).unwrap(), b"de");
        assert!(s.next(5, Duration::ZERO).is_none());
    }
}
