//! What the user is looking at (tab, filters, sort, selected GC, time range, columns) and its one
//! mapping to and from the address bar's query string. Also the filtering and sorting of GC rows,
//! so the URL, the table and the exports all agree. Plain Rust: unit-tested natively.

use std::cmp::Ordering;

use gcscope_core::gc::{Gc, ALLOC_BUDGET, TIME_TUNING};

use crate::columns::{self, Cell};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tab {
    #[default]
    Overview,
    Gcs,
    Reasons,
    Pins,
    Charts,
    Events,
    Allocs,
    Budgets,
    Roots,
    Suspensions,
    Memory,
    Counters,
}

impl Tab {
    /// In tab order; the first nine are also keys 1-9.
    pub const ALL: [Tab; 12] = [
        Tab::Overview,
        Tab::Gcs,
        Tab::Reasons,
        Tab::Pins,
        Tab::Charts,
        Tab::Events,
        Tab::Allocs,
        Tab::Budgets,
        Tab::Roots,
        Tab::Suspensions,
        Tab::Memory,
        Tab::Counters,
    ];
    pub fn key(self) -> &'static str {
        match self {
            Tab::Overview => "overview",
            Tab::Gcs => "gcs",
            Tab::Reasons => "reasons",
            Tab::Pins => "pins",
            Tab::Charts => "charts",
            Tab::Events => "events",
            Tab::Allocs => "allocs",
            Tab::Budgets => "budgets",
            Tab::Roots => "roots",
            Tab::Suspensions => "suspensions",
            Tab::Memory => "memory",
            Tab::Counters => "counters",
        }
    }
    pub fn title(self) -> &'static str {
        match self {
            Tab::Overview => "Overview",
            Tab::Gcs => "GC table",
            Tab::Reasons => "Condemn reasons",
            Tab::Pins => "Pinning & handles",
            Tab::Charts => "Charts",
            Tab::Events => "Events",
            Tab::Allocs => "Allocations",
            Tab::Budgets => "Budgets",
            Tab::Roots => "Roots & compaction",
            Tab::Suspensions => "Suspensions",
            Tab::Memory => "Memory",
            Tab::Counters => "Counters",
        }
    }
    fn from_key(k: &str) -> Option<Tab> {
        Tab::ALL.into_iter().find(|t| t.key() == k)
    }
}

/// Row filters of the GC table (and, for the time range, of every view).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Generations to keep; empty = all.
    pub gens: Vec<u8>,
    pub gc_type: Option<String>,
    /// Trigger reason (GCStart's Reason), exact.
    pub reason: Option<String>,
    /// A condemn condition as the condemn breakdown counts it (complete GCs only).
    pub cond: Option<String>,
    pub induced: Option<bool>,
    pub min_pause_ms: Option<f64>,
    /// Pause-start time range, ms from the trace start, inclusive.
    pub t0: Option<f64>,
    pub t1: Option<f64>,
    /// Free text matched (case-insensitively) against trigger reason, condemn conditions and mechanisms.
    pub text: String,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    pub fn in_range(&self, ms: f64) -> bool {
        self.t0.is_none_or(|t| ms >= t) && self.t1.is_none_or(|t| ms <= t)
    }

    /// `heap_words`: the GC's per-heap condemn conditions and mechanisms (`HeapStore::words`).
    pub fn matches(&self, g: &Gc, heap_words: &[String]) -> bool {
        if !self.gens.is_empty() && !self.gens.contains(&g.gen) {
            return false;
        }
        if self
            .gc_type
            .as_deref()
            .is_some_and(|t| t != g.gc_type.name())
        {
            return false;
        }
        if self.reason.as_deref().is_some_and(|r| r != g.reason) {
            return false;
        }
        if let Some(c) = &self.cond {
            if !has_condition(g, c) {
                return false;
            }
        }
        if self.induced.is_some_and(|i| i != g.induced) {
            return false;
        }
        if let Some(min) = self.min_pause_ms {
            if g.pause_ms.is_none_or(|p| p < min) {
                return false;
            }
        }
        if !self.in_range(g.start_ms) {
            return false;
        }
        if !self.text.is_empty() {
            let q = self.text.to_lowercase();
            let mut words = reason_words(g).chain(heap_words.iter().map(String::as_str));
            if !words.any(|w| w.to_lowercase().contains(&q)) {
                return false;
            }
        }
        true
    }
}

