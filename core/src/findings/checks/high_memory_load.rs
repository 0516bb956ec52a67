//! `high-memory-load`: GCs that ran with the machine's (or the container's, or the hard limit's)
//! memory nearly used up, by the memory load they saw, the heap against the hard limit, and the
//! GC's own statements.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::findings::rules::{HIGH_MEMORY_LOAD, HIGH_MEMORY_PCT};
use crate::findings::stats::{figure, gc_list, mb, pct, s};
use crate::findings::verdict::{evidence_of, found, Ctx, Verdict};
use crate::gc::Gc;

/// Condemn conditions by which the GC says memory is high or nearly out.
const GC_SAYS: &[&str] = &[
    "high_mem",
    "very_high_mem",
    "max_high_frag_m",
    "max_high_frag_vm",
    "almost_max_alloc",
    "before_oom",
    "joined_limit_before_oom",
    "joined_limit_loh_frag",
    "joined_limit_loh_reclaim",
];
/// Triggers by which it says so.
const TRIGGERS: &[&str] = &[
    "LowMemory",
    "LowMemoryHost",
    "LowMemoryHostBlocking",
    "OutOfSpaceSOH",
    "OutOfSpaceLOH",
];

/// Why a GC counts: its memory load, its heap's % of the hard limit, the GC's own words.
type Signals = (Option<u32>, Option<f64>, Vec<String>);

fn signals(g: &Gc, limit: Option<u64>) -> Signals {
    let load = g
        .memory_pressure_pct
        .filter(|&l| f64::from(l) >= HIGH_MEMORY_PCT);
    let of_limit = limit.filter(|&l| l > 0).and_then(|l| {
        let heap = g.peak_bytes.or(g.after_bytes)?;
        let p = 100.0 * heap as f64 / l as f64;
        (p >= HIGH_MEMORY_PCT).then_some(p)
    });
    let mut says: Vec<String> = g
        .condemn
        .iter()
        .flat_map(|c| c.conditions.iter())
        .filter(|x| GC_SAYS.contains(&x.as_ref()))
        .map(|x| String::from(x.as_ref()))
        .collect();
    if TRIGGERS.contains(&g.reason.as_ref()) {
        says.push(format!("trigger {}", g.reason));
    }
    (load, of_limit, says)
}

pub fn check(c: &Ctx<'_>) -> Verdict {
    let limit = c.model.process.hard_limit_bytes;
    let loads: Vec<u32> = c.complete().filter_map(|g| g.memory_pressure_pct).collect();
    let has_history = c.complete().any(|g| g.condemn.is_some());
    if loads.is_empty() && limit.is_none() && !has_history {
        return Verdict::NotChecked(format!(
            "no GC with a memory load or condemn reasons (GCGlobalHeapHistory / GCPerHeapHistory) and no hard limit: needs the {}",
            HIGH_MEMORY_LOAD.needs
        ));
    }
    let mut hits: Vec<(&Gc, Signals)> = Vec::new();
    for g in c.complete() {
        let sig = signals(g, limit);
        if sig.0.is_some() || sig.1.is_some() || !sig.2.is_empty() {
            hits.push((g, sig));
        }
    }
    let max_load = loads.iter().copied().max();
    let max_of_limit = limit.filter(|&l| l > 0).and_then(|l| {
        c.complete()
            .filter_map(|g| g.peak_bytes.or(g.after_bytes))
            .max()
            .map(|b| 100.0 * b as f64 / l as f64)
    });
    if hits.is_empty() {
        let mut note = format!(
            "highest memory load {}",
            max_load.map_or_else(|| "unknown".into(), |l| format!("{l}%"))
        );
        if let Some(p) = max_of_limit {
            note.push_str(&format!(", largest heap {} of the hard limit", pct(p)));
        }
        note.push_str("; no GC said memory was high");
        return Verdict::Clear(note);
    }
    let lines = crate::findings::verdict::lines(&hits, |(g, (load, of_limit, says))| {
        let mut why: Vec<String> = Vec::new();
        if let Some(l) = load {
            why.push(format!("memory load {l}%"));
        }
        if let (Some(p), Some(l)) = (of_limit, limit) {
            why.push(format!(
                "heap {} = {} of the {} hard limit",
                mb(g.peak_bytes.or(g.after_bytes).unwrap_or(0) as f64),
                pct(*p),
                mb(l as f64)
            ));
        }
        why.extend(says.iter().cloned());
        format!(
            "GC #{} (gen{} {}): {}",
            g.number,
            g.gen,
            g.gc_type.name(),
            why.join(", ")
        )
    });
    let gcs: Vec<&Gc> = hits.iter().map(|h| h.0).collect();
    let mut ev = evidence_of(&gcs, lines);
    let by_load = hits.iter().filter(|h| h.1 .0.is_some()).count();
    let by_limit = hits.iter().filter(|h| h.1 .1.is_some()).count();
    let by_gc = hits.iter().filter(|h| !h.1 .2.is_empty()).count();
    ev.figures = Vec::from([
        figure("GCs under high memory", hits.len() as f64, "count"),
        figure("memory load >= 90%", by_load as f64, "count"),
        figure("heap >= 90% of the hard limit", by_limit as f64, "count"),
        figure("the GC said so", by_gc as f64, "count"),
    ]);
    if let Some(l) = max_load {
        ev.figures
            .push(figure("highest memory load", f64::from(l), "%"));
    }
    if let Some(l) = limit {
        ev.figures.push(figure("hard limit", l as f64, "bytes"));
    }
    let mut parts: Vec<String> = Vec::new();
    if by_load > 0 {
        parts.push(format!(
            "{by_load} saw a memory load of {}% or more",
            HIGH_MEMORY_PCT
        ));
    }
    if by_limit > 0 {
        parts.push(format!(
            "{by_limit} ran with the heap at {}% or more of the {} hard limit",
            HIGH_MEMORY_PCT,
            mb(limit.unwrap_or(0) as f64)
        ));
    }
    if by_gc > 0 {
        parts.push(format!(
            "{by_gc} {} condemned or triggered because memory was high or nearly out",
            if by_gc == 1 { "was" } else { "were" }
        ));
    }
    let summary = format!(
        "{} GC{} ran under high memory: {} ({}).",
        hits.len(),
        s(hits.len()),
        parts.join("; "),
        gc_list(&ev.gcs, 6)
    );
    Verdict::Found(Box::new(found(&HIGH_MEMORY_LOAD, c, summary, None, ev)))
}
