//! DATAS (Server GC's Dynamic Adaptation To Application Sizes): the heap count over time with
//! each change marked, the tuning decision behind each change and the sentence that explains it,
//! every decision, DATAS's per-GC samples and every GC's heap count; for a trace without DATAS,
//! why gcscope says so and how DATAS is enabled and captured. What `gcscope datas` prints.

use gcscope_core::gc::{mode, GcModel};
use leptos::prelude::*;

use crate::state::use_app;
use crate::tables::cell::{fmt_cell, Cell};
use crate::tables::datas as tables;
use crate::tables::defs;
use crate::widgets::chart::{LineChart, Mark};
use crate::widgets::facts::{range_note, reading};
use crate::widgets::table_panel::TablePanel;
use crate::widgets::table_state::TableState;

#[component]
pub fn Datas() -> impl IntoView {
    let app = use_app();
    move || match app.model.get() {
        Some(m) if tables::has_view(&m.datas) => with_datas(&m),
        Some(m) => not_datas(&m),
        None => reading("The heap counts and DATAS's decisions"),
    }
}

/// A GC number as the rows name it.
fn gc32(gc: u64) -> Option<u32> {
    u32::try_from(gc).ok()
}

/// One figure of the view's facts: its label and definition, and its value as shown.
fn fact(id: &'static str, label: &'static str, help: &'static str, value: String) -> impl IntoView {
    view! {
        <dt title=help>{label}</dt>
        <dd id=id>{value}</dd>
    }
}

