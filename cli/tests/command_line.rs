//! The command line itself: help for every subcommand (options and an example), the version,
//! one-line errors with the exit status scripts tell apart, shell completions, and `gcs` output
//! streamed as the trace is read.

mod common;

use common::gcscope;
use std::path::PathBuf;
use std::process::Command;

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).expect("UTF-8")
}

fn fixture(rt: &str, name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/traces")
        .join(rt)
        .join(format!("{name}.nettrace"))
        .to_string_lossy()
        .into_owned()
}

/// Every subcommand with the options its help must list (beyond FILE, --pid, --process and --help).
const SUBCOMMANDS: &[(&str, &[&str])] = &[
    ("events", &["--json"]),
    (
        "summary",
        &[
            "--json",
            "--csv",
            "--jsonl",
            "--parquet <PATH>",
            "[FILE]...",
        ],
    ),
    (
        "latency",
        &[
            "--json",
            "--from <MS>",
            "--to <MS>",
            "--budget <MS>",
            "--window <MS>",
        ],
    ),
    (
        "gcs",
        &[
            "--json",
            "--csv",
            "--gen <N>",
            "--min-pause <MS>",
            "--reason <R>",
            "--jsonl",
            "--parquet <PATH>",
            "[FILE]...",
        ],
    ),
    ("reasons", &["--json"]),
    ("pins", &["--json"]),
    ("handles", &["--json"]),
    (
        "allocs",
        &["--json", "--from <MS>", "--to <MS>", "--top <N>"],
    ),
    (
        "stacks",
        &[
            "--event <EVENT>",
            "--type <T>",
            "--from <MS>",
            "--to <MS>",
            "--folded",
            "--json",
            "--speedscope",
            "--top <N>",
        ],
    ),
    ("budgets", &["--json"]),
    ("roots", &["--json"]),
    ("suspensions", &["--json"]),
    ("counters", &["--json", "--csv"]),
    ("memory", &["--json"]),
    ("datas", &["--json"]),
    (
        "findings",
        &[
            "--json",
            "--budget <MS>",
            "--goal <GOAL>",
            "--fail-on <SEVERITY>",
        ],
    ),
];

#[test]
fn every_subcommand_has_help_with_its_options_and_an_example() {
    let top = gcscope(&["--help"]);
    assert_eq!(top.status.code(), Some(0));
    let top = text(&top.stdout);
    for (cmd, options) in SUBCOMMANDS {
        assert!(
            top.lines().any(|l| l.trim_start().starts_with(cmd)),
            "{cmd} missing from gcscope --help:\n{top}"
        );
        for args in [vec![*cmd, "--help"], vec!["help", *cmd]] {
            let out = gcscope(&args);
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            let help = text(&out.stdout);
            assert!(help.contains(&format!("Usage: gcscope {cmd} ")), "{help}");
            assert!(help.contains("<FILE>"), "{cmd}: {help}");
            // Every subcommand reads one process of a machine-wide trace (args::Input).
            for o in options.iter().chain(&["--pid <N>", "--process <NAME>"]) {
                assert!(help.contains(o), "{cmd} --help lacks {o}:\n{help}");
            }
            // An example that runs this subcommand on a trace.
            assert!(
                help.lines().any(|l| l
                    .trim_start()
                    .starts_with(&format!("gcscope {cmd} trace.nettrace"))),
                "{cmd} --help has no example:\n{help}"
            );
        }
    }
}

