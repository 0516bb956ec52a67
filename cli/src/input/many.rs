//! The options and the loop of the subcommands that read several traces into one table (`gcs`,
//! `summary`): more FILEs or folders, `--jsonl` and `--parquet`, and reading each trace in turn so
//! that one bad trace leaves the others.

use crate::output::typed_rows::Format;

/// More traces and the formats of one table over them (`gcs` and `summary`).
#[derive(clap::Args, Debug, Clone)]
pub struct ManyOpts {
    /// More traces, or folders of traces: one table with a `trace` column
    #[arg(value_name = "FILE")]
    pub more: Vec<String>,
    /// Print JSON lines: one flat object per row (the CSV's columns), `trace` first
    #[arg(long, conflicts_with_all = ["json", "csv", "parquet"])]
    pub jsonl: bool,
    /// Write the table to this Parquet file (the CSV's columns, typed)
    #[arg(long, value_name = "PATH", conflicts_with_all = ["json", "csv"])]
    pub parquet: Option<String>,
}

impl ManyOpts {
    /// The traces to read (folders expanded), and whether they make one table with a `trace`
    /// column: several traces, a folder, or a format that always has it (--jsonl, --parquet).
    pub fn traces(&self, first: &str) -> Result<(Vec<String>, bool), String> {
        let mut args = vec![first.to_string()];
        args.extend(self.more.iter().cloned());
        let files = crate::input::traces::expand(&args)?;
        let table = files.len() > 1
            || args.iter().any(|a| std::path::Path::new(a).is_dir())
            || self.jsonl
            || self.parquet.is_some();
        Ok((files, table))
    }

    /// The format of the table, `csv` being the subcommand's `--csv`.
    pub fn format(&self, csv: bool) -> Option<Format> {
        if let Some(p) = &self.parquet {
            Some(Format::Parquet(p.clone()))
        } else if self.jsonl {
            Some(Format::JsonLines)
        } else if csv {
            Some(Format::Csv)
        } else {
            None
        }
    }
}

/// Reads every trace, handing each to `each`; a trace that fails is reported on stderr and the
/// others still go (partial results), and the error names how many failed.
pub fn each_trace(
    files: &[String],
    mut each: impl FnMut(&str) -> Result<(), String>,
) -> Result<(), String> {
    let mut failed = 0;
    for f in files {
        if let Err(e) = each(f) {
            eprintln!("gcscope: {e}");
            failed += 1;
        }
    }
    match failed {
        0 => Ok(()),
        n => Err(format!(
            "{n} of {} traces could not be read (the others were written)",
            files.len()
        )),
    }
}
