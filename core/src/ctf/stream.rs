//! One CTF data stream (an LTTng `channel*` file, one CPU's events): packets, each a trace packet
//! header, a stream packet context and events; each event a header (id, timestamp), the stream's
//! event context and the event's fields. Fields are read at bit granularity, aligned as the
//! metadata says; the 27-bit (compact) and 32-bit (large) header timestamps are the low bits of the
//! clock, and a value below the previous low bits means the low bits wrapped once.

use super::tsdl::{align_of, Int, Metadata, Type, TypeId};
use crate::error::{Error, Result};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

mod fields;
use fields::align_up;

/// Magic number of a CTF data packet (`packet.header.magic`).
pub const PACKET_MAGIC: u32 = 0xC1FC_1FC1;

/// Ids of the field names the decoder reads values of (None where the metadata has no such name).
#[derive(Debug, Clone, Copy, Default)]
pub struct Names {
    pub id: Option<u32>,
    pub magic: Option<u32>,
    pub stream_id: Option<u32>,
    pub content_size: Option<u32>,
    pub packet_size: Option<u32>,
    pub events_discarded: Option<u32>,
    pub cpu_id: Option<u32>,
    pub vpid: Option<u32>,
    pub vtid: Option<u32>,
    pub procname: Option<u32>,
    /// The packet's last timestamp: clock-mapped, yet not a clock update for the events.
    pub timestamp_end: Option<u32>,
    /// The blob of a packed event (`___data__`).
    pub data: Option<u32>,
}

impl Names {
    pub fn of(md: &Metadata) -> Names {
        Names {
            id: md.name_id("id"),
            magic: md.name_id("magic"),
            stream_id: md.name_id("stream_id"),
            content_size: md.name_id("content_size"),
            packet_size: md.name_id("packet_size"),
            events_discarded: md.name_id("events_discarded"),
            cpu_id: md.name_id("cpu_id"),
            vpid: md.name_id("_vpid"),
            vtid: md.name_id("_vtid"),
            procname: md.name_id("_procname"),
            timestamp_end: md.name_id("timestamp_end"),
            data: md.name_id("___data__"),
        }
    }
}

/// Where the reading is: enough to go back to it (to peek at the next event).
#[derive(Debug, Clone, Copy, Default)]
pub struct Position {
    /// Bit offset in the stream.
    pub pos: u64,
    pub content_end: u64,
    pub packet_end: u64,
    pub clock: u64,
    pub stream_class: usize,
    pub cpu: u32,
    /// Whether a packet is open.
    pub in_packet: bool,
}

/// What decoding one event found.
#[derive(Debug, Clone, Default)]
pub struct Decoded {
    pub timestamp: u64,
    /// Index into [`Metadata::events`].
    pub decl: usize,
    pub pid: u32,
    pub tid: u32,
    pub procname: Vec<u8>,
}

/// The per-stream decoder state beyond the bytes.
#[derive(Default)]
pub struct StreamState {
    pub at: Position,
    /// Integer values decoded in the current scope chain: (name id, value, enum label id).
    vals: Vec<(u32, u64, u32)>,
    /// Packets opened.
    pub packets: u64,
    /// Packets whose events ended exactly at their content size.
    pub packets_exact: u64,
    /// Largest `events_discarded` seen (the counter runs per stream).
    pub discarded: u64,
    /// The procname of the last event read.
    text: Vec<u8>,
    /// Leaf reads left for the current event (bounds loops over empty elements).
    budget: u64,
}

/// How a value is written to the payload being built.
#[derive(Clone, Copy, PartialEq)]
enum Out {
    /// Not kept.
    None,
    /// As ETW lays it out: integers packed, strings as NUL-terminated UTF-16.
    Etw,
}

/// Stream lookup: index of the stream class with `id` in `md.streams`.
fn stream_class(md: &Metadata, id: u64) -> Option<usize> {
    md.streams.iter().position(|s| s.id == id)
}

/// Events of a stream class by id: (stream index, event id, index into md.events), sorted.
pub fn event_index(md: &Metadata) -> Vec<(usize, u64, usize)> {
    let mut v: Vec<(usize, u64, usize)> = md
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| (stream_class(md, e.stream_id).unwrap_or(0), e.id, i))
        .collect();
    v.sort_unstable();
    v
}

pub struct Ctx<'m> {
    pub md: &'m Metadata,
    pub names: Names,
    pub index: &'m [(usize, u64, usize)],
    /// Per event decl: whether it is packed (its payload is the `___data__` blob).
    pub packed: &'m [bool],
}

impl StreamState {
    /// In an open packet whose events are all read: moves to the packet's end and closes it.
    /// Returns whether a packet is still open (an event lies ahead in it).
    pub fn event_ahead(&mut self, cx: &Ctx<'_>) -> bool {
        if !self.at.in_packet {
            return false;
        }
        let header_align = cx
            .md
            .streams
            .get(self.at.stream_class)
            .and_then(|s| s.event_header)
            .map_or(8, |t| align_of(&cx.md.types, t, 0));
        let next = align_up(self.at.pos, header_align as u64);
        if next >= self.at.content_end {
            if self.at.pos == self.at.content_end {
                self.packets_exact += 1;
            }
            self.at.pos = self.at.packet_end;
            self.at.in_packet = false;
            return false;
        }
        true
    }

    /// Moves every position back by `bits` (the bytes before them were dropped from the buffer
    /// the positions index). Only between packets, when no position lies inside one.
    pub fn rebase(&mut self, bits: u64) {
        self.at.pos -= bits.min(self.at.pos);
        self.at.content_end = self.at.content_end.saturating_sub(bits);
        self.at.packet_end = self.at.packet_end.saturating_sub(bits);
    }

