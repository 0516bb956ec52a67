//! Stacks: sampled allocation bytes, induced GCs, GC triggers or pinned handles by call stack, as
//! a flame graph and a call tree (top-down or bottom-up), for one heap, one type (allocations)
//! and the time range. The stacks worker (`loader::stacks`) reads the file's stacks once and
//! answers each choice with its call tree.

use leptos::prelude::*;

use crate::format::bytes;
use crate::loader::stacks as worker;
use crate::plot::{flame_layout, FlameBox};
use crate::protocol::stacks::{ExportKind, Heap, Node, StackEvent, StackTree, StacksRequest};
use crate::state::use_app;
use crate::widgets::export::download;
use crate::widgets::facts::{range_note, Empty};

/// How to capture a trace whose stacks resolve (docs/guide/stacks.md).
const RECIPE: &str = "Capture with EventPipe, which records a stack with every event, the GC \
keyword at Verbose level for the allocation ticks, and the rundown provider so the frames name \
their methods: dotnet-trace collect --providers Microsoft-Windows-DotNETRuntime:0x1:5 (dotnet-trace \
requests the rundown when the session ends). See docs/guide/stacks.md.";

/// Flame graph geometry (SVG user units).
const WIDTH: f64 = 1000.0;
const ROW: f64 = 18.0;
/// Boxes narrower than this share of the width are not drawn.
const MIN_W: f64 = 0.002;
/// Call tree rows shown at most.
const TREE_ROWS: usize = 300;

/// The labels from the root's child down to node `n` (the focus's address form, `;`-joined).
fn path(nodes: &[Node], n: u32) -> Vec<String> {
    let mut v = Vec::new();
    let mut at = n;
    while let Some(p) = nodes.get(at as usize).and_then(|x| x.parent) {
        v.push(nodes[at as usize].label.clone());
        at = p;
    }
    v.reverse();
    v
}

/// The node a focus path names (the root where it names none).
fn find(nodes: &[Node], focus: Option<&str>) -> u32 {
    let Some(f) = focus else { return 0 };
    let mut at = 0u32;
    for label in f.split(';') {
        match nodes[at as usize]
            .children
            .iter()
            .find(|&&c| nodes[c as usize].label == label)
        {
            Some(&c) => at = c,
            None => return 0,
        }
    }
    at
}

/// What the chosen events are and what their value means.
fn how(event: StackEvent) -> &'static str {
    match event {
        StackEvent::Alloc => "Sampled allocation bytes by call stack: each GCAllocationTick charges the ~100 KB allocated since the previous tick of its heap to the stack of the allocation that crossed the threshold, so these are estimates. Click a frame to zoom on it; drag across a chart of another tab to narrow the time range.",
        StackEvent::Induced => "Induced GCs by call stack: the stack of each induced GC's GCTriggered event, recorded on the thread that asked for it, so the frames below GC.Collect are its callers. Width: the number of GCs. Click a frame to zoom on it.",
        StackEvent::Triggered => "Every GC by the call stack that started it: the stack of its GCTriggered event, the allocation that ran out of budget or the call that asked for the GC. Width: the number of GCs. Click a frame to zoom on it.",
        StackEvent::Pinned => "Pinned GC handles by the call stack that made them (SetGCHandle of kind Pinned). Width: the number of handles. Click a frame to zoom on it.",
    }
}

fn pct(v: u64, total: u64) -> String {
    format!("{:.1}%", 100.0 * v as f64 / total.max(1) as f64)
}

#[component]
pub fn Stacks() -> impl IntoView {
    let app = use_app();
    let req = Memo::new(move |_| app.vs.with(worker::request_of));
    // Asks the worker once a file is open, and again for each new choice.
    Effect::new(move |_| {
        let r = req.get();
        if app.has_data() {
            worker::request(app, r);
        }
    });
    Effect::new(move |_| {
        if let Some(e) = app.stacks_export.get() {
            download(
                &format!("{}-{}", app.file_stem(), e.file_name),
                &e.mime,
                &e.text,
            );
            app.stacks_export.set(None);
        }
    });
    move || {
        let want = req.get();
        let Some(t) = app.stacks.get() else {
            return view! { <section class="insights stacks"><p class="muted" id="stacks-loading">"Reading the call stacks…"</p></section> }.into_any();
        };
        if let Some(w) = &t.later {
            return view! { <section class="insights stacks"><p class="muted" id="stacks-later">{w.clone()}</p></section> }.into_any();
        }
        if let Some(e) = &t.error {
            return view! { <section class="insights stacks"><p class="error" id="stacks-error">{format!("The call stacks could not be read: {e}")}</p></section> }.into_any();
        }
        if t.request != want {
            return view! { <section class="insights stacks"><p class="muted" id="stacks-loading">"Summing the call stacks…"</p></section> }.into_any();
        }
        let focus = app.vs.with(|v| v.stacks_focus.clone());
        body(t, want, focus).into_any()
    }
}

