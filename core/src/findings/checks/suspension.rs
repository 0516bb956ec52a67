//! `suspension`: a GC whose threads took tens of ms to suspend (MD's first definitive sign).

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use crate::findings::rules::{SUSPEND_MS, SUSPENSION};
use crate::findings::stats::{figure, gc_list, kind, median, ms, s};
use crate::findings::verdict::{evidence_of, found, Ctx, Verdict};
use crate::gc::Gc;

pub fn check(c: &Ctx<'_>) -> Verdict {
    let timed: Vec<(&Gc, f64)> = c
        .complete()
        .filter_map(|g| g.suspend_ms.map(|x| (g, x)))
        .collect();
    if timed.is_empty() {
        return Verdict::NotChecked(format!(
            "no GC with a measured suspension (SuspendEEBegin/End): needs the {}",
            SUSPENSION.needs
        ));
    }
    let typical = median(timed.iter().map(|t| t.1).collect()).unwrap_or(0.0);
    let Some(&(worst, longest)) = timed.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
        return Verdict::NotChecked("no suspension".into());
    };
    let long: Vec<(&Gc, f64)> = timed
        .iter()
        .copied()
        .filter(|t| t.1 >= SUSPEND_MS)
        .collect();
    if long.is_empty() {
        return Verdict::Clear(format!(
            "longest suspension {} (GC #{}), median {} over {} GCs",
            ms(longest),
            worst.number,
            ms(typical),
            timed.len()
        ));
    }
    let total: f64 = long.iter().map(|t| t.1).sum();
    let paused: f64 = long.iter().filter_map(|t| t.0.pause_ms).sum();
    let lines = crate::findings::verdict::lines(&long, |(g, x)| {
        format!(
            "GC #{} ({}): suspension {} of a {} pause",
            g.number,
            kind(g),
            ms(*x),
            g.pause_ms.map_or_else(|| "unknown".into(), ms)
        )
    });
    let gcs: Vec<&Gc> = long.iter().map(|t| t.0).collect();
    let mut ev = evidence_of(&gcs, lines);
    ev.figures = Vec::from([
        figure("GCs suspending >= 10 ms", long.len() as f64, "count"),
        figure("longest suspension", longest, "ms"),
        figure("median suspension (all GCs)", typical, "ms"),
        figure(
            "their suspension / their pause",
            100.0 * total / paused.max(f64::MIN_POSITIVE),
            "%",
        ),
    ]);
    let summary = format!(
        "{} GC{} took {} or more to suspend the threads (longest {} at GC #{}), where the median GC took {}: {}.",
        long.len(),
        s(long.len()),
        ms(SUSPEND_MS),
        ms(longest),
        worst.number,
        ms(typical),
        gc_list(&ev.gcs, 6)
    );
    Verdict::Found(Box::new(found(&SUSPENSION, c, summary, None, ev)))
}
