//! `gcscope`: the native command-line front end over `gcscope-core`.
//!
//! Every subcommand reads one trace file (nettrace/netperf, or a .zip/.gz of one) and prints a human
//! table by default, or stable JSON/CSV for scripts. Subcommands live in one module each.

mod args;
mod events;
mod load;

use std::process::ExitCode;

const USAGE: &str = "\
gcscope: .NET GC trace analysis (nettrace / netperf, zipped or gzipped)

USAGE:
    gcscope events FILE [--json]        event counts by Provider/EventName (TraceEvent naming)
    gcscope help                        this text
";

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = argv.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match cmd.as_str() {
        "events" => events::run(rest),
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
