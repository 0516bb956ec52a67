//! Decodes one file once (for profiling with valgrind --tool=callgrind).
fn main() {
    let f = std::env::args().nth(1).expect("FILE");
    let bytes = std::fs::read(&f).unwrap();
    let mut n = 0u64;
    let mut r = gcscope_core::TraceReader::new();
    for c in bytes.chunks(1 << 20) {
        r.push(c, &mut |e| n += e.payload.len() as u64).unwrap();
    }
    r.finish(&mut |e| n += e.payload.len() as u64).unwrap();
    println!("{n} {:?}", r.stats());
}
