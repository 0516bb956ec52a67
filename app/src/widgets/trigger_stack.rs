//! The stack of the allocation (or call) that started one GC: the GCTriggered event the runtime
//! fires on that thread just before the GC's GCStart, its frames named by the trace's method
//! events. Asked of the stacks worker when the GC detail panel opens, through the `request` the
//! view passes (`loader::stacks::request`: a widget does not reach the loader itself); a link
//! opens the Stacks tab on it (GC triggers, this GC's instant, bottom-up on its leaf frame).

use leptos::prelude::*;

use crate::protocol::stacks::{StacksRequest, TriggerAsk};
use crate::state::use_app;

/// Frames listed (the rest are counted).
const FRAMES: usize = 12;

/// The trigger stack of GC `gc`, which started at `start_ms`, after a GC that started at
/// `after_ms`; `request` sends a stacks request to the stacks worker.
#[component]
pub fn TriggerStack(
    gc: u32,
    start_ms: f64,
    after_ms: Option<f64>,
    request: fn(crate::state::AppState, StacksRequest),
) -> impl IntoView {
    let app = use_app();
    Effect::new(move |_| {
        let have = app
            .trigger_stack
            .with_untracked(|t| t.as_ref().is_some_and(|t| t.gc == gc));
        if !have && app.model.with(|m| m.is_some()) {
            request(
                app,
                StacksRequest {
                    trigger: Some(TriggerAsk {
                        gc,
                        start_ms,
                        after_ms,
                    }),
                    ..Default::default()
                },
            );
        }
    });
    move || {
        let t = app.trigger_stack.get().filter(|t| t.gc == gc);
        let body = match t {
            None => view! { <p class="muted">"Reading the call stacks…"</p> }.into_any(),
            Some(t) => {
                if let Some(e) = &t.error {
                    view! { <p class="error">{format!("The call stacks could not be read: {e}")}</p> }.into_any()
                } else if t.trace_stacks == 0 {
                    view! { <p class="muted" id="trigger-none">"The trace has no call stacks (an ETW trace's are not read yet; an EventPipe session can turn them off): docs/guide/stacks.md."</p> }.into_any()
                } else if let Some(at) = t.time_ms {
                    if t.no_stack {
                        view! { <p class="muted" id="trigger-none">"The runtime recorded no stack with this GC's GCTriggered event."</p> }.into_any()
                    } else {
                        let leaf = t.frames.first().cloned();
                        let more = t.frames.len().saturating_sub(FRAMES);
                        let open = move |_| {
                            let leaf = leaf.clone();
                            app.set_vs(move |s| {
                                s.stacks_event = Some("triggered".into());
                                s.stacks_type = None;
                                s.stacks_up = leaf.is_some();
                                s.stacks_focus = leaf;
                                s.filter.t0 = Some(at - 0.0005);
                                s.filter.t1 = Some(at + 0.0005);
                                s.tab = Some("stacks".into());
                            })
                        };
                        view! {
                            <p class="muted">{format!("GCTriggered at {}, leaf first ", crate::format::trace_ms(at))}
                                <button class="link" id="trigger-open" title="Open the Stacks tab on this GC's trigger" on:click=open>"in the Stacks tab"</button></p>
                            {t.frames.is_empty().then(|| view! { <p class="muted">"(the runtime recorded no frames)"</p> })}
                            <ol id="trigger-frames" class="top-stack-frames">
                                {t.frames.iter().take(FRAMES).map(|f| view! { <li>{f.clone()}</li> }).collect_view()}
                            </ol>
                            {(more > 0).then(|| view! { <p class="muted">{format!("… {more} more frames")}</p> })}
                            {t.unresolved.iter().map(|r| view! { <p class="muted">{format!("Addresses shown in hex: {r}.")}</p> }).collect_view()}
                        }.into_any()
                    }
                } else {
                    view! { <p class="muted" id="trigger-none">"No GCTriggered event between the previous GC's start and this one's (the GC keyword at Informational level writes it)."</p> }.into_any()
                }
            }
        };
        view! {
            <div id="trigger-stack" class="top-stacks" data-gc=gc.to_string()>
                <h3>"What started it: the GCTriggered stack"</h3>
                {body}
            </div>
        }
    }
}
