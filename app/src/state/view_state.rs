//! What the user is looking at (tab, the GC table's filters, sort and columns, selected GC, time
//! range, the tables' sorts and filters, the trace's address) and its one mapping to and from the
//! address bar's query string. Plain Rust: unit-tested natively; `address_bar` applies it.

use std::collections::BTreeMap;

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use crate::tables::callers::CALLER;
use crate::tables::{columns, Sort, SortFilter};

use super::filter::Filter;

/// The GC table's tab key: other views send the user there (a click on a count of GCs).
pub const GC_TABLE: &str = "gcs";
/// The comparison's tab key: opening a second trace goes there.
pub const COMPARE_TAB: &str = "compare";
/// The Heap tab's key: a `.gcdump` heap snapshot shows it alone, a trace every tab but it, and a
/// trace with a heap walk every tab.
pub const HEAP_TAB: &str = "heap";

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ViewState {
    /// The tab, by its key (`?tab=KEY`); `None` = the first tab. The tabs themselves are
    /// `views::TABS`: the state knows only keys, so a new tab needs no change here.
    pub tab: Option<String>,
    /// The GC table's filters; their time range filters every view.
    pub filter: Filter,
    /// The GC table's sort.
    pub sort: Option<Sort>,
    /// Selected GC, by its number.
    pub selected: Option<u32>,
    /// Visible GC-table columns; `None` = the defaults.
    pub columns: Option<Vec<String>>,
    /// Sorts and filters of the tables kept in the address bar, by the table's name in it
    /// (`?pinsort=-count&pinq=byte` for the table named `pin`); defaults are left out.
    pub tables: BTreeMap<String, SortFilter>,
    /// `?trace=URL`: where the trace was fetched from.
    pub trace: Option<String>,
    /// `?pid=N`: the process of a machine-wide (ETW) trace shown; `None` = the trace's default
    /// (the most GC pause).
    pub pid: Option<u32>,
    /// `?compare=URL`: where the trace it is compared with ("B") was fetched from.
    pub compare: Option<String>,
    /// `?live=ADDRESS`: the `gcscope serve` session's stream the page reads (relative to the
    /// page). Kept in the address so that a reload reads the session again from its first byte.
    pub live: Option<String>,
    /// `?budget=MS`: the pause budget of the Latency tab and the findings; `None` = each one's
    /// default ([`DEFAULT_BUDGET_MS`] for the Latency tab, core's for the findings).
    pub budget_ms: Option<f64>,
    /// `?window=MS`: the Latency tab's window of % paused over time; `None` = core's choice.
    pub window_ms: Option<f64>,
    /// `?goal=...`: the findings' goal (throughput, latency, footprint); `None` = throughput.
    pub goal: Option<String>,
    /// The Stacks tab: `?sheap=` (soh, loh, poh; `None` = every heap), `?stype=` (one allocated
    /// type), `?sorder=up` (bottom-up), `?sfocus=` (the frame the flame graph is zoomed on),
    /// `?sevent=` (induced, triggered, pinned; `None` = allocations).
    pub stacks_event: Option<String>,
    pub stacks_heap: Option<String>,
    pub stacks_type: Option<String>,
    pub stacks_up: bool,
    pub stacks_focus: Option<String>,
    /// The Heap tab: `?htype=` (the type whose paths to the root are shown), `?hopen=` (the
    /// dominator-tree nodes expanded, by node index, as ranges).
    pub heap_type: Option<String>,
    pub heap_open: Vec<u32>,
}

/// The pause budget when none is set (as `gcscope latency`'s `--budget`).
pub const DEFAULT_BUDGET_MS: f64 = 10.0;

/// What a value keeps as is in the address: letters, digits and `-_.~` (as form encoding does),
/// and `,:/`, so `gen=0,2` and `trace=https://host/app.nettrace` stay readable; a space is `+`.
const KEEP: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~')
    .remove(b',')
    .remove(b':')
    .remove(b'/')
    .remove(b' ');

fn enc(s: &str) -> String {
    utf8_percent_encode(s, KEEP).to_string().replace(' ', "+")
}

