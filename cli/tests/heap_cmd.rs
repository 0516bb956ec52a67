//! `gcscope heap` end to end on the public heap dumps (`../shared/heapdumps`), against the
//! README's independent totals; and a trace command given a .gcdump points at `gcscope heap`.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn gcscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(args)
        .output()
        .expect("run gcscope")
}

fn dump(name: &str) -> Option<String> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/heapdumps")
        .join(name);
    if p.is_file() {
        Some(p.to_string_lossy().into_owned())
    } else {
        eprintln!(
            "skipping: {} not found (the shared heap dumps are absent)",
            p.display()
        );
        None
    }
}

fn json_of(args: &[&str]) -> Value {
    let out = gcscope(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON value")
}

#[test]
fn heap_json_has_the_readmes_totals() {
    let Some(f) = dump("gcdumpanalyze-test1.gcdump") else {
        return;
    };
    let v = json_of(&["heap", &f, "--json"]);
    assert_eq!(v["nodes"], 46_645);
    assert_eq!(v["edges"], 82_475);
    assert_eq!(v["total_bytes"], 3_339_490);
    let types = v["types"].as_array().unwrap();
    let s = types.iter().find(|t| t["name"] == "System.String").unwrap();
    assert_eq!(
        (s["count"].as_u64(), s["bytes"].as_u64()),
        (Some(6_913), Some(518_562))
    );
    assert!(s["retained_bytes"].as_u64().unwrap() > 0);
    let sum: u64 = types.iter().map(|t| t["bytes"].as_u64().unwrap()).sum();
    assert_eq!(sum, 3_339_490);

    let out = gcscope(&["heap", &f, "--csv"]);
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.starts_with("name,count,bytes,retained_bytes"), "{csv}");
    assert_eq!(csv.lines().count(), types.len() + 1);
}

#[test]
fn heap_subcommands_run() {
    let (Some(a), Some(b)) = (
        dump("monogcdumprepro-150515.gcdump"),
        dump("monogcdumprepro-150644.gcdump"),
    ) else {
        return;
    };
    let r = json_of(&["heap", "roots", &b, "--json"]);
    assert_eq!(r["tree"][0]["name"], "[.NET Roots]");
    assert_eq!(r["categories"].as_array().unwrap().len(), 6);
    let p = json_of(&["heap", "paths", &b, "--type", "System.String", "--json"]);
    assert_eq!(p["instances"], 4_230);
    let d = json_of(&["heap", "diff", &a, &b, "--json"]);
    let s = d["types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "System.String")
        .unwrap()
        .clone();
    assert_eq!(s["count_change"], 4_230 - 4_174);
    assert_eq!(s["bytes_change"], 292_088 - 285_248);
    let out = gcscope(&["heap", "paths", &b, "--type", "NoSuchType"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn trace_commands_point_a_gcdump_at_gcscope_heap() {
    let Some(f) = dump("perfview-test2-netfx.gcdump") else {
        return;
    };
    for cmd in ["summary", "gcs"] {
        let out = gcscope(&[cmd, &f]);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("gcscope heap"), "{cmd}: {err}");
    }
}
