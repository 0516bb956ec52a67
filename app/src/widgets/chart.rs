//! The charts' common parts: the frame (y-axis label), the time axis under a chart, the shaded
//! time range, the drag that selects one, and line charts. Every chart spans the whole trace.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MouseEvent;

use crate::plot::{self, Axis, HEIGHT, WIDTH};
use crate::state::use_app;
use crate::tables::cell::{fmt_cell, Cell};

/// One line: its name (legend), colour and (time ms, value) points.
pub type Series = (String, String, Vec<(f64, f64)>);

/// Where the pointer is across the element that fired `ev`, 0 (left) to 1 (right).
pub fn frac_of(ev: &MouseEvent) -> f64 {
    let Some(el) = ev
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return 0.0;
    };
    let r = el.get_bounding_client_rect();
    if r.width() <= 0.0 {
        return 0.0;
    }
    (ev.client_x() as f64 - r.left()) / r.width()
}

/// Whether a drag from `a` to `b` (fractions of the width) selects a range rather than clicks.
pub fn is_drag(a: f64, b: f64) -> bool {
    (b - a).abs() * WIDTH as f64 > 4.0
}

/// The rectangle of a drag in progress.
pub fn drag_rect(drag: RwSignal<Option<(f64, f64)>>) -> impl IntoView {
    move || {
        drag.get().map(|(a, b)| view! {
            <rect class="drag" x=(a.min(b) * WIDTH as f64).to_string() y="0" width=((a - b).abs() * WIDTH as f64).to_string() height=HEIGHT.to_string() />
        })
    }
}

/// Y-axis label of a chart.
#[component]
pub fn ChartFrame(max: Signal<f64>, unit: &'static str) -> impl IntoView {
    view! {
        <div class="chart-axis">
            <span>{move || fmt_cell(unit, &Cell::Num(Some(max.get())))}</span>
            <span>"0"</span>
        </div>
    }
}

/// Time labels under a chart: start, quarters, end of the trace.
#[component]
pub fn XAxis() -> impl IntoView {
    let a = use_app().trace_axis();
    let ticks: Vec<f64> = (0..=4).map(|i| a.at(i as f64 / 4.0)).collect();
    view! {
        <div class="x-axis">
            {crate::format::axis_ms(&ticks).into_iter().map(|l| view! { <span>{l}</span> }).collect_view()}
        </div>
    }
}

/// The shaded selected time range on a chart.
#[component]
pub fn RangeOverlay(axis: Signal<Axis>) -> impl IntoView {
    let app = use_app();
    move || {
        let r = app.range();
        if !r.is_set() {
            return None;
        }
        let a = axis.get();
        let x0 = a.x(r.t0.unwrap_or(a.t0)).max(0.0);
        let x1 = a.x(r.t1.unwrap_or(a.t1)).min(WIDTH as f64);
        Some(
            view! { <rect class="range" x=x0.to_string() y="0" width=(x1 - x0).max(1.0).to_string() height=HEIGHT.to_string() /> },
        )
    }
}

/// A moment marked on a chart: a vertical line at `ms` with `label` on hover; a click opens the
/// GC `gc` (`data-gc`).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub ms: f64,
    pub label: String,
    pub gc: Option<u32>,
}

/// Lines over the whole trace; dragging across selects a time range. `marks` are drawn over them.
#[component]
pub fn LineChart(
    series: Vec<Series>,
    unit: &'static str,
    id: &'static str,
    #[prop(optional)] marks: Vec<Mark>,
) -> impl IntoView {
    let app = use_app();
    let axis = app.trace_axis();
    let max = plot::nice_max(
        series
            .iter()
            .flat_map(|s| s.2.iter().map(|p| p.1))
            .fold(0.0, f64::max),
    );
    let drag = RwSignal::new(None::<(f64, f64)>);
    let on_up = move |ev: MouseEvent| {
        let frac = frac_of(&ev);
        let Some((a, _)) = drag.get_untracked() else {
            return;
        };
        drag.set(None);
        if is_drag(a, frac) {
            app.set_range(axis.at(a.min(frac)), axis.at(a.max(frac)));
        }
    };
    let legend: Vec<(String, String)> = series.iter().map(|s| (s.0.clone(), s.1.clone())).collect();
    view! {
        <div class="chart-wrap" id=id>
            <ChartFrame max=Signal::derive(move || max) unit=unit />
            <svg class="chart" viewBox=format!("0 0 {WIDTH} {HEIGHT}") preserveAspectRatio="none"
                on:mousedown=move |ev: MouseEvent| { ev.prevent_default(); drag.set(Some((frac_of(&ev), frac_of(&ev)))); }
                on:mousemove=move |ev: MouseEvent| if let Some((a, _)) = drag.get_untracked() { drag.set(Some((a, frac_of(&ev)))) }
                on:mouseleave=move |_| drag.set(None)
                on:mouseup=on_up
            >
                <RangeOverlay axis=Signal::derive(move || axis) />
                {series.into_iter().map(|(_, color, pts)| view! {
                    <path d=plot::line_path(&axis, &pts, max) stroke=color class="line" />
                }).collect_view()}
                {marks.into_iter().map(|m| {
                    let at = axis.x(m.ms).clamp(0.0, WIDTH as f64);
                    let x = at.to_string();
                    let gc = m.gc;
                    view! {
                        <g class="mark" data-gc=gc.map(|g| g.to_string()) data-ms=m.ms.to_string()
                            on:mousedown=move |ev: MouseEvent| if gc.is_some() { ev.stop_propagation() }
                            on:click=move |_| if let Some(n) = gc { app.select(n) }
                        >
                            <title>{m.label}</title>
                            <line class="mark" x1=x.clone() x2=x y1="0" y2=HEIGHT.to_string() />
                            <rect class="mark-hit" x=(at - 4.0).to_string() width="8" y="0" height=HEIGHT.to_string() />
                        </g>
                    }
                }).collect_view()}
                {drag_rect(drag)}
            </svg>
            <XAxis />
            <div class="legend">{legend.into_iter().map(|(name, color)| view! {
                <span class="sw" style=format!("background:{color}")></span>{name}" "
            }).collect_view()}</div>
        </div>
    }
}
