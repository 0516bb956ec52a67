//! `server-heaps`: Server GC with a heap on every core (it assumes it owns the machine).

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use crate::findings::rules::SERVER_HEAPS;
use crate::findings::stats::figure;
use crate::findings::types::Evidence;
use crate::findings::verdict::{found, Ctx, Verdict};

pub fn check(c: &Ctx<'_>) -> Verdict {
    let p = &c.model.process;
    match p.gc_mode.as_deref() {
        Some("server") => {}
        Some(mode) => return Verdict::Clear(format!("{mode} GC")),
        None => {
            return Verdict::NotChecked(format!(
                "the trace does not say whether Server GC ran: needs {}",
                SERVER_HEAPS.needs
            ))
        }
    }
    if p.datas == Some(true) {
        return Verdict::Clear(
            "Server GC with DATAS: it sizes the heap count itself (see the datas rule)".into(),
        );
    }
    let (Some(heaps), cores) = (p.heap_count, p.processor_count) else {
        return Verdict::NotChecked(format!(
            "Server GC, heap count unknown: needs {}",
            SERVER_HEAPS.needs
        ));
    };
    if cores <= 1 || heaps < cores {
        return Verdict::Clear(format!(
            "Server GC with {heaps} heaps on {cores} processors"
        ));
    }
    let ev = Evidence {
        figures: Vec::from([
            figure("heaps", f64::from(heaps), "count"),
            figure("processors", f64::from(cores), "count"),
        ]),
        lines: Vec::from([
            "this rule reads one process: in a machine-wide (ETW) trace, the other processes are listed by gcscope (stderr) and each can be checked with --pid".into(),
        ]),
        ..Evidence::default()
    };
    let summary = format!(
        "Server GC ran {heaps} heaps on {cores} processors: one heap and one GC thread per core, as if the process owned the machine; if it shares it, fewer heaps and their own cores would leave room for the others."
    );
    Verdict::Found(Box::new(found(&SERVER_HEAPS, c, summary, None, ev)))
}
