//! Heap snapshots: the `.gcdump` reader against the independent totals of the public dumps
//! (`../shared/heapdumps/README.md`), the dominator tree and retained bytes against brute force
//! (reachability with a node removed), paths against breadth-first distances, and hostile bytes.

use gcscope_core::container::{sniff, Kind};
use gcscope_core::heap::{
    diff, read_gcdump, shallow_types, HeapGraph, RootCategory, Snapshot, TypeEntry, MAX_PATH_HOPS,
    NONE,
};
use std::collections::{BTreeMap, VecDeque};

mod common;
use common::heapdumps;

fn read(name: &str) -> Option<Vec<u8>> {
    Some(std::fs::read(heapdumps()?.join(name)).expect("read dump"))
}

/// The README's table: file, nodes, edges, total bytes, undefined nodes, top type by bytes.
/// (file, nodes, edges, total bytes, undefined nodes, top type, its count, its bytes)
type Row = (&'static str, u64, u64, u64, u64, &'static str, u64, u64);
const DUMPS: &[Row] = &[
    (
        "gcdumpanalyze-test1.gcdump",
        46_645,
        82_475,
        3_339_490,
        1,
        "System.String",
        6_913,
        518_562,
    ),
    (
        "monogcdumprepro-150515.gcdump",
        27_570,
        49_775,
        1_780_688,
        0,
        "System.String",
        4_174,
        285_248,
    ),
    (
        "monogcdumprepro-150644.gcdump",
        27_914,
        50_262,
        1_814_480,
        0,
        "System.String",
        4_230,
        292_088,
    ),
    (
        "perfview-test2-netfx.gcdump",
        140_391,
        235_137,
        4_147_128,
        18,
        "System.Threading.TimerQueueTimer",
        15_418,
        801_736,
    ),
    (
        "perfview-test1-js.gcdump",
        6_482,
        15_020,
        1_009_270,
        0,
        "(Type  HTMLStyleElement <|tagName:STYLE|>)",
        13,
        167_540,
    ),
];

#[test]
fn public_dumps_have_the_readmes_totals() {
    for &(file, nodes, edges, bytes, undefined, top, top_count, top_bytes) in DUMPS {
        let Some(b) = read(file) else { return };
        assert_eq!(
            sniff(&b[..96], false).unwrap(),
            Some(Kind::HeapSnapshot),
            "{file}"
        );
        let s = Snapshot::read(&b).unwrap_or_else(|e| panic!("{file}: {e}"));
        let t = s.totals();
        assert_eq!(
            (t.nodes, t.edges, t.total_bytes),
            (nodes, edges, bytes),
            "{file}"
        );
        assert_eq!(t.undefined_nodes, undefined, "{file}");
        assert_eq!(s.graph.stated_total_bytes, bytes as i64, "{file}");
        let mut types = s.types();
        types.sort_by_key(|r| std::cmp::Reverse(r.bytes));
        assert_eq!(
            (types[0].name.as_str(), types[0].count, types[0].bytes),
            (top, top_count, top_bytes),
            "{file}"
        );
        // Rows partition the nodes; the root retains every reachable byte.
        assert_eq!(types.iter().map(|r| r.count).sum::<u64>(), nodes, "{file}");
        assert_eq!(types.iter().map(|r| r.bytes).sum::<u64>(), bytes, "{file}");
        assert_eq!(
            s.dominators.retained[s.graph.root as usize], t.reachable_bytes,
            "{file}"
        );
        for r in &types {
            assert!(r.retained_bytes <= t.reachable_bytes, "{file}: {}", r.name);
        }
    }
}

