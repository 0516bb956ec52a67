//! The DATAS tuning codes on the committed DATAS traces (.NET 9.0.5 and 10.0.11, `datas` and
//! `datas-tuned`; .NET 8's `datas`), against the runtime's GC source rather than gcscope's table:
//!
//! * each SizeAdaptationTuning blob is found in the trace's raw bytes by its UTF-16 name (no
//!   decoder involved) and its codes read at their offsets (the order `calculate_new_heap_count`
//!   fires them in: ... u8 AggFactor at 46, u16 ChangeDecision, u16 AdjReason, u16
//!   HcChangeFreqFactor, u16 HcFreqReason, u8 AdjMetric at 55);
//! * the names the model gives those numbers are the ones dotnet/runtime's `gcpriv.h` defines
//!   (`decide_change_condition`, `decide_adjustment_reason`, `hc_change_freq_reason`,
//!   `adjust_metric`), copied below as value -> name from the source, not from gcscope;
//! * each decision is consistent with what the heap count did, by the source's rules: only
//!   `adjust_hc` changes the count (and every change was decided with it, after
//!   `should_change` let it through: `init_change_condition`), a decrease sets the `dec` frequency
//!   reason, and the sentences say "increase" for more heaps and "decrease" for fewer. A table
//!   shifted by one fails these.

use std::path::Path;

use gcscope_core::gc::analyze;
use gcscope_core::gc::datas::DatasDecision;

/// `decide_change_condition` (one value), from gcpriv.h.
const CHANGE_DECISION: &[(u16, &str)] = &[
    (0x0, "init_change_condition"),
    (0x1, "change"),
    (0x2, "too_few_samples"),
    (0x4, "not_enough_diff_accumulated"),
    (0x8, "already_toward_target"),
    (0x10, "tcp_in_range"),
    (0x20, "temp_change"),
];
/// `decide_adjustment_reason` (bits), from gcpriv.h.
const ADJ_REASON: &[(u16, &str)] = &[
    (0x1, "limited_by_bounds"),
    (0x2, "cannot_adjust_budget"),
    (0x4, "change_pct_too_small"),
    (0x8, "change_too_soon"),
];
/// `hc_change_freq_reason` (bits), from gcpriv.h.
const FREQ_REASON: &[(u16, &str)] = &[
    (0x1, "expensive_hc_change"),
    (0x2, "dec"),
    (0x4, "dec_multiple"),
    (0x8, "fluctuation"),
];
/// `adjust_metric`, from gcpriv.h.
const ADJ_METRIC: &[(u16, &str)] = &[(0, "not_adjusted"), (1, "adjust_budget"), (2, "adjust_hc")];

/// The names of the bits set in `v`, as the source names them (`init`/`default` for none).
fn bits(table: &[(u16, &str)], none: &str, v: u16) -> String {
    if v == 0 {
        return none.into();
    }
    assert_eq!(
        v & !table.iter().fold(0, |a, b| a | b.0),
        0,
        "bit not in the source"
    );
    let names: Vec<&str> = table.iter().filter(|b| v & b.0 != 0).map(|b| b.1).collect();
    names.join("|")
}

fn one(table: &'static [(u16, &'static str)], v: u16) -> &'static str {
    table
        .iter()
        .find(|e| e.0 == v)
        .unwrap_or_else(|| panic!("value {v} is not in the source"))
        .1
}

/// Every blob of dynamic event `name` in the raw trace: the UTF-16LE name and its terminator,
/// then u32 DataSize and the blob.
fn raw_blobs(bytes: &[u8], name: &str) -> Vec<Vec<u8>> {
    let mut pat: Vec<u8> = name.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    pat.extend_from_slice(&[0, 0]);
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = bytes[i..].windows(pat.len()).position(|w| w == pat) {
        let at = i + p + pat.len();
        let size = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        out.push(bytes[at + 4..at + 4 + size].to_vec());
        i = at;
    }
    out
}

