//! What a trace cut inside an event block still gives: the events wholly present before the cut.

use super::event_block::Dialect;
use super::framing::{self, ObjectKind, Peek};
use super::v6;
use super::Decoder;
use crate::bytes::Cursor;
use crate::error::Result;
use crate::sink::{DecodeStats, Sink};

impl Decoder {
    /// At a cut inside an EventBlock (V4/V5): decode the events that are wholly present.
    pub(super) fn salvage_event_block(
        &mut self,
        rest: &[u8],
        base: u64,
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        let Peek::Ready(h) = framing::peek_object_header(rest, base)? else {
            return Ok(());
        };
        if h.kind != ObjectKind::EventBlock {
            return Ok(());
        }
        let body = &rest[h.header_len..];
        let body_base = base + h.header_len as u64;
        if body.len() < 4 {
            return Ok(());
        }
        let start = 4 + framing::padding_after(body_base + 4);
        let Some(content) = body.get(start..) else {
            return Ok(());
        };
        // The size field says how much of this is the block's; the rest of `rest` is the cut.
        let size = i32::from_le_bytes([body[0], body[1], body[2], body[3]]).max(0) as usize;
        let content = &content[..content.len().min(size)];
        let mut c = Cursor::new(content, body_base + start as u64);
        // The last, incomplete event makes this return Truncated; everything before it is delivered.
        let _ = if self.version <= 3 {
            self.read_netperf_block(&mut c, stats, sink)
        } else {
            self.read_event_block(&mut c, Dialect::V4, stats, sink)
        };
        Ok(())
    }

    /// The same for a cut-off V6 EventBlock.
    pub(super) fn salvage_event_block_v6(
        &mut self,
        rest: &[u8],
        base: u64,
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        if rest.len() < 4 || rest[3] != v6::kind::EVENT {
            return Ok(());
        }
        let mut c = Cursor::new(&rest[4..], base + 4);
        let _ = self.read_event_block(&mut c, Dialect::V6, stats, sink);
        Ok(())
    }
}
