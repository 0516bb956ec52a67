//! `gcscope summary FILE`: process facts and PerfView's "GC Rollup By Generation".

use gcscope_core::gc::GcModel;
use gcscope_core::latency::{self, PauseStats, TimeRange};
use serde::Serialize;

use crate::args::{Input, JsonCsvOpts};
use crate::input::many::ManyOpts;
use crate::input::model::load_digest;
use crate::output::stdout::{print, print_json, Out};
use crate::output::table::{self, Align, Table};

mod per_trace;

/// The summary as JSON: everything but the per-GC rows (those are `gcscope gcs --json`).
#[derive(Serialize)]
struct SummaryJson<'a> {
    process: &'a gcscope_core::gc::ProcessFacts,
    rollup: &'a [gcscope_core::gc::GenRollup],
    /// Pause percentiles of the whole trace (`gcscope latency` has the rest).
    pauses: &'a [PauseStats],
    condemn_reasons: &'a gcscope_core::gc::CondemnBreakdown,
    handles: HandleCounts,
    pinning: PinCounts,
    notes: &'a [String],
}

#[derive(Serialize)]
struct HandleCounts {
    has_events: bool,
    created: u64,
    destroyed: u64,
    destroyed_unmatched: u64,
    alive_at_end: usize,
}

#[derive(Serialize)]
struct PinCounts {
    has_events: bool,
    pinned_object_events: u64,
    pinned_plug_events: u64,
    gcs_with_pins: u32,
    types: usize,
}

/// `gcscope summary`'s options.
#[derive(clap::Args, Debug, Clone)]
pub struct Opts {
    /// FILE, --json (one trace) and --csv (one row per trace: facts, rollup, pause percentiles)
    #[command(flatten)]
    pub out: JsonCsvOpts,
    #[command(flatten)]
    pub many: ManyOpts,
}

/// A trace's summaries and its pause percentiles over the whole trace.
fn load_with_percentiles(input: &Input) -> Result<(GcModel, Vec<PauseStats>), String> {
    let (m, rows) = load_digest(input)?;
    let range = TimeRange::new(0.0, m.process.trace_duration_ms);
    let pauses = latency::percentiles(&rows.pauses, range);
    Ok((m, pauses))
}

pub fn run(opts: &Opts) -> Result<(), String> {
    let (files, many) = opts.many.traces(&opts.out.input.file)?;
    if many || opts.out.csv {
        if opts.out.json {
            return Err(
                "--json prints one trace's summary; for several traces use --csv, --jsonl or --parquet"
                    .into(),
            );
        }
        let mut out = Out::stdout();
        let format = opts.many.format(opts.out.csv);
        // Every trace's process as the command line chooses it (--pid/--process).
        let load = |f: &str| load_with_percentiles(&opts.out.input.with_file(f));
        per_trace::write(&files, format, load, &mut out)?;
        return out.finish();
    }
    let json = opts.out.json;
    let (m, pauses) = load_with_percentiles(&opts.out.input)?;
    if json {
        let j = SummaryJson {
            process: &m.process,
            rollup: &m.rollup,
            pauses: &pauses,
            condemn_reasons: &m.condemn_reasons,
            handles: HandleCounts {
                has_events: m.handles.has_events,
                created: m.handles.created,
                destroyed: m.handles.destroyed,
                destroyed_unmatched: m.handles.destroyed_unmatched,
                alive_at_end: m.handles.alive_at_end.len(),
            },
            pinning: PinCounts {
                has_events: m.pinning.has_events,
                pinned_object_events: m.pinning.pinned_object_events,
                pinned_plug_events: m.pinning.pinned_plug_events,
                gcs_with_pins: m.pinning.gcs_with_pins,
                types: m.pinning.by_type.len(),
            },
            notes: &m.notes,
        };
        return print_json(&j);
    }
    print(&human(&m, &pauses))
}

