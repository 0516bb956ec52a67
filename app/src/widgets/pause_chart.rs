//! Pause per GC: bars by generation over the whole trace. Hovering names the GC under the pointer,
//! a click opens it, a drag selects a time range.

use leptos::prelude::*;
use web_sys::MouseEvent;

use crate::format::ms;
use crate::plot::{self, HEIGHT, WIDTH};
use crate::state::use_app;

use super::chart::{drag_rect, frac_of, is_drag, ChartFrame, RangeOverlay, XAxis};

fn gen_color(g: u8) -> &'static str {
    match g {
        0 => "var(--gen0)",
        1 => "var(--gen1)",
        _ => "var(--gen2)",
    }
}

#[component]
pub fn PauseChart() -> impl IntoView {
    let app = use_app();
    let hover = RwSignal::new(None::<(f64, String, u32)>);
    let drag = RwSignal::new(None::<(f64, f64)>);
    let data = Memo::new(move |_| {
        let axis = app.trace_axis();
        app.gcs.with(|g| {
            let max = plot::nice_max(g.iter().filter_map(|g| g.pause_ms).fold(0.0, f64::max));
            let per_gen: Vec<(u8, plot::Columns)> = (0..3u8)
                .map(|gen| {
                    let pts = g
                        .iter()
                        .enumerate()
                        .filter(|(_, g)| g.gen == gen)
                        .filter_map(|(i, g)| g.pause_ms.map(|p| (g.start_ms, p, i)));
                    (gen, plot::max_per_column(&axis, pts))
                })
                .collect();
            (axis, max, per_gen)
        })
    });
    let paths = move || {
        let (_, max, per_gen) = data.get();
        per_gen
            .iter()
            .map(|(gen, cols)| view! { <path d=plot::bars_path(cols, max) stroke=gen_color(*gen) class="bars" /> })
            .collect_view()
    };
    let nearest = move |frac: f64| -> Option<usize> {
        let (axis, _, per_gen) = data.get_untracked();
        let col = axis.col(axis.at(frac)) as i64;
        // The tallest bar within 3 columns of the pointer.
        let mut best: Option<(f64, usize)> = None;
        for (_, cols) in &per_gen {
            for c in (col - 3).max(0)..=(col + 3).min(WIDTH as i64 - 1) {
                if let Some((v, i)) = cols[c as usize] {
                    if best.is_none_or(|(b, _)| v > b) {
                        best = Some((v, i));
                    }
                }
            }
        }
        best.map(|(_, i)| i)
    };
    let on_move = move |ev: MouseEvent| {
        let frac = frac_of(&ev);
        if let Some((a, _)) = drag.get_untracked() {
            drag.set(Some((a, frac)));
        }
        let tip = nearest(frac).and_then(|i| {
            app.gcs.with_untracked(|g| {
                g.get(i).map(|g| {
                    (
                        frac,
                        format!(
                            "GC #{} · gen{} {} · {} · pause {} · at {}",
                            g.number,
                            g.gen,
                            g.gc_type.name(),
                            g.reason,
                            ms(g.pause_ms.unwrap_or(0.0)),
                            ms(g.start_ms)
                        ),
                        g.number,
                    )
                })
            })
        });
        hover.set(tip);
    };
    let on_up = move |ev: MouseEvent| {
        let frac = frac_of(&ev);
        let Some((a, _)) = drag.get_untracked() else {
            return;
        };
        drag.set(None);
        let (axis, _, _) = data.get_untracked();
        if is_drag(a, frac) {
            app.set_range(axis.at(a.min(frac)), axis.at(a.max(frac)));
        } else if let Some(n) = hover.get_untracked().map(|h| h.2) {
            app.select(n);
        }
    };
    view! {
        <div class="chart-wrap" id="pause-chart">
            <ChartFrame max=Signal::derive(move || data.get().1) unit="ms" />
            <svg
                class="chart"
                viewBox=format!("0 0 {WIDTH} {HEIGHT}")
                preserveAspectRatio="none"
                on:mousemove=on_move
                on:mouseleave=move |_| { hover.set(None); drag.set(None); }
                on:mousedown=move |ev: MouseEvent| { ev.prevent_default(); drag.set(Some((frac_of(&ev), frac_of(&ev)))); }
                on:mouseup=on_up
            >
                <RangeOverlay axis=Signal::derive(move || data.get().0) />
                {paths}
                {drag_rect(drag)}
                {move || hover.get().map(|(f, _, _)| view! {
                    <line class="cursor" x1=(f * WIDTH as f64).to_string() x2=(f * WIDTH as f64).to_string() y1="0" y2=HEIGHT.to_string() />
                })}
            </svg>
            <div class="chart-tip" id="chart-tip">{move || hover.get().map(|h| h.1).unwrap_or_else(|| "\u{a0}".into())}</div>
            <XAxis />
            <div class="legend"><span class="sw gen0"></span>"gen0 "<span class="sw gen1"></span>"gen1 "<span class="sw gen2"></span>"gen2"</div>
        </div>
    }
}
