//! One GC model per process, in one pass over a machine-wide trace.
//!
//! An ETW trace holds every process of the machine (docs/reference/formats.md, "Machine-wide
//! traces"): the GC model stays per process, so a [`ProcessRouter`] sends each event to the model
//! of its process, made when the process first shows a runtime event, and keeps what names each
//! process (the kernel's process events: image name, command line, start and end). An EventPipe
//! trace is one process: all of its events carry the header's process id and go to one model,
//! exactly as a plain [`ModelBuilder`] would build it.
//!
//! ```text
//! let mut router = ProcessRouter::new();
//! reader.push(chunk, &mut |info, e| router.on_event(info, e))?;   // TraceReader, any format
//! let pid = router.choose(&ProcessChoice::Auto)?;                  // most GC pause
//! let (model, insights) = router.finish(pid, Some(reader.stats()))?;
//! ```
//! [`ProcessRouter::processes`] lists the processes with GC events (name, pid, runtime version,
//! command line, GC count, total pause) at any time, for a picker.

use super::insights::{Insights, InsightsBuilder};
use super::{GcModel, ModelBuilder};
use crate::clr::names::is_runtime_provider;
use crate::etl::kernel;
use crate::etl::names::{hooks, KERNEL_PROVIDER};
use crate::event::{Event, TraceInfo};
use crate::sink::DecodeStats;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Which process to show.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ProcessChoice {
    /// The process with the most GC pause time (then the most GCs, then the lowest pid).
    #[default]
    Auto,
    Pid(u32),
    /// A process name (as listed: the image name without extension), case-insensitive.
    Name(String),
}

/// One process of the trace, as the picker lists it.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct ProcessSummary {
    pub process_id: u32,
    /// Image name without directory or extension (from the kernel's process events), if known.
    pub name: Option<String>,
    pub command_line: Option<String>,
    pub runtime_version: Option<String>,
    /// GCs seen so far (complete or not).
    pub gc_count: u32,
    /// Sum of the settled GCs' pauses, ms.
    pub total_pause_ms: f64,
}

/// Every process of a trace ([`ProcessRouter::all_processes`]), GC events or not.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct AllProcesses {
    /// Processes that wrote runtime events (.NET processes), most events first.
    pub dotnet: Vec<ProcessSummary>,
    pub dotnet_count: usize,
    /// Processes only the kernel's process events name, by pid.
    pub others: Vec<ProcessSummary>,
    pub other_count: usize,
}

/// What the kernel's process events said about a process.
/// The most processes whose kernel events are counted (see `ProcessRouter::kernel_events`).
const MAX_KERNEL_PIDS: usize = 4096;

#[derive(Debug, Clone, Default)]
struct Naming {
    name: String,
    command_line: String,
}

struct Routed {
    model: ModelBuilder,
    /// None when the router builds models only.
    insights: Option<InsightsBuilder>,
}

/// Which insights a router builds beside each model.
#[derive(Debug, Clone, Copy, PartialEq)]
enum InsightsKind {
    /// [`InsightsBuilder::bounded`], what the browser's worker uses.
    Bounded,
    /// [`InsightsBuilder::keeping_samples_in`] this time range (ms); the whole time line is
    /// [`InsightsBuilder::new`] (every tick kept).
    SamplesIn(f64, f64),
    /// None: for consumers of the model alone, whose memory then stays what the model's is.
    Off,
}

/// Routes events to one model (and its insights) per process.
pub struct ProcessRouter {
    procs: BTreeMap<u32, Routed>,
    names: BTreeMap<u32, Naming>,
    /// The kernel's process events by the process id in their header: (count, first ms, last ms).
    /// They name processes and are not fed to a model, so they are charged to the process when it
    /// is finished, as the events the reader skipped are.
    kernel_events: BTreeMap<u32, (u64, f64, f64)>,
    insights: InsightsKind,
    /// Set when the first process is finished (see `machine_wide`).
    machine_wide: Option<bool>,
}

impl Default for ProcessRouter {
    fn default() -> Self {
        Self::new()
    }
}

impl ProcessRouter {
    pub fn new() -> Self {
        ProcessRouter {
            procs: BTreeMap::new(),
            names: BTreeMap::new(),
            kernel_events: BTreeMap::new(),
            insights: InsightsKind::SamplesIn(f64::NEG_INFINITY, f64::INFINITY),
            machine_wide: None,
        }
    }

    /// Insights are built with [`InsightsBuilder::bounded`] (what the browser's worker uses).
    pub fn bounded() -> Self {
        ProcessRouter {
            insights: InsightsKind::Bounded,
            ..Self::new()
        }
    }

