//! `gcscope events FILE [--json]`: how many events of each `Provider/EventName` the trace holds.

use crate::args::JsonOpts;
use gcscope_core::DecodeStats;
use std::collections::BTreeMap;

pub fn run(opts: &JsonOpts) -> Result<(), String> {
    let json_out = opts.json("events")?;
    let (counts, stats) = count(&opts.input.file)?;
    let text = if json_out {
        json(&counts)?
    } else {
        let mut t = table(&counts);
        if stats.dropped_events > 0 {
            t.push_str(&format!(
                "the runtime dropped {} events (sequence-number gaps): counts are lower bounds\n",
                stats.dropped_events
            ));
        }
        t
    };
    crate::summary::print(&text)
}

/// Counts keyed by `Provider/EventName`, sorted by name.
pub fn count(path: &str) -> Result<(BTreeMap<String, u64>, DecodeStats), String> {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    // One reused key buffer: a lookup per event, an allocation only per new name.
    let mut key = String::new();
    let (_, stats) = crate::load::read_trace(path, &mut |_, e| {
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
