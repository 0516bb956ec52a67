//! Which columns the GC table shows (every figure of the model can be one), kept in the address bar.

use leptos::prelude::*;

use crate::state::use_app;
use crate::tables::columns;

/// `caller_default`: the defaults hold the Caller column (the trace's induced GCs have callers).
#[component]
pub fn ColumnChooser(caller_default: Memo<bool>) -> impl IntoView {
    let app = use_app();
    view! {
        <details class="chooser" id="column-chooser">
            <summary>"Columns"</summary>
            <div class="chooser-list">
                <button class="small" on:click=move |_| app.set_vs(|v| v.columns = None)>"Defaults"</button>
                {columns::all().iter().map(|c| {
                    let id = c.id.clone();
                    let id2 = id.clone();
                    view! {
                        <label class="check" title=c.help>
                            <input type="checkbox" data-col=id.clone()
                                prop:checked=move || app.vs.with(|v| v.visible_columns(caller_default.get()).iter().any(|x| x.id == id))
                                on:change=move |_| app.set_vs(|v| {
                                    let mut cur: Vec<String> = v.visible_columns(caller_default.get_untracked()).iter().map(|c| c.id.clone()).collect();
                                    if let Some(p) = cur.iter().position(|x| *x == id2) { cur.remove(p); } else {
                                        // Keep the model's column order.
                                        cur.push(id2.clone());
                                        cur.sort_by_key(|x| columns::all().iter().position(|c| c.id == *x));
                                    }
                                    v.columns = Some(cur);
                                })
                            />
                            {c.label.clone()}
                        </label>
                    }
                }).collect_view()}
            </div>
        </details>
    }
}
