//! `gcscope gcs FILE`: one row per GC, as a table, JSON (every figure) or CSV (every scalar figure),
//! printed as the trace is read: each row goes out as soon as the model settles it and is dropped
//! (`ModelBuilder::drain_completed`), so the largest trace prints in bounded memory. The filters
//! apply to each row as it settles. `--callers` names each GC's caller from its GCTriggered
//! stack ([`callers`]), after a first read for the stacks.

mod callers;

use std::cell::RefCell;
use std::io::Write;
use std::sync::mpsc;

use gcscope_core::gc::definitions::{gc_field, GC_FIELDS};
use gcscope_core::gc::{Gc, Generations};
use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::Value;

use crate::args::{Input, JsonCsvOpts};
use crate::input::load::DRAIN_EVERY;
use crate::input::many::{each_trace, ManyOpts};
use crate::input::model::load_handing_out_rows;
use crate::output::json_array;
use crate::output::stdout::Out;
use crate::output::table::{self, Align, StreamingTable};
use crate::output::typed_rows::{typed_cell, Column, Kind, Writer};
use callers::{CallerCell, Callers};

/// `gcscope gcs`' options.
#[derive(clap::Args, Debug, Clone)]
pub struct Opts {
    #[command(flatten)]
    pub out: JsonCsvOpts,
    /// Only GCs of this generation (0, 1 or 2)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=2))]
    pub gen: Option<u8>,
    /// Only GCs that paused at least this long (ms)
    #[arg(long = "min-pause", value_name = "MS", allow_negative_numbers = true)]
    pub min_pause: Option<f64>,
    /// Only GCs with this trigger, by name or number ('induced': all induced GCs)
    #[arg(long, value_name = "R")]
    pub reason: Option<String>,
    /// Name each GC's caller: the first frame above the runtime's own on its GCTriggered
    /// stack (a column of the table and the CSV, `caller` in --json; one trace; reads the file twice)
    #[arg(long)]
    pub callers: bool,
    #[command(flatten)]
    pub many: ManyOpts,
}

pub fn run(opts: &Opts) -> Result<(), String> {
    let mut out = Out::stdout();
    let (files, table) = opts.many.traces(&opts.out.input.file)?;
    if table {
        write_table(opts, &files, &mut out)?;
    } else {
        write(opts, DRAIN_EVERY, &mut out)?;
    }
    out.finish()
}

/// The columns of one table over several traces: `trace`, then the CSV's, typed from their
/// definitions' units (lists of records are counts, lists of names text).
pub fn table_columns() -> Vec<(Column, String)> {
    let mut cols = vec![(
        Column {
            name: "trace".into(),
            kind: Kind::Text,
        },
        String::new(),
    )];
    for (name, pointer) in csv_columns() {
        let path = pointer.trim_start_matches('/').replace('/', ".");
        let kind = gc_field(&path).map_or(Kind::Int, |d| Kind::of_unit(d.unit));
        cols.push((Column { name, kind }, pointer));
    }
    cols
}

