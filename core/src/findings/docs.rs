//! `docs/reference/findings.md`: the rules table as a document (a test fails when the file
//! differs).

use alloc::string::String;
use core::fmt::Write;

use super::rules::{RULES, SOURCES};
use super::stacks::TOP_STACKS;
use super::types::{Goal, DEFAULT_PAUSE_BUDGET_MS};

fn goal(g: Option<Goal>) -> &'static str {
    g.map_or("any", Goal::name)
}

/// The Markdown of `docs/reference/findings.md`.
pub fn markdown() -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Findings: every rule\n");
    let _ = writeln!(
        s,
        "Generated from `core/src/findings/rules.rs` (`GCSCOPE_WRITE_DOCS=1 cargo test -p gcscope-core --test findings_definitions`). \
         `gcscope findings FILE`, the app's Findings panel and the HTML report check these rules on a trace; each finding names \
         its evidence (GCs, time range, numbers), the threshold it crossed with its source, and the advice with its source. \
         A rule whose events are missing from the trace says so and what to capture.\n"
    );
    let _ = writeln!(
        s,
        "**Ranking.** The three definitive signs of a GC problem (MD §Definitive signs of perf problems: suspension too long, \
         random long GC pauses, most GCs full blocking) come first and are *critical* over a sourced threshold. The other rules \
         matter for a goal (MD §Top level GC metrics: throughput watches % of time paused, latency individual pauses, footprint \
         the heap's size): a *warning* for that goal (`--goal`, default throughput) or for any goal, *info* for the others. \
         A threshold marked *chosen* is gcscope's own number where the sources give none: its finding is at most a warning and \
         ranks below the sourced ones of its severity. The pause budget (`--budget`) defaults to {DEFAULT_PAUSE_BUDGET_MS} ms. \
         When events were lost (dropped by the runtime in EventPipe, lost by the ETW \
         session), each finding says what that could hide or fake.\n"
    );
    let _ = writeln!(
        s,
        "**Call stacks.** The findings of `induced`, `loh-triggered-gen2`, `loh-alloc-waits` and `pinning` list the top \
         call stacks behind them (docs/guide/stacks.md): the induced GCs' GCTriggered stacks (who called `GC.Collect`), \
         the LOH allocation ticks' stacks, the pinned handles' SetGCHandle stacks. `gcscope findings --json` gives them \
         as the finding's `evidence.stacks`: `event` (the `gcscope stacks --event` of the same stacks: `induced`, \
         `alloc-loh`, `pinned-handles`), `unit` (`bytes`: sampled bytes; `count`: events), `total_value`, \
         `total_count`, `no_stack` and `missing_stack` (events without a stack, or whose stack the trace lacks), \
         `distinct` (stacks, those whose frames name the same methods counted once), `trace_stacks` (0: the trace \
         holds no stacks) and `top`, the largest {TOP_STACKS}, each with its `value`, `count`, `frames` (leaf first, \
         `module!method` or the address in hex where no method covers it) and `note` (a pinned handle's stack \
         starts above `GCHandle.Alloc`: \"the runtime recorded no frames above X\"). The field is null in \
         the other rules' findings (and where the trace has no stacks to read); the stacks are read (a second pass over the file) only when a finding lists them.\n"
    );
    let _ = writeln!(
        s,
        "| rule | kind | goal | threshold | chosen |\n|---|---|---|---|---|"
    );
    for r in RULES {
        let _ = writeln!(
            s,
            "| [`{}`](#{}) | {} | {} | {} | {} |",
            r.id,
            r.id,
            if r.definitive { "definitive" } else { "goal" },
            goal(r.goal),
            r.threshold.replace('|', "\\|"),
            if r.chosen { "yes" } else { "" }
        );
    }
    for r in RULES {
        let _ = writeln!(s, "\n## {}\n", r.id);
        let _ = writeln!(s, "**{}**\n", r.title);
        let _ = writeln!(s, "- Evidence: {}", r.evidence);
        let _ = writeln!(
            s,
            "- Threshold: {}{}. Source: {}",
            r.threshold,
            if r.chosen { " (chosen by gcscope)" } else { "" },
            r.threshold_source
        );
        for (text, source) in r.advice {
            let _ = writeln!(s, "- Advice: {text} ({source})");
        }
        let _ = writeln!(s, "- Needs: {}", r.needs);
        let _ = writeln!(s, "- Dropped events: {}", r.dropped);
    }
    let _ = writeln!(s, "\n## Sources\n\n| tag | source |\n|---|---|");
    for src in SOURCES {
        let _ = writeln!(s, "| {} | [{}]({}) |", src.tag, src.title, src.address);
    }
    s
}