/// The name a trace fetched from `url` goes by (the title, the File fact, the exports' file
/// names), as a browser names a download: the last segment of the address's path,
/// percent-decoded ('+' is itself in a path); "trace" where the path has none.
pub fn trace_file_name(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or_default();
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, path)| path),
        None => url,
    };
    let last = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or_default();
    let name = percent_encoding::percent_decode_str(last).decode_utf8_lossy();
    if name.trim().is_empty() {
        "trace".into()
    } else {
        name.into_owned()
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

/// GC numbers as ranges: `1-3,7,9-10` (sorted, runs of consecutive numbers joined), so a finding
/// about hundreds of GCs in a row stays a short link.
fn ranges(v: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if j > i {
            format!("{}-{}", v[i], v[j])
        } else {
            v[i].to_string()
        });
        i = j + 1;
    }
    out.join(",")
}

/// [`ranges`] read back: sorted, without duplicates; malformed parts and runs over 10^6 numbers
/// (a link cannot make the page allocate without bound) are ignored.
fn parse_ranges(s: &str) -> Vec<u32> {
    let mut v = Vec::new();
    for part in s.split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<u32>(), b.trim().parse::<u32>()),
            None => (part.trim().parse(), part.trim().parse()),
        };
        if let (Ok(a), Ok(b)) = (a, b) {
            if a <= b && b - a < 1_000_000 && v.len() < 1_000_000 {
                v.extend(a..=b);
            }
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// `pinsort` -> `pin` for `suffix` "sort": the table named by a parameter (lowercase letters).
fn table_param<'a>(key: &'a str, suffix: &str) -> Option<&'a str> {
    key.strip_suffix(suffix)
        .filter(|name| !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase()))
}

