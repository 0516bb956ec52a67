//! The GC model (and its insights) fed any sequence of runtime events (valid-looking or not), in time order, with the
//! settled table read between events as the app does; the finished model is serialized.

use super::super::{info, records};
use gcscope_core::gc::insights::InsightsBuilder;
use gcscope_core::gc::ModelBuilder;

/// One execution: what the `model` fuzz target runs on each input.
pub fn run(data: &[u8]) {
    let mut b = ModelBuilder::new(&info());
    let mut ib = InsightsBuilder::new();
    let mut t_ms = 0.0;
    for (i, r) in records(data).enumerate() {
        t_ms += r.delta_us as f64 / 1000.0;
        let e = r.event(t_ms);
        b.on_event(&e);
        ib.on_event(&e);
        if i % 16 == 0 {
            let _ = b.completed_gcs().len();
        }
    }
    let model = b.finish(None);
    let insights = ib.finish(&model);
    // Written to a sink: the serializers run in full without growing an output buffer that every
    // run would allocate, copy and throw away.
    let _ = serde_json::to_writer(std::io::sink(), &model);
    let _ = serde_json::to_writer(std::io::sink(), &insights);
}
