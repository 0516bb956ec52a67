//! The GC table's filters: generation, type, trigger, induced, pause, time range, free text on
//! reasons, conditions and callers (`/` focuses it), the condition a count in Condemn reasons
//! chose, and the GCs a finding named.

use leptos::prelude::*;

use crate::state::use_app;

#[component]
pub fn Filters() -> impl IntoView {
    let app = use_app();
    let f = move || app.vs.with(|v| v.filter.clone());
    let reasons = move || {
        let mut r: Vec<String> = app
            .gcs
            .with(|g| g.iter().map(|g| g.reason.to_string()).collect());
        r.sort();
        r.dedup();
        r
    };
    let gen_box = move |g: u8| {
        view! {
            <label class="check">
                <input
                    type="checkbox"
                    id=format!("filter-gen{g}")
                    prop:checked=move || f().gens.contains(&g)
                    on:change=move |_| app.set_vs(|v| {
                        if let Some(p) = v.filter.gens.iter().position(|x| *x == g) {
                            v.filter.gens.remove(p);
                        } else {
                            v.filter.gens.push(g);
                            v.filter.gens.sort();
                        }
                    })
                />
                {format!("gen{g}")}
            </label>
        }
    };
    view! {
        <div class="filters" role="search">
            <span class="muted">"Gen"</span>
            {gen_box(0)}{gen_box(1)}{gen_box(2)}
            <select id="filter-type" aria-label="GC type" on:change=move |ev| {
                let v = event_target_value(&ev);
                app.set_vs(|s| s.filter.gc_type = (!v.is_empty()).then_some(v));
            } prop:value=move || f().gc_type.unwrap_or_default()>
                <option value="">"any type"</option>
                <option value="NonConcurrent">"NonConcurrent"</option>
                <option value="Background">"Background"</option>
                <option value="Foreground">"Foreground"</option>
            </select>
            <select id="filter-reason" aria-label="Trigger reason" on:change=move |ev| {
                let v = event_target_value(&ev);
                app.set_vs(|s| s.filter.reason = (!v.is_empty()).then_some(v));
            } prop:value=move || f().reason.unwrap_or_default()>
                <option value="">"any trigger"</option>
                {move || {
                    let mut r = reasons();
                    if let Some(cur) = f().reason { if !r.contains(&cur) { r.push(cur); } }
                    r.into_iter().map(|r| view! { <option value=r.clone()>{r.clone()}</option> }).collect_view()
                }}
            </select>
            <select id="filter-induced" aria-label="Induced" on:change=move |ev| {
                let v = event_target_value(&ev);
                app.set_vs(|s| s.filter.induced = match v.as_str() { "1" => Some(true), "0" => Some(false), _ => None });
            } prop:value=move || match f().induced { Some(true) => "1", Some(false) => "0", None => "" }>
                <option value="">"induced or not"</option>
                <option value="1">"induced only"</option>
                <option value="0">"not induced"</option>
            </select>
            <label class="check">"pause ≥ "
                <input id="filter-minpause" type="number" min="0" step="any" class="narrow"
                    prop:value=move || f().min_pause_ms.map(|m| m.to_string()).unwrap_or_default()
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        app.set_vs(|s| s.filter.min_pause_ms = v.trim().parse().ok());
                    }
                />" ms"
            </label>
            <label class="check">"from "
                <input id="filter-t0" type="number" step="any" class="narrow"
                    prop:value=move || f().t0.map(|m| m.to_string()).unwrap_or_default()
                    on:change=move |ev| { let v = event_target_value(&ev); app.set_vs(|s| s.filter.t0 = v.trim().parse().ok()); }
                />" to "
                <input id="filter-t1" type="number" step="any" class="narrow"
                    prop:value=move || f().t1.map(|m| m.to_string()).unwrap_or_default()
                    on:change=move |ev| { let v = event_target_value(&ev); app.set_vs(|s| s.filter.t1 = v.trim().parse().ok()); }
                />" ms"
            </label>
            <input id="filter-text" type="search" placeholder="reason, condition, caller (/)" aria-label="Filter by reason, condition or caller text"
                prop:value=move || f().text
                on:input=move |ev| { let v = event_target_value(&ev); app.set_vs(|s| s.filter.text = v); }
            />
            {move || (!f().only.is_empty()).then(|| view! {
                <span class="chip" id="filter-only" title="The GCs a finding names (Overview, Findings)">{format!("a finding's {} GCs", f().only.len())}
                    <button class="small" on:click=move |_| app.set_vs(|s| s.filter.only = Vec::new())>"×"</button>
                </span>
            })}
            {move || f().cond.map(|c| view! {
                <span class="chip" id="filter-cond">{format!("condition: {c}")}
                    <button class="small" on:click=move |_| app.set_vs(|s| s.filter.cond = None)>"×"</button>
                </span>
            })}
            <Show when=move || !f().is_empty()>
                <button class="small" id="clear-filters" on:click=move |_| app.set_vs(|s| s.filter = Default::default())>"Clear filters"</button>
            </Show>
        </div>
    }
}
