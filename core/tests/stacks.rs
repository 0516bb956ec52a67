//! Call stacks against a trace whose stacks and methods are known by construction
//! (`common::stacks_trace`): interning across sequence-point regions, the methods the addresses
//! fall in (nested, empty and missing ranges), the sums by stack, the call trees, the folded and
//! speedscope output, and bad input (a stack id that names no stack, cut and malformed StackBlocks).
#![cfg(feature = "encode")]

mod common;

use common::stacks_trace::*;
use gcscope_core::clr::enums::GcAllocationKind;
use gcscope_core::encode::Flavor;
use gcscope_core::error::ErrorKind;
use gcscope_core::event::Event;
use gcscope_core::stacks::methods::{Lookup, Unresolved};
use gcscope_core::stacks::view::{
    folded, CallTree, Frames, Selection, StackSamples, StackSamplesBuilder, Which,
};
use gcscope_core::stacks::{speedscope, StackTable};
use gcscope_core::TraceReader;

fn read(bytes: &[u8], keep: impl Fn(&Event<'_>) -> bool) -> (StackSamples, StackTable) {
    let mut r = TraceReader::new();
    r.set_keep_stacks(true);
    let mut b = StackSamplesBuilder::new();
    let mut sink = |e: &Event<'_>| {
        if keep(e) {
            b.on_event(e)
        }
    };
    r.push(bytes, &mut sink).expect("push");
    r.finish(&mut sink).expect("finish");
    (b.finish(), r.take_stacks().expect("stacks kept"))
}

fn folded_of(s: &StackSamples, t: &StackTable, which: Which) -> String {
    let frames = Frames {
        table: t,
        methods: &s.methods,
    };
    folded(&s.sum(&Selection::new(which)), &frames)
}

#[test]
fn stacks_and_methods_are_what_the_trace_was_built_with() {
    for flavor in [Flavor::V4, Flavor::V5] {
        let bytes = trace(flavor);
        let (s, t) = read(&bytes, |_| true);
        // Five distinct stacks, S_LOH met in both regions under different file ids.
        assert_eq!(t.len(), TRUTH.distinct);
        assert_eq!(t.missing(), TRUTH.missing);
        assert_eq!(t.entries(), 6);
        let loh = TRUTH.loh_ticks * TRUTH.loh_bytes_each;
        assert_eq!(
            folded_of(&s, &t, Which::Alloc(Some(GcAllocationKind::Large))),
            format!("{MAIN};{ALLOC_LARGE} {loh}\n")
        );
        let each = TRUTH.soh_bytes_each;
        // 0x5800 is in Outer past its nested Inner; the empty method's address is in none.
        assert_eq!(
            folded_of(&s, &t, Which::Alloc(Some(GcAllocationKind::Small))),
            format!(
                "{MAIN};{OUTER};{INNER} {}\n{MAIN};0x{EMPTY_AT:x};{OUTER} {each}\n\
                 [no stack recorded] {each}\n",
                TRUTH.soh_ticks_inner * each
            )
        );
        assert_eq!(
            folded_of(&s, &t, Which::Alloc(Some(GcAllocationKind::Pinned))),
            "[stack missing from the trace] 8000\n"
        );
        assert_eq!(
            folded_of(&s, &t, Which::Induced),
            format!("{MAIN};{COLLECT};0x{NATIVE:x} {}\n", TRUTH.induced)
        );
        assert_eq!(
            folded_of(&s, &t, Which::Triggered),
            format!(
                "{MAIN};{COLLECT};0x{NATIVE:x} {}\n{MAIN};{OUTER};{INNER} {}\n",
                TRUTH.induced, TRUTH.alloc_triggered
            )
        );
        assert_eq!(
            folded_of(&s, &t, Which::PinnedHandles),
            format!("{MAIN};{PIN} {}\n", TRUTH.pinned)
        );
        // Unresolved addresses say why, and are never given a name.
        assert_eq!(
            s.methods.lookup(NATIVE),
            Lookup::Unresolved(Unresolved::NotInAnyMethod)
        );
        assert_eq!(
            s.methods.lookup(EMPTY_AT),
            Lookup::Unresolved(Unresolved::NotInAnyMethod)
        );
        assert_eq!(s.methods.stats().empty_ranges, 1);
        assert_eq!(s.methods.stats().jit_loads, 1);
        assert_eq!(s.methods.stats().rundown_methods, 7);
    }
}