/// Every trace's GCs that pass the filter as one table, in `--csv`, `--jsonl` or `--parquet`;
/// the aligned table (no format) is printed trace by trace under its name.
fn write_table<W: Write>(opts: &Opts, files: &[String], out: &mut Out<W>) -> Result<(), String> {
    if opts.out.json {
        return Err(
            "--json prints one trace's GCs as an array; for several traces use --jsonl, --csv or --parquet"
                .into(),
        );
    }
    if opts.callers {
        return Err(
            "--callers names one trace's callers: give one file, as a table, --json or --csv"
                .into(),
        );
    }
    let filter = Filter::from_opts(opts);
    let Some(format) = opts.many.format(opts.out.csv) else {
        return each_trace(files, |f| {
            let _ = writeln!(out, "== {f}");
            let input = opts.out.input.with_file(f);
            let source = RowSource {
                input: &input,
                filter: &filter,
                drain_every: DRAIN_EVERY,
                callers: None,
            };
            human(&source, out)?;
            let _ = writeln!(out);
            Ok(())
        });
    };
    let cols = table_columns();
    let mut w = Writer::new(&format, cols.iter().map(|c| c.0.clone()).collect(), out)?;
    let cols: Vec<(Kind, Vec<String>)> = cols.iter().map(|(c, p)| (c.kind, keys(p))).collect();
    let mut failed = None;
    let read = each_trace(files, |f| {
        let input = opts.out.input.with_file(f);
        let source = RowSource {
            input: &input,
            filter: &filter,
            drain_every: DRAIN_EVERY,
            callers: None,
        };
        each_row(&source, &mut |(gc, _)| {
            if failed.is_some() {
                return;
            }
            let v = match cell_value(gc) {
                Ok(v) => v,
                Err(e) => return failed = Some(e),
            };
            let mut values = vec![Some(Value::String(f.to_string()))];
            values.extend(
                cols[1..]
                    .iter()
                    .map(|(kind, k)| typed_cell(*kind, at(&v, k))),
            );
            if let Err(e) = w.row(values) {
                failed = Some(e);
            }
        })?;
        Ok(())
    });
    if let Some(e) = failed {
        return Err(e);
    }
    w.finish()?;
    read
}

/// The rows of `opts`' trace in its format, taken from the model every `drain_every` events.
fn write<W: Write + Send>(opts: &Opts, drain_every: u32, out: &mut Out<W>) -> Result<(), String> {
    let filter = Filter::from_opts(opts);
    let callers = match opts.callers {
        true => Some(RefCell::new(Callers::read(&opts.out.input)?)),
        false => None,
    };
    let source = RowSource {
        input: &opts.out.input,
        filter: &filter,
        drain_every,
        callers,
    };
    if opts.out.json {
        json(&source, out)
    } else if opts.out.csv {
        csv(&source, out)
    } else {
        human(&source, out)
    }
}

/// Where the rows come from: a trace, a filter, how often settled rows are taken, and the
/// callers to name them with (`--callers`).
struct RowSource<'a> {
    input: &'a Input,
    filter: &'a Filter,
    drain_every: u32,
    callers: Option<RefCell<Callers>>,
}

/// A GC and, with `--callers`, its caller.
type Row = (Gc, Option<CallerCell>);

/// Hands every row of the trace that passes the filter to `row`, in GC order, each as soon as it
/// is final; returns how many rows the trace has (filtered or not).
fn each_row(source: &RowSource<'_>, row: &mut dyn FnMut(Row)) -> Result<usize, String> {
    let filter = source.filter;
    let mut total = 0;
    let mut emit = |gc: Gc| {
        total += 1;
        // Every row, kept or not: a GC's trigger is found after the previous GC's start.
        let caller = source.callers.as_ref().map(|c| c.borrow_mut().of(&gc));
        if filter.keep(&gc) {
            row((gc, caller));
        }
    };
    // The rows still held at the end are the ones not handed out yet: the last of the trace.
    let model = load_handing_out_rows(source.input, source.drain_every, &mut |gc| emit(gc))?;
    for gc in model.gcs {
        emit(gc);
    }
    Ok(total)
}

/// The rows [`on_writer`] hands its writer, in GC order.
type RowStream = std::iter::Peekable<mpsc::IntoIter<Row>>;

/// Rows waiting for the writing thread (see [`on_writer`]): enough to ride over a burst of GCs,
/// few enough to stay a bounded few MB with per-heap histories.
const ROWS_IN_FLIGHT: usize = 256;

