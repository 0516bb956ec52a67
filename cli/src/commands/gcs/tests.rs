//! `gcscope gcs`' unit tests: the rows' JSON keys and CSV columns against the definitions, the
//! filters, the table's width, and the rows streamed against the model's on every trace.

use super::*;
use crate::input::model::load_rows_with_packed_heaps;
use crate::output::table::Table;
use clap::Parser;

/// `gcscope gcs`' options from a command line after `gcs`.
fn opts(args: &[&str]) -> Result<Opts, clap::Error> {
    #[derive(clap::Parser)]
    struct Gcs {
        #[command(flatten)]
        opts: Opts,
    }
    Gcs::try_parse_from(["gcs"].iter().chain(args)).map(|c| c.opts)
}

/// FILE alone (the default process).
fn input(path: &str) -> Input {
    opts(&[path]).unwrap().out.input
}

/// The CSV of `gcs` made at once from every row: the reference for the streamed one.
fn csv_at_once(gcs: &[&Gc]) -> String {
    let cols = csv_columns();
    let names: Vec<String> = cols.iter().map(|(n, _)| n.clone()).collect();
    let cols: Vec<Vec<String>> = cols.iter().map(|(_, p)| keys(p)).collect();
    let mut out = table::csv_line(&names);
    for g in gcs {
        out.push_str(&csv_row(((*g).clone(), None), &cols).unwrap());
    }
    out
}

/// The table of `gcs` rendered at once from every row: the reference for the streamed one.
fn human_at_once(gcs: &[&Gc], total: usize) -> String {
    let mut t = Table::new(&HEADERS);
    for g in gcs {
        t.row(human_row(g));
    }
    t.render() + &footer(gcs.len(), total)
}

fn fixture(name: &str) -> gcscope_core::gc::GcModel {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/traces")
        .join(name);
    full_model(&input(p.to_str().unwrap()))
}

/// The model with every row whole: the rows of [`load_rows_with_packed_heaps`] given back their
/// heaps from the packed store.
fn full_model(input: &Input) -> gcscope_core::gc::GcModel {
    use gcscope_core::gc::packed::HeapSource;
    let (mut m, heaps) = load_rows_with_packed_heaps(input).unwrap();
    assert_eq!(heaps.len(), m.gcs.len());
    for (i, g) in m.gcs.iter_mut().enumerate() {
        assert!(g.heaps.is_empty());
        g.heaps = heaps.heaps(i).into_owned();
    }
    m
}

#[test]
fn json_rows_carry_the_documented_keys() {
    let m = fixture("netcore3.1/wks-concurrent.nettrace");
    let gcs: Vec<&Gc> = m.gcs.iter().collect();
    let v: Value = serde_json::from_str(&serde_json::to_string(&gcs).unwrap()).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), m.gcs.len());
    for r in rows {
        let o = r.as_object().unwrap();
        for k in [
            "number",
            "gen",
            "type",
            "reason",
            "induced",
            "start_ms",
            "suspend_ms",
            "pause_ms",
            "heap_count",
        ] {
            assert!(o.contains_key(k), "missing key {k}");
        }
        assert!(r["gen"].as_u64().unwrap() <= 2);
        assert!(
            ["NonConcurrent", "Background", "Foreground"].contains(&r["type"].as_str().unwrap())
        );
        let group = |k: &str| {
            GC_FIELDS
                .iter()
                .any(|d| d.field.starts_with(&format!("{k}.")))
        };
        for k in o.keys() {
            assert!(gc_field(k).is_some() || group(k), "undocumented key {k}");
        }
    }
    // The round trip the app relies on: JSON back into the model types.
    let back: Vec<Gc> = serde_json::from_value(v).unwrap();
    assert_eq!(back.len(), m.gcs.len());
    assert_eq!(back[0], m.gcs[0]);
}

#[test]
fn csv_has_one_documented_column_per_scalar_figure_and_one_line_per_gc() {
    let m = fixture("net8.0/server.nettrace");
    let gcs: Vec<&Gc> = m.gcs.iter().collect();
    let out = csv_at_once(&gcs);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), m.gcs.len() + 1);
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(&header[..4], ["number", "gen", "type", "reason"]);
    assert!(header.contains(&"gen2_survival_pct") && header.contains(&"poh_size_after_bytes"));
    // Every row has as many cells as the header (no cell holds a comma unquoted).
    for l in &lines[1..] {
        let mut cells = 0;
        let mut quoted = false;
        for c in l.chars() {
            match c {
                '"' => quoted = !quoted,
                ',' if !quoted => cells += 1,
                _ => {}
            }
        }
        assert_eq!(cells + 1, header.len(), "{l}");
    }
    // Server GC: the heap count column says 2.
    let hc = header.iter().position(|h| *h == "heap_count").unwrap();
    assert_eq!(lines[1].split(',').nth(hc), Some("2"));
}

#[test]
fn filters_select_by_generation_pause_and_reason() {
    let m = fixture("net8.0/induced.nettrace");
    let args = |a: &[&str]| opts(&[&["x.nettrace"], a].concat()).unwrap();
    let f = Filter::from_opts(&args(&["--gen", "2"]));
    let gen2 = m.gcs.iter().filter(|g| f.keep(g)).count();
    assert_eq!(
        gen2 as u32,
        m.rollup[3].count + m.gcs.iter().filter(|g| !g.complete && g.gen == 2).count() as u32
    );
    let f = Filter::from_opts(&args(&["--reason", "induced"]));
    assert_eq!(
        m.gcs.iter().filter(|g| f.keep(g)).count(),
        m.gcs.iter().filter(|g| g.induced).count()
    );
    let f = Filter::from_opts(&args(&["--reason", "InducedNotForced"]));
    assert!(m
        .gcs
        .iter()
        .filter(|g| f.keep(g))
        .all(|g| g.reason_code == 7));
    let f = Filter::from_opts(&args(&["--min-pause", "1.5"]));
    assert!(m
        .gcs
        .iter()
        .filter(|g| f.keep(g))
        .all(|g| g.pause_ms.unwrap() >= 1.5));
    assert!(opts(&["x.nettrace", "--gen", "3"]).is_err());
}

