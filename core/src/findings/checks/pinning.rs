//! `pinning`: GCs that found many pinned objects, with the pinned types and handles, demotion and
//! gen0 fragmentation after them.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::findings::rules::{PINNED_OBJECTS, PINNING};
use crate::findings::stats::{figure, gc_list, pct, s};
use crate::findings::verdict::{evidence_of, found, Ctx, Verdict};
use crate::gc::Gc;

/// Pinned objects a GC found: GCHeapStats' count, or its PinObjectAtGCTime events if more.
fn pinned(g: &Gc) -> Option<u32> {
    let events = u32::try_from(g.pinned_objects.len()).unwrap_or(u32::MAX);
    match g.pinned_object_count {
        Some(n) => Some(n.max(events)),
        None => (events > 0).then_some(events),
    }
}

fn demoted(g: &Gc) -> bool {
    g.global_mechanisms
        .as_ref()
        .is_some_and(|m| m.iter().any(|x| x == "Demotion"))
}

pub fn check(c: &Ctx<'_>) -> Verdict {
    let counted: Vec<(&Gc, u32)> = c
        .complete()
        .filter_map(|g| pinned(g).map(|n| (g, n)))
        .collect();
    let Some(&(top, most)) = counted.iter().max_by_key(|t| t.1) else {
        return Verdict::NotChecked(format!(
            "no GC reported its pinned objects: needs {}",
            PINNING.needs
        ));
    };
    let many: Vec<(&Gc, u32)> = counted
        .iter()
        .copied()
        .filter(|t| t.1 >= PINNED_OBJECTS)
        .collect();
    let m = c.model;
    let pinned_handles = m
        .handles
        .by_kind
        .iter()
        .find(|k| k.kind == "Pinned")
        .map(|k| k.created);
    if many.is_empty() {
        return Verdict::Clear(format!(
            "at most {most} pinned object{} in a GC (GC #{}), {} GCs reported",
            if most == 1 { "" } else { "s" },
            top.number,
            counted.len()
        ));
    }
    let lines = crate::findings::verdict::lines(&many, |(g, n)| {
        let frag = g
            .generations
            .gen0
            .fragmentation_pct
            .filter(|f| (0.0..=100.0).contains(f));
        format!(
            "GC #{} (gen{} {}): {} pinned objects{}{}",
            g.number,
            g.gen,
            g.gc_type.name(),
            n,
            frag.map_or_else(String::new, |f| format!(
                ", gen0 {} fragmented after",
                pct(f)
            )),
            if demoted(g) { ", demoted" } else { "" }
        )
    });
    let gcs: Vec<&Gc> = many.iter().map(|t| t.0).collect();
    let mut ev = evidence_of(&gcs, lines);
    ev.types = m
        .pinning
        .by_type
        .iter()
        .take(10)
        .map(|t| t.type_name.clone())
        .collect();
    let demotions = gcs.iter().filter(|g| demoted(g)).count();
    ev.figures = Vec::from([
        figure("GCs with >= 10 pinned objects", many.len() as f64, "count"),
        figure("most pinned objects in a GC", f64::from(most), "count"),
        figure("of them demoting", demotions as f64, "count"),
        figure(
            "pinned-object reports (PinObjectAtGCTime)",
            m.pinning.pinned_object_events as f64,
            "count",
        ),
    ]);
    if let Some(h) = pinned_handles {
        ev.figures
            .push(figure("pinned GC handles created", h as f64, "count"));
    }
    let types = if ev.types.is_empty() {
        String::from("the trace does not name the pinned types (PinObjectAtGCTime, Verbose level)")
    } else {
        format!(
            "most pinned: {}",
            ev.types
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let handles = pinned_handles.map_or_else(String::new, |h| {
        format!("; {h} pinned GC handles were created")
    });
    let summary = format!(
        "{} GC{} found {} or more pinned objects (most: {} at GC #{}){}; {} ({}).",
        many.len(),
        s(many.len()),
        PINNED_OBJECTS,
        most,
        top.number,
        handles,
        types,
        gc_list(&ev.gcs, 6)
    );
    Verdict::Found(Box::new(found(&PINNING, c, summary, None, ev)))
}
