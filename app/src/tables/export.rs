//! A table as a download: CSV (RFC 4180; text cells a spreadsheet would run as a formula are
//! neutralised) and JSON (an array of objects keyed by column), both with the raw values.

use super::{Cell, Table};

impl Table {
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let head: Vec<String> = self.cols.iter().map(|c| csv_cell(&c.key, false)).collect();
        out.push_str(&head.join(","));
        out.push_str("\r\n");
        for r in &self.rows {
            let line: Vec<String> = r
                .iter()
                .map(|c| csv_cell(&c.raw(), c.number().is_some()))
                .collect();
            out.push_str(&line.join(","));
            out.push_str("\r\n");
        }
        out
    }

    pub fn to_json(&self) -> String {
        let mut out = String::from("[\n");
        for (i, r) in self.rows.iter().enumerate() {
            out.push_str("  {");
            for (j, c) in r.iter().enumerate() {
                if j > 0 {
                    out.push_str(", ");
                }
                out.push_str(&json_str(&self.cols[j].key));
                out.push_str(": ");
                match (c, c.number()) {
                    (_, Some(Some(v))) if v.is_finite() => out.push_str(&c.raw()),
                    (_, Some(_)) => out.push_str("null"),
                    (Cell::Text(s), None) => out.push_str(&json_str(s)),
                    (_, None) => out.push_str("null"),
                }
            }
            out.push('}');
            if i + 1 < self.rows.len() {
                out.push(',');
            }
            out.push('\n');
        }
        out.push(']');
        out.push('\n');
        out
    }
}

/// A CSV field: a text cell that starts like a formula (= + - @, tab, CR) gets a leading `'` so a
/// spreadsheet shows it instead of running it; quoted when it holds a separator or quote.
pub fn csv_cell(s: &str, numeric: bool) -> String {
    let mut v = s.to_string();
    if !numeric && v.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        v.insert(0, '\'');
    }
    if v.contains([',', '"', '\n', '\r']) || v.starts_with(' ') || v.ends_with(' ') {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v
    }
}

pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::{col, t};

    fn table(cells: Vec<Cell>) -> Table {
        Table {
            id: "t",
            title: "T".into(),
            cols: (0..cells.len())
                .map(|i| col(&format!("c{i}"), "C", "name", ""))
                .collect(),
            rows: vec![cells],
        }
    }

    #[test]
    fn csv_neutralises_formulas_and_quotes() {
        let tb = table(vec![
            t("=HYPERLINK(\"x\")"),
            t("+1"),
            t("-cmd"),
            t("@SUM(A1)"),
            t("a,b"),
            t("plain"),
            Cell::Num(Some(-2.5)),
            Cell::Num(None),
        ]);
        let csv = tb.to_csv();
        let line = csv.lines().nth(1).unwrap();
        assert_eq!(
            line,
            "\"'=HYPERLINK(\"\"x\"\")\",'+1,'-cmd,'@SUM(A1),\"a,b\",plain,-2.5,"
        );
    }

    #[test]
    fn json_escapes_strings_and_writes_null_for_missing() {
        let tb = table(vec![
            t("a\"b</script>"),
            Cell::Num(None),
            Cell::Num(Some(3.0)),
        ]);
        assert_eq!(
            tb.to_json(),
            "[\n  {\"c0\": \"a\\\"b</script>\", \"c1\": null, \"c2\": 3}\n]\n"
        );
    }
}
