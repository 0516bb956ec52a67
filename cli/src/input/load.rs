//! Reading a trace file for any subcommand: streamed in 1 MiB chunks through the core decoder (the
//! whole file is never in memory), on `--jobs` threads (see [`crate::input::parallel`]), with
//! error messages that say what went wrong, where, and what to do.

use crate::args::Input;
use gcscope_core::error::{Error, ErrorKind};
use gcscope_core::event::{Event, TraceInfo};
use gcscope_core::gc::insights::InsightsBuilder;
use gcscope_core::gc::packed::PackedHeaps;
use gcscope_core::gc::{processes, Gc, GcModel, ModelBuilder, ProcessChoice, ProcessRouter};
use gcscope_core::stacks::StackTable;
use gcscope_core::{Consumer, DecodeStats, TraceReader};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;

const CHUNK: usize = 1 << 20;

/// Decodes the trace FILE names, calling `sink` for every event in timestamp order.
///
/// A trace cut off mid-write (common: the session was killed) is not an error: the events before the
/// cut are delivered, a warning goes to stderr, and the result is Ok.
pub fn read_trace(
    input: &Input,
    sink: &mut dyn FnMut(&TraceInfo, &Event<'_>),
) -> Result<(TraceInfo, DecodeStats), String> {
    read_trace_with(input, Consumer::EveryEvent, sink)
}

/// [`read_trace`] for the GC model, and with `insights` its insights ([`Consumer`]): only the
/// events they read are delivered (the rest are counted in the stats, which `ModelBuilder::finish`
/// takes them from), the allocation ticks in batches (`Event::ticks`).
pub fn read_trace_for_model(
    input: &Input,
    insights: bool,
    sink: &mut dyn FnMut(&TraceInfo, &Event<'_>),
) -> Result<(TraceInfo, DecodeStats), String> {
    let consumer = if insights {
        Consumer::ModelAndInsights
    } else {
        Consumer::Model
    };
    read_trace_with(input, consumer, sink)
}

/// [`read_trace`] for the call stacks ([`Consumer::Stacks`]): the method events and the events
/// whose stacks are summed, each with its stack; also returns the trace's stacks (None for an ETW
/// trace, whose events come without them).
pub fn read_trace_for_stacks(
    input: &Input,
    sink: &mut dyn FnMut(&TraceInfo, &Event<'_>),
) -> Result<(TraceInfo, DecodeStats, Option<StackTable>), String> {
    let mut reader = TraceReader::for_consumer(Consumer::Stacks);
    let (info, stats) = read_into(input, &mut reader, sink)?;
    Ok((info, stats, reader.take_stacks()))
}

fn read_trace_with(
    input: &Input,
    consumer: Consumer,
    sink: &mut dyn FnMut(&TraceInfo, &Event<'_>),
) -> Result<(TraceInfo, DecodeStats), String> {
    read_into(input, &mut TraceReader::for_consumer(consumer), sink)
}

fn read_into(
    input: &Input,
    reader: &mut TraceReader,
    sink: &mut dyn FnMut(&TraceInfo, &Event<'_>),
) -> Result<(TraceInfo, DecodeStats), String> {
    let path = input.file.as_str();
    let mut file = File::open(path).map_err(|e| format!("cannot open '{path}': {e}"))?;
    let jobs = input.jobs();
    let result = if jobs > 1 {
        crate::input::parallel::read(&file, path, reader, jobs, sink)?
    } else {
        let mut buf = vec![0u8; CHUNK];
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break reader.finish_with_info(sink),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(format!(
                        "cannot read '{path}' at byte {}: {e}",
                        reader.stats().bytes_in
                    ))
                }
            };
            if let Err(e) = reader.push_with_info(&buf[..n], sink) {
                break Err(e);
            }
        }
    };
    match result {
        Ok(()) => {}
        Err(Error {
            kind: ErrorKind::Truncated { what },
            offset,
        }) if reader.info().is_some() => {
            eprintln!(
                "gcscope: warning: '{path}' is cut off at byte {offset} of the trace (inside {what}); \
                 using the {} events before the cut",
                reader.stats().events
            );
        }
        Err(e) => return Err(describe_error(path, &e)),
    }
    for n in &reader.stats().left_out_files {
        eprintln!("gcscope: note: in '{path}', {n}");
    }
    let info = reader
        .info()
        .cloned()
        .ok_or_else(|| format!("'{path}' has no trace header"))?;
    Ok((info, reader.stats().clone()))
}

/// A message for people: what, where, and what to do about it.
pub fn describe_error(path: &str, e: &Error) -> String {
    match &e.kind {
        ErrorKind::NotATrace(what) if what.contains(".gcdump heap snapshot") => format!(
            "'{path}' is a .gcdump heap snapshot, not an event trace: read it with \
             `gcscope heap {path}` (types with retained bytes), `gcscope heap roots`, \
             `gcscope heap paths --type T` or `gcscope heap diff A B`"
        ),
        ErrorKind::NotATrace(what) => format!(
            "'{path}' is not a .NET trace ({what}).\n  gcscope reads EventPipe traces (.nettrace files from \
             `dotnet-trace collect` or DOTNET_EnableEventPipe, older .netperf files), ETW traces (.etl \
             from PerfView, WPR or xperf; PerfView's .etl.zip), LTTng traces (perfcollect's .trace.zip), \
             or a .zip/.gz of one."
        ),
        ErrorKind::Truncated { what } => format!(
            "'{path}' ends at byte {} inside the {what}, before any events could be read; \
             the file is incomplete (was the trace still being written, or the download cut short?)",
            e.offset
        ),
        ErrorKind::Malformed(msg) => format!(
            "'{path}' is damaged at byte {} of the trace: {msg}.\n  The file may be corrupt; \
             re-collect the trace, or report it with the file if dotnet-trace/PerfView read it fine.",
            e.offset
        ),
        ErrorKind::Unsupported(msg) => format!(
            "'{path}' uses a feature gcscope does not read (at byte {}): {msg}.\n  \
             Please report it, with the runtime and tool versions that wrote the trace.",
            e.offset
        ),
    }
}

// ---- Machine-wide traces: which process the model is built for (`--pid N`, `--process NAME`). ----

/// Events between drains of settled rows: often enough that few rows wait (a GC is tens of events,
/// a 32-heap server GC ~40), rarely enough that the calls cost nothing.
pub(crate) const DRAIN_EVERY: u32 = 1 << 12;

/// What a model load keeps of the chosen process's rows as the trace streams through. Each way
/// takes the settled rows out of the model every `drain_every` events.
pub enum Rows<'a> {
    /// Every row, without its per-heap histories, which are dropped as the row settles (the
    /// commands that look at every GC but not at its heaps). A many-heap GC's histories are most of
    /// its row, so memory grows with the GCs, not with their heaps
    /// (docs/performance-log/journal.md, "The CLI's rows kept lean, `budgets --json` on threads").
    KeptWithoutHeaps { drain_every: u32 },
    /// Every row, its per-heap histories packed into a store beside the rows ([`Loaded::heaps`])
    /// as the row settles (the views that read them: `budgets`, `reasons`). Packed, a GC's
    /// histories are a fraction of their structs' size.
    KeptWithPackedHeaps { drain_every: u32 },
    /// No row: each is dropped as it settles, the model keeps only the last few, and its summaries
    /// still cover every GC (the commands that print whole-trace figures).
    Dropped { drain_every: u32 },
    /// Each row handed to `row` as soon as it is final, in GC order, and dropped from the model,
    /// which keeps only the last few (its summaries still cover every GC).
    HandedOut {
        drain_every: u32,
        row: &'a mut dyn FnMut(Gc),
    },
}

impl Rows<'_> {
    fn drain_every(&self) -> u32 {
        match self {
            Rows::KeptWithoutHeaps { drain_every }
            | Rows::KeptWithPackedHeaps { drain_every }
            | Rows::Dropped { drain_every }
            | Rows::HandedOut { drain_every, .. } => *drain_every,
        }
    }

    /// For the ways that keep every row: whether their heaps are packed.
    fn kept_packing_heaps(&self) -> Option<bool> {
        match self {
            Rows::KeptWithoutHeaps { .. } => Some(false),
            Rows::KeptWithPackedHeaps { .. } => Some(true),
            _ => None,
        }
    }
}

