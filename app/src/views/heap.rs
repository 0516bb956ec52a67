//! The Heap tab: a `.gcdump` heap snapshot's (or a trace's heap walk's) totals (with core's warnings next to the figures
//! they skew), its types with retained bytes, its root categories, its dominator tree (one level
//! at a time, asked of the heap worker, `loader::heap`), the paths from the root to one type's
//! instances, its generations where it has them, and the difference with a second snapshot.
//! The type, the expanded nodes and the tables' sorts and filters are kept in the address.

use std::sync::Arc;

use leptos::prelude::*;

use crate::format::{bytes, thousands};
use crate::loader::heap as worker;
use crate::loader::other;
use crate::protocol::heap::{HeapDiff, HeapStage, HeapSummary, Paths};
use crate::state::use_app;
use crate::tables::heap::{self as tables, skews, Skews};
use crate::widgets::table_panel::TablePanel;
use crate::widgets::table_state::TableState;

/// Type names offered by the paths' type box (the most retained first).
const TYPES_OFFERED: usize = 500;

#[component]
pub fn Heap() -> impl IntoView {
    let app = use_app();
    let h = app.heap;
    // A trace's heap walk is read the first time the tab shows.
    Effect::new(move |_| {
        if app.trace_has_heap_walk() {
            worker::open_walk(app);
        }
    });
    move || {
        let trace = app.model.with(|m| m.is_some());
        if let Some(e) = h.error.get() {
            let why = if trace {
                "The trace's heap walk could not be read: the walk is the GCBulk events of one induced gen2 GC, and a trace cut short or with events lost inside the walk stops here."
            } else {
                "The heap snapshot could not be read: a .gcdump is written whole when dotnet-gcdump (or PerfView) finishes, so a file cut short, still being written or damaged stops here."
            };
            return view! {
                <div id="heap-error" class="error" role="alert">{e}</div>
                <p class="muted">{why}</p>
            }
            .into_any();
        }
        match h.summary.get() {
            Some(s) => view! { <Snapshot s=s /> }.into_any(),
            None if h.open.with(|o| o.is_some()) || app.trace_has_heap_walk() => view! {
                <p id="heap-loading" class="muted">{if trace { "Reading the trace's heap walk and computing its dominator tree…" } else { "Reading the heap snapshot and computing its dominator tree…" }}</p>
            }
            .into_any(),
            None => view! {
                <p class="empty-note" id="heap-empty" role="note">"Open a .gcdump heap snapshot (dotnet-gcdump, PerfView, Visual Studio) to see what the heap holds: its types by retained bytes, its roots, its dominator tree and what keeps a type alive."</p>
            }
            .into_any(),
        }
    }
}

/// A figure of the totals, with the warnings that skew it.
fn fact(
    id: &'static str,
    label: &'static str,
    help: &'static str,
    value: String,
    raw: u64,
    warnings: Vec<String>,
) -> impl IntoView {
    view! {
        <dt title=help>{label}</dt>
        <dd class="num" id=id data-value=raw.to_string()>
            {value}
            {warnings.into_iter().map(|w| view! { <span class="heap-warn" title=w.clone() aria-label=w>" ⚠"</span> }).collect_view()}
        </dd>
    }
}