/// Words of the row the free-text filter looks in (beside the per-heap ones): trigger reason,
/// condemn conditions, global mechanisms.
fn reason_words(g: &Gc) -> impl Iterator<Item = &str> {
    let conds = g
        .condemn
        .iter()
        .flat_map(|c| c.conditions.iter().map(|s| s.as_ref()));
    let mech = g
        .global_mechanisms
        .iter()
        .flat_map(|m| m.iter().map(|s| s.as_ref()));
    std::iter::once(g.reason.as_ref()).chain(conds).chain(mech)
}

/// The condemn breakdown's rule (core `summary`): complete GCs; the generation-valued reasons count
/// when they name the GC's own generation.
pub fn has_condition(g: &Gc, cond: &str) -> bool {
    if !g.complete {
        return false;
    }
    let Some(c) = &g.condemn else { return false };
    if cond == ALLOC_BUDGET {
        return c.alloc_budget_gen == g.gen;
    }
    if cond == TIME_TUNING {
        return c.time_tuning_gen == g.gen && c.time_tuning_gen > 0;
    }
    c.conditions.iter().any(|x| x == cond)
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sort {
    pub column: String,
    pub desc: bool,
}

/// A sortable side table (pinned types, handle kinds, live handles): sort column and text filter.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SideTable {
    pub sort: Option<Sort>,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ViewState {
    pub tab: Tab,
    pub filter: Filter,
    pub sort: Option<Sort>,
    /// Selected GC, by its number.
    pub selected: Option<u32>,
    /// Visible GC-table columns; `None` = the defaults.
    pub columns: Option<Vec<String>>,
    pub pins: SideTable,
    pub kinds: SideTable,
    pub live: SideTable,
    /// `?trace=URL`: where the trace was fetched from.
    pub trace: Option<String>,
}

fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'_'
            | b'.'
            | b'~'
            | b','
            | b':'
            | b'/' => out.push(b as char),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn dec(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The name a trace fetched from `url` goes by (the title, the File fact, the exports' file
/// names), as a browser names a download: the last segment of the address's path,
/// percent-decoded; "trace" where the path has none.
pub fn trace_file_name(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or_default();
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, path)| path),
        None => url,
    };
    let last = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or_default();
    // `dec` reads a query, where '+' is a space; in a path it is itself.
    let name = dec(&last.replace('+', "%2B"));
    if name.trim().is_empty() {
        "trace".into()
    } else {
        name
    }
}

fn num(v: f64) -> String {
    // Shortest form that reads back the same.
    let s = format!("{v}");
    s.trim_end_matches(".0").to_string()
}

fn sort_str(s: &Option<Sort>) -> Option<String> {
    s.as_ref()
        .map(|s| format!("{}{}", if s.desc { "-" } else { "" }, s.column))
}

fn parse_sort(v: &str) -> Option<Sort> {
    let (desc, col) = match v.strip_prefix('-') {
        Some(c) => (true, c),
        None => (false, v),
    };
    (!col.is_empty()).then(|| Sort {
        column: col.to_string(),
        desc,
    })
}

