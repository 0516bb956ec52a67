//! Decoding a trace the sequential way and in parts ([`gcscope_core::parts`]), recording everything
//! a consumer can see, so that the two can be compared.

use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::parts::{self, FilterFn, Merged, Planner, Task, TaskStep};
use gcscope_core::Consumer;
use gcscope_core::{DecodeStats, TraceReader};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// Everything a consumer of a reader sees.
#[derive(Debug, PartialEq)]
pub struct Seen {
    /// One hash per delivered event, of every field, in delivery order.
    pub events: Vec<u64>,
    pub stats: DecodeStats,
    pub counts: Vec<(String, u32, String, u64)>,
    pub info: Option<TraceInfo>,
    pub result: String,
    /// The reader's stack table where it keeps stacks: every stack's addresses in id order, and
    /// the count of ids that named no stack.
    pub stacks: Option<(Vec<Vec<u64>>, u64)>,
}

impl Seen {
    /// Where two runs differ first, for a failure message.
    pub fn first_difference(&self, other: &Seen) -> String {
        if let Some(i) = (0..self.events.len().min(other.events.len()))
            .find(|&i| self.events[i] != other.events[i])
        {
            return format!("event {i} differs");
        }
        if self.events.len() != other.events.len() {
            return format!(
                "{} events against {}",
                self.events.len(),
                other.events.len()
            );
        }
        if self.stats != other.stats {
            return format!("stats {:?}\n  against {:?}", self.stats, other.stats);
        }
        if self.counts != other.counts {
            return "event counts differ".into();
        }
        if self.info != other.info {
            return "header facts differ".into();
        }
        if self.stacks != other.stacks {
            return "stack tables differ".into();
        }
        format!("result {} against {}", self.result, other.result)
    }
}

pub fn event_hash(e: &Event<'_>) -> u64 {
    let mut h = DefaultHasher::new();
    (
        e.provider,
        e.name,
        e.event_id,
        e.version,
        e.timestamp,
        e.time_ms.to_bits(),
        e.process_id,
    )
        .hash(&mut h);
    (
        e.thread_id,
        e.capture_thread_id,
        e.sequence,
        e.processor,
        e.stack_id,
        e.stack,
        e.pointer_size,
        e.payload,
    )
        .hash(&mut h);
    h.finish()
}

/// How the readers compared are set up.
#[derive(Debug, Clone, Copy, Default)]
pub struct Setup {
    pub filter: Option<FilterFn>,
    /// The sort buffer's budget (None: the default).
    pub budget: Option<usize>,
    /// The reader's consumer ([`TraceReader::set_consumer`]); with [`Consumer::EveryEvent`],
    /// `filter` narrows it. For the GC model's consumers the parts' ticks come as batches, so the
    /// events differ from the sequential reader's (compare what consumers build instead), and
    /// `filter` must be theirs (`gc::interest`).
    pub consumer: Consumer,
    /// The reader keeps stacks ([`TraceReader::set_keep_stacks`]).
    pub keep_stacks: bool,
}

fn reader(setup: Setup) -> TraceReader {
    let mut r = TraceReader::for_consumer(setup.consumer);
    match (setup.consumer, setup.filter) {
        (Consumer::EveryEvent, Some(f)) => r.set_filter(f),
        (Consumer::EveryEvent, None) => {}
        (c, f) => assert!(f.is_some(), "{c:?}: its filter is the consumer's own"),
    }
    if let Some(b) = setup.budget {
        r.set_sort_budget(b);
    }
    r.set_keep_stacks(setup.keep_stacks);
    r
}

fn seen(r: &TraceReader, events: Vec<u64>, result: String) -> Seen {
    let mut stats = r.stats().clone();
    if !result.starts_with("Ok") {
        // Bytes pushed before the error: how far the caller's last chunk went, not the decoder's
        // doing (the sequential reader itself gives other counts for other chunk sizes).
        (stats.bytes_in, stats.trace_bytes) = (0, 0);
    }
    Seen {
        events,
        stats,
        counts: r
            .event_counts()
            .iter()
            .map(|c| {
                (
                    c.provider.to_string(),
                    c.event_id,
                    c.name.to_string(),
                    c.count,
                )
            })
            .collect(),
        info: r.info().cloned(),
        result,
        stacks: r.stacks().map(|t| {
            let all = (1..=t.len() as u32)
                .map(|id| t.addresses(id).unwrap_or(&[]).to_vec())
                .collect();
            (all, t.missing())
        }),
    }
}