    /// Insights are built with [`InsightsBuilder::keeping_samples_in`]: bounded, with the allocation
    /// ticks of `from_ms..to_ms` kept as samples.
    pub fn keeping_samples_in(from_ms: f64, to_ms: f64) -> Self {
        ProcessRouter {
            insights: InsightsKind::SamplesIn(from_ms, to_ms),
            ..Self::new()
        }
    }

    /// Models only, no insights (the commands that print the model's rows or summaries): what a
    /// plain [`ModelBuilder`] per process costs. [`Self::finish`] then gives empty insights.
    pub fn models_only() -> Self {
        ProcessRouter {
            insights: InsightsKind::Off,
            ..Self::new()
        }
    }

    /// Feeds one event (in timestamp order, as the reader delivers them).
    pub fn on_event(&mut self, info: &TraceInfo, e: &Event<'_>) {
        if e.provider == KERNEL_PROVIDER {
            self.on_kernel(e);
            return;
        }
        if e.provider == crate::ctf::PROCESS_NAME_PROVIDER {
            // An LTTng event context's `_procname`, as the CTF decoder reports it once per process.
            let name = String::from_utf8_lossy(e.payload);
            if !name.is_empty() {
                self.names.entry(e.process_id).or_default().name = name.into_owned();
            }
            return;
        }
        let routed = match self.procs.get_mut(&e.process_id) {
            Some(r) => r,
            None => match self.add_process(info, e) {
                Some(r) => r,
                None => return,
            },
        };
        match &mut routed.insights {
            Some(insights) => super::feed(&mut routed.model, insights, e),
            None => routed.model.on_event(e),
        }
    }

    /// The model (and insights) of `e`'s process, made at its first event; None for an event that
    /// does not start one. Out of line: a `ModelBuilder` is large, and made inline it gave
    /// [`on_event`](Self::on_event), which every event goes through, a 21 KB stack frame.
    #[cold]
    #[inline(never)]
    fn add_process(&mut self, info: &TraceInfo, e: &Event<'_>) -> Option<&mut Routed> {
        // An EventPipe trace is one process: its model starts at its first event, as a plain
        // ModelBuilder's would. A machine-wide trace's processes start at their first runtime event.
        let machine_wide = info.machine_wide();
        if machine_wide && !is_runtime_provider(e.provider) {
            return None;
        }
        let pid = e.process_id;
        let mut info = info.clone();
        info.process_id = pid;
        if machine_wide {
            // The log's pointer size is the machine's; a 32-bit process's records are
            // 32-bit (their header says so).
            info.pointer_size = e.pointer_size;
        }
        let insights = match self.insights {
            InsightsKind::Bounded => Some(InsightsBuilder::bounded()),
            InsightsKind::SamplesIn(from, to) => {
                Some(InsightsBuilder::keeping_samples_in(from, to))
            }
            InsightsKind::Off => None,
        };
        Some(self.procs.entry(pid).or_insert(Routed {
            model: ModelBuilder::new(&info),
            insights,
        }))
    }

    fn on_kernel(&mut self, e: &Event<'_>) {
        let t = e.time_ms;
        let room = self.kernel_events.len() < MAX_KERNEL_PIDS;
        match self.kernel_events.get_mut(&e.process_id) {
            Some((n, first, last)) => {
                *n += 1;
                *first = first.min(t);
                *last = last.max(t);
            }
            None if room => {
                self.kernel_events.insert(e.process_id, (1, t, t));
            }
            None => {}
        }
        if !matches!(
            e.event_id as u16,
            hooks::PROCESS_START
                | hooks::PROCESS_STOP
                | hooks::PROCESS_DC_START
                | hooks::PROCESS_DC_STOP
                | hooks::PROCESS_DEFUNCT
        ) {
            return;
        }
        let Some(p) = kernel::parse_process(e.payload, e.version, e.pointer_size) else {
            return;
        };
        let n = self.names.entry(p.process_id).or_default();
        if !p.name.is_empty() {
            n.name = p.name;
        }
        if !p.command_line.is_empty() {
            n.command_line = p.command_line;
        }
    }

    /// The processes with GC events, most GC pause first.
    pub fn processes(&self) -> Vec<ProcessSummary> {
        let mut out: Vec<ProcessSummary> = self
            .procs
            .iter()
            .map(|(&pid, r)| self.summary(pid, r))
            .filter(|s| s.gc_count > 0)
            .collect();
        out.sort_by(|a, b| {
            b.total_pause_ms
                .total_cmp(&a.total_pause_ms)
                .then(b.gc_count.cmp(&a.gc_count))
                .then(a.process_id.cmp(&b.process_id))
        });
        out
    }