fn body(t: std::sync::Arc<StackTree>, want: StacksRequest, focus: Option<String>) -> impl IntoView {
    let app = use_app();
    if t.trace_stacks == 0 {
        return view! { <section class="insights stacks">
            <Empty id="stacks-empty" text=format!("This trace has no call stacks, so no allocation, GC or pinned handle can be attributed to code. An ETW trace has them where its runtime provider was enabled with stacks, and an EventPipe session can turn them off. {RECIPE}") />
        </section> }.into_any();
    }
    let event = want.event;
    let events_select = StackEvent::ALL
        .into_iter()
        .map(|e| view! { <option value=e.key() selected=e == event>{e.label()}</option> })
        .collect_view();
    let pick_event = view! {
        <label>"Events "
            <select id="stacks-event" on:change=move |ev| {
                let v = event_target_value(&ev);
                app.set_vs(move |s| {
                    s.stacks_event = (v != "alloc").then_some(v);
                    s.stacks_focus = None;
                })
            }>{events_select}</select>
        </label>
    };
    if let Some(why) = no_events(&t, event) {
        return view! { <section class="insights stacks">
            <div class="controls stacks-controls">{pick_event}</div>
            <Empty id="stacks-empty" text=why />
        </section> }
        .into_any();
    }
    let set = move |f: fn(&mut crate::state::view_state::ViewState, String), v: String| {
        app.set_vs(move |s| {
            f(s, v);
            s.stacks_focus = None;
        })
    };
    let heaps = Heap::ALL
        .into_iter()
        .map(|h| {
            view! { <option value=h.key() selected=h == want.heap>{h.label()}</option> }
        })
        .collect_view();
    let types = t
        .types
        .iter()
        .map(|n| {
            let sel = want.type_name.as_deref() == Some(n.as_str());
            view! { <option value=n.clone() selected=sel>{n.clone()}</option> }
        })
        .collect_view();
    let export = move |k: ExportKind| {
        let mut r = want_clone(app);
        r.export = Some(k);
        worker::request(app, r);
    };
    let unresolved = (t.jit_loads + t.rundown_methods == 0 || !t.unresolved.is_empty()).then(|| {
        // Core's reasons say what to capture; the first line says it when no frame was summed.
        let mut lines: Vec<String> = t
            .unresolved
            .iter()
            .map(|(why, example)| format!("Addresses shown in hex (e.g. {example}): {why}."))
            .collect();
        if t.jit_loads + t.rundown_methods == 0 && lines.is_empty() {
            lines.push("The trace has no method events (no rundown, no JIT events): frames would show as addresses.".to_string());
        }
        lines.push("How to capture a trace whose frames resolve: docs/guide/stacks.md.".to_string());
        view! { <div class="explain" id="stacks-unresolved" role="note">{lines.into_iter().map(|l| view! { <p>{l}</p> }).collect_view()}</div> }
    });
    let alloc = event == StackEvent::Alloc;
    // A pinned handle's stack starts where the runtime's walk did, not at the caller.
    let cut_short = t.cut_short_above.clone().map(|leaf| view! {
        <p class="explain" id="stacks-cut-short" role="note">{format!("GCHandle.Alloc's fast path pushes no frame, so a pinned handle's stack starts at an older frame than its caller: the runtime recorded no frames above {leaf}. Read the leaf frames as \"somewhere below\", not as the caller.")}</p>
    });
    let order = if want.bottom_up {
        "bottom-up"
    } else {
        "top-down"
    };
    let content = if t.total_count == 0 {
        let what = match event {
            StackEvent::Alloc => {
                "No allocation ticks for this choice of heap, type and time range."
            }
            StackEvent::Induced => "No induced GC in this time range.",
            StackEvent::Triggered => "No GC started in this time range.",
            StackEvent::Pinned => "No pinned handle was made in this time range.",
        };
        view! { <Empty id="stacks-none" text=what.to_string() /> }.into_any()
    } else if t.no_stack + t.missing_stack == t.total_count {
        view! { <Empty id="stacks-none" text=format!("The runtime recorded no stack for any of these {} events{}, so there is no caller to show.", t.total_count, if t.missing_stack > 0 { " (or the trace lost them)" } else { "" }) /> }.into_any()
    } else {
        let root = find(&t.nodes, focus.as_deref());
        view! {
            {flame(t.clone(), root, event)}
            {tree_table(t.clone(), root, event)}
        }
        .into_any()
    };
    view! {
        <section class="insights stacks">
            <p class="explain" id="stacks-how">{how(event)}</p>
            {range_note(match event { StackEvent::Alloc => "allocation ticks in it", StackEvent::Pinned => "pinned handles made in it", _ => "GCs started in it" })}
            <div class="controls stacks-controls">
                {pick_event}
                {alloc.then(|| view! {
                <label>" Heap "
                    <select id="stacks-heap" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        set(|s, v| s.stacks_heap = (v != "all").then_some(v), v)
                    }>{heaps}</select>
                </label>
                <label>" Type "
                    <select id="stacks-type" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        set(|s, v| s.stacks_type = (!v.is_empty()).then_some(v), v)
                    }>
                        <option value="" selected=want.type_name.is_none()>"All types"</option>
                        {types}
                    </select>
                </label>
                })}
                <button class="small" id="stacks-order" title="Switch between callees under callers (top-down) and callers under the methods that allocated (bottom-up)"
                    on:click=move |_| app.set_vs(|s| { s.stacks_up = !s.stacks_up; s.stacks_focus = None; })>
                    {format!("Tree: {order}")}
                </button>
                <button class="small" id="stacks-unzoom" disabled=move || app.vs.with(|v| v.stacks_focus.is_none())
                    on:click=move |_| app.set_vs(|s| s.stacks_focus = None)>"Reset zoom"</button>
                <button class="small" id="stacks-folded" title="Download the selection as collapsed stacks (flamegraph.pl, inferno, speedscope)" on:click=move |_| export(ExportKind::Folded)>"Folded"</button>
                <button class="small" id="stacks-speedscope" title="Download the selection as a speedscope file" on:click=move |_| export(ExportKind::Speedscope)>"speedscope"</button>
            </div>
            <p class="muted" id="stacks-total" data-bytes=t.total_value.to_string() data-count=t.total_count.to_string()>
                {format!("{} ({order}); {} distinct stacks in the trace.{}{}",
                    if alloc { format!("{} sampled in {} ticks", bytes(t.total_value as f64), t.total_count) } else { format!("{} {}", t.total_count, event.events()) },
                    t.trace_stacks,
                    if t.no_stack + t.missing_stack > 0 { format!(" {} {} came without a stack or with a missing one.", t.no_stack + t.missing_stack, event.events()) } else { String::new() },
                    if (t.nodes.len() as u64) < t.all_nodes { format!(" The {} largest of {} frames are shown.", t.nodes.len(), t.all_nodes) } else { String::new() })}
            </p>
            {cut_short}
            {unresolved}
            {content}
        </section>
    }
    .into_any()
}

