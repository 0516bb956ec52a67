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
mod tests {
    use super::*;

    #[test]
    fn a_fetched_trace_is_named_after_the_last_segment_of_its_address() {
        assert_eq!(
            trace_file_name("https://example.com/tools/app.nettrace"),
            "app.nettrace"
        );
        assert_eq!(
            trace_file_name("samples/net8-wks-concurrent.nettrace"),
            "net8-wks-concurrent.nettrace"
        );
        assert_eq!(
            trace_file_name("https://h/dl/my%20app%2B1.nettrace?sig=a/b#x"),
            "my app+1.nettrace"
        );
        assert_eq!(
            trace_file_name("https://h/a+b.nettrace.zip"),
            "a+b.nettrace.zip"
        );
        assert_eq!(trace_file_name("https://h/traces/latest/"), "latest");
        assert_eq!(trace_file_name("https://h/dl?file=x.nettrace"), "dl");
        for bare in ["https://h", "https://h/", "https://h/?x=1", "", "%20"] {
            assert_eq!(trace_file_name(bare), "trace", "{bare:?}");
        }
    }

    #[test]
    fn the_stacks_tab_keeps_its_choice_in_the_address() {
        let v = ViewState {
            tab: Some("stacks".into()),
            stacks_heap: Some("loh".into()),
            stacks_type: Some("System.Byte[]".into()),
            stacks_up: true,
            stacks_focus: Some("Workloads!A();Workloads!B(int32)".into()),
            ..Default::default()
        };
        let q = v.to_query();
        assert_eq!(
            q,
            "tab=stacks&sheap=loh&stype=System.Byte%5B%5D&sorder=up&sfocus=Workloads%21A%28%29%3BWorkloads%21B%28int32%29"
        );
        assert_eq!(ViewState::from_query(&q), v);
        // An unknown heap is no choice (every heap).
        assert_eq!(ViewState::from_query("sheap=gen9").stacks_heap, None);
        // The event: a count of induced GCs, GC triggers or pinned handles instead of bytes.
        let v = ViewState::from_query("tab=stacks&sevent=pinned");
        assert_eq!(v.stacks_event.as_deref(), Some("pinned"));
        assert_eq!(v.to_query(), "tab=stacks&sevent=pinned");
        assert_eq!(ViewState::from_query("sevent=alloc").stacks_event, None);
        assert!(!ViewState::from_query("sorder=down").stacks_up);
    }

    #[test]
    fn the_heap_tab_keeps_its_type_open_nodes_and_table_in_the_address() {
        let mut v = ViewState {
            tab: Some("heap".into()),
            heap_type: Some("System.Byte[]".into()),
            heap_open: vec![0, 1, 2, 7],
            ..Default::default()
        };
        v.set_table(
            "heap",
            SortFilter {
                sort: Some(Sort {
                    column: "count".into(),
                    desc: true,
                }),
                text: "String".into(),
            },
        );
        let q = v.to_query();
        assert_eq!(
            q,
            "tab=heap&htype=System.Byte%5B%5D&hopen=0-2,7&heapsort=-count&heapq=String"
        );
        assert_eq!(ViewState::from_query(&q), v);
    }

    #[test]
    fn query_round_trips_every_field() {
        let v = ViewState {
            tab: Some(GC_TABLE.into()),
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
                only: vec![3, 4, 5, 9],
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
            tables: [
                (
                    "pin".to_string(),
                    SortFilter {
                        sort: Some(Sort {
                            column: "count".into(),
                            desc: true,
                        }),
                        text: "Byte[]".into(),
                    },
                ),
                (
                    "live".to_string(),
                    SortFilter {
                        sort: None,
                        text: "x".into(),
                    },
                ),
            ]
            .into(),
            trace: Some("https://example.com/a b.nettrace?x=1&y=2".into()),
            pid: Some(3676),
            compare: Some("https://example.com/b.nettrace".into()),
            live: Some("stream".into()),
            budget_ms: Some(2.5),
            window_ms: Some(100.0),
            goal: Some("latency".into()),
            stacks_heap: Some("poh".into()),
            stacks_type: Some("System.String".into()),
            stacks_up: true,
            stacks_focus: Some("a;b".into()),
            stacks_event: Some("induced".into()),
            heap_type: Some("MyApp.Cache".into()),
            heap_open: vec![5, 6],
        };
        let q = v.to_query();
        assert!(
            q.starts_with("trace=https://example.com/a+b.nettrace%3Fx%3D1%26y%3D2&pid=3676&compare=https://example.com/b.nettrace&live=stream&tab=gcs&gen=0,2"),
            "{q}"
        );
        assert!(q.contains("&budget=2.5&window=100&"), "{q}");
        // A table's parameters are named for it, as links made before expect.
        assert!(
            q.ends_with(
                "&budget=2.5&window=100&goal=latency&sevent=induced&sheap=poh&stype=System.String&sorder=up&sfocus=a%3Bb&htype=MyApp.Cache&hopen=5-6&liveq=x&pinsort=-count&pinq=Byte%5B%5D"
            ),
            "{q}"
        );
        assert!(q.contains("&only=3-5,9&"), "{q}");
        assert_eq!(ViewState::from_query(&q), v);
        assert_eq!(ViewState::from_query(&format!("?{q}")), v);
        assert_eq!(ViewState::default().to_query(), "");
    }

