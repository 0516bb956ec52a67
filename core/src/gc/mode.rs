//! How the GC was set up, from evidence in the trace: server or workstation, DATAS, background GC,
//! regions or segments, GCConserveMemory, the heap hard limit, and the heap counts. Every setting
//! is decided from the events that carry it, with the evidence kept beside the value; where the
//! trace cannot tell, the value is unknown and the evidence names the events that would tell.
//! Nothing is assumed: a 1-heap trace is not taken for workstation GC.
//!
//! [`ModeEvidence`] collects the facts as the builder sees events (small hooks), [`decide`] turns
//! them into [`ProcessFacts`] fields, and [`label`] renders the one-line mode the overview and the
//! CLI show ("server, DATAS: 1-2 heaps (heap count changed 3 times)").

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::types::{ModeFact, ProcessFacts};

/// The first .NET major version whose Runtime/Start fills in StartupFlags: before it a 0 is "not
/// filled", not "no flag set".
const FLAGS_FILLED_FROM: u32 = 6;

/// RuntimeInformation StartupFlags bits (mscoree.h STARTUP_FLAGS, as PerfView reads them).
const STARTUP_CONCURRENT_GC: u32 = 0x1;
const STARTUP_SERVER_GC: u32 = 0x1000;
/// GCSettingsRundown BitSettings: concurrent GC, hard limit from config (not the container).
const SETTINGS_CONCURRENT: u32 = 0x1;
const SETTINGS_HARD_LIMIT_CONFIG: u32 = 0x8;
/// GCCreateSegment type of the small object heap.
const SEGMENT_SOH: u32 = 0;
/// Regions are small (4 MiB basic regions by default); segments of the small object heap are
/// 64 MiB and more (256 MiB for workstation GC on 64-bit).
const LARGEST_REGION: u64 = 32 << 20;

/// What the events said about the GC's setup, collected while building.
#[derive(Debug, Clone, Default)]
pub(crate) struct ModeEvidence {
    startup_flags: Option<u32>,
    runtime_major: Option<u32>,
    /// RuntimeInformation's Sku says .NET Framework (DesktopClr).
    framework: bool,
    /// .NET Framework's private GC/Settings: server GC, small-object-heap segment size.
    framework_settings: Option<(bool, u64)>,
    global_histories: u64,
    heaps_min: Option<u32>,
    heaps_max: Option<u32>,
    per_heap_max: Option<u32>,
    joins: u64,
    datas_events: u64,
    /// An event of the GC keyword at Verbose level was seen (AllocationTick): workstation GC
    /// fires no GCJoin, server GC does at that level.
    verbose_gc: bool,
    settings: Option<(u64, u32)>,
    soh_segments: u32,
    soh_segment_max: u64,
}

impl ModeEvidence {
    /// RuntimeInformation (Runtime/Start, or its rundown copy).
    pub(crate) fn on_runtime_information(
        &mut self,
        startup_flags: u32,
        major: Option<u32>,
        framework: bool,
    ) {
        self.startup_flags.get_or_insert(startup_flags);
        if self.runtime_major.is_none() {
            self.runtime_major = major;
        }
        self.framework |= framework;
    }

    /// .NET Framework's GC/Settings (private provider).
    pub(crate) fn on_framework_settings(&mut self, server: bool, segment_size: u64) {
        self.framework_settings
            .get_or_insert((server, segment_size));
    }

    /// A GCGlobalHeapHistory.
    pub(crate) fn on_heap_count(&mut self, heaps: u32) {
        if heaps == 0 {
            return;
        }
        self.global_histories += 1;
        self.heaps_min = Some(self.heaps_min.map_or(heaps, |m| m.min(heaps)));
        self.heaps_max = Some(self.heaps_max.map_or(heaps, |m| m.max(heaps)));
    }

    pub(crate) fn on_per_heap(&mut self, heap_index: u32) {
        self.per_heap_max = Some(self.per_heap_max.map_or(heap_index, |m| m.max(heap_index)));
    }

    pub(crate) fn on_join(&mut self) {
        self.joins += 1;
    }

    pub(crate) fn on_datas_event(&mut self) {
        self.datas_events += 1;
    }

