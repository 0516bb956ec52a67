//! `gcscope ps`, `collect` and `watch` against real runtimes: .NET Core 3.1, 8, 9 and 10 from
//! tools/tracegen's cache, running its `live` workload (tools/tracegen/live.sh), whose own output
//! is the truth: it makes a known number of induced GCs after the test has attached, printing
//! each GC's `GC.CollectionCount(0)` and the wall-clock time as it ended, and writes
//! `GC.CollectionCount` at its end. Each runtime skips, saying so, when it is not cached.
//!
//! On one process, at once: `ps` finds it; `watch --count N --json` prints GCs 1..N in order; a
//! `collect` running until the process exits writes a file whose GCs are the runtime's count (exit
//! status 6: the process exited during the session); a `collect --profile gc-verbose --duration`
//! stops with a complete file, its rundown included. TraceEvent reads both files with the same GCs. Then the faults: a pid that is not .NET, and
//! one that does not exist (exit status 4).

mod live_support;

use live_support::{lines, root, wait_for};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const GCS: u32 = 12;

fn gcscope(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gcscope")
}

fn live_on(rt: &str) {
    let dir = std::env::temp_dir().join(format!("gcscope-live-{rt}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let oracle = dir.join("oracle.json");
    let mut w = Command::new(root().join("tools/tracegen/live.sh"))
        .args([rt, oracle.to_str().expect("path")])
        .env("GCSCOPE_LIVE_GCS", GCS.to_string())
        .env("GCSCOPE_LIVE_EVERY_MS", "100")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tools/tracegen/live.sh");
    let pid = w.id();
    let out = lines(w.stdout.take().expect("stdout"));
    let mut wl = Vec::new();
    if !wait_for(&out, "ready", &mut wl, 120) {
        let status = w.wait().expect("wait");
        let mut err = String::new();
        let _ = std::io::Read::read_to_string(&mut w.stderr.take().expect("stderr"), &mut err);
        if status.code() == Some(3) {
            eprintln!("skipping {rt}: {}", err.trim());
            return;
        }
        panic!("{rt}: the live workload did not start ({status}): {err}");
    }
    let pid_s = pid.to_string();

    // ps finds it, with its runtime's version.
    let ps = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(["ps", "--json"])
        .output()
        .expect("ps");
    assert!(ps.status.success(), "{rt}: ps failed");
    let rows: serde_json::Value = serde_json::from_slice(&ps.stdout).expect("ps JSON");
    let row = rows
        .as_array()
        .and_then(|a| a.iter().find(|r| r["pid"] == pid))
        .unwrap_or_else(|| panic!("{rt}: ps does not list pid {pid}: {rows}"));
    let major = rt.trim_start_matches("netcore").trim_start_matches("net");
    let major = major.split('.').next().unwrap_or("");
    let version = row["runtime_version"].as_str().unwrap_or("");
    assert!(
        version.starts_with(&format!("{major}.")),
        "{rt}: ps says runtime {version}"
    );

    // watch and collect at once, both attached before the first GC.
    let file = dir.join("live.nettrace");
    let mut watch = gcscope(&[
        "watch",
        "--pid",
        &pid_s,
        "--count",
        &GCS.to_string(),
        "--json",
    ]);
    let mut collect = gcscope(&[
        "collect",
        "--pid",
        &pid_s,
        "-o",
        file.to_str().expect("path"),
    ]);
    let watch_err = lines(watch.stderr.take().expect("stderr"));
    let collect_err = lines(collect.stderr.take().expect("stderr"));
    let (mut we, mut ce, mut ve) = (Vec::new(), Vec::new(), Vec::new());
    assert!(
        wait_for(&watch_err, "attached", &mut we, 30),
        "{rt}: watch: {we:?}"
    );
    assert!(
        wait_for(&collect_err, "session started", &mut ce, 30),
        "{rt}: collect: {ce:?}"
    );
    // A third session, started last and stopped by --duration while the workload runs (about
    // 1.3 s): stacks, ticks and the rundown written before StopTracing's reply.
    let verbose_file = dir.join("verbose.nettrace");
    let mut verbose = gcscope(&[
        "collect",
        "--pid",
        &pid_s,
        "--profile",
        "gc-verbose",
        "--duration",
        "600ms",
        "-o",
        verbose_file.to_str().expect("path"),
    ]);
    let verbose_err = lines(verbose.stderr.take().expect("stderr"));
    assert!(
        wait_for(&verbose_err, "session started", &mut ve, 30),
        "{rt}: collect --profile gc-verbose: {ve:?}"
    );
    let t0 = Instant::now();
    w.stdin
        .take()
        .expect("stdin")
        .write_all(b"go\n")
        .expect("go");

    let watch_out = watch.wait_with_output().expect("watch");
    let collect_status = collect.wait().expect("collect");
    let verbose_status = verbose.wait().expect("collect --profile gc-verbose");
    let status = w.wait().expect("workload");
    let elapsed = t0.elapsed();
    assert!(status.success(), "{rt}: the workload failed");
    while let Ok(l) = out.recv_timeout(Duration::from_millis(100)) {
        wl.push(l);
    }
    while let Ok(l) = collect_err.recv_timeout(Duration::from_millis(100)) {
        ce.push(l);
    }
    while let Ok(l) = watch_err.recv_timeout(Duration::from_millis(100)) {
        we.push(l);
    }

    // The workload's own GCs: count and the wall-clock time each ended.
    let truth: Vec<(u32, f64)> = wl
        .iter()
        .filter_map(|l| {
            let mut p = l.strip_prefix("gc ")?.split(' ');
            Some((p.next()?.parse().ok()?, p.next()?.parse().ok()?))
        })
        .collect();
    let oracle: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&oracle).expect("oracle")).expect("oracle JSON");
    let at_go = oracle["collection_count_at_go"]["gen0"]
        .as_u64()
        .expect("count at go") as u32;
    let total = oracle["collection_count"]["gen0"].as_u64().expect("count") as u32;
    assert_eq!(truth.len() as u32, GCS, "{rt}: workload lines {wl:?}");

    // watch: every GC from the first after attaching, in order, then exit 0.
    assert_eq!(watch_out.status.code(), Some(0), "{rt}: watch: {we:?}");
    let shown: Vec<serde_json::Value> = String::from_utf8_lossy(&watch_out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("watch JSON line"))
        .collect();
    let numbers: Vec<u32> = shown
        .iter()
        .map(|v| v["number"].as_u64().unwrap_or(0) as u32)
        .collect();
    let want: Vec<u32> = (at_go + 1..=at_go + GCS).collect();
    assert_eq!(numbers, want, "{rt}: watch's GCs");
    assert!(
        we.iter()
            .any(|l| l.contains("GCs in") && l.contains("pause p50")),
        "{rt}: no summary: {we:?}"
    );
    // Latency from the workload's clock to the line (the runtime flushes about every 100 ms).
    let mut lat: Vec<f64> = shown
        .iter()
        .filter_map(|v| {
            let n = v["number"].as_u64()? as u32;
            let end = truth.iter().find(|t| t.0 == n)?.1;
            Some(v["seen_unix_ms"].as_f64()? - end)
        })
        .collect();
    lat.sort_by(f64::total_cmp);
    eprintln!(
        "{rt}: watch latency from GC end to line: median {:.0} ms, max {:.0} ms over {} GCs; session {:.1} s",
        lat[lat.len() / 2],
        lat[lat.len() - 1],
        lat.len(),
        elapsed.as_secs_f64()
    );

    // collect: the process exited mid-session (status 6); the file holds every GC it made.
    assert_eq!(collect_status.code(), Some(6), "{rt}: collect: {ce:?}");
    let bytes = std::fs::read(&file).expect("collected file");
    let model = gcscope_core::gc::analyze(&bytes).expect("the collected file reads");
    let complete: Vec<u32> = model
        .gcs
        .iter()
        .filter(|g| g.complete)
        .map(|g| g.number)
        .collect();
    assert_eq!(
        complete,
        (at_go + 1..=total).collect::<Vec<_>>(),
        "{rt}: collected GCs"
    );

    // collect --duration: stopped (status 0), the stream complete (no cut), a run of GCs from the
    // first after attaching.
    assert_eq!(verbose_status.code(), Some(0), "{rt}: collect --duration");
    let vbytes = std::fs::read(&verbose_file).expect("verbose file");
    let mut reader = gcscope_core::TraceReader::new();
    reader
        .push(&vbytes, &mut |_| {})
        .expect("verbose file reads");
    reader
        .finish(&mut |_| {})
        .expect("the verbose file is complete");
    let vmodel = gcscope_core::gc::analyze(&vbytes).expect("verbose file model");
    let vgcs: Vec<u32> = vmodel
        .gcs
        .iter()
        .filter(|g| g.complete)
        .map(|g| g.number)
        .collect();
    assert!(
        !vgcs.is_empty() && vgcs[0] == at_go + 1 && vgcs.windows(2).all(|w| w[1] == w[0] + 1),
        "{rt}: collect --duration's GCs {vgcs:?}"
    );

    if let Some(te) = traceevent(rt, &dir, &["live", "verbose"]) {
        assert_eq!(
            te[0].0, complete,
            "{rt}: TraceEvent's GCs of the whole session"
        );
        assert_eq!(
            te[1].0, vgcs,
            "{rt}: TraceEvent's GCs of the --duration session"
        );
        assert!(
            te[1]
                .1
                .keys()
                .any(|k| k.starts_with("Microsoft-Windows-DotNETRuntimeRundown/")),
            "{rt}: no rundown in the gc-verbose file"
        );
    }

    let _ = std::fs::remove_dir_all(&dir);
}

