//! Chart geometry without the DOM: points are decimated to one value per pixel column so a trace of
//! any length draws as at most `width` segments per series.

/// Chart width in SVG user units (the SVG scales to its box); one column per unit.
pub const WIDTH: usize = 1000;
pub const HEIGHT: f64 = 160.0;

/// Maps times to columns of a chart spanning `t0..=t1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axis {
    pub t0: f64,
    pub t1: f64,
}

impl Axis {
    pub fn new(t0: f64, t1: f64) -> Axis {
        Axis {
            t0,
            t1: if t1 > t0 { t1 } else { t0 + 1.0 },
        }
    }
    pub fn x(&self, t: f64) -> f64 {
        (t - self.t0) / (self.t1 - self.t0) * WIDTH as f64
    }
    pub fn col(&self, t: f64) -> usize {
        (self.x(t).floor().max(0.0) as usize).min(WIDTH - 1)
    }
    /// Time at a fraction (0..1) of the chart's width.
    pub fn at(&self, frac: f64) -> f64 {
        self.t0 + frac.clamp(0.0, 1.0) * (self.t1 - self.t0)
    }
}

/// Per pixel column: the largest value and the index of the point that had it.
pub type Columns = Vec<Option<(f64, usize)>>;

/// The largest value per column (with the index of the point that had it).
pub fn max_per_column(axis: &Axis, points: impl Iterator<Item = (f64, f64, usize)>) -> Columns {
    let mut cols: Columns = vec![None; WIDTH];
    for (t, v, i) in points {
        let c = axis.col(t);
        if cols[c].is_none_or(|(m, _)| v > m) {
            cols[c] = Some((v, i));
        }
    }
    cols
}

/// Vertical bars (one per non-empty column) scaled to `max`: an SVG path.
pub fn bars_path(cols: &[Option<(f64, usize)>], max: f64) -> String {
    let mut d = String::new();
    for (x, c) in cols.iter().enumerate() {
        if let Some((v, _)) = c {
            let h = (v / max).clamp(0.0, 1.0) * (HEIGHT - 2.0);
            d.push_str(&format!("M{}.5 {HEIGHT}V{:.1}", x, HEIGHT - h.max(1.0)));
        }
    }
    d
}

/// A line through (t, value) points, decimated per pixel column to the first value, the range
/// (min and max) and the last value, so the line leaves each column where its data ends.
pub fn line_path(axis: &Axis, points: &[(f64, f64)], max: f64) -> String {
    let mut d = String::new();
    let y = |v: f64| HEIGHT - (v / max).clamp(0.0, 1.0) * (HEIGHT - 2.0);
    // (column, first, min, max, last)
    let mut col: Option<(usize, f64, f64, f64, f64)> = None;
    let flush = |d: &mut String, c: (usize, f64, f64, f64, f64)| {
        let cmd = if d.is_empty() { 'M' } else { 'L' };
        d.push_str(&format!("{cmd}{} {:.1}", c.0, y(c.1)));
        if c.2 != c.3 {
            d.push_str(&format!("L{} {:.1}L{} {:.1}", c.0, y(c.2), c.0, y(c.3)));
        }
        if c.4 != c.3 || (c.2 == c.3 && c.4 != c.1) {
            d.push_str(&format!("L{} {:.1}", c.0, y(c.4)));
        }
    };
    for &(t, v) in points {
        let c = axis.col(t);
        col = match col {
            Some((cc, f, lo, hi, _)) if cc == c => Some((cc, f, lo.min(v), hi.max(v), v)),
            Some(prev) => {
                flush(&mut d, prev);
                Some((c, v, v, v, v))
            }
            None => Some((c, v, v, v, v)),
        };
    }
    if let Some(c) = col {
        flush(&mut d, c);
    }
    d
}

/// A round upper bound for an axis (1, 2 or 5 times a power of ten).
pub fn nice_max(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if v <= m * p {
            return m * p;
        }
    }
    10.0 * p
}

/// A logarithmic axis from `lo` to `hi` (both > 0) across the chart's width: window sizes of the
/// MMU curve and pause lengths of the CDF span several decades.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogAxis {
    pub lo: f64,
    pub hi: f64,
}

