//! `gcscope heap` end to end on the public heap dumps (`../shared/heapdumps`), against the
//! README's independent totals, bare and wrapped (gzipped and zipped here at run time by the
//! `gzip` and `zip` tools, under names that say nothing); and a trace command given a .gcdump
//! points at `gcscope heap`.

mod common;

use common::gcscope;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// `heapdumps/NAME` in the shared test data, or None (the test skips).
fn dump(name: &str) -> Option<String> {
    common::shared_file("heapdumps", name)
}

/// The row of type `name` in a `--json` answer's `types` (a snapshot's or a diff's).
fn type_named(v: &Value, name: &str) -> Value {
    let types = v["types"].as_array().expect("a types array");
    let row = types.iter().find(|t| t["name"] == name);
    row.unwrap_or_else(|| panic!("no type {name}")).clone()
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
    let s = type_named(&v, "System.String");
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
    let s = type_named(&d, "System.String");
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

/// The README's (file, nodes, total bytes).
const DUMPS: &[(&str, u64, u64)] = &[
    ("gcdumpanalyze-test1.gcdump", 46_645, 3_339_490),
    ("monogcdumprepro-150515.gcdump", 27_570, 1_780_688),
    ("monogcdumprepro-150644.gcdump", 27_914, 1_814_480),
    ("perfview-test2-netfx.gcdump", 140_391, 4_147_128),
    ("perfview-test1-js.gcdump", 6_482, 1_009_270),
];

/// A fresh folder for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("heap_cmd-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Runs a packing tool in `dir`; false (with a note) where it is not installed.
fn tool(dir: &std::path::Path, cmd: &str, args: &[&str]) -> bool {
    match Command::new(cmd).args(args).current_dir(dir).status() {
        Ok(s) if s.success() => true,
        Ok(s) => panic!("{cmd} {args:?}: {s}"),
        Err(e) => {
            eprintln!("skipping: `{cmd}` cannot run ({e})");
            false
        }
    }
}

/// `dump`'s copy in `dir` gzipped (as `NAME.gz` and under a name that says nothing) and zipped
/// (beside a text file, after it): the paths, or None where `gzip` or `zip` is missing.
fn wrapped(dir: &std::path::Path, dump: &str, name: &str) -> Option<[String; 3]> {
    std::fs::copy(dump, dir.join(name)).expect("copy the dump");
    std::fs::write(dir.join("notes.txt"), "not a snapshot").unwrap();
    if !tool(dir, "gzip", &["-k", "-6", name])
        || !tool(dir, "zip", &["-q", "-9", "w.zip", "notes.txt", name])
    {
        return None;
    }
    let gz = dir.join(format!("{name}.gz"));
    let disguised = dir.join("snapshot.bin");
    std::fs::rename(&gz, &disguised).unwrap();
    let zip = dir.join("w.zip");
    let as_string = |p: PathBuf| p.to_string_lossy().into_owned();
    Some([
        as_string(dir.join(name)),
        as_string(disguised),
        as_string(zip),
    ])
}

#[test]
fn wrapped_snapshots_read_as_the_file_itself() {
    for &(file, nodes, bytes) in DUMPS {
        let Some(f) = dump(file) else { return };
        let dir = scratch(file.trim_end_matches(".gcdump"));
        let Some([bare, gz, zip]) = wrapped(&dir, &f, "app.gcdump") else {
            return;
        };
        let want = common::ok_stdout(&["heap", &bare, "--json"]);
        let v: Value = serde_json::from_slice(&want).unwrap();
        assert_eq!(
            (v["nodes"].as_u64(), v["total_bytes"].as_u64()),
            (Some(nodes), Some(bytes)),
            "{file}"
        );
        for w in [&gz, &zip] {
            assert!(
                common::ok_stdout(&["heap", w, "--json"]) == want,
                "{file}: {w}"
            );
            assert!(
                common::ok_stdout(&["heap", w, "--top", "5"])
                    == common::ok_stdout(&["heap", &bare, "--top", "5"]),
                "{file}: {w}, the table"
            );
        }
    }
}

#[test]
fn every_heap_subcommand_reads_wrapped_snapshots() {
    let (Some(a), Some(b)) = (
        dump("monogcdumprepro-150515.gcdump"),
        dump("monogcdumprepro-150644.gcdump"),
    ) else {
        return;
    };
    let (da, db) = (scratch("sub-a"), scratch("sub-b"));
    let (Some([a, a_gz, a_zip]), Some([b, b_gz, b_zip])) =
        (wrapped(&da, &a, "a.gcdump"), wrapped(&db, &b, "b.gcdump"))
    else {
        return;
    };
    for (bare, w) in [(&b, &b_gz), (&b, &b_zip)] {
        for sub in [
            vec!["heap", "roots", "--json"],
            vec!["heap", "paths", "--type", "System.String", "--json"],
        ] {
            let with = |file: &str| {
                let mut args = sub.clone();
                args.insert(2, file);
                common::ok_stdout(&args)
            };
            assert!(with(w) == with(bare), "{sub:?} {w}");
        }
    }
    let want = common::ok_stdout(&["heap", "diff", &a, &b, "--json"]);
    assert!(common::ok_stdout(&["heap", "diff", &a_zip, &b_gz, "--json"]) == want);
    assert!(common::ok_stdout(&["heap", "diff", &a_gz, &b_zip, "--json"]) == want);
    let d: Value = serde_json::from_slice(&want).unwrap();
    let s = type_named(&d, "System.String");
    // The README's String counts of the pair.
    assert_eq!(s["count_change"], 4_230 - 4_174);
}

#[test]
fn a_zip_of_several_snapshots_says_which_it_read() {
    let (Some(a), Some(b)) = (
        dump("monogcdumprepro-150515.gcdump"),
        dump("monogcdumprepro-150644.gcdump"),
    ) else {
        return;
    };
    let dir = scratch("several");
    std::fs::copy(&b, dir.join("later.gcdump")).unwrap();
    std::fs::copy(&a, dir.join("earlier.gcdump")).unwrap();
    if !tool(
        &dir,
        "zip",
        &["-q", "two.zip", "later.gcdump", "earlier.gcdump"],
    ) {
        return;
    }
    let zip = dir.join("two.zip").to_string_lossy().into_owned();
    let out = gcscope(&["heap", &zip, "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("holds 2 heap snapshots; reading later.gcdump (the others: earlier.gcdump)"),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], 27_914, "the first entry, 150644");
}

#[test]
fn broken_or_empty_wrappers_are_named() {
    let Some(f) = dump("perfview-test1-js.gcdump") else {
        return;
    };
    let dir = scratch("broken");
    let Some([_, gz, _]) = wrapped(&dir, &f, "js.gcdump") else {
        return;
    };
    // A .gz cut short: the byte it ends at.
    let bytes = std::fs::read(&gz).unwrap();
    let cut = dir.join("cut.gcdump.gz");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = gcscope(&["heap", &cut.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "cut off at byte {} (inside gzip compressed data)",
            bytes.len() / 2
        )),
        "{err}"
    );
    // A trailer claiming 4 GiB less one byte: named, not trusted.
    let mut lying = bytes.clone();
    let at = lying.len() - 4;
    lying[at..].copy_from_slice(&u32::MAX.to_le_bytes());
    let claim = dir.join("claim.gz");
    std::fs::write(&claim, &lying).unwrap();
    let out = gcscope(&["heap", &claim.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "damaged at byte {at}: the gzip trailer says its data is 4294967295 bytes"
        )),
        "{err}"
    );
    // A .zip with neither a snapshot nor a trace: what it holds.
    if !tool(&dir, "zip", &["-q", "other.zip", "notes.txt"]) {
        return;
    }
    let out = gcscope(&["heap", &dir.join("other.zip").to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is neither a .gcdump heap snapshot nor an event trace: a .zip archive without a .gcdump heap snapshot or a trace")
            && err.contains("(it holds: notes.txt)"),
        "{err}"
    );
}

#[test]
fn a_zipped_trace_is_read_for_its_heap_walk() {
    let trace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/traces/net8.0/induced.nettrace");
    let dir = scratch("trace");
    std::fs::copy(&trace, dir.join("induced.nettrace")).unwrap();
    if !tool(&dir, "zip", &["-q", "t.zip", "induced.nettrace"])
        || !tool(&dir, "gzip", &["-k", "induced.nettrace"])
    {
        return;
    }
    // The fixture has GCs and no heap walk: the trace reader says so, zipped or not.
    for f in ["induced.nettrace", "t.zip", "induced.nettrace.gz"] {
        let p = dir.join(f).to_string_lossy().into_owned();
        let out = gcscope(&["heap", &p]);
        assert_eq!(out.status.code(), Some(1), "{f}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("holds no heap walk"), "{f}: {err}");
    }
}
