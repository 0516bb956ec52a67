//! [`Chunks`]: a list that grows by fixed-size chunks instead of by doubling one buffer.
//!
//! The samples of a trace are kept for the whole life of the stacks view, millions of them (one
//! per allocation tick). A `Vec` that doubles holds its old buffer and the new one at once while
//! it grows, so its peak is up to three times its last size, and a WebAssembly instance keeps
//! the memory of its peak: it never gives pages back. Chunks of [`CHUNK`] elements grow by one
//! chunk at a time, so the peak is the size plus one chunk and the chunks' index.

use alloc::vec::Vec;

/// Elements per chunk: 64 Ki, 2.5 MiB of 40-byte samples.
pub const CHUNK: usize = 1 << 16;

/// A list of `T` in chunks of [`CHUNK`] elements: push and iterate, in push order.
#[derive(Debug, Clone)]
pub struct Chunks<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunks<T> {
    fn default() -> Self {
        Self {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunks<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, v: T) {
        match self.chunks.last_mut() {
            Some(c) if c.len() < CHUNK => c.push(v),
            _ => {
                let mut c = Vec::with_capacity(CHUNK);
                c.push(v);
                self.chunks.push(c);
            }
        }
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The element at `i`, in push order.
    pub fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i / CHUNK)?.get(i % CHUNK)
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + Clone {
        self.chunks.iter().flatten()
    }
}

/// Equal elements in the same order (push order fixes the chunks, so this is the chunks' equality).
impl<T: PartialEq> PartialEq for Chunks<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<'a, T> IntoIterator for &'a Chunks<T> {
    type Item = &'a T;
    type IntoIter = core::iter::Flatten<core::slice::Iter<'a, Vec<T>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.chunks.iter().flatten()
    }
}

impl<T> FromIterator<T> for Chunks<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut c = Self::new();
        for v in iter {
            c.push(v);
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_push_order_across_chunks() {
        let n = 2 * CHUNK + 7;
        let c: Chunks<usize> = (0..n).collect();
        assert_eq!(c.len(), n);
        assert!(c.iter().copied().eq(0..n));
        assert!((&c).into_iter().copied().eq(0..n));
        for i in [0, CHUNK - 1, CHUNK, 2 * CHUNK, n - 1] {
            assert_eq!(c.get(i), Some(&i));
        }
        assert_eq!(c.get(n), None);
        // Full chunks before the last, none of them grown past its size.
        assert_eq!(c.chunks.len(), 3);
        assert!(c.chunks.iter().all(|k| k.capacity() == CHUNK));
        assert!(Chunks::<u8>::new().is_empty());
    }
}
