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
        let width = self.widths();
        let mut out = String::new();
        self.head(&mut out, &width);
        for r in &self.rows {
            self.line(&mut out, &width, r);
        }
        out
    }

    /// Each column's width: its widest cell, header included.
    fn widths(&self) -> Vec<usize> {
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
        width
    }

    /// The header line and the rule under it.
    fn head(&self, out: &mut String, width: &[usize]) {
        let names: Vec<String> = self.headers.iter().map(|(h, _)| h.clone()).collect();
        self.line(out, width, &names);
        let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
        self.line(out, width, &rule);
    }

    /// One line: cells padded to `width` and aligned as their column, two spaces apart.
    fn line(&self, out: &mut String, width: &[usize], cells: &[String]) {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate().take(self.headers.len()) {
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
    }
}

/// A [`Table`] printed while its rows arrive, in bounded memory: the first [`Self::HELD`] rows are
/// held to size the columns, so a table of up to that many rows reads exactly as [`Table::render`]
/// prints it; after that each row is printed as it comes, and a cell wider than its column widens
/// the column from that row on (a long trace's GC numbers and times grow a digit now and then).
pub struct StreamingTable {
    table: Table,
    /// Set once the held rows are printed.
    width: Option<Vec<usize>>,
}

impl StreamingTable {
    /// Rows held before the first is printed (~0.5 KB each).
    pub const HELD: usize = 4096;

    pub fn new(headers: &[(&str, Align)]) -> StreamingTable {
        StreamingTable {
            table: Table::new(headers),
            width: None,
        }
    }

    /// Adds a row; returns what to print now (nothing while the first rows are held).
    pub fn row(&mut self, cells: Vec<String>) -> String {
        let mut out = String::new();
        match &mut self.width {
            None if self.table.rows.len() < Self::HELD => self.table.rows.push(cells),
            None => {
                self.table.rows.push(cells);
                out = self.table.render();
                self.width = Some(self.table.widths());
                self.table.rows = Vec::new();
            }
            Some(width) => {
                for (w, c) in width.iter_mut().zip(&cells) {
                    *w = (*w).max(c.chars().count());
                }
                self.table.line(&mut out, width, &cells);
            }
        }
        out
    }

    /// What is left to print: the whole table if it never grew past the held rows.
    pub fn finish(self) -> String {
        match self.width {
            None => self.table.render(),
            Some(_) => String::new(),
        }
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

    #[test]
    fn a_streamed_table_is_the_table_until_it_outgrows_the_held_rows() {
        let head = [("N", Align::Right), ("Name", Align::Left)];
        let rows = |n: usize| (0..n).map(|i| vec![(i * 7).to_string(), "x".repeat(i % 5)]);
        // Up to HELD rows: the same text as the whole table rendered at once.
        for n in [0, 1, 10, StreamingTable::HELD] {
            let (mut whole, mut streamed) = (Table::new(&head), StreamingTable::new(&head));
            let mut out = String::new();
            for r in rows(n) {
                whole.row(r.clone());
                out.push_str(&streamed.row(r));
            }
            assert!(out.is_empty(), "{n} rows: nothing printed before the end");
            out.push_str(&streamed.finish());
            assert_eq!(out, whole.render(), "{n} rows");
        }
        // Past it: the held rows come out at once, every later row as it arrives, aligned to the
        // widths so far, a wider cell widening its column from its own row on.
        let mut streamed = StreamingTable::new(&head);
        let mut first = String::new();
        for r in rows(StreamingTable::HELD + 1) {
            first.push_str(&streamed.row(r));
        }
        assert_eq!(first.lines().count(), StreamingTable::HELD + 1 + 2);
        let width = first.lines().next().unwrap().find('N').unwrap() + 1;
        assert_eq!(width, (StreamingTable::HELD * 7).to_string().len());
        assert_eq!(
            streamed.row(vec!["1".into(), "a".into()]),
            format!("{:>width$}  a\n", 1)
        );
        let wide = "1".repeat(width + 2);
        assert_eq!(
            streamed.row(vec![wide.clone(), "b".into()]),
            format!("{wide}  b\n")
        );
        assert_eq!(
            streamed.row(vec!["2".into(), "c".into()]),
            format!("{:>w$}  c\n", 2, w = width + 2)
        );
        assert_eq!(streamed.finish(), "");
    }
}