#[test]
fn producers_facts_are_read() {
    let Some(b) = read("perfview-test2-netfx.gcdump") else {
        return;
    };
    let g = read_gcdump(&b).unwrap();
    assert_eq!(g.pointer_size, 4);
    assert_eq!(g.segments.len(), 2, "the collection log names 2 segments");
    // The log's first segment: start 2c61000, length 3e3c28.
    assert_eq!(g.segments[0].start, 0x2c61000);
    assert_eq!(g.segments[0].end, 0x2c61000 + 0x3e3c28);
    assert_eq!(g.info.process_name.as_deref(), Some("WpfApplication2"));
    assert_eq!(g.info.process_id, 8660);
    let s = Snapshot::new(g);
    let gens = s.generations().expect("segments and addresses");
    let in_gens: u64 = gens.iter().map(|r| r.count.iter().sum::<u64>()).sum();
    assert!(
        in_gens > 100_000,
        "most objects lie in a segment: {in_gens}"
    );
    let t = s.totals();
    assert!(
        t.unreachable_bytes * 2 > t.total_bytes,
        "most bytes are unreachable: {t:?}"
    );
    let roots = s.roots();
    assert_eq!(roots.tree[0].name, "[.NET Roots]");
    let names: Vec<&str> = roots.tree.iter().map(|r| r.name.as_str()).collect();
    for n in [
        "[static vars]",
        "[Strong handles]",
        "[Pinned handles]",
        "[Pinned local vars]",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    let cat = |n: &str| roots.tree.iter().find(|r| r.name == n).unwrap().category;
    assert_eq!(cat("[Strong handles]"), RootCategory::StrongHandles);
    assert_eq!(cat("[Pinned handles]"), RootCategory::PinningHandles);
    assert_eq!(cat("[Pinned local vars]"), RootCategory::Stacks);
    assert_eq!(cat("[static vars]"), RootCategory::Statics);

    let Some(b) = read("gcdumpanalyze-test1.gcdump") else {
        return;
    };
    let g = read_gcdump(&b).unwrap();
    assert_eq!(g.pointer_size, 8);
    assert!(g.segments.is_empty(), "dotnet-gcdump stores no segments");
    assert_eq!(g.info.creation_tool.as_deref(), Some("dotnet-gcdump"));
    let s = Snapshot::new(g);
    assert!(s.generations().is_none());
    let roots = s.roots();
    let cat = |n: &str| roots.tree.iter().find(|r| r.name == n).unwrap().category;
    assert_eq!(cat("[finalizer Handles]"), RootCategory::FinalizerQueue);
    assert_eq!(cat("[local vars]"), RootCategory::Stacks);
    assert_eq!(cat("[pinning Handles]"), RootCategory::PinningHandles);

    let Some(b) = read("perfview-test1-js.gcdump") else {
        return;
    };
    let s = Snapshot::read(&b).unwrap();
    assert!(s.graph.info.javascript);
    assert_eq!(s.roots().tree[0].name, "[JS Roots]");
}

/// Bytes reachable from the root of `g` with node `removed` (if any) taken out.
fn reachable_bytes(g: &HeapGraph, removed: Option<u32>, seen: &mut Vec<bool>) -> u64 {
    seen.clear();
    seen.resize(g.node_count(), false);
    if Some(g.root) == removed {
        return 0;
    }
    let mut stack = vec![g.root];
    seen[g.root as usize] = true;
    let mut total = 0;
    while let Some(v) = stack.pop() {
        total += g.node_size[v as usize] as u64;
        for &c in g.children(v) {
            if !seen[c as usize] && Some(c) != removed {
                seen[c as usize] = true;
                stack.push(c);
            }
        }
    }
    total
}

/// Checks every node's retained bytes, and each type's, against reachability with nodes removed.
fn check_against_brute_force(g: HeapGraph, sample: Option<usize>) {
    let s = Snapshot::new(g);
    let g = &s.graph;
    let mut seen = Vec::new();
    let all = reachable_bytes(g, None, &mut seen);
    let reach = seen.clone();
    let n = g.node_count();
    let step = sample.map_or(1, |k| (n / k).max(1));
    // Nodes each node dominates: unreachable once it is removed.
    let mut dominated: Vec<Vec<u32>> = vec![Vec::new(); n];
    for v in (0..n as u32).step_by(step) {
        let want = if reach[v as usize] {
            all - reachable_bytes(g, Some(v), &mut seen)
        } else {
            0
        };
        assert_eq!(
            s.dominators.retained[v as usize], want,
            "retained bytes of node {v}"
        );
        if sample.is_none() && reach[v as usize] {
            dominated[v as usize] = (0..n as u32)
                .filter(|&w| reach[w as usize] && (w == v || !seen[w as usize]))
                .collect();
        }
    }
    if sample.is_some() {
        return;
    }
    // A type retains the union of what its instances dominate.
    for row in s.types() {
        let mut union = std::collections::BTreeSet::new();
        for v in 0..n as u32 {
            if g.type_name(v) == row.name {
                union.extend(dominated[v as usize].iter().copied());
            }
        }
        let want: u64 = union.iter().map(|&w| g.node_size[w as usize] as u64).sum();
        assert_eq!(
            row.retained_bytes, want,
            "retained bytes of type {}",
            row.name
        );
    }
    // The immediate dominator dominates, and is the closest such node.
    for v in 0..n as u32 {
        let d = s.dominators.idom[v as usize];
        if d != NONE {
            assert!(dominated[d as usize].contains(&v), "idom of {v}");
        }
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn types(n: usize) -> Vec<TypeEntry> {
    (0..n)
        .map(|i| TypeEntry {
            name: format!("T{i}"),
            module: None,
            size: 8,
        })
        .collect()
}

fn random_graph(rng: &mut Rng, n: usize, degree: u64, type_count: usize) -> HeapGraph {
    let nodes: Vec<(u32, u32, Vec<u32>)> = (0..n)
        .map(|_| {
            let k = rng.below(degree + 1);
            let ch = (0..k).map(|_| rng.below(n as u64) as u32).collect();
            (
                rng.below(type_count as u64) as u32,
                1 + rng.below(100) as u32,
                ch,
            )
        })
        .collect();
    HeapGraph::from_nodes(types(type_count), 0, &nodes)
}

#[test]
fn dominators_match_brute_force_on_random_graphs() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..60 {
        let n = 2 + rng.below(if round < 50 { 40 } else { 400 }) as usize;
        let degree = 1 + rng.below(4);
        let type_count = 1 + rng.below(6) as usize;
        let g = random_graph(&mut rng, n, degree, type_count);
        check_against_brute_force(g, None);
    }
    // A few thousand nodes, every node's retained bytes checked.
    let g = random_graph(&mut rng, 3000, 3, 20);
    check_against_brute_force(g, Some(3000));
}

#[test]
fn dominators_of_known_shapes() {
    // root -> a -> b -> c, root -> c: c is the root's, a retains a and b.
    let t = types(2);
    let g = HeapGraph::from_nodes(
        t.clone(),
        0,
        &[
            (0, 1, vec![1, 3]),
            (1, 10, vec![2]),
            (1, 100, vec![3]),
            (1, 1000, vec![]),
            (1, 5, vec![]),
        ],
    );
    let s = Snapshot::new(g);
    assert_eq!(s.dominators.idom[3], 0);
    assert_eq!(s.dominators.retained[1], 110);
    assert_eq!(s.dominators.retained[0], 1111);
    assert!(!s.dominators.reachable(4));
    let t1 = s.types().into_iter().find(|r| r.name == "T1").unwrap();
    // a's subtree (a, b) and c: nested instances count once.
    assert_eq!(t1.retained_bytes, 1110);
    assert_eq!(t1.unreachable_count, 1);
    // A linked list of a million nodes: no recursion.
    let n = 1_000_000u32;
    let nodes: Vec<(u32, u32, Vec<u32>)> = (0..n)
        .map(|i| (1, 4, if i + 1 < n { vec![i + 1] } else { vec![] }))
        .collect();
    let s = Snapshot::new(HeapGraph::from_nodes(t, 0, &nodes));
    assert_eq!(s.dominators.retained[0], 4 * n as u64);
    assert_eq!(s.dominators.retained[n as usize - 1], 4);
    let p = s.paths("T1");
    assert_eq!(p.instances, n as u64);
    // Nodes more than MAX_PATH_HOPS from the root share the cut path; each nearer node has its own.
    let far = n as u64 - 1 - MAX_PATH_HOPS as u64;
    assert_eq!(p.groups[0].instances, far);
    assert_eq!(p.groups[0].path[0].name, "…");
    assert_eq!(p.groups.len(), MAX_PATH_HOPS + 2);
}

#[test]
fn retained_bytes_of_a_real_dump_match_brute_force_on_a_sample() {
    let Some(b) = read("gcdumpanalyze-test1.gcdump") else {
        return;
    };
    check_against_brute_force(read_gcdump(&b).unwrap(), Some(60));
}

#[test]
fn paths_are_breadth_first_shortest() {
    let Some(b) = read("monogcdumprepro-150644.gcdump") else {
        return;
    };
    let s = Snapshot::read(&b).unwrap();
    let g = &s.graph;
    // Breadth-first distances, computed here.
    let mut dist = vec![u32::MAX; g.node_count()];
    let mut q = VecDeque::from([g.root]);
    dist[g.root as usize] = 0;
    while let Some(v) = q.pop_front() {
        for &c in g.children(v) {
            if dist[c as usize] == u32::MAX {
                dist[c as usize] = dist[v as usize] + 1;
                q.push_back(c);
            }
        }
    }
    let report = s.paths("System.String");
    let mut hist_want = BTreeMap::new();
    let mut count = 0;
    for v in 0..g.node_count() as u32 {
        if g.type_name(v) == "System.String" {
            count += 1;
            if dist[v as usize] != u32::MAX {
                *hist_want.entry(dist[v as usize] + 1).or_insert(0u64) += 1;
            }
        }
    }
    assert_eq!(report.instances, count);
    let mut hist = BTreeMap::new();
    for grp in &report.groups {
        assert_eq!(grp.path[0].name, "[.NET Roots]");
        assert_eq!(grp.path.last().unwrap().name, "System.String");
        let len: u32 = grp.path.iter().map(|s| s.repeat).sum();
        *hist.entry(len).or_insert(0u64) += grp.instances;
    }
    assert_eq!(hist, hist_want, "path lengths are the BFS distances");
}

#[test]
fn two_snapshots_diff_by_type() {
    let (Some(a), Some(b)) = (
        read("monogcdumprepro-150515.gcdump"),
        read("monogcdumprepro-150644.gcdump"),
    ) else {
        return;
    };
    let (a, b) = (Snapshot::read(&a).unwrap(), Snapshot::read(&b).unwrap());
    let d = diff(&a, &b);
    assert_eq!((d.bytes_a, d.bytes_b), (1_780_688, 1_814_480));
    let s = d.types.iter().find(|r| r.name == "System.String").unwrap();
    assert_eq!(
        (s.count_change, s.bytes_change),
        (4_230 - 4_174, 292_088 - 285_248)
    );
    // Sorted by growth; the changes sum to the totals' change.
    assert!(d
        .types
        .windows(2)
        .all(|w| w[0].bytes_change >= w[1].bytes_change));
    assert_eq!(
        d.types.iter().map(|r| r.bytes_change).sum::<i64>(),
        1_814_480 - 1_780_688
    );
    assert!(d.new_types().all(|r| r.count_a == 0 && r.count_b > 0));
    assert!(d.new_types().count() > 0);
}

#[test]
fn truncated_and_corrupted_dumps_are_errors_never_panics() {
    let Some(b) = read("gcdumpanalyze-test1.gcdump") else {
        return;
    };
    // Truncation: every cut before the heap dump's end is an error at or before the cut.
    let mut cuts: Vec<usize> = (0..400).collect();
    cuts.extend((400..b.len()).step_by(1_237));
    for cut in cuts {
        match read_gcdump(&b[..cut]) {
            Err(e) => assert!(e.offset <= cut as u64, "cut {cut}: offset {}", e.offset),
            Ok(_) => panic!("a dump cut at {cut} of {} read", b.len()),
        }
    }
    // Corruption: random bytes changed; any result but a panic, and errors point into the file.
    let mut rng = Rng(12345);
    for _ in 0..300 {
        let mut c = b.clone();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(c.len() as u64) as usize;
            c[i] = rng.next() as u8;
        }
        match read_gcdump(&c) {
            Err(e) => assert!(e.offset <= c.len() as u64),
            Ok(g) => {
                let s = Snapshot::new(g);
                s.types();
                s.roots();
                s.paths("System.String");
            }
        }
    }
}

#[test]
fn claimed_counts_never_allocate_past_the_file() {
    let Some(b) = read("gcdumpanalyze-test1.gcdump") else {
        return;
    };
    let g = read_gcdump(&b).unwrap();
    // The node table's count sits just before the labels: find it from the type count's end by
    // searching for the node count value itself.
    let n = (g.node_count() as u32).to_le_bytes();
    let at = b
        .windows(4)
        .position(|w| w == n)
        .expect("node count in the file");
    for claim in [i32::MAX, 1 << 28, -5] {
        let mut c = b.clone();
        c[at..at + 4].copy_from_slice(&claim.to_le_bytes());
        let e = read_gcdump(&c).expect_err("a count the file cannot hold");
        assert_eq!(e.offset, at as u64, "{e}");
    }
}

/// A static cache of 10,000 entries of 4 KB each, as a dump lays it out: the cache's type retains
/// them, the statics category too, and the tree's children sum to their parent.
#[test]
fn a_static_cache_retains_its_entries_by_construction() {
    let names = [
        "[.NET Roots]",
        "[static vars]",
        "[local vars]",
        "Cache",
        "Entry[]",
        "Entry",
        "System.Byte[]",
        "Other",
    ];
    let types: Vec<TypeEntry> = names
        .iter()
        .map(|n| TypeEntry {
            name: n.to_string(),
            module: None,
            size: 0,
        })
        .collect();
    let entries = 10_000u32;
    // 0 root, 1 statics, 2 locals, 3 cache, 4 array, then (entry, bytes) pairs, then one object
    // the locals hold that also points into the cache's first entry.
    let mut nodes: Vec<(u32, u32, Vec<u32>)> = vec![
        (0, 0, vec![1, 2]),
        (1, 0, vec![3]),
        (2, 0, vec![]),
        (3, 32, vec![4]),
        (
            4,
            24 + 8 * entries,
            (0..entries).map(|i| 5 + 2 * i).collect(),
        ),
    ];
    for i in 0..entries {
        nodes.push((5, 24, vec![6 + 2 * i]));
        nodes.push((6, 4096, vec![]));
    }
    let other = nodes.len() as u32;
    nodes.push((7, 40, vec![6]));
    nodes[2].2.push(other);
    let s = Snapshot::new(HeapGraph::from_nodes(types, 0, &nodes));
    let row = |n: &str| s.types().into_iter().find(|r| r.name == n).unwrap();
    let entry_bytes = entries as u64 * (24 + 4096);
    let cache = 32 + 24 + 8 * entries as u64 + entry_bytes;
    // The first entry's bytes are also held by `Other`, so the root dominates them, not the cache.
    assert_eq!(row("Cache").retained_bytes, cache - 4096);
    assert_eq!(row("Entry").retained_bytes, entry_bytes - 4096);
    assert_eq!(row("System.Byte[]").bytes, entries as u64 * 4096);
    let roots = s.roots();
    let cat = |c: RootCategory| {
        roots
            .categories
            .iter()
            .find(|r| r.category == c)
            .unwrap()
            .clone()
    };
    assert_eq!(cat(RootCategory::Statics).retained_bytes, cache - 4096);
    assert_eq!(cat(RootCategory::Statics).reachable_bytes, cache);
    assert_eq!(cat(RootCategory::Stacks).retained_bytes, 40);
    assert_eq!(roots.shared_retained_bytes, 4096);
    // The tree to browse: largest first, and each node's retained bytes are its own plus its
    // children's.
    let kids = s.dominator_children(0);
    assert!(kids
        .windows(2)
        .all(|w| w[0].retained_bytes >= w[1].retained_bytes));
    for v in 0..s.graph.node_count() as u32 {
        let n = s.tree_node(v).unwrap();
        let sum: u64 = s
            .dominator_children(v)
            .iter()
            .map(|c| c.retained_bytes)
            .sum();
        assert_eq!(n.retained_bytes, n.bytes + sum, "node {v}");
    }
    let p = s.paths("System.Byte[]");
    assert_eq!(p.groups[0].instances, entries as u64 - 1);
    let first: Vec<&str> = p.groups[0].path.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        first,
        [
            "[.NET Roots]",
            "[static vars]",
            "Cache",
            "Entry[]",
            "Entry",
            "System.Byte[]"
        ]
    );
}

