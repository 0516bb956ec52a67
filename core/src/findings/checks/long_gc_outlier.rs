//! `long-gc-outlier`: a blocking GC that worked far longer than GCs of its generation that promoted
//! about the same bytes: the GC did not get the CPU (MD's "random long GC pauses").
//!
//! Peers of a GC are the other blocking GCs of its generation whose promoted bytes lie within a
//! factor 2 of its own. Sorted by promoted bytes, each GC's peers are a window that only moves
//! forward, so their median work comes from a sliding median ([`SlidingMedian`]): O(n log n) for a
//! trace of 100,000 GCs rather than comparing every pair.

use alloc::boxed::Box;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::vec::Vec;

use crate::findings::rules::{
    LONG_GC_OUTLIER, OUTLIER_FACTOR, OUTLIER_MIN_MS, OUTLIER_MIN_PEERS, OUTLIER_PROMOTED_FACTOR,
};
use crate::findings::stats::{figure, gc_list, kind, mb, ms, s};
use crate::findings::verdict::{evidence_of, found, lines, Ctx, Verdict};
use crate::gc::{Gc, GcType};

/// A blocking GC's work and promoted bytes, when both are known.
fn work(g: &Gc) -> Option<(f64, u64)> {
    let blocking = matches!(g.gc_type, GcType::NonConcurrent | GcType::Foreground);
    if !blocking || !g.complete {
        return None;
    }
    Some((g.duration_ms?, g.promoted_bytes?))
}

/// A duration's total order as an integer (durations are finite and non-negative here), with the
/// GC's index to tell equal durations apart.
type Key = (u64, usize);

fn key(d: f64, i: usize) -> Key {
    (d.max(0.0).to_bits(), i)
}

/// The median of a set of values that grows at one end and shrinks at the other: the lower half
/// and the upper half, each ordered, the lower never smaller than the upper nor more than one
/// larger.
#[derive(Default)]
struct SlidingMedian {
    low: BTreeSet<Key>,
    high: BTreeSet<Key>,
}

impl SlidingMedian {
    fn len(&self) -> usize {
        self.low.len() + self.high.len()
    }

    fn rebalance(&mut self) {
        while self.low.len() > self.high.len() + 1 {
            if let Some(k) = self.low.pop_last() {
                self.high.insert(k);
            }
        }
        while self.high.len() > self.low.len() {
            if let Some(k) = self.high.pop_first() {
                self.low.insert(k);
            }
        }
    }

    fn insert(&mut self, k: Key) {
        match self.low.last() {
            Some(top) if k > *top => self.high.insert(k),
            _ => self.low.insert(k),
        };
        self.rebalance();
    }

    fn remove(&mut self, k: &Key) {
        if !self.low.remove(k) {
            self.high.remove(k);
        }
        self.rebalance();
    }

    fn median(&self) -> Option<f64> {
        let lo = f64::from_bits(self.low.last()?.0);
        if self.low.len() > self.high.len() {
            return Some(lo);
        }
        let hi = f64::from_bits(self.high.first()?.0);
        Some((lo + hi) / 2.0)
    }
}

/// (the GC, its work, its peers' median work, how many peers, its promoted bytes)
type Outlier<'a> = (&'a Gc, f64, f64, usize, u64);

/// The outliers among one generation's blocking GCs, `(gc, work, promoted)` each, and how many of
/// them had enough peers to be judged.
fn outliers_of<'a>(mut v: Vec<(&'a Gc, f64, u64)>, out: &mut Vec<Outlier<'a>>) -> usize {
    v.sort_by_key(|t| t.2);
    let (mut lo, mut hi) = (0usize, 0usize);
    let mut window = SlidingMedian::default();
    let mut judged = 0;
    for i in 0..v.len() {
        let p = v[i].2 as f64;
        // Peers promoted at least p / 2 ...
        while lo < v.len() && (v[lo].2 as f64) * OUTLIER_PROMOTED_FACTOR < p {
            if lo < hi {
                window.remove(&key(v[lo].1, lo));
            }
            lo += 1;
        }
        hi = hi.max(lo);
        // ... and at most 2 p.
        while hi < v.len() && (v[hi].2 as f64) <= p * OUTLIER_PROMOTED_FACTOR {
            window.insert(key(v[hi].1, hi));
            hi += 1;
        }
        let me = key(v[i].1, i);
        window.remove(&me);
        let peers = window.len();
        if peers >= OUTLIER_MIN_PEERS {
            judged += 1;
            if let Some(m) = window.median() {
                let d = v[i].1;
                if d >= OUTLIER_MIN_MS && d >= OUTLIER_FACTOR * m {
                    out.push((v[i].0, d, m, peers, v[i].2));
                }
            }
        }
        window.insert(me);
    }
    judged
}

