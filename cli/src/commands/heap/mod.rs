//! `gcscope heap FILE`: a `.gcdump` heap snapshot's totals and types (count, shallow and retained
//! bytes); `heap roots`, `heap paths` and `heap diff` are its subcommands, one module each.

mod diff;
mod paths;
mod roots;

use crate::output::stdout::{print, print_json};
use crate::output::table::{self, csv_line, Align, Table};
use gcscope_core::container::{heap_input, heap_input_message, HeapInput, MAX_SNAPSHOT_BYTES};
use gcscope_core::error::ErrorKind;
use gcscope_core::heap::{Snapshot, TypeRow};
use serde::Serialize;

#[derive(clap::Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Opts {
    #[command(subcommand)]
    pub command: Option<HeapCommand>,
    #[command(flatten)]
    pub types: TypesOpts,
}

#[derive(clap::Subcommand, Debug, Clone)]
pub enum HeapCommand {
    /// The root tree and its categories: statics, pinning handles, strong handles, stacks, the
    /// finalizer queue, other
    #[command(after_help = "Example:\n  gcscope heap roots app.gcdump --json")]
    Roots(roots::Opts),
    /// The shortest paths from the root to a type's instances, grouped by path
    #[command(after_help = "Example:\n  gcscope heap paths app.gcdump --type System.Byte[]")]
    Paths(paths::Opts),
    /// What grew between two snapshots, type by type (B - A)
    #[command(after_help = "Example:\n  gcscope heap diff before.gcdump after.gcdump --top 20")]
    Diff(diff::Opts),
}

#[derive(clap::Args, Debug, Clone)]
pub struct TypesOpts {
    /// The heap snapshot: a .gcdump from dotnet-gcdump, PerfView, Visual Studio or `gcscope
    /// gcdump` (or a .gz of one, or a .zip holding one), or a trace holding a heap walk
    /// (.nettrace, .etl, zipped or not)
    #[arg(value_name = "FILE", required = true)]
    pub file: Option<String>,
    /// Print JSON instead of the table (`nodes`, `edges`, `total_bytes`, `types`)
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV instead of the table: one line per type
    #[arg(long)]
    pub csv: bool,
    /// Types shown in the table, largest retained first (JSON and CSV have them all)
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub top: usize,
}

pub fn run(opts: &Opts) -> Result<(), String> {
    match &opts.command {
        Some(HeapCommand::Roots(o)) => roots::run(o),
        Some(HeapCommand::Paths(o)) => paths::run(o),
        Some(HeapCommand::Diff(o)) => diff::run(o),
        None => types(&opts.types),
    }
}

/// Reads a heap snapshot whole (a graph is read at random) and computes its dominator tree: a
/// `.gcdump`, gzipped or the first `.gcdump` of a `.zip`, or an event trace holding a heap walk
/// (its first), zipped or not. The bytes decide, not the file name.
pub(crate) fn load(path: &str) -> Result<Snapshot, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
    let input = heap_input(&bytes, MAX_SNAPSHOT_BYTES).map_err(|e| match e.kind {
        ErrorKind::NotATrace(_) => format!(
            "'{path}' is neither a .gcdump heap snapshot nor an event trace: {}",
            heap_input_message(&e)
        ),
        _ => format!("'{path}': {}", heap_input_message(&e)),
    })?;
    let HeapInput::Snapshot(u) = input else {
        return load_walk(path, &bytes);
    };
    if let Some(entry) = &u.entry {
        if !u.others.is_empty() {
            eprintln!(
                "gcscope: '{path}' holds {} heap snapshots; reading {entry} (the others: {})",
                u.others.len() + 1,
                u.others.join(", ")
            );
        }
    }
    let what = match &u.entry {
        Some(entry) => format!("'{path}' ({entry})"),
        None => format!("'{path}'"),
    };
    Snapshot::read(&u.bytes).map_err(|e| {
        if u.wrapper.is_some() {
            // The reader's offsets are the unpacked snapshot's, not the file's.
            format!("{what}, unpacked: {e}")
        } else {
            format!("{what}: {e}")
        }
    })
}