impl LogAxis {
    /// An axis over the positive `values` (1 to 10 when there are none), widened to whole
    /// decades so that its ticks fall at its ends.
    pub fn over(values: impl Iterator<Item = f64>) -> LogAxis {
        let (lo, hi) = values
            .filter(|v| *v > 0.0 && v.is_finite())
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            });
        if hi <= 0.0 {
            return LogAxis { lo: 1.0, hi: 10.0 };
        }
        let lo = 10f64.powf(lo.log10().floor());
        let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
        LogAxis { lo, hi }
    }

    /// The x of `v` (values at or below `lo` at 0).
    pub fn x(&self, v: f64) -> f64 {
        if v <= self.lo {
            return 0.0;
        }
        ((v / self.lo).log10() / (self.hi / self.lo).log10()).min(1.0) * WIDTH as f64
    }

    /// The decades from `lo` to `hi`, with their place (0 to 1) across the width.
    pub fn decades(&self) -> Vec<(f64, f64)> {
        let n = (self.hi / self.lo).log10().round() as i32;
        (0..=n)
            .map(|i| {
                let v = self.lo * 10f64.powi(i);
                (v, self.x(v) / WIDTH as f64)
            })
            .collect()
    }
}

/// A line through (x, y) points on a log x axis, y from 0 to `ymax`: an SVG path (the points are
/// few: a curve's window sizes, a CDF's ranks).
pub fn log_line_path(axis: &LogAxis, points: &[(f64, f64)], ymax: f64) -> String {
    let mut d = String::new();
    for &(x, y) in points {
        let cmd = if d.is_empty() { 'M' } else { 'L' };
        let h = HEIGHT - (y / ymax).clamp(0.0, 1.0) * (HEIGHT - 2.0);
        d.push_str(&format!("{cmd}{:.1} {h:.1}", axis.x(x)));
    }
    d
}

/// Bars of several series over the same buckets, side by side in each bucket's slot (buckets
/// equally wide): one SVG path of rectangles per series, heights scaled to `max`.
pub fn grouped_bars(series: &[Vec<f64>], max: f64) -> Vec<String> {
    let buckets = series.iter().map(Vec::len).max().unwrap_or(0);
    if buckets == 0 {
        return vec![String::new(); series.len()];
    }
    let slot = WIDTH as f64 / buckets as f64;
    let bar = slot * 0.8 / series.len().max(1) as f64;
    series
        .iter()
        .enumerate()
        .map(|(k, values)| {
            let mut d = String::new();
            for (i, v) in values.iter().enumerate() {
                if *v <= 0.0 {
                    continue;
                }
                let h = ((v / max).clamp(0.0, 1.0) * (HEIGHT - 2.0)).max(1.0);
                let x = i as f64 * slot + slot * 0.1 + k as f64 * bar;
                d.push_str(&format!(
                    "M{x:.1} {HEIGHT}V{:.1}H{:.1}V{HEIGHT}Z",
                    HEIGHT - h,
                    x + bar
                ));
            }
            d
        })
        .collect()
}

/// One frame's box in a flame graph: its node, its row (0: the root's), and where it spans as
/// fractions (0..1) of the root's width.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlameBox {
    pub node: u32,
    pub depth: u32,
    pub x: f64,
    pub w: f64,
}