/// The writer against dotnet-gcdump's own layout: a dotnet-gcdump file read and written again
/// has the same bytes before the node table (header, graph type, types) and after the addresses
/// (flags, multipliers, process facts, interop region, creation tool, end), all but the three
/// stream offsets at the very end, and its node table and blob decode to the same graph.
#[test]
fn a_dotnet_gcdump_file_written_again_keeps_its_layout() {
    let Some(orig) = read("gcdumpanalyze-test1.gcdump") else {
        return;
    };
    let g = read_gcdump(&orig).expect("read");
    let ours = gcscope_core::heap::write_gcdump(&g);
    let i32_at = |b: &[u8], o: usize| i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    // The node table starts where the type table ends (its count is the node count): the first
    // place the files can differ. A wrong find would misplace the comparisons below.
    let n = g.node_count();
    let node_table = (100..orig.len() - 4)
        .find(|&o| orig[o..].starts_with(&(n as i32).to_le_bytes()))
        .expect("node table");
    assert_eq!(ours[..node_table], orig[..node_table]);
    let blob_len_at = node_table + 4 + 4 * n;
    let addr_end = |b: &[u8]| blob_len_at + 4 + i32_at(b, blob_len_at) as usize + 4 + 8 * n;
    let (a, b) = (addr_end(&orig), addr_end(&ours));
    assert_eq!(ours[b - 8 * n..b], orig[a - 8 * n..a], "addresses");
    assert_eq!(
        ours[b..ours.len() - 12],
        orig[a..orig.len() - 12],
        "the tail"
    );
    let back = read_gcdump(&ours).expect("read ours");
    assert_eq!(back.types, g.types);
    assert_eq!(back.node_type, g.node_type);
    assert_eq!(back.node_size, g.node_size);
    assert_eq!(back.edge_start, g.edge_start);
    assert_eq!(back.edges, g.edges);
    assert_eq!(back.undefined, g.undefined);
    assert_eq!(back.info, g.info);
}

