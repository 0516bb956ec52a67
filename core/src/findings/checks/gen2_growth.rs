//! `gen2-growth`: what survives gen2 GCs grows from one to the next (a managed leak's signature).

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use crate::findings::rules::{GEN2_GROWTH, GROWTH_FACTOR, GROWTH_MIN_GEN2};
use crate::findings::stats::{figure, gc_list, mb};
use crate::findings::verdict::{evidence_of, found, Ctx, Verdict};
use crate::gc::Gc;

pub fn check(c: &Ctx<'_>) -> Verdict {
    let gen2: Vec<(&Gc, u64)> = c
        .complete()
        .filter(|g| g.gen == 2)
        .filter_map(|g| g.promoted_bytes.map(|p| (g, p)))
        .collect();
    if gen2.len() < GROWTH_MIN_GEN2 {
        return Verdict::Clear(format!(
            "{} gen2 GC{} with promoted bytes: too few to see a trend (needs {GROWTH_MIN_GEN2})",
            gen2.len(),
            crate::findings::stats::s(gen2.len())
        ));
    }
    let (first, last) = (gen2[0].1, gen2[gen2.len() - 1].1);
    let rising = gen2.windows(2).all(|w| w[1].1 >= w[0].1);
    let factor = last as f64 / (first as f64).max(1.0);
    if !rising || factor < GROWTH_FACTOR {
        return Verdict::Clear(format!(
            "gen2 survivors went from {} to {} over {} gen2 GCs ({}, x{:.2})",
            mb(first as f64),
            mb(last as f64),
            gen2.len(),
            if rising {
                "never falling"
            } else {
                "falling at times"
            },
            factor
        ));
    }
    let lines = crate::findings::verdict::lines(&gen2, |(g, p)| {
        format!(
            "GC #{} ({} ms): {} survived",
            g.number,
            g.start_ms as u64,
            mb(*p as f64)
        )
    });
    let gcs: Vec<&Gc> = gen2.iter().map(|t| t.0).collect();
    let mut ev = evidence_of(&gcs, lines);
    ev.figures = Vec::from([
        figure("gen2 GCs", gen2.len() as f64, "count"),
        figure("first survived", first as f64, "bytes"),
        figure("last survived", last as f64, "bytes"),
        figure("growth", factor, "ratio"),
    ]);
    let summary = format!(
        "What survived gen2 GCs grew from each one to the next over {} gen2 GCs, from {} to {} (x{:.1}): live data keeps growing, as a leak does ({}).",
        gen2.len(),
        mb(first as f64),
        mb(last as f64),
        factor,
        gc_list(&ev.gcs, 6)
    );
    Verdict::Found(Box::new(found(&GEN2_GROWTH, c, summary, None, ev)))
}