/// TraceEvent's GC numbers (sorted) and event counts by `Provider/EventName` of one file.
type TraceEventReading = (Vec<u32>, serde_json::Map<String, serde_json::Value>);

/// TraceEvent's reading (tools/tracegen/traceevent.sh, in the cached .NET 8 host) of each
/// `STEM.nettrace` in `dir`: its GC numbers, sorted, and its event counts; no lost events. One
/// run at a time: the script builds into the shared cache. None when the host is not cached.
fn traceevent(rt: &str, dir: &std::path::Path, stems: &[&str]) -> Option<Vec<TraceEventReading>> {
    let work = std::env::var_os("TRACEGEN_WORK")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/gcscope-tracegen"));
    if !work.join("sarif-5.7.0/package/Sarif.Multitool").is_file() {
        eprintln!("{rt}: skipping TraceEvent's reading: the .NET 8 host is not cached");
        return None;
    }
    let status = Command::new("flock")
        .arg(work.join("build/.traceevent-lock"))
        .arg(root().join("tools/tracegen/traceevent.sh"))
        .arg(dir)
        .stdout(Stdio::null())
        .status()
        .expect("run traceevent.sh");
    assert!(status.success(), "{rt}: traceevent.sh failed");
    let mut out = Vec::new();
    for stem in stems {
        let te: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dir.join(format!("{stem}.traceevent.json"))).expect("TraceEvent's JSON"),
        )
        .expect("TraceEvent JSON");
        assert_eq!(
            te["EventsLost"], 0,
            "{rt}: TraceEvent lost events in {stem}"
        );
        let mut numbers: Vec<u32> = te["gcs"]
            .as_array()
            .expect("gcs")
            .iter()
            .filter_map(|g| g["Number"].as_u64().map(|n| n as u32))
            .collect();
        numbers.sort_unstable();
        let counts = te["counts"].as_object().cloned().unwrap_or_default();
        out.push((numbers, counts));
    }
    Some(out)
}