/// Lays out a tree as a flame graph from `root`: each node as wide as its inclusive value's share
/// of the root's, its children side by side under it in their order, from its left edge. Boxes
/// narrower than `min_w` (a fraction of the width) are left out, and their subtrees with them.
pub fn flame_layout(
    root: u32,
    inclusive: &dyn Fn(u32) -> u64,
    children: &dyn Fn(u32) -> Vec<u32>,
    min_w: f64,
) -> Vec<FlameBox> {
    let total = inclusive(root).max(1) as f64;
    let mut out = Vec::new();
    let mut stack = vec![FlameBox {
        node: root,
        depth: 0,
        x: 0.0,
        w: inclusive(root) as f64 / total,
    }];
    while let Some(b) = stack.pop() {
        if b.w < min_w {
            continue;
        }
        out.push(b);
        let mut x = b.x;
        let mut kids = Vec::new();
        for c in children(b.node) {
            let w = inclusive(c) as f64 / total;
            kids.push(FlameBox {
                node: c,
                depth: b.depth + 1,
                x,
                w,
            });
            x += w;
        }
        // Popped in order: the first child next.
        stack.extend(kids.into_iter().rev());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimation_keeps_the_largest_point_of_each_column() {
        let axis = Axis::new(0.0, 1000.0);
        // 100,000 points over 1,000 columns.
        let pts = (0..100_000).map(|i| (i as f64 / 100.0, (i % 7) as f64, i));
        let cols = max_per_column(&axis, pts);
        assert_eq!(cols.len(), WIDTH);
        assert!(cols.iter().all(|c| c.is_some_and(|(v, _)| v == 6.0)));
        let path = bars_path(&cols, 6.0);
        assert_eq!(path.matches('M').count(), WIDTH);
    }

    #[test]
    fn axis_maps_both_ways() {
        let a = Axis::new(100.0, 300.0);
        assert_eq!(a.col(100.0), 0);
        assert_eq!(a.col(300.0), WIDTH - 1);
        assert_eq!(a.at(0.5), 200.0);
        assert_eq!(nice_max(3.2), 5.0);
        assert_eq!(nice_max(120.0), 200.0);
    }

    #[test]
    fn line_has_at_most_four_vertices_per_column() {
        let a = Axis::new(0.0, 10.0);
        let pts: Vec<(f64, f64)> = (0..10_000)
            .map(|i| (i as f64 / 1000.0, (i % 3) as f64))
            .collect();
        let d = line_path(&a, &pts, 2.0);
        assert!(d.matches(['M', 'L']).count() <= 4 * WIDTH);
        assert!(d.starts_with('M'));
    }

    #[test]
    fn line_leaves_a_column_at_its_last_value() {
        // A fall to 0 and, much later, a small rise: the line must run along 0 in between, not
        // slope down from the column's maximum.
        let a = Axis::new(0.0, 1000.0);
        let pts = [
            (10.0, 50.0),
            (10.2, 100.0),
            (10.4, 0.0),
            (900.0, 0.0),
            (900.0, 1.0),
        ];
        let d = line_path(&a, &pts, 100.0);
        // Column 10: first 50, range 0..100, last 0; column 900: first 0, range 0..1, last 1.
        assert_eq!(
            d,
            "M10 81.0L10 160.0L10 2.0L10 160.0L900 160.0L900 160.0L900 158.4"
        );
    }

    #[test]
    fn a_log_axis_spans_whole_decades_and_places_them_evenly() {
        let a = LogAxis::over([1.0, 3.0, 250.0].into_iter());
        assert_eq!((a.lo, a.hi), (1.0, 1000.0));
        let d = a.decades();
        assert_eq!(
            d.iter().map(|p| p.0).collect::<Vec<_>>(),
            [1.0, 10.0, 100.0, 1000.0]
        );
        for (i, (_, at)) in d.iter().enumerate() {
            assert!((at - i as f64 / 3.0).abs() < 1e-12);
        }
        assert_eq!(a.x(0.5), 0.0);
        assert_eq!(a.x(1e6), WIDTH as f64);
        // Nothing to show: one decade.
        assert_eq!(
            LogAxis::over([0.0, -1.0].into_iter()),
            LogAxis { lo: 1.0, hi: 10.0 }
        );
        // One value: the decade around it.
        assert_eq!(
            LogAxis::over([0.03].into_iter()),
            LogAxis { lo: 0.01, hi: 0.1 }
        );
    }

    #[test]
    fn grouped_bars_put_each_series_in_its_own_part_of_a_bucket() {
        let paths = grouped_bars(&[vec![1.0, 0.0, 2.0], vec![2.0, 2.0, 0.0]], 2.0);
        // A bar per non-empty bucket: 2 for A, 2 for B.
        assert_eq!(paths[0].matches('M').count(), 2);
        assert_eq!(paths[1].matches('M').count(), 2);
        // Bucket 0 of 3 (slot 333.3): A's bar starts at 10% of the slot, B's right after it.
        assert!(
            paths[0].starts_with("M33.3 160V81.0H166.7V160Z"),
            "{}",
            paths[0]
        );
        assert!(
            paths[1].starts_with("M166.7 160V2.0H300.0V160Z"),
            "{}",
            paths[1]
        );
    }

    #[test]
    fn a_flame_graph_spans_each_node_by_its_share_under_its_parent() {
        // root(100) -> a(60) -> a1(45), a2(15); b(40) -> b1(1)
        let inc = [100u64, 60, 45, 15, 40, 1];
        let kids: [&[u32]; 6] = [&[1, 4], &[2, 3], &[], &[], &[5], &[]];
        let boxes = flame_layout(
            0,
            &|n| inc[n as usize],
            &|n| kids[n as usize].to_vec(),
            0.02,
        );
        let got: Vec<(u32, u32, f64, f64)> = boxes
            .iter()
            .map(|b| {
                (
                    b.node,
                    b.depth,
                    (b.x * 100.0).round(),
                    (b.w * 100.0).round(),
                )
            })
            .collect();
        // b1 (1%) is narrower than 2%: left out.
        assert_eq!(
            got,
            [
                (0, 0, 0.0, 100.0),
                (1, 1, 0.0, 60.0),
                (2, 2, 0.0, 45.0),
                (3, 2, 45.0, 15.0),
                (4, 1, 60.0, 40.0),
            ]
        );
        // Zoomed on a: a is the whole width.
        let zoomed = flame_layout(1, &|n| inc[n as usize], &|n| kids[n as usize].to_vec(), 0.0);
        assert_eq!((zoomed[0].x, zoomed[0].w), (0.0, 1.0));
        assert_eq!((zoomed[2].x, zoomed[2].w), (0.75, 0.25));
    }
}
