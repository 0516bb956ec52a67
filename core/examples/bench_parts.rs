//! The costs of decoding one trace in parts ([`gcscope_core::parts`]), phase by phase, on one
//! thread, natively: the boundary pass, decoding every task (what the parts do, spread over
//! threads or workers), the wire encoding and decoding a Web Worker's result goes through, and
//! the merge with the GC model and insights (what the merging thread does); against the
//! sequential reader with the same model. Per-block costs for the projection in
//! docs/performance-log/journal.md, "One trace on several cores".
//!
//!     cargo run --release -p gcscope-core --example bench_parts -- FILE [ROUNDS]

use gcscope_core::event::TraceInfo;
use gcscope_core::gc::{self, insights::InsightsBuilder, ModelBuilder};
use gcscope_core::parts::{self, wire, Merged, Planner};
use gcscope_core::Consumer;
use gcscope_core::TraceReader;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: bench_parts FILE [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(3);
    let bytes = std::fs::read(path).expect("read");
    let filter = Consumer::ModelAndInsights.filter();
    for _ in 0..rounds {
        // Sequential: reader + model + insights.
        let t = Instant::now();
        let mut r = TraceReader::new().with_filter(gc::interest);
        let mut m = ModelBuilder::new(&TraceInfo::default());
        let mut ib = InsightsBuilder::bounded();
        for c in bytes.chunks(4 << 20) {
            r.push(c, &mut |e| gc::feed(&mut m, &mut ib, e)).unwrap();
        }
        r.finish(&mut |e| gc::feed(&mut m, &mut ib, e)).unwrap();
        m.set_info(r.info().unwrap());
        let model = m.finish(Some(r.stats()));
        let gcs = model.gcs.len();
        let _ = ib.finish(&model);
        let sequential = t.elapsed().as_secs_f64();

        // The boundary pass.
        let t = Instant::now();
        let mut planner = Planner::for_consumer(Consumer::ModelAndInsights);
        let mut tasks = Vec::new();
        while let Some((at, need)) = planner.want() {
            let at = at as usize;
            let end = (at + need.max(64 << 10)).min(bytes.len());
            if end - at < need {
                planner.feed(at as u64, &bytes[at..end], &mut tasks);
                if planner.want().is_some() {
                    planner.end_of_file(&mut tasks);
                }
                continue;
            }
            planner.feed(at as u64, &bytes[at..end], &mut tasks);
        }
        let plan = t.elapsed().as_secs_f64();

        // The parts.
        let t = Instant::now();
        let mut outputs: Vec<_> = tasks
            .iter()
            .map(|task| {
                let s = task.offset as usize;
                Some(parts::decode(
                    task,
                    bytes[s..s + task.len as usize].to_vec(),
                    filter,
                ))
            })
            .collect();
        let decode = t.elapsed().as_secs_f64();
        let blocks: usize = tasks
            .iter()
            .map(|t| {
                t.steps
                    .iter()
                    .filter(|s| matches!(s, parts::TaskStep::Part { .. }))
                    .count()
            })
            .sum();

        // Through the wire, as between workers (as the app's part workers send it, for the model):
        // encoded by the parts, decoded by the merge.
        let direct: Vec<_> = outputs.iter().map(|o| o.clone().unwrap()).collect();
        let t = Instant::now();
        let encoded: Vec<_> = outputs
            .iter_mut()
            .map(|o| wire::output_to_bytes_for_model(o.take().unwrap()))
            .collect();
        let encode = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let outputs: Vec<_> = encoded
            .into_iter()
            .map(|(r, p)| wire::output_from_bytes(&r, p).unwrap())
            .collect();
        let wire_decode = t.elapsed().as_secs_f64();

        // The merge with the model: of the parts' outputs as they are (threads), and as they come
        // through the wire (Web Workers); with the tick lane as the app reads (each tick in its
        // batch), and without it.
        let plain = outputs.clone();
        let (merge_no_lane, n) = merge_all(&bytes, &tasks, &planner, plain, Consumer::EveryEvent);
        assert_eq!(n, gcs);
        let (merge, n) = merge_all(
            &bytes,
            &tasks,
            &planner,
            outputs,
            Consumer::ModelAndInsights,
        );
        assert_eq!(n, gcs);
        let (merge_direct, n) =
            merge_all(&bytes, &tasks, &planner, direct, Consumer::ModelAndInsights);
        assert_eq!(n, gcs);
        let mb = bytes.len() as f64 / 1e6;
        println!(
            "{{\"bytes\":{},\"tasks\":{},\"blocks\":{blocks},\"sequential_s\":{sequential:.3},\"plan_s\":{plan:.3},\"decode_s\":{decode:.3},\"wire_encode_s\":{encode:.3},\"wire_decode_s\":{wire_decode:.3},\"merge_s\":{merge:.3},\"merge_without_lane_s\":{merge_no_lane:.3},\"merge_direct_s\":{merge_direct:.3},\"sequential_mbps\":{:.0},\"decode_us_per_block\":{:.1},\"merge_us_per_block\":{:.1}}}",
            bytes.len(),
            tasks.len(),
            mb / sequential,
            decode * 1e6 / blocks as f64,
            merge * 1e6 / blocks as f64,
        );
    }
}

/// The merge of `outputs` with the GC model and insights, as the merging thread does it, by a
/// reader for `consumer` (`EveryEvent`: filtered with `gc::interest`, the ticks one by one);
/// returns the seconds it took and the number of GCs.
fn merge_all(
    bytes: &[u8],
    tasks: &[parts::Task],
    planner: &Planner,
    outputs: Vec<parts::Output>,
    consumer: Consumer,
) -> (f64, usize) {
    let t = Instant::now();
    let mut r = match consumer {
        Consumer::EveryEvent => TraceReader::new().with_filter(gc::interest),
        c => TraceReader::for_consumer(c),
    };
    let mut m = ModelBuilder::new(&TraceInfo::default());
    let mut ib = InsightsBuilder::bounded();
    let mut from = planner.tail();
    for (task, out) in tasks.iter().zip(outputs) {
        match parts::merge(&mut r, task, out, &mut |_, e| gc::feed(&mut m, &mut ib, e)).unwrap() {
            Merged::Done => {}
            Merged::Sequential { from: f } => {
                from = Some(f);
                break;
            }
        }
    }
    let rest = &bytes[from.unwrap_or(0) as usize..];
    r.push(rest, &mut |e| gc::feed(&mut m, &mut ib, e)).unwrap();
    r.finish(&mut |e| gc::feed(&mut m, &mut ib, e)).unwrap();
    m.set_info(r.info().unwrap());
    let model = m.finish(Some(r.stats()));
    let _ = ib.finish(&model);
    (t.elapsed().as_secs_f64(), model.gcs.len())
}