    /// Every process the trace shows, GC events or not: for a trace without GCs, to say what it
    /// holds (a .NET process whose GC keyword was off, or none at all). At most `limit` of each
    /// kind, with how many there are.
    pub fn all_processes(&self, limit: usize) -> AllProcesses {
        let mut dotnet: Vec<(u64, ProcessSummary)> = self
            .procs
            .iter()
            .map(|(&pid, r)| (r.model.process.events, self.summary(pid, r)))
            .collect();
        // Most runtime events first.
        dotnet.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.process_id.cmp(&b.1.process_id)));
        let others = self
            .names
            .iter()
            .filter(|(pid, _)| !self.procs.contains_key(pid));
        AllProcesses {
            dotnet_count: dotnet.len(),
            other_count: others.clone().count(),
            dotnet: dotnet.into_iter().take(limit).map(|(_, s)| s).collect(),
            others: others
                .take(limit)
                .map(|(&pid, n)| ProcessSummary {
                    process_id: pid,
                    name: Some(n.name.clone()).filter(|n| !n.is_empty()),
                    command_line: Some(n.command_line.clone()).filter(|c| !c.is_empty()),
                    ..ProcessSummary::default()
                })
                .collect(),
        }
    }

    fn summary(&self, pid: u32, r: &Routed) -> ProcessSummary {
        let naming = self.names.get(&pid);
        let facts = &r.model.process;
        let (gc_count, total_pause_ms) = r.model.pause_so_far();
        ProcessSummary {
            process_id: pid,
            name: naming.map(|n| n.name.clone()).filter(|n| !n.is_empty()),
            command_line: facts.command_line.clone().or_else(|| {
                naming
                    .map(|n| n.command_line.clone())
                    .filter(|c| !c.is_empty())
            }),
            runtime_version: facts.runtime_version.clone(),
            gc_count,
            total_pause_ms,
        }
    }

    /// The process `choice` names: among those with GC events first, then among every .NET
    /// process (runtime events without a GC is a process too, shown with 0 GCs, as the automatic
    /// choice shows it when no process has GCs); the error says which there are.
    pub fn choose(&self, choice: &ProcessChoice) -> Result<u32, String> {
        let list = self.processes();
        let named = |p: &ProcessSummary, name: &str| {
            display_name(p).is_some_and(|n| n.eq_ignore_ascii_case(name))
        };
        let found = match choice {
            ProcessChoice::Auto => list.first(),
            ProcessChoice::Pid(pid) => list.iter().find(|p| p.process_id == *pid),
            ProcessChoice::Name(name) => list.iter().find(|p| named(p, name)),
        };
        if let Some(p) = found {
            return Ok(p.process_id);
        }
        let without_gcs = match choice {
            ProcessChoice::Auto => None,
            ProcessChoice::Pid(pid) => self.procs.contains_key(pid).then_some(*pid),
            ProcessChoice::Name(name) => self
                .procs
                .iter()
                .find(|(&pid, r)| named(&self.summary(pid, r), name))
                .map(|(&pid, _)| pid),
        };
        if let Some(pid) = without_gcs {
            return Ok(pid);
        }
        // A process the kernel names but with no runtime event: not a .NET process to show.
        let not_dotnet = self.names.iter().find(|(pid, n)| match choice {
            ProcessChoice::Pid(p) => **pid == *p,
            ProcessChoice::Name(name) => image_name(&n.name).eq_ignore_ascii_case(name),
            ProcessChoice::Auto => false,
        });
        if let Some((pid, n)) = not_dotnet {
            return Err(format!(
                "process {} (pid {pid}) has no .NET runtime events in the trace (not a .NET \
                 process, or its runtime provider was not enabled){}",
                image_name(&n.name),
                self.listing(&list)
            ));
        }
        if *choice == ProcessChoice::Auto {
            // No GCs anywhere (a rundown-only file): the process with the most events, if any.
            if let Some((&pid, _)) = self
                .procs
                .iter()
                .max_by_key(|(_, r)| r.model.process.events)
            {
                return Ok(pid);
            }
        }
        if list.is_empty() && self.procs.is_empty() {
            return Err(String::from(
                "the trace has no .NET process (no runtime events)",
            ));
        }
        Err(format!(
            "no process in the trace matches {}{}",
            match choice {
                ProcessChoice::Pid(p) => format!("pid {p}"),
                ProcessChoice::Name(n) => format!("name '{n}'"),
                ProcessChoice::Auto => String::from("the choice"),
            },
            self.listing(&list)
        ))
    }

    /// "; the trace has: ..." with the processes with GC events, then the .NET processes without.
    fn listing(&self, with_gcs: &[ProcessSummary]) -> String {
        let mut listed: Vec<String> = with_gcs.iter().map(describe).collect();
        for (&pid, r) in &self.procs {
            if !with_gcs.iter().any(|p| p.process_id == pid) {
                listed.push(describe(&self.summary(pid, r)));
            }
        }
        if listed.is_empty() {
            String::from("; the trace has no .NET process")
        } else {
            format!("; the trace has: {}", listed.join("; "))
        }
    }

    /// The chosen process's model and insights. `stats` supplies dropped-event counts and the
    /// filtered-event counts: for a trace of several processes, the chosen process's own
    /// ([`DecodeStats::filtered_by_process`]).
    pub fn finish(
        mut self,
        pid: u32,
        stats: Option<&DecodeStats>,
    ) -> Result<(GcModel, Insights), String> {
        let (model, insights) = self.finish_model_of(pid, stats)?;
        let insights = insights.finish(&model);
        Ok((model, insights))
    }

    /// [`Self::finish`] without the insights (for a [`Self::models_only`] router).
    pub fn finish_model(
        mut self,
        pid: u32,
        stats: Option<&DecodeStats>,
    ) -> Result<GcModel, String> {
        self.finish_model_of(pid, stats).map(|(model, _)| model)
    }

    fn finish_model_of(
        &mut self,
        pid: u32,
        stats: Option<&DecodeStats>,
    ) -> Result<(GcModel, InsightsBuilder), String> {
        let machine_wide = self.machine_wide();
        self.finish_one(pid, stats, machine_wide)
            .ok_or_else(|| format!("no process {pid} in the trace"))
    }

    /// The chosen process's model, finished as [`Self::finish`] does, and its insights builder
    /// unfinished (for a consumer that ships the builder's records and finishes them elsewhere, as
    /// the browser's worker does). The other processes stay, to be finished in turn.
    pub fn finish_parts(
        &mut self,
        pid: u32,
        stats: Option<&DecodeStats>,
    ) -> Option<(GcModel, InsightsBuilder)> {
        let machine_wide = self.machine_wide();
        self.finish_one(pid, stats, machine_wide)
    }

    /// Every process with GC events, finished (most GC pause first).
    pub fn finish_all(mut self, stats: Option<&DecodeStats>) -> Vec<(u32, GcModel, Insights)> {
        let machine_wide = self.machine_wide();
        let pids: Vec<u32> = self.processes().iter().map(|p| p.process_id).collect();
        pids.into_iter()
            .filter_map(|pid| {
                self.finish_one(pid, stats, machine_wide).map(|(m, i)| {
                    let i = i.finish(&m);
                    (pid, m, i)
                })
            })
            .collect()
    }

    /// Several processes (or the kernel naming several): the trace-wide filtered counts are not
    /// one process's, and each is charged its own. Latched when the first process is taken, as taking them shrinks the maps.
    fn machine_wide(&mut self) -> bool {
        let now = self.machine_wide_now();
        *self.machine_wide.get_or_insert(now)
    }

    /// [`Self::machine_wide`] without latching it (for a snapshot, which takes nothing).
    fn machine_wide_now(&self) -> bool {
        self.machine_wide
            .unwrap_or(self.procs.len() > 1 || self.names.len() > 1)
    }

    fn finish_one(
        &mut self,
        pid: u32,
        stats: Option<&DecodeStats>,
        machine_wide: bool,
    ) -> Option<(GcModel, InsightsBuilder)> {
        let (model, insights) = self.take(pid)?;
        let kernel = self.kernel_events.remove(&pid);
        let own = own_stats(pid, stats, machine_wide, kernel);
        Some((model.finish(own.as_ref().or(stats)), insights))
    }

    /// The process's model as [`Self::finish_parts`] would give it now, and a copy of its insights
    /// builder, while the router goes on: for a stream that has no end yet (a live session), whose
    /// page shows the findings and the trace's facts as they grow. It costs a copy of the two
    /// builders, which hold the summaries and the few rows not yet drained, not the whole table.
    pub fn snapshot(
        &self,
        pid: u32,
        stats: Option<&DecodeStats>,
    ) -> Option<(GcModel, InsightsBuilder)> {
        let r = self.procs.get(&pid)?;
        let mut model = r.model.clone();
        if let Some(n) = self.names.get(&pid) {
            model.on_process_name(n.name.clone(), n.command_line.clone());
        }
        let insights = r.insights.clone().unwrap_or_else(InsightsBuilder::new);
        let machine_wide = self.machine_wide_now();
        let kernel = self.kernel_events.get(&pid).copied();
        let own = own_stats(pid, stats, machine_wide, kernel);
        Some((model.finish(own.as_ref().or(stats)), insights))
    }

    /// The chosen process's builders, unfinished (for a consumer that finishes them itself; an
    /// empty insights builder from a [`Self::models_only`] router).
    pub fn take(&mut self, pid: u32) -> Option<(ModelBuilder, InsightsBuilder)> {
        self.machine_wide();
        let naming = self.names.remove(&pid);
        self.procs.remove(&pid).map(|r| {
            let mut model = r.model;
            if let Some(n) = naming {
                model.on_process_name(n.name, n.command_line);
            }
            (model, r.insights.unwrap_or_else(InsightsBuilder::new))
        })
    }

    /// The builder of one process, if it has one (to drain rows while streaming).
    pub fn model_mut(&mut self, pid: u32) -> Option<&mut ModelBuilder> {
        self.procs.get_mut(&pid).map(|r| &mut r.model)
    }

    /// Every process's builder (to drain rows while streaming).
    pub fn models_mut(&mut self) -> impl Iterator<Item = (u32, &mut ModelBuilder)> {
        self.procs.iter_mut().map(|(&pid, r)| (pid, &mut r.model))
    }
}