struct Raw {
    gc: u64,
    new_heaps: u16,
    change_decision: u16,
    adj_reason: u16,
    freq_factor: u16,
    freq_reason: u16,
    adj_metric: u8,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn read(b: &[u8]) -> Raw {
    assert_eq!(b.len(), 56, "SizeAdaptationTuning v1 is 56 bytes");
    Raw {
        gc: u64::from_le_bytes(b[8..16].try_into().unwrap()),
        new_heaps: u16_at(b, 2),
        change_decision: u16_at(b, 47),
        adj_reason: u16_at(b, 49),
        freq_factor: u16_at(b, 51),
        freq_reason: u16_at(b, 53),
        adj_metric: b[55],
    }
}

fn codes(d: &DatasDecision) -> &gcscope_core::gc::datas::TuningCodes {
    d.codes.as_ref().expect("a SizeAdaptationTuning has codes")
}

#[test]
fn tuning_codes_are_named_as_the_runtime_defines_them_and_agree_with_the_heap_count() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces");
    let (mut increases, mut decreases, mut kept, mut by_name) = (0, 0, 0, 0);
    for t in [
        "net9.0/datas",
        "net9.0/datas-tuned",
        "net10.0/datas",
        "net10.0/datas-tuned",
    ] {
        let bytes = std::fs::read(dir.join(format!("{t}.nettrace"))).unwrap();
        let m = analyze(&bytes).unwrap().datas;
        let raw: Vec<Raw> = raw_blobs(&bytes, "SizeAdaptationTuning")
            .iter()
            .map(|b| read(b))
            .collect();
        let decisions: Vec<(usize, &DatasDecision)> = m
            .decisions
            .iter()
            .enumerate()
            .filter(|(_, d)| d.event == "SizeAdaptationTuning")
            .collect();
        assert!(raw.len() > 10, "{t}: {}", raw.len());
        assert_eq!(raw.len(), decisions.len(), "{t}: every blob is a decision");
        // (The file holds events in blocks, not in time order: match them by GC.)
        for r in &raw {
            let at = format!("{t} decision at GC {}", r.gc);
            let mine: Vec<&(usize, &DatasDecision)> =
                decisions.iter().filter(|(_, d)| d.gc == r.gc).collect();
            assert_eq!(mine.len(), 1, "{at}");
            let (i, d) = mine[0];
            assert_eq!(u32::from(r.new_heaps), d.new_heap_count, "{at}");
            let c = codes(d);
            // The numbers, as in the bytes, and the source's names for them.
            assert_eq!(c.change_decision.value, r.change_decision, "{at}");
            assert_eq!(c.adjustment_reason.value, r.adj_reason, "{at}");
            assert_eq!(c.change_frequency_factor, r.freq_factor, "{at}");
            assert_eq!(c.change_frequency_reason.value, r.freq_reason, "{at}");
            assert_eq!(c.adjustment_metric.value, u16::from(r.adj_metric), "{at}");
            assert_eq!(
                c.change_decision.name,
                one(CHANGE_DECISION, r.change_decision),
                "{at}"
            );
            assert_eq!(
                c.adjustment_reason.name,
                bits(ADJ_REASON, "init_adjustment_reason", r.adj_reason),
                "{at}"
            );
            assert_eq!(
                c.change_frequency_reason.name,
                bits(FREQ_REASON, "default_reason", r.freq_reason),
                "{at}"
            );
            let metric = one(ADJ_METRIC, u16::from(r.adj_metric));
            assert_eq!(c.adjustment_metric.name, metric, "{at}");
            by_name += 1;

            // What the heap count did after it, by the source's rules.
            let before = d.heaps_before.expect("the decision's GC has a heap count");
            let change = m.changes.iter().find(|c| c.decision == Some(*i));
            if metric == "adjust_hc" {
                // Only a heap-count adjustment moves the count (should_change let it through).
                assert_eq!(c.change_decision.name, "init_change_condition", "{at}");
                assert_ne!(d.new_heap_count, before, "{at}");
                let change = change.unwrap_or_else(|| panic!("{at}: no change followed"));
                assert_eq!((change.from, change.to), (before, d.new_heap_count), "{at}");
                if d.new_heap_count > before {
                    increases += 1;
                    assert!(d.verdict.starts_with("increase: "), "{at}: {}", d.verdict);
                    assert!(d.verdict.contains("above target"), "{at}: {}", d.verdict);
                } else {
                    // A decrease after an earlier change: spaced out as a decrease.
                    decreases += 1;
                    assert!(r.freq_reason & 0x2 != 0, "{at}: no `dec` reason");
                    assert!(d.verdict.starts_with("decrease: "), "{at}: {}", d.verdict);
                    assert!(d.verdict.contains("below target"), "{at}: {}", d.verdict);
                }
            } else {
                kept += 1;
                assert_eq!(d.new_heap_count, before, "{at}: {metric} moved the count");
                assert!(change.is_none(), "{at}: {metric} caused a change");
                if c.change_decision.name != "init_change_condition" {
                    // should_change stopped it: nothing adjusted.
                    assert_eq!(metric, "not_adjusted", "{at}");
                }
                if metric == "not_adjusted" {
                    assert!(d.verdict.starts_with("keep: "), "{at}: {}", d.verdict);
                }
            }
        }
        // Every change of these traces was decided by a SizeAdaptationTuning with adjust_hc.
        for ch in &m.changes {
            let d = &m.decisions[ch.decision.expect("a decision")];
            assert_eq!(
                codes(d).adjustment_metric.name,
                "adjust_hc",
                "{t} GC {}",
                ch.gc
            );
        }
    }
    assert!(
        increases >= 4 && decreases >= 3,
        "{increases} up, {decreases} down"
    );
    assert!(kept > 50 && by_name > 60, "{kept} kept of {by_name}");

    // .NET 8's HeapCountTuning has no codes: its blobs are the 36-byte layout without them.
    let bytes = std::fs::read(dir.join("net8.0/datas.nettrace")).unwrap();
    let blobs = raw_blobs(&bytes, "HeapCountTuning");
    assert!(!blobs.is_empty());
    assert!(blobs.iter().all(|b| b.len() == 36));
    let m = analyze(&bytes).unwrap().datas;
    assert!(m.decisions.iter().all(|d| d.codes.is_none()));
}
