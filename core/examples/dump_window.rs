//! Prints the runtime's GC-suspension events of a trace between two times (ms), one per line:
//! time, thread, name, and the first payload words. For reading a GC's raw event order by eye.
fn main() {
    let mut args = std::env::args().skip(1);
    let f = args.next().expect("FILE FROM_MS TO_MS");
    let from: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0.0);
    let to: f64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(f64::INFINITY);
    let bytes = std::fs::read(&f).expect("readable file");
    let mut r = gcscope_core::TraceReader::new();
    let mut show = |e: &gcscope_core::event::Event<'_>| {
        let ticks = std::env::var_os("TICKS").is_some();
        if e.time_ms < from || e.time_ms > to || (!ticks && e.name.contains("AllocationTick")) {
            return;
        }
        let words: Vec<u32> = e
            .payload
            .chunks_exact(4)
            .take(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        println!(
            "{:12.3} t{:<8} {:<28} {:?}",
            e.time_ms, e.thread_id, e.name, words
        );
    };
    r.push(&bytes, &mut show).expect("decodes");
    r.finish(&mut show).expect("decodes");
}
