//! What every rule shares: the trace it reads ([`Ctx`]), what it returns ([`Verdict`]), and
//! [`found`], which turns a rule's numbers into a [`Finding`] carrying the rule's documented
//! threshold source, advice and caveats, at the severity the rule and the goal give it.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::rules::Rule;
use super::types::{Advice, Evidence, Finding, Settings, Severity, Threshold, MAX_LINES};
use crate::gc::{Gc, GcModel};

/// The trace as the rules read it: the model's summaries and every GC row (the model's own, or
/// the rows a consumer kept apart from it, as the browser page does).
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub model: &'a GcModel,
    pub gcs: &'a [Gc],
    pub settings: &'a Settings,
}

impl<'a> Ctx<'a> {
    /// The complete GCs (GCEnd seen): the ones rollups count.
    pub fn complete(&self) -> impl Iterator<Item = &'a Gc> + 'a {
        self.gcs.iter().filter(|g| g.complete)
    }
}

/// What checking one rule came to.
pub enum Verdict {
    Found(Box<Finding>),
    /// Below the threshold: what was looked at, with its numbers.
    Clear(String),
    /// The trace lacks what the rule needs: which events, and how to capture them.
    NotChecked(String),
}

/// The severity a rule's finding gets: a definitive sign over a sourced threshold is critical,
/// over gcscope's own threshold a warning; any other rule is a warning for its goal (or any goal)
/// and info for the others.
pub fn severity(rule: &Rule, settings: &Settings) -> Severity {
    if rule.definitive {
        if rule.chosen {
            Severity::Warning
        } else {
            Severity::Critical
        }
    } else if rule.goal.is_none_or(|g| g == settings.goal) {
        Severity::Warning
    } else {
        Severity::Info
    }
}

/// The finding of `rule` on this trace: `summary` is its verdict with numbers, `threshold` the
/// threshold as it applied (the rule's sentence when `None`), `evidence` what it is about.
pub fn found(
    rule: &'static Rule,
    c: &Ctx<'_>,
    summary: String,
    threshold: Option<String>,
    evidence: Evidence,
) -> Finding {
    let mut caveats = Vec::new();
    if let Some(d) = c.model.process.dropped_events.filter(|d| *d > 0) {
        // EventPipe: the runtime's sequence-number gaps; ETW: the session's lost events.
        caveats.push(format!("{d} events were lost: {}.", rule.dropped));
    }
    Finding {
        rule: Cow::Borrowed(rule.id),
        title: Cow::Borrowed(rule.title),
        summary,
        severity: severity(rule, c.settings),
        definitive: rule.definitive,
        threshold: Threshold {
            text: threshold.unwrap_or_else(|| String::from(rule.threshold)),
            source: Cow::Borrowed(rule.threshold_source),
            chosen: rule.chosen,
        },
        evidence,
        advice: rule
            .advice
            .iter()
            .map(|(text, source)| Advice {
                text: Cow::Borrowed(text),
                source: Cow::Borrowed(source),
            })
            .collect(),
        caveats,
    }
}

/// Evidence about `gcs` (in trace order): their numbers, the range from the first one's pause
/// start to the last one's end, and `lines` (one per GC or group) kept to [`MAX_LINES`].
pub fn evidence_of(gcs: &[&Gc], lines: Vec<String>) -> Evidence {
    let range_ms = match (gcs.first(), gcs.last()) {
        (Some(a), Some(b)) => Some((a.start_ms, b.end_ms.unwrap_or(b.start_ms).max(a.start_ms))),
        _ => None,
    };
    Evidence {
        gcs: gcs.iter().map(|g| g.number).collect(),
        range_ms,
        lines: capped(lines),
        ..Evidence::default()
    }
}

/// One line per item, formatted only for the first [`MAX_LINES`] - 1 (a rule about 100,000 GCs
/// formats a dozen), then how many more there were.
pub fn lines<T>(items: &[T], line: impl Fn(&T) -> String) -> Vec<String> {
    if items.len() <= MAX_LINES {
        return items.iter().map(line).collect();
    }
    let mut out: Vec<String> = items[..MAX_LINES - 1].iter().map(line).collect();
    out.push(format!("... and {} more", items.len() - (MAX_LINES - 1)));
    out
}

/// At most [`MAX_LINES`] lines, the last saying how many more there were.
pub fn capped(mut lines: Vec<String>) -> Vec<String> {
    if lines.len() > MAX_LINES {
        let more = lines.len() - (MAX_LINES - 1);
        lines.truncate(MAX_LINES - 1);
        lines.push(format!("... and {more} more"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn lines_are_formatted_for_the_first_few_then_counted() {
        let items: Vec<u32> = (0..100).collect();
        let formatted = core::cell::Cell::new(0);
        let l = lines(&items, |i| {
            formatted.set(formatted.get() + 1);
            i.to_string()
        });
        assert_eq!(l.len(), MAX_LINES);
        assert_eq!(formatted.get(), MAX_LINES - 1);
        assert_eq!(
            l[MAX_LINES - 1],
            format!("... and {} more", 100 - (MAX_LINES - 1))
        );
        assert_eq!(lines(&items[..3], |i| i.to_string()), ["0", "1", "2"]);
        assert_eq!(capped(lines(&items, |i| i.to_string())).len(), MAX_LINES);
    }
}
