//! The self-contained HTML report: the whole analysis in one file that opens offline with no
//! script (inline CSS and SVG). Every string from the trace is escaped.

use gcscope_core::findings::stacks::{FindingStacks, StackEvidence};
use gcscope_core::findings::{self, Report, Settings};
use gcscope_core::gc::{Gc, GcModel};

use gcscope_core::gc::insights::Insights;
use gcscope_core::latency::{self, Latency, Options, PauseLog, TimeRange as Range};

use crate::plot::{self, Axis};
use crate::protocol::Analysis;
use crate::tables::{self, columns, model, pins, Table};
use crate::time_range::TimeRange;

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

fn table_html(t: &Table) -> String {
    let mut s = format!(
        "<h2>{}</h2>\n<div class=\"w\"><table id=\"{}\"><thead><tr>",
        esc(&t.title),
        t.id
    );
    for c in &t.cols {
        let cls = if c.unit == "name" { "" } else { " class=\"n\"" };
        s.push_str(&format!(
            "<th{cls} title=\"{}\">{}</th>",
            esc(c.help),
            esc(&c.label)
        ));
    }
    s.push_str("</tr></thead><tbody>\n");
    for r in 0..t.rows.len() {
        s.push_str("<tr>");
        for c in 0..t.cols.len() {
            let cls = if t.cols[c].unit == "name" {
                ""
            } else {
                " class=\"n\""
            };
            s.push_str(&format!("<td{cls}>{}</td>", esc(&t.shown(r, c))));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table></div>\n");
    s
}

fn pause_svg(m: &GcModel, gcs: &[Gc]) -> String {
    let axis = Axis::new(0.0, m.process.trace_duration_ms.max(1.0));
    let max = plot::nice_max(gcs.iter().filter_map(|g| g.pause_ms).fold(0.0, f64::max));
    let mut s = format!(
        "<svg viewBox=\"0 0 {} {}\" preserveAspectRatio=\"none\" class=\"chart\" role=\"img\" aria-label=\"Pause per GC over time\">",
        plot::WIDTH,
        plot::HEIGHT
    );
    for (gen, color) in [(0u8, "#3b82f6"), (1, "#f59e0b"), (2, "#dc2626")] {
        let pts = gcs
            .iter()
            .enumerate()
            .filter(|(_, g)| g.gen == gen)
            .filter_map(|(i, g)| g.pause_ms.map(|p| (g.start_ms, p, i)));
        let cols = plot::max_per_column(&axis, pts);
        s.push_str(&format!(
            "<path d=\"{}\" stroke=\"{color}\" fill=\"none\"/>",
            plot::bars_path(&cols, max)
        ));
    }
    s.push_str("</svg>");
    format!(
        "<h2>Pause per GC</h2><p class=\"m\">0 to {} over the whole trace ({}); blue gen0, amber gen1, red gen2.</p>{s}",
        crate::format::ms(max),
        crate::format::ms(axis.t1)
    )
}

/// A finding's top stacks (leaf first), or why there are none.
fn stacks_html(st: &StackEvidence) -> String {
    let what = match st.event.as_ref() {
        "induced" => "Callers (the induced GCs' GCTriggered stacks)",
        "alloc-loh" => "Top LOH allocation stacks",
        _ => "Where pinned handles were made (SetGCHandle stacks)",
    };
    let mut s = format!(
        "<li class=\"stacks\" data-event=\"{}\">{what}",
        esc(&st.event)
    );
    if st.trace_stacks == 0 {
        s.push_str(": the trace has no call stacks.</li>");
        return s;
    }
    if st.total_count == 0 {
        s.push_str(": no such event in the trace.</li>");
        return s;
    }
    s.push_str(&format!(
        ", {} of {} (leaf first):<ol>",
        st.top.len(),
        st.distinct
    ));
    for t in &st.top {
        let v = if st.unit == "bytes" {
            format!("{} sampled", crate::format::bytes(t.value as f64))
        } else {
            format!("{} events", t.value)
        };
        s.push_str(&format!("<li>{}<br><code>", esc(&v)));
        if t.frames.is_empty() {
            s.push_str("(the runtime recorded no frames)");
        }
        for (i, f) in t.frames.iter().take(12).enumerate() {
            if i > 0 {
                s.push_str("<br>");
            }
            s.push_str(&esc(f));
        }
        if t.frames.len() > 12 {
            s.push_str(&format!("<br>… {} more frames", t.frames.len() - 12));
        }
        s.push_str("</code>");
        if let Some(n) = &t.note {
            s.push_str(&format!(" <span class=\"m\">({})</span>", esc(n)));
        }
        s.push_str("</li>");
    }
    s.push_str("</ol>");
    if st.no_stack + st.missing_stack > 0 {
        s.push_str(&format!(
            "<span class=\"m\">{} of {} events without a stack.</span>",
            st.no_stack + st.missing_stack,
            st.total_count
        ));
    }
    s.push_str("</li>");
    s
}

/// The findings (core's, as `gcscope findings` prints them), ranked, each with its evidence,
/// threshold and advice; then every rule checked.
fn findings_html(r: &Report) -> String {
    use crate::tables::findings::{checks_table, figure};
    let mut s = format!(
        "<h2>Findings</h2>\n<p id=\"findings-verdict\">{} <span class=\"m\">Goal {}, pause budget {} ms; rules, thresholds and sources: docs/reference/findings.md.</span></p>\n<ol id=\"findings\">",
        esc(&r.verdict),
        r.settings.goal.name(),
        r.settings.pause_budget_ms
    );
    for f in &r.findings {
        s.push_str(&format!(
            "<li data-rule=\"{}\"><b>{}</b> <b>{}</b><br>{}<ul>",
            esc(&f.rule),
            esc(&f.severity.name().to_uppercase()),
            esc(&f.title),
            esc(&f.summary)
        ));
        if !f.evidence.gcs.is_empty() {
            s.push_str(&format!(
                "<li>GCs: {}</li>",
                esc(&f
                    .evidence
                    .gcs
                    .iter()
                    .map(|g| format!("#{g}"))
                    .collect::<Vec<_>>()
                    .join(", "))
            ));
        }
        for x in &f.evidence.figures {
            s.push_str(&format!("<li>{}: {}</li>", esc(&x.label), esc(&figure(x))));
        }
        for l in &f.evidence.lines {
            s.push_str(&format!("<li>{}</li>", esc(l)));
        }
        if let Some(st) = &f.evidence.stacks {
            s.push_str(&stacks_html(st));
        }
        s.push_str(&format!(
            "<li>Threshold: {} <span class=\"m\">({})</span></li>",
            esc(&f.threshold.text),
            esc(&f.threshold.source)
        ));
        for a in &f.advice {
            s.push_str(&format!(
                "<li>Advice: {} <span class=\"m\">({})</span></li>",
                esc(&a.text),
                esc(&a.source)
            ));
        }
        for c in &f.caveats {
            s.push_str(&format!("<li>Caveat: {}</li>", esc(c)));
        }
        s.push_str("</ul></li>\n");
    }
    s.push_str("</ol>\n");
    s.push_str(&table_html(&checks_table(r)));
    s
}

/// The latency figures of the whole trace (as `gcscope latency --budget B`): % time paused both
/// ways, pause percentiles, the budget, the histogram and the MMU curve (a chart and its table).
fn latency_html(m: &GcModel, l: &Latency) -> String {
    let mut s = String::from("<h2>Latency</h2>\n<dl>");
    let all = m.rollup.first();
    let pct = |p: Option<f64>| p.map_or_else(|| "–".to_string(), |p| format!("{p:.2}%"));
    s.push_str(&format!(
        "<dt>Time paused</dt><dd>{} (total pause over the trace&#39;s length)</dd>",
        pct(all.and_then(|r| r.pause_time_pct))
    ));
    s.push_str(&format!(
        "<dt>PerfView&#39;s % time paused</dt><dd>{} (over the GC span, {})</dd>",
        pct(all.and_then(|r| r.gc_span_pause_pct)),
        esc(&crate::format::ms(m.process.gc_span_ms))
    ));
    let b = &l.budget;
    s.push_str(&format!(
        "<dt>Pause budget {}</dt><dd>{} of {} GCs over ({}), {} over in all</dd></dl>\n",
        esc(&crate::format::ms(b.budget_ms)),
        b.over_budget,
        b.gcs,
        pct(b.over_budget_pct),
        esc(&crate::format::ms(b.time_over_budget_ms))
    ));
    s.push_str(&table_html(&tables::latency::percentiles(&l.pauses)));
    if !b.worst_gcs.is_empty() {
        s.push_str(&table_html(&tables::latency::worst_gcs(b)));
    }
    s.push_str(&table_html(&tables::latency::worst_windows(b)));
    s.push_str(&table_html(&tables::latency::histogram(&l.histogram)));
    // The MMU curve over a log axis of window sizes.
    let pts: Vec<(f64, f64)> = l
        .mmu
        .iter()
        .map(|p| (p.window_ms, p.min_utilization_pct))
        .collect();
    let axis = plot::LogAxis::over(pts.iter().map(|p| p.0));
    s.push_str(&format!(
        "<h2>Minimum mutator utilization</h2><p class=\"m\">The lowest share of any window of each size that the program ran: 0 to 100% up the side, window sizes {} to {} across (log scale).</p>\
<svg viewBox=\"0 0 {} {}\" preserveAspectRatio=\"none\" class=\"chart\" role=\"img\" aria-label=\"Minimum mutator utilization\"><path d=\"{}\" stroke=\"#2457c5\" fill=\"none\"/></svg>",
        esc(&crate::format::ms(axis.lo)),
        esc(&crate::format::ms(axis.hi)),
        plot::WIDTH,
        plot::HEIGHT,
        plot::log_line_path(&axis, &pts, 100.0)
    ));
    s.push_str(&table_html(&tables::latency::mmu(&l.mmu)));
    s
}

/// The report of the trace `m` (its rows `gcs`), with the latency figures for a pause budget and
/// the findings for their settings.
pub fn html(
    m: &GcModel,
    gcs: &[Gc],
    a: &Analysis,
    budget_ms: f64,
    settings: &Settings,
    stacks: Option<&FindingStacks>,
) -> String {
    let mut body = String::new();
    body.push_str(&format!(
        "<h1>gcscope report: {}</h1>\n<dl>",
        esc(&a.file_name)
    ));
    let etl = a.etl.iter().flat_map(|e| e.facts());
    for (k, v, _) in model::facts(m, &a.file_name, a.file_size)
        .into_iter()
        .chain(etl)
    {
        body.push_str(&format!("<dt>{}</dt><dd>{}</dd>", esc(&k), esc(&v)));
    }
    if let Some(p) = m.rollup.first().and_then(|r| r.pause_time_pct) {
        body.push_str(&format!("<dt>Time paused</dt><dd>{p:.2}%</dd>"));
    }
    body.push_str("</dl>\n");
    let mut report = findings::analyze(m, gcs, settings);
    if let Some(st) = stacks {
        st.attach(&mut report);
    }
    body.push_str(&findings_html(&report));
    body.push_str(&table_html(&model::rollup_table(m)));
    body.push_str(&pause_svg(m, gcs));
    let opts = Options {
        budget_ms,
        ..Options::default()
    };
    let whole = Range::new(0.0, m.process.trace_duration_ms);
    body.push_str(&latency_html(
        m,
        &latency::analyze(&PauseLog::from_gcs(gcs), whole, &opts),
    ));
    body.push_str(&table_html(&model::reasons_table(m, false)));
    body.push_str(&table_html(&model::reasons_table(m, true)));
    body.push_str(&table_html(&pins::pins_table(m)));
    body.push_str(&table_html(&pins::kinds_table(m)));
    body.push_str(&datas_html(m));
    let cols: Vec<&columns::Column> = columns::DEFAULT_COLUMNS
        .iter()
        .filter_map(|c| columns::by_id(c))
        .collect();
    let rows: Vec<u32> = (0..gcs.len() as u32).collect();
    body.push_str(&table_html(&model::gc_table(
        gcs,
        &rows,
        &cols,
        &crate::tables::callers::CallerIndex::default(),
    )));
    if let Some(ti) = &a.insights {
        body.push_str(&insights_html(&ti.insights));
    }
    if !m.notes.is_empty() {
        body.push_str("<h2>Notes</h2><ul>");
        for n in &m.notes {
            body.push_str(&format!("<li>{}</li>", esc(n)));
        }
        body.push_str("</ul>");
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"color-scheme\" content=\"light dark\">\
<title>gcscope report: {}</title><style>{CSS}</style></head><body>\n{body}\n<p class=\"m\">Made by gcscope in the browser; figures are defined in docs/reference/model.md.</p></body></html>\n",
        esc(&a.file_name)
    )
}

/// DATAS, where the trace has it: why the heap count changed (one sentence per change), the
/// changes with their decisions, GCs per heap count and every decision (the DATAS tab's per-GC
/// samples and heap counts are left to the app and `gcscope datas --json`).
fn datas_html(m: &GcModel) -> String {
    use crate::tables::datas;
    let d = &m.datas;
    if !datas::has_view(d) {
        return String::new();
    }
    let (all, starts) = (TimeRange::default(), tables::Starts::new());
    let mut s = format!(
        "<h2>DATAS</h2>\n<p>{}</p>\n",
        esc(&gcscope_core::gc::mode::label(&m.process))
    );
    if let Some(w) = datas::why_most_heaps(d) {
        s.push_str(&format!("<p><strong>{}</strong></p>\n", esc(&w)));
    }
    let why = datas::change_marks(d, &all, &starts);
    if !why.is_empty() {
        s.push_str("<ol>");
        for c in &why {
            s.push_str(&format!("<li>{}</li>", esc(&c.why)));
        }
        s.push_str("</ol>\n");
    }
    for t in [
        datas::changes(d, &all, &starts),
        datas::by_heap_count(d, &all),
        datas::decisions(d, &all, &starts),
    ] {
        if !t.rows.is_empty() {
            s.push_str(&table_html(&t));
        }
    }
    s
}

/// The insights' whole-trace tables (the per-GC ones are in the app and `gcscope <view> --json`);
/// a table with no rows is left out.
fn insights_html(ins: &Insights) -> String {
    use crate::tables::{allocations, budgets, memory, roots, suspensions};
    let (all, starts) = (TimeRange::default(), tables::Starts::new());
    let budgets: Vec<_> = ins.budgets.iter().collect();
    let mut types = ins.allocations.top_types.clone();
    types.truncate(50);
    let mut alloc = allocations::alloc_types(&types);
    alloc.title = format!(
        "Top allocating types (sampled: one GCAllocationTick per ~100 KB; {} ticks)",
        ins.allocations.tick_count
    );
    [
        alloc,
        budgets::exceeded(&budgets),
        roots::roots_by_kind(ins, &all, &starts),
        suspensions::suspend_reasons(ins, &all),
        memory::finalized_types(ins),
        memory::segments(ins, &all),
    ]
    .iter()
    .filter(|t| !t.rows.is_empty())
    .map(table_html)
    .collect()
}

const CSS: &str = "body{font:13px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1d1f21;background:#fff}\
h1{font-size:1.3rem}h2{font-size:1.05rem;margin-top:1.5rem}dl{display:grid;grid-template-columns:max-content auto;gap:.1rem 1rem}\
dt{color:#5f6368}dd{margin:0}table{border-collapse:collapse;font-variant-numeric:tabular-nums}\
th,td{padding:.1rem .5rem;border-bottom:1px solid #ddd;text-align:left;white-space:nowrap}.n{text-align:right}\
.m{color:#5f6368}.w{overflow-x:auto}.chart{width:100%;height:160px;border:1px solid #ddd}\
@media (prefers-color-scheme:dark){body{background:#16181b;color:#e3e5e8}th,td{border-color:#33373c}.chart{border-color:#33373c}}";

#[cfg(test)]
mod tests {
    use super::*;

    /// The report carries the insights' whole-trace tables, with the LOH workload's large arrays
    /// first among the sampled types.
    #[test]
    fn report_has_the_insights_tables() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/traces/net8.0/loh.nettrace"
        ))
        .unwrap();
        let (mut m, ins) = gcscope_core::gc::insights::analyze_with_insights(&bytes).unwrap();
        let gcs = std::mem::take(&mut m.gcs);
        let a = Analysis {
            file_name: "loh.nettrace".into(),
            insights: Some(crate::protocol::insights::bounded(ins)),
            ..Default::default()
        };
        let html = html(&m, &gcs, &a, 10.0, &Settings::default(), None);
        let alloc = html.find("Top allocating types").expect("allocation table");
        let first_row = &html[alloc..][..html[alloc..].find("</tr>\n<tr>").unwrap() + 400];
        assert!(first_row.contains("System.Byte[]"), "{first_row}");
        for title in [
            "Which generation&#39;s budget was exceeded",
            "Suspensions by reason",
        ] {
            assert!(html.contains(title), "{title}");
        }
        assert!(!html.contains("<script"));
    }

    /// The report's findings are core's for the same rows and settings, in rank order, each rule
    /// checked listed.
    #[test]
    fn report_has_the_findings_the_cli_prints() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/traces/net8.0/induced.nettrace"
        ))
        .unwrap();
        let mut m = gcscope_core::gc::analyze(&bytes).unwrap();
        let want = findings::analyze_model(&m, &Settings::default());
        let gcs = std::mem::take(&mut m.gcs);
        let html = html(
            &m,
            &gcs,
            &Analysis::default(),
            10.0,
            &Settings::default(),
            None,
        );
        let mut at = 0;
        for f in &want.findings {
            let i = html[at..]
                .find(&format!("<li data-rule=\"{}\">", f.rule))
                .unwrap_or_else(|| panic!("{} missing or out of order", f.rule));
            at += i + 1;
        }
        assert!(html.contains("Rules checked (15)"));
        assert!(html.contains(&esc(&want.verdict)));
    }

    /// The report's latency figures are core's for the whole trace and the budget asked for: the
    /// percentiles as `gcscope latency --json` has them (its JSON's numbers in the table's cells).
    #[test]
    fn report_has_the_latency_figures() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/traces/net8.0/server.nettrace"
        ))
        .unwrap();
        let mut m = gcscope_core::gc::analyze(&bytes).unwrap();
        let gcs = std::mem::take(&mut m.gcs);
        let html = html(
            &m,
            &gcs,
            &Analysis::default(),
            2.0,
            &Settings::default(),
            None,
        );
        let opts = Options {
            budget_ms: 2.0,
            ..Options::default()
        };
        let l = latency::analyze(
            &PauseLog::from_gcs(&gcs),
            Range::new(0.0, m.process.trace_duration_ms),
            &opts,
        );
        let b = &l.budget;
        assert!(b.over_budget > 0);
        assert!(html.contains(&format!(
            "<dt>Pause budget 2.000 ms</dt><dd>{} of {} GCs over",
            b.over_budget, b.gcs
        )));
        for id in [
            "pause-percentiles",
            "budget-gcs",
            "budget-windows",
            "pause-histogram",
            "mmu",
        ] {
            assert!(html.contains(&format!("<table id=\"{id}\">")), "{id}");
        }
        let p99 = l.pauses[0].p99_ms.unwrap();
        assert!(html.contains(&format!(
            "<td class=\"n\">{}</td>",
            crate::format::column_ms(p99)
        )));
        assert!(html.contains("PerfView&#39;s % time paused"));
    }

    /// A DATAS trace's report says why the heap count changed, sentence for sentence as
    /// `gc::datas::explain`, with the changes and decisions; a workstation trace's has no DATAS.
    #[test]
    fn report_has_the_datas_summary() {
        let report = |path: &str| {
            let bytes = std::fs::read(format!(
                "{}/../fixtures/traces/{path}.nettrace",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap();
            let mut m = gcscope_core::gc::analyze(&bytes).unwrap();
            let gcs = std::mem::take(&mut m.gcs);
            (
                html(
                    &m,
                    &gcs,
                    &Analysis::default(),
                    10.0,
                    &Settings::default(),
                    None,
                ),
                m,
            )
        };
        let (html, m) = report("net10.0/datas");
        let why = gcscope_core::gc::datas::explain(&m.datas);
        assert!(!why.is_empty());
        for w in &why {
            assert!(html.contains(&format!("<li>{}</li>", esc(w))), "{w}");
        }
        for id in ["datas-changes", "datas-by-heap-count", "datas-decisions"] {
            assert!(html.contains(&format!("<table id=\"{id}\">")), "{id}");
        }
        assert!(html.contains("<h2>DATAS</h2>\n<p>server, DATAS: 1-2 heaps"));
        let (html, _) = report("net10.0/wks-concurrent");
        assert!(!html.contains("<h2>DATAS</h2>"));
    }

    #[test]
    fn escapes_markup_from_the_trace() {
        assert_eq!(
            esc("<script>\"x\" & 'y'</script>"),
            "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;"
        );
    }
}
