//! docs/reference/cli.md, the command-line reference, rendered from clap's definition of the
//! command line ([`Cli`]): every subcommand in `--help` order with its description, usage, every
//! argument with its help (default and accepted values included) and its examples. A test fails
//! when the committed file is not what the definitions render; `GCSCOPE_WRITE_DOCS=1` writes it,
//! as core's docs/reference/model.md test does.

use clap::{Arg, ArgAction, Command, CommandFactory};

use crate::Cli;

/// The file, from the workspace root.
pub const PATH: &str = "docs/reference/cli.md";

/// The whole reference.
pub fn markdown() -> String {
    let mut root = Cli::command();
    // Sets each subcommand's name in its usage ("gcscope gcs") and adds the help arguments.
    root.build();
    let mut s = String::from(
        "# gcscope command-line reference\n\n\
         Every command, its usage and every argument, as `gcscope --help` and `gcscope COMMAND \
         --help`\nprint them. Generated from the command-line definitions in `cli/src`: do not \
         edit by hand.\n`cargo test -p gcscope-cli cli_reference` fails when this file is stale, \
         and\n`GCSCOPE_WRITE_DOCS=1 cargo test -p gcscope-cli cli_reference` writes it.\n",
    );
    let mut subcommands: Vec<Command> = documented(&root).cloned().collect();
    section(&mut s, &mut root, "");
    for c in &mut subcommands {
        section(&mut s, c, "gcscope ");
    }
    s
}

/// The subcommands the reference documents: every one but clap's `help` (which prints the
/// others' `--help`) and hidden ones.
fn documented(root: &Command) -> impl Iterator<Item = &Command> {
    root.get_subcommands()
        .filter(|c| c.get_name() != "help" && !c.is_hide_set())
}

fn about(c: &Command) -> String {
    c.get_long_about()
        .or(c.get_about())
        .map(|a| a.to_string())
        .unwrap_or_default()
}

/// One command's section: heading, description, usage, its subcommands (the root's), arguments
/// and examples.
fn section(s: &mut String, c: &mut Command, parent: &str) {
    s.push_str(&format!("\n## {parent}{}\n\n", c.get_name()));
    s.push_str(&about(c));
    s.push_str("\n\n```text\n");
    s.push_str(c.render_usage().to_string().trim_end());
    s.push_str("\n```\n");
    let subcommands: Vec<&Command> = documented(c).collect();
    if !subcommands.is_empty() {
        s.push_str("\nCommands:\n\n");
        for sub in subcommands {
            let name = sub.get_name();
            s.push_str(&format!("- [`{name}`](#gcscope-{name}): {}\n", about(sub)));
        }
    }
    s.push_str("\nArguments:\n\n");
    for a in c.get_arguments().filter(|a| !a.is_hide_set()) {
        s.push_str(&format!("- `{}`: {}\n", name(a), help(a)));
    }
    if let Some(after) = c.get_after_help() {
        s.push_str("\n```text\n");
        s.push_str(after.to_string().trim_end());
        s.push_str("\n```\n");
    }
}

/// The argument as `--help` names it: `<FILE>`, `[FILE]...`, `-j, --jobs <N>`.
fn name(a: &Arg) -> String {
    match (a.get_short(), a.get_long()) {
        (Some(short), Some(_)) => format!("-{short}, {a}"),
        _ => a.to_string(),
    }
}

/// The argument's help, then its default and the values it accepts, when it takes a value.
fn help(a: &Arg) -> String {
    let mut h = a
        .get_long_help()
        .or(a.get_help())
        .map(|t| t.to_string())
        .unwrap_or_default();
    if !matches!(a.get_action(), ArgAction::Set | ArgAction::Append) {
        return h;
    }
    let mut notes = Vec::new();
    let defaults: Vec<String> = a
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && !a.is_hide_default_value_set() {
        notes.push(format!("default: {}", defaults.join(", ")));
    }
    let values: Vec<String> = a
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_string())
        .collect();
    if !values.is_empty() && !a.is_hide_possible_values_set() {
        notes.push(format!("one of: {}", values.join(", ")));
    }
    if !notes.is_empty() {
        h.push_str(&format!(" ({})", notes.join("; ")));
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn docs_reference_cli_md_is_generated_from_the_command_line() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(PATH);
        let want = markdown();
        if std::env::var_os("GCSCOPE_WRITE_DOCS").is_some() {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).unwrap();
            }
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{PATH} is stale: run `GCSCOPE_WRITE_DOCS=1 cargo test -p gcscope-cli cli_reference`"
        );
    }

    #[test]
    fn every_option_of_every_help_is_in_the_reference() {
        // The reference: clap's own help, rendered for each subcommand. Every `--option` it names
        // is in that subcommand's section, and every subcommand has a section.
        let doc = markdown();
        let mut root = Cli::command();
        root.build();
        let names: Vec<String> = documented(&root)
            .map(|c| c.get_name().to_string())
            .collect();
        assert!(names.len() >= 17, "{names:?}");
        for name in names {
            let heading = format!("\n## gcscope {name}\n");
            let from = doc
                .find(&heading)
                .unwrap_or_else(|| panic!("{name}: no section"));
            let rest = &doc[from + heading.len()..];
            let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
            let sub = root.find_subcommand_mut(&name).unwrap();
            let help = sub.render_help().to_string();
            let options = help
                .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
                .filter(|w| w.starts_with("--") && w.len() > 2);
            for o in options {
                assert!(section.contains(o), "{name}: {o} is not in its section");
            }
            assert!(section.contains("Usage: gcscope "), "{name}: no usage");
        }
    }
}
