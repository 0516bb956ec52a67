//! `gcscope events FILE [--json]`: how many events of each `Provider/EventName` the trace holds.

use crate::args::{Input, JsonOpts};
use crate::output::stdout::{print, print_json};
use gcscope_core::clr::gc::{DynamicKind, GcDynamicEvent};
use gcscope_core::clr::names::RUNTIME_PROVIDER;
use gcscope_core::DecodeStats;
use std::collections::BTreeMap;

pub fn run(opts: &JsonOpts) -> Result<(), String> {
    let json_out = opts.json("events")?;
    let (counts, stats, dynamic) = count(&opts.input)?;
    if json_out {
        return print_json(&counts);
    }
    let mut t = table(&counts);
    t.push_str(&dynamic.footnote());
    if stats.out_of_order_events > 0 {
        t.push_str(&format!(
            "{} events came after later ones (ETW buffers written too late for the merge \
             window, or more events than the decoder orders at once)\n",
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
            "{} events were lost (the runtime's sequence-number gaps, the ETW session's or the \
             LTTng tracer's full buffers): counts are lower bounds\n",
            stats.dropped_events
        ));
    }
    print(&t)
}

/// GCDynamicEvent (id 39) apart: named per blob (`GC/SizeAdaptationTuning`, ...), so their total
/// is what TraceEvent counts as one event, and the names this version does not know.
#[derive(Default)]
pub struct DynamicCounts {
    total: u64,
    unknown: BTreeMap<String, u64>,
}

impl DynamicCounts {
    fn footnote(&self) -> String {
        if self.total == 0 {
            return String::new();
        }
        let mut s = format!(
            "GCDynamicEvent (id 39), all names: {} (TraceEvent 3.1 counts these as one event, \
             EventID(39); newer TraceEvent as the GC/ names above)\n",
            self.total
        );
        for (name, n) in &self.unknown {
            s.push_str(&format!(
                "unknown dynamic event {name}: {n} (counted as GC/DynamicTraceEvent)\n"
            ));
        }
        s
    }
}

/// Counts keyed by `Provider/EventName`, sorted by name.
pub fn count(input: &Input) -> Result<(BTreeMap<String, u64>, DecodeStats, DynamicCounts), String> {
    let path = input.file.as_str();
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut dynamic = DynamicCounts::default();
    // One reused key buffer: a lookup per event, an allocation only per new name.
    let mut key = String::new();
    // Every process unless one is named (as TraceEvent's baselines count).
    let pid = crate::input::load::chosen_pid(input)?;
    let (_, stats) = crate::input::load::read_trace(input, &mut |_, e| {
        // The LTTng reader's process-name notes are not events of the trace.
        if pid.is_some_and(|p| p != e.process_id)
            || e.provider == gcscope_core::ctf::PROCESS_NAME_PROVIDER
        {
            return;
        }
        if e.event_id == 39 && e.provider == RUNTIME_PROVIDER {
            dynamic.total += 1;
            if let Ok(d) = GcDynamicEvent::parse(e.payload, e.version, e.pointer_size) {
                if d.kind() == DynamicKind::Unknown {
                    *dynamic.unknown.entry(d.name.to_string_lossy()).or_default() += 1;
                }
            }
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
    if let (Some(p), true) = (pid, counts.is_empty()) {
        return Err(format!("'{path}': no event of process {p} in the trace"));
    }
    Ok((counts, stats, dynamic))
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
