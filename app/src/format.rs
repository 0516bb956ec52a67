//! Number formatting for the UI: thousands separators and units, so every figure reads the same way.

/// `1234567` -> `"1,234,567"`.
pub fn thousands(n: f64) -> String {
    let neg = n < 0.0;
    let digits = format!("{:.0}", n.abs());
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if neg {
        out.insert(0, '-');
    }
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

/// Milliseconds with a precision that suits the magnitude: `"0.123 ms"`, `"12.3 ms"`, `"4.56 s"`.
pub fn ms(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.2} s", v / 1000.0)
    } else if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 10.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.3} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn ms_precision_follows_magnitude() {
        assert_eq!(ms(0.1234), "0.123 ms");
        assert_eq!(ms(12.34), "12.3 ms");
        assert_eq!(ms(456.7), "457 ms");
        assert_eq!(ms(12345.0), "12.35 s");
    }
}
