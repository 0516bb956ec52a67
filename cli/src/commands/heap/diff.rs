//! `gcscope heap diff A B`: each type's change in count, bytes and retained bytes, B - A.

use super::{load, warn};
use crate::output::stdout::{print, print_json};
use crate::output::table::{self, csv_line, Align, Table};

#[derive(clap::Args, Debug, Clone)]
pub struct Opts {
    /// The earlier snapshot (.gcdump, a .gz or .zip of one, or a trace with a heap walk)
    #[arg(value_name = "A")]
    pub a: String,
    /// The later snapshot (as A)
    #[arg(value_name = "B")]
    pub b: String,
    /// Print JSON instead of the table
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV instead of the table: one line per type
    #[arg(long)]
    pub csv: bool,
    /// Types shown in the table, most grown first (JSON and CSV have them all)
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub top: usize,
}

fn signed(v: i64) -> String {
    if v > 0 {
        format!("+{v}")
    } else {
        v.to_string()
    }
}

pub fn run(o: &Opts) -> Result<(), String> {
    let a = load(&o.a)?;
    let b = load(&o.b)?;
    let d = gcscope_core::heap::diff(&a, &b);
    if o.json {
        return print_json(&d);
    }
    warn(&o.a, &a);
    warn(&o.b, &b);
    if o.csv {
        let mut out = csv_line(
            &[
                "name",
                "count_a",
                "count_b",
                "bytes_a",
                "bytes_b",
                "retained_a",
                "retained_b",
                "count_change",
                "bytes_change",
                "retained_change",
                "new",
                "gone",
            ]
            .map(String::from),
        );
        for r in &d.types {
            out.push_str(&csv_line(&[
                r.name.clone(),
                r.count_a.to_string(),
                r.count_b.to_string(),
                r.bytes_a.to_string(),
                r.bytes_b.to_string(),
                r.retained_a.to_string(),
                r.retained_b.to_string(),
                r.count_change.to_string(),
                r.bytes_change.to_string(),
                r.retained_change.to_string(),
                r.new.to_string(),
                r.gone.to_string(),
            ]));
        }
        return print(&out);
    }
    let change = d.bytes_b as i64 - d.bytes_a as i64;
    let mut out = format!(
        "A: {} nodes, {} MB; B: {} nodes, {} MB; change {} MB, {} types new in B\n\n",
        d.nodes_a,
        table::mb3(d.bytes_a),
        d.nodes_b,
        table::mb3(d.bytes_b),
        table::mb3(change),
        d.new_types().count()
    );
    let mut t = Table::new(&[
        ("Type", Align::Left),
        ("Count +/-", Align::Right),
        ("MB +/-", Align::Right),
        ("Retained MB +/-", Align::Right),
        ("Count B", Align::Right),
        ("MB B", Align::Right),
    ]);
    for r in d.types.iter().take(o.top) {
        let name = if r.new {
            format!("{} (new)", table::clip(&r.name, 84))
        } else {
            table::clip(&r.name, 90)
        };
        t.row(vec![
            name,
            signed(r.count_change),
            table::mb3(r.bytes_change),
            table::mb3(r.retained_change),
            r.count_b.to_string(),
            table::mb3(r.bytes_b),
        ]);
    }
    out.push_str(&t.render());
    if d.types.len() > o.top {
        out.push_str(&format!(
            "... {} more types (--top N, or --json / --csv for all)\n",
            d.types.len() - o.top
        ));
    }
    print(&out)
}
