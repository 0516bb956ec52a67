//! `gcscope events FILE [--json]`: how many events of each `Provider/EventName` the trace holds.

use crate::args::Args;
use gcscope_core::DecodeStats;
use std::collections::BTreeMap;
use std::io::Write;

pub const HELP: &str = "gcscope events FILE [--json] [--pid N | --process NAME]";

pub fn run(raw: &[String]) -> Result<(), String> {
    let args = Args::parse(raw, &[])?;
    args.only(&["json"])
        .map_err(|e| format!("{e}\nusage: {HELP}"))?;
    let path = args.file().map_err(|e| format!("{e}\nusage: {HELP}"))?;
    let (counts, stats) = count(path)?;
    let text = if args.flag("json") {
        json(&counts)?
    } else {
        let mut t = table(&counts);
        if stats.out_of_order_events > 0 {
            t.push_str(&format!(
                "{} events came after later ones (ETW buffers written too late for the merge window)\n",
                stats.out_of_order_events
            ));
        }
        if stats.skipped_events > 0 {
            t.push_str(&format!(
                "{} events could not be read (damaged records) and are not counted\n",
                stats.skipped_events
            ));
        }
        if stats.dropped_events > 0 {
            t.push_str(&format!(
                "the runtime dropped {} events (sequence-number gaps): counts are lower bounds\n",
                stats.dropped_events
            ));
        }
        t
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.to_string()),
        _ => Ok(()),
    }
}

/// Counts keyed by `Provider/EventName`, sorted by name.
pub fn count(path: &str) -> Result<(BTreeMap<String, u64>, DecodeStats), String> {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    // One reused key buffer: a lookup per event, an allocation only per new name.
    let mut key = String::new();
    // Every process unless one is named (as TraceEvent's baselines count).
    let pid = crate::load::chosen_pid(path)?;
    let (_, stats) = crate::load::read_trace(path, &mut |_, e| {
        if pid.is_some_and(|p| p != e.process_id) {
            return;
        }
        key.clear();
        key.push_str(e.provider);
        key.push('/');
        key.push_str(e.name);
        match counts.get_mut(key.as_str()) {
            Some(c) => *c += 1,
            None => {
                counts.insert(key.clone(), 1);
            }
        }
    })?;
    Ok((counts, stats))
}

fn json(counts: &BTreeMap<String, u64>) -> Result<String, String> {
    let mut s = serde_json::to_string_pretty(counts).map_err(|e| e.to_string())?;
    s.push('\n');
    Ok(s)
}

fn table(counts: &BTreeMap<String, u64>) -> String {
    let name_w = counts
        .keys()
        .map(|k| k.chars().count())
        .max()
        .unwrap_or(0)
        .max("EVENT".len());
    let count_w = counts
        .values()
        .map(|c| c.to_string().len())
        .max()
        .unwrap_or(0)
        .max("COUNT".len());
    let mut s = format!("{:<name_w$}  {:>count_w$}\n", "EVENT", "COUNT");
    for (k, c) in counts {
        s.push_str(&format!("{k:<name_w$}  {c:>count_w$}\n"));
    }
    let total: u64 = counts.values().sum();
    s.push_str(&format!(
        "{:<name_w$}  {:>count_w$}\n",
        format!("({} names)", counts.len()),
        total
    ));
    s
}
