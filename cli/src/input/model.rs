//! The model each subcommand loads, one function per way of keeping its rows ([`Rows`]): every
//! row without its per-heap histories or with them packed, only the summaries, a digest of each
//! row, each row handed out as it is final, or the model with its insights. All go through
//! [`load_process`].

use gcscope_core::compare::RowLog;
use gcscope_core::gc::insights::Insights;
use gcscope_core::gc::packed::PackedHeaps;
use gcscope_core::gc::{Gc, GcModel};

use crate::args::Input;
use crate::input::load::{load_process, Rows, WithInsights, DRAIN_EVERY};

/// Decodes FILE and builds its GC model (of the chosen process), streaming the file through the
/// decoder; every row is kept, without its per-heap histories ([`Rows::KeptWithoutHeaps`]: what
/// `findings`, `compare` and `pins` print does not read them), so memory grows with the GCs, not
/// with their heaps.
pub fn load_rows(input: &Input) -> Result<GcModel, String> {
    let rows = Rows::KeptWithoutHeaps {
        drain_every: DRAIN_EVERY,
    };
    load_process(input, WithInsights::No, rows).map(|l| l.model)
}

/// [`load_rows`], the rows' per-heap histories packed into the store returned beside the model
/// ([`Rows::KeptWithPackedHeaps`]), for the views that read them.
pub fn load_rows_with_packed_heaps(input: &Input) -> Result<(GcModel, PackedHeaps), String> {
    let rows = Rows::KeptWithPackedHeaps {
        drain_every: DRAIN_EVERY,
    };
    load_process(input, WithInsights::No, rows).map(|l| (l.model, l.heaps))
}

/// [`load_rows`] for commands that print only whole-trace figures: the settled rows are dropped
/// as the file streams through ([`Rows::Dropped`]), so memory stays flat however many GCs and
/// heaps the trace holds. The model's summaries still cover every GC; its `gcs` holds only the
/// last few.
pub fn load_summaries(input: &Input) -> Result<GcModel, String> {
    let rows = Rows::Dropped {
        drain_every: DRAIN_EVERY,
    };
    load_process(input, WithInsights::No, rows).map(|l| l.model)
}

/// [`load_summaries`] that also keeps what latency figures and comparisons need of each row (a
/// pause record and a heap point, a small fixed size a GC) as the rows go by.
pub fn load_digest(input: &Input) -> Result<(GcModel, RowLog), String> {
    let mut rows = RowLog::default();
    let m = load_handing_out_rows(input, DRAIN_EVERY, &mut |gc: Gc| rows.add(&gc))?;
    // The rows still held at the end are the last ones, not handed out yet.
    for gc in &m.gcs {
        rows.add(gc);
    }
    Ok((m, rows))
}

/// Hands every row to `row` as soon as it is final, in GC order ([`Rows::HandedOut`]), taking the
/// settled rows from the model every `drain_every` events ([`DRAIN_EVERY`]; tests drain after
/// every event); the model keeps only the last few, so the rows it holds at the end
/// (`model.gcs`) are the ones not handed out yet, the last of the trace.
pub(crate) fn load_handing_out_rows(
    input: &Input,
    drain_every: u32,
    row: &mut dyn FnMut(Gc),
) -> Result<GcModel, String> {
    let rows = Rows::HandedOut { drain_every, row };
    load_process(input, WithInsights::No, rows).map(|l| l.model)
}

/// Decodes FILE once, feeding the model and the insights (of the chosen process), bounded: the
/// allocation ticks are kept only as per-type sums in time bins.
pub fn load_insights(input: &Input) -> Result<(GcModel, Insights), String> {
    load_insights_with(input, WithInsights::Bounded)
}

/// [`load_insights`], with the insights `insights` says. The rows are kept without their per-heap
/// histories ([`Rows::KeptWithoutHeaps`]), so the insights hold no budgets: `budgets`, the one
/// view that reads them, loads the rows with their heaps packed and makes the budgets itself.
pub fn load_insights_with(
    input: &Input,
    insights: WithInsights,
) -> Result<(GcModel, Insights), String> {
    let rows = Rows::KeptWithoutHeaps {
        drain_every: DRAIN_EVERY,
    };
    let loaded = load_process(input, insights, rows)?;
    let insights = loaded
        .insights
        .map(|b| b.finish(&loaded.model))
        .unwrap_or_default();
    Ok((loaded.model, insights))
}
