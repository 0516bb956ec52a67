//! Shared by the insights subcommands (allocs, budgets, roots, suspensions, counters, memory):
//! loading a trace into the GC model and its insights in one pass, and output helpers.

use crate::args::Input;
use crate::load::{load_process, Rows, WithInsights, DRAIN_EVERY};
use gcscope_core::gc::insights::Insights;
use gcscope_core::gc::GcModel;
use serde::Serialize;
use std::cell::RefCell;

/// Decodes FILE once, feeding the model and the insights (of the chosen process), bounded: the
/// allocation ticks are kept only as per-type sums in time bins.
pub fn load(input: &Input) -> Result<(GcModel, Insights), String> {
    load_with(input, WithInsights::Bounded)
}

/// [`load`], with the insights `insights` says. The rows are kept without their per-heap
/// histories ([`Rows::Lean`]), so the insights hold no budgets: `budgets`, the one view that
/// reads them, loads the rows with their heaps packed and makes the budgets itself.
pub fn load_with(input: &Input, insights: WithInsights) -> Result<(GcModel, Insights), String> {
    let rows = Rows::Lean {
        every: DRAIN_EVERY,
        pack_heaps: false,
    };
    let loaded = load_process(input, insights, rows)?;
    let insights = loaded
        .insights
        .map(|b| b.finish(&loaded.model))
        .unwrap_or_default();
    Ok((loaded.model, insights))
}

/// A sequence serialized as its items are made, for [`print_json`] of what is never held whole
/// (`budgets --json`: each GC's budgets, per heap, made from its packed heaps and let go).
pub struct Each<I>(RefCell<Option<I>>);

impl<I> Each<I> {
    pub fn new(items: I) -> Self {
        Each(RefCell::new(Some(items)))
    }
}

impl<I: Iterator<Item = T>, T: Serialize> Serialize for Each<I> {
    /// Serialized once: a second time gives an empty sequence.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.borrow_mut().take().into_iter().flatten())
    }
}

/// Pretty JSON with a final newline, printed. Written as it is made, not built whole first: a
/// big trace's views are tens of MB of JSON (`budgets --json` on 1 GiB: 80 MB), which as one
/// string cost the thread that prints it the allocation and its pages. A closed pipe (`| head`)
/// ends the output quietly, as [`crate::summary::print`] does.
pub fn print_json<T: Serialize + ?Sized>(v: &T) -> Result<(), String> {
    print_with(|out| {
        serde_json::to_writer_pretty(out, v).map_err(|e| match e.io_error_kind() {
            Some(kind) => std::io::Error::new(kind, e),
            None => std::io::Error::other(e),
        })
    })
}

/// What `write` writes to stdout (buffered), and a final newline; a closed pipe is not an error.
pub fn print_with(
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = write(&mut out)
        .and_then(|_| out.write_all(b"\n"))
        .and_then(|_| out.flush());
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.to_string()),
        _ => Ok(()),
    }
}

/// Bytes as MB (10^6) with 3 decimals: `format!("{:.3}", b as f64 / 1e6)`, made faster.
pub fn mb(b: u64) -> String {
    crate::table::mb3(i128::from(b))
}

/// Signed bytes as MB.
pub fn mb_i(b: i64) -> String {
    crate::table::mb3(i128::from(b))
}

/// A percentage with one decimal.
pub fn pct(v: f64) -> String {
    format!("{v:.1}")
}