    /// Opens the packet at the current position: its header and context. `bytes` must hold the
    /// whole packet; where they end first, the error is a truncation and `at.packet_end` says
    /// where the packet ends.
    pub fn open_packet(&mut self, cx: &Ctx<'_>, bytes: &[u8]) -> Result<()> {
        let md = cx.md;
        let start = self.at.pos;
        if !start.is_multiple_of(8) {
            return Err(Error::malformed(
                start / 8,
                "CTF stream: a packet does not start on a byte",
            ));
        }
        let total = bytes.len() as u64 * 8;
        self.packets += 1;
        self.vals.clear();
        self.at.content_end = total;
        self.at.packet_end = total;
        self.budget = total - start + 64;
        if let Some(h) = md.packet_header {
            self.decode(cx, bytes, h, Out::None, &mut Vec::new(), 0)?;
            if let Some(m) = self.val(cx.names.magic) {
                if m as u32 != PACKET_MAGIC {
                    return Err(Error::malformed(
                        start / 8,
                        format!("CTF stream: packet magic {m:#x}, expected {PACKET_MAGIC:#x}"),
                    ));
                }
            }
        }
        let sid = self.val(cx.names.stream_id).unwrap_or(0);
        self.at.stream_class = stream_class(md, sid).ok_or_else(|| {
            Error::malformed(start / 8, format!("CTF stream: unknown stream id {sid}"))
        })?;
        if let Some(c) = md.streams[self.at.stream_class].packet_context {
            self.decode(cx, bytes, c, Out::None, &mut Vec::new(), 0)?;
        }
        let packet = self.val(cx.names.packet_size);
        let content = self.val(cx.names.content_size).or(packet);
        let packet = packet.or(content).unwrap_or(total - start);
        let content = content.unwrap_or(packet);
        if content > packet || packet == 0 || !packet.is_multiple_of(8) {
            return Err(Error::malformed(
                start / 8,
                format!("CTF stream: packet of {packet} bits with {content} bits of content"),
            ));
        }
        let (Some(content_end), Some(packet_end)) =
            (start.checked_add(content), start.checked_add(packet))
        else {
            return Err(Error::malformed(start / 8, "CTF stream: packet size"));
        };
        if packet_end > total {
            self.at.packet_end = packet_end;
            return Err(Error::truncated(bytes.len() as u64, "CTF packet"));
        }
        if self.at.pos > content_end {
            return Err(Error::malformed(
                start / 8,
                "CTF stream: the packet context ends after the packet's content",
            ));
        }
        self.at.content_end = content_end;
        self.at.packet_end = packet_end;
        if let Some(n) = self.val(cx.names.events_discarded) {
            self.discarded = self.discarded.max(n);
        }
        self.at.cpu = self.val(cx.names.cpu_id).map_or(u32::MAX, |c| c as u32);
        self.at.in_packet = true;
        Ok(())
    }

    /// Reads the event ahead in the open packet (see [`event_ahead`](Self::event_ahead)) into `d`,
    /// its payload (ETW layout) into `payload` when `want(decl)` says so. `bytes` hold the stream
    /// from bit 0 of the positions to at least the packet's end.
    pub fn next_event(
        &mut self,
        cx: &Ctx<'_>,
        bytes: &[u8],
        d: &mut Decoded,
        payload: &mut Vec<u8>,
        want: &dyn Fn(usize) -> bool,
    ) -> Result<()> {
        let md = cx.md;
        let start = self.at.pos / 8;
        let class = &md.streams[self.at.stream_class];
        self.vals.clear();
        self.budget = self.at.content_end - self.at.pos + 64;
        let mut scratch = Vec::new();
        if let Some(h) = class.event_header {
            self.decode(cx, bytes, h, Out::None, &mut scratch, 0)?;
        }
        let id = self.val(cx.names.id).unwrap_or(0);
        d.timestamp = self.at.clock;
        self.text.clear();
        if let Some(c) = class.event_context {
            self.decode(cx, bytes, c, Out::None, &mut scratch, 0)?;
        }
        d.pid = self.val(cx.names.vpid).map_or(u32::MAX, |v| v as u32);
        d.tid = self.val(cx.names.vtid).map_or(0, |v| v as u32);
        d.procname.clear();
        d.procname.extend_from_slice(&self.text);
        let sc = self.at.stream_class;
        let i = cx
            .index
            .binary_search_by(|&(s, e, _)| (s, e).cmp(&(sc, id)))
            .map_err(|_| Error::malformed(start, format!("CTF stream: unknown event id {id}")))?;
        let decl = cx.index[i].2;
        d.decl = decl;
        let e = &md.events[decl];
        if let Some(c) = e.context {
            self.decode(cx, bytes, c, Out::None, &mut scratch, 0)?;
        }
        payload.clear();
        if let Some(f) = e.fields {
            let out = if want(decl) { Out::Etw } else { Out::None };
            if cx.packed.get(decl).copied().unwrap_or(false) && out == Out::Etw {
                self.decode_packed(cx, bytes, f, payload)?;
            } else {
                self.decode(cx, bytes, f, out, payload, 0)?;
            }
        }
        if self.at.pos > self.at.content_end {
            return Err(Error::malformed(
                start,
                format!(
                    "CTF stream: event '{}' ends past its packet's content",
                    e.name
                ),
            ));
        }
        Ok(())
    }
}