/// For a trace of several processes, the decoder's stats as one process's: the trace-wide
/// filtered counts are not one process's, so it is charged its own skipped events (which the ETW
/// decoder counts per process) and its kernel process events (`kernel`: count, first ms, last ms).
/// `None` where the trace-wide stats stand as they are.
fn own_stats(
    pid: u32,
    stats: Option<&DecodeStats>,
    machine_wide: bool,
    kernel: Option<(u64, f64, f64)>,
) -> Option<DecodeStats> {
    let s = stats.filter(|_| machine_wide)?;
    let f = s.filtered_by_process.iter().find(|f| f.process_id == pid);
    let runtime = f.map_or(0, |f| f.runtime_events);
    let events = f.map_or(0, |f| f.events);
    let (k, k_first, k_last) = kernel.unwrap_or((0, f64::INFINITY, f64::NEG_INFINITY));
    let first = f.map_or(k_first, |f| f.first_event_ms.min(k_first));
    let last = f.map_or(k_last, |f| f.last_event_ms.max(k_last));
    Some(DecodeStats {
        filtered_events: events + k,
        filtered_by_provider: alloc::vec![
            (String::from(crate::clr::names::RUNTIME_PROVIDER), runtime),
            (String::new(), events - runtime + k),
        ],
        first_event_ms: first.is_finite().then_some(first),
        last_event_ms: last.is_finite().then_some(last),
        ..s.clone()
    })
}

