//! What the findings layer hands out: each finding with its evidence, the threshold it crossed and
//! the advice, the report of every rule checked, and the settings the thresholds depend on. All
//! serializable (`gcscope findings --json` prints a [`Report`]).

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// A name or sentence from a fixed table (`'static` while checking, owned after deserializing).
pub type Text = Cow<'static, str>;

/// What the program is tuned for: picks which GC metric matters (MD §Top level GC metrics,
/// Table 3): throughput → % of time paused; latency → individual pauses; footprint → heap size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    #[default]
    Throughput,
    Latency,
    Footprint,
}

impl Goal {
    pub const ALL: [Goal; 3] = [Goal::Throughput, Goal::Latency, Goal::Footprint];

    pub fn name(self) -> &'static str {
        match self {
            Goal::Throughput => "throughput",
            Goal::Latency => "latency",
            Goal::Footprint => "footprint",
        }
    }

    pub fn parse(s: &str) -> Option<Goal> {
        Goal::ALL.into_iter().find(|g| g.name() == s)
    }
}

/// Most severe first (the derived order sorts critical before warning before info).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// One of the authorities' definitive signs, over a threshold they give.
    Critical,
    /// Worth acting on for the chosen goal.
    Warning,
    /// Worth knowing: it matters for another goal, or its threshold is gcscope's own choice.
    Info,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }

    pub fn parse(s: &str) -> Option<Severity> {
        [Severity::Critical, Severity::Warning, Severity::Info]
            .into_iter()
            .find(|v| v.name() == s)
    }
}

/// The thresholds that depend on the program (the rest are the sources' numbers).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub goal: Goal,
    /// A pause longer than this is a finding (`pauses-over-budget`).
    pub pause_budget_ms: f64,
}

/// PerfView's users' guide: pauses over ~100 ms can hurt a user's experience (PV-HUG).
pub const DEFAULT_PAUSE_BUDGET_MS: f64 = 100.0;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            goal: Goal::Throughput,
            pause_budget_ms: DEFAULT_PAUSE_BUDGET_MS,
        }
    }
}

/// The threshold a finding crossed, as it applied to this trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Threshold {
    /// "a GC's suspension >= 10 ms", with the settings applied.
    pub text: String,
    /// The source tags and what they say (see `docs/reference/findings.md`, Sources).
    pub source: Text,
    /// The number is gcscope's own choice (the sources give none): the finding ranks lower.
    pub chosen: bool,
}

/// One number of the evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    pub label: Text,
    pub value: f64,
    /// "ms", "bytes", "%", "count", "gen", "ratio", "bytes/s".
    pub unit: Text,
}

/// What a finding is about, to look at in the views.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// The GCs (their numbers), in order: the GC table filtered to these shows them.
    pub gcs: Vec<u32>,
    /// From the first of them to the last (pause start to end), ms from the trace start.
    pub range_ms: Option<(f64, f64)>,
    /// Server GC heaps the finding names.
    pub heaps: Vec<u32>,
    /// Types the finding names (pinned types, ...).
    pub types: Vec<String>,
    pub figures: Vec<Figure>,
    /// One line per GC or group, with its numbers (at most [`MAX_LINES`], then a count).
    pub lines: Vec<String>,
    /// The top call stacks behind the finding (the induced GCs' callers, the LOH allocations',
    /// the pinned handles' creators), where the stacks were read ([`super::stacks`]); null
    /// otherwise. Always serialized: the page receives findings in postcard, which has no
    /// skipped fields.
    #[serde(default)]
    pub stacks: Option<StackEvidence>,
}

/// Stacks a finding lists at most, largest first ([`Evidence::stacks`]).
pub const TOP_STACKS: usize = 5;

/// One stack of the evidence: its frames' labels and its share.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceStack {
    /// Sampled bytes for allocations, the number of events otherwise.
    pub value: u64,
    /// Events on the stack.
    pub count: u64,
    /// Leaf first, as `stacks::view::Frame::label` writes them: `module!method`, or the address in hex where
    /// no method covers it. Empty where the runtime recorded a stack with no frame.
    pub frames: Vec<String>,
    /// Where the stack is known to start above the caller: "the runtime recorded no frames above
    /// X" (a pinned handle's stack: `GCHandle.Alloc`'s fast path pushes no frame).
    pub note: Option<String>,
}

/// The top stacks of one kind of event, for a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackEvidence {
    /// `gcscope stacks --event` of these stacks: `induced`, `alloc-loh` or `pinned-handles`.
    pub event: Text,
    /// `bytes` (sampled bytes, for allocations) or `count`.
    pub unit: Text,
    pub total_value: u64,
    /// Events of this kind in the trace (of the process).
    pub total_count: u64,
    /// Of the events: those that came without a stack (the runtime recorded none).
    pub no_stack: u64,
    /// Of the events: those whose stack id names no stack of the trace.
    pub missing_stack: u64,
    /// Distinct stacks among them, stacks whose frames have the same labels counted once.
    pub distinct: u64,
    /// The largest [`TOP_STACKS`] of them.
    pub top: Vec<EvidenceStack>,
    /// Distinct stacks in the whole trace: 0 where it holds none (an ETW trace, or a session
    /// that turned stacks off).
    pub trace_stacks: u64,
}

/// Evidence lines listed at most.
pub const MAX_LINES: usize = 12;

/// A setting or code change, and where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Advice {
    pub text: Text,
    pub source: Text,
}

/// One verdict on the trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The rule's id (`docs/reference/findings.md`).
    pub rule: Text,
    pub title: Text,
    /// The verdict with its numbers, one sentence.
    pub summary: String,
    pub severity: Severity,
    /// One of the three definitive signs (MD §Definitive signs of perf problems).
    pub definitive: bool,
    pub threshold: Threshold,
    pub evidence: Evidence,
    pub advice: Vec<Advice>,
    /// What may make this finding wrong: dropped events, missing events.
    pub caveats: Vec<String>,
}

/// What checking one rule came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Found,
    /// Checked: below the threshold.
    Clear,
    /// The trace lacks the events the rule needs.
    NotChecked,
}

/// One rule as checked on this trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub rule: Text,
    pub title: Text,
    pub outcome: Outcome,
    /// What was looked at, with its numbers ("longest suspension 0.13 ms, GC #7"), or why the
    /// rule could not be checked and how to capture what it needs.
    pub note: String,
}

/// Every finding on a trace, ranked, and every rule checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub settings: Settings,
    /// Most important first: severity, then the definitive signs, then thresholds from the
    /// sources before gcscope's own, then the rules' order.
    pub findings: Vec<Finding>,
    /// Every rule in the rules' order.
    pub checks: Vec<Check>,
    /// Events lost (the trace's own count: the runtime's dropped events in EventPipe, the ETW
    /// session's lost events), when it says.
    pub dropped_events: Option<u64>,
    /// One sentence: how many findings of each severity, or that nothing was found and how many
    /// rules were checked.
    pub verdict: String,
}
