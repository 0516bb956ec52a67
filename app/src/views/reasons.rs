//! Condemn reasons: complete GCs per generation by trigger reason and by condemn condition (whole
//! trace, or the time range's rows); a click on a count shows exactly those GCs in the GC table.

use gcscope_core::gc::Gc;
use leptos::prelude::*;

use crate::format::thousands;
use crate::state::filter::Filter;
use crate::state::use_app;
use crate::state::view_state::GC_TABLE;
use crate::tables::{model, Cell, Table};
use crate::widgets::export::ExportButtons;

#[component]
pub fn Reasons() -> impl IntoView {
    let app = use_app();
    move || {
        let Some(m) = app.model.get() else {
            return view! { <p class="muted">"Condemn reasons appear when the whole trace is read."</p> }.into_any();
        };
        let ranged = app.range().is_set();
        let keep = app.in_range();
        let (trig, cond, without) = if ranged {
            app.gcs.with(|g| {
                let sel: Vec<&Gc> = g.iter().filter(|g| keep(g)).collect();
                model::breakdown(&sel)
            })
        } else {
            (
                model::reasons_table(&m, false),
                model::reasons_table(&m, true),
                m.condemn_reasons.without_history,
            )
        };
        let t1 = trig.clone();
        let c1 = cond.clone();
        view! {
            <section class="reasons">
                <p class="muted">"Complete GCs per generation. Click a count to see those GCs in the GC table; open a GC for its per-heap reasons."</p>
                <div class="table-head"><h2>"Trigger reason × generation"</h2><ExportButtons table=Signal::derive(move || t1.clone()) /></div>
                <ReasonGrid table=trig by_condition=false />
                <div class="table-head"><h2>"Condemn condition × generation"</h2><ExportButtons table=Signal::derive(move || c1.clone()) /></div>
                <ReasonGrid table=cond by_condition=true />
                <p class="muted" id="without-history">{format!(
                    "GCs without GCPerHeapHistory (no condemn reasons): gen0 {}, gen1 {}, gen2 {}",
                    without[0], without[1], without[2]
                )}</p>
            </section>
        }.into_any()
    }
}

#[component]
fn ReasonGrid(table: Table, by_condition: bool) -> impl IntoView {
    let app = use_app();
    let t = table;
    let help = |r: &str| {
        gcscope_core::clr::enums::CondemnCondition::ALL
            .iter()
            .find(|c| c.name() == r)
            .map(|c| gcscope_core::gc::reasons::condition_help(*c))
            .unwrap_or("")
    };
    view! {
        <table class="grid reason-grid" id=if by_condition { "condition-grid" } else { "trigger-grid" }>
            <thead><tr>{t.cols.iter().map(|c| view! { <th class:num=c.unit != "name" title=c.help>{c.label.clone()}</th> }).collect_view()}</tr></thead>
            <tbody>
                {t.rows.iter().map(|row| {
                    let reason = match &row[0] { Cell::Text(s) => s.clone(), _ => String::new() };
                    let h = help(&reason);
                    view! {
                        <tr>
                            <th scope="row" title=h>{reason.clone()}</th>
                            {(1..row.len()).map(|ci| {
                                let v = match row[ci] { Cell::Num(Some(v)) => v, _ => 0.0 };
                                let reason = reason.clone();
                                let gen = (ci <= 3).then(|| ci as u8 - 1);
                                view! {
                                    <td class="num">
                                        {if v > 0.0 {
                                            view! {
                                                <button class="link cell" data-reason=reason.clone() data-gen=gen.map(|g| g.to_string()).unwrap_or_else(|| "all".into())
                                                    on:click=move |_| app.set_vs(|s| {
                                                        s.filter = Filter { t0: s.filter.t0, t1: s.filter.t1, ..Default::default() };
                                                        s.filter.gens = gen.into_iter().collect();
                                                        if by_condition { s.filter.cond = Some(reason.clone()) } else { s.filter.reason = Some(reason.clone()) }
                                                        s.tab = Some(GC_TABLE.into());
                                                    })
                                                >{thousands(v)}</button>
                                            }.into_any()
                                        } else {
                                            view! { <span class="muted">"·"</span> }.into_any()
                                        }}
                                    </td>
                                }
                            }).collect_view()}
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}
