//! The MS-XCA Plain LZ77 decompressor on any stream and output size (the first 4 bytes give the
//! size, up to 1 MiB): never a panic, never more output than asked; and the test compressor's output
//! of the same bytes decompresses to them.

use gcscope_core::encode::etl::compress;
use gcscope_core::etl::lz77::decompress;

/// One execution: what the `lz77` fuzz target runs on each input.
pub fn run(data: &[u8]) {
    if data.len() < 4 {
        return;
    }
    let limit = u32::from_le_bytes([data[0], data[1], data[2], data[3]]) as usize % (1 << 20);
    let stream = &data[4..];
    let mut out = Vec::new();
    match decompress(stream, limit, &mut out) {
        Ok(true) => assert_eq!(out.len(), limit),
        Ok(false) => assert!(out.len() < limit),
        Err(e) => assert!(e.at < stream.len(), "error at {} of {}", e.at, stream.len()),
    }
    assert!(out.len() <= limit);
    let packed = compress(stream);
    let mut back = Vec::new();
    assert_eq!(decompress(&packed, stream.len(), &mut back), Ok(true));
    assert_eq!(back, stream);
}