impl ViewState {
    /// The query string (without `?`), parameters in a fixed order, defaults left out.
    pub fn to_query(&self) -> String {
        let mut p: Vec<(&str, String)> = Vec::new();
        if let Some(t) = &self.trace {
            p.push(("trace", t.clone()));
        }
        if self.tab != Tab::Overview {
            p.push(("tab", self.tab.key().into()));
        }
        let f = &self.filter;
        if !f.gens.is_empty() {
            p.push((
                "gen",
                f.gens
                    .iter()
                    .map(|g| g.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            ));
        }
        if let Some(t) = &f.gc_type {
            p.push(("type", t.clone()));
        }
        if let Some(r) = &f.reason {
            p.push(("reason", r.clone()));
        }
        if let Some(c) = &f.cond {
            p.push(("cond", c.clone()));
        }
        if let Some(i) = f.induced {
            p.push(("induced", if i { "1" } else { "0" }.into()));
        }
        if let Some(m) = f.min_pause_ms {
            p.push(("minpause", num(m)));
        }
        if let Some(t) = f.t0 {
            p.push(("t0", num(t)));
        }
        if let Some(t) = f.t1 {
            p.push(("t1", num(t)));
        }
        if !f.text.is_empty() {
            p.push(("q", f.text.clone()));
        }
        if let Some(s) = sort_str(&self.sort) {
            p.push(("sort", s));
        }
        if let Some(g) = self.selected {
            p.push(("gc", g.to_string()));
        }
        if let Some(c) = &self.columns {
            p.push(("cols", c.join(",")));
        }
        for (prefix, t) in [
            ("pin", &self.pins),
            ("kind", &self.kinds),
            ("live", &self.live),
        ] {
            if let Some(s) = sort_str(&t.sort) {
                p.push((leak_key(prefix, "sort"), s));
            }
            if !t.text.is_empty() {
                p.push((leak_key(prefix, "q"), t.text.clone()));
            }
        }
        p.iter()
            .map(|(k, v)| format!("{k}={}", enc(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// Reads a query string (with or without `?`). Unknown or malformed parameters are ignored.
    pub fn from_query(q: &str) -> ViewState {
        let mut s = ViewState::default();
        for pair in q
            .trim_start_matches('?')
            .split('&')
            .filter(|p| !p.is_empty())
        {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = dec(v);
            let f = &mut s.filter;
            match k {
                "trace" if !v.is_empty() => s.trace = Some(v),
                "tab" => s.tab = Tab::from_key(&v).unwrap_or_default(),
                "gen" => {
                    f.gens = v
                        .split(',')
                        .filter_map(|g| g.parse().ok())
                        .filter(|g| *g <= 2)
                        .collect()
                }
                "type" if !v.is_empty() => f.gc_type = Some(v),
                "reason" if !v.is_empty() => f.reason = Some(v),
                "cond" if !v.is_empty() => f.cond = Some(v),
                "induced" => {
                    f.induced = match v.as_str() {
                        "1" => Some(true),
                        "0" => Some(false),
                        _ => None,
                    }
                }
                "minpause" => f.min_pause_ms = v.parse().ok().filter(|x: &f64| x.is_finite()),
                "t0" => f.t0 = v.parse().ok().filter(|x: &f64| x.is_finite()),
                "t1" => f.t1 = v.parse().ok().filter(|x: &f64| x.is_finite()),
                "q" => f.text = v,
                "sort" => s.sort = parse_sort(&v),
                "gc" => s.selected = v.parse().ok(),
                "cols" => {
                    let cols: Vec<String> = v
                        .split(',')
                        .filter(|c| columns::by_id(c).is_some())
                        .map(String::from)
                        .collect();
                    s.columns = (!cols.is_empty()).then_some(cols);
                }
                "pinsort" => s.pins.sort = parse_sort(&v),
                "pinq" => s.pins.text = v,
                "kindsort" => s.kinds.sort = parse_sort(&v),
                "kindq" => s.kinds.text = v,
                "livesort" => s.live.sort = parse_sort(&v),
                "liveq" => s.live.text = v,
                _ => {}
            }
        }
        s
    }

    /// Whether going from `self` to `next` is a step the Back button should undo (a new history
    /// entry), rather than typing in a filter box (the current entry is replaced).
    pub fn is_navigation_to(&self, next: &ViewState) -> bool {
        let strip = |v: &ViewState| {
            let mut v = v.clone();
            v.filter.text.clear();
            v.filter.min_pause_ms = None;
            v.pins.text.clear();
            v.kinds.text.clear();
            v.live.text.clear();
            v
        };
        strip(self) != strip(next)
    }

    pub fn visible_columns(&self) -> Vec<&'static columns::Column> {
        match &self.columns {
            Some(c) => c.iter().filter_map(|id| columns::by_id(id)).collect(),
            None => columns::DEFAULT_COLUMNS
                .iter()
                .filter_map(|id| columns::by_id(id))
                .collect(),
        }
    }
}

fn leak_key(prefix: &str, what: &str) -> &'static str {
    match (prefix, what) {
        ("pin", "sort") => "pinsort",
        ("pin", _) => "pinq",
        ("kind", "sort") => "kindsort",
        ("kind", _) => "kindq",
        ("live", "sort") => "livesort",
        _ => "liveq",
    }
}

/// Compares two cells: numbers numerically, text by string; absent values always last.
pub fn cmp_cells(a: &Cell, b: &Cell, desc: bool) -> Ordering {
    let o = match (a, b) {
        (Cell::Num(None), Cell::Num(None)) => return Ordering::Equal,
        (Cell::Num(None), _) => return Ordering::Greater,
        (_, Cell::Num(None)) => return Ordering::Less,
        (Cell::Num(Some(x)), Cell::Num(Some(y))) => x.total_cmp(y),
        (Cell::Text(x), Cell::Text(y)) => x.cmp(y),
        (Cell::Num(_), Cell::Text(_)) => Ordering::Less,
        (Cell::Text(_), Cell::Num(_)) => Ordering::Greater,
    };
    if desc {
        o.reverse()
    } else {
        o
    }
}

/// Indices of the rows that pass the filter, in the chosen order (stable; GC order otherwise).
/// `heap_words(i)`: row `i`'s per-heap words for the text filter.
pub fn visible_rows<'a>(
    gcs: &[Gc],
    heap_words: &dyn Fn(usize) -> &'a [String],
    filter: &Filter,
    sort: Option<&Sort>,
) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..gcs.len() as u32)
        .filter(|&i| filter.matches(&gcs[i as usize], heap_words(i as usize)))
        .collect();
    if let Some(col) = sort.and_then(|s| columns::by_id(&s.column)) {
        let desc = sort.is_some_and(|s| s.desc);
        let keys: Vec<Cell> = idx.iter().map(|&i| (col.get)(&gcs[i as usize])).collect();
        let mut order: Vec<usize> = (0..idx.len()).collect();
        order.sort_by(|&a, &b| cmp_cells(&keys[a], &keys[b], desc));
        idx = order.into_iter().map(|o| idx[o]).collect();
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::gc;
    use std::borrow::Cow;

    #[test]
    fn query_round_trips_every_field() {
        let v = ViewState {
            tab: Tab::Gcs,
            filter: Filter {
                gens: vec![0, 2],
                gc_type: Some("Background".into()),
                reason: Some("AllocSmall".into()),
                cond: Some("alloc_budget_exceeded".into()),
                induced: Some(false),
                min_pause_ms: Some(2.5),
                t0: Some(100.0),
                t1: Some(250.125),
                text: "low ephemeral & more".into(),
            },
            sort: Some(Sort {
                column: "pause_ms".into(),
                desc: true,
            }),
            selected: Some(42),
            columns: Some(vec![
                "number".into(),
                "generations.gen2.survival_pct".into(),
            ]),
            pins: SideTable {
                sort: Some(Sort {
                    column: "count".into(),
                    desc: true,
                }),
                text: "Byte[]".into(),
            },
            kinds: SideTable::default(),
            live: SideTable {
                sort: None,
                text: "x".into(),
            },
            trace: Some("https://example.com/a b.nettrace?x=1&y=2".into()),
        };
        let q = v.to_query();
        assert!(
            q.starts_with("trace=https://example.com/a+b.nettrace%3Fx%3D1%26y%3D2&tab=gcs&gen=0,2"),
            "{q}"
        );
        assert_eq!(ViewState::from_query(&q), v);
        assert_eq!(ViewState::from_query(&format!("?{q}")), v);
        assert_eq!(ViewState::default().to_query(), "");
    }

    #[test]
    fn every_tab_round_trips_under_its_own_key() {
        let mut keys: Vec<&str> = Tab::ALL.iter().map(|t| t.key()).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), Tab::ALL.len(), "tab keys are distinct");
        for t in Tab::ALL {
            let v = ViewState {
                tab: t,
                ..Default::default()
            };
            assert_eq!(ViewState::from_query(&v.to_query()).tab, t, "{}", t.key());
        }
        assert_eq!(ViewState::from_query("tab=allocs").tab, Tab::Allocs);
    }

    #[test]
    fn bad_parameters_are_ignored() {
        let v =
            ViewState::from_query("tab=nope&gen=7,x,1&minpause=abc&gc=-1&cols=bogus&zz=1&q=%ZZ");
        assert_eq!(v.tab, Tab::Overview);
        assert_eq!(v.filter.gens, vec![1]);
        assert_eq!(v.filter.min_pause_ms, None);
        assert_eq!(v.selected, None);
        assert_eq!(v.columns, None);
        assert_eq!(v.filter.text, "%ZZ");
    }

    #[test]
    fn typing_replaces_history_and_clicking_adds_to_it() {
        let a = ViewState::default();
        let mut b = a.clone();
        b.filter.text = "low".into();
        assert!(!a.is_navigation_to(&b));
        b.tab = Tab::Gcs;
        assert!(a.is_navigation_to(&b));
    }

    fn rows() -> Vec<Gc> {
        let mut v: Vec<Gc> = (1..=6).map(gc).collect();
        v[1].gen = 1;
        v[1].pause_ms = Some(5.0);
        v[2].gen = 2;
        v[2].pause_ms = Some(3.0);
        v[2].induced = true;
        v[2].reason = Cow::Borrowed("Induced");
        v[3].pause_ms = None;
        v[4].condemn.as_mut().unwrap().conditions = vec![Cow::Borrowed("low_ephemeral")];
        v[4].condemn.as_mut().unwrap().alloc_budget_gen = 1;
        v[5].complete = false;
        v
    }

    #[test]
    fn filters_select_the_right_rows() {
        let g = rows();
        // Row 6 (GC 6): one heap compacted for a reason the row's own words do not name.
        let words = ["low_ephemeral".to_string(), "compact_high_frag".to_string()];
        let nums = |f: Filter| -> Vec<u32> {
            visible_rows(&g, &|i| if i == 5 { &words[..] } else { &[] }, &f, None)
                .iter()
                .map(|&i| g[i as usize].number)
                .collect()
        };
        assert_eq!(
            nums(Filter {
                gens: vec![1, 2],
                ..Default::default()
            }),
            vec![2, 3]
        );
        assert_eq!(
            nums(Filter {
                induced: Some(true),
                ..Default::default()
            }),
            vec![3]
        );
        assert_eq!(
            nums(Filter {
                min_pause_ms: Some(3.0),
                ..Default::default()
            }),
            vec![2, 3]
        );
        assert_eq!(
            nums(Filter {
                t0: Some(20.0),
                t1: Some(40.0),
                ..Default::default()
            }),
            vec![2, 3, 4]
        );
        assert_eq!(
            nums(Filter {
                text: "EPHEM".into(),
                ..Default::default()
            }),
            vec![5, 6]
        );
        assert_eq!(
            nums(Filter {
                text: "high_FRAG".into(),
                ..Default::default()
            }),
            vec![6]
        );
        assert_eq!(
            nums(Filter {
                reason: Some("Induced".into()),
                ..Default::default()
            }),
            vec![3]
        );
        // alloc_budget_exceeded counts when the budget generation is the GC's own; incomplete GCs never.
        assert_eq!(
            nums(Filter {
                cond: Some(ALLOC_BUDGET.into()),
                ..Default::default()
            }),
            vec![1, 4]
        );
        assert_eq!(
            nums(Filter {
                cond: Some("low_ephemeral".into()),
                ..Default::default()
            }),
            vec![5]
        );
    }

    #[test]
    fn a_fetched_trace_is_named_after_the_last_segment_of_its_address() {
        let name = trace_file_name;
        assert_eq!(
            name("https://example.com/tools/app.nettrace"),
            "app.nettrace"
        );
        assert_eq!(
            name("samples/net8-wks-concurrent.nettrace"),
            "net8-wks-concurrent.nettrace"
        );
        assert_eq!(
            name("https://h/dl/my%20app%2B1.nettrace?sig=a/b#x"),
            "my app+1.nettrace"
        );
        assert_eq!(name("https://h/a+b.nettrace.zip"), "a+b.nettrace.zip");
        assert_eq!(name("https://h/traces/latest/"), "latest");
        assert_eq!(name("https://h/dl?file=x.nettrace"), "dl");
        for bare in ["https://h", "https://h/", "https://h/?x=1", "", "%20"] {
            assert_eq!(name(bare), "trace", "{bare:?}");
        }
    }

    #[test]
    fn sort_puts_missing_values_last_both_ways() {
        let g = rows();
        let order = |desc| -> Vec<u32> {
            let s = Sort {
                column: "pause_ms".into(),
                desc,
            };
            visible_rows(&g, &|_| &[], &Filter::default(), Some(&s))
                .iter()
                .map(|&i| g[i as usize].number)
                .collect()
        };
        assert_eq!(order(false), vec![1, 5, 6, 3, 2, 4]);
        assert_eq!(order(true), vec![2, 3, 1, 5, 6, 4]);
    }
}
