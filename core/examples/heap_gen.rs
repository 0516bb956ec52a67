//! Writes a synthetic `.gcdump` of N objects for timing the heap path (natively with
//! `heap_bench`, in the tab with tests/bench/heap-bench.mjs), with a real dump's type table.
//!
//!   cargo run --release -p gcscope-core --example heap_gen -- TEMPLATE.gcdump NODES OUT.gcdump
//!
//! Node 0 has the template root's type. Each other node `i` is referenced by a random node among
//! the 5,000 before it (its parent), half of them also by a random earlier node, so the dominator
//! tree is not the reference tree; one in ten points back at its parent, so the graph has cycles.
//! Sizes are 24-208 bytes in steps of 8; types are those of the template's first 5,000 nodes, in
//! turn. The graph is built as flat arrays, so 30M nodes fit in a few GiB.

use gcscope_core::heap::{read_gcdump, write_gcdump, HeapGraph};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64: every seed gives a full-period, well-mixed stream.
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [template, n, out] = &a[..] else {
        eprintln!("usage: heap_gen TEMPLATE.gcdump NODES OUT.gcdump");
        std::process::exit(2);
    };
    let n: u32 = n.parse().expect("a node count");
    let t = read_gcdump(&std::fs::read(template).expect("read the template")).expect("a .gcdump");
    let root_type = t.node_type.get(t.root as usize).copied().unwrap_or(0);
    let mut drawn: Vec<u32> = t.node_type.iter().take(5000).copied().collect();
    drawn.sort_unstable();
    drawn.dedup();
    let mut rng = Rng(1);
    // Edges as (from, to) pairs, then grouped by their source (a counting sort).
    let mut from: Vec<u32> = Vec::with_capacity(n as usize * 8 / 5);
    let mut to: Vec<u32> = Vec::with_capacity(n as usize * 8 / 5);
    for i in 1..n {
        let lo = i.saturating_sub(5000);
        let p = lo + rng.below((i - lo) as u64) as u32;
        from.push(p);
        to.push(i);
        if i > 1 && rng.below(2) == 0 {
            from.push(rng.below(i as u64) as u32);
            to.push(i);
        }
        if rng.below(10) == 0 {
            from.push(i);
            to.push(p);
        }
    }
    let mut g = HeapGraph {
        types: t.types.clone(),
        root: 0,
        pointer_size: 8,
        info: t.info.clone(),
        ..Default::default()
    };
    g.edge_start = vec![0u32; n as usize + 1];
    for &f in &from {
        g.edge_start[f as usize + 1] += 1;
    }
    for i in 1..g.edge_start.len() {
        g.edge_start[i] += g.edge_start[i - 1];
    }
    let mut fill = g.edge_start.clone();
    g.edges = vec![0u32; from.len()];
    for (&f, &c) in from.iter().zip(&to) {
        g.edges[fill[f as usize] as usize] = c;
        fill[f as usize] += 1;
    }
    drop((from, to, fill));
    g.node_type = (0..n)
        .map(|i| {
            if i == 0 {
                root_type
            } else {
                drawn[i as usize % drawn.len()]
            }
        })
        .collect();
    g.node_size = (0..n)
        .map(|i| {
            if i == 0 {
                0
            } else {
                24 + 8 * rng.below(24) as u32
            }
        })
        .collect();
    g.undefined = vec![0; (n as usize).div_ceil(64)];
    g.stated_total_bytes = g.total_bytes() as i64;
    let bytes = write_gcdump(&g);
    std::fs::write(out, &bytes).expect("write");
    println!(
        "{out}: {n} nodes, {} edges, {} bytes of objects, {} file bytes, {} types drawn from",
        g.edge_count(),
        g.total_bytes(),
        bytes.len(),
        drawn.len()
    );
}
