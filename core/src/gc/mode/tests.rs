use super::*;

fn decided(e: &ModeEvidence, bgc: bool) -> ProcessFacts {
    decided_with(e, bgc, 0)
}

fn decided_with(e: &ModeEvidence, bgc: bool, changes: u32) -> ProcessFacts {
    let mut p = ProcessFacts::default();
    decide(e, bgc, changes, &mut p);
    p
}

#[test]
fn mib_rounds_to_the_nearest_mib_for_any_size() {
    // The reference rounds in 128 bits, where adding half a MiB cannot overflow.
    let half = 1u64 << 19;
    for b in [
        0,
        1,
        half - 1,
        half,
        (1 << 20) - 1,
        1 << 20,
        3 * half,
        u64::MAX - half,
        u64::MAX,
    ] {
        let want = ((u128::from(b) + u128::from(half)) >> 20) as u64;
        assert_eq!(mib(b), want, "{b}");
    }
}

#[test]
fn a_per_heap_history_for_the_last_heap_index_does_not_overflow() {
    // Found by the `container` fuzz target: heap index u32::MAX, no global history.
    let mut e = ModeEvidence::default();
    e.on_per_heap(u32::MAX);
    let p = decided(&e, false);
    assert_eq!(p.heap_count, Some(u32::MAX));
}

#[test]
fn datas_server_from_heap_counts_and_events() {
    let mut e = ModeEvidence::default();
    for h in [1, 1, 2, 2, 1, 2] {
        e.on_heap_count(h);
    }
    e.on_datas_event();
    let p = decided_with(&e, false, 3);
    assert_eq!(p.gc_mode.as_deref(), Some("server"));
    assert_eq!((p.heap_count_min, p.heap_count), (Some(1), Some(2)));
    assert_eq!(p.heap_count_changes, 3);
    assert_eq!(p.datas, Some(true));
    assert_eq!(
        label(&p),
        "server, DATAS: 1-2 heaps (heap count changed 3 times)"
    );
}

#[test]
fn one_heap_is_not_taken_for_workstation() {
    let mut e = ModeEvidence::default();
    e.on_heap_count(1);
    let p = decided(&e, false);
    assert_eq!(p.gc_mode, None);
    assert!(label(&p).starts_with("unknown, 1 heap"), "{}", label(&p));
    let server = p
        .gc_mode_evidence
        .iter()
        .find(|f| f.setting == "gc")
        .unwrap();
    assert!(
        server.evidence.contains("Runtime/Start"),
        "{}",
        server.evidence
    );
    // Verbose GC events without any GCJoin: workstation.
    e.on_verbose_gc();
    let p = decided(&e, false);
    assert_eq!(label(&p), "workstation, 1 heap");
    assert_eq!(p.datas, Some(false));
    // A 1-heap server GC (DATAS at one heap) fires GCJoin.
    e.on_join();
    let p = decided(&e, false);
    assert_eq!(p.gc_mode.as_deref(), Some("server"));
    assert_eq!(label(&p), "server, 1 heap");
}

