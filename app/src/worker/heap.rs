//! The heap worker: a worker of its own, started when a `.gcdump` heap snapshot is opened, that
//! reads the snapshot whole (a graph is read at random, not streamed; a trace's heap walk is read
//! a slice at a time, up to the walk's end), computes its dominator tree
//! (core's `heap::Snapshot`) and keeps it, then answers the Heap tab's questions
//! (`protocol::heap`): the summary and types table once, one dominator-tree level or one type's
//! paths to the root on request, and the difference with a second snapshot.

use gcscope_core::container::{heap_input, heap_input_message, HeapInput, MAX_SNAPSHOT_BYTES};
use gcscope_core::heap::{diff, shallow_types, HeapGraph, HeapWalk, Snapshot};

use crate::protocol::heap::{
    CategoryRow, HeapAnswer, HeapDiff, HeapRequest, HeapStage, HeapSummary, Paths, MAX_CHILDREN,
    MAX_PATH_GROUPS,
};

/// The snapshot shown (A) and the one it is compared with (B), read.
#[derive(Default)]
pub struct Kept {
    a: Option<(String, Snapshot)>,
    b: Option<(String, Snapshot)>,
}

/// What the heap worker reads from a file.
enum Input {
    /// The `.gcdump` bytes: the file itself, what a gzip wraps, or a `.zip`'s first `.gcdump`.
    Snapshot(Vec<u8>),
    /// An event trace (zipped or not), read for its heap walk ([`trace_walk`]).
    Trace(Vec<u8>),
}

/// Tells a snapshot from a trace and unwraps a snapshot, once (core's `container::heap_input`,
/// capped at `MAX_SNAPSHOT_BYTES`).
fn input(file: Vec<u8>) -> Result<Input, String> {
    // `None`: nothing wraps the snapshot, the file's own bytes are used, not a copy.
    let unwrapped = match heap_input(&file, MAX_SNAPSHOT_BYTES) {
        Ok(HeapInput::Snapshot(u)) => match u.bytes {
            std::borrow::Cow::Borrowed(_) => None,
            std::borrow::Cow::Owned(b) => Some(b),
        },
        Ok(HeapInput::Trace) => return Ok(Input::Trace(file)),
        Err(e) => return Err(heap_input_message(&e)),
    };
    Ok(Input::Snapshot(unwrapped.unwrap_or(file)))
}

/// The `.gcdump` bytes of a file ([`input`]); a trace is refused here.
pub fn gcdump_bytes(file: Vec<u8>) -> Result<Vec<u8>, String> {
    match input(file)? {
        Input::Snapshot(b) => Ok(b),
        Input::Trace(_) => {
            Err("not a .gcdump heap snapshot (no FastSerialization GCHeapDump at its start)".into())
        }
    }
}

/// The first heap walk of a trace (the GCBulk events of an induced gen2 GC, as `gcscope gcdump
/// --nettrace` or dotnet-trace's heap-dump keywords write them), read a piece at a time.
pub fn trace_walk(file: &[u8]) -> Result<HeapWalk, String> {
    walk_of(gcscope_core::reader::heap_walk(file))
}

/// A walk's graph, and its own warnings (lost or malformed events, a trace cut short).
fn graph_of(walk: HeapWalk) -> (HeapGraph, Vec<String>) {
    let warnings = walk.report.warnings();
    (walk.graph, warnings)
}

/// The walk a trace reader found, or what to tell the user.
fn walk_of(read: Result<Option<HeapWalk>, gcscope_core::error::Error>) -> Result<HeapWalk, String> {
    match read {
        Ok(Some(w)) => Ok(w),
        Ok(None) => Err(
            "the trace holds no heap walk (the GCHeapDump events of an induced gen2 \
                         GC: `gcscope gcdump --pid P --nettrace FILE` writes a trace with one)"
                .into(),
        ),
        Err(e) => Err(format!("neither a .gcdump heap snapshot nor a trace: {e}")),
    }
}

