//! The GC rows as they stream in: the page keeps them in one vector, reserved for the whole trace
//! from how far the worker has read.

use gcscope_core::gc::Gc;

/// How many GCs (or anything spread through the file) the whole trace will hold, from `have` seen
/// after reading `read` of `total` bytes, 10% over so one reservation usually suffices; `have`
/// before anything was read or at the end.
pub fn expected_total(have: usize, read: f64, total: f64) -> usize {
    if read > 0.0 && total > read {
        ((have as f64 * total / read * 1.1) as usize).max(have)
    } else {
        have
    }
}

/// Appends a batch of rows. Reserves for the whole trace from how far the worker has read
/// (`read` of `total` bytes): growing by doubling would copy every row again and again and leave
/// the wasm heap at twice the size. At most 4x at a time: GCs bunched at the start must not
/// reserve gigabytes.
pub fn append_batch(rows: &mut Vec<Gc>, batch: Vec<Gc>, read: f64, total: f64) {
    let need = rows.len() + batch.len();
    if need > rows.capacity() {
        let expected = expected_total(need, read, total).min(need * 4);
        rows.reserve_exact(expected.max(need) - rows.len());
    }
    rows.extend(batch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::gc;

    #[test]
    fn expected_total_scales_by_the_fraction_read() {
        // 100 GCs in the first quarter: 400 in all, 10% over.
        assert_eq!(expected_total(100, 25.0, 100.0), 440);
        // Nothing read yet, or the whole file read: what there is.
        assert_eq!(expected_total(7, 0.0, 100.0), 7);
        assert_eq!(expected_total(7, 100.0, 100.0), 7);
    }

    #[test]
    fn a_batch_reserves_for_the_rest_of_the_trace_at_most_4x() {
        let batch = |from: u32, n: u32| (from..from + n).map(gc).collect::<Vec<_>>();
        // 100 rows after a quarter of the file: room for 400 (440 expected, capped at 4x).
        let mut rows = Vec::new();
        append_batch(&mut rows, batch(1, 100), 25.0, 100.0);
        assert_eq!((rows.len(), rows.capacity()), (100, 400));
        // Within what was reserved: nothing moves.
        let at = rows.as_ptr();
        append_batch(&mut rows, batch(101, 300), 50.0, 100.0);
        assert_eq!((rows.len(), rows.capacity(), rows.as_ptr()), (400, 400, at));
        // Beyond it, at the end of the file: exactly what there is.
        append_batch(&mut rows, batch(401, 10), 100.0, 100.0);
        assert_eq!((rows.len(), rows.capacity()), (410, 410));
        let numbers: Vec<u32> = rows.iter().map(|g| g.number).collect();
        assert_eq!(numbers, (1..=410).collect::<Vec<_>>());
    }
}
