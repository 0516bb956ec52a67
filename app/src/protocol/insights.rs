//! The insights as they travel: the worker sends core's [`InsightInputs`] (the records collected
//! from the events, bounded: allocation ticks only as per-type time bins, memory pressure thinned
//! here) and never holds the rows for them; the page finishes them with its rows the first time a
//! view needs them (`state::insights::finish`) into [`TraceInsights`], capping what grows with the
//! trace rather than with the GC count, with the dropped counts kept so the views can say so.

use gcscope_core::gc::insights::{InsightInputs, Insights, PressurePoint};
use serde::{Deserialize, Serialize};

/// Memory-pressure points shipped at most (decimated to the min and max per column beyond this).
pub const MAX_PRESSURE_POINTS: usize = 4000;
/// Suspensions not for a GC shipped at most (the first ones).
pub const MAX_NOT_FOR_GC: usize = 10_000;

/// What the worker sends for the insights.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShippedInputs {
    pub inputs: InsightInputs,
    /// Memory-pressure points left out by decimation.
    pub pressure_points_dropped: u64,
}

/// The worker's side: the builder's records, memory pressure decimated to [`MAX_PRESSURE_POINTS`].
pub fn inputs(mut inputs: InsightInputs) -> ShippedInputs {
    let p = &mut inputs.memory_pressure_mut().over_time;
    let before = p.len();
    *p = decimate(std::mem::take(p), MAX_PRESSURE_POINTS);
    let pressure_points_dropped = (before - p.len()) as u64;
    ShippedInputs {
        inputs,
        pressure_points_dropped,
    }
}

/// What the views get for one trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceInsights {
    /// Core's insights (built with `InsightsBuilder::bounded`: no per-tick samples), memory
    /// pressure decimated and suspensions not for a GC capped.
    pub insights: Insights,
    /// Memory-pressure points left out by decimation (0: every point is there).
    pub pressure_points_dropped: u64,
    /// Suspensions not for a GC left out beyond [`MAX_NOT_FOR_GC`].
    pub not_for_gc_dropped: u64,
}

pub fn bounded(mut ins: Insights) -> TraceInsights {
    // Per-tick records are never shipped (the bins hold the same sums).
    ins.allocations.samples = Vec::new();
    let p = &mut ins.memory_pressure.over_time;
    let before = p.len();
    *p = decimate(std::mem::take(p), MAX_PRESSURE_POINTS);
    let pressure_points_dropped = (before - p.len()) as u64;
    // One heap (workstation GC): its per-heap budgets repeat the GC's totals and the view shows
    // none, so they stay home (one record per GC less, in the message and in the page).
    for b in &mut ins.budgets {
        if b.heaps.len() == 1 {
            b.heaps = Vec::new();
        }
    }
    let s = &mut ins.suspensions.not_for_gc;
    let not_for_gc_dropped = s.len().saturating_sub(MAX_NOT_FOR_GC) as u64;
    s.truncate(MAX_NOT_FOR_GC);
    TraceInsights {
        insights: ins,
        pressure_points_dropped,
        not_for_gc_dropped,
    }
}

/// At most about `max` points: beyond it, per column of time, the first point, the lowest and
/// the highest net, and the last (so the chart's shape and the peak survive).
pub fn decimate(points: Vec<PressurePoint>, max: usize) -> Vec<PressurePoint> {
    if points.len() <= max || max < 8 {
        return points;
    }
    let cols = max / 4;
    let (t0, t1) = (points[0].ms, points[points.len() - 1].ms);
    let span = (t1 - t0).max(f64::MIN_POSITIVE);
    let col = |ms: f64| (((ms - t0) / span * cols as f64) as usize).min(cols - 1);
    let mut keep = vec![false; points.len()];
    let mut i = 0;
    while i < points.len() {
        let c = col(points[i].ms);
        let mut j = i;
        let (mut lo, mut hi) = (i, i);
        while j < points.len() && col(points[j].ms) == c {
            if points[j].net_bytes < points[lo].net_bytes {
                lo = j;
            }
            if points[j].net_bytes > points[hi].net_bytes {
                hi = j;
            }
            j += 1;
        }
        for k in [i, lo, hi, j - 1] {
            keep[k] = true;
        }
        i = j;
    }
    points
        .into_iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_core::gc::insights::analyze_with_insights;

    #[test]
    fn bounded_caps_lists_and_keeps_the_peak() {
        let mut ins = Insights::default();
        ins.memory_pressure.over_time = (0..100_000)
            .map(|i| PressurePoint {
                ms: i as f64,
                delta_bytes: 1,
                net_bytes: if i == 31_337 { 1 << 40 } else { i },
            })
            .collect();
        let t = bounded(ins);
        let p = &t.insights.memory_pressure.over_time;
        assert!(p.len() <= MAX_PRESSURE_POINTS);
        assert_eq!(t.pressure_points_dropped, 100_000 - p.len() as u64);
        // The peak, the first and the last points survive.
        assert!(p.iter().any(|x| x.net_bytes == 1 << 40));
        assert_eq!((p[0].ms, p[p.len() - 1].ms), (0.0, 99_999.0));
        // Few points pass untouched.
        let few: Vec<PressurePoint> = t.insights.memory_pressure.over_time[..10].to_vec();
        assert_eq!(decimate(few.clone(), MAX_PRESSURE_POINTS), few);
    }

    /// Per-heap budgets go only for GCs with one heap (they repeat the totals there).
    #[test]
    fn single_heap_budgets_leave_their_heap_rows_behind() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/traces/net8.0/server.nettrace"
        ))
        .unwrap();
        let (_, mut ins) = analyze_with_insights(&bytes).unwrap();
        assert!(
            ins.budgets.iter().all(|b| b.heaps.len() == 2),
            "server: 2 heaps"
        );
        let server = bounded(ins.clone());
        assert_eq!(server.insights.budgets, ins.budgets);
        for b in &mut ins.budgets {
            b.heaps.truncate(1);
        }
        let one = bounded(ins);
        assert!(one.insights.budgets.iter().all(|b| b.heaps.is_empty()));
        assert_eq!(one.insights.budgets.len(), server.insights.budgets.len());
    }
}