/// Hands every row that passes the filter to `write`, on a thread of its own, in GC order.
/// Formatting a row (serde, pretty JSON or a CSV line of every figure) is a large part of the work
/// of the thread that reads the trace, which is what bounds `--jobs N`; on its own thread it runs
/// beside the reading (the same bytes come out, in the same order; docs/performance-log/journal.md,
/// "A stall in the sort buffer, rows on their own thread, compressed per-heap histories").
///
/// `write` starts with the first row, or once the trace is read without error: a read that fails
/// before any row (not a trace, no such process) leaves stdout empty, so a script that reads the
/// output without its exit status does not take an error for a trace with no GCs.
fn on_writer<W: Write + Send>(
    source: &RowSource<'_>,
    out: &mut Out<W>,
    write: impl FnOnce(RowStream, &mut Out<W>) -> Result<(), String> + Send,
) -> Result<(), String> {
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel::<Row>(ROWS_IN_FLIGHT);
        let (read_ok_tx, read_ok) = mpsc::sync_channel::<bool>(1);
        let writer = s.spawn(move || {
            let mut rows = rx.into_iter().peekable();
            if rows.peek().is_none() && !read_ok.recv().unwrap_or(false) {
                return Ok(());
            }
            write(rows, out)
        });
        // A writer that stopped (an error, a closed pipe) drops its end: the rest are not sent.
        let read = each_row(source, &mut |r| {
            let _ = tx.send(r);
        });
        drop(tx);
        let _ = read_ok_tx.send(read.is_ok());
        let wrote = writer
            .join()
            .unwrap_or_else(|_| Err("the thread writing the rows failed".into()));
        read?;
        wrote
    })
}

/// Rows a thread serializes at a time with `--jobs` above 1 ([`json_on`]): a few MB of JSON with
/// many heaps, tens of KB without.
const JSON_CHUNK_ROWS: usize = 16;

/// The rows as one pretty JSON array: the same text as the array of every row serialized at once.
fn json<W: Write + Send>(source: &RowSource<'_>, out: &mut Out<W>) -> Result<(), String> {
    json_on(source, out, source.input.jobs(), JSON_CHUNK_ROWS)
}

/// [`json`], element by element on the writing thread with one job; with more, chunks of `chunk`
/// rows serialized on `jobs` threads ([`json_array`]): with many heaps a GC's JSON is large, and
/// one thread takes longer to write it than the reading takes (docs/performance-log/journal.md,
/// "The CLI's rows kept lean, `budgets --json` on threads").
fn json_on<W: Write + Send>(
    source: &RowSource<'_>,
    out: &mut Out<W>,
    jobs: usize,
    chunk: usize,
) -> Result<(), String> {
    on_writer(source, out, |gcs, out| {
        if jobs > 1 {
            let chunks = json_array::chunks_of(gcs.map(RowJson), chunk);
            let make = |rows: Vec<RowJson>| json_array::pretty(&rows);
            json_array::write(out, jobs, chunks, make, Out::closed).map_err(|e| e.to_string())?;
        } else {
            let mut ser = serde_json::Serializer::pretty(&mut *out);
            let mut seq = ser.serialize_seq(None).map_err(|e| e.to_string())?;
            for r in gcs {
                seq.serialize_element(&RowJson(r))
                    .map_err(|e| e.to_string())?;
            }
            seq.end().map_err(|e| e.to_string())?;
        }
        let _ = out.write_all(b"\n");
        Ok(())
    })
}

/// A row as `--json` writes it: the GC's fields, then `caller` where `--callers` named one (the
/// GC alone otherwise, so the text without `--callers` is the model's rows serialized).
struct RowJson(Row);

impl Serialize for RowJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct WithCaller<'a> {
            #[serde(flatten)]
            gc: &'a Gc,
            caller: &'a CallerCell,
        }
        match &self.0 {
            (gc, None) => gc.serialize(s),
            (gc, Some(caller)) => WithCaller { gc, caller }.serialize(s),
        }
    }
}

struct Filter {
    gen: Option<u8>,
    min_pause: Option<f64>,
    reason: Option<String>,
}

impl Filter {
    fn from_opts(opts: &Opts) -> Filter {
        Filter {
            gen: opts.gen,
            min_pause: opts.min_pause,
            reason: opts.reason.as_deref().map(str::to_ascii_lowercase),
        }
    }

    fn keep(&self, g: &Gc) -> bool {
        self.gen.is_none_or(|x| g.gen == x)
            && self
                .min_pause
                .is_none_or(|m| g.pause_ms.unwrap_or(0.0) >= m)
            && self.reason.as_deref().is_none_or(|r| {
                g.reason.to_ascii_lowercase() == r
                    || g.reason_code.to_string() == r
                    || (r == "induced" && g.induced)
            })
    }
}