#[test]
fn a_selection_narrows_by_type_and_time() {
    let bytes = trace(Flavor::V5);
    let (s, t) = read(&bytes, |_| true);
    let mut sel = Selection::new(Which::Alloc(None));
    sel.type_name = Some("App.Node".into());
    let sums = s.sum(&sel);
    assert_eq!(
        sums.total_count,
        TRUTH.soh_ticks_inner + TRUTH.soh_ticks_odd
    );
    // Events are 1 ms apart; region 2 is two LOH ticks, the odd stack's, the one whose id names
    // no stack (the last with an id) and the one without.
    let last_with_id = s
        .samples
        .iter()
        .filter(|x| x.stack != 0)
        .map(|x| x.time_ms)
        .fold(f64::MIN, f64::max);
    let mut late = Selection::new(Which::Alloc(Some(GcAllocationKind::Large)));
    late.from_ms = Some(last_with_id - 3.5);
    let sums = s.sum(&late);
    assert_eq!(sums.total_count, 2, "{sums:?}");
    let frames = Frames {
        table: &t,
        methods: &s.methods,
    };
    assert!(folded(&sums, &frames).starts_with(MAIN));
}

#[test]
fn call_trees_hold_inclusive_and_exclusive_values() {
    let bytes = trace(Flavor::V5);
    let (s, t) = read(&bytes, |_| true);
    let frames = Frames {
        table: &t,
        methods: &s.methods,
    };
    let sums = s.sum(&Selection::new(Which::Alloc(None)));
    let each = TRUTH.soh_bytes_each;
    let loh = TRUTH.loh_ticks * TRUTH.loh_bytes_each;
    let total = loh + (TRUTH.soh_ticks_inner + TRUTH.soh_ticks_odd + 1) * each + 8_000;
    let down = CallTree::top_down(&sums, &frames);
    assert_eq!(down.nodes[0].inclusive, total);
    let child = |tree: &CallTree, at: u32, label: &str| {
        tree.nodes[at as usize]
            .children
            .iter()
            .copied()
            .find(|&c| tree.nodes[c as usize].label == label)
            .unwrap_or_else(|| panic!("{label} under node {at}"))
    };
    let main = child(&down, 0, MAIN);
    assert_eq!(
        down.nodes[main as usize].inclusive,
        loh + (TRUTH.soh_ticks_inner + TRUTH.soh_ticks_odd) * each
    );
    assert_eq!(down.nodes[main as usize].exclusive, 0);
    let outer = child(&down, main, OUTER);
    let inner = child(&down, outer, INNER);
    assert_eq!(
        down.nodes[inner as usize].exclusive,
        TRUTH.soh_ticks_inner * each
    );
    assert_eq!(down.nodes[outer as usize].exclusive, 0);
    // Children come largest first.
    assert_eq!(
        down.nodes[main as usize].children[0],
        child(&down, main, ALLOC_LARGE)
    );
    // Bottom-up: the leaves under the root, their callers under them.
    let up = CallTree::bottom_up(&sums, &frames);
    let leaf = child(&up, 0, INNER);
    assert_eq!(
        up.nodes[leaf as usize].inclusive,
        TRUTH.soh_ticks_inner * each
    );
    let caller = child(&up, leaf, OUTER);
    assert_eq!(up.nodes[caller as usize].parent, Some(leaf));
    let odd_leaf = child(&up, 0, OUTER);
    assert_eq!(
        up.nodes[odd_leaf as usize].inclusive,
        TRUTH.soh_ticks_odd * each
    );
    let sum_of_leaves: u64 = up.nodes[0]
        .children
        .iter()
        .map(|&c| up.nodes[c as usize].inclusive)
        .sum();
    assert_eq!(sum_of_leaves, total);
}

