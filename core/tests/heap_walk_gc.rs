//! The GC model names the GC during which the runtime walked the heap (`process.heap_walk_gc`):
//! a GCBulkNode event between a GC's GCStart and GCEnd. Here the trace is built by hand, payload
//! by payload: GC 9 without a walk, GC 10 with one, and a bulk node after GC 10's end, which names
//! no GC. (The heap module's own tests read the same kind of walk into a graph; this test is here
//! because the model sits above the heap module.)

use gcscope_core::event::Event;
use gcscope_core::gc::ModelBuilder;

const PROVIDER: &str = "Microsoft-Windows-DotNETRuntime";

fn le(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// GCStart v1: Count, Depth, Reason (1: Induced), Type, ClrInstanceID.
fn gc_start(count: u32, depth: u32) -> (u32, u32, Vec<u8>) {
    let p = le(&[
        &count.to_le_bytes(),
        &depth.to_le_bytes(),
        &1u32.to_le_bytes(),
        &0u32.to_le_bytes(),
        &0u16.to_le_bytes(),
    ]);
    (1, 1, p)
}

/// GCEnd v1: Count, Depth, ClrInstanceID.
fn gc_end(count: u32) -> (u32, u32, Vec<u8>) {
    (
        2,
        1,
        le(&[
            &count.to_le_bytes(),
            &2u32.to_le_bytes(),
            &0u16.to_le_bytes(),
        ]),
    )
}

/// GCBulkNode: Index, Count, ClrInstanceID, then per node address, size, type id, edge count.
fn bulk_node(index: u32) -> (u32, u32, Vec<u8>) {
    let mut p = le(&[
        &index.to_le_bytes(),
        &1u32.to_le_bytes(),
        &0u16.to_le_bytes(),
    ]);
    for v in [0x1000u64, 24, 0x77, 0] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    (18, 0, p)
}

#[test]
fn the_model_names_the_gc_that_walked_the_heap() {
    let mut m = ModelBuilder::new(&Default::default());
    let trace = [
        gc_start(9, 1),
        gc_end(9),
        gc_start(10, 2),
        bulk_node(0),
        bulk_node(1),
        gc_end(10),
        bulk_node(0),
    ];
    for (i, (id, version, payload)) in trace.iter().enumerate() {
        let ev = Event {
            provider: PROVIDER,
            event_id: *id,
            version: *version,
            name: "test",
            pointer_size: 8,
            timestamp: i as i64 * 10_000,
            time_ms: i as f64,
            payload,
            ..Default::default()
        };
        m.on_event(&ev);
    }
    let model = m.finish(None);
    assert_eq!(model.gcs.len(), 2);
    assert_eq!(model.process.heap_walk_gc, Some(10));
}