impl Kept {
    /// Reads `file` as snapshot A (`compare`: B) and answers its summary (or the difference).
    /// `now` is a clock in ms, for the summary's timings. A's summary comes in stages
    /// ([`HeapStage`]): `post` gets the earlier ones as soon as each is ready (the page shows the
    /// types table while the dominator tree is computed), the answer is the complete one.
    pub fn open(
        &mut self,
        req: &HeapRequest,
        file: Vec<u8>,
        now: &dyn Fn() -> f64,
        post: &mut dyn FnMut(HeapAnswer),
    ) -> HeapAnswer {
        let file_size = file.len() as f64;
        let t0 = now();
        let read = input(file).and_then(|i| match i {
            Input::Trace(file) => trace_walk(&file).map(graph_of),
            Input::Snapshot(bytes) => gcscope_core::heap::read_gcdump(&bytes)
                .map(|g| (g, Vec::new()))
                .map_err(|e| e.to_string()),
        });
        self.open_graph(req, read, file_size, t0, now, post)
    }

    /// Goes on from a graph read (or why it could not be) as [`Self::open`] does: `warnings` are
    /// the reading's own (a heap walk's lost or malformed events), `t0` when the reading began.
    pub fn open_graph(
        &mut self,
        req: &HeapRequest,
        read: Result<(HeapGraph, Vec<String>), String>,
        file_size: f64,
        t0: f64,
        now: &dyn Fn() -> f64,
        post: &mut dyn FnMut(HeapAnswer),
    ) -> HeapAnswer {
        let failed = |error: String| HeapAnswer::Failed {
            request: req.clone(),
            error,
        };
        let (name, compare) = match req {
            HeapRequest::Open { file_name } => (file_name.clone(), false),
            HeapRequest::Compare { file_name } => (file_name.clone(), true),
            _ => return failed("a request to read a file without one".into()),
        };
        let (graph, warnings) = match read {
            Ok(g) => g,
            Err(e) => return failed(format!("{name}: {e}")),
        };
        let t1 = now();
        if !compare {
            // A's previous tree is of no more use, and its memory is wanted for this one's.
            self.a = None;
            self.b = None;
            let mut s = shallow_summary(&graph, &name, file_size);
            s.warnings.splice(0..0, warnings.iter().cloned());
            s.read_ms = t1 - t0;
            s.types_ms = now() - t1;
            post(HeapAnswer::Summary(Box::new(s)));
        }
        let t1 = now();
        let snap = Snapshot::new(graph);
        let t2 = now();
        if compare {
            self.b = Some((name, snap));
            return self.diff();
        }
        let mut s = summary(&snap, &name, file_size);
        // The walk's own (events lost or malformed, a trace cut short) before the graph's.
        s.warnings.splice(0..0, warnings);
        s.read_ms = t1 - t0;
        s.dominators_ms = t2 - t1;
        s.types_ms = now() - t2;
        post(HeapAnswer::Summary(Box::new(s.clone())));
        let t3 = now();
        complete(&mut s, &snap);
        s.roots_ms = now() - t3;
        self.a = Some((name, snap));
        HeapAnswer::Summary(Box::new(s))
    }

    /// The answer to a request about the snapshots kept.
    pub fn answer(&self, req: &HeapRequest) -> HeapAnswer {
        let Some((_, s)) = &self.a else {
            return HeapAnswer::Failed {
                request: req.clone(),
                error: "the heap worker has read no snapshot".into(),
            };
        };
        match req {
            HeapRequest::Children { node } => {
                let all = s.dominators.children_by_retained(*node);
                let nodes = all
                    .iter()
                    .take(MAX_CHILDREN)
                    .filter_map(|&c| s.tree_node(c))
                    .collect::<Vec<_>>();
                HeapAnswer::Children {
                    node: *node,
                    more: (all.len() - nodes.len()) as u64,
                    nodes,
                }
            }
            HeapRequest::Paths { type_name } => {
                let p = s.paths(type_name);
                let more = p.groups.len().saturating_sub(MAX_PATH_GROUPS) as u64;
                HeapAnswer::Paths(Box::new(Paths {
                    type_name: p.type_name,
                    instances: p.instances,
                    unreachable_instances: p.unreachable_instances,
                    more_groups: more,
                    groups: p.groups.into_iter().take(MAX_PATH_GROUPS).collect(),
                }))
            }
            HeapRequest::Open { .. } | HeapRequest::Compare { .. } => HeapAnswer::Failed {
                request: req.clone(),
                error: "a request to read a snapshot came without its file".into(),
            },
        }
    }

