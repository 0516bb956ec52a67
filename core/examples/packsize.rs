use gcscope_core::gc::packed;
fn main() {
    let p = std::env::args().nth(1).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    let m = gcscope_core::gc::analyze(&bytes).unwrap();
    let mut out = Vec::new();
    for g in &m.gcs {
        packed::pack(&g.heaps, &mut out);
    }
    eprintln!(
        "gcs {} packed {} bytes ({} per gc)",
        m.gcs.len(),
        out.len(),
        out.len() / m.gcs.len().max(1)
    );
    std::fs::write("/tmp/packed.bin", &out).unwrap();
}
