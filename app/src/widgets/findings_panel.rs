//! The Findings panel: what is wrong with the process's GC, ranked (core's `findings`, the same
//! report `gcscope findings` prints), at the top of the Overview. Each finding links to its
//! evidence: its GCs in the GC table, their time range on the charts, the first GC's detail panel,
//! the types it names in Pinning & handles, and the call stacks behind it (`top_stacks`). The goal and pause budget are set here and kept in the
//! address bar (`?goal=latency&budget=50`).

use std::sync::Arc;

use gcscope_core::findings::{self, Finding, Goal, Report, Severity, DEFAULT_PAUSE_BUDGET_MS};
use leptos::prelude::*;

use crate::state::view_state::GC_TABLE;
use crate::state::{use_app, AppState};
use crate::tables::findings::{checks_table, figure, settings};
use crate::tables::SortFilter;

use super::table::{DataTable, Rows};
use super::top_stacks::TopStacks;

/// The report for the trace and the settings in the address bar; `None` until the model is in.
pub fn report_memo() -> Memo<Option<Arc<Report>>> {
    let app = use_app();
    Memo::new_with_compare(
        move |_| {
            let m = app.model.get()?;
            let s = app.vs.with(|v| settings(v.goal.as_deref(), v.budget_ms));
            Some(Arc::new(app.gcs.with(|g| findings::analyze(&m, g, &s))))
        },
        |a, b| a != b,
    )
}

/// Shows only `gcs` in the GC table: the other filters are cleared, the time range too.
pub fn show_only(app: AppState, gcs: &[u32]) {
    let mut only = gcs.to_vec();
    only.sort_unstable();
    only.dedup();
    app.set_vs(move |s| {
        s.filter = Default::default();
        s.filter.only = only;
        s.sort = None;
        s.tab = Some(GC_TABLE.into());
    })
}

fn sev_class(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "finding sev-critical",
        Severity::Warning => "finding sev-warning",
        Severity::Info => "finding sev-info",
    }
}

/// `request_stacks` asks the stacks worker for the findings' stacks (`loader::stacks`, passed by
/// the view).
#[component]
pub fn FindingsPanel(request_stacks: fn(crate::state::AppState)) -> impl IntoView {
    let app = use_app();
    let report = report_memo();
    let goal = move || {
        app.vs
            .with(|v| v.goal.clone())
            .unwrap_or_else(|| Goal::default().name().into())
    };
    let budget = move || {
        app.vs
            .with(|v| v.budget_ms)
            .unwrap_or(DEFAULT_PAUSE_BUDGET_MS)
            .to_string()
    };
    view! {
        <section id="findings" class="findings" aria-label="Findings">
            <div class="findings-head">
                <h2>"Findings"</h2>
                <span id="findings-verdict" class="muted">{move || report.get().map(|r| r.verdict.clone()).unwrap_or_default()}</span>
                <label class="check" title="What the program is tuned for: picks which findings are warnings (MD: throughput watches % of time paused, latency each pause, footprint the heap's size)">"Goal "
                    <select id="findings-goal" prop:value=goal on:change=move |ev| {
                        let v = event_target_value(&ev);
                        app.set_vs(|s| s.goal = (v != Goal::default().name()).then_some(v));
                    }>
                        {Goal::ALL.iter().map(|g| view! { <option value=g.name()>{g.name()}</option> }).collect_view()}
                    </select>
                </label>
                <label class="check" title="A GC that pauses longer than this is a finding (pauses-over-budget); the Latency tab uses the same budget">"Pause budget "
                    <input id="findings-budget" type="number" min="0" step="any" class="narrow"
                        prop:value=budget
                        on:change=move |ev| {
                            let v: Option<f64> = event_target_value(&ev).trim().parse().ok().filter(|b: &f64| b.is_finite() && *b >= 0.0);
                            // Kept even at the default: the Latency tab reads the same budget.
                            app.set_vs(|s| s.budget_ms = v);
                        }
                    />" ms"
                </label>
            </div>
            {move || report.get().map(|r| {
                let none = r.findings.is_empty();
                let checks = checks_table(&r);
                view! {
                    {none.then(|| view! { <p id="findings-none" class="findings-none">"Nothing wrong found: every rule below was checked and none crossed its threshold."</p> })}
                    <ol id="findings-list" class="findings-list">
                        {r.findings.iter().map(|f| view! { <FindingItem f=f.clone() request_stacks=request_stacks /> }).collect_view()}
                    </ol>
                    <details id="findings-checks" class="findings-checks" open=none>
                        <summary>{checks.title.clone()}<span class="muted">" · thresholds and sources: docs/reference/findings.md"</span></summary>
                        <DataTable id="findings-checks-table" rows=Signal::stored(Rows::all(checks)) />
                    </details>
                }
            })}
        </section>
    }
}

