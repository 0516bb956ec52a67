//! The GC table's Caller column: each GC's trigger caller (the first frame of its GCTriggered
//! stack above the runtime's own, core's `stacks::caller::caller`), as the stacks worker answered
//! for every GC at once (`protocol::stacks::Callers`), looked up by GC number for the cells, the
//! sort and the text filter.

use std::collections::HashMap;
use std::sync::Arc;

use gcscope_core::gc::Gc;

use crate::protocol::stacks::{CallerOf, Callers};

/// The column's id (in `?cols=` and the sort's `?sort=`).
pub const CALLER: &str = "caller";

/// The column's definition (its header's tooltip).
pub const HELP: &str = "Who started the GC: the first frame of its GCTriggered stack above the \
runtime's own (System.Private.CoreLib, coreclr and their native stubs): for an induced GC the \
method that called GC.Collect, for an allocation the method that allocated. Click it to open \
the Stacks tab on that stack.";

/// A GC's Caller cell: its text, its tooltip, and where the Stacks tab opens on it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallerCell {
    /// The caller frame's label (`module!method`, `module+0x..` or the address), or empty.
    pub text: String,
    /// Why the cell is empty, or the frame's whole label and why it stayed unnamed.
    pub title: String,
    /// The stack's leaf frame and its GCTriggered's time: the Stacks tab opens there.
    pub open: Option<(String, f64)>,
}

/// The worker's answer by GC number (`None`: not read yet).
#[derive(Debug, Clone, Default)]
pub struct CallerIndex {
    callers: Option<Arc<Callers>>,
    by_gc: HashMap<u32, CallerOf>,
}

/// The same answer (one answer's index is built once, so comparing the answers is enough).
impl PartialEq for CallerIndex {
    fn eq(&self, other: &Self) -> bool {
        match (&self.callers, &other.callers) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl CallerIndex {
    pub fn new(callers: Option<Arc<Callers>>) -> CallerIndex {
        let by_gc = callers
            .as_ref()
            .map(|c| c.gcs.iter().copied().collect())
            .unwrap_or_default();
        CallerIndex { callers, by_gc }
    }

    /// Whether the answer has come.
    pub fn is_read(&self) -> bool {
        self.callers.is_some()
    }

    /// GC `gc`'s caller label (None: it has none, or the answer has not come).
    pub fn label(&self, gc: u32) -> Option<&str> {
        let c = self.callers.as_ref()?;
        match self.by_gc.get(&gc)? {
            CallerOf::Frame { caller, .. } => c.labels.get(*caller as usize).map(String::as_str),
            _ => None,
        }
    }

    /// Whether an induced GC of `gcs` has a caller: then the column is shown by default.
    pub fn any_induced(&self, gcs: &[Gc]) -> bool {
        gcs.iter()
            .any(|g| g.induced && self.label(g.number).is_some())
    }

    /// GC `gc`'s cell.
    pub fn cell(&self, gc: u32) -> CallerCell {
        let empty = |title: &str| CallerCell {
            text: String::new(),
            title: title.to_string(),
            open: None,
        };
        let Some(c) = &self.callers else {
            return empty("Reading the call stacks…");
        };
        if let Some(e) = &c.error {
            if c.trace_stacks == 0 {
                return empty(&format!("The call stacks could not be read: {e}"));
            }
        }
        if c.trace_stacks == 0 {
            return empty(
                "The trace has no call stacks (an ETW trace's are not read yet; an EventPipe \
                 session can turn them off): docs/guide/stacks.md.",
            );
        }
        match self.by_gc.get(&gc) {
            None => empty("This GC was not asked about (it came after the call stacks were read)."),
            Some(CallerOf::NoTrigger) => empty(
                "No GCTriggered event between the previous GC's start and this one's (the GC \
                 keyword at Informational level writes it).",
            ),
            Some(CallerOf::NoStack) => {
                empty("The runtime recorded no stack with this GC's GCTriggered event.")
            }
            Some(&CallerOf::Frame {
                caller,
                leaf,
                reason,
                at_ms,
            }) => {
                let label = |i: u32| c.labels.get(i as usize).cloned().unwrap_or_default();
                let text = label(caller);
                let why = reason
                    .and_then(|r| c.reasons.get(r as usize))
                    .map(|r| format!("\nShown as an address: {r}."))
                    .unwrap_or_default();
                let title = format!("{text}{why}\nClick: the Stacks tab on this GC's trigger.");
                CallerCell {
                    text,
                    title,
                    open: Some((label(leaf), at_ms)),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::gc;

    fn answer() -> Callers {
        Callers {
            trace_stacks: 3,
            labels: vec![
                "Workloads!Rt.CallGC()".into(),
                "System.Private.CoreLib!System.GC.Collect()".into(),
                "0x42".into(),
            ],
            reasons: vec!["the trace has no rundown".into()],
            gcs: vec![
                (
                    1,
                    CallerOf::Frame {
                        caller: 0,
                        leaf: 1,
                        reason: None,
                        at_ms: 10.5,
                    },
                ),
                (2, CallerOf::NoTrigger),
                (3, CallerOf::NoStack),
                (
                    4,
                    CallerOf::Frame {
                        caller: 2,
                        leaf: 2,
                        reason: Some(0),
                        at_ms: 20.0,
                    },
                ),
            ],
            error: None,
        }
    }

    #[test]
    fn cells_name_the_caller_or_say_why_not() {
        let ix = CallerIndex::new(Some(Arc::new(answer())));
        let c = ix.cell(1);
        assert_eq!(c.text, "Workloads!Rt.CallGC()");
        assert_eq!(
            c.open,
            Some(("System.Private.CoreLib!System.GC.Collect()".into(), 10.5))
        );
        assert!(ix.cell(2).text.is_empty() && ix.cell(2).title.contains("No GCTriggered"));
        assert!(ix.cell(3).title.contains("no stack"));
        assert!(ix.cell(3).open.is_none());
        assert!(
            ix.cell(4).title.contains("no rundown"),
            "{}",
            ix.cell(4).title
        );
        assert!(ix.cell(9).title.contains("not asked"));
        assert_eq!(ix.label(4), Some("0x42"));
        assert_eq!(ix.label(2), None);
        // Before the answer, and for a trace without stacks.
        assert!(CallerIndex::default().cell(1).title.contains("Reading"));
        let none = CallerIndex::new(Some(Arc::new(Callers::default())));
        assert!(none.cell(1).title.contains("no call stacks"));
    }

    #[test]
    fn shown_by_default_when_an_induced_gc_has_a_caller() {
        let ix = CallerIndex::new(Some(Arc::new(answer())));
        let mut gcs: Vec<Gc> = (1..=4).map(gc).collect();
        assert!(!ix.any_induced(&gcs), "no induced GC");
        gcs[1].induced = true;
        assert!(!ix.any_induced(&gcs), "the induced GC has no trigger");
        gcs[0].induced = true;
        assert!(ix.any_induced(&gcs));
        assert!(!CallerIndex::default().any_induced(&gcs));
    }
}
