//! `gcscope`: the native command-line front end over `gcscope-core`.
//!
//! Every subcommand reads one trace file (nettrace/netperf/ETW .etl, or a .zip/.gz of one) and
//! prints a human table by default, or stable JSON/CSV for scripts. Subcommands live in one module
//! each.

mod args;
#[cfg(test)]
mod cli_reference;
mod commands;
mod input;
mod live;
mod output;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use commands::{
    allocs, budgets, collect, compare, counters, datas, events, findings, gcs, handles, heap,
    latency, memory, pins, ps, reasons, roots, serve, stacks, summary, suspensions, watch,
};

/// gcscope: .NET GC trace analysis (nettrace / netperf / ETW .etl, zipped or gzipped)
#[derive(Parser, Debug)]
#[command(
    name = "gcscope",
    version,
    arg_required_else_help = true,
    args_override_self = true,
    after_help = "Examples:\n  \
      gcscope summary trace.nettrace\n  \
      gcscope gcs trace.nettrace --min-pause 5      the GCs that paused 5 ms or more\n  \
      gcscope gcs trace.nettrace --csv > gcs.csv    every figure, for a spreadsheet\n  \
      gcscope findings trace.nettrace               what is wrong, the evidence, what to change\n  \
      gcscope summary trace.etl --process MyApp     one process of a machine-wide ETW trace\n\n\
      An ETW trace holds every process of the machine: each command reads the one with the most\n\
      GC pause unless --pid or --process names another (`events` counts them all unless told).\n\n\
      Every figure is defined in docs/reference/model.md and docs/reference/insights.md."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands, in `--help` order: the entry points (summary, findings, latency, gcs, compare)