#[component]
fn FindingItem(f: Finding, request_stacks: fn(crate::state::AppState)) -> impl IntoView {
    let app = use_app();
    let rule = f.rule.to_string();
    let ev = f.evidence.clone();
    let gcs = ev.gcs.clone();
    let n = gcs.len();
    let first = gcs.first().copied();
    let range = ev.range_ms;
    let show_gcs = move |_| show_only(app, &gcs);
    let show_range = move |_| {
        if let Some((a, b)) = range {
            app.set_range(a, b.max(a + 0.001));
            app.set_vs(|s| s.tab = Some("charts".into()));
        }
    };
    let types = ev.types.clone();
    let topic = gcscope_core::findings::stacks::Topic::for_rule(&rule);
    view! {
        <li class=sev_class(f.severity) data-rule=rule.clone() data-severity=f.severity.name()>
            <div class="finding-line">
                <span class="sev">{f.severity.name()}</span>
                <strong class="finding-title">{f.title.to_string()}</strong>
                {f.definitive.then(|| view! { <span class="chip" title="One of the three definitive signs of a GC problem (MD)">"definitive"</span> })}
                {f.threshold.chosen.then(|| view! { <span class="chip muted" title="The sources give no number: the threshold is gcscope's own">"gcscope's threshold"</span> })}
            </div>
            <p class="finding-summary">{f.summary.clone()}</p>
            // What lost events could hide or fake here, in sight rather than under the details.
            {f.caveats.iter().map(|c| view! { <p class="warn finding-caveat">{format!("⚠ {c}")}</p> }).collect_view()}
            <div class="finding-links">
                {(n > 0).then(|| view! {
                    <button class="link finding-gcs" data-count=n.to_string() on:click=show_gcs>
                        {format!("Show {} GC{} in the table", n, if n == 1 { "" } else { "s" })}
                    </button>
                })}
                {range.map(|(a, b)| view! {
                    <button class="link finding-range" title="Select this time range: every view follows it" on:click=show_range>
                        {format!("Their time range on the charts ({} – {})", crate::format::trace_ms(a), crate::format::trace_ms(b))}
                    </button>
                })}
                {first.map(|g| view! {
                    <button class="link finding-gc" data-gc=g.to_string() on:click=move |_| app.select(g)>{format!("Open GC #{g}")}</button>
                })}
                {types.into_iter().take(3).map(|t| {
                    let name = t.clone();
                    view! {
                        <button class="link finding-type" on:click=move |_| {
                            let name = name.clone();
                            app.set_vs(move |s| {
                                s.set_table("pin", SortFilter { sort: None, text: name });
                                s.tab = Some("pins".into());
                            })
                        }>{t}</button>
                    }
                }).collect_view()}
            </div>
            {topic.map(|t| view! { <TopStacks topic=t request=request_stacks /> })}
            <details class="finding-details">
                <summary>"Evidence, threshold and advice"</summary>
                <dl class="facts finding-figures">
                    {ev.figures.iter().map(|x| view! { <dt>{x.label.to_string()}</dt><dd>{figure(x)}</dd> }).collect_view()}
                </dl>
                <ul class="finding-evidence">
                    {ev.lines.iter().map(|l| view! { <li>{l.clone()}</li> }).collect_view()}
                </ul>
                <p class="finding-threshold"><span class="muted">"Threshold: "</span>{f.threshold.text.clone()}
                    <span class="muted">{format!(" ({})", f.threshold.source)}</span></p>
                <ul class="finding-advice">
                    {f.advice.iter().map(|a| view! { <li>{a.text.to_string()}<span class="muted">{format!(" ({})", a.source)}</span></li> }).collect_view()}
                </ul>
            </details>
        </li>
    }
}
