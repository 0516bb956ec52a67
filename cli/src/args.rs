//! The command line's shared parts: the trace every subcommand reads and which of its processes,
//! the `--json` option of the subcommands that print a table or JSON, and clap's errors turned into
//! one line with the exit code scripts can tell apart. Each subcommand's own options are next to its
//! code (`gcs::Opts`, ...).

use clap::error::{ContextKind, ContextValue, ErrorKind};
use gcscope_core::gc::ProcessChoice;

/// The trace a subcommand reads, and which of its processes (an ETW trace holds every process of
/// the machine; an EventPipe trace is one).
#[derive(clap::Args, Debug, Clone)]
pub struct Input {
    /// The trace: .nettrace, .netperf, .etl or .etl.zip, or a .zip/.gz holding one
    #[arg(value_name = "FILE")]
    pub file: String,
    /// Which process of an ETW trace to read, by id (default: the most GC pause)
    #[arg(long, value_name = "N", conflicts_with = "process")]
    pub pid: Option<u32>,
    /// Which process of an ETW trace to read, by name (without .exe, any case)
    #[arg(long, value_name = "NAME")]
    pub process: Option<String>,
    /// Threads that read the trace: N - 1 decode parts of it while one merges them and builds the
    /// model (default: the machine's cores, at most 4; 1: everything on one thread)
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: Option<u32>,
}

/// The default `--jobs` on a machine with more cores. The merging thread (merge, GC model) is the
/// bound: past a few decoding threads it is what the read waits for, so more threads add only
/// their tasks in flight, in memory (docs/performance-log/journal.md, "Sixteen cores").
pub const DEFAULT_JOBS_MAX: usize = 4;

impl Input {
    /// Threads to decode with: `--jobs`, else the cores the process may use, at most
    /// [`DEFAULT_JOBS_MAX`].
    pub fn jobs(&self) -> usize {
        match self.jobs {
            Some(n) => n as usize,
            None => std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(DEFAULT_JOBS_MAX),
        }
    }

    /// The same process choice for another file (several traces read as one table).
    pub fn with_file(&self, file: &str) -> Input {
        Input {
            file: file.to_string(),
            ..self.clone()
        }
    }

    /// The process the command line names.
    pub fn choice(&self) -> ProcessChoice {
        match (self.pid, &self.process) {
            (Some(pid), _) => ProcessChoice::Pid(pid),
            (None, Some(name)) => ProcessChoice::Name(name.clone()),
            (None, None) => ProcessChoice::Auto,
        }
    }
}

/// FILE and `--json`: the options of the subcommands that print a table or JSON.
#[derive(clap::Args, Debug, Clone)]
pub struct JsonOpts {
    #[command(flatten)]
    pub input: Input,
    /// Print JSON instead of the table (stable snake_case keys)
    #[arg(long)]
    pub json: bool,
    /// Taken only to say that this subcommand writes no CSV (rather than "unknown option")
    #[arg(long, hide = true)]
    pub csv: bool,
}

impl JsonOpts {
    /// Whether to print JSON; an error for `--csv`, which only `gcs` and `counters` write.
    pub fn json(&self, command: &str) -> Result<bool, String> {
        if self.csv {
            return Err(format!(
                "{command} prints a table or --json, not CSV (gcscope gcs and gcscope counters write --csv)"
            ));
        }
        Ok(self.json)
    }
}

/// FILE, `--json` and `--csv`: the options of the subcommands that also write CSV (one at a time).
#[derive(clap::Args, Debug, Clone)]
pub struct JsonCsvOpts {
    #[command(flatten)]
    pub input: Input,
    /// Print JSON instead of the table (every figure, stable snake_case keys)
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV instead of the table (one line per row, JSON keys as columns)
    #[arg(long)]
    pub csv: bool,
}

/// Exit status of a command line gcscope does not understand (an unknown subcommand or option, a
/// bad value, a missing FILE, an argument too many), as clap and most tools use it. A trace that
/// cannot be read exits 1.
pub const EXIT_USAGE: u8 = 2;

/// What to print for a clap error, where, and the exit status. Help and version go to stdout with
/// status 0; errors are one line on stderr naming the offending argument and where to look
/// (clap's own message spans several lines with the usage). `command` is the command line's
/// command path ("gcscope gcs"), to say which help to read.
pub fn clap_outcome(err: &clap::Error, command: &str) -> (String, bool, u8) {
    let rendered = err.render().to_string();
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => (rendered, true, 0),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => (rendered, false, EXIT_USAGE),
        kind => {
            let text = |k: ContextKind| match err.get(k) {
                Some(ContextValue::String(s)) => Some(s.clone()),
                Some(ContextValue::Strings(v)) => Some(v.join(", ")),
                _ => None,
            };
            let hint = match text(ContextKind::SuggestedArg)
                .or_else(|| text(ContextKind::SuggestedSubcommand))
            {
                Some(s) => format!(" (did you mean '{s}'?)"),
                None => String::new(),
            };
            let what = match kind {
                ErrorKind::UnknownArgument => {
                    let arg = text(ContextKind::InvalidArg).unwrap_or_default();
                    if arg.starts_with('-') {
                        format!("unknown option '{arg}'{hint}")
                    } else {
                        format!("unexpected argument '{arg}' (one FILE only){hint}")
                    }
                }
                ErrorKind::InvalidSubcommand => format!(
                    "unknown command '{}'{hint}",
                    text(ContextKind::InvalidSubcommand).unwrap_or_default()
                ),
                ErrorKind::MissingRequiredArgument => {
                    let missing = text(ContextKind::InvalidArg).unwrap_or_default();
                    format!("missing {}", missing.trim_matches(|c| c == '<' || c == '>'))
                }
                // clap's first line names the argument and the value ("invalid value 'x' for
                // '--top <N>': ..."); the lines after it are the usage.
                _ => {
                    let first = rendered.lines().next().unwrap_or_default();
                    let mut line = first.trim_start_matches("error: ").to_string();
                    if let Some(values) = text(ContextKind::ValidValue) {
                        line.push_str(&format!(" (one of: {values})"));
                    }
                    line
                }
            };
            // Every command-line mistake (unknown option or command, bad value, missing FILE)
            // is a usage error, exit 2 as clap and most tools use; 1 is left for a trace that
            // cannot be read.
            (
                format!("{command}: {what}; see '{command} --help'\n"),
                false,
                EXIT_USAGE,
            )
        }
    }
}

/// `--from/--to`: a time range, ms from the trace start (either end open).
#[derive(clap::Args, Debug, Clone)]
pub struct RangeOpts {
    /// Only from this time on (ms from the trace start)
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    pub from: Option<f64>,
    /// Only up to this time (ms from the trace start)
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    pub to: Option<f64>,
}