#[test]
fn live_netcore31() {
    live_on("netcore3.1");
}

#[test]
fn live_net8() {
    live_on("net8.0");
}

#[test]
fn live_net9() {
    live_on("net9.0");
}

#[test]
fn live_net10() {
    live_on("net10.0");
}

/// On .NET 8: another user's gcscope is denied (exit 5); `watch` into a pipe whose reader goes
/// away stops and exits 0; a `watch` without `--count` whose process exits first prints every GC
/// and exits 6.
#[test]
fn watch_into_a_closed_pipe_and_past_the_process_end() {
    let dir = std::env::temp_dir().join(format!("gcscope-live-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let oracle = dir.join("oracle.json");
    let mut w = Command::new(root().join("tools/tracegen/live.sh"))
        .args(["net8.0", oracle.to_str().expect("path")])
        .env("GCSCOPE_LIVE_GCS", "8")
        .env("GCSCOPE_LIVE_EVERY_MS", "100")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tools/tracegen/live.sh");
    let out = lines(w.stdout.take().expect("stdout"));
    if !wait_for(&out, "ready", &mut Vec::new(), 120) {
        let status = w.wait().expect("wait");
        assert_eq!(
            status.code(),
            Some(3),
            "the live workload did not start: {status}"
        );
        eprintln!("skipping: .NET 8 is not cached (tools/tracegen/generate.sh)");
        return;
    }
    let pid = w.id().to_string();
    permission_denied_for_another_user(&pid, &dir);
    let mut piped = gcscope(&["watch", "--pid", &pid]);
    let mut to_end = gcscope(&["watch", "--pid", &pid, "--json"]);
    let (pe, ee) = (
        lines(piped.stderr.take().expect("stderr")),
        lines(to_end.stderr.take().expect("stderr")),
    );
    assert!(wait_for(&pe, "attached", &mut Vec::new(), 30));
    assert!(wait_for(&ee, "attached", &mut Vec::new(), 30));
    w.stdin
        .take()
        .expect("stdin")
        .write_all(b"go\n")
        .expect("go");
    // Read one line, then close the pipe: the next line's write fails and watch stops.
    let mut first = String::new();
    let mut reader = BufReader::new(piped.stdout.take().expect("stdout"));
    reader.read_line(&mut first).expect("a line");
    assert!(first.starts_with("GC #1 "), "{first}");
    drop(reader);
    let t = Instant::now();
    let status = piped.wait().expect("watch");
    assert_eq!(status.code(), Some(0), "watch into a closed pipe");
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "watch went on after its pipe closed"
    );
    let end = to_end.wait_with_output().expect("watch");
    assert!(w.wait().expect("workload").success());
    assert_eq!(end.status.code(), Some(6), "watch past the process's end");
    let n = String::from_utf8_lossy(&end.stdout).lines().count();
    assert_eq!(n, 8, "watch past the process's end printed {n} GCs");
    let _ = std::fs::remove_dir_all(&dir);
}

/// As root, gcscope run as `nobody` (setpriv) against our process: permission denied, exit 5.
fn permission_denied_for_another_user(pid: &str, dir: &std::path::Path) {
    // The binary where `nobody` may run it.
    let bin = dir.join("gcscope");
    std::fs::copy(env!("CARGO_BIN_EXE_gcscope"), &bin).expect("copy gcscope");
    let _ = Command::new("chmod").arg("755").arg(dir).arg(&bin).status();
    let o = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&bin)
        .args(["watch", "--pid", pid])
        .output();
    let Ok(o) = o else {
        eprintln!("skipping the permission check: no setpriv");
        return;
    };
    let err = String::from_utf8_lossy(&o.stderr);
    if err.contains("setpriv:") {
        eprintln!("skipping the permission check (not root): {}", err.trim());
        return;
    }
    assert_eq!(o.status.code(), Some(5), "as nobody: {err}");
    assert!(err.contains("permission denied"), "as nobody: {err}");
}