/// The insights a pass builds beside the model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WithInsights {
    /// None: the model alone.
    No,
    /// Bounded ([`ProcessRouter::bounded`]): allocation ticks only as per-type sums in time bins,
    /// so memory does not grow with them.
    Bounded,
    /// Bounded, and the allocation ticks of this time range (ms) kept one by one, for exact figures
    /// over it ([`ProcessRouter::keeping_samples_in`]).
    SamplesIn(f64, f64),
}

/// What [`load_process`] gives: the chosen process's model, its insights' records (unfinished: the
/// caller finishes them against the rows it kept), and its rows' heaps when
/// [`Rows::KeptWithPackedHeaps`] packed them (else empty).
pub struct Loaded {
    pub model: GcModel,
    pub insights: Option<InsightsBuilder>,
    pub heaps: PackedHeaps,
}

/// Decodes FILE and builds the model (and, with `insights`, its insights' records) of one process:
/// the one `--pid`/`--process` names, else the one with the most GC pause, said on stderr with the
/// others when the trace holds several.
///
/// One pass, except for streamed rows of a machine-wide trace whose process is not given by id: the
/// process with the most pause (or a name, which the kernel's rundown may give only at the end) is
/// known only once the whole file is read, so a first pass chooses (every row dropped as it
/// settles) and a second streams the chosen process's rows. Memory stays bounded either way.
pub fn load_process(
    input: &Input,
    insights: WithInsights,
    mut rows: Rows<'_>,
) -> Result<Loaded, String> {
    let path = input.file.as_str();
    let choice = input.choice();
    // Only rows handed out need the process known as they settle.
    let streaming = matches!(rows, Rows::HandedOut { .. });
    let mut target = match choice {
        ProcessChoice::Pid(pid) => Some(pid),
        _ => None,
    };
    let mut pass = route(input, &choice, target, insights, &mut rows)?;
    let mut pid = pass.choose(path, &choice)?;
    if streaming && pass.target != pid {
        // Nothing was streamed (the first pass did not know the process): stream it now.
        target = pid;
        pass = route(input, &choice, target, insights, &mut rows)?;
        pid = pass.choose(path, &choice)?;
        if pass.target != pid {
            return Err(format!(
                "'{path}': the process chosen changed between two reads"
            ));
        }
    }
    if choice == ProcessChoice::Auto {
        pass.tell_choice(path, pid);
    }
    pass.finish(pid, insights != WithInsights::No)
}

