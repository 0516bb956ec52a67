//! `gcscope stacks FILE --event ...`: who allocated, induced the GCs, triggered them or pinned
//! the handles: the events' call stacks summed by stack, their frames named by the trace's method
//! events (`gcscope_core::stacks`). A table of the top stacks and leaf methods, or `--folded`,
//! `--json`, `--speedscope`.

use gcscope_core::clr::enums::GcAllocationKind;
use gcscope_core::stacks::methods::MethodStats;
use gcscope_core::stacks::speedscope;
use gcscope_core::stacks::view::{
    folded, CallTree, Frame, Frames, SampleStats, Selection, StackSamplesBuilder, StackSum,
    StackSums, Which,
};
use gcscope_core::stacks::StackTable;
use serde::Serialize;

use crate::args::{Input, RangeOpts};
use crate::input::load::{chosen_pid, read_trace_for_stacks};
use crate::output::stdout::{print, print_json};
use crate::output::table::{self, Align, Table};

/// Which events' stacks `--event` sums.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventArg {
    /// Allocation ticks, every heap (value: sampled bytes)
    Alloc,
    /// Allocation ticks on the large object heap
    AllocLoh,
    /// Allocation ticks on the small object heap
    AllocSoh,
    /// Allocation ticks on the pinned object heap
    AllocPoh,
    /// GCTriggered events of induced GCs (GC.Collect and the like): their callers
    Induced,
    /// Every GCTriggered: the allocation or call that started each GC
    Triggered,
    /// SetGCHandle events of kind Pinned: where pinned handles were made
    PinnedHandles,
}

impl EventArg {
    fn which(self) -> Which {
        match self {
            EventArg::Alloc => Which::Alloc(None),
            EventArg::AllocLoh => Which::Alloc(Some(GcAllocationKind::Large)),
            EventArg::AllocSoh => Which::Alloc(Some(GcAllocationKind::Small)),
            EventArg::AllocPoh => Which::Alloc(Some(GcAllocationKind::Pinned)),
            EventArg::Induced => Which::Induced,
            EventArg::Triggered => Which::Triggered,
            EventArg::PinnedHandles => Which::PinnedHandles,
        }
    }

    fn name(self) -> &'static str {
        match self {
            EventArg::Alloc => "alloc",
            EventArg::AllocLoh => "alloc-loh",
            EventArg::AllocSoh => "alloc-soh",
            EventArg::AllocPoh => "alloc-poh",
            EventArg::Induced => "induced",
            EventArg::Triggered => "triggered",
            EventArg::PinnedHandles => "pinned-handles",
        }
    }

    /// What the table calls the selection and one of its events.
    fn words(self) -> (&'static str, &'static str) {
        match self {
            EventArg::Alloc => ("Allocations", "ticks"),
            EventArg::AllocLoh => ("LOH allocations", "ticks"),
            EventArg::AllocSoh => ("SOH allocations", "ticks"),
            EventArg::AllocPoh => ("POH allocations", "ticks"),
            EventArg::Induced => ("Induced GCs", "GCs"),
            EventArg::Triggered => ("GC triggers", "GCs"),
            EventArg::PinnedHandles => ("Pinned handles", "handles"),
        }
    }
}

/// `gcscope stacks`' options.
#[derive(clap::Args, Debug, Clone)]
pub struct Opts {
    #[command(flatten)]
    pub input: Input,
    /// Which events' stacks to sum
    #[arg(long, value_enum, value_name = "EVENT")]
    pub event: EventArg,
    /// Only allocations of this type (its name exactly as the allocation tick gives it)
    #[arg(long = "type", value_name = "T")]
    pub type_name: Option<String>,
    #[command(flatten)]
    pub range: RangeOpts,
    /// Print collapsed stacks (frames root first, `;`-separated, a space, the value: sampled
    /// bytes for allocations, a count otherwise) for flamegraph.pl, inferno or speedscope
    #[arg(long, conflicts_with_all = ["json", "speedscope"])]
    pub folded: bool,
    /// Print JSON instead of the table (stable snake_case keys)
    #[arg(long, conflicts_with = "speedscope")]
    pub json: bool,
    /// Print speedscope's file format (https://www.speedscope.app/file-format-schema.json)
    #[arg(long)]
    pub speedscope: bool,
    /// How many stacks and leaf methods the table lists, largest first
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
}

/// Frames listed per stack in the table (the rest are counted).
const TABLE_FRAMES: usize = 16;

/// What the runtime's stacks of pinned handles can and cannot say: `GCHandle.Alloc`'s fast path
/// pushes no frame, so a walk starts at an older frame.
const HANDLE_NOTE: &str = "GCHandle.Alloc's fast path pushes no frame: the first frame recorded \
                           is the oldest the stack walk found, not always the direct caller";

#[derive(Serialize)]
struct JsonFrame {
    address: String,
    method: Option<String>,
    module: Option<String>,
    /// Why no method covers the address.
    unresolved: Option<&'static str>,
}