    /// The state keeps any tab key (the views resolve it: `views::current`).
    #[test]
    fn a_tab_round_trips_under_its_own_key() {
        for key in [GC_TABLE, "allocs", "budgets", "a-new-view"] {
            let v = ViewState {
                tab: Some(key.into()),
                ..Default::default()
            };
            assert_eq!(ViewState::from_query(&v.to_query()), v, "{key}");
        }
        assert_eq!(
            ViewState::from_query("tab=allocs").tab.as_deref(),
            Some("allocs")
        );
        assert_eq!(ViewState::from_query("tab=").tab, None);
    }

    #[test]
    fn gc_number_ranges_read_back_and_bad_ones_are_ignored() {
        assert_eq!(ranges(&[1, 2, 3, 7, 9, 10]), "1-3,7,9-10");
        assert_eq!(parse_ranges("9-10,1-3,7,2"), vec![1, 2, 3, 7, 9, 10]);
        assert_eq!(parse_ranges("x,5-3,4-,-2,0-4294967295"), Vec::<u32>::new());
        assert_eq!(ranges(&[]), "");
        let v = ViewState::from_query("budget=-5&goal=");
        assert_eq!((v.budget_ms, v.goal), (None, None));
    }

    #[test]
    fn bad_parameters_are_ignored() {
        let v = ViewState::from_query(
            "tab=nope&gen=7,x,1&minpause=abc&gc=-1&cols=bogus&zz=1&q=%ZZ&budget=-1&window=0&compare=&pid=-3",
        );
        assert_eq!(
            (v.budget_ms, v.window_ms, v.compare.clone(), v.pid),
            (None, None, None, None)
        );
        assert_eq!(v.budget(), DEFAULT_BUDGET_MS);
        assert_eq!(ViewState::from_query("pid=4294967296").pid, None);
        assert_eq!(ViewState::from_query("pid=4294967295").pid, Some(u32::MAX));
        // An unknown tab is the views' to resolve (to the first tab).
        assert_eq!(v.tab.as_deref(), Some("nope"));
        assert_eq!(v.filter.gens, vec![1]);
        assert_eq!(v.filter.min_pause_ms, None);
        assert_eq!(v.selected, None);
        assert_eq!(v.columns, None);
        assert_eq!(v.filter.text, "%ZZ");
        assert!(v.tables.is_empty());
        // A table's parameter with nothing in it leaves the table at its default.
        assert!(ViewState::from_query("pinq=&kindsort=").tables.is_empty());
    }

    #[test]
    fn typing_replaces_history_and_clicking_adds_to_it() {
        let a = ViewState::default();
        let mut b = a.clone();
        b.filter.text = "low".into();
        assert!(!a.is_navigation_to(&b));
        b.set_table(
            "pin",
            SortFilter {
                sort: None,
                text: "byte".into(),
            },
        );
        assert!(!a.is_navigation_to(&b));
        b.budget_ms = Some(5.0);
        b.window_ms = Some(50.0);
        assert!(!a.is_navigation_to(&b));
        b.tab = Some(GC_TABLE.into());
        assert!(a.is_navigation_to(&b));
        // Another process is a step Back undoes.
        let mut c = a.clone();
        c.pid = Some(3988);
        assert!(a.is_navigation_to(&c));
    }

    /// The Caller column: beside the trigger reason in the defaults when the trace's induced GCs
    /// have callers, and, chosen or sorted on, kept in the link.
    #[test]
    fn the_caller_column_in_the_defaults_and_the_link() {
        let ids = |v: &ViewState, callers| -> Vec<String> {
            v.visible_columns(callers)
                .iter()
                .map(|c| c.id.clone())
                .collect()
        };
        let v = ViewState::default();
        assert!(!ids(&v, false).iter().any(|c| c == CALLER));
        let with = ids(&v, true);
        let at = with.iter().position(|c| c == "reason").unwrap();
        assert_eq!(with[at + 1], CALLER);
        assert_eq!(with.len(), ids(&v, false).len() + 1);
        let v = ViewState::from_query("cols=number,caller&sort=caller");
        assert_eq!(ids(&v, false), ["number", CALLER]);
        assert_eq!(v.sort.as_ref().map(|s| s.column.as_str()), Some(CALLER));
        assert_eq!(ViewState::from_query(&v.to_query()), v);
    }
}