#[component]
fn Snapshot(s: Arc<HeapSummary>) -> impl IntoView {
    let app = use_app();
    let warn = |k: Skews| -> Vec<String> {
        s.warnings
            .iter()
            .filter(|w| skews(w) == k)
            .cloned()
            .collect()
    };
    let with_bytes = |n: u64| format!("{} ({})", thousands(n as f64), bytes(n as f64));
    let shown = app.heap.shown_ms.get_untracked();
    let after = |i: usize| {
        shown[i].map_or(String::new(), |ms| {
            format!(", shown {ms:.0} ms after opening")
        })
    };
    let pending = s.stage < HeapStage::Retained;
    let timing = match s.stage {
        HeapStage::Types => format!(
            "Read in {:.0} ms, types counted in {:.0} ms{}; computing the dominator tree (retained bytes)…",
            s.read_ms, s.types_ms, after(0)
        ),
        HeapStage::Retained => format!(
            "Read in {:.0} ms{}; dominator tree in {:.0} ms, tables in {:.0} ms{}; computing the root categories…",
            s.read_ms, after(0), s.dominators_ms, s.types_ms, after(1)
        ),
        HeapStage::Complete => format!(
            "Read in {:.0} ms{}; dominator tree in {:.0} ms, tables in {:.0} ms{}; root categories in {:.0} ms{}.",
            s.read_ms, after(0), s.dominators_ms, s.types_ms, after(1), s.roots_ms, after(2)
        ),
    };
    // A figure that needs the dominator tree, while it is computed.
    let tree_fact = |id: &'static str,
                     label: &'static str,
                     help: &'static str,
                     value: String,
                     raw: u64,
                     w: Vec<String>| {
        if pending {
            view! {
                <dt title=help>{label}</dt>
                <dd class="num pending" id=id>"computing…"</dd>
            }
            .into_any()
        } else {
            fact(id, label, help, value, raw, w).into_any()
        }
    };
    let mut who = Vec::new();
    if let Some(p) = &s.process_name {
        who.push(format!("process {p}"));
    }
    if s.process_id > 0 {
        who.push(format!("pid {}", s.process_id));
    }
    if let Some(t) = &s.creation_tool {
        who.push(format!("written by {t}"));
    }
    let root = s.root.clone();
    let root_node = root.as_ref().map(|r| r.node);
    let open = Memo::new(move |_| app.vs.with(|v| v.heap_open.clone()));
    let chosen = Memo::new(move |_| app.vs.with(|v| v.heap_type.clone()));
    // The root's children, and those of every node the address has open.
    Effect::new(move |_| {
        let open = open.get();
        if let Some(r) = root_node {
            worker::children(app, r);
        }
        for n in open {
            worker::children(app, n);
        }
    });
    // The paths of the type the address names.
    Effect::new(move |_| {
        if let Some(t) = chosen.get() {
            let have = app
                .heap
                .paths
                .with_untracked(|p| p.as_ref().is_some_and(|p| p.type_name == t));
            if !have {
                worker::paths(t);
            }
        }
    });
    let names: Vec<String> = s
        .type_rows
        .iter()
        .take(TYPES_OFFERED)
        .map(|r| r.name.clone())
        .collect();
    // A trace's walk: the GC that made it, as the trace's facts name it.
    let walk_gc = app
        .model
        .with_untracked(|m| m.as_ref().and_then(|m| m.process.heap_walk_gc));
    let title = if walk_gc.is_some() {
        "Heap walk of "
    } else {
        "Heap snapshot "
    };
    view! {
        <section class="heap">
            <h2>{title} <span id="heap-file">{s.file_name.clone()}</span>{walk_gc.map(|n| format!(", at GC #{n}"))}</h2>
            {(!who.is_empty()).then(|| view! { <p class="muted" id="heap-who">{who.join(" · ")}</p> })}
            <dl class="facts insight-facts" id="heap-totals">
                {fact("heap-nodes", "Nodes", "Every object of the snapshot, the root tree's pseudo-nodes ([.NET Roots], [static vars]...) included.", thousands(s.nodes as f64), s.nodes, warn(Skews::Nodes))}
                {fact("heap-edges", "Edges", "References between nodes.", thousands(s.edges as f64), s.edges, vec![])}
                {fact("heap-bytes", "Bytes", "The sum of the nodes' sizes (shallow bytes).", with_bytes(s.total_bytes), s.total_bytes, warn(Skews::Bytes))}
                {fact("heap-types-count", "Types", "Distinct type names.", thousands(s.types as f64), s.types, vec![])}
                {tree_fact("heap-unreachable-nodes", "Unreachable nodes", tables::UNREACHABLE, thousands(s.unreachable_nodes as f64), s.unreachable_nodes, warn(Skews::Unreachable))}
                {tree_fact("heap-unreachable-bytes", "Unreachable bytes", tables::UNREACHABLE, with_bytes(s.unreachable_bytes), s.unreachable_bytes, vec![])}
                {tree_fact("heap-retained-root", "Retained by the root", tables::RETAINED, with_bytes(s.root.as_ref().map_or(0, |r| r.retained_bytes)), s.root.as_ref().map_or(0, |r| r.retained_bytes), warn(Skews::Retained))}
                {fact("heap-pointer", "Pointer size", "Bytes of a pointer in the process (4: 32-bit, 8: 64-bit).", format!("{} bytes", s.pointer_size), s.pointer_size as u64, vec![])}
            </dl>
            {(!s.warnings.is_empty()).then(|| view! {
                <ul id="heap-warnings" class="heap-warnings">
                    {s.warnings.iter().map(|w| view! { <li>"⚠ " {w.clone()}</li> }).collect_view()}
                </ul>
            })}
            <p class="muted" id="heap-timing" data-stage=format!("{:?}", s.stage).to_lowercase()>{timing}</p>
            <Diff />
            <TablePanel table=tables::types_table(&s.type_rows, pending) id="heap-types" state=TableState::in_url("heap") />
            <PathsPanel names=names />
            <h2 title=tables::RETAINED>"Dominator tree"</h2>
            <p class="muted">"Each object under the one it is kept alive by alone (its immediate dominator), largest retained first. Expand a node for what it keeps alive."</p>
            {pending.then(|| view! { <p class="muted pending" id="heap-tree-pending">"Computing the dominator tree…"</p> })}
            <div id="heap-tree" class="heap-tree" hidden=pending>
                {root.map(|r| view! {
                    <div class="heap-node" data-node=r.node.to_string()>
                        <span class="heap-type">{r.type_name.clone()}</span>
                        <span class="num">{format!(" retained {}", bytes(r.retained_bytes as f64))}</span>
                    </div>
                    {level(r.node)}
                })}
            </div>
            {if s.stage < HeapStage::Complete {
                view! { <p class="muted pending" id="heap-roots-pending">"Root categories: computing…"</p> }.into_any()
            } else {
                view! { <TablePanel table=tables::categories_table(&s.categories, s.shared_retained_bytes) id="heap-roots" state=TableState::in_url("hroot") /> }.into_any()
            }}
            {s.generations.as_ref().map(|g| view! {
                <TablePanel table=tables::generations_table(g) id="heap-generations" state=TableState::in_url("hgen") />
            })}
        </section>
    }
}