/// "0N", "2B", "1FI": generation, type letter, and I when induced (PerfView's notation).
pub fn gen_label(g: &Gc) -> String {
    format!(
        "{}{}{}",
        g.gen,
        g.gc_type.letter(),
        if g.induced { "I" } else { "" }
    )
}

/// MB with 2 decimals: enough for a table read by people (JSON/CSV have bytes).
fn mb2(bytes: Option<u64>) -> String {
    bytes.map_or_else(table::dash, |b| format!("{:.2}", b as f64 / 1e6))
}

const HEADERS: [(&str, Align); 11] = [
    ("GC#", Align::Right),
    ("Start ms", Align::Right),
    ("Gen", Align::Left),
    ("Reason", Align::Left),
    ("Suspend", Align::Right),
    ("Pause", Align::Right),
    ("Alloc MB", Align::Right),
    ("Peak MB", Align::Right),
    ("After MB", Align::Right),
    ("Promo MB", Align::Right),
    ("Surv%", Align::Right),
];

/// One GC's cells of the table.
fn human_row(g: &Gc) -> Vec<String> {
    let surv = g
        .generations
        .get(g.gen as usize)
        .and_then(|s| s.survival_pct);
    let mut number = g.number.to_string();
    if !g.complete {
        number.push('*');
    }
    vec![
        number,
        format!("{:.1}", g.start_ms),
        gen_label(g),
        crate::output::table::clip(&g.reason, 18),
        table::ms(g.suspend_ms),
        table::ms(g.pause_ms),
        mb2(g.allocated_bytes),
        mb2(g.peak_bytes),
        mb2(g.after_bytes),
        mb2(g.promoted_bytes),
        table::pct(surv),
    ]
}

/// The table: aligned to its widest cells when it has up to [`StreamingTable::HELD`] rows, held
/// until then; a longer one prints as it goes (see [`StreamingTable`]). With `--callers`, a last
/// column names each GC's caller.
fn human<W: Write>(source: &RowSource<'_>, out: &mut Out<W>) -> Result<(), String> {
    let mut headers = HEADERS.to_vec();
    if source.callers.is_some() {
        headers.push(("Caller", Align::Left));
    }
    let mut t = StreamingTable::new(&headers);
    let mut shown = 0;
    let total = each_row(source, &mut |(g, caller)| {
        shown += 1;
        let mut cells = human_row(&g);
        if let Some(c) = caller {
            cells.push(table::clip(&c.text(), CALLER_WIDTH));
        }
        let _ = out.write_all(t.row(cells).as_bytes());
    })?;
    let _ = out.write_all(t.finish().as_bytes());
    let _ = out.write_all(footer(shown, total).as_bytes());
    Ok(())
}

/// The Caller cell's width in the table: a method's full signature is in `--json` and `--csv`.
const CALLER_WIDTH: usize = 70;

fn footer(shown: usize, total: usize) -> String {
    format!(
        "\n{shown} of {total} GCs. Times in ms, MB = 10^6 bytes. * = incomplete. Surv% = survival of the\n\
         generation collected. Gen: N=blocking B=background F=foreground, I=induced.\n\
         Every figure: gcscope gcs FILE --json (defined in docs/reference/model.md).\n"
    )
}

/// The CSV columns: every scalar per-GC field of the definitions table, in its order; per-generation
/// fields once per generation (`gen0_size_after_bytes`); lists joined with `;`.
pub fn csv_columns() -> Vec<(String, String)> {
    let mut cols = Vec::new();
    for d in GC_FIELDS {
        let f = d.field;
        if f.starts_with("heaps.")
            || f.starts_with("bgc_pauses.")
            || f.starts_with("pinned_objects.")
            || f.starts_with("pinned_plugs.")
        {
            continue;
        }
        if let Some(rest) = f.strip_prefix("generations.*.") {
            for g in Generations::NAMES {
                cols.push((format!("{g}_{rest}"), format!("/generations/{g}/{rest}")));
            }
        } else {
            cols.push((f.replace('.', "_"), format!("/{}", f.replace('.', "/"))));
        }
    }
    cols.push(("bgc_pauses".into(), "/bgc_pauses".into()));
    cols.push(("heaps".into(), "/heaps".into()));
    cols.push(("pinned_objects".into(), "/pinned_objects".into()));
    cols.push(("pinned_plugs".into(), "/pinned_plugs".into()));
    cols
}

