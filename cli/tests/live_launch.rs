//! `gcscope collect -- CMD` (reverse connect) and `gcscope serve --pid P` against real runtimes
//! from tools/tracegen's cache, running its `live` workload (tools/tracegen/live.sh), whose own
//! output is the truth (see live_cmds.rs). Each runtime skips, saying so, when it is not cached.
//!
//! Reverse connect: gcscope starts the workload suspended, so the file holds every GC of the
//! process, 1 to the runtime's own `GC.CollectionCount(0)` at its end, and the stream is complete.
//! .NET Core 3.1 never connects (reverse connect is .NET 5 and later): exit status 4.
//!
//! Serve: on .NET 9 the server's refusals, what it says of the process, Stop and a complete
//! stream; on each of the four runtimes a session's stream holds every GC the runtime counted
//! after it attached.

mod live_support;

use live_support::{cached, lines, root, wait_for};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

fn reverse_on(rt: &str) {
    if !cached(rt) {
        return;
    }
    let dir = std::env::temp_dir().join(format!("gcscope-reverse-{rt}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let oracle = dir.join("oracle.json");
    let file = dir.join("launched.nettrace");
    let mut c = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(["collect", "-o", file.to_str().expect("path"), "--"])
        .arg(root().join("tools/tracegen/live.sh"))
        .args([rt, oracle.to_str().expect("path")])
        .env("GCSCOPE_LIVE_GCS", "6")
        .env("GCSCOPE_LIVE_EVERY_MS", "20")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gcscope collect --");
    let out = lines(c.stdout.take().expect("stdout"));
    let err = lines(c.stderr.take().expect("stderr"));
    let mut seen = Vec::new();
    // The workload's `ready` comes only after the session started and the runtime resumed.
    assert!(
        wait_for(&out, "ready", &mut seen, 60),
        "{rt}: the launched workload did not start: {seen:?} {:?}",
        err.try_iter().collect::<Vec<_>>()
    );
    c.stdin
        .take()
        .expect("stdin")
        .write_all(b"go\n")
        .expect("go");
    let status = c.wait().expect("collect");
    // Its last lines may still be on their way through the reading thread.
    let mut errs = Vec::new();
    let exited = wait_for(&err, "exited (exit status: 0)", &mut errs, 10);
    assert_eq!(status.code(), Some(0), "{rt}: collect --: {errs:?}");
    assert!(exited, "{rt}: {errs:?}");
    let o: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&oracle).expect("oracle")).expect("oracle JSON");
    let total = o["collection_count"]["gen0"].as_u64().expect("count") as u32;
    let bytes = std::fs::read(&file).expect("the file");
    let mut reader = gcscope_core::TraceReader::new();
    reader.push(&bytes, &mut |_| {}).expect("the file reads");
    reader.finish(&mut |_| {}).expect("the file is complete");
    let model = gcscope_core::gc::analyze(&bytes).expect("model");
    let numbers: Vec<u32> = model
        .gcs
        .iter()
        .filter(|g| g.complete)
        .map(|g| g.number)
        .collect();
    assert_eq!(
        numbers,
        (1..=total).collect::<Vec<_>>(),
        "{rt}: the file's GCs are every GC of the process"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reverse_connect_net8() {
    reverse_on("net8.0");
}

#[test]
fn reverse_connect_net9() {
    reverse_on("net9.0");
}

#[test]
fn reverse_connect_net10() {
    reverse_on("net10.0");
}

/// .NET Core 3.1 knows no DOTNET_DiagnosticPorts: it runs, never connects, exits; gcscope says
/// so with exit status 4.
#[test]
fn reverse_connect_needs_net5() {
    if !cached("netcore3.1") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("gcscope-reverse-31-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut c = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(["collect", "-o"])
        .arg(dir.join("x.nettrace"))
        .arg("--")
        .arg(root().join("tools/tracegen/live.sh"))
        .args(["netcore3.1", "/dev/null"])
        .env("GCSCOPE_LIVE_GCS", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gcscope");
    let out = lines(c.stdout.take().expect("stdout"));
    assert!(wait_for(&out, "ready", &mut Vec::new(), 60));
    c.stdin
        .take()
        .expect("stdin")
        .write_all(b"go\n")
        .expect("go");
    let o = c.wait_with_output().expect("collect");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.contains("before its runtime connected"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// One HTTP/1.1 request to 127.0.0.1:`port`: the status code, the headers and the body (chunked
/// bodies joined), read to the connection's end.
fn http(port: u16, method: &str, path: &str, host: &str) -> (u16, String, Vec<u8>) {
    use std::io::Read;
    let mut c = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        c,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\n\r\n"
    )
    .expect("send");
    let mut raw = Vec::new();
    c.read_to_end(&mut raw).expect("read");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("headers end");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut body = raw[split + 4..].to_vec();
    let code: u16 = head[9..12].parse().expect("status");
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = Vec::new();
        let mut rest = &body[..];
        loop {
            let eol = rest
                .windows(2)
                .position(|w| w == b"\r\n")
                .expect("chunk size");
            let n = usize::from_str_radix(std::str::from_utf8(&rest[..eol]).expect("hex"), 16)
                .expect("chunk size");
            if n == 0 {
                break;
            }
            out.extend_from_slice(&rest[eol + 2..eol + 2 + n]);
            rest = &rest[eol + 4 + n..];
        }
        body = out;
    }
    (code, head, body)
}

/// A `gcscope serve` on `pid` with the app folder `dist`: the child, its port and token.
fn serve(pid: u32, dist: &std::path::Path) -> (std::process::Child, u16, String) {
    let mut s = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args([
            "serve",
            "--pid",
            &pid.to_string(),
            "--exit-when-done",
            "--dist",
        ])
        .arg(dist)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gcscope serve");
    let err = lines(s.stderr.take().expect("stderr"));
    let mut seen = Vec::new();
    assert!(
        wait_for(&err, "?live=stream", &mut seen, 30),
        "serve: {seen:?}"
    );
    let url = seen
        .iter()
        .find_map(|l| l.trim().strip_prefix("http://127.0.0.1:"))
        .expect("the URL");
    let (port, rest) = url.split_once('/').expect("port/token");
    let token = rest.split('/').next().expect("token").to_string();
    std::thread::spawn(move || for _ in err.iter() {});
    (s, port.parse().expect("port"), token)
}

/// A `live` workload of runtime `rt` (6 GCs 100 ms apart once told `go`), ready; the oracle file
/// it writes at its end, and the runtime's version as it printed it (Environment.Version).
fn workload(rt: &str, dir: &std::path::Path) -> (std::process::Child, PathBuf, String) {
    let oracle = dir.join(format!("oracle-{rt}.json"));
    let mut w = Command::new(root().join("tools/tracegen/live.sh"))
        .args([rt, oracle.to_str().expect("path")])
        .env("GCSCOPE_LIVE_GCS", "6")
        .env("GCSCOPE_LIVE_EVERY_MS", "100")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("live.sh");
    let out = lines(w.stdout.take().expect("stdout"));
    let mut wl = Vec::new();
    assert!(wait_for(&out, "ready", &mut wl, 60), "{rt}: {wl:?}");
    let version = wl
        .iter()
        .find_map(|l| l.strip_prefix("runtime "))
        .unwrap_or_else(|| panic!("{rt}: no runtime line in {wl:?}"))
        .to_string();
    (w, oracle, version)
}

/// A test's folder, with a one-page app build in `dist/`; and that page.
fn serve_dir(name: &str) -> (PathBuf, PathBuf, &'static [u8]) {
    let dir = std::env::temp_dir().join(format!("gcscope-{name}-{}", std::process::id()));
    let dist = dir.join("dist");
    std::fs::create_dir_all(&dist).expect("temp dir");
    let page = b"<!doctype html><title>gcscope test page</title>";
    std::fs::write(dist.join("index.html"), page).expect("index.html");
    (dir, dist, page)
}

/// A `serve` session's stream, read as it comes while the workload makes its GCs, decodes to
/// every GC the runtime counted after the session attached; the process's end ends `serve`
/// (status 6).
fn serve_stream_gcs(
    rt: &str,
    w: &mut std::process::Child,
    oracle: &std::path::Path,
    dist: &std::path::Path,
) {
    let (s, port, token) = serve(w.id(), dist);
    let host = format!("127.0.0.1:{port}");
    let stream = std::thread::spawn(move || http(port, "GET", &format!("/{token}/stream"), &host));
    std::thread::sleep(Duration::from_millis(300));
    w.stdin
        .take()
        .expect("stdin")
        .write_all(b"go\n")
        .expect("go");
    let (code, _, bytes) = stream.join().expect("stream");
    assert_eq!(code, 200);
    assert!(w.wait().expect("workload").success());
    let o = s.wait_with_output().expect("serve");
    assert_eq!(
        o.status.code(),
        Some(6),
        "{rt}: serve past the process's end"
    );
    let o: serde_json::Value =
        serde_json::from_slice(&std::fs::read(oracle).expect("oracle")).expect("oracle JSON");
    let at_go = o["collection_count_at_go"]["gen0"].as_u64().expect("at go") as u32;
    let total = o["collection_count"]["gen0"].as_u64().expect("count") as u32;
    let model = gcscope_core::gc::analyze(&bytes).expect("the stream's model");
    let numbers: Vec<u32> = model
        .gcs
        .iter()
        .filter(|g| g.complete)
        .map(|g| g.number)
        .collect();
    assert_eq!(
        numbers,
        (at_go + 1..=total).collect::<Vec<_>>(),
        "{rt}: the stream's GCs"
    );
}

/// `serve` on .NET 9: the token, the Host check and the app's file; Stop ends a session with a
/// complete stream; a second session's stream decodes to every GC the workload made after it
/// attached.
#[test]
fn serve_net9() {
    let rt = "net9.0";
    if !cached(rt) {
        return;
    }
    let (dir, dist, page) = serve_dir("serve");
    let (mut w, oracle, version) = workload(rt, &dir);

    // First session: the checks, then Stop.
    let (mut s, port, token) = serve(w.id(), &dist);
    let host = format!("127.0.0.1:{port}");
    assert_eq!(http(port, "GET", "/", &host).0, 403, "no token");
    assert_eq!(http(port, "GET", "/index.html", &host).0, 403, "no token");
    let wrong = "0".repeat(token.len());
    assert_eq!(
        http(port, "GET", &format!("/{wrong}/"), &host).0,
        403,
        "a wrong token"
    );
    assert_eq!(http(port, "GET", &format!("/{wrong}/stream"), &host).0, 403);
    assert_eq!(
        http(port, "GET", &format!("/{token}/"), "evil.example:80").0,
        403,
        "another Host"
    );
    let (code, head, body) = http(port, "GET", &format!("/{token}/?live=stream"), &host);
    assert_eq!((code, body.as_slice()), (200, page));
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("access-control-allow-origin"),
        "{head}"
    );
    assert_eq!(http(port, "GET", &format!("/{token}/../x"), &host).0, 404);
    // `process`: what the runtime says of its process, against the kernel's command line and the
    // version the workload printed.
    assert_eq!(
        http(port, "GET", &format!("/{wrong}/process"), &host).0,
        403
    );
    let (code, _, body) = http(port, "GET", &format!("/{token}/process"), &host);
    assert_eq!(code, 200);
    let p: serde_json::Value = serde_json::from_slice(&body).expect("process JSON");
    assert_eq!(p["pid"].as_u64(), Some(u64::from(w.id())), "{p}");
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", w.id())).expect("cmdline");
    let cmdline = String::from_utf8_lossy(&cmdline);
    let words: Vec<&str> = cmdline.trim_end_matches('\0').split('\0').collect();
    let shown = p["command_line"].as_str().expect("command_line");
    for word in &words[1..] {
        assert!(shown.contains(word), "{shown:?} lacks {word:?}");
    }
    let shown = p["runtime_version"].as_str().expect("runtime_version");
    assert!(shown.starts_with(&version), "{shown} against {version}");
    let (t2, h2) = (token.clone(), host.clone());
    let stream = std::thread::spawn(move || http(port, "GET", &format!("/{t2}/stream"), &h2));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(http(port, "POST", &format!("/{token}/stop"), &host).0, 200);
    let (code, _, bytes) = stream.join().expect("stream");
    assert_eq!(code, 200);
    assert_eq!(
        s.wait().expect("serve").code(),
        Some(0),
        "{rt}: serve after Stop"
    );
    let mut reader = gcscope_core::TraceReader::new();
    reader.push(&bytes, &mut |_| {}).expect("the stream reads");
    reader
        .finish(&mut |_| {})
        .expect("the stopped stream is complete");

    // Second session: the GCs, read from the stream as they come; the process exits (status 6).
    serve_stream_gcs(rt, &mut w, &oracle, &dist);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The stream of a `serve` session on the other runtimes (the checks of the server itself are
/// the same code whatever the runtime: `serve_net9`).
fn serve_on(rt: &str) {
    if !cached(rt) {
        return;
    }
    let (dir, dist, _) = serve_dir(&format!("serve-{rt}"));
    let (mut w, oracle, _) = workload(rt, &dir);
    serve_stream_gcs(rt, &mut w, &oracle, &dist);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serve_netcoreapp31() {
    serve_on("netcore3.1");
}

#[test]
fn serve_net8() {
    serve_on("net8.0");
}

#[test]
fn serve_net10() {
    serve_on("net10.0");
}
