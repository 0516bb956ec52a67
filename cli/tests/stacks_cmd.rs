//! `gcscope stacks`: its outputs agree with each other and with `gcscope allocs` (the insights,
//! another path through the same ticks), on fixtures the runtime wrote with rundown.

use std::path::PathBuf;
use std::process::Command;

fn gcscope(args: &[&str]) -> (String, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(args)
        .output()
        .expect("run gcscope");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.success(),
    )
}

fn fixture(rt: &str, name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/traces")
        .join(rt)
        .join(format!("{name}.nettrace"))
        .to_string_lossy()
        .into_owned()
}

fn json(args: &[&str]) -> serde_json::Value {
    let (out, ok) = gcscope(args);
    assert!(ok, "{args:?}");
    serde_json::from_str(&out).expect("JSON")
}

/// The folded lines' values, checked to be `frames value` lines.
fn folded_sum(out: &str) -> u64 {
    out.lines()
        .map(|l| {
            let (frames, v) = l.rsplit_once(' ').expect("frames, a space, the value");
            assert!(!frames.is_empty(), "{l}");
            v.parse::<u64>().expect("a value")
        })
        .sum()
}

#[test]
fn allocation_stacks_sum_to_the_sampled_bytes_of_each_heap() {
    let f = fixture("net8.0", "loh");
    let allocs = json(&["allocs", &f, "--json"]);
    for (event, kind) in [
        ("alloc-loh", "large"),
        ("alloc-soh", "small"),
        ("alloc", ""),
    ] {
        let want = if kind.is_empty() {
            allocs["sampled_bytes"].as_u64().unwrap()
        } else {
            allocs["by_kind"][kind].as_u64().unwrap()
        };
        let j = json(&["stacks", &f, "--event", event, "--json"]);
        assert_eq!(j["total_value"].as_u64(), Some(want), "{event}");
        let stacks: u64 = j["stacks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["value"].as_u64().unwrap())
            .sum::<u64>()
            + j["no_stack"]["value"].as_u64().unwrap()
            + j["missing_stack"]["value"].as_u64().unwrap();
        assert_eq!(stacks, want, "{event}");
        let (folded, ok) = gcscope(&["stacks", &f, "--event", event, "--folded"]);
        assert!(ok);
        assert_eq!(folded_sum(&folded), want, "{event}");
        let sp = json(&["stacks", &f, "--event", event, "--speedscope"]);
        let p = &sp["profiles"][0];
        assert_eq!(p["unit"], "bytes");
        let weights: u64 = p["weights"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_u64().unwrap())
            .sum();
        assert_eq!(weights, want, "{event}");
    }
    // The LOH bytes come from the workload's LargeObjects method, named through rundown.
    let (folded, _) = gcscope(&["stacks", &f, "--event", "alloc-loh", "--folded"]);
    assert!(
        folded
            .lines()
            .all(|l| l.contains("Workloads!Workloads.LargeObjects()")),
        "{folded}"
    );
}

#[test]
fn pinned_handle_stacks_say_where_the_runtime_stopped() {
    let f = fixture("net9.0", "handles");
    let j = json(&["stacks", &f, "--event", "pinned-handles", "--json"]);
    assert_eq!(j["unit"], "count");
    assert!(j["note"].as_str().unwrap().contains("GCHandle.Alloc"));
    let first = &j["stacks"][0];
    let leaf = first["frames"][0]["method"].as_str().unwrap();
    assert!(
        first["note"]
            .as_str()
            .unwrap()
            .starts_with("the runtime recorded no frames above"),
        "{first}"
    );
    assert!(first["note"].as_str().unwrap().contains(leaf));
}

#[test]
fn type_with_a_non_allocation_event_is_refused() {
    let f = fixture("net8.0", "loh");
    let (_, ok) = gcscope(&[
        "stacks",
        &f,
        "--event",
        "induced",
        "--type",
        "System.String",
    ]);
    assert!(!ok);
}