impl ViewState {
    /// The query string (without `?`), parameters in a fixed order, defaults left out.
    pub fn to_query(&self) -> String {
        let mut p: Vec<(String, String)> = Vec::new();
        let mut push = |k: &str, v: String| p.push((k.to_string(), v));
        if let Some(t) = &self.trace {
            push("trace", t.clone());
        }
        if let Some(p) = self.pid {
            push("pid", p.to_string());
        }
        if let Some(t) = &self.compare {
            push("compare", t.clone());
        }
        if let Some(t) = &self.live {
            push("live", t.clone());
        }
        if let Some(t) = &self.tab {
            push("tab", t.clone());
        }
        let f = &self.filter;
        if !f.gens.is_empty() {
            push(
                "gen",
                f.gens
                    .iter()
                    .map(|g| g.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            );
        }
        if let Some(t) = &f.gc_type {
            push("type", t.clone());
        }
        if let Some(r) = &f.reason {
            push("reason", r.clone());
        }
        if let Some(c) = &f.cond {
            push("cond", c.clone());
        }
        if let Some(i) = f.induced {
            push("induced", if i { "1" } else { "0" }.into());
        }
        if let Some(m) = f.min_pause_ms {
            push("minpause", num(m));
        }
        if let Some(t) = f.t0 {
            push("t0", num(t));
        }
        if let Some(t) = f.t1 {
            push("t1", num(t));
        }
        if !f.text.is_empty() {
            push("q", f.text.clone());
        }
        if !f.only.is_empty() {
            push("only", ranges(&f.only));
        }
        if let Some(s) = sort_str(&self.sort) {
            push("sort", s);
        }
        if let Some(g) = self.selected {
            push("gc", g.to_string());
        }
        if let Some(c) = &self.columns {
            push("cols", c.join(","));
        }
        if let Some(b) = self.budget_ms {
            push("budget", num(b));
        }
        if let Some(w) = self.window_ms {
            push("window", num(w));
        }
        if let Some(g) = &self.goal {
            push("goal", g.clone());
        }
        if let Some(e) = &self.stacks_event {
            push("sevent", e.clone());
        }
        if let Some(h) = &self.stacks_heap {
            push("sheap", h.clone());
        }
        if let Some(t) = &self.stacks_type {
            push("stype", t.clone());
        }
        if self.stacks_up {
            push("sorder", "up".into());
        }
        if let Some(f) = &self.stacks_focus {
            push("sfocus", f.clone());
        }
        if let Some(t) = &self.heap_type {
            push("htype", t.clone());
        }
        if !self.heap_open.is_empty() {
            push("hopen", ranges(&self.heap_open));
        }
        for (name, t) in &self.tables {
            if let Some(s) = sort_str(&t.sort) {
                push(&format!("{name}sort"), s);
            }
            if !t.text.is_empty() {
                push(&format!("{name}q"), t.text.clone());
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
        // `+` is a space, `%XX` a byte, a malformed escape stays as written, bad UTF-8 is replaced.
        for (k, v) in form_urlencoded::parse(q.trim_start_matches('?').as_bytes()) {
            let v = v.into_owned();
            let f = &mut s.filter;
            match k.as_ref() {
                "trace" if !v.is_empty() => s.trace = Some(v),
                "pid" => s.pid = v.parse().ok(),
                "compare" if !v.is_empty() => s.compare = Some(v),
                "live" if !v.is_empty() => s.live = Some(v),
                // A budget of 0 counts every GC; a window must be positive.
                "budget" => {
                    s.budget_ms = v.parse().ok().filter(|x: &f64| x.is_finite() && *x >= 0.0)
                }
                "window" => {
                    s.window_ms = v.parse().ok().filter(|x: &f64| x.is_finite() && *x > 0.0)
                }
                "tab" => s.tab = (!v.is_empty()).then_some(v),
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
                "only" => f.only = parse_ranges(&v),
                "goal" => s.goal = (!v.is_empty()).then_some(v),
                "sevent" if matches!(v.as_str(), "induced" | "triggered" | "pinned") => {
                    s.stacks_event = Some(v)
                }
                "sheap" if matches!(v.as_str(), "soh" | "loh" | "poh") => s.stacks_heap = Some(v),
                "stype" if !v.is_empty() => s.stacks_type = Some(v),
                "sorder" => s.stacks_up = v == "up",
                "sfocus" if !v.is_empty() => s.stacks_focus = Some(v),
                "htype" if !v.is_empty() => s.heap_type = Some(v),
                "hopen" => s.heap_open = parse_ranges(&v),
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
                k => {
                    if let Some(name) = table_param(k, "sort") {
                        let mut t = s.table(name);
                        t.sort = parse_sort(&v);
                        s.set_table(name, t);
                    } else if let Some(name) = table_param(k, "q") {
                        let mut t = s.table(name);
                        t.text = v;
                        s.set_table(name, t);
                    }
                }
            }
        }
        s
    }

    /// The sort and filter of the table named `name` in the address bar.
    pub fn table(&self, name: &str) -> SortFilter {
        self.tables.get(name).cloned().unwrap_or_default()
    }

    pub fn set_table(&mut self, name: &str, t: SortFilter) {
        if t.is_empty() {
            self.tables.remove(name);
        } else {
            self.tables.insert(name.to_string(), t);
        }
    }

    /// Whether going from `self` to `next` is a step the Back button should undo (a new history
    /// entry), rather than typing in a filter box (the current entry is replaced).
    pub fn is_navigation_to(&self, next: &ViewState) -> bool {
        let strip = |v: &ViewState| {
            let mut v = v.clone();
            v.filter.text.clear();
            v.filter.min_pause_ms = None;
            // Typed in the Latency tab's boxes.
            v.budget_ms = None;
            v.window_ms = None;
            for t in v.tables.values_mut() {
                t.text.clear();
            }
            v.tables.retain(|_, t| !t.is_empty());
            v
        };
        strip(self) != strip(next)
    }

    /// The pause budget to use (the default unless set).
    pub fn budget(&self) -> f64 {
        self.budget_ms.unwrap_or(DEFAULT_BUDGET_MS)
    }

    /// The GC table's columns: those chosen, else the defaults, with the Caller column beside
    /// the trigger reason where `callers` says (`tables::callers::CallerIndex::any_induced`).
    pub fn visible_columns(&self, callers: bool) -> Vec<&'static columns::Column> {
        match &self.columns {
            Some(c) => c.iter().filter_map(|id| columns::by_id(id)).collect(),
            None => columns::DEFAULT_COLUMNS
                .iter()
                .flat_map(|id| {
                    let caller = (callers && *id == "reason").then_some(CALLER);
                    std::iter::once(*id).chain(caller)
                })
                .filter_map(columns::by_id)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests;
