//! `pause-time`: % of the time the program was paused in GC (the throughput goal's metric).

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use crate::findings::rules::{PAUSE_PCT, PAUSE_TIME};
use crate::findings::stats::{figure, ms, pct};
use crate::findings::types::Evidence;
use crate::findings::verdict::{capped, found, Ctx, Verdict};
use crate::gc::GcType;

pub fn check(c: &Ctx<'_>) -> Verdict {
    let Some(all) = c.model.rollup.first() else {
        return Verdict::NotChecked("no GCs".into());
    };
    // Over the GC span (first GC's pause start to the last GC's end, PerfView's figure): MD judges
    // % paused while the program is busy, and the span leaves out the trace before the first GC
    // and after the last; the share of the whole trace is in the evidence.
    let Some(p) = all.gc_span_pause_pct else {
        return Verdict::NotChecked(format!(
            "no complete GC with a measured pause: needs the {}",
            PAUSE_TIME.needs
        ));
    };
    let span = c.model.process.gc_span_ms;
    if all.count < 2 {
        // One GC's pause over its own span is ~100%: a share of time needs time between GCs.
        return Verdict::NotChecked(format!(
            "{} complete GC: % of time paused needs at least 2",
            all.count
        ));
    }
    if p <= PAUSE_PCT {
        return Verdict::Clear(format!(
            "{} of {} paused over {} GCs",
            pct(p),
            ms(span),
            all.count
        ));
    }
    // Where the pause went, by kind of GC.
    type Keep = fn(&crate::gc::Gc) -> bool;
    let kinds: [(&str, Keep); 4] = [
        ("gen0", |g| g.gen == 0),
        ("gen1", |g| g.gen == 1),
        ("blocking gen2", |g| {
            g.gen == 2 && g.gc_type != GcType::Background
        }),
        ("background gen2", |g| {
            g.gen == 2 && g.gc_type == GcType::Background
        }),
    ];
    let total = all.total_pause_ms.max(f64::MIN_POSITIVE);
    let mut lines = Vec::new();
    for (name, keep) in kinds {
        let (n, paused) = c
            .complete()
            .filter(|g| keep(g))
            .fold((0usize, 0.0), |(n, t), g| {
                (n + 1, t + g.pause_ms.unwrap_or(0.0))
            });
        if n > 0 {
            lines.push(format!(
                "{name}: {n} GCs, {} paused ({} of the pause)",
                ms(paused),
                pct(100.0 * paused / total)
            ));
        }
    }
    let per_s = if span > 0.0 {
        all.count as f64 * 1000.0 / span
    } else {
        0.0
    };
    let gcs: Vec<&crate::gc::Gc> = c.complete().collect();
    let ev = Evidence {
        gcs: Vec::new(),
        range_ms: match (
            gcs.first(),
            gcs.iter().filter_map(|g| g.end_ms).reduce(f64::max),
        ) {
            (Some(f), Some(l)) => Some((f.start_ms, l)),
            _ => None,
        },
        figures: Vec::from([
            figure("% of time paused", p, "%"),
            figure(
                "% of the whole trace paused",
                all.pause_time_pct.unwrap_or(0.0),
                "%",
            ),
            figure("total pause", all.total_pause_ms, "ms"),
            figure("span", span, "ms"),
            figure("GCs per second", per_s, "count"),
        ]),
        lines: capped(lines),
        ..Evidence::default()
    };
    let summary = format!(
        "The program was paused {} of the time from its first GC to its last ({} over {}, {} GCs, {:.1} per second), above the {} a well-behaved program stays under.",
        pct(p),
        ms(all.total_pause_ms),
        ms(span),
        all.count,
        per_s,
        pct(PAUSE_PCT)
    );
    Verdict::Found(Box::new(found(&PAUSE_TIME, c, summary, None, ev)))
}
