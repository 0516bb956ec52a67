//! The generated workload with allocation stacks (`Config::alloc_stacks`, bigtrace's
//! `--alloc-stacks`): every tick has a stack of 20 to 40 frames, at most `ALLOC_STACKS` distinct,
//! and every frame is named by the rundown the trace ends with, as the generator lays them out
//! (frame `d` of stack `s` in method `Alloc{(13 s + 7 d) % 400}`); without the option the ticks
//! have none.
#![cfg(feature = "encode")]

use gcscope_core::encode::workload::{generate, Config, ALLOC_METHODS, ALLOC_STACKS};
use gcscope_core::event::Event;
use gcscope_core::stacks::view::{Frames, Selection, StackSamplesBuilder, Which};
use gcscope_core::{Consumer, TraceReader};

fn trace(alloc_stacks: bool) -> Vec<u8> {
    let mut out = Vec::new();
    generate(
        &Config {
            target_bytes: 3 << 20,
            alloc_stacks,
            ..Config::default()
        },
        &mut |b| out.extend_from_slice(b),
    );
    out
}

#[test]
fn allocation_ticks_carry_the_built_stacks() {
    let bytes = trace(true);
    let mut r = TraceReader::for_consumer(Consumer::Stacks);
    let mut b = StackSamplesBuilder::summing(Selection::new(Which::Alloc(None)));
    let mut sink = |e: &Event<'_>| b.on_event(e);
    r.push(&bytes, &mut sink).unwrap();
    r.finish(&mut sink).unwrap();
    let (sums, samples) = b.finish_sums();
    let table = r.take_stacks().unwrap();
    assert!(sums.total_count > 100, "{}", sums.total_count);
    assert_eq!(sums.no_stack.count + sums.missing_stack.count, 0);
    assert!(sums.stacks.len() as u64 <= ALLOC_STACKS && sums.stacks.len() > 100);
    let frames = Frames {
        table: &table,
        methods: &samples.methods,
    };
    for s in &sums.stacks {
        let a = table.addresses(s.stack).unwrap();
        assert!((20..=40).contains(&a.len()), "{}", a.len());
        // The stack's number, from its leaf: method (13 s) % 400 holds frame 0.
        let leaf = (a[0] - 0x7ff0_5000_0000) / 0x1000;
        let s_num = (0..ALLOC_STACKS)
            .find(|&s| (13 * s) % ALLOC_METHODS == leaf && 20 + (s % 21) as usize == a.len())
            .expect("a built stack");
        for (d, f) in frames.frames(s.stack).iter().enumerate() {
            let m = (13 * s_num + 7 * d as u64) % ALLOC_METHODS;
            let name = f.method.as_deref().expect("every frame is named");
            assert!(name.ends_with(&format!(".Alloc{m}(int32)")), "{name}");
        }
    }
}

#[test]
fn without_the_option_ticks_have_no_stack() {
    let plain = trace(false);
    let mut r = TraceReader::new();
    r.set_keep_stacks(true);
    let mut ticks_with_stacks = 0;
    let mut sink = |e: &Event<'_>| {
        if e.event_id == 10 && e.stack != 0 {
            ticks_with_stacks += 1;
        }
    };
    r.push(&plain, &mut sink).unwrap();
    r.finish(&mut sink).unwrap();
    assert_eq!(ticks_with_stacks, 0);
}