/// first, then the views of one side of the GC and the shell completions.
#[derive(Subcommand, Debug)]
enum Command {
    /// Process facts, GC rollup and pause percentiles (one row per trace for several)
    #[command(after_help = "Examples:\n  \
        gcscope summary trace.nettrace --json\n  \
        gcscope summary traces/ --csv > fleet.csv   one row per trace in the folder")]
    Summary(summary::Opts),
    /// What is wrong with the process's GC: ranked findings, evidence, advice (docs/reference/findings.md)
    #[command(after_help = "Examples:\n  \
        gcscope findings trace.nettrace\n  \
        gcscope findings trace.nettrace --goal latency --budget 50\n  \
        gcscope findings trace.nettrace --json > findings.json\n  \
        gcscope findings trace.nettrace --fail-on warning    exit 3 if a warning or worse is found (CI)\n\n\
        Findings never change the exit status unless --fail-on is given.")]
    Findings(findings::Opts),
    /// Pause percentiles, histogram, budget and minimum mutator utilization (MMU)
    #[command(after_help = "Examples:\n  \
        gcscope latency trace.nettrace --budget 5             GCs over 5 ms, worst windows\n  \
        gcscope latency trace.nettrace --from 1000 --to 2000 --json")]
    Latency(latency::Opts),
    /// One row per GC, streamed as the trace is read (JSON: every figure, see docs/reference/model.md)
    #[command(after_help = "Examples:\n  \
        gcscope gcs trace.nettrace --min-pause 5             GCs that paused 5 ms or more\n  \
        gcscope gcs trace.nettrace --gen 2 --reason induced  induced gen2 GCs\n  \
        gcscope gcs trace.nettrace --csv > gcs.csv           every scalar figure, one line per GC\n  \
        gcscope gcs traces/ --parquet gcs.parquet            every trace in the folder, one table")]
    Gcs(gcs::Opts),
    /// Two traces side by side: B - A for every figure, and which way is better
    #[command(after_help = "Example:\n  gcscope compare before.nettrace after.nettrace")]
    Compare(compare::Opts),
    /// Event counts by Provider/EventName (TraceEvent naming)
    #[command(after_help = "Example:\n  gcscope events trace.nettrace --json")]
    Events(args::JsonOpts),
    /// Trigger and condemn reasons, GCs per generation
    #[command(after_help = "Example:\n  gcscope reasons trace.nettrace")]
    Reasons(args::JsonOpts),
    /// Pinned objects by type, pinning per GC
    #[command(after_help = "Example:\n  gcscope pins trace.nettrace")]
    Pins(args::JsonOpts),
    /// GC handles by kind, live over time, alive at the end
    #[command(after_help = "Example:\n  gcscope handles trace.nettrace --json")]
    Handles(args::JsonOpts),
    /// Sampled allocation by type and kind, rate over time
    #[command(after_help = "Examples:\n  \
        gcscope allocs trace.nettrace --top 10\n  \
        gcscope allocs trace.nettrace --from 1000 --to 2000 --json")]
    Allocs(allocs::Opts),
    /// Call stacks: who allocates, induces GCs, triggers them, pins handles (resolved to methods)
    #[command(after_help = "Examples:\n  \
        gcscope stacks trace.nettrace --event alloc-loh           top LOH allocation stacks\n  \
        gcscope stacks trace.nettrace --event induced             who calls GC.Collect\n  \
        gcscope stacks trace.nettrace --event alloc --folded | flamegraph.pl > alloc.svg\n  \
        gcscope stacks trace.nettrace --event pinned-handles --speedscope > pins.speedscope.json\n\n\
        Frames are named by the trace's method events (JIT and rundown); see docs/guide/stacks.md.")]
    Stacks(stacks::Opts),
    /// Generation budgets per GC and why it collected the generation it did
    #[command(after_help = "Example:\n  gcscope budgets trace.nettrace")]
    Budgets(args::JsonOpts),
    /// Bytes marked per root kind, total and per GC
    #[command(after_help = "Example:\n  gcscope roots trace.nettrace")]
    Roots(args::JsonOpts),
    /// Suspensions by reason, time to suspend per GC
    #[command(after_help = "Example:\n  gcscope suspensions trace.nettrace")]
    Suspensions(args::JsonOpts),
    /// Classic .NET CLR Memory counters at each GC
    #[command(after_help = "Example:\n  gcscope counters trace.nettrace --csv > counters.csv")]
    Counters(args::JsonCsvOpts),
    /// Compaction, finalization, memory pressure, segments
    #[command(after_help = "Example:\n  gcscope memory trace.nettrace --json")]
    Memory(args::JsonOpts),
    /// DATAS (Server GC's heap-count adaptation): heap count over time, each change and why
    #[command(after_help = "Example:\n  gcscope datas trace.nettrace --json")]
    Datas(args::JsonOpts),
    /// The .NET processes this user can attach to: pid, name, runtime version, command line
    #[command(after_help = "Examples:\n  \
        gcscope ps\n  \
        gcscope ps --json\n\n\
        Exit status: 0, also when none is found.")]
    Ps(ps::Opts),
    /// Record a running .NET process's GC events into a .nettrace (no .NET SDK needed)
    #[command(after_help = "Examples:\n  \
        gcscope collect --pid 4242 --duration 30s -o app.nettrace\n  \
        gcscope collect --pid 4242 --profile gc-verbose -o app.nettrace   stacks, ticks, rundown\n  \
        gcscope collect -o app.nettrace -- dotnet app.dll   from the process's start (.NET 5+)\n\n\
        Ctrl-C or --duration stops the session cleanly: the file is complete. Exit status: 0\n\
        stopped; 4 not a .NET process (no diagnostics socket); 5 permission denied; 6 the\n\
        process exited during the session (the file holds everything it wrote); 1 other errors.")]
    Collect(collect::Opts),
    /// Take a heap snapshot (.gcdump) of a running .NET process, as dotnet-gcdump does
    #[command(after_help = "Examples:\n  \
        gcscope gcdump --pid 4242 -o app.gcdump\n  \
        gcscope heap app.gcdump                     types by retained bytes\n\n\
        The runtime induces a blocking gen2 GC and walks the heap during it; the process goes on\n\
        running. Exit status: 0 written; 4 not a .NET process (no diagnostics socket); 5\n\
        permission denied; 6 the process exited before the walk ended; 1 other errors (no walk\n\
        within --timeout).")]
    Gcdump(live::gcdump::Opts),
    /// One line per GC of a running .NET process as it ends, then a pause summary
    #[command(after_help = "Examples:\n  \
        gcscope watch --pid 4242\n  \
        gcscope watch --pid 4242 --count 100 --json > gcs.jsonl\n\n\
        The summary (pause percentiles, % of the time paused) goes to stderr on exit and on\n\
        Ctrl-\\ (SIGQUIT). Exit status:\n\
        0 stopped (Ctrl-C, --count, --duration, a closed stdout); 4 not a .NET process; 5\n\
        permission denied; 6 the process exited first; 1 other errors.")]
    Watch(watch::Opts),
    /// Serve a running .NET process's live session and the app to a browser on this machine
    #[command(after_help = "Examples:\n  \
        gcscope serve --pid 4242                   prints the URL to open\n  \
        gcscope serve --pid 4242 --port 8080 -o app.nettrace\n\n\
        The server listens on 127.0.0.1 only; its URL holds a random token, and a request without\n\
        it gets 403. Open it: the app's live tab shows each GC as it ends. Stop in the app, Ctrl-C\n\
        or --duration ends the session; its .nettrace stays downloadable until a second Ctrl-C.\n\
        Exit status: 0 stopped; 4 not a .NET process; 5 permission denied; 6 the\n\
        process exited during the session; 2 no app files; 1 other errors.")]
    Serve(serve::Opts),
    /// A .gcdump heap snapshot (or a .gz or .zip of one): totals and types with retained bytes;
    /// roots, paths, diff
    #[command(after_help = "Examples:\n  \
        gcscope heap app.gcdump                        totals, and types by retained bytes\n  \
        gcscope heap roots app.gcdump                  what the roots hold, by category\n  \
        gcscope heap paths app.gcdump --type MyCache   how its instances are reached\n  \
        gcscope heap diff before.gcdump after.gcdump   what grew between two snapshots\n\n\
        Retained bytes come from the exact dominator tree from the root; the definitions are in\n\
        docs/guide/heap.md.")]
    Heap(heap::Opts),
    /// Print a shell completion script
    #[command(after_help = "Examples:\n  \
        gcscope completions bash > /etc/bash_completion.d/gcscope\n  \
        gcscope completions zsh > \"${fpath[1]}/_gcscope\"\n  \
        gcscope completions fish > ~/.config/fish/completions/gcscope.fish")]
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(e) => {
            // Errors name the subcommand when the command line starts with one.
            let sub = argv
                .get(1)
                .and_then(|a| a.to_str())
                .filter(|a| Cli::command().get_subcommands().any(|c| c.get_name() == *a));
            let command = match sub {
                Some(s) => format!("gcscope {s}"),
                None => "gcscope".into(),
            };
            let (text, to_stdout, code) = args::clap_outcome(&e, &command);
            if to_stdout {
                if let Err(msg) = output::stdout::print(&text) {
                    eprintln!("gcscope: {msg}");
                    return ExitCode::from(1);
                }
            } else {
                eprint!("{text}");
            }
            return ExitCode::from(code);
        }
    };
    // `--csv` on a subcommand that writes no CSV is a command-line mistake like any other (exit 2),
    // found before the trace is read.
    if let Some((name, opts)) = json_only_options(&cli.command) {
        if let Err(msg) = opts.json(name) {
            eprintln!("gcscope: {msg}; see 'gcscope {name} --help'");
            return ExitCode::from(args::EXIT_USAGE);
        }
    }
    // `--json` (one trace's array or object) with several traces or a folder: use a table format.
    if let Some((name, msg)) = json_with_many(&cli.command) {
        eprintln!("gcscope {name}: {msg}; see 'gcscope {name} --help'");
        return ExitCode::from(args::EXIT_USAGE);
    }
    let result = match &cli.command {
        Command::Summary(o) => summary::run(o),
        Command::Findings(o) => match findings::run(o) {
            Ok(code) => return ExitCode::from(code),
            Err(e) => Err(e),
        },
        Command::Latency(o) => latency::run(o),
        Command::Gcs(o) => gcs::run(o),
        Command::Compare(o) => compare::run(o),
        Command::Events(o) => events::run(o),
        Command::Reasons(o) => reasons::run(o),
        Command::Pins(o) => pins::run(o),
        Command::Handles(o) => handles::run(o),
        Command::Allocs(o) => allocs::run(o),
        Command::Stacks(o) => stacks::run(o),
        Command::Budgets(o) => budgets::run(o),
        Command::Roots(o) => roots::run(o),
        Command::Suspensions(o) => suspensions::run(o),
        Command::Counters(o) => counters::run(o),
        Command::Memory(o) => memory::run(o),
        Command::Datas(o) => datas::run(o),
        Command::Ps(o) => return live_exit(ps::run(o)),
        Command::Collect(o) => return live_exit(collect::run(o)),
        Command::Gcdump(o) => return live_exit(live::gcdump::run(o)),
        Command::Watch(o) => return live_exit(watch::run(o)),
        Command::Serve(o) => return live_exit(serve::run(o)),
        Command::Heap(o) => heap::run(o),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "gcscope", &mut out);
            output::stdout::print(&String::from_utf8_lossy(&out))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("gcscope: {msg}");
            ExitCode::from(1)
        }
    }
}