/// The children of dominator-tree node `node`, once the worker answered them.
fn level(node: u32) -> AnyView {
    let app = use_app();
    (move || {
        let Some(l) = app.heap.levels.with(|l| l.get(&node).cloned()) else {
            return view! { <p class="muted heap-level">"…"</p> }.into_any();
        };
        view! {
            <ul class="heap-level">
                {l.nodes.iter().map(|n| {
                    let id = n.node;
                    let has = n.children > 0;
                    let open = move || app.vs.with(|v| v.heap_open.contains(&id));
                    let toggle = move |_| app.set_vs(|v| {
                        if let Some(i) = v.heap_open.iter().position(|&x| x == id) {
                            v.heap_open.remove(i);
                        } else {
                            v.heap_open.push(id);
                            v.heap_open.sort_unstable();
                        }
                    });
                    view! {
                        <li class="heap-node" data-node=id.to_string()>
                            <button class="small heap-toggle" disabled=!has aria-expanded=move || open().to_string() on:click=toggle>
                                {move || if !has { "·" } else if open() { "▾" } else { "▸" }}
                            </button>
                            <span class="heap-type">{n.type_name.clone()}</span>
                            <span class="num heap-retained" data-value=n.retained_bytes.to_string()>{bytes(n.retained_bytes as f64)}</span>
                            <span class="muted">{format!(" retained · {} own · {} below", bytes(n.bytes as f64), thousands(n.children as f64))}</span>
                            {move || open().then(|| level(id))}
                        </li>
                    }
                }).collect_view()}
                {(l.more > 0).then(|| view! { <li class="muted">{format!("and {} smaller", thousands(l.more as f64))}</li> })}
            </ul>
        }
        .into_any()
    })
    .into_any()
}

