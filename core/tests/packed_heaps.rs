//! Per-heap histories kept packed (`gc::packed`), as the browser keeps them: on every committed
//! fixture (workstation, server and DATAS server GC, .NET Core 3.1 to .NET 10), each GC's packed heaps
//! unpack to the builder's, and the insights finished from packed heaps equal those finished from
//! the rows, budgets per heap included.

use std::borrow::Cow;
use std::path::Path;

use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::gc::insights::{budget_of, InsightsBuilder};
use gcscope_core::gc::packed::{self, HeapSource};
use gcscope_core::gc::{interest, Gc, HeapHistory, ModelBuilder};
use gcscope_core::reader::TraceReader;

/// One packed byte string per GC, as a viewer would keep them beside rows without heaps.
struct Packed(Vec<Vec<u8>>);

impl HeapSource for Packed {
    fn heap_count(&self, i: usize) -> usize {
        packed::count(&self.0[i])
    }
    fn heaps(&self, i: usize) -> Cow<'_, [HeapHistory]> {
        Cow::Owned(packed::unpack(&self.0[i]).expect("bytes from pack"))
    }
}

fn fixtures() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let mut out = Vec::new();
    for rt in ["netcore3.1", "net8.0", "net9.0", "net10.0"] {
        for e in std::fs::read_dir(root.join(rt)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "nettrace") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert_eq!(out.len(), 32, "every committed trace of four runtimes");
    out
}

#[test]
fn packed_heaps_give_the_same_rows_and_insights_as_the_model() {
    let mut server_heaps = 0;
    for path in fixtures() {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let mut reader = TraceReader::new().with_filter(interest);
        let mut b = ModelBuilder::new(&TraceInfo::default());
        let mut ib = InsightsBuilder::new();
        {
            let mut sink = |e: &Event<'_>| {
                b.on_event(e);
                ib.on_event(e);
            };
            reader.push(&bytes, &mut sink).unwrap();
            reader.finish(&mut sink).unwrap();
        }
        let model = b.finish(Some(reader.stats()));
        let inputs = ib.into_inputs();
        let reference = inputs.clone().finish(&model.gcs);
        assert!(!reference.budgets.is_empty(), "{name}: budgets");

        let store = Packed(
            model
                .gcs
                .iter()
                .map(|g| {
                    let mut out = Vec::new();
                    packed::pack(&g.heaps, &mut out);
                    out
                })
                .collect(),
        );
        let stripped: Vec<Gc> = model
            .gcs
            .iter()
            .map(|g| Gc {
                heaps: Vec::new(),
                ..g.clone()
            })
            .collect();
        for (i, g) in model.gcs.iter().enumerate() {
            assert_eq!(
                store.heaps(i).as_ref(),
                &g.heaps[..],
                "{name}: GC {}",
                g.number
            );
            assert_eq!(packed::count(&store.0[i]), g.heaps.len());
            if g.heap_count.unwrap_or(1) > 1 {
                server_heaps += g.heaps.len();
            }
        }
        // Every view, budgets per heap included, from rows without heaps plus the packed store.
        let from_packed = inputs.clone().finish_with(&stripped, &store, true);
        assert_eq!(from_packed, reference, "{name}");
        // Without per-heap budgets: the same totals, no heap rows; one GC's on demand.
        let lean = inputs.finish_with(&stripped, &store, false);
        assert_eq!(lean.budgets.len(), reference.budgets.len());
        for (l, r) in lean.budgets.iter().zip(&reference.budgets) {
            assert!(l.heaps.is_empty());
            assert_eq!((&l.total, &l.why), (&r.total, &r.why), "{name}");
            let i = stripped
                .iter()
                .position(|g| g.number == r.gc_number)
                .unwrap();
            assert_eq!(budget_of(&stripped, &store, i).as_ref(), Some(r), "{name}");
        }
        // Packed is much smaller than the histories in memory.
        let packed_len: usize = store.0.iter().map(Vec::len).sum();
        let heaps: usize = model.gcs.iter().map(|g| g.heaps.len()).sum();
        let mem = heaps * size_of::<HeapHistory>()
            + model
                .gcs
                .iter()
                .flat_map(|g| &g.heaps)
                .map(|h| h.generations.len() * size_of::<gcscope_core::gc::HeapGen>())
                .sum::<usize>();
        assert!(
            packed_len * 4 < mem,
            "{name}: {packed_len} packed vs {mem} in memory"
        );
    }
    assert!(
        server_heaps > 0,
        "the server fixtures have per-heap histories"
    );
}
