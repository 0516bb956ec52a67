//! `loh-triggered-gen2`: gen2 GCs mostly triggered by large-object allocation.

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use crate::findings::rules::{LOH_GEN2_MIN, LOH_TRIGGERED_GEN2};
use crate::findings::stats::{figure, gc_list, group_by, mb, median, ms, pct, s};
use crate::findings::verdict::{evidence_of, found, Ctx, Verdict};
use crate::gc::Gc;

fn loh_reason(r: &str) -> bool {
    matches!(r, "AllocLarge" | "OutOfSpaceLOH")
}

pub fn check(c: &Ctx<'_>) -> Verdict {
    let gen2: Vec<&Gc> = c.complete().filter(|g| g.gen == 2).collect();
    let loh: Vec<&Gc> = gen2
        .iter()
        .copied()
        .filter(|g| loh_reason(&g.reason))
        .collect();
    // The most common other trigger of gen2 GCs.
    let others = group_by(gen2.iter().filter(|g| !loh_reason(&g.reason)), |g| {
        g.reason.as_ref()
    });
    let (top_other, top_count) = others
        .iter()
        .map(|(r, v)| (*r, v.len()))
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
        .unwrap_or(("none", 0));
    if gen2.is_empty() {
        return Verdict::Clear("no gen2 GC".into());
    }
    if loh.len() < LOH_GEN2_MIN || loh.len() <= top_count {
        return Verdict::Clear(format!(
            "{} of {} gen2 GCs triggered by LOH allocation (most common other trigger: {top_other}, {top_count})",
            loh.len(),
            gen2.len()
        ));
    }
    let survival = median(
        loh.iter()
            .filter_map(|g| g.generations.loh.survival_pct)
            .collect(),
    );
    let allocated = median(
        loh.iter()
            .filter_map(|g| g.loh_allocated_bytes.map(|b| b as f64))
            .collect(),
    );
    let paused: f64 = loh.iter().filter_map(|g| g.pause_ms).sum();
    let lines = crate::findings::verdict::lines(&loh, |g| {
        format!(
            "GC #{} ({} {}): LOH allocated since the previous GC {}, LOH survival {}, pause {}",
            g.number,
            g.reason,
            g.gc_type.name(),
            g.loh_allocated_bytes
                .map_or_else(|| "unknown".into(), |b| mb(b as f64)),
            g.generations
                .loh
                .survival_pct
                .map_or_else(|| "unknown".into(), pct),
            g.pause_ms.map_or_else(|| "unknown".into(), ms)
        )
    });
    let mut ev = evidence_of(&loh, lines);
    ev.figures = Vec::from([
        figure("LOH-triggered gen2 GCs", loh.len() as f64, "count"),
        figure("gen2 GCs", gen2.len() as f64, "count"),
        figure("their pause", paused, "ms"),
    ]);
    if let Some(v) = survival {
        ev.figures.push(figure("median LOH survival", v, "%"));
    }
    if let Some(v) = allocated {
        ev.figures
            .push(figure("median LOH allocated between them", v, "bytes"));
    }
    let summary = format!(
        "{} of {} gen2 GC{} were triggered by large-object allocation (next most common trigger: {top_other}, {top_count}){}: {}.",
        loh.len(),
        gen2.len(),
        s(gen2.len()),
        survival.map_or_else(Default::default, |v| format!(
            "; a median {} of the LOH survived them{}",
            pct(v),
            if v < 10.0 { " (most large objects were temporary)" } else { "" }
        )),
        gc_list(&ev.gcs, 6)
    );
    Verdict::Found(Box::new(found(&LOH_TRIGGERED_GEN2, c, summary, None, ev)))
}