/// A live command's exit status, its message on stderr.
fn live_exit(r: Result<u8, live::Failure>) -> ExitCode {
    match r {
        Ok(code) => ExitCode::from(code),
        Err((code, msg)) => {
            eprintln!("gcscope: {msg}");
            ExitCode::from(code)
        }
    }
}

/// `gcs --json` or `summary --json` given several traces or a folder: the subcommand and why not.
fn json_with_many(command: &Command) -> Option<(&'static str, &'static str)> {
    let (name, json, first, more) = match command {
        Command::Gcs(o) => ("gcs", o.out.json, &o.out.input.file, &o.many.more),
        Command::Summary(o) => ("summary", o.out.json, &o.out.input.file, &o.many.more),
        _ => return None,
    };
    let many = !more.is_empty() || std::path::Path::new(first).is_dir();
    (json && many).then_some((
        name,
        "--json prints one trace; for several traces or a folder use --jsonl, --csv or --parquet",
    ))
}

/// The subcommands that print a table or `--json` only, with their name and options.
fn json_only_options(command: &Command) -> Option<(&'static str, &args::JsonOpts)> {
    Some(match command {
        Command::Events(o) => ("events", o),
        Command::Reasons(o) => ("reasons", o),
        Command::Pins(o) => ("pins", o),
        Command::Handles(o) => ("handles", o),
        Command::Allocs(o) => ("allocs", &o.out),
        Command::Budgets(o) => ("budgets", o),
        Command::Roots(o) => ("roots", o),
        Command::Suspensions(o) => ("suspensions", o),
        Command::Memory(o) => ("memory", o),
        Command::Latency(o) => ("latency", &o.out),
        Command::Datas(o) => ("datas", o),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        // clap's own checks: no duplicate flags, conflicts that name real arguments, ...
        Cli::command().debug_assert();
    }

    #[test]
    fn help_lists_the_entry_points_first() {
        let names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        assert_eq!(
            names[..5],
            ["summary", "findings", "latency", "gcs", "compare"],
            "{names:?}"
        );
        assert_eq!(names.last().map(String::as_str), Some("completions"));
    }
}
