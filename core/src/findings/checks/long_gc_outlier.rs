//! `long-gc-outlier`: a blocking GC that worked far longer than GCs of its generation that promoted
//! about the same bytes: the GC did not get the CPU (MD's "random long GC pauses").

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use crate::findings::rules::{
    LONG_GC_OUTLIER, OUTLIER_FACTOR, OUTLIER_MIN_MS, OUTLIER_MIN_PEERS, OUTLIER_PROMOTED_FACTOR,
};
use crate::findings::stats::{figure, gc_list, kind, mb, median, ms, s};
use crate::findings::verdict::{evidence_of, found, Ctx, Verdict};
use crate::gc::{Gc, GcType};

/// A blocking GC's work and promoted bytes, when both are known.
fn work(g: &Gc) -> Option<(f64, u64)> {
    let blocking = matches!(g.gc_type, GcType::NonConcurrent | GcType::Foreground);
    if !blocking || !g.complete {
        return None;
    }
    Some((g.duration_ms?, g.promoted_bytes?))
}

/// Whether `b` promoted within [`OUTLIER_PROMOTED_FACTOR`] of `a` (both ways).
fn about_the_same(a: u64, b: u64) -> bool {
    let (a, b) = (a as f64, b as f64);
    b <= a * OUTLIER_PROMOTED_FACTOR && a <= b * OUTLIER_PROMOTED_FACTOR
}

pub fn check(c: &Ctx<'_>) -> Verdict {
    let timed: Vec<(&Gc, f64, u64)> = c
        .gcs
        .iter()
        .filter_map(|g| work(g).map(|(d, p)| (g, d, p)))
        .collect();
    if timed.is_empty() {
        return Verdict::NotChecked(format!(
            "no blocking GC with both its duration (GCStart/GCEnd) and promoted bytes (GCHeapStats): needs the {}",
            LONG_GC_OUTLIER.needs
        ));
    }
    // (the GC, its work, its peers' median work, how many peers)
    let mut outliers: Vec<(&Gc, f64, f64, usize, u64)> = Vec::new();
    let mut compared = 0usize;
    for &(g, d, p) in &timed {
        let peers: Vec<f64> = timed
            .iter()
            .filter(|(o, _, op)| o.number != g.number && o.gen == g.gen && about_the_same(p, *op))
            .map(|t| t.1)
            .collect();
        if peers.len() < OUTLIER_MIN_PEERS {
            continue;
        }
        compared += 1;
        let n = peers.len();
        let Some(m) = median(peers) else { continue };
        if d >= OUTLIER_MIN_MS && d >= OUTLIER_FACTOR * m {
            outliers.push((g, d, m, n, p));
        }
    }
    if outliers.is_empty() {
        let longest = timed.iter().map(|t| t.1).fold(0.0, f64::max);
        return Verdict::Clear(format!(
            "{compared} of {} blocking GCs had at least {OUTLIER_MIN_PEERS} peers; none worked {OUTLIER_FACTOR}x their median and {} or more (longest GC work {})",
            timed.len(),
            ms(OUTLIER_MIN_MS),
            ms(longest)
        ));
    }
    let lines = outliers
        .iter()
        .map(|(g, d, m, n, p)| {
            format!(
                "GC #{} ({}): {} of GC work for {} promoted; {} gen{} GCs that promoted about as much took a median {} ({:.0}x)",
                g.number,
                kind(g),
                ms(*d),
                mb(*p as f64),
                n,
                g.gen,
                ms(*m),
                d / m.max(f64::MIN_POSITIVE)
            )
        })
        .collect();
    let gcs: Vec<&Gc> = outliers.iter().map(|o| o.0).collect();
    let mut ev = evidence_of(&gcs, lines);
    let worst = outliers.iter().max_by(|a, b| {
        (a.1 / a.2.max(f64::MIN_POSITIVE)).total_cmp(&(b.1 / b.2.max(f64::MIN_POSITIVE)))
    });
    if let Some((g, d, m, _, _)) = worst {
        ev.figures = Vec::from([
            figure("outlier GCs", outliers.len() as f64, "count"),
            figure("worst GC work", *d, "ms"),
            figure("its peers' median", *m, "ms"),
        ]);
        let summary = format!(
            "{} blocking GC{} worked {}x or more longer than GCs of the same generation that promoted about as much (GC #{}: {} against a median {}): {}.",
            outliers.len(),
            s(outliers.len()),
            OUTLIER_FACTOR,
            g.number,
            ms(*d),
            ms(*m),
            gc_list(&ev.gcs, 6)
        );
        return Verdict::Found(Box::new(found(&LONG_GC_OUTLIER, c, summary, None, ev)));
    }
    Verdict::Clear("no outlier".into())
}
