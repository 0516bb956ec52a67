//! `gcscope ps`: the .NET processes this user can attach to, from their diagnostics sockets, with
//! what ProcessInfo says of each. Where the runtime does not answer ProcessInfo (.NET Core 3.1
//! answers UNKNOWN_COMMAND to every version), the facts come from `/proc` instead: the name, the
//! command line, and the runtime version from the path of the `libcoreclr.so` it mapped.

use serde::Serialize;

use crate::live::Failure;
use crate::output::stdout;

#[derive(clap::Args, Debug)]
pub struct Opts {
    /// One JSON array of the processes
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize, Debug)]
pub(crate) struct Row {
    pid: u32,
    /// The pid inside the process's own pid namespace (a container), when it differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    ns_pid: Option<u32>,
    name: String,
    command_line: String,
    runtime_version: Option<String>,
    os: Option<String>,
    arch: Option<String>,
    socket: String,
    /// Where the facts come from: ProcessInfo2, ProcessInfo, or /proc (ProcessInfo unknown).
    source: &'static str,
}

fn proc_text(pid: u32, file: &str) -> Option<String> {
    let b = std::fs::read(format!("/proc/{pid}/{file}")).ok()?;
    Some(String::from_utf8_lossy(&b).into_owned())
}

/// The runtime version in the path of the libcoreclr the process mapped
/// (`.../Microsoft.NETCore.App/3.1.23/libcoreclr.so`).
fn version_from_maps(pid: u32) -> Option<String> {
    let maps = proc_text(pid, "maps")?;
    maps.lines().find_map(|l| {
        let path = l.split_whitespace().nth(5)?;
        let dir = path.strip_suffix("/libcoreclr.so")?;
        let (parent, ver) = dir.rsplit_once('/')?;
        (parent.ends_with("Microsoft.NETCore.App") && ver.starts_with(|c: char| c.is_ascii_digit()))
            .then(|| ver.to_string())
    })
}

/// What `ep`'s runtime and `/proc` say of its process (also `gcscope serve`'s `process`).
pub(crate) fn row(ep: &gcscope_diag::Endpoint) -> Row {
    let name_from_proc = proc_text(ep.pid, "comm").map(|s| s.trim_end().to_string());
    let cmd_from_proc = proc_text(ep.pid, "cmdline").map(|s| {
        s.trim_end_matches('\0')
            .split('\0')
            .collect::<Vec<_>>()
            .join(" ")
    });
    let base = Row {
        pid: ep.pid,
        ns_pid: ep.in_container().then_some(ep.ns_pid),
        name: name_from_proc.clone().unwrap_or_default(),
        command_line: cmd_from_proc.clone().unwrap_or_default(),
        runtime_version: None,
        os: None,
        arch: None,
        socket: ep.path.display().to_string(),
        source: "/proc",
    };
    match gcscope_diag::process_info(ep) {
        Ok(info) => Row {
            name: name_from_proc.unwrap_or_else(|| {
                info.command_line
                    .split_whitespace()
                    .next()
                    .and_then(|p| p.rsplit('/').next())
                    .unwrap_or("")
                    .to_string()
            }),
            command_line: if info.command_line.is_empty() {
                base.command_line.clone()
            } else {
                info.command_line.clone()
            },
            source: if info.runtime_version.is_some() {
                "ProcessInfo2"
            } else {
                "ProcessInfo"
            },
            runtime_version: info
                .runtime_version
                .clone()
                .or_else(|| version_from_maps(ep.pid)),
            os: Some(info.os),
            arch: Some(info.arch),
            ..base
        },
        Err(_) => Row {
            runtime_version: version_from_maps(ep.pid),
            ..base
        },
    }
}

pub fn run(o: &Opts) -> Result<u8, Failure> {
    let rows: Vec<Row> = gcscope_diag::list().iter().map(row).collect();
    if o.json {
        stdout::print_json(&rows).map_err(|m| (1, m))?;
        return Ok(0);
    }
    if rows.is_empty() {
        eprintln!(
            "gcscope ps: no .NET process with a diagnostics socket that this user can open \
             (processes of other users need root; see docs/guide/live.md)"
        );
        return Ok(0);
    }
    let vw = rows
        .iter()
        .map(|r| r.runtime_version.as_deref().map_or(1, str::len))
        .max()
        .unwrap_or(1)
        .max(7);
    let nw = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
    let mut text = format!(
        "{:>7}  {:<nw$}  {:<vw$}  COMMAND\n",
        "PID", "NAME", "RUNTIME"
    );
    for r in &rows {
        let pid = match r.ns_pid {
            Some(ns) => format!("{} ({ns})", r.pid),
            None => r.pid.to_string(),
        };
        text.push_str(&format!(
            "{pid:>7}  {:<nw$}  {:<vw$}  {}\n",
            r.name,
            r.runtime_version.as_deref().unwrap_or("-"),
            r.command_line
        ));
    }
    stdout::print(&text).map_err(|m| (1, m))?;
    Ok(0)
}
