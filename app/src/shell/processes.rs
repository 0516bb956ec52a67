//! A machine-wide (ETW) trace's processes, above every view: which one is shown, the others one
//! click away (the choice goes into the address, `?pid=`, so a link opens the same process; the
//! loader follows it), and, when no process has GC events, what the trace holds and how to
//! collect GC events. EventPipe traces (one process) show none of this.

use leptos::prelude::*;

use crate::format::{ms, thousands};
use crate::protocol::processes::Processes;
use crate::state::use_app;
use crate::tables::model::runtime_label;

/// The text of a long command line shown in a cell (the whole of it on hover).
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).chain(['…']).collect()
    }
}

fn name_of(name: Option<&str>, pid: u32) -> String {
    format!("{} (pid {pid})", name.unwrap_or("?"))
}

#[component]
pub fn ProcessPicker() -> impl IntoView {
    let app = use_app();
    // Only what the picker shows: a tab change must not redraw it (and close it).
    let asked = Memo::new(move |_| app.vs.with(|v| v.pid));
    let shown = Memo::new(move |_| app.analysis.with(|a| a.as_ref().map(|a| a.process_id)));
    // Open or closed, kept while the picker redraws (switching process redraws it).
    let open = RwSignal::new(false);
    let lost = Memo::new(move |_| {
        app.analysis.with(|a| {
            a.as_ref()
                .and_then(|a| a.etl.as_ref())
                .and_then(|e| e.lost_note())
        })
    });
    move || {
        let p = app.processes.get()?;
        if p.with_gcs.is_empty() {
            return Some(view! { <NoGcs p=p /> }.into_any());
        }
        let shown = shown.get();
        let current = shown.and_then(|pid| p.get(pid));
        let title = match current {
            Some(c) => name_of(c.name.as_deref(), c.process_id),
            None => "… (reading)".to_string(),
        };
        let why = match (asked.get(), p.asked_missing) {
            (Some(a), Some(m)) if a == m => format!(
                " — the link's pid {m} has no GC events in this trace; showing the one with the most GC pause"
            ),
            (None, _) if shown.is_some() && shown == p.default_pid => {
                " — the most GC pause".to_string()
            }
            _ => String::new(),
        };
        let rows = p
            .with_gcs
            .iter()
            .map(|s| {
                let pid = s.process_id;
                let is_shown = shown == Some(pid);
                let cmd = s.command_line.clone().unwrap_or_default();
                view! {
                    <tr data-pid=pid class:current=is_shown>
                        <td>
                            <button
                                class="link process-pick"
                                data-pid=pid
                                disabled=is_shown
                                title=if is_shown { "Shown now" } else { "Show this process (the address keeps it)" }
                                on:click=move |_| app.set_vs(|v| {
                                    v.pid = Some(pid);
                                    // A GC number is per process.
                                    v.selected = None;
                                })
                            >
                                {s.name.clone().unwrap_or_else(|| "?".into())}
                            </button>
                        </td>
                        <td class="num proc-pid">{pid}</td>
                        <td class="proc-runtime">{runtime_label(s.runtime_version.as_deref())}</td>
                        <td class="num proc-gcs">{thousands(s.gc_count as f64)}</td>
                        <td class="num proc-pause">{ms(s.total_pause_ms)}</td>
                        <td class="proc-cmd" title=cmd.clone()>{clip(&cmd, 80)}</td>
                    </tr>
                }
            })
            .collect_view();
        let n = p.with_gcs.len();
        Some(view! {
            <details id="processes" class="notice processes" prop:open=move || open.get()>
                <summary on:click=move |ev| {
                    // The signal decides, so the table stays open while the page switches.
                    ev.prevent_default();
                    open.update(|o| *o = !*o);
                }>
                    {format!("ETW trace: {n} .NET process{} with GC events · showing ", if n == 1 { "" } else { "es" })}
                    <strong id="process-shown">{title}</strong>
                    {why}
                    {(n > 1).then(|| view! { <span class="muted">" · choose another"</span> })}
                    {lost.get().map(|l| view! { <span class="warn" title=l>" ⚠ events lost"</span> })}
                </summary>
                <table id="process-table" class="process-table">
                    <thead>
                        <tr>
                            <th>"Process"</th>
                            <th class="num">"pid"</th>
                            <th>"Runtime"</th>
                            <th class="num" title="GCs of the process (complete or not)">"GCs"</th>
                            <th class="num" title="Sum of the complete GCs' pauses">"Total pause"</th>
                            <th>"Command line"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </details>
        }.into_any())
    }
}

/// No process of the trace has GC events: what it holds, and how to collect them.
#[component]
fn NoGcs(p: std::sync::Arc<Processes>) -> impl IntoView {
    let all = p.all.clone().unwrap_or_default();
    let list = |v: &[gcscope_core::gc::ProcessSummary], total: usize| {
        let mut s = v
            .iter()
            .map(|p| name_of(p.name.as_deref(), p.process_id))
            .collect::<Vec<_>>()
            .join(", ");
        if total > v.len() {
            s.push_str(&format!(
                " and {} more",
                thousands((total - v.len()) as f64)
            ));
        }
        s
    };
    let dotnet = (all.dotnet_count > 0).then(|| {
        let named: Vec<String> = all
            .dotnet
            .iter()
            .map(|p| {
                format!(
                    "{}{}",
                    name_of(p.name.as_deref(), p.process_id),
                    p.runtime_version
                        .as_deref()
                        .map(|v| format!(", {}", runtime_label(Some(v))))
                        .unwrap_or_default()
                )
            })
            .collect();
        format!(
            "Its .NET process{} ({}) wrote runtime events but no GC events: the GC keyword was \
             off, or no GC happened while it was traced.",
            if all.dotnet_count == 1 { "" } else { "es" },
            named.join("; ")
        )
    });
    let others = (all.other_count > 0).then(|| {
        format!(
            "{} other process{} named by the kernel: {}.",
            thousands(all.other_count as f64),
            if all.other_count == 1 { "" } else { "es" },
            list(&all.others, all.other_count)
        )
    });
    view! {
        <div id="no-gcs" class="notice no-gcs" role="status">
            <p>
                <strong>
                    {if all.dotnet_count == 0 {
                        "This ETW trace has no .NET process: no process wrote the .NET runtime's events."
                    } else {
                        "No process in this ETW trace has GC events."
                    }}
                </strong>
                " "
                {dotnet}
                " "
                {others}
            </p>
            <p>
                "To see GCs, trace again with the runtime's GC events on: "
                <code>"PerfView /GCCollectOnly /AcceptEULA /NoGui collect"</code>
                " (GC events and process names only: small, fit for production) or "
                <code>"/GCOnly"</code>
                " (adds allocation sampling). Any other ETW tool (WPR, xperf, logman): the provider "
                <code>"Microsoft-Windows-DotNETRuntime"</code>
                " ("
                <code>"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"</code>
                ") with keyword "
                <code>"0x1"</code>
                " (GC) at level 4 (Informational), and the kernel's process events to name the processes."
            </p>
        </div>
    }
}
