//! Relogs a trace (any format gcscope reads) into an .etl with the test-only writer, streamed in
//! bounded memory: the runtime providers' events, one process, each thread's events on processor
//! `thread % N`, buffers of 64 KiB, optionally compressed (MS-XCA Plain LZ77, as PerfView's merged
//! files are). For the ETL benchmarks: the same GC workload as a generated NetTrace file.
//!
//! ```text
//! cargo run --release -p gcscope-core --features encode --example etl_relog -- IN OUT.etl [--compressed] [--processors N]
//! ```

use gcscope_core::encode::etl::{Options, Relogger};
use gcscope_core::TraceReader;
use std::io::{Read, Write};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: etl_relog IN OUT.etl [--compressed] [--processors N]";
    let (Some(input), Some(output)) = (args.first(), args.get(1)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let compressed = args.iter().any(|a| a == "--compressed");
    let processors = args
        .iter()
        .position(|a| a == "--processors")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(8u32);
    let mut inp = std::fs::File::open(input).expect("open input");
    let mut out = std::io::BufWriter::new(std::fs::File::create(output).expect("create output"));
    let mut reader = TraceReader::new();
    let mut relog: Option<Relogger> = None;
    let mut buf = vec![0u8; 1 << 20];
    let t = std::time::Instant::now();
    let write = |relog: &mut Relogger, out: &mut std::io::BufWriter<std::fs::File>| {
        out.write_all(&relog.writer.drain()).expect("write");
    };
    loop {
        let n = inp.read(&mut buf).expect("read");
        let mut sink = |info: &gcscope_core::event::TraceInfo,
                        e: &gcscope_core::event::Event<'_>| {
            let r = relog.get_or_insert_with(|| {
                Relogger::new(
                    Options {
                        compressed,
                        processors,
                        perf_freq: info.qpc_frequency,
                        header_timestamp: info.sync_time_qpc,
                        ..Options::default()
                    },
                    info.process_id,
                )
            });
            r.event(e);
        };
        if n == 0 {
            reader.finish_with_info(&mut sink).expect("decode");
            break;
        }
        reader.push_with_info(&buf[..n], &mut sink).expect("decode");
        if let Some(r) = relog.as_mut() {
            write(r, &mut out);
        }
    }
    let r = relog.expect("no events");
    let events = r.events;
    out.write_all(&r.writer.finish()).expect("write");
    out.flush().expect("flush");
    let size = std::fs::metadata(output).map(|m| m.len()).unwrap_or(0);
    println!(
        "{{\"events\": {events}, \"bytes\": {size}, \"compressed\": {compressed}, \"seconds\": {:.2}}}",
        t.elapsed().as_secs_f64()
    );
}
