//! `finalization`: finalizable objects the GCs kept alive for their finalizers.

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use crate::findings::rules::{FINALIZATION, FINALIZATION_PCT};
use crate::findings::stats::{figure, gc_list, mb, pct};
use crate::findings::verdict::{evidence_of, found, Ctx, Verdict};
use crate::gc::Gc;

pub fn check(c: &Ctx<'_>) -> Verdict {
    let with: Vec<(&Gc, u64, u64)> = c
        .complete()
        .filter_map(|g| Some((g, g.finalization_promoted_bytes?, g.promoted_bytes?)))
        .collect();
    if with.is_empty() {
        return Verdict::NotChecked(format!(
            "no GC reported finalizable survivors: needs {}",
            FINALIZATION.needs
        ));
    }
    let fin: u64 = with.iter().map(|t| t.1).sum();
    let promoted: u64 = with.iter().map(|t| t.2).sum();
    let share = 100.0 * fin as f64 / (promoted as f64).max(1.0);
    let objects: u64 = with
        .iter()
        .filter_map(|t| t.0.finalization_promoted_count)
        .sum();
    if share < FINALIZATION_PCT || fin == 0 {
        return Verdict::Clear(format!(
            "finalizable survivors {} of {} promoted ({})",
            mb(fin as f64),
            mb(promoted as f64),
            pct(share)
        ));
    }
    let mut top: Vec<&(&Gc, u64, u64)> = with.iter().filter(|t| t.1 > 0).collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.number.cmp(&b.0.number)));
    let lines = crate::findings::verdict::lines(&top, |(g, f, p)| {
        format!(
            "GC #{} (gen{}): {} finalizable of {} promoted",
            g.number,
            g.gen,
            mb(*f as f64),
            mb(*p as f64)
        )
    });
    let mut gcs: Vec<&Gc> = top.iter().map(|t| t.0).collect();
    gcs.sort_by_key(|g| g.number);
    let mut ev = evidence_of(&gcs, lines);
    ev.figures = Vec::from([
        figure("finalizable survivors", fin as f64, "bytes"),
        figure("promoted", promoted as f64, "bytes"),
        figure("share", share, "%"),
        figure("finalizable objects kept", objects as f64, "count"),
    ]);
    let summary = format!(
        "GCs kept {} of finalizable objects ({objects} objects) alive for their finalizers: {} of all promoted bytes ({}).",
        mb(fin as f64),
        pct(share),
        gc_list(&ev.gcs, 6)
    );
    Verdict::Found(Box::new(found(&FINALIZATION, c, summary, None, ev)))
}
