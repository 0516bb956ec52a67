//! Times the heap snapshot path: `.gcdump` read, dominator tree, types table, roots; and the
//! dominator tree alone on generated graphs of N nodes (random references, two per node on average,
//! reachable through a spine from the root). Prints the memory the graph and tree hold per node.
//!
//!   cargo run --release -p gcscope-core --example heap_bench -- FILE.gcdump [NODES...]

use gcscope_core::heap::{read_gcdump, Dominators, HeapGraph, Snapshot, TypeEntry};
use std::time::Instant;

fn held(g: &HeapGraph, d: &Dominators) -> usize {
    g.node_type.capacity() * 4
        + g.node_size.capacity() * 4
        + g.edge_start.capacity() * 4
        + g.edges.capacity() * 4
        + g.undefined.capacity() * 8
        + g.address.capacity() * 8
        + d.idom.capacity() * 4
        + d.retained.capacity() * 8
        + d.preorder.capacity() * 4
        + (g.node_count() + 1) * 4
        + g.node_count() * 4
}

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .expect("usage: heap_bench FILE.gcdump [NODES...]");
    let bytes = std::fs::read(&file).expect("read");
    let t = Instant::now();
    let g = read_gcdump(&bytes).expect("a .gcdump");
    let read = t.elapsed();
    let n = g.node_count();
    let t = Instant::now();
    let s = Snapshot::new(g);
    let dom = t.elapsed();
    let t = Instant::now();
    let types = s.types();
    let ty = t.elapsed();
    let t = Instant::now();
    let roots = s.roots();
    let ro = t.elapsed();
    let t = Instant::now();
    let _ = s.totals();
    let to = t.elapsed();
    let t = Instant::now();
    let _ = s.warnings();
    let wa = t.elapsed();
    let t = Instant::now();
    let gens = s.generations().map_or(0, |g| g.len());
    let ge = t.elapsed();
    println!(
        "totals {:.1} ms, warnings {:.1} ms, generations {:.1} ms ({gens} rows)",
        to.as_secs_f64() * 1e3,
        wa.as_secs_f64() * 1e3,
        ge.as_secs_f64() * 1e3
    );
    println!(
        "{file}: {} bytes, {n} nodes, {} types, {} root-tree nodes: read {:.1} ms, dominators {:.1} ms, \
         types {:.1} ms, roots {:.1} ms; file {:.1} B/node, graph+tree {:.1} B/node",
        bytes.len(),
        types.len(),
        roots.tree.len(),
        read.as_secs_f64() * 1e3,
        dom.as_secs_f64() * 1e3,
        ty.as_secs_f64() * 1e3,
        ro.as_secs_f64() * 1e3,
        bytes.len() as f64 / n as f64,
        held(&s.graph, &s.dominators) as f64 / n as f64,
    );
    for a in args {
        let n: u32 = a.parse().expect("a node count");
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let nodes: Vec<(u32, u32, Vec<u32>)> = (0..n)
            .map(|i| {
                let mut ch = Vec::new();
                if i + 1 < n && rnd() % 4 == 0 {
                    ch.push(i + 1);
                }
                for _ in 0..rnd() % 3 {
                    ch.push((rnd() % n as u64) as u32);
                }
                if i == 0 {
                    ch.extend((1..n.min(1000)).step_by(7));
                }
                ((rnd() % 1000) as u32, 24 + (rnd() % 200) as u32, ch)
            })
            .collect();
        let types = (0..1000)
            .map(|i| TypeEntry {
                name: format!("T{i}"),
                module: None,
                size: 24,
            })
            .collect();
        let g = HeapGraph::from_nodes(types, 0, &nodes);
        drop(nodes);
        let t = Instant::now();
        let d = Dominators::compute(&g);
        let dom = t.elapsed();
        println!(
            "generated {n} nodes, {} edges, {} reachable: dominators {:.0} ms ({:.0} ns/node), graph+tree {:.1} B/node",
            g.edge_count(),
            d.reachable_count(),
            dom.as_secs_f64() * 1e3,
            dom.as_secs_f64() * 1e9 / n as f64,
            held(&g, &d) as f64 / n as f64
        );
    }
}
