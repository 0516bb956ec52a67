//! What the worker accumulates while events stream by. Plain Rust (no browser types), so it is
//! unit-tested natively; the worker only moves bytes in and results out.

use std::collections::BTreeMap;

use gcscope_core::event::{Event, TraceInfo};

use crate::protocol::Analysis;

#[derive(Default)]
pub struct Analyzer {
    /// provider -> event name -> count. Two-level so a lookup borrows `&str` and never allocates.
    counts: BTreeMap<String, BTreeMap<String, u64>>,
    events: u64,
    gc_starts: u64,
    first_ms: Option<f64>,
    last_ms: f64,
}

impl Analyzer {
    pub fn on_event(&mut self, ev: &Event<'_>) {
        self.events += 1;
        self.first_ms.get_or_insert(ev.time_ms);
        if ev.time_ms > self.last_ms {
            self.last_ms = ev.time_ms;
        }
        if ev.name == "GC/Start" && ev.provider == "Microsoft-Windows-DotNETRuntime" {
            self.gc_starts += 1;
        }
        let by_name = match self.counts.get_mut(ev.provider) {
            Some(m) => m,
            None => self.counts.entry(ev.provider.to_string()).or_default(),
        };
        match by_name.get_mut(ev.name) {
            Some(n) => *n += 1,
            None => {
                by_name.insert(ev.name.to_string(), 1);
            }
        }
    }

    pub fn events(&self) -> u64 {
        self.events
    }

    pub fn finish(self, info: Option<&TraceInfo>, file_name: &str, file_size: f64) -> Analysis {
        let mut event_counts = Vec::new();
        for (provider, names) in &self.counts {
            for (name, n) in names {
                let key = if name.is_empty() {
                    provider.clone()
                } else {
                    format!("{provider}/{name}")
                };
                event_counts.push((key, *n as f64));
            }
        }
        Analysis {
            file_name: file_name.to_string(),
            file_size,
            format: info.map(|i| i.format.clone()).unwrap_or_default(),
            pointer_size: info.map(|i| i.pointer_size).unwrap_or(0),
            process_id: info.map(|i| i.process_id).unwrap_or(0),
            processor_count: info.map(|i| i.processor_count).unwrap_or(0),
            duration_ms: self.last_ms.max(0.0),
            events: self.events as f64,
            decode_ms: 0.0,
            event_counts,
            gc_starts: self.gc_starts as f64,
            model: None,
            error: None,
            trace_entries: Vec::new(),
            entry: 0,
            insights: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev<'a>(provider: &'a str, name: &'a str, ms: f64) -> Event<'a> {
        Event {
            provider,
            event_id: 1,
            version: 0,
            name,
            timestamp: 0,
            time_ms: ms,
            thread_id: 1,
            capture_thread_id: 1,
            sequence: 0,
            processor: 0,
            stack_id: 0,
            pointer_size: 8,
            payload: &[],
        }
    }

    #[test]
    fn counts_events_by_provider_and_name_and_gc_starts() {
        let mut a = Analyzer::default();
        let rt = "Microsoft-Windows-DotNETRuntime";
        a.on_event(&ev(rt, "GC/Start", 1.0));
        a.on_event(&ev(rt, "GC/Stop", 2.0));
        a.on_event(&ev(rt, "GC/Start", 5.5));
        a.on_event(&ev("Other", "GC/Start", 3.0));
        let r = a.finish(None, "t.nettrace", 10.0);
        assert_eq!(r.events, 4.0);
        assert_eq!(
            r.gc_starts, 2.0,
            "only the runtime provider's GC/Start counts"
        );
        assert_eq!(r.duration_ms, 5.5);
        assert_eq!(
            r.event_counts,
            vec![
                ("Microsoft-Windows-DotNETRuntime/GC/Start".to_string(), 2.0),
                ("Microsoft-Windows-DotNETRuntime/GC/Stop".to_string(), 1.0),
                ("Other/GC/Start".to_string(), 1.0),
            ]
        );
    }
}