    pub(crate) fn on_verbose_gc(&mut self) {
        self.verbose_gc = true;
    }

    pub(crate) fn on_settings(&mut self, hard_limit: u64, bits: u32) {
        self.settings.get_or_insert((hard_limit, bits));
    }

    pub(crate) fn on_segment(&mut self, kind: u32, size: u64) {
        if kind == SEGMENT_SOH {
            self.soh_segments += 1;
            self.soh_segment_max = self.soh_segment_max.max(size);
        }
    }
}

fn fact(setting: &'static str, value: impl Into<String>, evidence: impl Into<String>) -> ModeFact {
    ModeFact {
        setting: Cow::Borrowed(setting),
        value: value.into(),
        evidence: evidence.into(),
    }
}

/// Whole MiB, rounded (a 4 MiB region reports its size less a small header).
fn mib(bytes: u64) -> u64 {
    // Half a MiB up, without adding: a segment size is input and may be near u64::MAX (fuzzing).
    (bytes >> 20) + ((bytes >> 19) & 1)
}

/// "never", "once", "N times".
fn times(n: u32) -> String {
    match n {
        0 => "never".into(),
        1 => "once".into(),
        n => format!("{n} times"),
    }
}

fn yes_no(b: Option<bool>, yes: &str, no: &str) -> String {
    match b {
        Some(true) => yes.into(),
        Some(false) => no.into(),
        None => "unknown".into(),
    }
}

