//! Aligned text tables for people, CSV for spreadsheets, and the number formats both use.

use std::fmt::Write;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table whose columns are sized to their widest cell.
pub struct Table {
    headers: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: &[(&str, Align)]) -> Table {
        Table {
            headers: headers.iter().map(|(h, a)| (h.to_string(), *a)).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let n = self.headers.len();
        let mut width: Vec<usize> = self
            .headers
            .iter()
            .map(|(h, _)| h.chars().count())
            .collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate().take(n) {
                width[i] = width[i].max(c.chars().count());
            }
        }
        let mut out = String::new();
        let line = |out: &mut String, cells: &mut dyn Iterator<Item = (usize, &str)>| {
            let mut s = String::new();
            for (i, c) in cells {
                if i > 0 {
                    s.push_str("  ");
                }
                let pad = width[i].saturating_sub(c.chars().count());
                match self.headers[i].1 {
                    Align::Left => {
                        s.push_str(c);
                        s.extend(std::iter::repeat_n(' ', pad));
                    }
                    Align::Right => {
                        s.extend(std::iter::repeat_n(' ', pad));
                        s.push_str(c);
                    }
                }
            }
            out.push_str(s.trim_end());
            out.push('\n');
        };
        line(
            &mut out,
            &mut self
                .headers
                .iter()
                .enumerate()
                .map(|(i, (h, _))| (i, h.as_str())),
        );
        let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
        line(
            &mut out,
            &mut rule.iter().enumerate().map(|(i, r)| (i, r.as_str())),
        );
        for r in &self.rows {
            line(
                &mut out,
                &mut r.iter().enumerate().take(n).map(|(i, c)| (i, c.as_str())),
            );
        }
        out
    }
}

/// Megabytes (10^6 bytes, as PerfView) with 3 decimals; "-" when unknown.
pub fn mb(bytes: Option<u64>) -> String {
    bytes.map_or_else(dash, |b| format!("{:.3}", b as f64 / 1e6))
}

pub fn ms(v: Option<f64>) -> String {
    v.map_or_else(dash, |v| format!("{v:.3}"))
}

pub fn pct(v: Option<f64>) -> String {
    v.map_or_else(dash, |v| format!("{v:.1}"))
}

pub fn num<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(dash, |v| v.to_string())
}

pub fn dash() -> String {
    "-".to_string()
}

/// One CSV cell: quoted when needed, and a leading `= + - @` (or tab/CR) defused with `'` so a
/// spreadsheet does not run it as a formula.
pub fn csv_cell(s: &str) -> String {
    let mut v = String::with_capacity(s.len() + 2);
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        v.push('\'');
    }
    v.push_str(s);
    if v.contains([',', '"', '\n', '\r']) {
        let mut q = String::from("\"");
        q.push_str(&v.replace('"', "\"\""));
        q.push('"');
        q
    } else {
        v
    }
}

pub fn csv_line(cells: &[String]) -> String {
    let mut s = String::new();
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{}", csv_cell(c));
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_that_look_like_formulas_are_defused() {
        assert_eq!(csv_cell("=1+2"), "'=1+2");
        assert_eq!(csv_cell("-3"), "'-3");
        assert_eq!(csv_cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_cell("+x"), "'+x");
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("AllocSmall"), "AllocSmall");
    }

    #[test]
    fn tables_align_columns_to_the_widest_cell() {
        let mut t = Table::new(&[("Name", Align::Left), ("Value", Align::Right)]);
        t.row(vec!["a".into(), "1".into()]);
        t.row(vec!["long".into(), "12345".into()]);
        assert_eq!(
            t.render(),
            "Name  Value\n----  -----\na         1\nlong  12345\n"
        );
    }
}
