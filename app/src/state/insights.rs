//! The page's side of the insights: finishing them from the worker's records and the rows
//! ([`finish`]), the per-heap budgets of the GCs in a time range ([`per_heap`]) and the sampled
//! allocations of a time range ([`types_in`]: whole tick bins, exact sums per type, at most 512).

use gcscope_core::gc::insights::{
    budget_of, ranked, Allocations, GcBudget, KindBytes, TypeAlloc, TypeTicks,
};
use gcscope_core::gc::packed::HeapSource;
use gcscope_core::gc::Gc;

use crate::protocol::insights::{bounded, ShippedInputs, TraceInsights};

/// The page's side: the views' figures from the worker's records, every GC row and the rows'
/// per-heap histories (kept packed apart: `heaps`). Budgets come without their per-heap rows (32
/// heaps' for every GC would outweigh the rows); the budgets view asks for the GCs it shows.
pub fn finish(shipped: &ShippedInputs, gcs: &[Gc], heaps: &dyn HeapSource) -> TraceInsights {
    let mut t = bounded(shipped.inputs.clone().finish_with(gcs, heaps, false));
    t.pressure_points_dropped += shipped.pressure_points_dropped;
    t
}

/// Per-heap budget rows built at most: the GCs in the time range, first ones first. A row per heap
/// per GC grows with the trace (a server GC has one heap per core), so every GC's would take the
/// tab's memory with it (docs/performance-log/journal.md, "Earlier (stop 12)").
pub const MAX_PER_HEAP_ROWS: usize = 20_000;

/// The budgets per heap of the GCs in a time range, for server GC.
#[derive(Debug, Clone, PartialEq)]
pub struct PerHeap {
    /// The first GCs in range, with their per-heap rows, at most `max_rows` rows in all.
    pub budgets: Vec<GcBudget>,
    /// GCs in the range that have per-heap histories (`budgets` holds the first ones).
    pub gcs_in_range: usize,
}

/// Per-heap budgets of the GCs whose start passes `in_range`, from the packed heaps (`None` when
/// no GC has two heaps: workstation GC, whose per-heap figures are the GC's).
pub fn per_heap(
    gcs: &[Gc],
    heaps: &dyn HeapSource,
    in_range: &dyn Fn(f64) -> bool,
    max_rows: usize,
) -> Option<PerHeap> {
    let counts: Vec<usize> = (0..gcs.len()).map(|i| heaps.heap_count(i)).collect();
    if !counts.iter().any(|&n| n > 1) {
        return None;
    }
    let mut p = PerHeap {
        budgets: Vec::new(),
        gcs_in_range: 0,
    };
    let (mut rows, mut full) = (0, false);
    for (i, g) in gcs.iter().enumerate() {
        if counts[i] == 0 || !in_range(g.start_ms) {
            continue;
        }
        p.gcs_in_range += 1;
        full |= rows + counts[i] > max_rows;
        if !full {
            if let Some(b) = budget_of(gcs, heaps, i) {
                rows += b.heaps.len();
                p.budgets.push(b);
            }
        }
    }
    Some(p)
}

/// Sums over the tick bins that overlap a range.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RangeAllocs {
    /// Most bytes first (ties by name); `pct` of the range's sampled bytes.
    pub types: Vec<TypeAlloc>,
    pub by_kind: KindBytes,
    pub ticks: u64,
    /// What the bins cover: from the first included bin's start to the last one's end.
    pub covered: Option<(f64, f64)>,
}