#[test]
fn speedscope_samples_run_root_first_and_weigh_the_values() {
    let bytes = trace(Flavor::V5);
    let (s, t) = read(&bytes, |_| true);
    let frames = Frames {
        table: &t,
        methods: &s.methods,
    };
    let sums = s.sum(&Selection::new(Which::PinnedHandles));
    let f = speedscope::file(&sums, &frames, "pinned handles", false);
    let json = serde_json::to_value(&f).expect("json");
    assert_eq!(json["$schema"], speedscope::SCHEMA);
    let p = &json["profiles"][0];
    assert_eq!(p["type"], "sampled");
    assert_eq!(p["unit"], "none");
    assert_eq!(p["endValue"], TRUTH.pinned);
    let names: Vec<&str> = p["samples"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            json["shared"]["frames"][i.as_u64().unwrap() as usize]["name"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(names, [MAIN, PIN]);
    assert_eq!(p["weights"][0], TRUTH.pinned);
}

#[test]
fn without_rundown_the_reason_says_so() {
    use gcscope_core::clr::names::RUNDOWN_PROVIDER;
    let bytes = trace(Flavor::V5);
    let (s, t) = read(&bytes, |e| e.provider != RUNDOWN_PROVIDER);
    assert_eq!(
        s.methods.lookup(0x2010),
        Lookup::Unresolved(Unresolved::NoRundown)
    );
    assert!(matches!(
        s.methods.lookup(0x5410),
        Lookup::Method {
            name: "App.Inner()",
            module: None
        }
    ));
    assert!(Unresolved::NoRundown.reason().contains("rundown"));
    // The frames keep their addresses.
    let frames = Frames {
        table: &t,
        methods: &s.methods,
    };
    let f = folded_of(&s, &t, Which::PinnedHandles);
    assert_eq!(f, "0x2040;0x4010 4\n");
    assert_eq!(frames.frames(1)[0].unresolved, Some(Unresolved::NoRundown));
    // No method events at all.
    let (s, _) = read(&bytes, |e| e.event_id != 143 && e.event_id != 144);
    assert_eq!(
        s.methods.lookup(0x2010),
        Lookup::Unresolved(Unresolved::NoMethodEvents)
    );
}

/// Where the first StackBlock's content starts: after its type name, the block's size and
/// alignment padding.
fn first_stack_block(bytes: &[u8]) -> usize {
    let name = b"StackBlock";
    let at = bytes
        .windows(name.len())
        .position(|w| w == name)
        .expect("a StackBlock");
    // Name, end-of-type tag, u32 size, padding to 4 bytes of the stream.
    let size_at = at + name.len() + 1;
    let content = size_at + 4;
    content + (4 - content % 4) % 4
}

#[test]
fn bad_stack_blocks_are_errors_with_their_offset() {
    let bytes = trace(Flavor::V5);
    let content = first_stack_block(&bytes);
    // The first stack's size, made not a whole number of addresses.
    let mut odd = bytes.clone();
    let size_at = content + 8;
    assert_eq!(
        u32::from_le_bytes(odd[size_at..size_at + 4].try_into().unwrap()),
        (S_LOH.len() * 8) as u32
    );
    odd[size_at..size_at + 4].copy_from_slice(&13u32.to_le_bytes());
    let mut r = TraceReader::new();
    r.set_keep_stacks(true);
    let err = r.push(&odd, &mut |_| {}).expect_err("malformed");
    assert_eq!(err.offset, size_at as u64);
    assert!(matches!(err.kind, ErrorKind::Malformed(_)), "{err:?}");
    // Cut inside the block: a truncation, the events before it delivered, no panic.
    for cut in [content + 3, content + 12, content + 20] {
        let mut r = TraceReader::new();
        r.set_keep_stacks(true);
        let mut n = 0;
        r.push(&bytes[..cut], &mut |_| n += 1).expect("push");
        let err = r.finish(&mut |_| n += 1).expect_err("cut");
        assert!(matches!(err.kind, ErrorKind::Truncated { .. }), "{err:?}");
    }
}

#[test]
fn every_cut_of_the_trace_is_an_error_or_events_never_a_panic() {
    let bytes = trace(Flavor::V4);
    for cut in (0..bytes.len()).step_by(7) {
        let mut r = TraceReader::new();
        r.set_keep_stacks(true);
        let mut b = StackSamplesBuilder::new();
        let mut sink = |e: &Event<'_>| b.on_event(e);
        let _ = r.push(&bytes[..cut], &mut sink);
        let _ = r.finish(&mut sink);
        let s = b.finish();
        if let Some(t) = r.stacks() {
            let frames = Frames {
                table: t,
                methods: &s.methods,
            };
            let _ = folded(&s.sum(&Selection::new(Which::Alloc(None))), &frames);
        }
    }
}

/// Two selections the summing tests try: a type, and the LOH from 30 ms on.
fn typed_and_late() -> (Selection, Selection) {
    let mut typed = Selection::new(Which::Alloc(None));
    typed.type_name = Some("App.Node".into());
    let mut late = Selection::new(Which::Alloc(Some(GcAllocationKind::Large)));
    late.from_ms = Some(30.0);
    (typed, late)
}

/// The type name of a sample of kind `k` (None for a sample that is not an allocation's).
fn type_of(x: &StackSamples, k: &gcscope_core::stacks::view::SampleKind) -> Option<String> {
    match k {
        gcscope_core::stacks::view::SampleKind::Alloc { type_index, .. } => {
            x.type_name(*type_index).map(String::from)
        }
        _ => None,
    }
}

#[test]
fn summing_while_reading_gives_the_sums_of_the_kept_samples() {
    let bytes = trace(Flavor::V5);
    let (s, _) = read(&bytes, |_| true);
    let (typed, late) = typed_and_late();
    let mut refused = Selection::new(Which::Induced);
    refused.type_name = Some("App.Node".into());
    for sel in [
        Selection::new(Which::Alloc(None)),
        Selection::new(Which::Induced),
        Selection::new(Which::PinnedHandles),
        typed,
        late,
        refused,
    ] {
        let mut r = TraceReader::new();
        r.set_keep_stacks(true);
        let mut b = StackSamplesBuilder::summing(sel.clone());
        let mut sink = |e: &Event<'_>| b.on_event(e);
        r.push(&bytes, &mut sink).expect("push");
        r.finish(&mut sink).expect("finish");
        let (sums, kept) = b.finish_sums();
        assert!(kept.samples.is_empty());
        assert_eq!(sums, s.sum(&sel), "{sel:?}");
    }
    assert_eq!(
        s.sum(&Selection::new(Which::Alloc(None))).total_count,
        TRUTH.loh_ticks + TRUTH.soh_ticks_inner + TRUTH.soh_ticks_odd + TRUTH.poh_ticks + 1
    );
}

/// A tick that comes with its digest (decoded by a part of the file, `Ticks::One`) is read from
/// the digest: each selection sums the same as from the decoded payloads, and a builder that keeps
/// the samples keeps the same ones, types included.
#[test]
fn ticks_with_their_digest_sum_as_decoded_ones() {
    use gcscope_core::clr::gc::TickDigest;
    use gcscope_core::ticks::Ticks;
    let bytes = trace(Flavor::V5);
    let (s, _) = read(&bytes, |_| true);
    let (typed, late) = typed_and_late();
    let mut digested = 0;
    let mut kept = StackSamplesBuilder::new();
    let sels = [Selection::new(Which::Alloc(None)), typed, late];
    let mut summing: Vec<StackSamplesBuilder> = sels
        .iter()
        .map(|s| StackSamplesBuilder::summing(s.clone()))
        .collect();
    let mut r = TraceReader::new();
    r.set_keep_stacks(true);
    let mut sink = |e: &Event<'_>| {
        let tick = e.name == "GC/AllocationTick";
        let d = tick
            .then(|| TickDigest::of(e.payload, e.version, e.pointer_size))
            .flatten();
        let mut with = *e;
        if let Some(d) = &d {
            digested += 1;
            with.ticks = Some(Ticks::One(d));
            kept.on_event(&with);
            summing.iter_mut().for_each(|b| b.on_event(&with));
        } else {
            kept.on_event(e);
            summing.iter_mut().for_each(|b| b.on_event(e));
        }
    };
    r.push(&bytes, &mut sink).expect("push");
    r.finish(&mut sink).expect("finish");
    assert!(digested > 10, "{digested} ticks digested");
    for (b, sel) in summing.into_iter().zip(&sels) {
        assert_eq!(b.finish_sums().0, s.sum(sel), "{sel:?}");
    }
    let kept = kept.finish();
    assert_eq!(kept.samples, s.samples);
    for (a, b) in kept.samples.iter().zip(&s.samples) {
        assert_eq!(type_of(&kept, &a.kind), type_of(&s, &b.kind));
    }
}

/// A reader for the stacks delivers the ticks as batches that carry each tick's stack and thread
/// (`Consumer::Stacks`): the builder keeps the same samples (time, thread, stack, kind, type,
/// bytes) as from the same file read event by event, across both sequence-point regions.
#[test]
fn batched_ticks_keep_the_samples_of_tick_events() {
    use gcscope_core::ticks::Ticks;
    use gcscope_core::Consumer;
    for flavor in [Flavor::V4, Flavor::V5] {
        let bytes = trace(flavor);
        let (want, want_table) = read(&bytes, |_| true);
        let mut r = TraceReader::for_consumer(Consumer::Stacks);
        let mut b = StackSamplesBuilder::new();
        let mut batches = 0;
        let mut sink = |e: &Event<'_>| {
            batches += u32::from(matches!(e.ticks, Some(Ticks::Batch(_))));
            b.on_event(e)
        };
        r.push(&bytes, &mut sink).expect("push");
        r.finish(&mut sink).expect("finish");
        assert!(batches > 0, "{flavor:?}: the ticks came as batches");
        let got = b.finish();
        let table = r.take_stacks().expect("stacks kept");
        assert_eq!(got.samples.len(), want.samples.len(), "{flavor:?}");
        assert_eq!(table.len(), want_table.len());
        assert_eq!(table.missing(), want_table.missing());
        for (g, w) in got.samples.iter().zip(&want.samples) {
            assert_eq!(
                (g.time_ms, g.process_id, g.value),
                (w.time_ms, w.process_id, w.value),
                "{flavor:?}"
            );
            assert_eq!(
                table.addresses(g.stack),
                want_table.addresses(w.stack),
                "{flavor:?}: stack at {} ms",
                g.time_ms
            );
            assert_eq!(type_of(&got, &g.kind), type_of(&want, &w.kind));
        }
        assert_eq!(got.stats.alloc_ticks, want.stats.alloc_ticks);
    }
}
