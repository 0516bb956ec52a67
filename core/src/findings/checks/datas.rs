//! `datas`: DATAS's heap-count changes, and the throughput cost it measured against its target.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::findings::rules::{DATAS, DATAS_TARGET_TCP_PCT};
use crate::findings::stats::{figure, median, pct, s};
use crate::findings::types::Severity;
use crate::findings::verdict::{evidence_of, found, Ctx, Verdict};
use crate::gc::datas::explain_change;
use crate::gc::Gc;

pub fn check(c: &Ctx<'_>) -> Verdict {
    let p = &c.model.process;
    let d = &c.model.datas;
    match (p.gc_mode.as_deref(), p.datas) {
        (_, Some(true)) => {}
        (Some("workstation"), _) => return Verdict::Clear("workstation GC: no DATAS".into()),
        (_, Some(false)) => return Verdict::Clear("DATAS is off".into()),
        (_, None) if !d.has_events() && d.changes.is_empty() => {
            return Verdict::NotChecked(format!(
                "the trace does not say whether DATAS ran: needs the {}",
                DATAS.needs
            ))
        }
        _ => {}
    }
    let costs: Vec<f64> = d
        .samples
        .iter()
        .filter_map(|x| x.throughput_cost_pct)
        .collect();
    let cost = median(costs.clone());
    let high = cost.is_some_and(|m| m > DATAS_TARGET_TCP_PCT);
    let range = match (p.heap_count_min, p.heap_count) {
        (Some(a), Some(b)) if a != b => format!("{a}-{b} heaps"),
        (_, Some(b)) => format!("{b} heap{}", s(b as usize)),
        _ => String::from("an unknown heap count"),
    };
    if d.changes.is_empty() && !high {
        return Verdict::Clear(format!(
            "DATAS kept {range}; median throughput cost {} (target {})",
            cost.map_or_else(|| "unknown".into(), pct),
            pct(DATAS_TARGET_TCP_PCT)
        ));
    }
    // Rows are in GC order (numbered at their GCStart): each change's row by binary search, a linear
    // one if the order was broken (a long DATAS trace changes its heap count thousands of times).
    let row = |n: u64| {
        let i = c.gcs.partition_point(|g| u64::from(g.number) < n);
        match c.gcs.get(i) {
            Some(g) if u64::from(g.number) == n => Some(g),
            _ => c.gcs.iter().find(|g| u64::from(g.number) == n),
        }
    };
    let changed: Vec<&Gc> = d.changes.iter().filter_map(|ch| row(ch.gc)).collect();
    let mut lines: Vec<String> =
        crate::findings::verdict::lines(&d.changes, |ch| explain_change(d, ch));
    if let Some(m) = cost {
        let over = costs.iter().filter(|&&x| x > DATAS_TARGET_TCP_PCT).count();
        lines.push(format!(
            "throughput cost: median {} over {} samples, {} of them above the {} target",
            pct(m),
            costs.len(),
            over,
            pct(DATAS_TARGET_TCP_PCT)
        ));
    }
    let mut ev = evidence_of(&changed, lines);
    ev.figures = Vec::from([
        figure("heap-count changes", d.changes.len() as f64, "count"),
        figure("target throughput cost", DATAS_TARGET_TCP_PCT, "%"),
    ]);
    if let Some(m) = cost {
        ev.figures.push(figure("median throughput cost", m, "%"));
    }
    if let Some(h) = p.heap_count {
        ev.figures.push(figure("most heaps", f64::from(h), "count"));
    }
    let at_most = p.heap_count.is_some_and(|h| h >= p.processor_count) && p.processor_count > 0;
    let changes = match d.changes.len() {
        0 => String::from("DATAS never changed the heap count"),
        n => format!("DATAS changed the heap count {n} time{} ({range})", s(n)),
    };
    let cost_text = match cost {
        Some(m) if high => format!(
            "; the GC's median throughput cost was {} against its {} target{}",
            pct(m),
            pct(DATAS_TARGET_TCP_PCT),
            if at_most {
                ", with a heap on every core already: DATAS cannot add more"
            } else {
                ""
            }
        ),
        Some(m) => format!(
            "; median throughput cost {} (target {})",
            pct(m),
            pct(DATAS_TARGET_TCP_PCT)
        ),
        None => String::from("; no DATAS samples give its throughput cost"),
    };
    let summary = format!("{changes}{cost_text}.");
    let mut f = found(&DATAS, c, summary, None, ev);
    if !high {
        // Heap-count changes alone are DATAS doing its job: worth knowing, nothing to fix.
        f.severity = Severity::Info;
    }
    Verdict::Found(Box::new(f))
}