fn human(m: &GcModel, pauses: &[PauseStats]) -> String {
    let p = &m.process;
    let mut s = String::new();
    let or = |v: &Option<String>| v.clone().unwrap_or_else(|| "(not in trace)".into());
    s.push_str(&format!(
        "Trace      {} started {} UTC, {:.1} ms\n",
        p.format, p.trace_start_utc, p.trace_duration_ms
    ));
    let os = [p.os.as_deref(), p.arch.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    let os = if os.is_empty() { os } else { format!(", {os}") };
    let name = p
        .process_name
        .as_deref()
        .map_or(String::new(), |n| format!("{n}, "));
    // A machine-wide trace without a .NET process has no process to show (pid 0 is the idle
    // process, never a .NET one): say so rather than show a phantom one.
    let no_process = gcscope_core::event::is_machine_wide_format(&p.format)
        && p.process_id == 0
        && p.runtime_events == 0;
    if no_process {
        s.push_str(&format!(
            "Process    none: no process in the trace wrote .NET runtime events ({} CPUs{})\n",
            p.processor_count, os
        ));
    } else {
        s.push_str(&format!(
            "Process    {name}pid {}, {} CPUs, {}-bit{}\n",
            p.process_id,
            p.processor_count,
            p.pointer_size as u32 * 8,
            os
        ));
    }
    s.push_str(&format!("Runtime    {}\n", or(&p.runtime_version)));
    if let Some(c) = &p.command_line {
        s.push_str(&format!("Command    {}\n", table::clip(c, 88)));
    }
    let mode = gcscope_core::gc::mode::label(p);
    let conc = match p.concurrent {
        Some(true) => ", concurrent (background GC)",
        Some(false) => ", non-concurrent",
        None => "",
    };
    s.push_str(&format!("GC mode    {mode}{conc}\n"));
    if let Some(l) = p.hard_limit_bytes {
        s.push_str(&format!("Hard limit {} MB\n", table::mb(Some(l))));
    }
    if no_process {
        s.push_str(&format!(
            "Events     {} in the trace, none of them a .NET runtime's, dropped: {}\n",
            p.events,
            table::num(p.dropped_events)
        ));
    } else {
        s.push_str(&format!(
            "Events     {} ({} runtime, {} used by the GC model, {} undecodable), dropped: {}\n",
            p.events,
            p.runtime_events,
            p.gc_events,
            p.payload_errors,
            table::num(p.dropped_events)
        ));
    }
    if p.out_of_order_events > 0 {
        s.push_str(&format!(
            "           {} events came after later ones (the trace holds more than the decoder \
             orders at once: no sequence points, or ETW buffers written late); figures that pair \
             events in time may be off around them\n",
            p.out_of_order_events
        ));
    }
    s.push_str(&format!(
        "GCs        {} ({} incomplete), GC span {:.1} ms\n",
        p.gc_count, p.incomplete_gc_count, p.gc_span_ms
    ));
    if let Some(all) = m.rollup.first() {
        s.push_str(&format!(
            "Paused     {}% of the trace ({:.1} of {:.1} ms); PerfView's % (over the GC span): {}%\n",
            table::pct(all.pause_time_pct),
            all.total_pause_ms,
            p.trace_duration_ms,
            table::pct(all.gc_span_pause_pct)
        ));
    }
    s.push('\n');

    s.push_str("GC rollup by generation (complete GCs; times in ms, sizes in MB = 10^6 bytes)\n");
    let mut t = Table::new(&[
        ("Gen", Align::Left),
        ("Count", Align::Right),
        ("Induced", Align::Right),
        ("Max pause", Align::Right),
        ("Mean pause", Align::Right),
        ("Total pause", Align::Right),
        ("% paused", Align::Right),
        ("Max peak", Align::Right),
        ("Alloc MB", Align::Right),
        ("Promoted MB", Align::Right),
        ("Surv MB/GC ms", Align::Right),
    ]);
    for r in &m.rollup {
        t.row(vec![
            r.gen.to_string(),
            r.count.to_string(),
            r.induced_count.to_string(),
            format!("{:.3}", r.max_pause_ms),
            format!("{:.3}", r.mean_pause_ms),
            format!("{:.3}", r.total_pause_ms),
            table::pct(r.pause_time_pct),
            table::mb(Some(r.max_peak_bytes)),
            table::mb(Some(r.total_allocated_bytes)),
            table::mb(Some(r.total_promoted_bytes)),
            r.promoted_per_gc_ms_bytes
                .map_or_else(table::dash, |v| format!("{:.3}", v / 1e6)),
        ]);
    }
    s.push_str(&t.render());

    s.push_str("\nPause percentiles (complete GCs; ms; nearest rank: p99 = the ceil(0.99 n)-th shortest)\n");
    s.push_str(&percentile_table(pauses));

    if !m.condemn_reasons.by_trigger.is_empty() {
        s.push_str("\nTrigger reasons (GCs per generation)\n");
        let mut t = Table::new(&[
            ("Reason", Align::Left),
            ("Gen0", Align::Right),
            ("Gen1", Align::Right),
            ("Gen2", Align::Right),
            ("Total", Align::Right),
        ]);
        for r in &m.condemn_reasons.by_trigger {
            t.row(vec![
                r.reason.to_string(),
                r.per_gen[0].to_string(),
                r.per_gen[1].to_string(),
                r.per_gen[2].to_string(),
                r.total.to_string(),
            ]);
        }
        s.push_str(&t.render());
    }
    if m.handles.has_events {
        s.push_str(&format!(
            "\nGC handles: {} created, {} destroyed, {} alive at end (gcscope handles FILE)\n",
            m.handles.created,
            m.handles.destroyed,
            m.handles.alive_at_end.len()
        ));
    }
    if m.pinning.has_events {
        s.push_str(&format!(
            "Pinning: {} pinned-object reports in {} GCs, {} types (gcscope pins FILE)\n",
            m.pinning.pinned_object_events,
            m.pinning.gcs_with_pins,
            m.pinning.by_type.len()
        ));
    }
    if !m.notes.is_empty() {
        s.push_str(&format!(
            "\n{} notes (summary --json lists them); first: {}\n",
            m.notes.len(),
            m.notes[0]
        ));
    }
    s
}

/// Pause percentiles per kind of GC, as a table (kinds without GCs left out, "all" always shown).
pub fn percentile_table(pauses: &[PauseStats]) -> String {
    let mut t = Table::new(&[
        ("GCs", Align::Left),
        ("Count", Align::Right),
        ("p50", Align::Right),
        ("p90", Align::Right),
        ("p95", Align::Right),
        ("p99", Align::Right),
        ("p99.9", Align::Right),
        ("Max", Align::Right),
        ("Mean", Align::Right),
    ]);
    for p in pauses.iter().filter(|p| p.count > 0 || p.kind == "all") {
        t.row(vec![
            p.kind.replace('_', " "),
            p.count.to_string(),
            table::ms(p.p50_ms),
            table::ms(p.p90_ms),
            table::ms(p.p95_ms),
            table::ms(p.p99_ms),
            table::ms(p.p999_ms),
            table::ms(p.max_ms),
            table::ms(p.mean_ms),
        ]);
    }
    t.render()
}
