//! `gcscope allocs FILE`: allocation by type and kind from GCAllocationTick samples, overall or in
//! a time range, and the allocation rate over time.

use gcscope_core::gc::insights::{AllocBin, KindBytes, TypeAlloc};
use serde::Serialize;

use crate::args::{JsonOpts, RangeOpts};
use crate::input::load::WithInsights;
use crate::input::model::load_insights_with;
use crate::output::stdout::{print, print_json};
use crate::output::table::{self, Align, Table};

const DEFAULT_TOP: usize = 20;

#[derive(Serialize)]
struct AllocsJson {
    has_events: bool,
    from_ms: Option<f64>,
    to_ms: Option<f64>,
    tick_count: u64,
    sampled_bytes: u64,
    by_kind: KindBytes,
    top_types: Vec<TypeAlloc>,
    bin_ms: f64,
    over_time: Vec<AllocBin>,
}

/// `gcscope allocs`' options.
#[derive(clap::Args, Debug, Clone)]
pub struct Opts {
    #[command(flatten)]
    pub out: JsonOpts,
    /// Only the allocation ticks in this time range
    #[command(flatten)]
    pub range: RangeOpts,
    /// How many types to list, most sampled bytes first
    #[arg(long, value_name = "N", default_value_t = DEFAULT_TOP)]
    pub top: usize,
}

pub fn run(opts: &Opts) -> Result<(), String> {
    let json = opts.out.json("allocs")?;
    let (from, to, top) = (opts.range.from, opts.range.to, opts.top);
    let (lo, hi) = (
        from.unwrap_or(f64::NEG_INFINITY),
        to.unwrap_or(f64::INFINITY),
    );
    // Memory stays bounded: the whole trace's figures come from per-type sums in time bins, and
    // only a range asked for keeps its ticks one by one (the bins' edges need not be the range's).
    let ranged = from.is_some() || to.is_some();
    let with = if ranged {
        WithInsights::SamplesIn(lo, hi)
    } else {
        WithInsights::Bounded
    };
    let (_, ins) = load_insights_with(&opts.out.input, with)?;
    let a = &ins.allocations;
    let (mut types, by_kind, ticks) = if ranged {
        let (by_kind, ticks) = a.totals_in(lo, hi);
        (a.top_types_in(lo, hi), by_kind, ticks)
    } else {
        (a.top_types.clone(), a.by_kind, a.tick_count)
    };
    types.truncate(top);
    let over_time: Vec<AllocBin> = a
        .over_time
        .iter()
        .filter(|b| b.end_ms > lo && b.start_ms < hi)
        .copied()
        .collect();
    if json {
        return print_json(&AllocsJson {
            has_events: a.has_events,
            from_ms: from,
            to_ms: to,
            tick_count: ticks,
            sampled_bytes: by_kind.total(),
            by_kind,
            top_types: types,
            bin_ms: a.bin_ms,
            over_time,
        });
    }
    let mut s = String::new();
    if !a.has_events {
        s.push_str(
            "No GCAllocationTick events (they need the GC keyword 0x1 at Verbose level, 5).\n",
        );
        return print(&s);
    }
    let range = match (from, to) {
        (None, None) => String::from("whole trace"),
        _ => format!(
            "{} to {} ms",
            from.map_or("start".into(), |v| format!("{v}")),
            to.map_or("end".into(), |v| format!("{v}"))
        ),
    };
    s.push_str(&format!(
        "Allocations ({range}): {ticks} ticks, {} MB sampled (small {} MB, large {} MB, pinned {} MB)\n\
         Sampled bytes are an estimate: each tick charges the ~100 KB allocated since the previous tick to the type that crossed the threshold.\n\n",
        table::mb3(by_kind.total()),
        table::mb3(by_kind.small),
        table::mb3(by_kind.large),
        table::mb3(by_kind.pinned)
    ));
    let mut t = Table::new(&[
        ("Type", Align::Left),
        ("Sampled MB", Align::Right),
        ("%", Align::Right),
        ("Ticks", Align::Right),
        ("Small MB", Align::Right),
        ("Large MB", Align::Right),
        ("Pinned MB", Align::Right),
    ]);
    for ty in &types {
        let name = if ty.type_name.is_empty() {
            "(no type name)"
        } else {
            &ty.type_name
        };
        t.row(vec![
            name.to_string(),
            table::mb3(ty.sampled_bytes),
            table::pct(Some(ty.pct)),
            ty.ticks.to_string(),
            table::mb3(ty.by_kind.small),
            table::mb3(ty.by_kind.large),
            table::mb3(ty.by_kind.pinned),
        ]);
    }
    s.push_str(&t.render());
    if let Some(peak) = over_time
        .iter()
        .max_by(|x, y| x.rate_bytes_per_s.total_cmp(&y.rate_bytes_per_s))
    {
        s.push_str(&format!(
            "\nAllocation rate over {} bins of {} ms: peak {} MB/s at {:.3} ms (--json lists every bin)\n",
            over_time.len(),
            a.bin_ms,
            table::mb3(peak.rate_bytes_per_s as u64),
            peak.start_ms
        ));
    }
    print(&s)
}
