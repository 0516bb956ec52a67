//! gcscope's own attribution of the `stacks` and `stacks-jit` workloads (tools/tracegen), whose
//! allocation sites are known by construction (the oracle's `stack_sites`): each LOH site's
//! sampled bytes, LohHelper's bytes by caller, LohHeavy's share of the LOH bytes, SmallChurn's SOH
//! bytes, the induced GCs' caller and the pinned handles' creator (what the runtime records of it).
//!
//! The sampling bound: an AllocationTick fires when T = 100 KiB of one heap kind has been
//! allocated since the last one and reports all of it, and the sites run one after another, so
//! the bytes credited to a site differ from the bytes it allocated by less than T (plus, on the
//! LOH, 3 pointers per object that .NET Core 3.1 counts on top of each object's size; SOH bytes
//! are counted per allocation context, so there the bound is 2T). tools/tracegen/check_stacks.py
//! checks TraceEvent's reading against the same bounds; this is gcscope's, through
//! `gcscope_core::stacks`, the code `gcscope stacks` runs.
//!
//! Needs `GCSCOPE_FRESH_TRACES` (tools/tracegen/check-fresh.sh sets it); skips without it.

use gcscope_core::clr::enums::GcAllocationKind;
use gcscope_core::stacks::view::{Frames, Selection, StackSamplesBuilder, StackSums, Which};
use gcscope_core::{Consumer, TraceReader};
use serde_json::Value;
use std::path::PathBuf;

const TICK: i64 = 100 * 1024;

struct Read {
    samples: gcscope_core::stacks::view::StackSamples,
    table: gcscope_core::stacks::StackTable,
}

fn read(path: &PathBuf) -> Read {
    let bytes = std::fs::read(path).unwrap();
    let mut reader = TraceReader::for_consumer(Consumer::Stacks);
    let mut b = StackSamplesBuilder::new();
    reader.push(&bytes, &mut |e| b.on_event(e)).unwrap();
    reader.finish(&mut |e| b.on_event(e)).unwrap();
    Read {
        samples: b.finish(),
        table: reader
            .take_stacks()
            .expect("an EventPipe trace keeps its stacks"),
    }
}

/// The methods of stack `id`, leaf first ("" where a frame has no method).
fn methods(frames: &Frames<'_>, id: u32) -> Vec<String> {
    frames
        .frames(id)
        .into_iter()
        .map(|f| f.method.unwrap_or_default())
        .collect()
}

/// The value of the stacks of `sums` that `keep` accepts (given the stack's methods, leaf first).
fn value(sums: &StackSums, frames: &Frames<'_>, keep: impl Fn(&[String]) -> bool) -> i64 {
    sums.stacks
        .iter()
        .filter(|s| keep(&methods(frames, s.stack)))
        .map(|s| s.value as i64)
        .sum()
}

fn count(sums: &StackSums, frames: &Frames<'_>, keep: impl Fn(&[String]) -> bool) -> u64 {
    sums.stacks
        .iter()
        .filter(|s| keep(&methods(frames, s.stack)))
        .map(|s| s.count)
        .sum()
}

fn within(problems: &mut Vec<String>, what: &str, got: f64, lo: f64, hi: f64) {
    if !(lo < got && got < hi) {
        problems.push(format!("{what}: {got} outside ({lo}, {hi})"));
    }
}

