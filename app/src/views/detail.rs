//! The detail panel of the selected GC (over any tab; Esc closes it): its figures, why its
//! generation was condemned, the stack that started it, sizes per generation, phase times, per-heap history, pinned objects.

use leptos::prelude::*;

use crate::format::bytes;
use crate::state::use_app;
use crate::tables::columns;
use crate::widgets::trigger_stack::TriggerStack;

/// The detail panel of the selected GC.
#[component]
pub fn Detail() -> impl IntoView {
    let app = use_app();
    move || {
        let n = app.vs.with(|v| v.selected)?;
        let found = app.gcs.with(|g| {
            g.iter()
                .position(|g| g.number == n)
                .map(|i| (i, g[i].clone()))
        });
        let (row, gc) = found.unzip();
        let close = move |_| app.set_vs(|v| v.selected = None);
        let Some(gc) = gc else {
            return Some(view! {
                <aside id="detail" class="detail"><button class="close" on:click=close>"×"</button><p>{format!("GC #{n} is not in this trace.")}</p></aside>
            }.into_any());
        };
        let field = |id: &str| columns::by_id(id).map(|c| (c.label.clone(), c.show(&gc), c.help));
        let summary: Vec<_> = [
            "gen",
            "type",
            "reason",
            "induced",
            "start_ms",
            "pause_ms",
            "suspend_ms",
            "duration_ms",
            "bgc_final_pause_ms",
            "pause_pct",
            "allocated_bytes",
            "before_bytes",
            "peak_bytes",
            "after_bytes",
            "promoted_bytes",
            "heap_count",
            "condemned_gen",
            "pause_mode",
            "memory_pressure_pct",
            "global_mechanisms",
            "pinned_object_count",
            "gc_handle_count",
        ]
        .iter()
        .filter_map(|id| field(id))
        .filter(|(_, v, _)| !v.is_empty())
        .collect();
        let gens: Vec<(&str, Vec<String>)> = gcscope_core::gc::Generations::NAMES
            .iter()
            .map(|gname| {
                let vals = [
                    "size_before_bytes",
                    "size_after_bytes",
                    "survived_bytes",
                    "survival_pct",
                    "fragmentation_pct",
                    "budget_bytes",
                ]
                .iter()
                .map(|f| {
                    columns::by_id(&format!("generations.{gname}.{f}"))
                        .map(|c| c.show(&gc))
                        .unwrap_or_default()
                })
                .collect();
                (*gname, vals)
            })
            .collect();
        let phases: Vec<(String, String)> = gc
            .phase_times_us
            .as_ref()
            .map(|_| {
                columns::all()
                    .iter()
                    .filter(|c| c.id.starts_with("phase_times_us."))
                    .map(|c| (c.label.clone(), c.show(&gc)))
                    .filter(|(_, v)| !v.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let condemn = gc.condemn.clone();
        let heaps = row
            .map(|i| app.heaps.with_value(|h| h.unpack(i)))
            .unwrap_or_default();
        let pins = gc.pinned_objects.clone();
        let missing = gc.missing.clone();
        // The trigger is the last GCTriggered after the previous GC's GCStart, up to this one's
        // (the runtime fires it after suspending, just before GCStart).
        let start_ms = gc.gc_start_ms;
        let after_ms = app.gcs.with(|g| {
            g.iter()
                .map(|x| x.gc_start_ms)
                .filter(|&t| t < start_ms)
                .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))))
        });
        Some(view! {
            <aside id="detail" class="detail" aria-label=format!("GC {n}")>
                <button class="close" title="Close (Esc)" on:click=close>"×"</button>
                <h2 id="detail-title">{format!("GC #{n} · gen{} {}", gc.gen, gc.gc_type.name())}</h2>
                <dl class="facts two">
                    {summary.into_iter().map(|(k, v, h)| view! { <dt title=h>{k}</dt><dd>{v}</dd> }).collect_view()}
                </dl>
                <h3>"Why this generation"</h3>
                {match condemn {
                    Some(c) => view! {
                        <dl class="facts two" id="detail-condemn">
                            <dt>"Initial gen"</dt><dd>{c.initial_gen}</dd>
                            <dt>"Final gen"</dt><dd>{c.final_gen}</dd>
                            <dt title="Highest generation whose allocation budget was exceeded">"Budget exceeded"</dt><dd>{format!("gen{}", c.alloc_budget_gen)}</dd>
                            <dt>"Time tuning"</dt><dd>{if c.time_tuning_gen == 0 { "–".to_string() } else { format!("gen{}", c.time_tuning_gen) }}</dd>
                            <dt>"Conditions"</dt><dd id="detail-conditions">{if c.conditions.is_empty() { "none".to_string() } else { c.conditions.join(", ") }}</dd>
                        </dl>
                    }.into_any(),
                    None => view! { <p class="muted">"No GCPerHeapHistory for this GC: condemn reasons unknown."</p> }.into_any(),
                }}
                <TriggerStack gc=n start_ms=start_ms after_ms=after_ms request=crate::loader::stacks::request />
                <h3>"Generations"</h3>
                <table class="grid compact">
                    <thead><tr><th></th><th class="num">"Before"</th><th class="num">"After"</th><th class="num">"Survived"</th><th class="num">"Surv %"</th><th class="num">"Frag %"</th><th class="num">"Budget"</th></tr></thead>
                    <tbody>{gens.into_iter().map(|(g, vals)| view! {
                        <tr><th scope="row">{g}</th>{vals.into_iter().map(|v| view! { <td class="num">{v}</td> }).collect_view()}</tr>
                    }).collect_view()}</tbody>
                </table>
                {(!phases.is_empty()).then(|| view! {
                    <h3>"Phase times"</h3>
                    <dl class="facts two">{phases.into_iter().map(|(k, v)| view! { <dt>{k}</dt><dd>{v}</dd> }).collect_view()}</dl>
                })}
                {(!heaps.is_empty()).then(|| view! {
                    <h3>{format!("Per heap ({})", heaps.len())}</h3>
                    <table class="grid compact" id="detail-heaps">
                        <thead><tr><th>"Heap"</th><th>"Final gen"</th><th>"Budget gen"</th><th>"Conditions"</th><th>"Compact"</th><th>"Expand"</th><th class="num">"Gen0 before"</th><th class="num">"Gen0 surv %"</th></tr></thead>
                        <tbody>{heaps.into_iter().map(|h| {
                            let g0 = h.generations.first().cloned().unwrap_or_default();
                            view! {
                                <tr>
                                    <td class="num">{h.heap}</td>
                                    <td>{h.condemn.final_gen}</td>
                                    <td>{h.condemn.alloc_budget_gen}</td>
                                    <td>{h.condemn.conditions.join(", ")}</td>
                                    <td>{h.compact_mechanism.map(|s| s.to_string()).unwrap_or_default()}</td>
                                    <td>{h.expand_mechanism.map(|s| s.to_string()).unwrap_or_default()}</td>
                                    <td class="num">{bytes(g0.size_before_bytes as f64)}</td>
                                    <td class="num">{g0.survival_pct.map(|p| format!("{p:.1}%")).unwrap_or_default()}</td>
                                </tr>
                            }
                        }).collect_view()}</tbody>
                    </table>
                })}
                <h3>{format!("Pinned objects ({})", pins.len())}</h3>
                {if pins.is_empty() {
                    view! { <p class="muted">"None reported (PinObjectAtGCTime needs the GC keyword at Verbose level)."</p> }.into_any()
                } else {
                    view! {
                        <table class="grid compact" id="detail-pins">
                            <thead><tr><th>"Type"</th><th class="num">"Size"</th><th class="num">"Object"</th></tr></thead>
                            <tbody>{pins.into_iter().take(500).map(|p| view! {
                                <tr><td>{p.type_name}</td><td class="num">{bytes(p.size_bytes as f64)}</td><td class="num">{format!("0x{:x}", p.address)}</td></tr>
                            }).collect_view()}</tbody>
                        </table>
                    }.into_any()
                }}
                {(!missing.is_empty()).then(|| view! {
                    <h3>"Missing"</h3>
                    <ul class="muted">{missing.into_iter().map(|m| view! { <li>{m.to_string()}</li> }).collect_view()}</ul>
                })}
            </aside>
        }.into_any())
    }
}