#[test]
fn the_human_table_fits_100_columns() {
    let m = fixture("net8.0/mempressure.nettrace");
    let gcs: Vec<&Gc> = m.gcs.iter().collect();
    for l in human_at_once(&gcs, gcs.len()).lines() {
        assert!(
            l.chars().count() <= 100,
            "{} columns: {l}",
            l.chars().count()
        );
    }
}

/// Every trace the streaming is checked on: the fixtures and, where `../shared` is present,
/// the shared reference traces.
fn traces() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for dir in [
        "fixtures/traces/netcore3.1",
        "fixtures/traces/net8.0",
        "../shared/traces/perfview",
        "../shared/traces/public",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            eprintln!("skipping {dir}: not found");
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if name.ends_with(".nettrace")
                || name.ends_with(".nettrace.zip")
                || name.ends_with(".netperf.zip")
                || name.ends_with(".etl.zip")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn streamed_rows_are_the_models_rows_on_every_trace() {
    // The reference is the model built without dropping any row (load_rows_with_packed_heaps, the
    // rows given back their packed heaps), its rows filtered and printed at once; the output under
    // test takes the settled rows out of the model as the trace is read, after every event and at
    // the CLI's own rate.
    let traces = traces();
    assert!(traces.len() >= 14, "{traces:?}");
    let mut rows_seen = 0;
    for trace in &traces {
        let path = trace.to_str().unwrap();
        let model = full_model(&input(path));
        rows_seen += model.gcs.len();
        for (flags, formats) in [
            (&[][..], &["--json", "--csv", ""][..]),
            (&["--gen", "2"][..], &["--json", ""][..]),
            (
                &["--min-pause", "1", "--reason", "AllocSmall"][..],
                &["--csv"][..],
            ),
        ] {
            for format in formats {
                let mut args = vec![path];
                args.extend_from_slice(flags);
                if !format.is_empty() {
                    args.push(format);
                }
                let o = opts(&args).unwrap();
                let filter = Filter::from_opts(&o);
                let kept: Vec<&Gc> = model.gcs.iter().filter(|g| filter.keep(g)).collect();
                let want = match *format {
                    "--json" => serde_json::to_string_pretty(&kept).unwrap() + "\n",
                    "--csv" => csv_at_once(&kept),
                    _ => human_at_once(&kept, model.gcs.len()),
                };
                for every in [1, DRAIN_EVERY] {
                    let mut out = Out::to(Vec::new());
                    write(&o, every, &mut out).unwrap();
                    let have = String::from_utf8(out.into_inner()).unwrap();
                    assert!(have == want, "{args:?}, draining every {every} events");
                }
                if *format == "--json" {
                    // Serialized a chunk of rows at a time on several threads.
                    let source = RowSource {
                        input: &o.out.input,
                        filter: &filter,
                        drain_every: DRAIN_EVERY,
                        callers: None,
                    };
                    for (jobs, chunk) in [(2, 1), (3, 7), (2, JSON_CHUNK_ROWS)] {
                        let mut out = Out::to(Vec::new());
                        json_on(&source, &mut out, jobs, chunk).unwrap();
                        let have = String::from_utf8(out.into_inner()).unwrap();
                        assert!(have == want, "{args:?}, {jobs} jobs, chunks of {chunk}");
                    }
                }
            }
        }
    }
    assert!(rows_seen > 1000, "{rows_seen} rows");
}

#[test]
fn cells_from_the_value_with_empty_records_are_those_of_the_whole_row() {
    // The reference: each row serialized whole, its lists of records included, and its cells
    // found by serde's JSON pointers. Under test: the value whose lists are empty records, one per
    // record, and the pointers' keys split once. Every CSV and table cell of every row of every
    // trace must be the same.
    let csv = csv_columns();
    let table = table_columns();
    let (mut rows, mut records) = (0, 0);
    for trace in traces() {
        let model = full_model(&input(trace.to_str().unwrap()));
        for g in &model.gcs {
            let whole = serde_json::to_value(g).unwrap();
            let counted = cell_value(g.clone()).unwrap();
            for (name, p) in &csv {
                assert!(!p.contains('~'), "{p}: an escape");
                assert_eq!(
                    cell(at(&counted, &keys(p))),
                    cell(whole.pointer(p)),
                    "{trace:?} GC {} {name}",
                    g.number
                );
            }
            for (c, p) in &table[1..] {
                assert_eq!(
                    typed_cell(c.kind, at(&counted, &keys(p))),
                    typed_cell(c.kind, whole.pointer(p)),
                    "{trace:?} GC {} {}",
                    g.number,
                    c.name
                );
            }
            rows += 1;
            records +=
                g.heaps.len() + g.pinned_objects.len() + g.pinned_plugs.len() + g.bgc_pauses.len();
        }
    }
    assert!(
        rows > 1000 && records > 1000,
        "{rows} rows, {records} records"
    );
}