#[test]
fn fresh_traces_credit_each_site() {
    let Some(root) = std::env::var_os("GCSCOPE_FRESH_TRACES") else {
        eprintln!(
            "skipped: GCSCOPE_FRESH_TRACES is not set (tools/tracegen/check-fresh.sh sets it)"
        );
        return;
    };
    let root = PathBuf::from(root);
    let mut checked = 0;
    let mut problems = Vec::new();
    for rt in std::fs::read_dir(&root).unwrap().flatten() {
        for w in ["stacks", "stacks-jit"] {
            let trace = rt.path().join(format!("{w}.nettrace"));
            let Ok(oracle) = std::fs::read(rt.path().join(format!("{w}.oracle.json"))) else {
                continue;
            };
            let o: Value = serde_json::from_slice(&oracle).unwrap();
            let name = trace.display().to_string();
            let r = read(&trace);
            let frames = Frames {
                table: &r.table,
                methods: &r.samples.methods,
            };
            let sites = &o["stack_sites"];
            let site = |m: &str| {
                sites["sites"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|s| s["method"] == m)
                    .unwrap_or_else(|| panic!("{name}: no site {m}"))
                    .clone()
            };
            let prefix = |m: &str| site(m)["full_name_prefix"].as_str().unwrap().to_string();
            let leaf_is =
                |p: String| move |ms: &[String]| ms.first().is_some_and(|m| m.starts_with(&p));
            let has = |p: String| move |ms: &[String]| ms.iter().any(|m| m.starts_with(&p));
            let per_obj = 3 * o["runtime"]["pointer_size"].as_i64().unwrap();
            let mut bad = Vec::new();

            let large = r
                .samples
                .sum(&Selection::new(Which::Alloc(Some(GcAllocationKind::Large))));
            for m in ["LohHeavy", "LohLight", "LohHelper"] {
                let s = site(m);
                let (a, n) = (
                    s["loh_bytes"].as_i64().unwrap(),
                    s["loh_objects"].as_i64().unwrap(),
                );
                let got = value(&large, &frames, leaf_is(prefix(m)));
                within(
                    &mut bad,
                    &format!("{m} LOH bytes"),
                    got as f64,
                    (a - TICK) as f64,
                    (a + n * per_obj + TICK) as f64,
                );
            }
            // LohHelper's bytes by its caller, the frame below the leaf.
            for (caller, a) in sites["helper_bytes_by_caller"].as_object().unwrap() {
                let a = a.as_i64().unwrap();
                let n = sites["helper_calls"][caller].as_i64().unwrap();
                let (helper, by) = (prefix("LohHelper"), format!("StackSites.{caller}("));
                let got = value(&large, &frames, |ms: &[String]| {
                    ms.first().is_some_and(|m| m.starts_with(&helper))
                        && ms.get(1).is_some_and(|m| m.starts_with(&by))
                });
                within(
                    &mut bad,
                    &format!("LohHelper under {caller}"),
                    got as f64,
                    (a - TICK) as f64,
                    (a + n * per_obj + TICK) as f64,
                );
            }
            // LohHeavy's share of every LOH byte sampled.
            let l = sites["loh_bytes_total"].as_i64().unwrap();
            let n_all: i64 = sites["sites"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["loh_objects"].as_i64().unwrap())
                .sum();
            let heavy = site("LohHeavy");
            let (a, n) = (
                heavy["loh_bytes"].as_i64().unwrap(),
                heavy["loh_objects"].as_i64().unwrap(),
            );
            let total = large.total_value as i64;
            let share = value(&large, &frames, leaf_is(prefix("LohHeavy"))) as f64 / total as f64;
            within(
                &mut bad,
                "LohHeavy's LOH share",
                share,
                (a - TICK) as f64 / (l + n_all * per_obj + TICK) as f64,
                (a + n * per_obj + TICK) as f64 / (l - TICK) as f64,
            );
            // SmallChurn's SOH bytes.
            let small = r
                .samples
                .sum(&Selection::new(Which::Alloc(Some(GcAllocationKind::Small))));
            let a = site("SmallChurn")["soh_bytes"].as_i64().unwrap();
            let got = value(&small, &frames, leaf_is(prefix("SmallChurn")));
            within(
                &mut bad,
                "SmallChurn SOH bytes",
                got as f64,
                (a - 2 * TICK) as f64,
                (a + 2 * TICK) as f64,
            );
            // Every induced GC is CallsCollect's, and it made exactly the oracle's number.
            let induced = r.samples.sum(&Selection::new(Which::Induced));
            let k = site("CallsCollect")["induced_gcs"].as_u64().unwrap();
            let under = count(&induced, &frames, has(prefix("CallsCollect")));
            if induced.total_count != k || under != k {
                bad.push(format!(
                    "induced GCs: {} in all, {under} under CallsCollect, oracle {k}",
                    induced.total_count
                ));
            }
            // Pinned handles: at least the workload's, and none credited to another site (the
            // runtime records no frame of PinsHandles itself, tools/tracegen/README.md).
            let pinned = r.samples.sum(&Selection::new(Which::PinnedHandles));
            let n = site("PinsHandles")["pinned_handles"].as_u64().unwrap();
            let others: Vec<String> = [
                "LohHeavy",
                "LohLight",
                "LohHelper",
                "SmallChurn",
                "CallsCollect",
            ]
            .iter()
            .map(|m| prefix(m))
            .collect();
            let wrong = count(&pinned, &frames, |ms: &[String]| {
                others
                    .iter()
                    .any(|p| ms.iter().any(|m| m.starts_with(p.as_str())))
            });
            let all_pinned =
                pinned.total_count + pinned.no_stack.count + pinned.missing_stack.count;
            if all_pinned < n || wrong > 0 {
                bad.push(format!(
                    "pinned handles: {all_pinned} (oracle {n}), {wrong} credited to another site"
                ));
            }
            eprintln!("{name}: LohHeavy share {share:.4}, {under}/{k} induced under CallsCollect, {all_pinned} pinned handles");
            problems.extend(bad.into_iter().map(|b| format!("{name}: {b}")));
            checked += 1;
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    eprintln!("{checked} stacks traces checked");
    assert!(
        checked > 0 || std::env::var_os("TRACEGEN_WORKLOADS").is_some(),
        "no stacks workload under {}",
        root.display()
    );
}
