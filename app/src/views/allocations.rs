//! Allocations: sampled bytes by type and kind, overall or in the time range, and the sampled
//! allocation rate over time by kind.

use leptos::prelude::*;

use crate::format::ms;
use crate::state::use_app;
use crate::tables::allocations as tables;
use crate::widgets::chart::{LineChart, Series};
use crate::widgets::facts::{fact, with_insights, Empty, Facts};
use crate::widgets::table_panel::TablePanel;

const HOW: &str =
    "These figures are samples, not exact counts. The runtime fires a GCAllocationTick \
each time about 100 KB more has been allocated on a heap (separately for small, large and pinned \
objects); it names the type of the object whose allocation crossed the threshold and the bytes \
allocated since the previous tick. Summing those amounts per type estimates what each type \
allocated: every byte between two ticks is charged to the type that happened to cross the \
threshold, so types allocated often are estimated well and a rare small type may be missed or \
over-counted.";

/// A bin width (whole ms) as "5 ms" / "2 s".
fn bin_label(v: f64) -> String {
    if v >= 1000.0 {
        format!("{} s", v / 1000.0)
    } else {
        format!("{v} ms")
    }
}

#[component]
pub fn Allocations() -> impl IntoView {
    let app = use_app();
    with_insights("Allocations", move |ti| {
        let al = &ti.insights.allocations;
        if !al.has_events {
            return view! {
                <section class="insights allocations">
                    <Empty id="allocs-empty" text="This trace has no GCAllocationTick events, so there is nothing to sample allocations from: \
                        they need the GC keyword at Verbose level (e.g. dotnet-trace collect --providers Microsoft-Windows-DotNETRuntime:0x1:5).".to_string() />
                </section>
            }.into_any();
        }
        let (t0, t1) = app.vs.with(|v| (v.filter.t0, v.filter.t1));
        let ranged = t0.is_some() || t1.is_some();
        let (types, by_kind, ticks, covered) = if ranged {
            let r = crate::state::insights::types_in(
                al,
                t0.unwrap_or(f64::NEG_INFINITY),
                t1.unwrap_or(f64::INFINITY),
            );
            (r.types, r.by_kind, r.ticks, Some(r.covered))
        } else {
            (al.top_types.clone(), al.by_kind, al.tick_count, None)
        };
        let total = by_kind.total();
        let table = tables::alloc_types(&types);
        let kind_series = |name: &str,
                           color: &str,
                           get: fn(&gcscope_core::gc::insights::KindBytes) -> u64|
         -> Option<Series> {
            let pts: Vec<(f64, f64)> = al
                .over_time
                .iter()
                .map(|b| (b.start_ms, get(&b.bytes) as f64 * 1000.0 / al.bin_ms))
                .collect();
            pts.iter()
                .any(|p| p.1 > 0.0)
                .then(|| (name.to_string(), color.to_string(), pts))
        };
        let series: Vec<Series> = [
            kind_series("small (SOH)", "var(--gen0)", |k| k.small),
            kind_series("large (LOH)", "var(--loh)", |k| k.large),
            kind_series("pinned (POH)", "var(--poh)", |k| k.pinned),
        ]
        .into_iter()
        .flatten()
        .collect();
        let covered_at = covered.flatten();
        let covered_note = covered.map(|c| match c {
            Some((lo, hi)) => format!(
                "Ticks in {} – {}: the selected range widened to whole {} bins (the worker keeps exact per-type sums per bin, not every tick).",
                ms(lo.max(0.0)), ms(hi), bin_label(al.tick_bins.bin_ms)
            ),
            None => "No allocation ticks in the selected range.".to_string(),
        });
        view! {
            <section class="insights allocations">
                <p class="explain" id="allocs-how">{HOW}</p>
                <Facts id="alloc-facts" facts=vec![
                    fact("alloc-ticks", "allocations.tick_count", "count", ticks as f64),
                    fact("alloc-bytes", "allocations.sampled_bytes", "bytes", total as f64),
                    fact("alloc-small", "allocations.by_kind.small", "bytes", by_kind.small as f64).labelled("Small (SOH)"),
                    fact("alloc-large", "allocations.by_kind.large", "bytes", by_kind.large as f64).labelled("Large (LOH)"),
                    fact("alloc-pinned", "allocations.by_kind.pinned", "bytes", by_kind.pinned as f64).labelled("Pinned (POH)"),
                ] />
                {covered_note.map(|n| view! {
                    <p class="muted range-note" id="alloc-range-note"
                        data-from=covered_at.map(|c| c.0.to_string()) data-to=covered_at.map(|c| c.1.to_string())>{n}</p>
                })}
                <h2>{format!("Sampled allocation rate by kind ({} bins; drag to select a time range)", bin_label(al.bin_ms))}</h2>
                <LineChart series=series unit="bytes/s" id="alloc-rate-chart" />
                <TablePanel table=table id="alloc-types" />
            </section>
        }.into_any()
    })
}
