//! Number formatting for the UI: thousands separators and units, so every figure reads the same way.

/// `1234567` -> `"1,234,567"`.
pub fn thousands(n: f64) -> String {
    grouped(n, 0)
}

/// `n` to `decimals` places with its whole part in groups of three: `grouped(12345.6789, 3)` ->
/// `"12,345.679"`.
pub fn grouped(n: f64, decimals: usize) -> String {
    let digits = format!("{:.decimals$}", n.abs());
    let (whole, frac) = digits.split_at(digits.find('.').unwrap_or(digits.len()));
    let mut out = String::with_capacity(digits.len() + whole.len() / 3 + 1);
    if n < 0.0 && digits.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        out.push('-');
    }
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out.push_str(frac);
    out
}

/// Bytes in the largest binary unit that keeps the number >= 1: `"4.6 MB"`.
pub fn bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = n;
    let mut u = 0;
    while v.abs() >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// One figure in milliseconds, switching to seconds from 10 s: `"0.123 ms"`, `"1,234 ms"`,
/// `"4.56 s"`. Not for table columns, whose rows must share a unit ([`column_ms`], [`trace_ms`]).
pub fn ms(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.2} s", v / 1000.0)
    } else {
        column_ms(v)
    }
}

/// A duration in a table column: always ms, however long, with a precision that suits the
/// magnitude: `"0.123 ms"`, `"12.3 ms"`, `"457 ms"`, `"12,345 ms"`.
pub fn column_ms(v: f64) -> String {
    let decimals = match v.abs() {
        a if a >= 100.0 => 0,
        a if a >= 10.0 => 1,
        _ => 3,
    };
    format!("{} ms", grouped(v, decimals))
}

/// A pause histogram bucket's lower edge, short enough to label a bar: "0", "20µs", "5ms", "1s".
pub fn bucket_edge(lo_ms: f64) -> String {
    match lo_ms {
        v if v <= 0.0 => "0".into(),
        v if v < 1.0 => format!("{}µs", (v * 1000.0).round()),
        v if v < 1000.0 => format!("{v}ms"),
        v => format!("{}s", v / 1000.0),
    }
}

/// Labels for the ticks of one time axis, all in one unit: seconds when the largest tick is 10 s
/// or more (`"0 s"`, `"19.29 s"`), else ms, with the decimals the step between ticks needs.
pub fn axis_ms(ticks: &[f64]) -> Vec<String> {
    let top = ticks.iter().fold(0.0f64, |m, t| m.max(t.abs()));
    let step = ticks
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .filter(|d| *d > 0.0)
        .fold(f64::INFINITY, f64::min);
    let (scale, unit) = if top >= 10_000.0 {
        (1000.0, "s")
    } else {
        (1.0, "ms")
    };
    // Enough decimals that neighbouring ticks differ: a step of 2.4 (in the unit) needs one.
    let step = step / scale;
    let decimals = if !step.is_finite() || step >= 10.0 {
        0
    } else if step >= 1.0 {
        1
    } else if step >= 0.1 {
        2
    } else {
        3
    };
    ticks
        .iter()
        .map(|t| format!("{} {unit}", grouped(t / scale, decimals)))
        .collect()
}

/// A point in the trace (ms from its start) in a table column: always ms to the microsecond, as
/// PerfView's GCStats shows it, so rows line up and compare: `"950.312 ms"`, `"12,345.678 ms"`.
pub fn trace_ms(v: f64) -> String {
    format!("{} ms", grouped(v, 3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_edges_read_in_their_own_unit() {
        let edges: Vec<String> = [0.0, 0.01, 0.5, 1.0, 20.0, 500.0, 1000.0, 5000.0]
            .into_iter()
            .map(bucket_edge)
            .collect();
        assert_eq!(
            edges,
            ["0", "10µs", "500µs", "1ms", "20ms", "500ms", "1s", "5s"]
        );
    }

    #[test]
    fn an_axis_has_one_unit() {
        // One unit for every tick, never "0.000 ms, 9,645 ms, 19.29 s, 28.94 s".
        let t = [0.0, 9645.2, 19290.4, 28935.6, 38580.8];
        assert_eq!(
            axis_ms(&t),
            ["0.0 s", "9.6 s", "19.3 s", "28.9 s", "38.6 s"]
        );
        assert_eq!(
            axis_ms(&[0.0, 250.0, 500.0, 750.0, 1000.0]),
            ["0 ms", "250 ms", "500 ms", "750 ms", "1,000 ms"]
        );
        assert_eq!(
            axis_ms(&[0.0, 0.5, 1.0, 1.5, 2.0]),
            ["0.00 ms", "0.50 ms", "1.00 ms", "1.50 ms", "2.00 ms"]
        );
        assert_eq!(axis_ms(&[5.0]), ["5 ms"]);
    }

    #[test]
    fn thousands_groups_digits_in_threes() {
        assert_eq!(thousands(0.0), "0");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(thousands(1000.0), "1,000");
        assert_eq!(thousands(1234567.0), "1,234,567");
        assert_eq!(thousands(-1234.0), "-1,234");
    }

    #[test]
    fn bytes_picks_binary_units() {
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(bytes(1536.0), "1.5 KB");
        assert_eq!(bytes(4.6 * 1024.0 * 1024.0), "4.6 MB");
    }

    /// (value, as shown) pairs.
    fn check(f: fn(f64) -> String, cases: &[(f64, &str)]) {
        for &(v, want) in cases {
            assert_eq!(f(v), want, "{v}");
        }
    }

    #[test]
    fn ms_precision_follows_magnitude() {
        let cases = [
            (0.1234, "0.123 ms"),
            (12.34, "12.3 ms"),
            (456.7, "457 ms"),
            (1234.4, "1,234 ms"),
            (12345.0, "12.35 s"),
        ];
        check(ms, &cases);
    }

    #[test]
    fn grouped_keeps_decimals_and_carries() {
        let three = [
            (12345.6789, "12,345.679"),
            (999.9996, "1,000.000"),
            (-0.0001, "0.000"),
            (0.5, "0.500"),
        ];
        check(|v| grouped(v, 3), &three);
        assert_eq!(grouped(-1234.5, 1), "-1,234.5");
    }

    #[test]
    fn column_units_never_switch() {
        // Either side of ms()'s switch to seconds, a column stays in ms.
        let durations = [
            (9_999.4, "9,999 ms"),
            (12_345.0, "12,345 ms"),
            (0.25, "0.250 ms"),
        ];
        check(column_ms, &durations);
        let points = [
            (950.3124, "950.312 ms"),
            (12_400.0, "12,400.000 ms"),
            (3_723_456.789, "3,723,456.789 ms"),
        ];
        check(trace_ms, &points);
    }
}