/// The sequential reader, fed `chunk`-byte pieces.
pub fn sequential(bytes: &[u8], setup: Setup, chunk: usize) -> Seen {
    sequential_with(bytes, setup, chunk, &mut |_| {})
}

/// [`sequential`], handing every delivered event to `also` as well.
pub fn sequential_with(
    bytes: &[u8],
    setup: Setup,
    chunk: usize,
    also: &mut dyn FnMut(&Event<'_>),
) -> Seen {
    let mut r = reader(setup);
    let mut events = Vec::new();
    let mut sink = |_: &TraceInfo, e: &Event<'_>| {
        events.push(event_hash(e));
        also(e);
    };
    let mut result = Ok(());
    for piece in bytes.chunks(chunk.max(1)) {
        result = r.push_with_info(piece, &mut sink);
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        result = r.finish_with_info(&mut sink);
    }
    seen(&r, events, format!("{result:?}"))
}

/// How [`in_parts`] runs.
#[derive(Debug, Clone, Copy)]
pub struct Split {
    /// Bytes of event blocks per task.
    pub task_bytes: u64,
    /// Bytes the planner is given past what it asks for (0: exactly what it asks for).
    pub read_extra: usize,
    /// Decode the tasks last to first (they must not depend on each other).
    pub reverse: bool,
    /// Chunk size for the bytes the sequential decoder reads after the parts.
    pub tail_chunk: usize,
    /// Tasks and outputs go through [`parts::wire`], as to and from a Web Worker (a task carries
    /// its context only when it differs from the one the worker had).
    pub wire: bool,
    /// The caller reads the file in pieces of this many bytes, in order, and the tasks end where
    /// its pieces do ([`Planner::cut_at_limits`], as the app does); `task_bytes` is then unused.
    pub pieces: Option<usize>,
    /// The parts intern their ticks' type names, as for the insights (see [`planned_for`]).
    pub intern_types: bool,
    /// Only the first this-many tasks (and those up to the next that starts with a part's block)
    /// are merged from parts; the reader decodes the rest of the file itself, as where a part
    /// stops at its first block ([`Merged::Sequential`]). None: all.
    pub parts_until: Option<usize>,
    /// Each task is decoded when the merge reaches it (in file order: `reverse` and `wire` are
    /// then unused), into the vectors of the output merged before it ([`parts::decode_reusing`]
    /// after [`parts::merge_keeping`]), as the CLI's threads do.
    pub reuse: bool,
}

/// The consumer the parts are planned for: the one whose filter is `filter` (None or
/// `gc::interest`), for the insights where `split` interns the ticks' type names (which only they
/// do: with no filter, the parts do not intern).
pub fn planned_for(filter: Option<FilterFn>, split: Split) -> Consumer {
    match (filter, split.intern_types) {
        (None, _) => Consumer::EveryEvent,
        (Some(_), false) => Consumer::Model,
        (Some(_), true) => Consumer::ModelAndInsights,
    }
}

/// The planner, fed as a caller reading the file where it asks would: returns the tasks.
pub fn plan(bytes: &[u8], filter: Option<FilterFn>, split: Split) -> (Vec<Task>, Planner) {
    plan_keeping(bytes, filter, split, false)
}