fn help(d: Option<&'static defs::Definition>) -> &'static str {
    d.map_or("", |d| d.definition)
}

fn with_datas(m: &GcModel) -> AnyView {
    let app = use_app();
    let d = &m.datas;
    let r = app.range();
    let st = app.starts();
    let end = Some(m.process.trace_duration_ms);

    let marks = tables::change_marks(d, &r, &st);
    let chart_marks: Vec<Mark> = marks
        .iter()
        .map(|c| Mark {
            ms: c.ms,
            label: c.why.clone(),
            gc: gc32(c.gc),
        })
        .collect();
    let heaps = tables::heap_steps(d, end);
    let cost: Vec<(f64, f64)> = d
        .samples
        .iter()
        .filter_map(|s| s.throughput_cost_pct.map(|c| (s.ms, c)))
        .collect();
    let median: Vec<(f64, f64)> = d
        .decisions
        .iter()
        .filter_map(|x| x.median_tcp_pct.map(|c| (x.ms, c)))
        .collect();
    let in_range: Vec<u32> = d
        .per_gc
        .iter()
        .filter(|g| r.contains(g.ms))
        .map(|g| g.heaps)
        .collect();
    let range_heaps = match (in_range.iter().min(), in_range.iter().max()) {
        (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
        (_, Some(b)) => b.to_string(),
        _ => "–".into(),
    };
    let count = |n: usize| fmt_cell("count", &Cell::Num(Some(n as f64)));
    let ranged = r.is_set();
    let decisions_shown = tables::decisions(d, &r, &st);
    let samples_shown = tables::samples(d, &r, &st);
    let why_most = tables::why_most_heaps(d);
    let evidence = m.process.gc_mode_evidence.clone();
    let unknown = d.unknown_events.clone();
    let dropped = d.dropped;

    view! {
        <section class="insights datas">
            <p class="explain">"Server GC with DATAS (Dynamic Adaptation To Application Sizes) adds and removes GC heaps as the app runs. \
                Every few GCs it looks at what the GCs cost (their pauses and the time allocating threads waited for the allocation locks, over the time between GCs) \
                and at the size of the long-lived data, and decides how many heaps the next GCs get. \
                Each change of the heap count is shown with the decision that chose it; hover a marked change on the chart, or click it to open its GC."</p>
            <dl class="facts insight-facts" id="datas-facts">
                {fact("datas-mode", "GC mode", help(defs::process_field("gc_mode")), mode::label(&m.process))}
                {fact("datas-heaps", if ranged { "Heaps (in range)" } else { "Heaps" }, help(defs::model_field("datas.per_gc.heaps")), range_heaps)}
                {fact("datas-change-count", "Heap-count changes", help(defs::process_field("heap_count_changes")), count(marks.len()))}
                {fact("datas-decision-count", "Tuning decisions", help(defs::model_field("datas.decisions.gc")), count(decisions_shown.rows.len()))}
                {fact("datas-sample-count", "Samples", help(defs::model_field("datas.samples.gc")), count(samples_shown.rows.len()))}
            </dl>
            {why_most.map(|w| view! { <p class="why" id="datas-why-most"><strong>{w}</strong></p> })}
            {range_note("the GCs that started in it, and the samples and decisions made at them")}
            <h2>"Heap count over time " <span class="muted small-text">"(dashed: a change; hover it for why, click to open its GC; drag to select a time range)"</span></h2>
            <LineChart series=vec![("heaps".into(), "var(--accent)".into(), heaps)] unit="count" id="datas-heaps-chart" marks=chart_marks.clone() />
            <h2>"What the GCs cost"</h2>
            <LineChart series=vec![
                ("cost of each GC (sample)".into(), "var(--gen1)".into(), cost),
                ("median cost a decision looked at".into(), "var(--gen2)".into(), median),
            ] unit="%" id="datas-cost-chart" marks=chart_marks />
            <h2>"Why the heap count changed"</h2>
            {if marks.is_empty() {
                view! { <p class="muted" id="datas-why-none">{if ranged { "No heap-count change in the selected range." } else { "The heap count never changed in this trace." }}</p> }.into_any()
            } else {
                view! {
                    <ol id="datas-why" class="why-list">
                        {marks.into_iter().map(|c| {
                            let gc = gc32(c.gc);
                            view! {
                                <li data-gc=gc.map(|g| g.to_string())>
                                    <span class="why-text">{c.why}</span>" "
                                    {gc.map(|n| view! { <button class="link" on:click=move |_| app.select(n)>{format!("(open GC {n})")}</button> })}
                                </li>
                            }
                        }).collect_view()}
                    </ol>
                }.into_any()
            }}
            <TablePanel table=tables::changes(d, &r, &st) id="datas-changes" state=TableState::in_url("change") gc_column="gc" />
            <p class="muted" id="datas-raw-note">"Decided: what each decision did and why, in words, from the codes a SizeAdaptationTuning (.NET 9+) carries: \
                the change decision (whether the cost let DATAS consider a change, or what stopped it), the adjustment reason and spacing reason (what cut, delayed or replaced the step) \
                and what was adjusted (the heap count, the gen0 budget or nothing). The code columns show each code's name in the runtime's GC with the number the event carried; \
                a number gcscope does not know is shown as it is. .NET 8's HeapCountTuning and the full-GC decisions carry no codes. \
                Other fields (raw): the event's remaining fields as the runtime wrote them. The cost DATAS aims for (its target) is a runtime setting that no event carries."</p>
            <TablePanel table=decisions_shown id="datas-decisions" state=TableState::in_url("decision") gc_column="gc" />
            <div class="side-by-side">
                <TablePanel table=tables::by_heap_count(d, &r) id="datas-by-heap-count" />
                <TablePanel table=tables::per_gc(d, &r) id="datas-per-gc" state=TableState::in_url("gcheaps") gc_column="gc" />
            </div>
            <TablePanel table=samples_shown id="datas-samples" state=TableState::in_url("sample") gc_column="gc" />
            {(!unknown.is_empty()).then(|| view! {
                <ul class="muted" id="datas-unknown">
                    {unknown.into_iter().map(|(name, n)| view! { <li>{format!("unknown dynamic event {name}: {n}")}</li> }).collect_view()}
                </ul>
            })}
            {(dropped > 0).then(|| view! {
                <p class="warn" id="datas-dropped">{format!("{dropped} DATAS records beyond the kept maximum were counted, not kept.")}</p>
            })}
            <details id="datas-evidence">
                <summary>"How gcscope decided the GC mode"</summary>
                <ul>{evidence.into_iter().map(|f| view! { <li>{format!("{}: {} ({})", f.setting, f.value, f.evidence)}</li> }).collect_view()}</ul>
            </details>
        </section>
    }
    .into_any()
}

/// The empty state: not DATAS (or cannot tell) with the GC mode's evidence, and how DATAS is
/// enabled and which keyword and level capture its events.
fn not_datas(m: &GcModel) -> AnyView {
    let e = tables::not_datas(&m.process);
    view! {
        <section class="insights datas">
            <div class="empty-note" id="datas-empty" role="note">
                <p id="datas-verdict"><strong>{e.verdict}</strong></p>
                <ul id="datas-empty-evidence">
                    {e.evidence.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
                </ul>
                <p id="datas-how">{e.how_to_enable}</p>
            </div>
        </section>
    }
    .into_any()
}
