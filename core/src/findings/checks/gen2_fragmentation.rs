//! `gen2-fragmentation`: gen2 badly fragmented when background GCs start (its free list is not
//! being used), with the GCConserveMemory value that would have made the GC compact.

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use crate::findings::rules::{BGC_ENTRY_FRAG_PCT, GEN2_FRAGMENTATION};
use crate::findings::stats::{figure, gc_list, mb, pct, s};
use crate::findings::types::Advice;
use crate::findings::verdict::{evidence_of, found, Ctx, Verdict};
use crate::gc::{Gc, GcType};

/// The smallest GCConserveMemory value (1-9) whose compaction threshold, (10 - value) x 10% gen2
/// fragmentation, lies below `frag_pct` (MD: want 20% -> 8; 70% <-> 3).
pub fn conserve_value_for(frag_pct: f64) -> u32 {
    // `as` truncates toward zero: the floor for the non-negative values that matter here
    // (no_std has no `f64::floor`); anything outside 1..=9 is clamped.
    let v = ((100.0 - frag_pct) / 10.0).clamp(0.0, 8.0) as u32 + 1;
    v.clamp(1, 9)
}

pub fn check(c: &Ctx<'_>) -> Verdict {
    // (the background GC, the GC just before it, gen2 fragmentation then)
    let mut entries: Vec<(&Gc, &Gc, f64)> = Vec::new();
    let mut bgcs = 0usize;
    for (i, b) in c.gcs.iter().enumerate() {
        if b.gc_type != GcType::Background {
            continue;
        }
        bgcs += 1;
        let before = crate::gc::insights::gc_ended_before(&c.gcs[..i], b.start_ms);
        let Some(p) = before.and_then(|j| c.gcs.get(j)) else {
            continue;
        };
        // A share over 100% is inconsistent data (sizes from different events): not evidence.
        if let Some(f) = p
            .generations
            .gen2
            .fragmentation_pct
            .filter(|f| (0.0..=100.0).contains(f))
        {
            entries.push((b, p, f));
        }
    }
    if entries.is_empty() {
        return Verdict::NotChecked(if bgcs == 0 {
            "no background GC in the trace".into()
        } else {
            format!(
                "no gen2 fragmentation before any of the {bgcs} background GCs: needs {}",
                GEN2_FRAGMENTATION.needs
            )
        });
    }
    let worst = entries.iter().map(|e| e.2).fold(0.0, f64::max);
    let high: Vec<&(&Gc, &Gc, f64)> = entries
        .iter()
        .filter(|e| e.2 >= BGC_ENTRY_FRAG_PCT)
        .collect();
    if high.is_empty() {
        return Verdict::Clear(format!(
            "highest gen2 fragmentation at a background GC's start {} ({} background GCs)",
            pct(worst),
            entries.len()
        ));
    }
    let lines = crate::findings::verdict::lines(&high, |(b, p, f)| {
        format!(
            "GC #{} (background) started with gen2 {} fragmented (after GC #{}: {} free of {})",
            b.number,
            pct(*f),
            p.number,
            mb(p.generations.gen2.fragmentation_bytes.unwrap_or(0) as f64),
            mb(p.generations.gen2.size_after_bytes.unwrap_or(0) as f64)
        )
    });
    let gcs: Vec<&Gc> = high.iter().map(|e| e.0).collect();
    let mut ev = evidence_of(&gcs, lines);
    let value = conserve_value_for(worst);
    ev.figures = Vec::from([
        figure(
            "background GCs starting fragmented",
            high.len() as f64,
            "count",
        ),
        figure("worst gen2 fragmentation at a start", worst, "%"),
        figure(
            "GCConserveMemory that would compact it",
            f64::from(value),
            "count",
        ),
    ]);
    let summary = format!(
        "{} of {} background GC{} started with gen2 {} or more fragmented (worst {}): the free list is not being used. GCConserveMemory={} makes the GC compact above {}% ({}).",
        high.len(),
        entries.len(),
        s(entries.len()),
        pct(BGC_ENTRY_FRAG_PCT),
        pct(worst),
        value,
        (10 - value) * 10,
        gc_list(&ev.gcs, 6)
    );
    let mut f = found(&GEN2_FRAGMENTATION, c, summary, None, ev);
    f.advice.insert(
        0,
        Advice {
            text: format!(
                "Set GCConserveMemory={value} (DOTNET_GCConserveMemory={value}, or System.GC.ConserveMemory in runtimeconfig.json): gen2 was {} fragmented at a background GC's start, and value {value} compacts above {}%.",
                pct(worst),
                (10 - value) * 10
            )
            .into(),
            source: "MD §High gen2 fragmentation ratio on entry of BGC; DOC-CFG §Conserve memory".into(),
        },
    );
    Verdict::Found(Box::new(f))
}

#[cfg(test)]
mod tests {
    use super::conserve_value_for;

    /// MD's own pairs: a 20% target is value 8, 70% is value 3; values stay in 1..=9.
    #[test]
    fn conserve_values_follow_the_documented_pairs() {
        assert_eq!(conserve_value_for(25.0), 8); // compacts above 20%
        assert_eq!(conserve_value_for(75.0), 3); // compacts above 70%
        assert_eq!(conserve_value_for(70.0), 4); // 70% itself needs the 60% threshold
        assert_eq!(conserve_value_for(99.0), 1);
        assert_eq!(conserve_value_for(5.0), 9);
    }
}