    fn diff(&self) -> HeapAnswer {
        let (Some((na, a)), Some((nb, b))) = (&self.a, &self.b) else {
            return HeapAnswer::Failed {
                request: HeapRequest::Compare {
                    file_name: String::new(),
                },
                error: "no snapshot is open to compare with".into(),
            };
        };
        let d = diff(a, b);
        HeapAnswer::Diff(Box::new(HeapDiff {
            name_a: na.clone(),
            name_b: nb.clone(),
            nodes_a: d.nodes_a,
            nodes_b: d.nodes_b,
            bytes_a: d.bytes_a,
            bytes_b: d.bytes_b,
            types: d.types,
        }))
    }
}

/// What the graph alone gives, before the dominator tree ([`HeapStage::Types`]).
pub fn shallow_summary(g: &HeapGraph, file_name: &str, file_size: f64) -> HeapSummary {
    let type_rows = shallow_types(g);
    HeapSummary {
        stage: HeapStage::Types,
        file_name: file_name.into(),
        file_size,
        nodes: g.node_count() as u64,
        edges: g.edge_count() as u64,
        total_bytes: g.total_bytes(),
        types: type_rows.len() as u64,
        undefined_nodes: g.undefined_count() as u64,
        pointer_size: g.pointer_size,
        process_name: g.info.process_name.clone(),
        process_id: g.info.process_id,
        creation_tool: g.info.creation_tool.clone(),
        type_rows,
        ..HeapSummary::default()
    }
}

/// The snapshot's figures and types table with retained bytes ([`HeapStage::Retained`]).
pub fn summary(s: &Snapshot, file_name: &str, file_size: f64) -> HeapSummary {
    let t = s.totals();
    let g = &s.graph;
    HeapSummary {
        stage: HeapStage::Retained,
        file_name: file_name.into(),
        file_size,
        nodes: t.nodes,
        edges: t.edges,
        total_bytes: t.total_bytes,
        types: t.types,
        reachable_nodes: t.reachable_nodes,
        reachable_bytes: t.reachable_bytes,
        unreachable_nodes: t.unreachable_nodes,
        unreachable_bytes: t.unreachable_bytes,
        undefined_nodes: t.undefined_nodes,
        pointer_size: g.pointer_size,
        process_name: g.info.process_name.clone(),
        process_id: g.info.process_id,
        creation_tool: g.info.creation_tool.clone(),
        warnings: s.warnings(),
        type_rows: s.types(),
        root: s.tree_node(g.root),
        ..HeapSummary::default()
    }
}

/// Adds the root categories and the generations to `out` ([`HeapStage::Complete`]).
pub fn complete(out: &mut HeapSummary, s: &Snapshot) {
    let roots = s.roots();
    out.stage = HeapStage::Complete;
    out.categories = roots
        .categories
        .into_iter()
        .map(|c| CategoryRow {
            category: c.category.label().into(),
            root_nodes: c.root_nodes,
            objects: c.objects,
            retained_bytes: c.retained_bytes,
            reachable_bytes: c.reachable_bytes,
        })
        .collect();
    out.shared_retained_bytes = roots.shared_retained_bytes;
    out.generations = s.generations();
}

#[cfg(target_arch = "wasm32")]
pub use read::serve;