/// [`plan`], the parts matching an .etl's stacks where `keep_stacks` ([`Planner::set_keep_stacks`]).
pub fn plan_keeping(
    bytes: &[u8],
    filter: Option<FilterFn>,
    split: Split,
    keep_stacks: bool,
) -> (Vec<Task>, Planner) {
    let consumer = planned_for(filter, split);
    let mut planner = match split.pieces {
        Some(_) => Planner::cut_at_limits(consumer),
        None => Planner::with_task_bytes(consumer, split.task_bytes),
    };
    planner.set_keep_stacks(keep_stacks);
    let mut tasks = Vec::new();
    // With pieces: the bytes read so far end here.
    let mut held = 0usize;
    while let Some((at, need)) = planner.want() {
        let at = at as usize;
        let mut end = at
            .saturating_add(need)
            .saturating_add(split.read_extra)
            .min(bytes.len());
        if let Some(piece) = split.pieces {
            while held < at.saturating_add(need).min(bytes.len()) {
                held = (held + piece).min(bytes.len());
            }
            // The end of the piece the last byte asked for is in, as the app tells it.
            let last = at + need.max(1) - 1;
            planner.set_limit(((last / piece + 1) * piece).min(held) as u64);
            end = end.min(held).max(at);
        }
        if at >= bytes.len() || end - at < need {
            // The file ends before what it needs: what is there, then the end.
            if at < bytes.len() {
                planner.feed(at as u64, &bytes[at..], &mut tasks);
            }
            if planner.want().is_some() {
                planner.end_of_file(&mut tasks);
            }
            continue;
        }
        planner.feed(at as u64, &bytes[at..end], &mut tasks);
    }
    (tasks, planner)
}

/// How a trace went through [`in_parts`].
#[derive(Debug, Clone, Copy)]
pub struct Went {
    /// Tasks with blocks for a part.
    pub tasks: usize,
    /// Bytes of the blocks merged from parts (the rest was read by the sequential decoder).
    pub part_bytes: u64,
    /// GCAllocationTicks delivered, and how many came with a part's digest.
    pub ticks: u64,
    pub digests: u64,
}

/// Panics unless `d` is what decoding `e`'s payload gives: a GCAllocationTick with the same
/// figures, whose payload is exactly as long as its layout (else the model notes the extra bytes,
/// and a part must leave the event to be decoded). `for_model`: the payload may be another tick's
/// of the same type ([`parts::wire::output_to_bytes_for_model`]): only the name is checked.
fn check_digest(
    e: &Event<'_>,
    d: &gcscope_core::clr::gc::TickDigest,
    interned: bool,
    for_model: bool,
) {
    use gcscope_core::clr::{self, ClrEvent};
    let plain = Event { ticks: None, ..*e };
    let Some(Ok(decoded)) = clr::decode(&plain) else {
        panic!("a digest on an event that does not decode: {e:?}");
    };
    let ClrEvent::GcAllocationTick(a) = &decoded else {
        panic!("a digest on {}", e.name);
    };
    if !for_model {
        assert_eq!(d.amount, a.amount(), "{e:?}");
        assert_eq!(d.kind, a.kind.raw(), "{e:?}");
        assert_eq!(d.heap_index, a.heap_index, "{e:?}");
    }
    assert_eq!(d.type_name(e.payload, e.pointer_size), a.type_name, "{e:?}");
    // The part interned the name where asked to, and the merge renumbered it into its table.
    assert_eq!(
        d.type_ref.in_merge().is_some(),
        interned && a.type_name.is_some(),
        "{e:?}"
    );
    assert_eq!(
        clr::layout::layout_len(&decoded, e.version, e.pointer_size),
        Some(e.payload.len()),
        "{e:?}"
    );
}

/// The trace decoded in parts: planned, every task decoded on its own, merged in order, the rest
/// read sequentially.
pub fn in_parts(bytes: &[u8], setup: Setup, split: Split) -> (Seen, Went) {
    in_parts_with(bytes, setup, split, false, &mut |_| {})
}

