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