#[cfg(target_arch = "wasm32")]
mod read;

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_core::heap::{HeapGraph, TypeEntry};

    fn ty(name: &str) -> TypeEntry {
        TypeEntry {
            name: name.into(),
            module: None,
            size: 0,
        }
    }

    #[test]
    fn children_come_largest_first_and_paths_by_type() {
        // root(0) -> a(1, 10 bytes) -> b(2, 30 bytes); root -> c(3, 5 bytes)
        let types = vec![ty("[root]"), ty("A"), ty("B"), ty("C")];
        let nodes = vec![
            (0u32, 0u32, vec![1u32, 3]),
            (1, 10, vec![2]),
            (2, 30, vec![]),
            (3, 5, vec![]),
        ];
        let g = HeapGraph::from_nodes(types, 0, &nodes);
        let k = Kept {
            a: Some(("x".into(), Snapshot::new(g))),
            b: None,
        };
        match k.answer(&HeapRequest::Children { node: 0 }) {
            HeapAnswer::Children { nodes, more, .. } => {
                assert_eq!(more, 0);
                let v: Vec<(&str, u64)> = nodes
                    .iter()
                    .map(|n| (n.type_name.as_str(), n.retained_bytes))
                    .collect();
                assert_eq!(v, [("A", 40), ("C", 5)]);
            }
            other => panic!("{other:?}"),
        }
        match k.answer(&HeapRequest::Paths {
            type_name: "B".into(),
        }) {
            HeapAnswer::Paths(p) => {
                assert_eq!(p.instances, 1);
                assert_eq!(p.groups.len(), 1);
                let names: Vec<&str> = p.groups[0].path.iter().map(|s| s.name.as_str()).collect();
                assert_eq!(names, ["[root]", "A", "B"]);
                assert_eq!(p.groups[0].bytes, 30);
            }
            other => panic!("{other:?}"),
        }
    }

    /// Opens `file` as A, the earlier stages collected.
    fn open_staged(file: Vec<u8>) -> (Vec<HeapSummary>, HeapSummary) {
        let mut k = Kept::default();
        let mut early = Vec::new();
        let req = HeapRequest::Open {
            file_name: "x.gcdump".into(),
        };
        let last = k.open(&req, file, &|| 0.0, &mut |a| match a {
            HeapAnswer::Summary(s) => early.push(*s),
            other => panic!("{other:?}"),
        });
        let HeapAnswer::Summary(last) = last else {
            panic!("{last:?}")
        };
        (early, *last)
    }

    #[test]
    fn a_snapshot_is_answered_types_first_then_retained_then_roots() {
        // root(0) -> a(1, A, 10 bytes) -> b(2, B, 30 bytes); root -> c(3, C, 5 bytes);
        // d(4, A, 7 bytes) referenced by no one.
        let types = vec![ty("[root]"), ty("A"), ty("B"), ty("C")];
        let nodes = vec![
            (0u32, 0u32, vec![1u32, 3]),
            (1, 10, vec![2]),
            (2, 30, vec![]),
            (3, 5, vec![]),
            (1, 7, vec![]),
        ];
        let file = gcscope_core::heap::write_gcdump(&HeapGraph::from_nodes(types, 0, &nodes));
        let (early, last) = open_staged(file);
        let stages: Vec<HeapStage> = early.iter().map(|s| s.stage).collect();
        assert_eq!(stages, [HeapStage::Types, HeapStage::Retained]);
        assert_eq!(last.stage, HeapStage::Complete);
        let row = |s: &HeapSummary, name: &str| {
            let r = s.type_rows.iter().find(|r| r.name == name).unwrap();
            (r.count, r.bytes, r.retained_bytes, r.unreachable_count)
        };
        // Before the tree: the graph's figures, nothing of the tree's.
        let first = &early[0];
        assert_eq!(
            (first.nodes, first.edges, first.total_bytes, first.types),
            (5, 3, 52, 4)
        );
        assert_eq!(row(first, "A"), (2, 17, 0, 0));
        assert_eq!(row(first, "B"), (1, 30, 0, 0));
        assert!(first.root.is_none() && first.categories.is_empty());
        // With the tree: a keeps b alive; d is unreachable.
        let second = &early[1];
        assert_eq!(row(second, "A"), (2, 17, 40, 1));
        assert_eq!((second.unreachable_nodes, second.unreachable_bytes), (1, 7));
        assert_eq!(second.root.as_ref().map(|r| r.retained_bytes), Some(45));
        assert!(second.categories.is_empty());
        // The last adds the root categories and changes nothing before.
        assert_eq!(last.categories.len(), 6);
        let mut without = last.clone();
        without.stage = HeapStage::Retained;
        without.categories = Vec::new();
        without.shared_retained_bytes = 0;
        without.generations = None;
        assert_eq!(&without, second);
    }

    #[test]
    fn the_first_stage_has_the_readmes_totals() {
        // `../shared` of the checkout, found from any depth (a worktree sits one level deeper).
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .find_map(|a| {
                std::fs::read(a.join("shared/heapdumps/gcdumpanalyze-test1.gcdump")).ok()
            });
        let Some(file) = file else {
            eprintln!("skipped: no gcdumpanalyze-test1.gcdump");
            return;
        };
        let (early, last) = open_staged(file);
        let first = &early[0];
        assert_eq!(first.stage, HeapStage::Types);
        // ../shared/heapdumps/README.md: nodes, edges, total bytes, top type by bytes.
        assert_eq!(
            (first.nodes, first.edges, first.total_bytes),
            (46_645, 82_475, 3_339_490)
        );
        let top = &first.type_rows[0];
        assert_eq!(
            (top.name.as_str(), top.count, top.bytes),
            ("System.String", 6_913, 518_562)
        );
        let counts = |s: &HeapSummary| {
            let mut v: Vec<(String, u64, u64)> = s
                .type_rows
                .iter()
                .map(|r| (r.name.clone(), r.count, r.bytes))
                .collect();
            v.sort();
            v
        };
        assert_eq!(counts(first), counts(&last));
        assert_eq!(first.types, last.types);
    }

    #[test]
    fn a_trace_is_not_a_heap_snapshot() {
        let e = gcdump_bytes(b"Nettrace and more bytes".to_vec()).unwrap_err();
        assert!(e.contains("not a .gcdump"), "{e}");
    }

    /// A trace is read for its heap walk; one of GCs alone has none, and the answer says how to
    /// take one. (Traces with a walk: `tests/e2e/heap-walk.test.mjs`, from a real runtime.)
    #[test]
    fn a_trace_without_a_heap_walk_says_so() {
        let trace = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/traces/net8.0/induced.nettrace"
        ))
        .unwrap();
        let req = HeapRequest::Open {
            file_name: "induced.nettrace".into(),
        };
        let a = Kept::default().open(&req, trace, &|| 0.0, &mut |a| panic!("{a:?}"));
        let HeapAnswer::Failed { error, .. } = a else {
            panic!("{a:?}")
        };
        assert!(
            error.starts_with("induced.nettrace: the trace holds no heap walk")
                && error.contains("gcscope gcdump"),
            "{error}"
        );
    }

    /// A one-member gzip of `data` in one stored deflate block (RFC 1952, RFC 1951; the CRC is
    /// left zero: it is not checked).
    fn stored_gzip(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1];
        let len = data.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(data);
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out
    }

    /// A .zip whose entries are stored as they are, local headers only (APPNOTE 4.3.7); the
    /// reader stops at the end of the entries.
    fn stored_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, data) in entries {
            out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
            out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(data);
        }
        out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        out.extend_from_slice(&[0; 18]);
        out
    }

    #[test]
    fn a_gzipped_or_zipped_snapshot_opens() {
        let types = vec![ty("[root]"), ty("A"), ty("B")];
        let nodes = vec![
            (0u32, 0u32, vec![1u32, 2]),
            (1, 10, vec![]),
            (2, 30, vec![]),
        ];
        let dump = gcscope_core::heap::write_gcdump(&HeapGraph::from_nodes(types, 0, &nodes));
        let zip = stored_zip(&[("notes.txt", b"x"), ("dir/app.gcdump", &dump)]);
        for (how, file) in [
            ("bare", dump.clone()),
            ("gzip", stored_gzip(&dump)),
            ("zip", zip),
        ] {
            assert!(gcdump_bytes(file.clone()).unwrap() == dump, "{how}");
            let req = HeapRequest::Open {
                file_name: format!("app.{how}"),
            };
            match Kept::default().open(&req, file, &|| 0.0, &mut |_| {}) {
                HeapAnswer::Summary(s) => {
                    assert_eq!((s.nodes, s.total_bytes), (3, 40), "{how}")
                }
                other => panic!("{how}: {other:?}"),
            }
        }
        let e = gcdump_bytes(stored_zip(&[("notes.txt", b"x")])).unwrap_err();
        assert!(
            e.contains("without a .gcdump") && e.contains("notes.txt"),
            "{e}"
        );
        let cut = stored_gzip(&dump);
        let e = gcdump_bytes(cut[..cut.len() / 2].to_vec()).unwrap_err();
        assert!(
            e.contains(&format!("cut off at byte {}", cut.len() / 2)),
            "{e}"
        );
    }
}
