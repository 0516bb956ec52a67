//! The time range every view follows (dragged across a chart, or typed in the GC table's filters):
//! ms from the trace start, inclusive, open on either side.

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TimeRange {
    pub t0: Option<f64>,
    pub t1: Option<f64>,
}

impl TimeRange {
    /// Whether a range is selected (either side set).
    pub fn is_set(&self) -> bool {
        self.t0.is_some() || self.t1.is_some()
    }

    pub fn contains(&self, ms: f64) -> bool {
        self.t0.is_none_or(|t| ms >= t) && self.t1.is_none_or(|t| ms <= t)
    }
}
