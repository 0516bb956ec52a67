//! The sort buffer's key sort: a least-significant-digit radix sort of packed (timestamp, index)
//! keys (a few linear passes; half the instructions of a comparison sort on a region's keys).

use alloc::vec::Vec;

/// Sorts `keys` ascending: least-significant-digit radix sort, 11 bits a pass over the bits the
/// largest key uses (passes where every key has the same digit are skipped), `tmp` as scratch.
/// Small inputs go to the comparison sort, for which the 2048 counters would cost more.
///
/// The bits below `from` are not sorted on: the caller guarantees they already ascend in the
/// slice's order (the event's index, packed below its timestamp), so the stable passes over the
/// bits above them leave equal-timestamp keys in that order, as a sort of the whole keys would.
/// (The index is 15-20 bits of a region's keys: skipping it saves one or two of three or four
/// passes.)
pub(super) fn radix_sort(keys: &mut Vec<u64>, tmp: &mut Vec<u64>, from: u32) {
    const BITS: u32 = 11;
    const BUCKETS: usize = 1 << BITS;
    let n = keys.len();
    if n < 1024 {
        keys.sort_unstable();
        return;
    }
    let used = 64 - keys.iter().fold(0, |m, &k| m | k).leading_zeros();
    tmp.clear();
    tmp.resize(n, 0);
    let mut count = [0usize; BUCKETS];
    let mut shift = from;
    while shift < used {
        count.fill(0);
        for &k in keys.iter() {
            count[(k >> shift) as usize & (BUCKETS - 1)] += 1;
        }
        if !count.contains(&n) {
            let mut sum = 0;
            for c in count.iter_mut() {
                let here = *c;
                *c = sum;
                sum += here;
            }
            for &k in keys.iter() {
                let d = (k >> shift) as usize & (BUCKETS - 1);
                tmp[count[d]] = k;
                count[d] += 1;
            }
            core::mem::swap(keys, tmp);
        }
        shift += BITS;
    }
}

/// Sorting buffered records by timestamp, ties in index (file) order: the indices in that order,
/// and the scratch the sort reuses. For the buffer's events and its lane's ticks alike.
#[derive(Debug, Default)]
pub(super) struct TimeOrder {
    /// The indices, sorted (after [`sort`](Self::sort)).
    pub order: Vec<u32>,
    keys: Vec<u64>,
    keys_tmp: Vec<u64>,
    pairs: Vec<(i64, u32)>,
}

impl TimeOrder {
    /// [`sort`](Self::sort) of the records with a timestamp at most `upto`, given every record's
    /// timestamp in file order (their indices).
    pub fn sort_upto<I>(&mut self, timestamps: I, upto: i64)
    where
        I: ExactSizeIterator<Item = i64> + Clone,
    {
        let n = timestamps.len();
        let kept = timestamps
            .enumerate()
            .filter(move |&(_, t)| t <= upto)
            .map(|(i, t)| (i as u32, t));
        self.sort(kept, n);
    }

    /// `order` = the indices `stamps` gives (index, timestamp), which come in ascending index order
    /// and are below `n`, sorted by timestamp, ties in index order. Packed into one `u64` key
    /// (timestamp - min, index) where it fits, sorted by radix (a few linear passes, half the
    /// instructions of a comparison sort on a region's events); else by comparison.
    pub fn sort(&mut self, stamps: impl Iterator<Item = (u32, i64)> + Clone, n: usize) {
        self.order.clear();
        let Some((min, max)) = stamps
            .clone()
            .map(|(_, t)| (t, t))
            .reduce(|(a, b), (t, _)| (a.min(t), b.max(t)))
        else {
            return;
        };
        let idx_bits = usize::BITS - n.leading_zeros();
        let span = (max as i128 - min as i128) as u128;
        if idx_bits < 64 && span < (1u128 << (64 - idx_bits)) {
            self.keys.clear();
            self.keys.extend(
                stamps.map(|(i, t)| ((t.wrapping_sub(min) as u64) << idx_bits) | u64::from(i)),
            );
            // The keys are made in index order: the index bits need no pass.
            radix_sort(&mut self.keys, &mut self.keys_tmp, idx_bits);
            let mask = (1u64 << idx_bits) - 1;
            self.order
                .extend(self.keys.iter().map(|&k| (k & mask) as u32));
        } else {
            self.pairs.clear();
            self.pairs.extend(stamps.map(|(i, t)| (t, i)));
            self.pairs.sort_unstable();
            self.order.extend(self.pairs.iter().map(|&(_, i)| i));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_sort_sorts() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut tmp = Vec::new();
        for (n, bits) in [
            (0, 8),
            (5, 8),
            (1023, 20),
            (1024, 20),
            (5000, 33),
            (40_000, 64),
            (3000, 1),
        ] {
            let keys: Vec<u64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if bits == 64 {
                        x
                    } else {
                        x & ((1u64 << bits) - 1)
                    }
                })
                .collect();
            let mut want = keys.clone();
            want.sort_unstable();
            let mut got = keys.clone();
            radix_sort(&mut got, &mut tmp, 0);
            assert_eq!(got, want, "n {n}, bits {bits}");
            // As the sort buffer makes them: the index below the value, not sorted on.
            if bits < 48 {
                let idx = usize::BITS - (n as usize).leading_zeros();
                let mut packed: Vec<u64> = keys
                    .iter()
                    .enumerate()
                    .map(|(i, k)| (k >> 8) << idx | i as u64)
                    .collect();
                let mut want = packed.clone();
                want.sort_unstable();
                radix_sort(&mut packed, &mut tmp, idx);
                assert_eq!(packed, want, "n {n}, bits {bits}, index below");
            }
        }
        // Runs of ordered keys, as the regions have (one run per capture thread).
        let mut runs: Vec<u64> = (0..3000u64)
            .map(|i| ((i % 3) * 1_000 + i / 3) << 12 | i)
            .collect();
        let mut want = runs.clone();
        want.sort_unstable();
        radix_sort(&mut runs, &mut tmp, 12);
        assert_eq!(runs, want);
    }

    #[test]
    fn time_order_is_a_stable_sort_by_timestamp() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut time = TimeOrder::default();
        for (n, span) in [
            (0usize, 10u64),
            (7, 3),
            (3000, 50),
            (5000, u64::MAX),
            (40_000, 1 << 40),
        ] {
            let stamps: Vec<i64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if span == u64::MAX {
                        x as i64
                    } else {
                        (x % span) as i64 - 20
                    }
                })
                .collect();
            // Every other one left out, as a partial flush leaves the later events.
            let keep = |i: usize| i % 3 != 1;
            let given = stamps
                .iter()
                .enumerate()
                .filter(|&(i, _)| keep(i))
                .map(|(i, &t)| (i as u32, t));
            time.sort(given, n);
            let mut want: Vec<(i64, u32)> = stamps
                .iter()
                .enumerate()
                .filter(|&(i, _)| keep(i))
                .map(|(i, &t)| (t, i as u32))
                .collect();
            want.sort_unstable();
            let want: Vec<u32> = want.into_iter().map(|(_, i)| i).collect();
            assert_eq!(time.order, want, "n {n}, span {span}");
        }
    }
}
