//! Small numeric and formatting helpers the rules share (no_std: no float formatting crate).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::types::Figure;
use crate::gc::Gc;

/// The median of `v` (the mean of the middle two for an even count); `None` when empty.
pub fn median(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Milliseconds as the findings write them: 2 decimals under 10 ms, 1 under 1,000, else none.
pub fn ms(v: f64) -> String {
    if v.abs() < 10.0 {
        format!("{v:.2} ms")
    } else if v.abs() < 1000.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.0} ms")
    }
}

/// Bytes as MB (10^6), 1 decimal (2 under 10 MB).
pub fn mb(bytes: f64) -> String {
    let m = bytes / 1_000_000.0;
    if m.abs() < 10.0 {
        format!("{m:.2} MB")
    } else {
        format!("{m:.1} MB")
    }
}

pub fn pct(v: f64) -> String {
    format!("{v:.1}%")
}

/// "s" after a count other than 1.
pub fn s(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// "gen1 NonConcurrent" / "gen2 Background": the GC's kind as the lines name it.
pub fn kind(g: &Gc) -> String {
    format!("gen{} {}", g.gen, g.gc_type.name())
}

pub fn figure(label: &'static str, value: f64, unit: &'static str) -> Figure {
    Figure {
        label: label.into(),
        value,
        unit: unit.into(),
    }
}

/// "GC #3, #7, #12" (at most `max` numbers, then "and N more").
pub fn gc_list(numbers: &[u32], max: usize) -> String {
    let mut s = String::new();
    for (i, n) in numbers.iter().take(max).enumerate() {
        s.push_str(if i == 0 { "#" } else { ", #" });
        s.push_str(&format!("{n}"));
    }
    if numbers.len() > max {
        s.push_str(&format!(" and {} more", numbers.len() - max));
    }
    s
}

/// `items` grouped by `key`, keys in order, each group in the items' order. A sorted Vec rather
/// than a BTreeMap per key type: the page's wasm carries every BTreeMap instantiation.
pub fn group_by<T, K: Ord + Copy>(
    items: impl Iterator<Item = T>,
    key: impl Fn(&T) -> K,
) -> Vec<(K, Vec<T>)> {
    let mut v: Vec<(K, T)> = items.map(|t| (key(&t), t)).collect();
    v.sort_by_key(|t| t.0);
    let mut out: Vec<(K, Vec<T>)> = Vec::new();
    for (k, t) in v {
        match out.last_mut() {
            Some((last, group)) if *last == k => group.push(t),
            _ => out.push((k, alloc::vec![t])),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(vec![f64::NAN]), None);
        assert_eq!(median(Vec::new()), None);
    }

    #[test]
    fn numbers_read_as_written() {
        assert_eq!(ms(0.126), "0.13 ms");
        assert_eq!(ms(212.34), "212.3 ms");
        assert_eq!(mb(2_500_000.0), "2.50 MB");
        assert_eq!(gc_list(&[1, 2, 3], 2), "#1, #2 and 1 more");
        let g = group_by([5u32, 1, 4, 2, 3].into_iter(), |x| x % 2);
        assert_eq!(g, vec![(0, vec![4, 2]), (1, vec![5, 1, 3])]);
    }
}