/// Per-type sums over the tick bins overlapping `[from_ms, to_ms]` (a range on bin boundaries
/// selects exactly the ticks with `from_ms <= ms < to_ms`).
pub fn types_in(a: &Allocations, from_ms: f64, to_ms: f64) -> RangeAllocs {
    let bins = &a.tick_bins;
    let mut r = RangeAllocs::default();
    for b in bins.overlapping(from_ms, to_ms) {
        let end = b.start_ms + bins.bin_ms;
        r.covered = Some(match r.covered {
            Some((lo, _)) => (lo, end),
            None => (b.start_ms, end),
        });
    }
    let per = bins.per_type_in(a.type_names.len(), from_ms, to_ms);
    let mut all = TypeTicks::default();
    for t in &per {
        all.merge(t);
    }
    r.ticks = all.ticks;
    r.by_kind = all.bytes;
    r.types = ranked(&a.type_names, &per);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::insights::inputs;
    use crate::state::heap_store::HeapStore;
    use gcscope_core::gc::insights::{analyze_with_insights, InsightsBuilder};

    /// The worker's way (its reader for the model and insights, the ticks in batches, rows drained
    /// as they settle, the insights' records shipped through a message, finished by the page with
    /// the rows it received) gives the same rows and the same views as building everything from
    /// the whole model, every event one by one, on every fixture.
    #[test]
    fn finishing_in_the_page_equals_finishing_with_the_whole_model() {
        use gcscope_core::event::TraceInfo;
        use gcscope_core::gc::ModelBuilder;
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/traces");
        let mut checked = 0;
        for rt in ["netcore3.1", "net8.0", "net9.0", "net10.0"] {
            for w in [
                "induced",
                "loh",
                "mempressure",
                "pinning",
                "server",
                "wks-concurrent",
                "wks-nonconcurrent",
                "handles",
                "conserve",
                "datas",
                "datas-tuned",
            ] {
                let Ok(bytes) = std::fs::read(format!("{dir}/{rt}/{w}.nettrace")) else {
                    continue;
                };
                // The whole model as reference: every row kept, the insights finished with it.
                let (whole, old) = {
                    let mut reader = gcscope_core::reader::TraceReader::new();
                    let mut model = ModelBuilder::new(&TraceInfo::default());
                    let mut ib = InsightsBuilder::bounded();
                    let mut sink = |e: &gcscope_core::event::Event<'_>| {
                        model.on_event(e);
                        ib.on_event(e);
                    };
                    reader.push(&bytes, &mut sink).unwrap();
                    reader.finish(&mut sink).unwrap();
                    model.set_info(reader.info().unwrap());
                    let m = model.finish(Some(reader.stats()));
                    let ins = bounded(ib.finish(&m));
                    (m, ins)
                };
                // As the worker reads now: filtered, the allocation ticks in batches.
                let mut reader = gcscope_core::reader::TraceReader::for_consumer(
                    gcscope_core::Consumer::ModelAndInsights,
                );
                let mut model = ModelBuilder::new(&TraceInfo::default());
                let mut ib = InsightsBuilder::bounded();
                let mut rows = Vec::new();
                for chunk in bytes.chunks(64 * 1024) {
                    reader
                        .push(chunk, &mut |e| {
                            gcscope_core::gc::feed(&mut model, &mut ib, e)
                        })
                        .unwrap();
                    rows.extend(model.drain_completed());
                }
                reader
                    .finish(&mut |e| gcscope_core::gc::feed(&mut model, &mut ib, e))
                    .unwrap();
                model.set_info(reader.info().unwrap());
                let mut m = model.finish(Some(reader.stats()));
                rows.append(&mut m.gcs);
                assert!(rows == whole.gcs, "{rt}/{w}: rows");
                let shipped = inputs(ib.into_inputs());
                let bytes = crate::protocol::wire::encode(&shipped).unwrap();
                let received: ShippedInputs = crate::protocol::wire::decode(&bytes).unwrap();
                // The rows through the wire in batches of 7, their heaps packed beside them.
                let (mut page_rows, mut store) = (Vec::new(), HeapStore::default());
                for batch in rows.chunks(7) {
                    let wire = crate::protocol::ToUi::gcs(batch.to_vec()).encode().unwrap();
                    let crate::protocol::ToUi::Gcs { rows: r, heaps } =
                        crate::protocol::ToUi::decode(&wire).unwrap()
                    else {
                        panic!("not rows")
                    };
                    assert!(r.iter().all(|g| g.heaps.is_empty()));
                    page_rows.extend(r);
                    store.push(heaps);
                }
                let page = finish(&received, &page_rows, &store);
                // Budgets come without per-heap rows; the view asks for them per GC.
                let mut reference = old;
                for (i, b) in reference.insights.budgets.iter_mut().enumerate() {
                    let at = page_rows
                        .iter()
                        .position(|g| g.number == b.gc_number)
                        .unwrap();
                    let one = budget_of(&page_rows, &store, at).unwrap();
                    if !b.heaps.is_empty() {
                        assert_eq!(&one, b, "{rt}/{w}: budget {i} per heap");
                    }
                    assert_eq!(one.total, b.total);
                    b.heaps.clear();
                }
                let (p, r) = (&page.insights, &reference.insights);
                assert_eq!(p.allocations, r.allocations, "{rt}/{w}");
                assert_eq!(p.budgets, r.budgets, "{rt}/{w}");
                assert_eq!(p.roots, r.roots, "{rt}/{w}");
                assert_eq!(p.compaction, r.compaction, "{rt}/{w}");
                assert_eq!(p.suspensions, r.suspensions, "{rt}/{w}");
                assert_eq!(p.finalization, r.finalization, "{rt}/{w}");
                assert_eq!(p.memory_pressure, r.memory_pressure, "{rt}/{w}");
                assert_eq!(p.segments, r.segments, "{rt}/{w}");
                assert_eq!(p.counters, r.counters, "{rt}/{w}");
                assert!(page == reference, "{rt}/{w}: insights");
                checked += 1;
            }
        }
        assert_eq!(checked, 32, "the fixtures are missing");
    }

    /// The budgets view's per-heap rows: the first GCs in range, whole GCs only, at most the cap;
    /// equal to core's per-heap budgets from the rows with their heaps; none for workstation GC.
    #[test]
    fn per_heap_budgets_are_the_first_gcs_in_range_up_to_the_cap() {
        let load = |w: &str| {
            let bytes = std::fs::read(format!(
                "{}/../fixtures/traces/net8.0/{w}.nettrace",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap();
            let (model, ins) = analyze_with_insights(&bytes).unwrap();
            let mut rows = model.gcs;
            let mut store = HeapStore::default();
            store.push(crate::protocol::heaps::HeapBatch::take(&mut rows));
            (rows, store, ins.budgets)
        };
        let (rows, store, reference) = load("server");
        let all = |_: f64| true;
        let p = per_heap(&rows, &store, &all, usize::MAX).unwrap();
        assert_eq!(p.budgets, reference);
        assert_eq!(p.gcs_in_range, reference.len());
        // 2 heaps a GC: a cap of 5 rows holds 2 GCs, never half of one.
        let p = per_heap(&rows, &store, &all, 5).unwrap();
        assert_eq!(p.budgets, reference[..2].to_vec());
        assert_eq!(p.gcs_in_range, reference.len());
        // A range: the GCs that started in it.
        let (t0, t1) = (reference[5].start_ms, reference[9].start_ms);
        let p = per_heap(&rows, &store, &|ms| ms >= t0 && ms <= t1, usize::MAX).unwrap();
        assert_eq!(p.budgets, reference[5..=9].to_vec());
        let (rows, store, _) = load("wks-concurrent");
        assert_eq!(per_heap(&rows, &store, &all, usize::MAX), None);
    }

    /// On a real trace, the worker's builder (no per-tick samples) gives, from its bins, the same
    /// per-type figures as core's per-tick samples: for the whole trace and for a range on bin
    /// boundaries.
    #[test]
    fn types_from_the_bins_equal_the_per_tick_figures() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/traces/net8.0/loh.nettrace"
        );
        let bytes = std::fs::read(path).expect("the fixture");
        let (model, exact) = analyze_with_insights(&bytes).unwrap();
        let mut b = InsightsBuilder::bounded();
        let mut reader = gcscope_core::reader::TraceReader::new();
        let mut sink = |e: &gcscope_core::event::Event<'_>| b.on_event(e);
        reader.push(&bytes, &mut sink).unwrap();
        reader.finish(&mut sink).unwrap();
        let shipped = bounded(b.finish(&model));
        let a = &shipped.insights.allocations;
        assert!(a.samples.is_empty());
        let e = &exact.allocations;
        assert!(e.tick_count > 100);
        let all = types_in(a, f64::NEG_INFINITY, f64::INFINITY);
        assert_eq!(all.ticks, e.tick_count);
        assert_eq!(all.types, e.top_types);
        // A range on bin boundaries around the middle of the ticks.
        let w = a.tick_bins.bin_ms;
        let mid = e.samples[e.samples.len() / 2].ms;
        let (from, to) = (
            (mid / w).floor() * w - 4.0 * w,
            (mid / w).floor() * w + 4.0 * w,
        );
        let r = types_in(a, from, to);
        assert_eq!(r.types, e.top_types_in(from, to));
        assert_eq!(r.ticks, e.samples_in(from, to).len() as u64);
        assert!(r.ticks > 0 && r.ticks < e.tick_count);
        let (lo, hi) = r.covered.unwrap();
        assert!(lo >= from && hi <= to, "{lo}..{hi} within {from}..{to}");
    }
}
