//! The builder's rows, addressed by their position in the whole trace even after the oldest have
//! been handed out and dropped (see `ModelBuilder::drain_completed`): a browser worker that sends
//! each settled row away as it goes need not hold every row of a 2 GB trace until the end.

use alloc::vec::Vec;
use core::ops::{Index, IndexMut};

/// Rows `base..base + items.len()` of the trace; the ones before `base` are gone.
#[derive(Debug, Clone)]
pub(crate) struct Rows<T> {
    base: usize,
    items: Vec<T>,
}

impl<T> Default for Rows<T> {
    fn default() -> Self {
        Rows {
            base: 0,
            items: Vec::new(),
        }
    }
}

impl<T> Rows<T> {
    /// Rows ever pushed (the next row's index).
    pub fn len(&self) -> usize {
        self.base + self.items.len()
    }
    /// The first row still held.
    pub fn base(&self) -> usize {
        self.base
    }
    pub fn push(&mut self, row: T) {
        self.items.push(row);
    }
    pub fn get(&self, i: usize) -> Option<&T> {
        self.items.get(i.checked_sub(self.base)?)
    }
    pub fn last(&self) -> Option<&T> {
        self.items.last()
    }
    /// The held rows among `from..to` (rows before `base` are gone and left out).
    pub fn window(&self, from: usize, to: usize) -> &[T] {
        let lo = from.max(self.base) - self.base;
        let hi = to.min(self.len()).saturating_sub(self.base);
        self.items.get(lo..hi.max(lo)).unwrap_or(&[])
    }
    /// The held rows from `from` on.
    pub fn from(&self, from: usize) -> &[T] {
        self.window(from, self.len())
    }
    /// The held rows, oldest first.
    pub fn held(&self) -> &[T] {
        &self.items
    }
    /// Index of the last held row matching `f`.
    pub fn rposition(&self, f: impl FnMut(&T) -> bool) -> Option<usize> {
        self.items.iter().rposition(f).map(|p| p + self.base)
    }
    pub fn reserve_exact(&mut self, more: usize) {
        self.items.reserve_exact(more);
    }
    pub fn capacity(&self) -> usize {
        self.base + self.items.capacity()
    }
    /// Drops the rows before `to`, oldest first, passing each to `gone`.
    pub fn drop_before(&mut self, to: usize, mut gone: impl FnMut(T)) {
        let n = to.saturating_sub(self.base).min(self.items.len());
        for row in self.items.drain(..n) {
            gone(row);
        }
        self.base += n;
    }
    /// Takes every held row, leaving none (the count of rows ever pushed is kept).
    pub fn take_held(&mut self) -> Vec<T> {
        let items = core::mem::take(&mut self.items);
        self.base += items.len();
        items
    }
}

/// Row `i` of the trace. The builder only indexes rows it still holds: everything it points at
/// (the GC in progress, the last few for look-backs) is newer than what it drops.
impl<T> Index<usize> for Rows<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.items[i - self.base]
    }
}

impl<T> IndexMut<usize> for Rows<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.items[i - self.base]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_survive_dropping_the_oldest() {
        let mut r = Rows::default();
        for i in 0..10 {
            r.push(i * 10);
        }
        let mut gone = Vec::new();
        r.drop_before(4, |x| gone.push(x));
        assert_eq!(gone, [0, 10, 20, 30]);
        assert_eq!((r.base(), r.len()), (4, 10));
        assert_eq!((r[4], r[9]), (40, 90));
        assert_eq!(r.get(3), None);
        assert_eq!(r.window(2, 6), &[40, 50]);
        assert_eq!(r.window(8, 20), &[80, 90]);
        assert_eq!(r.window(6, 5), &[] as &[i32]);
        assert_eq!(r.rposition(|&x| x == 50), Some(5));
        r.drop_before(100, |_| {});
        assert_eq!((r.base(), r.len(), r.held().len()), (10, 10, 0));
    }
}