/// The process id `--pid`/`--process` names (None: every process), resolved by a first pass over
/// FILE when a name is given (the kernel's process events may come anywhere in the file).
pub fn chosen_pid(input: &Input) -> Result<Option<u32>, String> {
    match input.choice() {
        ProcessChoice::Auto => Ok(None),
        ProcessChoice::Pid(p) => Ok(Some(p)),
        choice => {
            let mut rows = Rows::Dropped {
                drain_every: DRAIN_EVERY,
            };
            let pass = route(input, &choice, None, WithInsights::No, &mut rows)?;
            match pass.choose(&input.file, &choice)? {
                Some(pid) => Ok(Some(pid)),
                None => Err(format!("'{}': the trace has no runtime events", input.file)),
            }
        }
    }
}

/// One read of the trace through a [`ProcessRouter`].
struct Pass {
    router: ProcessRouter,
    info: TraceInfo,
    stats: DecodeStats,
    /// The process whose rows were streamed (given by id, or the one process of an EventPipe trace).
    target: Option<u32>,
    /// When every row is kept: whether heaps are packed, and every process's rows taken so far.
    kept: Option<(bool, BTreeMap<u32, KeptRows>)>,
}

/// Reads FILE once, one model per process. While streaming, the rows of `target` (or, when no
/// process is given, of an EventPipe trace's one process) go to the callback as they settle, and
/// every other process's rows are dropped, as is every row when the target is not known yet.
fn route(
    input: &Input,
    choice: &ProcessChoice,
    mut target: Option<u32>,
    insights: WithInsights,
    rows: &mut Rows<'_>,
) -> Result<Pass, String> {
    let mut kept: BTreeMap<u32, KeptRows> = BTreeMap::new();
    let mut router = match insights {
        WithInsights::No => ProcessRouter::models_only(),
        WithInsights::Bounded => ProcessRouter::bounded(),
        WithInsights::SamplesIn(from, to) => ProcessRouter::keeping_samples_in(from, to),
    };
    let mut first = true;
    let mut since_drain = 0u32;
    let (info, stats) =
        read_trace_for_model(input, insights != WithInsights::No, &mut |info, e| {
            if first {
                first = false;
                // An EventPipe trace is one process: the one every event carries.
                if target.is_none() && *choice == ProcessChoice::Auto && !machine_wide(info) {
                    target = Some(e.process_id);
                }
            }
            router.on_event(info, e);
            // A batch of ticks counts as the events it stands for: the drains come as often as
            // with one event per tick, so each stays small and reuses the memory of the last.
            let n = e
                .tick_batch()
                .map_or(1, |t| u32::try_from(t.count).unwrap_or(u32::MAX));
            since_drain = since_drain.saturating_add(n);
            if since_drain < rows.drain_every() {
                return;
            }
            since_drain = 0;
            for (pid, m) in router.models_mut() {
                let settled = m.drain_completed();
                if let Some(pack_heaps) = rows.kept_packing_heaps() {
                    kept.entry(pid).or_default().take(settled, pack_heaps);
                } else if let Rows::HandedOut { row, .. } = rows {
                    if Some(pid) == target {
                        settled.into_iter().for_each(&mut **row);
                    }
                }
            }
        })?;
    let kept = rows
        .kept_packing_heaps()
        .map(|pack_heaps| (pack_heaps, kept));
    Ok(Pass {
        router,
        info,
        stats,
        target,
        kept,
    })
}

