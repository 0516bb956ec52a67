//! `gcscope`: the native command-line front end over `gcscope-core`.
//!
//! Every subcommand reads one trace file (nettrace/netperf, or a .zip/.gz of one) and prints a human
//! table by default, or stable JSON/CSV for scripts. Subcommands live in one module each.

mod allocs;
mod args;
mod budgets;
mod counters;
mod events;
mod gcs;
mod handles;
mod insight;
mod load;
mod memory;
mod pins;
mod reasons;
mod roots;
mod summary;
mod suspensions;
mod table;

use std::process::ExitCode;

const USAGE: &str = "\
gcscope: .NET GC trace analysis (nettrace / netperf / ETW .etl, zipped or gzipped)

USAGE:
    gcscope events FILE [--json]        event counts by Provider/EventName (TraceEvent naming)
    gcscope summary FILE [--json]       process facts and GC rollup by generation
    gcscope gcs FILE [--json|--csv] [--gen N] [--min-pause MS] [--reason R]
                                        one row per GC (JSON: every figure, see docs/model.md)
    gcscope reasons FILE [--json]       trigger and condemn reasons, GCs per generation
    gcscope pins FILE [--json]          pinned objects by type, pinning per GC
    gcscope handles FILE [--json]       GC handles by kind, alive at the end
    gcscope allocs FILE [--json] [--from MS --to MS] [--top N]
                                        sampled allocation by type and kind, rate over time
    gcscope budgets FILE [--json]       generation budgets per GC and why it became its gen
    gcscope roots FILE [--json]         bytes marked per root kind, total and per GC
    gcscope suspensions FILE [--json]   suspensions by reason, time to suspend per GC
    gcscope counters FILE [--json|--csv]
                                        classic .NET CLR Memory counters at each GC
    gcscope memory FILE [--json]        compaction, finalization, memory pressure, segments
    gcscope help                        this text

Every command takes --pid N or --process NAME: which process of a machine-wide ETW trace to read
(default: the one with the most GC pause, said on stderr with the others). `events` counts every
process unless one is named.
";

fn main() -> ExitCode {
    let mut argv: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = load::take_process_choice(&mut argv) {
        eprintln!("gcscope: {e}");
        return ExitCode::from(2);
    }
    let Some((cmd, rest)) = argv.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match cmd.as_str() {
        "events" => events::run(rest),
        "summary" => summary::run(rest),
        "gcs" => gcs::run(rest),
        "reasons" => reasons::run(rest),
        "pins" => pins::run(rest),
        "handles" => handles::run(rest),
        "allocs" => allocs::run(rest),
        "budgets" => budgets::run(rest),
        "roots" => roots::run(rest),
        "suspensions" => suspensions::run(rest),
        "counters" => counters::run(rest),
        "memory" => memory::run(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command '{other}'\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("gcscope: {msg}");
            ExitCode::from(1)
        }
    }
}
