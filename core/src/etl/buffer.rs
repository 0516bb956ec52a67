//! The WMI_BUFFER_HEADER that starts every buffer of an .etl file (72 bytes, the same for 32- and
//! 64-bit loggers; docs/reference/formats.md, "Buffers"). Only the fields the decoder needs are
//! read.

use crate::error::{Error, Result};
use alloc::format;

/// Size of the buffer header; the records start right after it.
pub const HEADER_LEN: usize = 72;
/// `BufferFlag` bit of a buffer whose records are one [MS-XCA] Plain LZ77 stream
/// (docs/reference/formats.md, "Compressed buffers").
pub const FLAG_COMPRESSED: u16 = 0x40;
/// ETW's largest buffer is 16 MiB; a header claiming more is corrupt. This is also the most one
/// buffer can make the decoder hold (the bytes are only buffered as they arrive, never reserved
/// from the claim).
pub const MAX_BUFFER: u32 = 16 << 20;

/// One buffer's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferHeader {
    /// Bytes this buffer takes in the file (for a compressed buffer: header + compressed stream).
    pub size: u32,
    /// Bytes of header + records once decompressed: the records end exactly here.
    pub offset: u32,
    pub timestamp: i64,
    /// The processor whose events this buffer holds.
    pub processor: u8,
    pub flags: u16,
}

impl BufferHeader {
    /// Reads the header at the start of `h` (at least [`HEADER_LEN`] bytes; `at` is its stream
    /// offset, for errors).
    pub fn parse(h: &[u8], at: u64) -> Result<BufferHeader> {
        let u32_at = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
        let size = u32_at(0);
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&h[0x10..0x18]);
        let b = BufferHeader {
            size,
            offset: u32_at(0x30),
            timestamp: i64::from_le_bytes(ts),
            processor: h[0x28],
            flags: u16::from_le_bytes([h[0x34], h[0x35]]),
        };
        if (b.size as usize) < HEADER_LEN || b.size > MAX_BUFFER {
            return Err(Error::malformed(
                at,
                format!(
                    "ETL buffer size {} (a buffer is {HEADER_LEN} bytes to 16 MiB)",
                    b.size
                ),
            ));
        }
        if (b.offset as usize) < HEADER_LEN || b.offset > MAX_BUFFER {
            return Err(Error::malformed(
                at + 0x30,
                format!("ETL buffer says its records end at byte {}", b.offset),
            ));
        }
        if !b.compressed() && b.offset > b.size {
            return Err(Error::malformed(
                at + 0x30,
                format!(
                    "ETL buffer's records end at byte {}, past its size {}",
                    b.offset, b.size
                ),
            ));
        }
        Ok(b)
    }

    pub fn compressed(&self) -> bool {
        self.flags & FLAG_COMPRESSED != 0
    }

    /// Bytes of records (after decompression).
    pub fn records_len(&self) -> usize {
        self.offset as usize - HEADER_LEN
    }
}