/// `Test.x64 (pid 3676): 264 GCs, 1,234.5 ms paused, .NET Framework 4.0.30319.34209`.
pub fn describe(p: &ProcessSummary) -> String {
    let mut s = format!(
        "{} (pid {}): {} GCs, {:.1} ms paused",
        display_name(p).unwrap_or("?"),
        p.process_id,
        p.gc_count,
        p.total_pause_ms
    );
    if let Some(v) = &p.runtime_version {
        s.push_str(", ");
        s.push_str(v);
    }
    s
}

/// The process's name: the kernel's image name, else the program its command line starts, as
/// `--process` takes it (no folder, no `.exe`, no quotes).
pub fn display_name(p: &ProcessSummary) -> Option<&str> {
    if let Some(n) = p.name.as_deref().filter(|n| !n.is_empty()) {
        return Some(image_name(n));
    }
    let cmd = p.command_line.as_deref()?.trim_start();
    let program = match cmd.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => cmd.split(' ').next()?,
    };
    Some(image_name(program)).filter(|n| !n.is_empty())
}

/// `C:\Program Files\app.exe` -> `app`: the file name without its folder and `.exe`.
fn image_name(path: &str) -> &str {
    let file = path.rsplit(['\\', '/']).next().unwrap_or(path);
    match file.len().checked_sub(4) {
        Some(i) if file.is_char_boundary(i) && file[i..].eq_ignore_ascii_case(".exe") => &file[..i],
        _ => file,
    }
}

#[cfg(test)]
mod tests;
