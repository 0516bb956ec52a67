//! Metadata packets: the framing LTTng may put around the TSDL text (a header per packet, the text
//! cut across packets), taken off before parsing.

use crate::error::{Error, ErrorKind, Result};
use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;

/// Magic number of a metadata packet (little-endian in the file when the trace is).
pub const METADATA_PACKET_MAGIC: u32 = 0x75D1_1D57;
/// Bytes of a metadata packet's header: magic, uuid, checksum, content and packet sizes (bits),
/// compression, encryption and checksum schemes, major and minor version.
const METADATA_HEADER_LEN: usize = 37;

/// Metadata bytes as stored in the file: packetized or plain text → the TSDL text. Packets are
/// told by their magic number in either byte order; their content (header excluded) is joined.
pub fn depacketize(bytes: &[u8]) -> Result<Vec<u8>> {
    let magic_le = bytes
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let be = match magic_le {
        Some(METADATA_PACKET_MAGIC) => false,
        Some(m) if m.swap_bytes() == METADATA_PACKET_MAGIC => true,
        _ => return Ok(bytes.to_vec()),
    };
    let rd = |at: usize| -> Option<u32> {
        let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
        Some(if be {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    };
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        if rd(at) != Some(METADATA_PACKET_MAGIC) {
            return Err(Error::malformed(
                at as u64,
                "CTF metadata: a packet does not start with the metadata magic",
            ));
        }
        let (Some(content), Some(packet)) = (rd(at + 24), rd(at + 28)) else {
            return Err(Error::truncated(at as u64, "CTF metadata packet header"));
        };
        let (content, packet) = (content as usize / 8, packet as usize / 8);
        if let Some(&scheme) = bytes.get(at + 32) {
            if scheme != 0 || bytes.get(at + 33).is_some_and(|&e| e != 0) {
                return Err(Error::new(
                    at as u64 + 32,
                    ErrorKind::Unsupported(
                        "CTF metadata: compressed or encrypted metadata packets".to_string(),
                    ),
                ));
            }
        }
        if content < METADATA_HEADER_LEN || packet < content {
            return Err(Error::malformed(
                at as u64 + 24,
                format!("CTF metadata: packet sizes {content}/{packet} bytes"),
            ));
        }
        let Some(text) = bytes.get(at + METADATA_HEADER_LEN..at + content) else {
            return Err(Error::truncated(at as u64, "CTF metadata packet"));
        };
        out.extend_from_slice(text);
        at += packet;
    }
    Ok(out)
}