/// The type box and the paths from the root to its instances.
#[component]
fn PathsPanel(names: Vec<String>) -> impl IntoView {
    let app = use_app();
    let chosen = move || app.vs.with(|v| v.heap_type.clone());
    view! {
        <div class="heap-paths">
            <div class="table-head">
                <h2 title="For each instance of the type, the shortest path from the root (breadth first), as type names; instances with the same path are one group, a run of one type is one step (x12), a path longer than 64 steps is cut.">"Paths to the root"</h2>
                <input type="search" id="heap-type" list="heap-type-list" placeholder="type name" aria-label="Type whose paths to the root are shown"
                    prop:value=move || chosen().unwrap_or_default()
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        app.set_vs(|s| s.heap_type = (!v.is_empty()).then_some(v));
                    }
                />
                <datalist id="heap-type-list">
                    {names.into_iter().map(|n| view! { <option value=n /> }).collect_view()}
                </datalist>
            </div>
            {move || {
                let t = chosen()?;
                let p = app.heap.paths.get().filter(|p| p.type_name == t);
                Some(match p {
                    Some(p) => paths_view(&p).into_any(),
                    None => view! { <p class="muted">"Finding the paths…"</p> }.into_any(),
                })
            }}
        </div>
    }
}

fn paths_view(p: &Paths) -> impl IntoView {
    if p.instances == 0 {
        return view! { <p class="muted" id="heap-paths-none">{format!("The snapshot has no type named {}.", p.type_name)}</p> }.into_any();
    }
    view! {
        <p class="muted" id="heap-paths-summary">{format!(
            "{} instances of {} in {} paths{}",
            thousands(p.instances as f64),
            p.type_name,
            thousands((p.groups.len() as u64 + p.more_groups) as f64),
            if p.unreachable_instances > 0 { format!("; {} unreachable (no path)", thousands(p.unreachable_instances as f64)) } else { String::new() }
        )}</p>
        <ol id="heap-paths" class="heap-path-list">
            {p.groups.iter().map(|g| view! {
                <li>
                    <span class="num">{format!("{} × ({})", thousands(g.instances as f64), bytes(g.bytes as f64))}</span>
                    " "
                    <span class="heap-path">{g.path.iter().map(|s| if s.repeat > 1 { format!("{} x{}", s.name, s.repeat) } else { s.name.clone() }).collect::<Vec<_>>().join(" → ")}</span>
                </li>
            }).collect_view()}
            {(p.more_groups > 0).then(|| view! { <li class="muted">{format!("and {} smaller groups", thousands(p.more_groups as f64))}</li> })}
        </ol>
    }
    .into_any()
}

/// The difference with a second snapshot, while it is read and once it is.
#[component]
fn Diff() -> impl IntoView {
    let app = use_app();
    let h = app.heap;
    move || {
        if let Some(e) = h.diff_error.get() {
            return Some(
                view! { <div id="heap-diff-error" class="error" role="alert">{e}</div> }.into_any(),
            );
        }
        if let Some(n) = h.diff_loading.get() {
            return Some(view! { <p id="heap-diff-loading" class="muted">{format!("Reading {n} to compare with…")}</p> }.into_any());
        }
        let d = h.diff.get()?;
        Some(diff_view(d).into_any())
    }
}

fn diff_view(d: Arc<HeapDiff>) -> impl IntoView {
    let app = use_app();
    let grown = d.types.iter().filter(|r| r.bytes_change > 0).count();
    let new = d.types.iter().filter(|r| r.new).count();
    view! {
        <div class="heap-diff">
            <p id="heap-diff-summary">{format!(
                "Compared with {}: nodes {} → {}, bytes {} → {} ({}{}); {} types grew, {} are new.",
                d.name_b,
                thousands(d.nodes_a as f64),
                thousands(d.nodes_b as f64),
                bytes(d.bytes_a as f64),
                bytes(d.bytes_b as f64),
                if d.bytes_b >= d.bytes_a { "+" } else { "" },
                bytes(d.bytes_b as f64 - d.bytes_a as f64),
                grown,
                new
            )}
                " "
                <button class="small" id="heap-diff-leave" on:click=move |_| other::leave(app)>"Stop comparing"</button>
            </p>
            <TablePanel table=tables::diff_table(&d) id="heap-diff" state=TableState::in_url("hdiff") />
        </div>
    }
}