impl From<&Frame> for JsonFrame {
    fn from(f: &Frame) -> Self {
        JsonFrame {
            address: format!("0x{:x}", f.address),
            method: f.method.clone(),
            module: f.module.clone(),
            unresolved: f.unresolved.map(|u| u.reason()),
        }
    }
}

#[derive(Serialize)]
struct JsonStack {
    value: u64,
    count: u64,
    /// Leaf first.
    frames: Vec<JsonFrame>,
    /// Where the stack may be cut short: "the runtime recorded no frames above X".
    note: Option<String>,
}

#[derive(Serialize)]
struct JsonLeaf {
    method: String,
    value: u64,
    count: u64,
}

#[derive(Serialize)]
struct StacksJson {
    event: &'static str,
    /// "bytes" (sampled bytes of allocations) or "count".
    unit: &'static str,
    type_name: Option<String>,
    from_ms: Option<f64>,
    to_ms: Option<f64>,
    total_value: u64,
    total_count: u64,
    /// Of the totals: events that came without a stack.
    no_stack: StackSum,
    /// Of the totals: events whose stack id names no stack of the trace.
    missing_stack: StackSum,
    /// Distinct stacks in the trace (every event's).
    trace_stacks: usize,
    /// What the trace's method events held.
    methods: MethodStats,
    events: SampleStats,
    note: Option<&'static str>,
    stacks: Vec<JsonStack>,
    /// Summed by leaf frame, largest first.
    leaf_methods: Vec<JsonLeaf>,
}

fn truncation_note(e: EventArg, frames: &[Frame]) -> Option<String> {
    (e == EventArg::PinnedHandles)
        .then(|| frames.first())
        .flatten()
        .map(|leaf| format!("the runtime recorded no frames above {}", leaf.label()))
}

pub fn run(opts: &Opts) -> Result<(), String> {
    let which = opts.event.which();
    if opts.type_name.is_some() && !matches!(which, Which::Alloc(_)) {
        return Err(format!(
            "--type names an allocation's type: it goes with --event alloc, alloc-loh, alloc-soh \
             or alloc-poh, not {}",
            opts.event.name()
        ));
    }
    let pid = chosen_pid(&opts.input)?;
    let sel = Selection {
        which,
        type_name: opts.type_name.clone(),
        from_ms: opts.range.from,
        to_ms: opts.range.to,
        process_id: pid,
    };
    // Summed as read: memory grows with the distinct stacks, not the events.
    let mut b = StackSamplesBuilder::summing(sel);
    let (_, _, table) = read_trace_for_stacks(&opts.input, &mut |_, e| b.on_event(e))?;
    let (sums, samples) = b.finish_sums();
    let table = table.unwrap_or_default();
    let frames = Frames {
        table: &table,
        methods: &samples.methods,
    };
    if opts.folded {
        return print(&folded(&sums, &frames));
    }
    if opts.speedscope {
        let (what, _) = opts.event.words();
        let name = format!("{what} by call stack ({})", opts.input.file);
        let f = speedscope::file(&sums, &frames, &name, which.unit() == "bytes");
        return print_json(&f);
    }
    let leaves = leaf_methods(&sums, &frames);
    if opts.json {
        let stacks = sums
            .stacks
            .iter()
            .map(|s| {
                let fs = frames.frames(s.stack);
                JsonStack {
                    value: s.value,
                    count: s.count,
                    note: truncation_note(opts.event, &fs),
                    frames: fs.iter().map(JsonFrame::from).collect(),
                }
            })
            .collect();
        return print_json(&StacksJson {
            event: opts.event.name(),
            unit: which.unit(),
            type_name: opts.type_name.clone(),
            from_ms: opts.range.from,
            to_ms: opts.range.to,
            total_value: sums.total_value,
            total_count: sums.total_count,
            no_stack: sums.no_stack,
            missing_stack: sums.missing_stack,
            trace_stacks: table.len(),
            methods: samples.methods.stats().clone(),
            events: samples.stats.clone(),
            note: (opts.event == EventArg::PinnedHandles).then_some(HANDLE_NOTE),
            stacks,
            leaf_methods: leaves,
        });
    }
    print(&render(opts, &sums, &frames, &table, &leaves))
}

/// The bottom-up tree's first level: the leaf frames with their values.
fn leaf_methods(sums: &StackSums, frames: &Frames<'_>) -> Vec<JsonLeaf> {
    let up = CallTree::bottom_up(sums, frames);
    up.nodes[0]
        .children
        .iter()
        .map(|&c| {
            let n = &up.nodes[c as usize];
            JsonLeaf {
                method: n.label.clone(),
                value: n.inclusive,
                count: n.count,
            }
        })
        .collect()
}

fn value_text(bytes: bool, v: u64) -> String {
    if bytes {
        format!("{} MB", table::mb3(v))
    } else {
        v.to_string()
    }
}

