//! `mostly-blocking-gen2`: most gen2 GCs are full blocking GCs (MD's third definitive sign), with
//! what made them block.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::findings::rules::{BLOCKING_GEN2_MIN, BLOCKING_GEN2_SHARE_PCT, MOSTLY_BLOCKING_GEN2};
use crate::findings::stats::{figure, gc_list, group_by, ms, pct};
use crate::findings::verdict::{evidence_of, found, Ctx, Verdict};
use crate::gc::{Gc, GcType};

/// Why a blocking gen2 GC blocked, from its trigger and condemn conditions (the first that
/// applies), grouped as PerfView's condemned-reason groups are.
fn cause(g: &Gc, background_off: bool) -> &'static str {
    let has = |names: &[&str]| {
        g.condemn
            .as_ref()
            .is_some_and(|c| c.conditions.iter().any(|x| names.contains(&x.as_ref())))
    };
    if g.induced {
        return "induced (the program asked for it)";
    }
    if background_off {
        return "background GC is off";
    }
    if has(&[
        "before_oom",
        "joined_limit_before_oom",
        "joined_limit_loh_frag",
        "joined_limit_loh_reclaim",
    ]) || matches!(g.reason.as_ref(), "OutOfSpaceSOH" | "OutOfSpaceLOH")
    {
        return "out of space / near the heap limit";
    }
    if has(&[
        "high_mem",
        "very_high_mem",
        "max_high_frag_m",
        "max_high_frag_vm",
        "almost_max_alloc",
    ]) || matches!(
        g.reason.as_ref(),
        "LowMemory" | "LowMemoryHost" | "LowMemoryHostBlocking"
    ) {
        return "high memory load";
    }
    if has(&["max_high_frag", "max_high_frag_e", "expand_fullgc"]) {
        return "gen2 fragmented";
    }
    if has(&[
        "joined_pm_induced_fullgc",
        "joined_pm_alloc_loh",
        "joined_gen1_in_pm",
    ]) {
        return "provisional mode";
    }
    if has(&["gen2_too_small"]) {
        return "gen2 too small for a background GC";
    }
    "other (see its condemn reasons)"
}

pub fn check(c: &Ctx<'_>) -> Verdict {
    let gen2: Vec<&Gc> = c
        .complete()
        .filter(|g| g.gen == 2 && g.gc_type != GcType::Unknown)
        .collect();
    let blocking: Vec<&Gc> = gen2
        .iter()
        .copied()
        .filter(|g| g.gc_type == GcType::NonConcurrent)
        .collect();
    let share = if gen2.is_empty() {
        0.0
    } else {
        100.0 * blocking.len() as f64 / gen2.len() as f64
    };
    if gen2.is_empty() {
        return Verdict::Clear("no gen2 GC".into());
    }
    if gen2.len() < BLOCKING_GEN2_MIN || share <= BLOCKING_GEN2_SHARE_PCT {
        return Verdict::Clear(format!(
            "{} of {} gen2 GCs blocking ({})",
            blocking.len(),
            gen2.len(),
            pct(share)
        ));
    }
    let background_off = c.model.process.concurrent == Some(false);
    let mut by_cause: Vec<(&'static str, Vec<u32>)> = group_by(
        blocking
            .iter()
            .map(|g| (cause(g, background_off), g.number)),
        |t| t.0,
    )
    .into_iter()
    .map(|(why, v)| (why, v.into_iter().map(|t| t.1).collect()))
    .collect();
    by_cause.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    let paused: f64 = blocking.iter().filter_map(|g| g.pause_ms).sum();
    let mut lines: Vec<String> = by_cause
        .iter()
        .map(|(why, n)| {
            format!(
                "{}: {} GC{} ({})",
                why,
                n.len(),
                crate::findings::stats::s(n.len()),
                gc_list(n, 8)
            )
        })
        .collect();
    lines.extend(crate::findings::verdict::lines(&blocking, |g| {
        let conds = g
            .condemn
            .as_ref()
            .map(|c| c.conditions.join(", "))
            .unwrap_or_default();
        format!(
            "GC #{}: trigger {}, pause {}{}{}",
            g.number,
            g.reason,
            g.pause_ms.map_or_else(|| "unknown".into(), ms),
            if conds.is_empty() {
                ""
            } else {
                ", condemned for "
            },
            conds
        )
    }));
    let mut ev = evidence_of(&blocking, lines);
    ev.figures = Vec::from([
        figure("blocking gen2 GCs", blocking.len() as f64, "count"),
        figure("gen2 GCs", gen2.len() as f64, "count"),
        figure("blocking share", share, "%"),
        figure("their pause", paused, "ms"),
    ]);
    let main = by_cause.first().map_or("", |c| c.0);
    let summary = format!(
        "{} of {} gen2 GCs ({}) were full blocking GCs, pausing {} in all; the most common cause: {}.",
        blocking.len(),
        gen2.len(),
        pct(share),
        ms(paused),
        main
    );
    let mut f = found(&MOSTLY_BLOCKING_GEN2, c, summary, None, ev);
    // Background GC may be off when the trace does not say and shows none (.NET Core 3.x traces
    // carry no GC settings); where it is on, that advice does not fit.
    let no_background = !c.gcs.iter().any(|g| g.gc_type == GcType::Background);
    let maybe_off = background_off || (c.model.process.concurrent.is_none() && no_background);
    if !maybe_off {
        f.advice
            .retain(|a| !a.text.starts_with("With background GC off"));
    } else if !background_off {
        f.caveats.push(
            "No background GC in the trace, and it does not say whether background GC is on (GCSettingsRundown): it may be off.".into(),
        );
    }
    Verdict::Found(Box::new(f))
}