/// The first heap walk of an event trace's bytes, as a snapshot.
fn load_walk(path: &str, bytes: &[u8]) -> Result<Snapshot, String> {
    let walk = gcscope_core::reader::heap_walk(bytes).map_err(|e| {
        format!("'{path}' is neither a .gcdump heap snapshot nor an event trace: {e}")
    })?;
    let Some(walk) = walk else {
        return Err(format!(
            "'{path}' holds no heap walk: it is neither a .gcdump heap snapshot nor a trace \
             with the GCHeapDump events of an induced GC (`gcscope gcdump --pid P -o \
             FILE.gcdump` takes one; for the trace's GCs use `gcscope summary {path}`)"
        ));
    };
    for w in walk.report.warnings() {
        eprintln!("gcscope: {path}: {w}");
    }
    Ok(Snapshot::new(walk.graph))
}

/// Prints the snapshot's warnings (incomplete walks, unreachable bytes) on stderr.
pub(crate) fn warn(path: &str, s: &Snapshot) {
    for w in s.warnings() {
        eprintln!("gcscope: {path}: {w}");
    }
}

#[derive(Serialize)]
struct TypesJson<'a> {
    nodes: u64,
    edges: u64,
    total_bytes: u64,
    reachable_bytes: u64,
    unreachable_nodes: u64,
    unreachable_bytes: u64,
    undefined_nodes: u64,
    warnings: Vec<String>,
    types: &'a [TypeRow],
}

fn types(o: &TypesOpts) -> Result<(), String> {
    let path = o.file.as_deref().unwrap_or_default();
    let s = load(path)?;
    let t = s.totals();
    let rows = s.types();
    if o.json {
        return print_json(&TypesJson {
            nodes: t.nodes,
            edges: t.edges,
            total_bytes: t.total_bytes,
            reachable_bytes: t.reachable_bytes,
            unreachable_nodes: t.unreachable_nodes,
            unreachable_bytes: t.unreachable_bytes,
            undefined_nodes: t.undefined_nodes,
            warnings: s.warnings(),
            types: &rows,
        });
    }
    if o.csv {
        warn(path, &s);
        let mut out = csv_line(&[
            "name".into(),
            "count".into(),
            "bytes".into(),
            "retained_bytes".into(),
            "unreachable_count".into(),
        ]);
        for r in &rows {
            out.push_str(&csv_line(&[
                r.name.clone(),
                r.count.to_string(),
                r.bytes.to_string(),
                r.retained_bytes.to_string(),
                r.unreachable_count.to_string(),
            ]));
        }
        return print(&out);
    }
    let mut out = format!(
        "{} nodes, {} edges, {} MB in {} types\n\
         reachable from the root: {} nodes, {} MB; unreachable: {} nodes, {} MB (they retain nothing)\n",
        t.nodes,
        t.edges,
        table::mb3(t.total_bytes),
        t.types,
        t.reachable_nodes,
        table::mb3(t.reachable_bytes),
        t.unreachable_nodes,
        table::mb3(t.unreachable_bytes),
    );
    for w in s.warnings().iter().filter(|w| !w.contains("not reachable")) {
        out.push_str(&format!("warning: {w}\n"));
    }
    out.push('\n');
    let mut tb = Table::new(&[
        ("Type", Align::Left),
        ("Count", Align::Right),
        ("MB", Align::Right),
        ("Retained MB", Align::Right),
    ]);
    for r in rows.iter().take(o.top) {
        tb.row(vec![
            table::clip(&r.name, 90),
            r.count.to_string(),
            table::mb3(r.bytes),
            table::mb3(r.retained_bytes),
        ]);
    }
    out.push_str(&tb.render());
    if rows.len() > o.top {
        out.push_str(&format!(
            "... {} more types (--top N, or --json / --csv for all)\n",
            rows.len() - o.top
        ));
    }
    print(&out)
}
