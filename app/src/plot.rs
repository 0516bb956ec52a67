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
}
