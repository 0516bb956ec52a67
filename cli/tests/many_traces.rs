//! `gcscope gcs` and `summary` over several traces or a folder: one table with a `trace` column,
//! as JSON lines, CSV and Parquet. Each format is checked against the program's own one-trace
//! JSON (`gcs FILE --json`, `summary FILE --json`), which the model tests check against
//! TraceEvent; the Parquet file is read back with the parquet crate's own reader. (The DuckDB
//! check of the same Parquet is `scripts/duckdb-check.sh`.)

mod common;

use common::gcscope;
use std::collections::BTreeMap;
use std::fs::File;
use std::path::PathBuf;
use std::process::Output;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use serde_json::Value;

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn fixtures_dir() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/traces")
        .to_string_lossy()
        .into_owned()
}

/// The fixture traces (one folder per runtime), as the folder walk names them (sorted paths).
fn fixture_files() -> Vec<String> {
    let mut v = Vec::new();
    for rt in std::fs::read_dir(fixtures_dir()).unwrap() {
        let dir = rt.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "nettrace") {
                v.push(p.to_string_lossy().into_owned());
            }
        }
    }
    v.sort();
    v
}

/// Each trace's rows as `gcs FILE --json` prints them.
fn one_by_one() -> BTreeMap<String, Vec<Value>> {
    fixture_files()
        .into_iter()
        .map(|f| {
            let rows: Value = serde_json::from_str(&ok(gcscope(&["gcs", &f, "--json"]))).unwrap();
            (f, rows.as_array().unwrap().clone())
        })
        .collect()
}

#[test]
fn gcs_of_a_folder_as_json_lines_csv_and_parquet_is_every_traces_rows() {
    let want = one_by_one();
    let total: usize = want.values().map(Vec::len).sum();
    assert!(
        want.len() >= 32 && total > 800,
        "{} traces, {total} rows",
        want.len()
    );

    // JSON lines: one flat object per GC, `trace` first, values as in the trace's own JSON.
    let jsonl = ok(gcscope(&["gcs", &fixtures_dir(), "--jsonl"]));
    let lines: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), total);
    assert!(jsonl.starts_with("{\"trace\":"));
    let mut at: BTreeMap<&str, usize> = BTreeMap::new();
    for l in &lines {
        let trace = l["trace"].as_str().unwrap();
        let i = at.entry(trace).or_default();
        let gc = &want[trace][*i];
        *i += 1;
        assert_eq!(l["number"], gc["number"]);
        assert_eq!(l["pause_ms"], gc["pause_ms"]);
        assert_eq!(
            l["gen0_size_after_bytes"],
            gc["generations"]["gen0"]["size_after_bytes"]
        );
        assert_eq!(
            l["heaps"].as_u64(),
            Some(gc["heaps"].as_array().unwrap().len() as u64)
        );
    }
    assert_eq!(at.len(), want.len());

    // CSV: the same rows, `trace` the first column.
    let csv = ok(gcscope(&["gcs", &fixtures_dir(), "--csv"]));
    let mut csv_lines = csv.lines();
    let header: Vec<&str> = csv_lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..3], ["trace", "number", "gen"]);
    assert_eq!(csv_lines.count(), total);

    // Parquet: read back, the same rows and pauses.
    let path = std::env::temp_dir().join(format!("gcscope-test-{}.parquet", std::process::id()));
    let p = path.to_string_lossy().into_owned();
    ok(gcscope(&["gcs", &fixtures_dir(), "--parquet", &p]));
    let reader = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
    assert_eq!(reader.metadata().file_metadata().num_rows() as usize, total);
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    for row in reader.get_row_iter(None).unwrap() {
        let row = row.unwrap();
        let cols: BTreeMap<&String, &Field> = row.get_column_iter().collect();
        let Field::Str(trace) = cols[&"trace".to_string()] else {
            panic!("trace")
        };
        let i = at.entry(trace.clone()).or_default();
        let gc = &want[trace.as_str()][*i];
        *i += 1;
        match (cols[&"number".to_string()], gc["number"].as_i64()) {
            (Field::Long(n), Some(w)) => assert_eq!(*n, w),
            other => panic!("number {other:?}"),
        }
        match (cols[&"pause_ms".to_string()], gc["pause_ms"].as_f64()) {
            // serde_json reads decimal text back to within an ulp (no float_roundtrip).
            (Field::Double(x), Some(w)) => assert!((x - w).abs() <= 1e-12 * w.abs(), "{x} {w}"),
            (Field::Null, None) => {}
            other => panic!("pause_ms {other:?}"),
        }
        match (cols[&"type".to_string()], gc["type"].as_str()) {
            (Field::Str(x), Some(w)) => assert_eq!(x, w),
            other => panic!("type {other:?}"),
        }
        match (cols[&"complete".to_string()], gc["complete"].as_bool()) {
            (Field::Bool(x), Some(w)) => assert_eq!(*x, w),
            other => panic!("complete {other:?}"),
        }
    }
    assert_eq!(at.len(), want.len());
    let _ = std::fs::remove_file(&path);
}