/// Bytes reachable from `starts` and how many distinct starts there are, by a plain search.
fn reachable_from(g: &HeapGraph, starts: &[u32]) -> u64 {
    let mut seen = vec![false; g.node_count()];
    let mut stack: Vec<u32> = Vec::new();
    for &s in starts {
        if !seen[s as usize] {
            seen[s as usize] = true;
            stack.push(s);
        }
    }
    let mut total = 0;
    while let Some(v) = stack.pop() {
        total += g.node_size[v as usize] as u64;
        for &c in g.children(v) {
            if !seen[c as usize] {
                seen[c as usize] = true;
                stack.push(c);
            }
        }
    }
    total
}

#[test]
fn root_categories_match_a_search_per_category() {
    // A root, pseudo-nodes of several categories below it (some nested, some sharing objects),
    // then a random object graph with cycles and unreachable nodes.
    let names = [
        "[.NET Roots]",
        "[static vars]",
        "[local vars]",
        "[Pinned handles]",
        "[Strong handles]",
        "[finalization handles]",
        "[other roots]",
        "A",
        "B",
        "C",
    ];
    let tys: Vec<TypeEntry> = names
        .iter()
        .map(|n| TypeEntry {
            name: n.to_string(),
            module: None,
            size: 8,
        })
        .collect();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut checked = 0;
    for round in 0..40 {
        let objects = 5 + rng.below(if round < 30 { 60 } else { 3000 }) as u32;
        let pseudo = 1 + rng.below(12) as u32;
        let n = 1 + pseudo + objects;
        let mut nodes: Vec<(u32, u32, Vec<u32>)> = Vec::new();
        // The root references every pseudo-node or some of them (the rest hang below others).
        let mut root_kids = vec![1];
        for p in 2..=pseudo {
            if rng.below(3) != 0 {
                root_kids.push(p);
            }
        }
        nodes.push((0, 0, root_kids));
        for p in 1..=pseudo {
            let mut ch: Vec<u32> = (0..rng.below(6))
                .map(|_| 1 + pseudo + rng.below(objects as u64) as u32)
                .collect();
            if p < pseudo && rng.below(2) == 0 {
                ch.push(p + 1);
            }
            nodes.push((1 + rng.below(6) as u32, 0, ch));
        }
        for _ in 0..objects {
            let ch = (0..rng.below(4))
                .map(|_| 1 + pseudo + rng.below(objects as u64) as u32)
                .collect();
            nodes.push((7 + rng.below(3) as u32, 1 + rng.below(100) as u32, ch));
        }
        assert_eq!(nodes.len() as u32, n);
        let s = Snapshot::new(HeapGraph::from_nodes(tys.clone(), 0, &nodes));
        let g = &s.graph;
        let report = s.roots();
        let in_tree: std::collections::BTreeSet<u32> = report.tree.iter().map(|r| r.node).collect();
        for row in &report.categories {
            let mut direct = std::collections::BTreeSet::new();
            for r in report
                .tree
                .iter()
                .filter(|r| r.category == row.category && r.depth > 0)
            {
                direct.extend(g.children(r.node).iter().filter(|c| !in_tree.contains(c)));
            }
            let starts: Vec<u32> = direct.iter().copied().collect();
            checked += usize::from(!starts.is_empty());
            assert_eq!(
                row.objects,
                starts.len() as u64,
                "{:?} objects",
                row.category
            );
            assert_eq!(
                row.reachable_bytes,
                reachable_from(g, &starts),
                "{:?} reachable bytes, round {round}",
                row.category
            );
        }
        // A root-tree node retains what it immediately dominates, by removal.
        let mut seen = Vec::new();
        let all = reachable_bytes(g, None, &mut seen);
        for r in report.tree.iter().filter(|r| r.depth > 0) {
            let kids: Vec<u32> = s.dominators.children(r.node).collect();
            let want: u64 = kids
                .iter()
                .filter(|c| !in_tree.contains(c))
                .map(|&c| all - reachable_bytes(g, Some(c), &mut seen))
                .sum();
            assert_eq!(
                r.retained_bytes, want,
                "retained by root-tree node {}",
                r.node
            );
        }
    }
    // Most rounds' categories reference objects (the test is not vacuous).
    assert!(checked > 60, "{checked} categories with objects");
}