/// [`in_parts`], handing every delivered event to `also` as well; with `for_model`, outputs go
/// through the wire as [`parts::wire::output_to_bytes_for_model`] sends them (the allocation
/// ticks' payloads then differ: the events are not compared).
pub fn in_parts_with(
    bytes: &[u8],
    setup: Setup,
    split: Split,
    for_model: bool,
    also: &mut dyn FnMut(&Event<'_>),
) -> (Seen, Went) {
    let filter = setup.filter;
    let (tasks, planner) = plan_keeping(bytes, filter, split, setup.keep_stacks);
    let interned = planned_for(filter, split) == Consumer::ModelAndInsights;
    if let Some(piece) = split.pieces {
        // Every block of a task ends in the same piece (so a caller can hand the piece on whole).
        for t in &tasks {
            let ends: Vec<u64> = t
                .steps
                .iter()
                .filter_map(|s| match s {
                    TaskStep::Part { at, len, .. } => {
                        Some((t.offset + at + u64::from(*len) - 1) / piece as u64)
                    }
                    TaskStep::Inline { .. } => None,
                })
                .collect();
            assert!(
                ends.windows(2).all(|w| w[0] == w[1]),
                "task {} spans pieces {ends:?}",
                t.index
            );
        }
    }
    let mut outputs: Vec<Option<parts::Output>> = (0..tasks.len()).map(|_| None).collect();
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    if split.reverse {
        order.reverse();
    }
    // A task's bytes, as a part reads them (shorter where the file is).
    let task_bytes = |t: &Task| {
        let start = (t.offset as usize).min(bytes.len());
        let end = (t.offset + t.len).min(bytes.len() as u64) as usize;
        bytes[start..end].to_vec()
    };
    // What the (one) worker was given last: the original, and its copy from the bytes.
    let (mut last_sent, mut worker_context) = (None, None);
    for i in order {
        let t = &tasks[i];
        if split.reuse {
            // Decoded in the merge below.
            continue;
        }
        if !split.wire {
            outputs[i] = Some(parts::decode(t, task_bytes(t), filter));
            continue;
        }
        let changed = match (&last_sent, &t.context) {
            (Some(a), Some(b)) => !std::sync::Arc::ptr_eq(a, b),
            (None, Some(_)) => true,
            _ => false,
        };
        let sent = parts::wire::task_to_bytes(t, changed);
        let (got, own) =
            parts::wire::task_from_bytes(&sent, worker_context.as_ref()).expect("task from bytes");
        assert_eq!(own, changed);
        assert_eq!(got.steps, t.steps);
        if t.context.is_some() {
            assert_eq!(got.context.as_deref(), t.context.as_deref());
        }
        if t.context.is_some() {
            last_sent = t.context.clone();
        }
        worker_context = got.context.clone();
        let out = parts::decode(&got, task_bytes(t), filter);
        let (records, payloads) = if for_model {
            parts::wire::output_to_bytes_for_model(out)
        } else {
            parts::wire::output_to_bytes(out)
        };
        outputs[i] = Some(parts::wire::output_from_bytes(&records, payloads).expect("output"));
    }
    let with_blocks = tasks.iter().filter(|t| t.has_blocks()).count();
    let mut r = reader(setup);
    let mut events = Vec::new();
    let (mut ticks, mut digests) = (0u64, 0u64);
    let mut sink = |_: &TraceInfo, e: &Event<'_>| {
        events.push(event_hash(e));
        if gcscope_core::clr::is_allocation_tick(e.provider, e.event_id) {
            ticks += 1;
        }
        if let Some(d) = e.tick() {
            check_digest(e, d, interned, for_model);
            digests += 1;
        }
        also(e);
    };
    let mut from = planner.tail();
    let mut result = Ok(());
    let mut part_bytes = 0u64;
    // With `split.reuse`: the output merged last, whose vectors the next task is decoded into.
    let mut spare: Option<parts::Output> = None;
    for (k, (t, out)) in tasks.iter().zip(outputs).enumerate() {
        // (A task whose first step is inline holds bytes from before its offset: it is merged.)
        let starts_with_part = matches!(t.steps.first(), Some(TaskStep::Part { at: 0, .. }));
        if split.parts_until.is_some_and(|n| k >= n) && starts_with_part {
            from = Some(t.offset);
            break;
        }
        part_bytes += t
            .steps
            .iter()
            .map(|s| match s {
                TaskStep::Part { len, .. } => u64::from(*len),
                TaskStep::Inline { .. } => 0,
            })
            .sum::<u64>();
        let mut out = match out {
            Some(o) => o,
            None => {
                assert!(split.reuse, "task {} not decoded", t.index);
                parts::decode_reusing(t, task_bytes(t), filter, spare.take())
            }
        };
        let merged = parts::merge_keeping(&mut r, t, &mut out, &mut sink);
        spare = Some(out);
        match merged {
            Ok(Merged::Done) => {}
            Ok(Merged::Sequential { from: f }) => {
                // The blocks from `f` on were not merged from parts.
                part_bytes -= t
                    .steps
                    .iter()
                    .map(|s| match s {
                        TaskStep::Part { at, len, .. } if t.offset + at >= f => u64::from(*len),
                        _ => 0,
                    })
                    .sum::<u64>();
                from = Some(f);
                break;
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    if result.is_ok() {
        let from = from.expect("a tail or a stop") as usize;
        for piece in bytes[from.min(bytes.len())..].chunks(split.tail_chunk.max(1)) {
            result = r.push_with_info(piece, &mut sink);
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            result = r.finish_with_info(&mut sink);
        }
    }
    let went = Went {
        tasks: with_blocks,
        part_bytes,
        ticks,
        digests,
    };
    (seen(&r, events, format!("{result:?}")), went)
}

/// The tasks' byte size that cuts `len` bytes into about `n` parts.
pub fn task_bytes_for(len: usize, n: u64) -> u64 {
    (len as u64).div_ceil(n).max(1)
}

/// Checks that `bytes` decode the same sequentially and in every way of splitting tried here;
/// returns a line saying how (tasks made, share of the bytes decoded by parts), or panics naming
/// the first difference. Also returns the smallest share of the file's bytes decoded by parts.
pub fn check_identity(name: &str, bytes: &[u8], setup: Setup, thorough: bool) -> (String, f64) {
    let want = sequential(bytes, setup, 1 << 20);
    let mut splits = Vec::new();
    for (i, n) in [1u64, 2, 3, 7].into_iter().enumerate() {
        splits.push(Split {
            task_bytes: task_bytes_for(bytes.len(), n),
            read_extra: [0, 1, 4096, 1 << 20][i],
            reverse: i % 2 == 1,
            tail_chunk: [1 << 20, 7, 4096, 1 << 16][i],
            wire: i >= 2,
            pieces: None,
            intern_types: i % 2 == 0,
            parts_until: None,
            reuse: false,
        });
    }
    // Read in pieces of about a fifth of the file, tasks cut where they end, through the wire.
    splits.push(Split {
        task_bytes: 0,
        read_extra: 4096,
        reverse: false,
        tail_chunk: 1 << 20,
        wire: true,
        pieces: Some(bytes.len() / 5 + 13),
        intern_types: true,
        parts_until: None,
        reuse: false,
    });
    // Seven parts, each decoded into the vectors of the one merged before it.
    splits.push(Split {
        task_bytes: task_bytes_for(bytes.len(), 7),
        read_extra: 0,
        reverse: false,
        tail_chunk: 1 << 16,
        wire: false,
        pieces: None,
        intern_types: true,
        parts_until: None,
        reuse: true,
    });
    if thorough {
        // One block per task, the planner given exactly what it asks for plus a byte.
        splits.push(Split {
            task_bytes: 1,
            read_extra: 1,
            reverse: true,
            tail_chunk: 1,
            wire: true,
            pieces: None,
            intern_types: false,
            parts_until: None,
            reuse: false,
        });
    }
    let mut line = Vec::new();
    let mut share = 1.0f64;
    let mut digests = 0;
    // The trace's GCAllocationTicks, as the reader counted them.
    let want_ticks: u64 = want
        .counts
        .iter()
        .filter(|(provider, id, _, _)| gcscope_core::clr::is_allocation_tick(provider, *id))
        .map(|c| c.3)
        .sum();
    for split in splits {
        let (got, went) = in_parts(bytes, setup, split);
        assert!(
            got == want,
            "{name}: in parts ({split:?}, {went:?}) differs from sequential: {}",
            got.first_difference(&want)
        );
        line.push(went.tasks.to_string());
        // Ticks merged from parts come with their digests (a worker's message carries them too).
        if went.part_bytes as f64 > 0.9 * bytes.len() as f64 && want_ticks > 0 {
            assert!(
                went.digests as f64 >= 0.9 * went.ticks as f64,
                "{name}: {} of {} allocation ticks with a digest ({split:?})",
                went.digests,
                went.ticks
            );
        }
        digests = digests.max(went.digests);
        share = share.min(went.part_bytes as f64 / bytes.len().max(1) as f64);
    }
    let text = format!(
        "{name}: {} events ({} out of order, {want_ticks} allocation ticks, up to {digests} \
         decoded by parts), identical in {} tasks, at least {:.0}% of the bytes decoded by parts",
        want.events.len(),
        want.stats.out_of_order_events,
        line.join("/"),
        share * 100.0
    );
    (text, share)
}
