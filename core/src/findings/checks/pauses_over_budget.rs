//! `pauses-over-budget`: GCs that paused longer than the pause budget (the latency goal's metric).

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use crate::findings::rules::PAUSES_OVER_BUDGET;
use crate::findings::stats::{figure, gc_list, kind, mb, ms, s};
use crate::findings::verdict::{evidence_of, found, Ctx, Verdict};
use crate::gc::{Gc, GcType};

pub fn check(c: &Ctx<'_>) -> Verdict {
    let budget = c.settings.pause_budget_ms;
    let timed: Vec<(&Gc, f64)> = c
        .complete()
        .filter_map(|g| g.pause_ms.map(|p| (g, p)))
        .collect();
    let Some(&(worst, longest)) = timed.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
        return Verdict::NotChecked(format!(
            "no complete GC with a measured pause: needs the {}",
            PAUSES_OVER_BUDGET.needs
        ));
    };
    let over: Vec<(&Gc, f64)> = timed.iter().copied().filter(|t| t.1 > budget).collect();
    let threshold = format!("a pause > {} (the pause budget)", ms(budget));
    if over.is_empty() {
        return Verdict::Clear(format!(
            "longest pause {} (GC #{}), within the {} budget",
            ms(longest),
            worst.number,
            ms(budget)
        ));
    }
    let count = |f: fn(&Gc) -> bool| over.iter().filter(|t| f(t.0)).count();
    let ephemeral = count(|g| g.gen < 2);
    let blocking2 = count(|g| g.gen == 2 && g.gc_type != GcType::Background);
    let background = count(|g| g.gen == 2 && g.gc_type == GcType::Background);
    let lines = crate::findings::verdict::lines(&over, |(g, p)| {
        format!(
            "GC #{} ({}, {}): pause {}{}",
            g.number,
            kind(g),
            g.reason,
            ms(*p),
            g.promoted_bytes
                .map_or_else(Default::default, |b| format!(", promoted {}", mb(b as f64)))
        )
    });
    let gcs: Vec<&Gc> = over.iter().map(|t| t.0).collect();
    let mut ev = evidence_of(&gcs, lines);
    ev.figures = Vec::from([
        figure("pauses over the budget", over.len() as f64, "count"),
        figure("longest pause", longest, "ms"),
        figure("pause budget", budget, "ms"),
        figure("ephemeral", ephemeral as f64, "count"),
        figure("blocking gen2", blocking2 as f64, "count"),
        figure("background gen2", background as f64, "count"),
    ]);
    let summary = format!(
        "{} GC{} paused longer than the {} budget (longest {} at GC #{}; {} ephemeral, {} blocking gen2, {} background): {}.",
        over.len(),
        s(over.len()),
        ms(budget),
        ms(longest),
        worst.number,
        ephemeral,
        blocking2,
        background,
        gc_list(&ev.gcs, 6)
    );
    Verdict::Found(Box::new(found(
        &PAUSES_OVER_BUDGET,
        c,
        summary,
        Some(threshold),
        ev,
    )))
}