/// Each type name's instances and shallow bytes, counted node by node.
fn count_by_name(g: &HeapGraph) -> BTreeMap<String, (u64, u64)> {
    let mut m: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for v in 0..g.node_count() {
        let name = g.types[g.node_type[v] as usize].name.clone();
        let e = m.entry(name).or_default();
        e.0 += 1;
        e.1 += g.node_size[v] as u64;
    }
    m
}

/// The types table shown before the dominator tree (`shallow_types`) holds every type name's
/// count and shallow bytes, largest bytes first, and the same names and figures as the table
/// with retained bytes; some random graphs repeat names across type entries, as real dumps do.
#[test]
fn shallow_types_count_each_name_as_a_node_by_node_count() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut graphs: Vec<HeapGraph> = (0..30)
        .map(|round| {
            let n = 2 + rng.below(300) as usize;
            let degree = 1 + rng.below(3);
            let type_count = 1 + rng.below(8) as usize;
            let mut g = random_graph(&mut rng, n, degree, type_count);
            if round % 2 == 1 {
                // Entries 0 and the last share a name: one row.
                let last = g.types.len() - 1;
                g.types[last].name = g.types[0].name.clone();
            }
            g
        })
        .collect();
    if let Some(b) = read("gcdumpanalyze-test1.gcdump") {
        graphs.push(read_gcdump(&b).unwrap());
    }
    for g in graphs {
        let expect = count_by_name(&g);
        let shallow = shallow_types(&g);
        let got: BTreeMap<String, (u64, u64)> = shallow
            .iter()
            .map(|r| (r.name.clone(), (r.count, r.bytes)))
            .collect();
        assert_eq!(got.len(), shallow.len(), "a name twice");
        assert_eq!(got, expect);
        assert!(shallow.windows(2).all(|w| w[0].bytes >= w[1].bytes));
        let s = Snapshot::new(g);
        assert_eq!(s.totals().types, shallow.len() as u64);
        let full: BTreeMap<String, (u64, u64)> = s
            .types()
            .into_iter()
            .map(|r| (r.name, (r.count, r.bytes)))
            .collect();
        assert_eq!(full, expect);
    }
}