pub fn check(c: &Ctx<'_>) -> Verdict {
    let mut by_gen: [Vec<(&Gc, f64, u64)>; 3] = Default::default();
    let mut blocking = 0usize;
    let mut longest = 0.0f64;
    for g in c.gcs {
        if let Some((d, p)) = work(g) {
            blocking += 1;
            longest = longest.max(d);
            by_gen[usize::from(g.gen.min(2))].push((g, d, p));
        }
    }
    if blocking == 0 {
        return Verdict::NotChecked(format!(
            "no blocking GC with both its duration (GCStart/GCEnd) and promoted bytes (GCHeapStats): needs the {}",
            LONG_GC_OUTLIER.needs
        ));
    }
    let mut outliers: Vec<Outlier<'_>> = Vec::new();
    let judged: usize = by_gen
        .into_iter()
        .map(|v| outliers_of(v, &mut outliers))
        .sum();
    if outliers.is_empty() {
        return Verdict::Clear(format!(
            "{judged} of {blocking} blocking GCs had at least {OUTLIER_MIN_PEERS} peers; none worked {OUTLIER_FACTOR}x their median and {} or more (longest GC work {})",
            ms(OUTLIER_MIN_MS),
            ms(longest)
        ));
    }
    outliers.sort_by_key(|o| o.0.number);
    let ratio = |o: &Outlier<'_>| o.1 / o.2.max(f64::MIN_POSITIVE);
    let lines = lines(&outliers, |(g, d, m, n, p)| {
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
    });
    let gcs: Vec<&Gc> = outliers.iter().map(|o| o.0).collect();
    let mut ev = evidence_of(&gcs, lines);
    let Some(worst) = outliers.iter().max_by(|a, b| ratio(a).total_cmp(&ratio(b))) else {
        return Verdict::Clear("no outlier".into());
    };
    let (g, d, m) = (worst.0, worst.1, worst.2);
    ev.figures = Vec::from([
        figure("outlier GCs", outliers.len() as f64, "count"),
        figure("worst GC work", d, "ms"),
        figure("its peers' median", m, "ms"),
    ]);
    let summary = format!(
        "{} blocking GC{} worked {}x or more longer than GCs of the same generation that promoted about as much (GC #{}: {} against a median {}): {}.",
        outliers.len(),
        s(outliers.len()),
        OUTLIER_FACTOR,
        g.number,
        ms(d),
        ms(m),
        gc_list(&ev.gcs, 6)
    );
    Verdict::Found(Box::new(found(&LONG_GC_OUTLIER, c, summary, None, ev)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sliding median against sorting the window every time (brute force).
    #[test]
    fn sliding_median_equals_the_sorted_windows_median() {
        let vals: Vec<f64> = (0..200u64)
            .map(|i| ((i * 7919) % 101) as f64 / 4.0)
            .collect();
        let mut m = SlidingMedian::default();
        let (mut lo, mut hi) = (0, 0);
        for step in 0..400usize {
            // Grow by 1-3, shrink by 0-2: a window moving forward, as the peers' window does.
            let grow = 1 + step % 3;
            for _ in 0..grow {
                if hi < vals.len() {
                    m.insert(key(vals[hi], hi));
                    hi += 1;
                }
            }
            for _ in 0..(step % 3) {
                if lo < hi {
                    m.remove(&key(vals[lo], lo));
                    lo += 1;
                }
            }
            let mut w: Vec<f64> = vals[lo..hi].to_vec();
            w.sort_by(f64::total_cmp);
            let want = if w.is_empty() {
                None
            } else if w.len() % 2 == 1 {
                Some(w[w.len() / 2])
            } else {
                Some((w[w.len() / 2 - 1] + w[w.len() / 2]) / 2.0)
            };
            assert_eq!(m.median(), want, "window {lo}..{hi}");
            assert_eq!(m.len(), hi - lo);
        }
    }
}
