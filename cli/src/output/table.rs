//! Aligned text tables for people, CSV for spreadsheets, and the number formats both use.

use std::fmt::Write;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table whose columns are sized to their widest cell.
///
/// The cells are kept in one buffer, not as the `String`s they come as: a per-GC table has
/// hundreds of thousands of cells, and holding each in its own allocation until the table is
/// printed, then freeing them one by one, costs the one thread that prints, whatever `--jobs`
/// says. A cell handed in and copied at once is freed while its memory is still in the
/// allocator's cache (docs/performance-log/journal.md, "The CLI's tables after the read").
pub struct Table {
    headers: Vec<(String, Align)>,
    /// Every cell's text, one after the other.
    text: String,
    /// Each cell: where its text is in `text`, and its width in characters.
    cells: Vec<(std::ops::Range<usize>, usize)>,
    /// Each row's end in `cells`.
    rows: Vec<usize>,
}

impl Table {
    pub fn new(headers: &[(&str, Align)]) -> Table {
        Table {
            headers: headers.iter().map(|(h, a)| (h.to_string(), *a)).collect(),
            text: String::new(),
            cells: Vec::new(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        for c in &cells {
            let at = self.text.len();
            self.text.push_str(c);
            self.cells.push((at..self.text.len(), c.chars().count()));
        }
        self.rows.push(self.cells.len());
    }

    /// The rows held: each one's cells as (text, width in characters).
    fn held(&self) -> impl Iterator<Item = impl Iterator<Item = (&str, usize)> + '_> + '_ {
        let starts = std::iter::once(0).chain(self.rows.iter().copied());
        starts
            .zip(self.rows.iter().copied())
            .map(move |(from, to)| {
                self.cells[from..to]
                    .iter()
                    .map(move |(r, w)| (&self.text[r.clone()], *w))
            })
    }

    fn row_count(&self) -> usize {
        self.rows.len()
    }

    /// Lets go of the rows (their widths stay what [`widths`](Self::widths) said).
    fn clear_rows(&mut self) {
        self.text = String::new();
        self.cells = Vec::new();
        self.rows = Vec::new();
    }

    pub fn render(&self) -> String {
        let width = self.widths();
        let mut out = String::with_capacity(self.text.len() + 2 * self.cells.len());
        self.head(&mut out, &width);
        for r in self.held() {
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
        for r in self.held() {
            for (i, (_, w)) in r.enumerate().take(n) {
                width[i] = width[i].max(w);
            }
        }
        width
    }

    /// The header line and the rule under it.
    fn head(&self, out: &mut String, width: &[usize]) {
        let names = self
            .headers
            .iter()
            .map(|(h, _)| (h.as_str(), h.chars().count()));
        self.line(out, width, names);
        let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
        self.line(out, width, rule.iter().map(|r| (r.as_str(), r.len())));
    }

    /// One line: cells (text, width in characters) padded to `width` and aligned as their column,
    /// two spaces apart, without trailing spaces. Written straight into `out`.
    fn line<'a>(
        &self,
        out: &mut String,
        width: &[usize],
        cells: impl Iterator<Item = (&'a str, usize)>,
    ) {
        let start = out.len();
        for (i, (c, w)) in cells.enumerate().take(self.headers.len()) {
            if i > 0 {
                out.push_str("  ");
            }
            let pad = width[i].saturating_sub(w);
            match self.headers[i].1 {
                Align::Left => {
                    out.push_str(c);
                    out.extend(std::iter::repeat_n(' ', pad));
                }
                Align::Right => {
                    out.extend(std::iter::repeat_n(' ', pad));
                    out.push_str(c);
                }
            }
        }
        // As `trim_end` of the line: only whitespace the line itself wrote is dropped.
        let kept = out[start..].trim_end().len();
        out.truncate(start + kept);
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
            None if self.table.row_count() < Self::HELD => self.table.row(cells),
            None => {
                self.table.row(cells);
                out = self.table.render();
                self.width = Some(self.table.widths());
                self.table.clear_rows();
            }
            Some(width) => {
                for (w, c) in width.iter_mut().zip(&cells) {
                    *w = (*w).max(c.chars().count());
                }
                let cells = cells.iter().map(|c| (c.as_str(), c.chars().count()));
                self.table.line(&mut out, width, cells);
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
    bytes.map_or_else(dash, mb3)
}

/// `bytes` as megabytes with 3 decimals: exactly the text of `format!("{:.3}", bytes as f64 / 1e6)`,
/// without formatting a float. The per-GC tables print hundreds of thousands of these, on one
/// thread whatever `--jobs` says, and the float formatting often takes its slow exact path
/// (docs/performance-log/journal.md, "The CLI's tables after the read").
///
/// Why it is the same text: rounding the integer `bytes` to thousands can differ from rounding
/// the float nearest `bytes / 10^6` only where a rounding boundary (`k + 0.5` thousandths) lies
/// between the two. The exact quotient is at a boundary only when `bytes % 1000 == 500`, and
/// otherwise at least `10^-6` from one, while the float is within `quotient * 2^-53` of it, which
/// is less below `10^15` bytes. Those two cases go to the float formatting.
pub fn mb3(bytes: impl Into<i128>) -> String {
    let bytes: i128 = bytes.into();
    let u = bytes.unsigned_abs();
    if u >= 1_000_000_000_000_000 || u % 1000 == 500 {
        return format!("{:.3}", bytes as f64 / 1e6);
    }
    // Below 10^15 bytes: thousandths of a MB fit a u64.
    let k = ((u + 500) / 1000) as u64;
    // A negative quotient keeps its sign even when it rounds to zero, as the float's does.
    let sign = if bytes < 0 { "-" } else { "" };
    format!("{sign}{}.{:03}", k / 1000, k % 1000)
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

/// The first `n` characters of `s`, with "..." when cut (the whole text is in --json).
pub fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut c: String = s.chars().take(n - 3).collect();
        c.push_str("...");
        c
    }
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
    fn megabytes_read_as_the_float_formatting_of_the_same_bytes() {
        let float = |b: i128| format!("{:.3}", b as f64 / 1e6);
        let mut cases: Vec<i128> = Vec::new();
        // Every value near zero and near rounding boundaries, both signs.
        for b in -20_000i128..=20_000 {
            cases.push(b);
        }
        for k in [1i128, 7, 999, 1000, 123_456, 999_999_999, 1_000_000_000_000] {
            for d in -3i128..=3 {
                for b in [
                    k * 1000 + 500 + d,
                    k * 1_000_000 + d,
                    k * 1_000_000 - 500 + d,
                ] {
                    cases.extend([b, -b]);
                }
            }
        }
        // Random values of every magnitude up to u64::MAX (xorshift).
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let b = i128::from(x >> (x % 64));
            cases.extend([b, -b]);
        }
        cases.extend([
            i128::from(u64::MAX),
            i128::from(i64::MIN),
            i128::from(i64::MAX),
        ]);
        for b in cases {
            assert_eq!(mb3(b), float(b), "{b} bytes");
        }
    }

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
