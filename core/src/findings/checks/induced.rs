//! `induced`: GCs the program asked for, by kind (GC.Collect in its flavours, memory pressure,
//! low-memory notifications).

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::findings::rules::{INDUCED, INDUCED_MIN};
use crate::findings::stats::{figure, gc_list, group_by, ms, pct, s};
use crate::findings::verdict::{evidence_of, found, Ctx, Verdict};
use crate::gc::{Gc, GcType};

/// What a reason means the program did.
fn how(reason: &str) -> &'static str {
    match reason {
        "Induced" => "GC.Collect",
        "InducedNotForced" => "GC.Collect(Optimized) or GC.AddMemoryPressure",
        "InducedLowMemory" => "a low-memory notification",
        "InducedCompacting" => "GC.Collect with compaction",
        "InducedAggressive" => "GC.Collect(Aggressive)",
        _ => "the program",
    }
}

pub fn check(c: &Ctx<'_>) -> Verdict {
    // Every induced GC the trace started, complete or not (a GC.Collect cut off by the trace's end
    // was still asked for).
    let induced: Vec<&Gc> = c.gcs.iter().filter(|g| g.induced).collect();
    if induced.len() < INDUCED_MIN {
        return Verdict::Clear(format!("no induced GC among {} GCs", c.gcs.len()));
    }
    let by_reason = group_by(induced.iter().copied(), |g| g.reason.as_ref());
    let all_pause: f64 = c.complete().filter_map(|g| g.pause_ms).sum();
    let paused: f64 = induced.iter().filter_map(|g| g.pause_ms).sum();
    let blocking = induced
        .iter()
        .filter(|g| g.gc_type != GcType::Background)
        .count();
    let mut lines: Vec<String> = by_reason
        .iter()
        .map(|(reason, gcs)| {
            let mut per_gen = [0usize; 3];
            for g in gcs {
                per_gen[usize::from(g.gen.min(2))] += 1;
            }
            let nums: Vec<u32> = gcs.iter().map(|g| g.number).collect();
            format!(
                "{reason} ({}): {} GC{} (gen0 {}, gen1 {}, gen2 {}; {} background): {}",
                how(reason),
                gcs.len(),
                s(gcs.len()),
                per_gen[0],
                per_gen[1],
                per_gen[2],
                gcs.iter()
                    .filter(|g| g.gc_type == GcType::Background)
                    .count(),
                gc_list(&nums, 10)
            )
        })
        .collect();
    lines.extend(crate::findings::verdict::lines(&induced, |g| {
        format!(
            "GC #{}: {}, gen{} {}, pause {}",
            g.number,
            g.reason,
            g.gen,
            g.gc_type.name(),
            g.pause_ms.map_or_else(|| "unknown".into(), ms)
        )
    }));
    let mut ev = evidence_of(&induced, lines);
    ev.figures = Vec::from([
        figure("induced GCs", induced.len() as f64, "count"),
        figure("blocking", blocking as f64, "count"),
        figure("their pause", paused, "ms"),
        figure(
            "share of all pause",
            100.0 * paused / all_pause.max(f64::MIN_POSITIVE),
            "%",
        ),
    ]);
    let kinds: Vec<String> = by_reason
        .iter()
        .map(|(r, g)| format!("{} {r}", g.len()))
        .collect();
    let summary = format!(
        "The program asked for {} GC{} ({}), {} of them blocking, pausing {} ({} of all GC pause).",
        induced.len(),
        s(induced.len()),
        kinds.join(", "),
        blocking,
        ms(paused),
        pct(100.0 * paused / all_pause.max(f64::MIN_POSITIVE))
    );
    Verdict::Found(Box::new(found(&INDUCED, c, summary, None, ev)))
}