/// The request the address bar says now (for an export of what is shown).
fn want_clone(app: crate::state::AppState) -> StacksRequest {
    app.vs.with_untracked(worker::request_of)
}

/// A value as the selection counts it: sampled bytes, or events.
fn value(event: StackEvent, v: u64) -> String {
    if event.bytes() {
        bytes(v as f64)
    } else {
        v.to_string()
    }
}

/// Why the chosen event has nothing to show in the whole trace (None: it has some).
fn no_events(t: &StackTree, event: StackEvent) -> Option<String> {
    match event {
        StackEvent::Alloc if t.alloc_ticks == 0 => Some(format!("This trace has stacks but no GCAllocationTick events, so there is no allocation to attribute. {RECIPE}")),
        StackEvent::Induced | StackEvent::Triggered if t.triggered == 0 => Some("This trace has no GCTriggered events (the GC keyword, 0x1, at Informational level or above), so no GC's trigger has a stack.".to_string()),
        StackEvent::Induced if t.induced == 0 => Some(format!("No induced GC in this trace: none of its {} GCTriggered events has an induced reason (GC.Collect, GC.AddMemoryPressure, a low-memory notification).", t.triggered)),
        StackEvent::Pinned if t.pinned_handles == 0 => Some("This trace has no SetGCHandle events of kind Pinned: the runtime writes them with the GC handle keyword (0x2) at Verbose level (dotnet-trace collect --providers Microsoft-Windows-DotNETRuntime:0x3:5).".to_string()),
        _ => None,
    }
}