fn cell(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) if a.iter().all(|x| !x.is_object()) => a
            .iter()
            .map(|x| cell(Some(x)))
            .collect::<Vec<_>>()
            .join(";"),
        // Lists of records (heaps, pins, plugs): their count; the records are in --json.
        Some(Value::Array(a)) => a.len().to_string(),
        Some(v) => v.to_string(),
    }
}

/// A row as JSON for its CSV and table cells. Its lists of records (per-heap histories, pinned
/// objects and plugs, background GC pauses) are cells only as counts ([`cell`], `typed_cell`), so
/// each is made as that many empty records: a many-heap GC's histories are most of the value, and
/// making and dropping them whole would be most of `gcs --csv` (docs/performance-log/journal.md,
/// "The CLI's rows kept lean, `budgets --json` on threads").
fn cell_value(mut g: Gc) -> Result<Value, String> {
    let counts = [
        ("heaps", std::mem::take(&mut g.heaps).len()),
        (
            "pinned_objects",
            std::mem::take(&mut g.pinned_objects).len(),
        ),
        ("pinned_plugs", std::mem::take(&mut g.pinned_plugs).len()),
        ("bgc_pauses", std::mem::take(&mut g.bgc_pauses).len()),
    ];
    let mut v = serde_json::to_value(&g).map_err(|e| e.to_string())?;
    if let Value::Object(m) = &mut v {
        for (key, n) in counts {
            let empty = Value::Object(serde_json::Map::new());
            m.insert(key.to_string(), Value::Array(vec![empty; n]));
        }
    }
    Ok(v)
}

/// A column's JSON pointer split into its keys once: `Value::pointer` splits and unescapes its
/// pointer at every lookup (two `str::replace` a key), for every cell of every row
/// (docs/performance-log/journal.md, "The CLI's rows kept lean, `budgets --json` on threads"). The
/// keys are our own field names, which need no escapes (a test checks).
fn keys(pointer: &str) -> Vec<String> {
    pointer.split('/').skip(1).map(String::from).collect()
}

/// What `Value::pointer` finds, by keys from [`keys`].
fn at<'a>(v: &'a Value, keys: &[String]) -> Option<&'a Value> {
    keys.iter().try_fold(v, |v, k| match v {
        Value::Object(m) => m.get(k),
        Value::Array(a) => a.get(k.parse::<usize>().ok()?),
        _ => None,
    })
}

/// One GC's CSV line, cells in the order of `cols` ([`keys`] of [`csv_columns`]' pointers), then
/// its caller's with `--callers`.
fn csv_row((g, caller): Row, cols: &[Vec<String>]) -> Result<String, String> {
    let v = cell_value(g)?;
    let mut cells: Vec<String> = cols.iter().map(|k| cell(at(&v, k))).collect();
    if let Some(c) = caller {
        cells.push(c.text());
    }
    Ok(table::csv_line(&cells))
}

fn csv<W: Write + Send>(source: &RowSource<'_>, out: &mut Out<W>) -> Result<(), String> {
    let cols = csv_columns();
    let mut names: Vec<String> = cols.iter().map(|(n, _)| n.clone()).collect();
    if source.callers.is_some() {
        names.push("caller".into());
    }
    let cols: Vec<Vec<String>> = cols.iter().map(|(_, p)| keys(p)).collect();
    on_writer(source, out, |gcs, out| {
        let _ = out.write_all(table::csv_line(&names).as_bytes());
        for r in gcs {
            if out.closed() {
                break;
            }
            let _ = out.write_all(csv_row(r, &cols)?.as_bytes());
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests;