fn render(
    opts: &Opts,
    sums: &StackSums,
    frames: &Frames<'_>,
    table: &StackTable,
    leaves: &[JsonLeaf],
) -> String {
    let (what, unit) = opts.event.words();
    let bytes = opts.event.which().unit() == "bytes";
    let mut s = String::new();
    if table.is_empty() {
        s.push_str(
            "The trace has no call stacks. EventPipe records a stack with every event unless the \
             session turned it off; an ETW trace has them where its providers were enabled with \
             stacks, or the runtime's Stack keyword (0x40000000) was on (the kernel's cached \
             stack keys are not read yet). See docs/guide/stacks.md for how to capture a trace \
             whose stacks resolve.\n",
        );
        if sums.total_count == 0 {
            return s;
        }
        s.push('\n');
    }
    if sums.total_count == 0 {
        s.push_str(&format!(
            "No {} in the trace{}.\n",
            what.to_lowercase(),
            if opts.type_name.is_some() || opts.range.from.is_some() || opts.range.to.is_some() {
                " for this choice of type and time"
            } else {
                ""
            }
        ));
        return s;
    }
    let value = |v: u64| value_text(bytes, v);
    let pct = |v: u64| table::pct(Some(100.0 * v as f64 / sums.total_value.max(1) as f64));
    if bytes {
        s.push_str(&format!(
            "{what} by call stack: {} sampled in {} {unit}\n",
            value(sums.total_value),
            sums.total_count
        ));
    } else {
        s.push_str(&format!(
            "{what} by call stack: {} {unit}\n",
            sums.total_count
        ));
    }
    if bytes {
        s.push_str(
            "Sampled bytes are an estimate: each tick charges the ~100 KB allocated since the \
             previous tick to the stack of the allocation that crossed the threshold.\n",
        );
    }
    if sums.no_stack.count > 0 {
        s.push_str(&format!(
            "{} of the {unit} came without a stack (the runtime recorded none).\n",
            sums.no_stack.count
        ));
    }
    if sums.missing_stack.count > 0 {
        s.push_str(&format!(
            "{} of the {unit} name a stack the trace does not hold (a lost or damaged StackBlock).\n",
            sums.missing_stack.count
        ));
    }
    if opts.event == EventArg::PinnedHandles {
        s.push_str(&format!("{HANDLE_NOTE}.\n"));
    }
    // The table names methods, not addresses: stacks whose frames fall in the same methods (other
    // call sites in them) are one line.
    let mut grouped: Vec<(Vec<Frame>, u64, u64)> = Vec::new();
    let mut at: std::collections::BTreeMap<Vec<String>, usize> = Default::default();
    for st in &sums.stacks {
        let fs = frames.frames(st.stack);
        let key: Vec<String> = fs.iter().map(Frame::label).collect();
        match at.get(&key) {
            Some(&i) => {
                grouped[i].1 += st.value;
                grouped[i].2 += st.count;
            }
            None => {
                at.insert(key, grouped.len());
                grouped.push((fs, st.value, st.count));
            }
        }
    }
    grouped.sort_by_key(|g| std::cmp::Reverse(g.1));
    // Each reason an address stayed unnamed, once.
    let mut reasons: Vec<&'static str> = Vec::new();
    for (fs, _, _) in grouped.iter().take(opts.top) {
        for f in fs {
            if let Some(u) = f.unresolved {
                if !reasons.contains(&u.reason()) {
                    reasons.push(u.reason());
                }
            }
        }
    }
    for r in reasons {
        s.push_str(&format!("Addresses shown in hex: {r}.\n"));
    }
    s.push_str(&format!(
        "\nTop stacks (leaf first), of {} (--folded and --json list every one)\n",
        grouped.len()
    ));
    for (i, (fs, v, n)) in grouped.iter().take(opts.top).enumerate() {
        s.push_str(&format!(
            "\n#{}  {} ({}%), {n} {unit}\n",
            i + 1,
            value(*v),
            pct(*v),
        ));
        if fs.is_empty() {
            s.push_str("    (the runtime recorded no frames)\n");
        }
        for f in fs.iter().take(TABLE_FRAMES) {
            s.push_str(&format!("    {}\n", f.label()));
        }
        if fs.len() > TABLE_FRAMES {
            s.push_str(&format!(
                "    ... {} more frames\n",
                fs.len() - TABLE_FRAMES
            ));
        }
        if let Some(note) = truncation_note(opts.event, fs) {
            s.push_str(&format!("    ({note})\n"));
        }
    }
    s.push_str("\nTop leaf methods\n");
    let mut t = Table::new(&[
        ("Method", Align::Left),
        (if bytes { "Sampled MB" } else { "Count" }, Align::Right),
        ("%", Align::Right),
        ("Events", Align::Right),
    ]);
    for l in leaves.iter().take(opts.top) {
        t.row(vec![
            l.method.clone(),
            if bytes {
                table::mb3(l.value)
            } else {
                l.value.to_string()
            },
            pct(l.value),
            l.count.to_string(),
        ]);
    }
    s.push_str(&t.render());
    s
}