/// A process in a pid namespace of its own, as in a container (`unshare --pid`, which needs
/// root): the socket is named with its pid inside (1), and gcscope finds it from the host's pid
/// through `/proc/PID/status`'s NSpid and `/proc/PID/root/tmp`.
#[test]
fn a_process_in_its_own_pid_namespace() {
    let dir = std::env::temp_dir().join(format!("gcscope-live-ns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let oracle = dir.join("oracle.json");
    let Ok(mut u) = Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc"])
        .arg(root().join("tools/tracegen/live.sh"))
        .args(["net8.0", oracle.to_str().expect("path")])
        .env("GCSCOPE_LIVE_GCS", "3")
        .env("GCSCOPE_LIVE_EVERY_MS", "50")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        eprintln!("skipping: no unshare");
        return;
    };
    let out = lines(u.stdout.take().expect("stdout"));
    if !wait_for(&out, "ready", &mut Vec::new(), 120) {
        let status = u.wait().expect("wait");
        let mut err = String::new();
        let _ = std::io::Read::read_to_string(&mut u.stderr.take().expect("stderr"), &mut err);
        eprintln!(
            "skipping: no pid namespace or no .NET 8 here ({status}): {}",
            err.trim()
        );
        return;
    }
    // unshare's one child is the namespace's init: the runtime, after live.sh's execs.
    let children = std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", u.id()))
        .expect("unshare's children");
    let pid = children
        .split_whitespace()
        .next()
        .expect("a child")
        .to_string();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    assert!(
        status
            .lines()
            .any(|l| l.starts_with("NSpid:") && l.trim_end().ends_with("\t1")),
        "{status}"
    );
    let watch = gcscope(&["watch", "--pid", &pid, "--count", "3", "--json"]);
    let mut watch = watch;
    let we = lines(watch.stderr.take().expect("stderr"));
    assert!(
        wait_for(&we, "attached", &mut Vec::new(), 30),
        "watch did not attach"
    );
    u.stdin
        .take()
        .expect("stdin")
        .write_all(b"go\n")
        .expect("go");
    let o = watch.wait_with_output().expect("watch");
    assert!(u.wait().expect("unshare").success());
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_pid_that_is_not_dotnet_or_does_not_exist() {
    let me = std::process::id().to_string();
    for (pid, says) in [
        (me.as_str(), "not a .NET process"),
        ("999999999", "no process"),
    ] {
        for args in [
            vec!["watch", "--pid", pid],
            vec!["collect", "--pid", pid, "-o", "/nonexistent/x.nettrace"],
        ] {
            let o = Command::new(env!("CARGO_BIN_EXE_gcscope"))
                .args(&args)
                .output()
                .expect("gcscope");
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(4), "{args:?}: {err}");
            assert!(err.contains(says), "{args:?}: {err}");
        }
    }
}