/// A process's rows kept by [`Rows::KeptWithoutHeaps`] or [`Rows::KeptWithPackedHeaps`]: without
/// their heaps, which are dropped or packed.
#[derive(Default)]
struct KeptRows {
    rows: Vec<Gc>,
    heaps: PackedHeaps,
}

impl KeptRows {
    fn take(&mut self, settled: impl IntoIterator<Item = Gc>, pack_heaps: bool) {
        for mut g in settled {
            if pack_heaps {
                self.heaps.push(&g.heaps);
            }
            g.heaps = Vec::new();
            self.rows.push(g);
        }
    }
}

/// Whether the trace is a machine-wide one (ETW), whose events come from every process.
fn machine_wide(info: &TraceInfo) -> bool {
    info.machine_wide()
}

impl Pass {
    /// The process `choice` names; None for a trace without runtime events (no process at all),
    /// which gives an empty model, as for an EventPipe file.
    fn choose(&self, path: &str, choice: &ProcessChoice) -> Result<Option<u32>, String> {
        match self.router.choose(choice) {
            Ok(pid) => Ok(Some(pid)),
            Err(_) if self.router.processes().is_empty() && *choice == ProcessChoice::Auto => {
                Ok(None)
            }
            Err(e) => Err(format!("'{path}': {e}")),
        }
    }

    /// Says on stderr which process was chosen and lists the others, when there are several.
    fn tell_choice(&self, path: &str, pid: Option<u32>) {
        let list = self.router.processes();
        let Some(pid) = pid.filter(|_| list.len() > 1) else {
            return;
        };
        let chosen = list.iter().find(|p| p.process_id == pid);
        eprintln!(
            "gcscope: '{path}' holds {} processes with GC events; showing {} (the most GC pause; \
             choose with --pid N or --process NAME). The others:",
            list.len(),
            chosen.map_or_else(|| format!("pid {pid}"), processes::describe)
        );
        for p in list.iter().filter(|p| p.process_id != pid) {
            eprintln!("  {}", processes::describe(p));
        }
    }

    /// The chosen process's model (and its insights' records), or the empty model of a trace
    /// without one; when every row is kept, the model's rows are every row, without their heaps.
    fn finish(self, pid: Option<u32>, insights: bool) -> Result<Loaded, String> {
        let Pass {
            mut router,
            info,
            stats,
            kept,
            ..
        } = self;
        let (mut model, builder) = match pid {
            None => {
                let mut b = ModelBuilder::new(&info);
                b.set_info(&info);
                let mut model = b.finish(Some(&stats));
                if machine_wide(&info) {
                    // No process to count for: the counts are the whole trace's, and say so.
                    let all = router.all_processes(0);
                    model.process.events = stats.events;
                    model.notes.insert(
                        0,
                        format!(
                            "no process in this machine-wide trace wrote .NET runtime events: \
                             its {} events are the kernel's and other providers' ({} processes \
                             named by the kernel; `gcscope events` counts them)",
                            stats.events, all.other_count
                        ),
                    );
                }
                (model, InsightsBuilder::bounded())
            }
            Some(pid) => router
                .finish_parts(pid, Some(&stats))
                .ok_or_else(|| format!("no process {pid} in the trace"))?,
        };
        let mut heaps = PackedHeaps::default();
        if let Some((pack_heaps, mut kept)) = kept {
            let mut rows = pid.and_then(|p| kept.remove(&p)).unwrap_or_default();
            // The rows still held at the end are the last ones, not taken yet.
            rows.take(std::mem::take(&mut model.gcs), pack_heaps);
            model.gcs = rows.rows;
            heaps = rows.heaps;
        }
        Ok(Loaded {
            model,
            insights: insights.then_some(builder),
            heaps,
        })
    }
}
