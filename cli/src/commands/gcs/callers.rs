//! `gcscope gcs --callers`: each GC's caller, the first frame above the runtime's own on the
//! stack of its GCTriggered event (`gcscope_core::stacks::caller`), as the tab's Caller column
//! names it. The stacks come from a first read of the file: the method events that name the
//! frames are the trace's rundown, at its end, so the rows of the second read can be named as
//! they settle.

use gcscope_core::gc::Gc;
use gcscope_core::stacks::caller::{GcCaller, TriggerMatcher};
use gcscope_core::stacks::view::{Frames, StackSamples, StackSamplesBuilder};
use gcscope_core::stacks::StackTable;
use serde::Serialize;

use crate::args::Input;
use crate::input::load::{chosen_pid, read_trace_for_stacks};

/// What the first read kept: the GCTriggered samples, the stacks and the methods that name them.
pub struct Callers {
    samples: StackSamples,
    table: StackTable,
    matcher: TriggerMatcher,
}

/// One GC's caller as a row carries it: `--json`'s `caller` object, and one cell of the table
/// and the CSV ([`CallerCell::text`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallerCell {
    /// `named`, `no_trigger` (no GCTriggered between the previous GC's start and this one's) or
    /// `no_stack` (the GCTriggered came without a stack, or with one the trace lacks).
    pub status: &'static str,
    /// The caller frame's label (`module!method`, or the address where no method covers it).
    pub frame: Option<String>,
    /// The stack's leaf, where the runtime's own frames lie between it and the caller.
    pub leaf: Option<String>,
    /// Why the caller frame has no method name.
    pub unresolved: Option<&'static str>,
    /// The GCTriggered's time (ms from the trace's start).
    pub triggered_ms: Option<f64>,
}

impl CallerCell {
    /// The table's and the CSV's cell: the caller, or why there is none in brackets.
    pub fn text(&self) -> String {
        match (&self.frame, self.status) {
            (Some(f), _) => f.clone(),
            (None, "no_trigger") => "[no GCTriggered]".into(),
            (None, _) => "[no stack recorded]".into(),
        }
    }
}

impl Callers {
    /// Reads `input` for its GCTriggered stacks. A trace of several processes needs the one
    /// asked for (`--pid`/`--process`): the rows are one process's GCs.
    pub fn read(input: &Input) -> Result<Callers, String> {
        let mut b = StackSamplesBuilder::new();
        let (_, _, table) = read_trace_for_stacks(input, &mut |_, e| b.on_event(e))?;
        let samples = b.finish();
        let pid = match chosen_pid(input)? {
            Some(pid) => Some(pid),
            None => {
                let pids = TriggerMatcher::processes(&samples);
                if pids.len() > 1 {
                    return Err(format!(
                        "'{}': --callers needs one process and the trace's GC triggers come from {} \
                         (ids {}): name one with --pid or --process",
                        input.file,
                        pids.len(),
                        pids.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                    ));
                }
                None
            }
        };
        let matcher = TriggerMatcher::new(&samples, pid);
        Ok(Callers {
            samples,
            table: table.unwrap_or_default(),
            matcher,
        })
    }

    /// The caller of `gc`; every row of the trace must come here, in GC order, filtered or not
    /// (a GC's trigger lies after the previous GC's start).
    pub fn of(&mut self, gc: &Gc) -> CallerCell {
        let frames = Frames {
            table: &self.table,
            methods: &self.samples.methods,
        };
        match self.matcher.caller(gc.gc_start_ms, &frames) {
            GcCaller::Frame {
                caller,
                leaf,
                at_ms,
            } => CallerCell {
                status: "named",
                unresolved: caller.unresolved.map(|u| u.reason()),
                leaf: (leaf != caller).then(|| leaf.label()),
                frame: Some(caller.label()),
                triggered_ms: Some(at_ms),
            },
            GcCaller::NoTrigger => CallerCell {
                status: "no_trigger",
                frame: None,
                leaf: None,
                unresolved: None,
                triggered_ms: None,
            },
            GcCaller::NoStack { at_ms } => CallerCell {
                status: "no_stack",
                frame: None,
                leaf: None,
                unresolved: None,
                triggered_ms: Some(at_ms),
            },
        }
    }
}
