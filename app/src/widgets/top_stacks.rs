//! The top call stacks behind a finding (core's `findings::stacks`): the induced GCs' callers,
//! the LOH allocations', the pinned handles' creators, each with a link into the Stacks tab on
//! it. The stacks come from the stacks worker (`loader::stacks`), asked for when this is first
//! shown; what the runtime did not record is said as such.

use gcscope_core::findings::stacks::{StackEvidence, Topic};
use leptos::prelude::*;

use crate::format::bytes;
use crate::state::{use_app, AppState};

/// Frames listed per stack (the rest are counted).
const FRAMES: usize = 8;

/// The Stacks tab's `?sevent=` and `?sheap=` for a topic.
fn tab_choice(topic: Topic) -> (Option<String>, Option<String>) {
    match topic {
        Topic::Induced => (Some("induced".into()), None),
        Topic::Loh => (None, Some("loh".into())),
        Topic::PinnedHandles => (Some("pinned".into()), None),
    }
}

/// Opens the Stacks tab on `topic`'s events: bottom-up and zoomed on `leaf` (where given), so the
/// flame graph shows that frame with its callers under it.
pub fn open_stacks(app: AppState, topic: Topic, leaf: Option<String>) {
    let (event, heap) = tab_choice(topic);
    app.set_vs(move |s| {
        s.stacks_event = event;
        s.stacks_heap = heap;
        s.stacks_type = None;
        s.stacks_up = leaf.is_some();
        s.stacks_focus = leaf;
        s.tab = Some("stacks".into());
    })
}

fn heading(topic: Topic) -> &'static str {
    match topic {
        Topic::Induced => "Callers: the GCTriggered stacks of the induced GCs (leaf first)",
        Topic::Loh => "Top LOH allocation stacks (leaf first)",
        Topic::PinnedHandles => "Where pinned handles were made: SetGCHandle stacks (leaf first)",
    }
}

/// Why there is no stack to list (None: there are some).
fn empty(e: &StackEvidence) -> Option<String> {
    if e.trace_stacks == 0 {
        return Some(
            "The trace has no call stacks (an ETW trace's are not read yet; an EventPipe session \
             can turn them off): docs/guide/stacks.md."
                .into(),
        );
    }
    if e.total_count == 0 {
        return Some(match e.event.as_ref() {
            "pinned-handles" => "The trace has no SetGCHandle event of kind Pinned (GC handle keyword 0x2, Verbose), so no handle's creation stack.".into(),
            "alloc-loh" => "The trace has no LOH allocation tick (GC keyword 0x1 at Verbose level).".into(),
            _ => "The trace has no GCTriggered event of an induced GC, so no caller was recorded.".into(),
        });
    }
    (e.top.is_empty()).then(|| {
        format!(
            "The runtime recorded no stack for any of these {} events.",
            e.total_count
        )
    })
}

/// The stacks of `topic` as the findings list them; `request` asks the stacks worker for the
/// findings' stacks (`loader::stacks::request_findings`, passed down by the view: a widget does
/// not reach the loader itself).
#[component]
pub fn TopStacks(topic: Topic, request: fn(crate::state::AppState)) -> impl IntoView {
    let app = use_app();
    Effect::new(move |_| {
        if app.model.with(|m| m.is_some()) {
            request(app);
        }
    });
    move || {
        let t = app.stacks.get();
        let Some(e) = t
            .as_ref()
            .and_then(|t| t.findings.as_ref())
            .map(|f| f.get(topic).clone())
        else {
            let text = match t.map(|t| (t.later.clone(), t.error.clone())) {
                Some((Some(later), _)) => later,
                Some((None, Some(err))) => format!("The call stacks could not be read: {err}"),
                _ => "Reading the call stacks…".to_string(),
            };
            return view! { <div class="top-stacks" data-event=topic.event()><p class="muted">{text}</p></div> }.into_any();
        };
        let bytes_unit = e.unit == "bytes";
        let value = move |v: u64| {
            if bytes_unit {
                format!("{} sampled", bytes(v as f64))
            } else {
                format!("{v} event{}", if v == 1 { "" } else { "s" })
            }
        };
        let body = match empty(&e) {
            Some(why) => view! { <p class="muted top-stacks-empty">{why}</p> }.into_any(),
            None => {
                let items = e.top.iter().map(|s| {
                    let leaf = s.frames.first().cloned();
                    let more = s.frames.len().saturating_sub(FRAMES);
                    view! {
                        <li class="top-stack" data-count=s.count.to_string()>
                            <span class="top-stack-value">{value(s.value)}</span>
                            {leaf.clone().map(|l| view! {
                                <button class="link top-stack-open" title="Open the Stacks tab on this frame, its callers under it" on:click=move |_| open_stacks(app, topic, Some(l.clone()))>"in the Stacks tab"</button>
                            })}
                            {s.frames.is_empty().then(|| view! { <p class="muted">"(the runtime recorded no frames)"</p> })}
                            <ol class="top-stack-frames">
                                {s.frames.iter().take(FRAMES).map(|f| view! { <li>{f.clone()}</li> }).collect_view()}
                            </ol>
                            {(more > 0).then(|| view! { <p class="muted">{format!("… {more} more frames")}</p> })}
                            {s.note.clone().map(|n| view! { <p class="muted top-stack-note">{format!("({n})")}</p> })}
                        </li>
                    }
                }).collect_view();
                view! {
                    <ol class="top-stacks-list">{items}</ol>
                    {(e.no_stack + e.missing_stack > 0).then(|| view! {
                        <p class="muted">{format!("{} of the {} events came without a stack or with one the trace lacks.", e.no_stack + e.missing_stack, e.total_count)}</p>
                    })}
                }.into_any()
            }
        };
        view! {
            <div class="top-stacks" data-event=e.event.to_string() data-total=e.total_count.to_string()>
                <h3>{heading(topic)}
                    <span class="muted">{format!(" · {} of {} distinct", e.top.len(), e.distinct)}</span>
                    " "
                    <button class="link top-stacks-all" on:click=move |_| open_stacks(app, topic, None)>"All in the Stacks tab"</button>
                </h3>
                {body}
            </div>
        }.into_any()
    }
}
