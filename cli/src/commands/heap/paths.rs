//! `gcscope heap paths FILE --type T`: a type's instances' shortest paths from the root, grouped.

use super::load;
use crate::output::stdout::{print, print_json};
use crate::output::table;

#[derive(clap::Args, Debug, Clone)]
pub struct Opts {
    /// The heap snapshot: a .gcdump, a .gz or .zip of one, or a trace with a heap walk
    #[arg(value_name = "FILE")]
    pub file: String,
    /// The type's full name, as `gcscope heap` lists it
    #[arg(long = "type", value_name = "T")]
    pub type_name: String,
    /// Path groups shown, most instances first (JSON has them all)
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
    /// Print JSON instead of the text
    #[arg(long)]
    pub json: bool,
}

pub fn run(o: &Opts) -> Result<(), String> {
    let s = load(&o.file)?;
    let r = s.paths(&o.type_name);
    if r.instances == 0 {
        let near = s.type_names_matching(&o.type_name);
        let mut msg = format!("no type named '{}' in '{}'", o.type_name, o.file);
        if !near.is_empty() {
            msg.push_str(&format!(
                "; types whose name contains it: {}",
                near.iter().take(10).copied().collect::<Vec<_>>().join(", ")
            ));
        }
        return Err(msg);
    }
    if o.json {
        return print_json(&r);
    }
    let mut out = format!(
        "{}: {} instances, {} not reachable from the root; {} distinct shortest paths\n",
        r.type_name,
        r.instances,
        r.unreachable_instances,
        r.groups.len()
    );
    for g in r.groups.iter().take(o.top) {
        out.push_str(&format!(
            "\n{} instances, {} MB\n",
            g.instances,
            table::mb3(g.bytes)
        ));
        for (i, step) in g.path.iter().enumerate() {
            let times = if step.repeat > 1 {
                format!(" (x{})", step.repeat)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "  {}{}{}\n",
                "  ".repeat(i.min(12)),
                step.name,
                times
            ));
        }
    }
    if r.groups.len() > o.top {
        out.push_str(&format!(
            "\n... {} more paths (--top N, or --json for all)\n",
            r.groups.len() - o.top
        ));
    }
    print(&out)
}
