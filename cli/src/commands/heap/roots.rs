//! `gcscope heap roots FILE`: the root tree and the root categories.

use super::load;
use crate::output::stdout::{print, print_json};
use crate::output::table::{self, Align, Table};

#[derive(clap::Args, Debug, Clone)]
pub struct Opts {
    /// The heap snapshot: a .gcdump, a .gz or .zip of one, or a trace with a heap walk
    #[arg(value_name = "FILE")]
    pub file: String,
    /// Print JSON instead of the tables
    #[arg(long)]
    pub json: bool,
}

pub fn run(o: &Opts) -> Result<(), String> {
    let s = load(&o.file)?;
    let r = s.roots();
    if o.json {
        return print_json(&r);
    }
    let mut out = String::from(
        "Root categories (retained: bytes only that category keeps alive; reachable: bytes it \
         reaches, shared or not)\n\n",
    );
    let mut t = Table::new(&[
        ("Category", Align::Left),
        ("Root nodes", Align::Right),
        ("Objects", Align::Right),
        ("Retained MB", Align::Right),
        ("Reachable MB", Align::Right),
    ]);
    for c in &r.categories {
        t.row(vec![
            c.category.label().to_string(),
            c.root_nodes.to_string(),
            c.objects.to_string(),
            table::mb3(c.retained_bytes),
            table::mb3(c.reachable_bytes),
        ]);
    }
    out.push_str(&t.render());
    out.push_str(&format!(
        "held through several categories (the root dominates them): {} MB\n",
        table::mb3(r.shared_retained_bytes)
    ));
    out.push_str("\nRoot tree (the root and the bracketed nodes below it; 40 largest)\n\n");
    let mut t = Table::new(&[
        ("Node", Align::Left),
        ("Category", Align::Left),
        ("Objects", Align::Right),
        ("Retained MB", Align::Right),
    ]);
    let mut tree: Vec<_> = r.tree.iter().collect();
    tree.sort_by(|a, b| {
        a.depth
            .min(2)
            .cmp(&b.depth.min(2))
            .then(b.retained_bytes.cmp(&a.retained_bytes))
    });
    for n in tree.iter().take(40) {
        t.row(vec![
            format!(
                "{}{}",
                "  ".repeat(n.depth as usize),
                table::clip(&n.name, 80)
            ),
            n.category.label().to_string(),
            n.objects.to_string(),
            table::mb3(n.retained_bytes),
        ]);
    }
    out.push_str(&t.render());
    if r.tree.len() > 40 {
        out.push_str(&format!(
            "... {} more root-tree nodes (--json for all)\n",
            r.tree.len() - 40
        ));
    }
    print(&out)
}
