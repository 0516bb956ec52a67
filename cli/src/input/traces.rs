//! The traces of a command line that reads several: each FILE as given, and every trace file
//! under each folder (recursively, sorted by path), so `gcscope gcs traces/ --parquet gcs.parquet`
//! reads a whole fleet's folder.

use std::path::Path;

/// File names read from a folder: EventPipe traces, plain or zipped or gzipped, and perfcollect's
/// LTTng traces.
const TRACE_SUFFIXES: [&str; 7] = [
    ".nettrace",
    ".netperf",
    ".nettrace.zip",
    ".netperf.zip",
    ".nettrace.gz",
    ".netperf.gz",
    ".trace.zip",
];

/// Whether a file in a folder is read as a trace.
pub fn is_trace_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    TRACE_SUFFIXES.iter().any(|s| lower.ends_with(s))
}

/// The files to read: a FILE is kept as given (whatever its name: it is read, or its error
/// says what it is); a folder gives its trace files. An error names a folder with none.
pub fn expand(args: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for a in args {
        let p = Path::new(a);
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found).map_err(|e| format!("cannot read folder '{a}': {e}"))?;
            if found.is_empty() {
                return Err(format!(
                    "folder '{a}' holds no trace (files ending {})",
                    TRACE_SUFFIXES.join(", ")
                ));
            }
            found.sort();
            out.extend(found);
        } else {
            out.push(a.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&path, out)?;
        } else if is_trace_name(&entry.file_name().to_string_lossy()) {
            out.push(path.to_string_lossy().into_owned());
        }
    }
    Ok(())
}