#[test]
fn startup_flags_settings_and_segments() {
    let mut e = ModeEvidence::default();
    e.on_runtime_information(STARTUP_SERVER_GC | STARTUP_CONCURRENT_GC, Some(8), false);
    e.on_heap_count(4);
    e.on_datas_event();
    let p = decided(&e, false);
    assert_eq!(
        label(&p),
        "server, DATAS: 4 heaps (heap count never changed)"
    );
    assert_eq!(p.concurrent, Some(true));
    // Settings rundown overrides the startup flags for background GC; a hard limit.
    e.on_settings(64 << 20, SETTINGS_HARD_LIMIT_CONFIG);
    e.on_segment(SEGMENT_SOH, 4 << 20);
    e.on_segment(SEGMENT_SOH, 4 << 20);
    let p = decided(&e, false);
    assert_eq!(p.concurrent, Some(false));
    assert_eq!(p.hard_limit_bytes, Some(64 << 20));
    assert_eq!(p.regions, Some(true));
    // Segments: one large small-object-heap segment.
    let mut s = ModeEvidence::default();
    s.on_segment(SEGMENT_SOH, 256 << 20);
    assert_eq!(decided(&s, true).regions, Some(false));
    assert_eq!(decided(&s, true).concurrent, Some(true));
    // A 3.x runtime: no DATAS, segments. Its RuntimeInformation has 0 for flags: no evidence.
    let mut old = ModeEvidence::default();
    old.on_runtime_information(0, Some(3), false);
    assert_eq!(decided(&old, false).gc_mode, None);
    // .NET 5 still writes 0 whatever the GC (dotnet/runtime#52042): no evidence either.
    let mut five = ModeEvidence::default();
    five.on_runtime_information(0, Some(5), false);
    let p = decided(&five, false);
    assert_eq!(
        (p.gc_mode.as_deref(), p.concurrent, p.heap_count),
        (None, None, None)
    );
    assert!(
        label(&p).starts_with("unknown, heap count unknown"),
        "{}",
        label(&p)
    );
    // A .NET 5 server GC's flags, when set, still count.
    let mut five_server = ModeEvidence::default();
    five_server.on_runtime_information(STARTUP_SERVER_GC, Some(5), false);
    assert_eq!(
        decided(&five_server, false).gc_mode.as_deref(),
        Some("server")
    );
    // From .NET 6 a 0 means workstation, non-concurrent, and so one heap, in the label and the
    // evidence alike.
    let mut new = ModeEvidence::default();
    new.on_runtime_information(0, Some(10), false);
    let p = decided(&new, false);
    assert_eq!(
        (p.gc_mode.as_deref(), p.concurrent),
        (Some("workstation"), Some(false))
    );
    assert_eq!(p.heap_count, Some(1));
    let heaps = p
        .gc_mode_evidence
        .iter()
        .find(|f| f.setting == "heaps")
        .expect("a heaps fact");
    assert_eq!(heaps.value, "1");
    old.on_heap_count(2);
    let p = decided(&old, false);
    assert_eq!((p.datas, p.regions), (Some(false), Some(false)));
    assert_eq!(label(&p), "server, 2 heaps");
    // Server with no GC events at all: DATAS unknown.
    let mut bare = ModeEvidence::default();
    bare.on_runtime_information(STARTUP_SERVER_GC, None, false);
    let p = decided(&bare, false);
    assert_eq!(label(&p), "server, heap count unknown (DATAS unknown)");
    assert_eq!(p.hard_limit_bytes, None);
    let limit = p
        .gc_mode_evidence
        .iter()
        .find(|f| f.setting == "hard_limit")
        .unwrap();
    assert_eq!(limit.value, "unknown");
}

/// The setting `name`'s evidence line.
fn evidence<'a>(p: &'a ProcessFacts, name: &str) -> &'a str {
    &p.gc_mode_evidence
        .iter()
        .find(|f| f.setting == name)
        .unwrap()
        .evidence
}

#[test]
fn dotnet_framework_settings_and_sku() {
    // The private GC/Settings alone (a process that started while traced, no Runtime/Start).
    let mut wks = ModeEvidence::default();
    wks.on_framework_settings(false, 16 << 20);
    let p = decided(&wks, false);
    assert_eq!(label(&p), "workstation, 1 heap");
    assert_eq!(
        evidence(&p, "gc"),
        "GC/Settings (private provider) without ServerGC"
    );
    assert_eq!(p.regions, Some(false));
    assert!(evidence(&p, "regions").ends_with("GC/Settings: 16 MiB segments"));
    let mut svr = ModeEvidence::default();
    svr.on_framework_settings(true, 1 << 30);
    svr.on_heap_count(8);
    let p = decided(&svr, false);
    assert_eq!(p.gc_mode.as_deref(), Some("server"));
    // Runtime/Start of .NET Framework (Sku DesktopClr): its BCL 4.x is not .NET Core 3, so
    // the reasons name .NET Framework; CONCURRENT_GC without SERVER_GC is workstation.
    let mut fx = ModeEvidence::default();
    fx.on_runtime_information(STARTUP_CONCURRENT_GC, None, true);
    let p = decided(&fx, false);
    assert_eq!(
        (p.gc_mode.as_deref(), p.concurrent, p.datas, p.regions),
        (Some("workstation"), Some(true), Some(false), Some(false))
    );
    assert_eq!(evidence(&p, "datas"), "workstation GC");
    assert!(evidence(&p, "regions").starts_with(".NET Framework: segments"));
    // Startup flags 0 say nothing (as on .NET Core 3.x); DATAS is still known to be off.
    let mut zero = ModeEvidence::default();
    zero.on_runtime_information(0, None, true);
    let p = decided(&zero, false);
    assert_eq!((p.gc_mode.as_deref(), p.datas), (None, Some(false)));
    assert!(evidence(&p, "datas").starts_with(".NET Framework"));
    // Both: each named.
    fx.on_framework_settings(false, 256 << 20);
    assert_eq!(
        evidence(&decided(&fx, false), "gc"),
        "GC/Settings (private provider) without ServerGC; Runtime/Start StartupFlags without \
         SERVER_GC"
    );
}