/// The flame graph from `root` (the root at the top, callees below; bottom-up, callers below).
fn flame(t: std::sync::Arc<StackTree>, root: u32, event: StackEvent) -> impl IntoView {
    let app = use_app();
    let nodes = &t.nodes;
    let boxes: Vec<FlameBox> = flame_layout(
        root,
        &|n| nodes[n as usize].inclusive,
        &|n| nodes[n as usize].children.clone(),
        MIN_W,
    );
    let depth = boxes.iter().map(|b| b.depth).max().unwrap_or(0) + 1;
    let height = depth as f64 * ROW;
    let total = t.total_value;
    let rects = boxes
        .iter()
        .map(|b| {
            let n = &nodes[b.node as usize];
            let (x, w, y) = (b.x * WIDTH, b.w * WIDTH, b.depth as f64 * ROW);
            let tip = format!("{}\n{} ({} of the selection), {} {}; self {}", n.label, value(event, n.inclusive), pct(n.inclusive, total), n.count, event.events(), value(event, n.exclusive));
            // About 7 units a character at the label's size (the SVG is stretched to the page width).
            let fits = ((w - 4.0) / 7.0).max(0.0) as usize;
            let text = if n.label.chars().count() <= fits {
                n.label.clone()
            } else if fits > 3 {
                format!("{}…", n.label.chars().take(fits - 1).collect::<String>())
            } else {
                String::new()
            };
            let hue = 20 + (n.label.bytes().fold(0u32, |h, c| h.wrapping_mul(31).wrapping_add(c as u32)) % 40);
            let focus = path(nodes, b.node).join(";");
            view! {
                <g class="flame-frame" data-label=n.label.clone() data-bytes=n.inclusive.to_string() data-depth=b.depth.to_string()
                    on:click=move |_| { let f = focus.clone(); app.set_vs(move |s| s.stacks_focus = (!f.is_empty()).then_some(f)) }>
                    <title>{tip}</title>
                    <rect x=format!("{x:.2}") y=format!("{y:.1}") width=format!("{:.2}", (w - 0.5).max(0.1)) height=format!("{}", ROW - 1.0)
                        fill=format!("hsl({hue}, 85%, 62%)") />
                    <text x=format!("{:.2}", x + 2.0) y=format!("{:.1}", y + ROW - 5.0)>{text}</text>
                </g>
            }
        })
        .collect_view();
    view! {
        <h2>{if event.bytes() { "Flame graph (width: sampled bytes; hover a frame for its bytes)" } else { "Flame graph (width: events; hover a frame for its count)" }}</h2>
        <svg id="stacks-flame" class="flame" viewBox=format!("0 0 {WIDTH} {height}") width="100%" preserveAspectRatio="none"
            style=format!("height: {}px", height) font-size="11">
            {rects}
        </svg>
    }
}

/// The call tree from `root`, depth first, largest first, indented by depth.
fn tree_table(t: std::sync::Arc<StackTree>, root: u32, event: StackEvent) -> impl IntoView {
    let nodes = &t.nodes;
    let total = t.total_value;
    let mut rows = Vec::new();
    let mut stack = vec![(root, 0usize)];
    while let Some((n, d)) = stack.pop() {
        if rows.len() == TREE_ROWS {
            break;
        }
        rows.push((n, d));
        for &c in nodes[n as usize].children.iter().rev() {
            stack.push((c, d + 1));
        }
    }
    let cut = rows.len() == TREE_ROWS;
    let body = rows
        .into_iter()
        .map(|(n, d)| {
            let x = &nodes[n as usize];
            view! {
                <tr class="stacks-row" data-label=x.label.clone() data-bytes=x.inclusive.to_string()>
                    <td class="frame" style=format!("padding-left: {}em", 0.3 + d as f64 * 1.0)>{x.label.clone()}</td>
                    <td class="num">{value(event, x.inclusive)}</td>
                    <td class="num">{pct(x.inclusive, total)}</td>
                    <td class="num">{value(event, x.exclusive)}</td>
                    <td class="num">{x.count.to_string()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h2>"Call tree"</h2>
        <table id="stacks-tree" class="data stacks-tree">
            <thead><tr><th>"Frame"</th><th>{if event.bytes() { "Sampled bytes" } else { "Events" }}</th><th>"%"</th><th>"Self"</th><th>{if event.bytes() { "Ticks" } else { "Count" }}</th></tr></thead>
            <tbody>{body}</tbody>
        </table>
        {cut.then(|| view! { <p class="muted">{format!("The first {TREE_ROWS} rows; the folded export has every stack.")}</p> })}
    }
}