#[test]
fn version_is_the_packages() {
    let out = gcscope(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        format!("gcscope {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn an_unknown_option_is_one_line_naming_it_with_status_2() {
    let trace = fixture("net8.0", "loh");
    for (args, named) in [
        (vec!["gcs", trace.as_str(), "--jsn"], "'--jsn'"),
        (
            vec!["summary", "--frobnicate", trace.as_str()],
            "'--frobnicate'",
        ),
        (vec!["counters", trace.as_str(), "-x"], "'-x'"),
        (vec!["frobnicate", trace.as_str()], "'frobnicate'"),
        (
            vec!["pins", trace.as_str(), "other.nettrace"],
            "'other.nettrace'",
        ),
    ] {
        let out = gcscope(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.ends_with('\n'), "{err:?}");
        assert!(err.contains(named), "{args:?}: {err}");
        assert!(err.contains("--help"), "{args:?}: {err}");
    }
    // A near miss says what was meant.
    let err = text(&gcscope(&["gcs", &trace, "--jsn"]).stderr);
    assert!(
        err.starts_with("gcscope gcs: ") && err.contains("'--json'"),
        "{err}"
    );
}

#[test]
fn bad_values_and_a_missing_file_are_one_line_with_status_2() {
    let trace = fixture("net8.0", "loh");
    for (args, named) in [
        (vec!["gcs", trace.as_str(), "--gen", "3"], "--gen"),
        (
            vec!["gcs", trace.as_str(), "--min-pause", "soon"],
            "--min-pause",
        ),
        (vec!["allocs", trace.as_str(), "--top"], "--top"),
        (vec!["memory"], "FILE"),
        (vec!["completions", "tcsh"], "bash"),
        (vec!["counters", trace.as_str(), "--json", "--csv"], "--csv"),
    ] {
        let out = gcscope(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(named), "{args:?}: {err}");
    }
}

#[test]
fn negative_numbers_are_values_as_before() {
    // The hand-written parser took any next word as an option's value; times may be negative.
    let trace = fixture("net8.0", "loh");
    let out = gcscope(&["allocs", &trace, "--from", "-5", "--to", "100", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["from_ms"], -5.0);
    let all = gcscope(&["gcs", &trace, "--json"]);
    let negative = gcscope(&["gcs", &trace, "--min-pause", "-1", "--json"]);
    assert!(negative.status.success(), "{}", text(&negative.stderr));
    assert_eq!(negative.stdout, all.stdout);
}

#[test]
fn completions_for_each_shell_name_every_subcommand() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = gcscope(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = text(&out.stdout);
        for (cmd, _) in SUBCOMMANDS {
            assert!(script.contains(cmd), "{shell} completion lacks {cmd}");
        }
        assert!(script.contains("min-pause"), "{shell}");
    }
    // bash parses what it is given (where bash is installed).
    let out = gcscope(&["completions", "bash"]);
    if let Ok(check) = Command::new("bash")
        .args(["-n", "-c", &text(&out.stdout)])
        .output()
    {
        assert!(check.status.success(), "{}", text(&check.stderr));
    }
}

#[test]
fn gcs_json_is_the_models_rows() {
    // The rows gcs streams, read back, are the rows of the model the core builds from the whole
    // file at once (no row dropped, none handed out early).
    for (rt, name) in [("net8.0", "server"), ("netcore3.1", "wks-concurrent")] {
        let trace = fixture(rt, name);
        let out = gcscope(&["gcs", &trace, "--json"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let model = gcscope_core::gc::analyze(&std::fs::read(&trace).unwrap()).unwrap();
        let want = serde_json::to_string_pretty(&model.gcs).unwrap() + "\n";
        assert!(text(&out.stdout) == want, "{rt}/{name}");
    }
}

#[test]
fn gcs_on_a_damaged_trace_prints_the_rows_before_the_damage_as_whole_json_and_csv() {
    // The rows are written on a thread of their own; an error while reading still ends the JSON
    // array (and the CSV), so what was read before the damage is usable, and the exit status and
    // the message say the trace is damaged.
    let trace = fixture("net8.0", "server");
    let bytes = std::fs::read(&trace).unwrap();
    let mut damaged = bytes[..bytes.len() * 3 / 5].to_vec();
    damaged.extend_from_slice(&[0x3f; 256 << 10]);
    let path =
        std::env::temp_dir().join(format!("gcscope-damaged-{}.nettrace", std::process::id()));
    std::fs::write(&path, &damaged).unwrap();
    let p = path.to_str().unwrap();
    let whole = gcscope_core::gc::analyze(&bytes).unwrap();

    let out = gcscope(&["gcs", p, "--json"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("damaged at byte"),
        "{}",
        text(&out.stderr)
    );
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&out.stdout).expect("a whole JSON array");
    assert!(
        rows.len() > 2 && rows.len() < whole.gcs.len(),
        "{} of {}",
        rows.len(),
        whole.gcs.len()
    );
    // Every row but the last (which the damage may have cut short) is the GC the whole trace has.
    for r in &rows[..rows.len() - 1] {
        let n = r["number"].as_u64().unwrap();
        let gc = whole.gcs.iter().find(|g| u64::from(g.number) == n).unwrap();
        // Both sides parsed from text, as serde_json reads floats the same way each time.
        let want: serde_json::Value =
            serde_json::from_str(&serde_json::to_string(gc).unwrap()).unwrap();
        assert!(r == &want, "GC {n} differs from the whole trace's");
    }

    let out = gcscope(&["gcs", p, "--csv"]);
    assert!(!out.status.success());
    assert_eq!(
        text(&out.stdout).lines().count(),
        rows.len() + 1,
        "a header and a line per row"
    );
    let _ = std::fs::remove_file(&path);
}

/// A read that fails before any GC prints nothing on stdout, in every streamed format: a script
/// that ignores the exit status must not read an error as "no GCs" (`[]`, or a CSV header alone).
#[test]
fn gcs_prints_nothing_on_stdout_when_the_read_fails() {
    let dir = std::env::temp_dir().join(format!("gcscope-gcs-fails-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // A heap snapshot's signature (FastSerialization, then no Trace object): not a trace.
    let not_a_trace = dir.join("heap.gcdump");
    let mut gcdump = b"!FastSerialization.1".to_vec();
    gcdump.extend_from_slice(&[0x05, 0x04, 0x01, 0x00, 0x00, 0x00]);
    gcdump.extend_from_slice(b"MemoryGraph.Graph heap snapshot bytes");
    std::fs::write(&not_a_trace, &gcdump).expect("write");
    let text_file = dir.join("notes.nettrace");
    std::fs::write(&text_file, b"not a trace at all\n").expect("write");
    let trace = fixture("net8.0", "loh");
    let cases: Vec<Vec<String>> = vec![
        vec![not_a_trace.to_string_lossy().into_owned()],
        vec![text_file.to_string_lossy().into_owned()],
        vec![trace.clone(), "--pid".into(), "999999".into()],
    ];
    for case in cases {
        for format in [
            &["--json"][..],
            &["--csv"][..],
            &["--json", "--jobs", "2"][..],
        ] {
            let mut args: Vec<&str> = vec!["gcs"];
            args.extend(case.iter().map(String::as_str));
            args.extend_from_slice(format);
            let out = gcscope(&args);
            assert_ne!(out.status.code(), Some(0), "{args:?} succeeded");
            assert!(
                out.stdout.is_empty(),
                "{args:?} printed {:?}",
                text(&out.stdout)
            );
            assert!(!out.stderr.is_empty(), "{args:?} said nothing on stderr");
        }
    }
    // A trace that reads fine still prints its array and its CSV header.
    let out = gcscope(&["gcs", &trace, "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).starts_with("[\n  {"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A .nettrace cut right after its Trace object (an aborted `dotnet-trace`: no block, no end tag)
/// is said to be cut off, where, with what it holds, instead of read as a complete empty trace.
#[test]
fn a_trace_cut_after_its_trace_object_says_so() {
    let bytes = std::fs::read(fixture("net8.0", "loh")).expect("fixture");
    // The Trace object's end, by the format's framing: "Nettrace", the 24-byte serialization
    // header, then the object's header (its type name's length at +11) and its fixed body.
    let pos = 8 + 24;
    let name_len = u32::from_le_bytes(bytes[pos + 11..pos + 15].try_into().unwrap()) as usize;
    let cut = pos + 16 + name_len + 16 + 8 + 8 + 4 * 4 + 1;
    let path = std::env::temp_dir().join(format!("gcscope-cut-{}.nettrace", std::process::id()));
    std::fs::write(&path, &bytes[..cut]).expect("write");
    let out = gcscope(&["summary", path.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("cut off at byte {cut}")) && err.contains("Trace object"),
        "{err}"
    );
    std::fs::remove_file(&path).ok();
}
