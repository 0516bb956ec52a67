//! The `.gcdump` reader and every view of the snapshot it reads: any bytes give a graph or an
//! error with an offset inside the input, never a panic, and never memory the input cannot back.

use gcscope_core::heap::{diff, read_gcdump, Snapshot};

/// One execution: what the `gcdump` fuzz target runs on each input.
pub fn run(data: &[u8]) {
    match read_gcdump(data) {
        Err(e) => assert!(e.offset <= data.len() as u64, "{e}"),
        Ok(g) => {
            let s = Snapshot::new(g);
            let t = s.totals();
            assert!(t.reachable_bytes <= t.total_bytes);
            let types = s.types();
            s.roots();
            s.generations();
            if let Some(first) = types.first() {
                s.paths(&first.name);
            }
            s.dominator_children(s.graph.root);
            diff(&s, &s);
        }
    }
}
