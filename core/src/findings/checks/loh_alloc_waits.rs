//! `loh-alloc-waits`: threads that waited long to allocate on the LOH while a background GC ran.

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use crate::findings::rules::{LOH_ALLOC_WAITS, LOH_WAIT_MS};
use crate::findings::stats::{figure, gc_list, ms, s};
use crate::findings::verdict::{capped, found, Ctx, Verdict};
use crate::gc::Gc;

pub fn check(c: &Ctx<'_>) -> Verdict {
    let w = &c.model.alloc_waits;
    if !w.has_events {
        return Verdict::NotChecked(format!(
            "no BGCAllocWaitBegin/End events: needs {}",
            LOH_ALLOC_WAITS.needs
        ));
    }
    let long: Vec<_> = w
        .longest
        .iter()
        .filter(|x| x.wait_ms > LOH_WAIT_MS)
        .collect();
    let longest = w.longest.first().map_or(0.0, |x| x.wait_ms);
    if long.is_empty() {
        return Verdict::Clear(format!(
            "{} waits, {} in all, the longest {}",
            w.waits,
            ms(w.total_wait_ms),
            ms(longest)
        ));
    }
    let mut bgcs: Vec<u32> = long.iter().filter_map(|x| x.bgc).collect();
    bgcs.sort_unstable();
    bgcs.dedup();
    let mut threads: Vec<u64> = long.iter().map(|x| x.thread).collect();
    threads.sort_unstable();
    threads.dedup();
    let gcs: Vec<&Gc> = c
        .gcs
        .iter()
        .filter(|g| bgcs.binary_search(&g.number).is_ok())
        .collect();
    let lines = crate::findings::verdict::lines(&long, |x| {
        format!(
            "thread {}: waited {} ({}){}",
            x.thread,
            ms(x.wait_ms),
            x.reason,
            x.bgc
                .map_or_else(Default::default, |b| format!(" during background GC #{b}"))
        )
    });
    let first = long
        .iter()
        .map(|x| x.begin_ms)
        .fold(f64::INFINITY, f64::min);
    let last = long.iter().map(|x| x.end_ms).fold(0.0, f64::max);
    let ev = crate::findings::types::Evidence {
        gcs: gcs.iter().map(|g| g.number).collect(),
        range_ms: Some((first, last)),
        figures: Vec::from([
            figure("waits over 200 ms", long.len() as f64, "count"),
            figure("longest wait", longest, "ms"),
            figure("threads", threads.len() as f64, "count"),
            figure("all waits", w.total_wait_ms, "ms"),
        ]),
        lines: capped(lines),
        ..Default::default()
    };
    let summary = format!(
        "{} wait{} on large-object allocation during background GCs lasted over {} (longest {}; {} thread{}; background GC {}).",
        long.len(),
        s(long.len()),
        ms(LOH_WAIT_MS),
        ms(longest),
        threads.len(),
        s(threads.len()),
        gc_list(&bgcs, 6)
    );
    Verdict::Found(Box::new(found(&LOH_ALLOC_WAITS, c, summary, None, ev)))
}