#[test]
fn summary_of_several_traces_is_one_row_each_with_its_own_summary() {
    let files = fixture_files();
    let (a, b) = (&files[0], &files[5]);
    let jsonl = ok(gcscope(&["summary", a, b, "--jsonl"]));
    let rows: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    for (row, f) in rows.iter().zip([a, b]) {
        let one: Value = serde_json::from_str(&ok(gcscope(&["summary", f, "--json"]))).unwrap();
        assert_eq!(row["trace"].as_str(), Some(f.as_str()));
        assert_eq!(row["gc_count"], one["process"]["gc_count"]);
        assert_eq!(row["pause_time_pct"], one["rollup"][0]["pause_time_pct"]);
        let all = one["pauses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["kind"] == "all")
            .unwrap();
        assert_eq!(row["all_p99_ms"], all["p99_ms"]);
        assert_eq!(row["all_count"], all["count"]);
        let bg = one["pauses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["kind"] == "background")
            .unwrap();
        assert_eq!(row["background_max_ms"], bg["max_ms"]);
    }
    // CSV: header and one line per trace; a folder gives every trace.
    let csv = ok(gcscope(&["summary", &fixtures_dir(), "--csv"]));
    assert_eq!(csv.lines().count(), files.len() + 1);
    assert!(csv.starts_with("trace,format,runtime_version,"));
}

#[test]
fn json_with_several_traces_is_a_usage_error_and_a_bad_trace_leaves_the_others() {
    for sub in ["gcs", "summary"] {
        let out = gcscope(&[sub, &fixtures_dir(), "--json"]);
        assert_eq!(out.status.code(), Some(2), "{sub}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--jsonl, --csv or --parquet"));
    }
    // A file that is not a trace among good ones: the others are written, the run fails (1).
    let bad = std::env::temp_dir().join(format!("gcscope-bad-{}.nettrace", std::process::id()));
    std::fs::write(&bad, b"not a trace").unwrap();
    let files = fixture_files();
    let out = gcscope(&[
        "summary",
        &files[0],
        &bad.to_string_lossy(),
        &files[1],
        "--csv",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 3);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is not a .NET trace") && err.contains("1 of 3 traces"),
        "{err}"
    );
    let _ = std::fs::remove_file(&bad);
}

#[test]
fn latency_and_compare_agree_with_summary() {
    let files = fixture_files();
    let (a, b) = (&files[4], &files[8]);
    let sa: Value = serde_json::from_str(&ok(gcscope(&["summary", a, "--json"]))).unwrap();
    let sb: Value = serde_json::from_str(&ok(gcscope(&["summary", b, "--json"]))).unwrap();
    let l: Value = serde_json::from_str(&ok(gcscope(&["latency", a, "--json"]))).unwrap();
    assert_eq!(l["pauses"], sa["pauses"]);
    let c: Value = serde_json::from_str(&ok(gcscope(&["compare", a, b, "--json"]))).unwrap();
    let fig = |k: &str| {
        c["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["key"] == k)
            .unwrap()
            .clone()
    };
    let n = fig("process.gc_count");
    assert_eq!(n["a"].as_f64(), sa["process"]["gc_count"].as_f64());
    assert_eq!(n["b"].as_f64(), sb["process"]["gc_count"].as_f64());
    let d = n["b"].as_f64().unwrap() - n["a"].as_f64().unwrap();
    assert_eq!(n["delta"].as_f64(), Some(d));
    assert_eq!(
        n["verdict"],
        if d < 0.0 {
            "better"
        } else if d > 0.0 {
            "worse"
        } else {
            "same"
        }
    );
    let p99 = fig("pauses.all.p99_ms");
    let want = sb["pauses"][0]["p99_ms"].as_f64();
    assert_eq!(p99["b"].as_f64(), want);
}