/// Decides every setting from the evidence and writes it into `p` (`background_seen`: the model
/// has a background GC; `heap_changes`: GCs whose heap count differs from the GC before, in GC
/// order).
pub(crate) fn decide(
    e: &ModeEvidence,
    background_seen: bool,
    heap_changes: u32,
    p: &mut ProcessFacts,
) {
    let mut facts = Vec::new();

    // Heap counts: GCGlobalHeapHistory says it per GC; else the per-heap histories' indices.
    let (min, max) = match (e.heaps_min, e.heaps_max, e.per_heap_max) {
        (Some(a), Some(b), _) => (Some(a), Some(b)),
        // A damaged per-heap history may claim heap u32::MAX: the count saturates, no overflow.
        (_, _, Some(i)) => (None, Some(i.saturating_add(1))),
        _ => (None, None),
    };

    // Server or workstation. Before .NET 6 the runtime writes 0 for the startup flags whatever
    // its GC (dotnet/runtime#52042, fixed by #55151): there a 0 means "not filled", and says
    // something only from .NET 6 on (a .NET 10 workstation non-concurrent GC has 0).
    let flags = e
        .startup_flags
        .filter(|&f| f != 0 || e.runtime_major.is_some_and(|m| m >= FLAGS_FILLED_FROM));
    let mut server_why: Vec<String> = Vec::new();
    // .NET Framework's GC says it itself when it starts (GC/Settings, private provider).
    let settings_server = e.framework_settings.map(|(server, _)| server);
    if settings_server == Some(true) {
        server_why.push("GC/Settings (private provider) has ServerGC".into());
    }
    if flags.is_some_and(|f| f & STARTUP_SERVER_GC != 0) {
        server_why.push("Runtime/Start StartupFlags has SERVER_GC".into());
    }
    if let Some(m) = e.heaps_max.filter(|&m| m > 1) {
        server_why.push(format!("GCGlobalHeapHistory shows {m} heaps"));
    }
    if let Some(i) = e.per_heap_max.filter(|&i| i > 0) {
        server_why.push(format!("GCPerHeapHistory for heap {i}"));
    }
    if e.joins > 0 {
        server_why.push(format!(
            "{} GCJoin events (workstation GC fires none)",
            e.joins
        ));
    }
    if e.datas_events > 0 {
        server_why.push(format!("{} DATAS events", e.datas_events));
    }
    let server = if !server_why.is_empty() {
        Some(true)
    } else if settings_server == Some(false) || flags.is_some() {
        if settings_server == Some(false) {
            server_why.push("GC/Settings (private provider) without ServerGC".into());
        }
        if flags.is_some() {
            server_why.push("Runtime/Start StartupFlags without SERVER_GC".into());
        }
        Some(false)
    } else if e.verbose_gc && e.heaps_max == Some(1) {
        server_why.push(
            "every GCGlobalHeapHistory says 1 heap and no GCJoin although GC events are at \
             Verbose level (server GC fires GCJoin there)"
                .into(),
        );
        Some(false)
    } else {
        server_why.push(
            "cannot tell: needs the Runtime/Start event (runtime provider, or the rundown), \
             GCGlobalHeapHistory with 2+ heaps, or GCJoin events (GC keyword 0x1, Verbose); \
             on .NET Framework also GC/Settings (private provider)"
                .into(),
        );
        None
    };
    facts.push(fact(
        "gc",
        yes_no(server, "server", "workstation"),
        server_why.join("; "),
    ));

    // DATAS: only server GC adapts its heap count; it fires a sample at (almost) every GC.
    let datas_versions = match e.runtime_major {
        Some(v) if v < 8 => Some(v),
        _ => None,
    };
    let (datas, datas_why) = if server == Some(false) {
        (Some(false), "workstation GC".into())
    } else if e.datas_events > 0 {
        (
            Some(true),
            format!(
                "{} SizeAdaptation*/HeapCount* events (fired only by DATAS)",
                e.datas_events
            ),
        )
    } else if heap_changes > 0 {
        (
            Some(true),
            format!(
                "the heap count changed {} between GCs (GCGlobalHeapHistory)",
                times(heap_changes)
            ),
        )
    } else if let Some(v) = datas_versions {
        (Some(false), format!("runtime {v}: DATAS arrived in .NET 8"))
    } else if e.framework {
        (
            Some(false),
            ".NET Framework (Runtime/Start Sku): DATAS arrived in .NET 8".into(),
        )
    } else if server == Some(true) && e.global_histories > 0 {
        (
            Some(false),
            "no SizeAdaptationSample/HeapCountSample events although GC Informational events \
             are in the trace (DATAS fires one at each GC)"
                .into(),
        )
    } else {
        (
            None,
            "cannot tell: needs the GC keyword (0x1) at Informational level (DATAS fires \
             SizeAdaptationSample, HeapCountSample on .NET 8, at each GC)"
                .into(),
        )
    };
    facts.push(fact("datas", yes_no(datas, "on", "off"), datas_why));

    // Heap counts as the trace shows them.
    let heaps_text = match (min, max) {
        (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
        (_, Some(b)) => format!("{b}"),
        _ => "unknown".into(),
    };
    // Workstation GC has one heap whatever the trace shows, and the process's heap count says so:
    // the fact says the same (no "unknown" beside a heap count of 1).
    let heaps_text = if max.is_none() && server == Some(false) {
        "1".into()
    } else {
        heaps_text
    };
    let heaps_why = if e.global_histories > 0 {
        format!(
            "{} GCGlobalHeapHistory events; the count changed {}",
            e.global_histories,
            times(heap_changes)
        )
    } else if e.per_heap_max.is_some() {
        "GCPerHeapHistory heap indices (no GCGlobalHeapHistory)".into()
    } else if server == Some(false) {
        "workstation GC has one heap (no GCGlobalHeapHistory in the trace)".into()
    } else {
        "cannot tell: needs GCGlobalHeapHistory (GC keyword 0x1, Informational)".into()
    };
    facts.push(fact("heaps", heaps_text, heaps_why));

    // Background GC.
    let (concurrent, conc_why) = if let Some((_, bits)) = e.settings {
        (
            Some(bits & SETTINGS_CONCURRENT != 0),
            "GCSettingsRundown flags".into(),
        )
    } else if background_seen {
        (Some(true), "a background GC in the trace".into())
    } else if let Some(f) = flags {
        (
            Some(f & STARTUP_CONCURRENT_GC != 0),
            "Runtime/Start StartupFlags CONCURRENT_GC".into(),
        )
    } else {
        (
            None,
            String::from(
                "cannot tell: needs GCSettingsRundown (rundown) or Runtime/Start; a background \
                 GC in the trace would show it",
            ),
        )
    };
    facts.push(fact(
        "concurrent",
        yes_no(concurrent, "on (background GC)", "off"),
        conc_why,
    ));

    // Regions (.NET 7+) or segments.
    let (regions, regions_why) = if let Some(v) = e.runtime_major.filter(|&v| v < 7) {
        (
            Some(false),
            format!("runtime {v}: regions arrived in .NET 7"),
        )
    } else if e.framework || e.framework_settings.is_some() {
        let size = match e.framework_settings {
            Some((_, size)) => format!("; GC/Settings: {} MiB segments", mib(size)),
            None => String::new(),
        };
        (
            Some(false),
            format!(".NET Framework: segments (regions arrived in .NET 7){size}"),
        )
    } else if e.soh_segments >= 2 && e.soh_segment_max <= LARGEST_REGION {
        (
            Some(true),
            format!(
                "{} small-object-heap GCCreateSegment events of at most {} MiB",
                e.soh_segments,
                mib(e.soh_segment_max)
            ),
        )
    } else if e.soh_segments > 0 && e.soh_segment_max > LARGEST_REGION {
        (
            Some(false),
            format!(
                "a small-object-heap segment of {} MiB (regions are a few MiB)",
                mib(e.soh_segment_max)
            ),
        )
    } else {
        (
            None,
            "cannot tell: needs GCCreateSegment events for the small object heap (GC keyword): \
             regions create many small ones, segments few large ones"
                .into(),
        )
    };
    facts.push(fact(
        "regions",
        yes_no(regions, "regions", "segments"),
        regions_why,
    ));

    facts.push(fact(
        "conserve_memory",
        "unknown",
        "no trace event carries GCConserveMemory (the process can read \
         GC.GetConfigurationVariables()[\"GCConserveMem\"])",
    ));

    let (limit, limit_why) = match e.settings {
        Some((0, _)) => (Some(0), "GCSettingsRundown: none".into()),
        Some((l, bits)) => (
            Some(l),
            if bits & SETTINGS_HARD_LIMIT_CONFIG != 0 {
                "GCSettingsRundown (from the GCHeapHardLimit settings)".into()
            } else {
                "GCSettingsRundown (from the container's memory limit)".into()
            },
        ),
        None => (
            None,
            String::from(
                "cannot tell: needs GCSettingsRundown (the rundown at the end of the session)",
            ),
        ),
    };
    facts.push(fact(
        "hard_limit",
        match limit {
            Some(0) => "none".into(),
            Some(l) => format!("{l} bytes"),
            None => "unknown".into(),
        },
        limit_why,
    ));

    p.gc_mode = server.map(|s| Cow::Borrowed(if s { "server" } else { "workstation" }));
    p.heap_count = max.or((server == Some(false)).then_some(1));
    p.heap_count_min = min.or(p.heap_count.filter(|_| server == Some(false)));
    p.heap_count_changes = heap_changes;
    p.datas = datas;
    p.concurrent = concurrent;
    p.regions = regions;
    p.hard_limit_bytes = limit.filter(|&l| l > 0);
    p.gc_mode_evidence = facts;
}

/// The GC mode in one line, as the overview and `gcscope summary` show it:
/// "server, DATAS: 1-2 heaps (heap count changed 3 times)", "server, 2 heaps",
/// "workstation, 1 heap", or "unknown ..." saying which events would tell.
pub fn label(p: &ProcessFacts) -> String {
    let heaps = |n: u32| format!("{n} heap{}", if n == 1 { "" } else { "s" });
    let range = match (p.heap_count_min, p.heap_count) {
        (Some(a), Some(b)) if a != b => Some(format!("{a}-{b} heaps")),
        (_, Some(b)) => Some(heaps(b)),
        _ => None,
    };
    let range = range.unwrap_or_else(|| "heap count unknown".into());
    match (p.gc_mode.as_deref(), p.datas) {
        (Some("server"), Some(true)) => {
            let changed = match p.heap_count_changes {
                0 => "heap count never changed".into(),
                n => format!("heap count changed {}", times(n)),
            };
            format!("server, DATAS: {range} ({changed})")
        }
        (Some("server"), Some(false)) => format!("server, {range}"),
        (Some("server"), None) => format!("server, {range} (DATAS unknown)"),
        (Some(m), _) => format!("{m}, {range}"),
        (None, _) => format!(
            "unknown, {range} (server or workstation: needs the Runtime/Start event or GCJoin events)"
        ),
    }
}

#[cfg(test)]
mod tests;
