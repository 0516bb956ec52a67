//! The Compare tab's findings: those that appear, disappear or change from A to B (core's
//! `findings::diff`, what `gcscope compare` prints), each with links to its evidence on its side.
//! A's evidence is in this page's views (its GCs in the GC table, its first GC's detail panel). B
//! is not open in this page: with an address, its GCs open in a page of its own
//! (`?trace=B&tab=gcs&only=...`); a local file's are listed here.

use std::sync::Arc;

use gcscope_core::findings::{self, Change, Finding, Report};
use leptos::prelude::*;

use crate::state::view_state::{ViewState, GC_TABLE};
use crate::state::{use_app, AppState};
use crate::tables::findings::settings;

use super::findings_panel::{report_memo, show_only};

/// GC numbers ("#3, #4, #9"), at most `max` of them.
fn gc_list(gcs: &[u32], max: usize) -> String {
    let mut s: Vec<String> = gcs.iter().take(max).map(|g| format!("#{g}")).collect();
    if gcs.len() > max {
        s.push(format!("… {} more", gcs.len() - max));
    }
    s.join(", ")
}

fn find<'a>(r: &'a Report, rule: &str) -> Option<&'a Finding> {
    r.findings.iter().find(|f| f.rule == rule)
}

/// The address of B opened alone, showing only `gcs` in its GC table, with this page's settings.
fn b_address(url: &str, gcs: &[u32], vs: &ViewState) -> String {
    let mut only = gcs.to_vec();
    only.sort_unstable();
    only.dedup();
    let mut b = ViewState {
        trace: Some(url.to_string()),
        tab: Some(GC_TABLE.into()),
        goal: vs.goal.clone(),
        budget_ms: vs.budget_ms,
        ..ViewState::default()
    };
    b.filter.only = only;
    format!("?{}", b.to_query())
}

#[component]
pub fn FindingsDiff() -> impl IntoView {
    let app = use_app();
    let a = report_memo();
    let b = Memo::new_with_compare(
        move |_| {
            let o = app.other.get()?;
            let s = app.vs.with(|v| settings(v.goal.as_deref(), v.budget_ms));
            Some(Arc::new(findings::analyze(&o.model, &o.gcs, &s)))
        },
        |x, y| x != y,
    );
    view! {
        <section id="compare-findings" class="findings" aria-label="Findings, A to B">
            <h2>"Findings, A to B " <span class="muted small-text">"(goal and pause budget as on the Overview; each side's own findings: its Overview, gcscope findings FILE)"</span></h2>
            {move || {
                let (Some(a), Some(b)) = (a.get(), b.get()) else {
                    return view! { <p class="muted">"Reading…"</p> }.into_any();
                };
                let changes = findings::diff(&a, &b);
                view! {
                    <p id="compare-findings-verdicts" class="muted">
                        <span id="compare-findings-a">{format!("A: {}", a.verdict)}</span>" · "
                        <span id="compare-findings-b">{format!("B: {}", b.verdict)}</span>
                    </p>
                    {changes.is_empty().then(|| view! { <p id="compare-findings-same">"The same findings, with the same numbers."</p> })}
                    <ul id="compare-findings-list" class="findings-list">
                        {changes.into_iter().map(|c| {
                            let fa = find(&a, &c.rule).map(|f| f.evidence.gcs.clone());
                            let fb = find(&b, &c.rule).map(|f| f.evidence.gcs.clone());
                            view! { <ChangeItem c=c a_gcs=fa b_gcs=fb app=app /> }
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
    }
}

#[component]
fn ChangeItem(
    c: Change,
    a_gcs: Option<Vec<u32>>,
    b_gcs: Option<Vec<u32>>,
    app: AppState,
) -> impl IntoView {
    let sev = |s: Option<findings::Severity>| s.map_or("none", |s| s.name());
    let a_links = a_gcs.filter(|g| !g.is_empty()).map(|gcs| {
        let n = gcs.len();
        let first = gcs[0];
        view! {
            <button class="link compare-a-gcs" data-count=n.to_string() on:click=move |_| show_only(app, &gcs)>
                {format!("A: show its {} GC{} in the table", n, if n == 1 { "" } else { "s" })}
            </button>
            <button class="link compare-a-gc" data-gc=first.to_string() on:click=move |_| app.select(first)>
                {format!("A: open GC #{first}")}
            </button>
        }
    });
    let b_links = b_gcs.filter(|g| !g.is_empty()).map(|gcs| {
        let n = gcs.len();
        let label = format!("B: its {} GC{}", n, if n == 1 { "" } else { "s" });
        match app.vs.with_untracked(|v| v.compare.clone().map(|u| b_address(&u, &gcs, v))) {
            // B has an address: its GCs in a page of its own, as any link to a filtered table.
            Some(href) => view! {
                <a class="link compare-b-gcs" data-count=n.to_string() href=href target="_blank" rel="noopener"
                    title="Opens B alone, its GC table showing only these GCs">{format!("{label} (opens B)")}</a>
            }.into_any(),
            // A local file cannot be reopened by a link: its GC numbers are listed here.
            None => view! {
                <details class="compare-b-evidence" data-count=n.to_string()>
                    <summary>{label}</summary>
                    <p class="compare-b-list">{gc_list(&gcs, 200)}</p>
                    <p class="muted">"B is a local file: open it alone to see these GCs in its views."</p>
                </details>
            }.into_any(),
        }
    });
    view! {
        <li class="finding-change" data-rule=c.rule.to_string() data-kind=c.kind.name()>
            <div class="finding-line">
                <span class="chip">{c.kind.name()}</span>
                <strong class="finding-title">{c.title.to_string()}</strong>
                <span class="muted compare-severity">{format!("{} → {}", sev(c.before), sev(c.after))}</span>
            </div>
            <p class="finding-summary compare-what">{c.what.clone()}</p>
            <div class="finding-links">{a_links}{b_links}</div>
        </li>
    }
}
