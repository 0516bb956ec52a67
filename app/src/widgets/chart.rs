//! The charts' common parts: the frame (y-axis label), the time axis under a chart, the shaded
//! time range, the drag that selects one, and line charts over time (the whole trace, unless given
//! another axis); charts over a log axis (a CDF, an MMU curve) and bars over buckets (a histogram).

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MouseEvent;

use crate::plot::{self, Axis, LogAxis, HEIGHT, WIDTH};
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

/// Time labels under a chart: start, quarters, end of the trace (or of `axis`).
#[component]
pub fn XAxis(#[prop(optional)] axis: Option<Axis>) -> impl IntoView {
    let a = axis.unwrap_or_else(|| use_app().trace_axis());
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
/// Given an `axis` of its own (times that are not the open trace's: two traces side by side), it
/// spans that and selects nothing.
#[component]
pub fn LineChart(
    series: Vec<Series>,
    unit: &'static str,
    id: &'static str,
    #[prop(optional)] marks: Vec<Mark>,
    #[prop(optional)] axis: Option<Axis>,
) -> impl IntoView {
    let app = use_app();
    let own_axis = axis.is_some();
    let axis = axis.unwrap_or_else(|| app.trace_axis());
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
        if is_drag(a, frac) && !own_axis {
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
                {(!own_axis).then(|| view! { <RangeOverlay axis=Signal::derive(move || axis) /> })}
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
                {(!own_axis).then(|| drag_rect(drag))}
            </svg>
            <XAxis axis=axis />
            <div class="legend">{legend.into_iter().map(|(name, color)| view! {
                <span class="sw" style=format!("background:{color}")></span>{name}" "
            }).collect_view()}</div>
        </div>
    }
}

fn legend_of(series: &[(String, String)]) -> impl IntoView {
    let items = series.to_vec();
    view! {
        <div class="legend">{items.into_iter().map(|(name, color)| view! {
            <span class="sw" style=format!("background:{color}")></span>{name}" "
        }).collect_view()}</div>
    }
}

/// Labels under a log axis, at its decades (in `unit`: ms reads as ms or s).
fn log_ticks(axis: &LogAxis, unit: &'static str) -> impl IntoView {
    let ticks = axis.decades();
    view! {
        <div class="x-axis log">
            {ticks.into_iter().map(|(v, at)| {
                let label = match unit {
                    "ms" if v >= 1000.0 => format!("{} s", v / 1000.0),
                    "ms" => format!("{v} ms"),
                    _ => format!("{v}"),
                };
                // The ends' labels stay inside the chart.
                let shift = if at > 0.999 { -100 } else if at < 0.001 { 0 } else { -50 };
                view! { <span style=format!("left:{:.2}%;transform:translateX({shift}%)", at * 100.0)>{label}</span> }
            }).collect_view()}
        </div>
    }
}

/// Lines over a log x axis (in `x_unit`), y from 0 to `y_max` (in `y_unit`): an MMU curve, a CDF.
/// The points are few, so they are drawn as they are.
#[component]
pub fn LogChart(
    series: Vec<Series>,
    x_unit: &'static str,
    y_unit: &'static str,
    y_max: f64,
    id: &'static str,
) -> impl IntoView {
    let axis = LogAxis::over(series.iter().flat_map(|s| s.2.iter().map(|p| p.0)));
    let legend: Vec<(String, String)> = series.iter().map(|s| (s.0.clone(), s.1.clone())).collect();
    view! {
        <div class="chart-wrap" id=id>
            <ChartFrame max=Signal::derive(move || y_max) unit=y_unit />
            <svg class="chart static" viewBox=format!("0 0 {WIDTH} {HEIGHT}") preserveAspectRatio="none">
                {series.into_iter().map(|(_, color, pts)| view! {
                    <path d=plot::log_line_path(&axis, &pts, y_max) stroke=color class="line" />
                }).collect_view()}
            </svg>
            {log_ticks(&axis, x_unit)}
            {legend_of(&legend)}
        </div>
    }
}

/// One series of a bucket chart: its name, colour and a value per bucket.
pub type Bars = (String, String, Vec<f64>);

/// Bars over buckets (`labels`, one per bucket, shown under the first, middle and last), several
/// series side by side in each bucket: a histogram, two traces' histograms.
#[component]
pub fn BucketChart(
    labels: Vec<String>,
    series: Vec<Bars>,
    unit: &'static str,
    id: &'static str,
) -> impl IntoView {
    let max = plot::nice_max(
        series
            .iter()
            .flat_map(|s| s.2.iter().copied())
            .fold(0.0, f64::max),
    );
    let values: Vec<Vec<f64>> = series.iter().map(|s| s.2.clone()).collect();
    let paths = plot::grouped_bars(&values, max);
    let legend: Vec<(String, String)> = series.iter().map(|s| (s.0.clone(), s.1.clone())).collect();
    let n = labels.len().max(1);
    // Every bucket's label where it fits: at most 12 under the chart.
    let step = n.div_ceil(12);
    view! {
        <div class="chart-wrap" id=id>
            <ChartFrame max=Signal::derive(move || max) unit=unit />
            <svg class="chart static" viewBox=format!("0 0 {WIDTH} {HEIGHT}") preserveAspectRatio="none">
                {series.iter().zip(paths).map(|(s, d)| view! {
                    <path d=d fill=s.1.clone() class="hist" />
                }).collect_view()}
            </svg>
            <div class="x-axis log">
                {labels.into_iter().enumerate().filter(|(i, _)| i % step == 0).map(|(i, l)| {
                    view! { <span style=format!("left:{:.2}%", (i as f64 + 0.5) / n as f64 * 100.0)>{l}</span> }
                }).collect_view()}
            </div>
            {legend_of(&legend)}
        </div>
    }
}
