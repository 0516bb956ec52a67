//! The units a [`Decoder::step`] consumes before and between the blocks: the stream's start (the
//! NetTrace magic, V6's header, or NetPerf's bare FastSerialization header) and each
//! FastSerialization object's framing, from which the block readers take over.

use super::*;

impl Decoder {
    pub(super) fn step_start(&mut self, buf: &[u8], base: u64) -> Result<Step> {
        if buf.len() < NETTRACE_MAGIC.len() {
            return Ok(Step::NeedMore(NETTRACE_MAGIC.len()));
        }
        if &buf[..8] != NETTRACE_MAGIC {
            // NetPerf: no magic, the FastSerialization header comes first.
            self.stage = Stage::StreamHeader;
            return Ok(Step::Consumed(0));
        }
        if buf.len() < 12 {
            return Ok(Step::NeedMore(12));
        }
        if buf[8..12] != [0, 0, 0, 0] {
            self.stage = Stage::StreamHeader;
            return Ok(Step::Consumed(8));
        }
        if buf.len() < v6::HEADER_LEN {
            return Ok(Step::NeedMore(v6::HEADER_LEN));
        }
        let mut c = Cursor::new(&buf[12..], base + 12);
        let major = c.u32("major version")?;
        let _minor = c.u32("minor version")?;
        if major != v6::MAJOR_VERSION {
            return Err(Error::new(
                base + 12,
                ErrorKind::Unsupported(format!(
                    "NetTrace major version {major} (this reader knows 4-6)"
                )),
            ));
        }
        self.version = 6;
        self.stage = Stage::V6Blocks;
        self.current = "TraceBlock";
        Ok(Step::Consumed(v6::HEADER_LEN))
    }

    pub(super) fn step_object(
        &mut self,
        buf: &[u8],
        base: u64,
        stats: &mut DecodeStats,
        sink: &mut Sink<'_>,
    ) -> Result<Step> {
        let Some(&first) = buf.first() else {
            return Ok(Step::NeedMore(1));
        };
        if first == framing::tag::NULL_REFERENCE {
            self.stage = Stage::End;
            return Ok(Step::Consumed(1));
        }
        let h = match framing::peek_object_header(buf, base)? {
            Peek::Ready(h) => h,
            Peek::NeedMore(n) => return Ok(Step::NeedMore(n)),
        };
        let body = &buf[h.header_len..];
        let body_base = base + h.header_len as u64;
        if h.kind == ObjectKind::Trace {
            self.current = "Trace object";
            if self.info.is_some() {
                return Err(Error::malformed(base, "a second Trace object"));
            }
            if h.min_reader_version > MAX_TRACE_VERSION || h.version < 1 {
                return Err(Error::new(
                    base,
                    ErrorKind::Unsupported(format!(
                        "Trace object version {} (minimum reader {})",
                        h.version, h.min_reader_version
                    )),
                ));
            }
            let version = h.version.min(MAX_TRACE_VERSION) as u32;
            let inline = version < 3;
            let body_len = if inline {
                trace::TRACE_BODY_LEN_V1V2
            } else {
                trace::TRACE_BODY_LEN + 1
            };
            if body.len() < body_len {
                return Ok(Step::NeedMore(h.header_len + body_len));
            }
            let mut c = Cursor::new(body, body_base);
            let info = trace::read_trace_object(&mut c, version)?;
            if !inline {
                let end = c.u8("Trace end tag")?;
                if end != framing::tag::END_OBJECT {
                    return Err(Error::malformed(
                        c.offset() - 1,
                        format!("expected EndObject (6) after the Trace object, found {end}"),
                    ));
                }
            }
            self.version = version;
            self.pointer_size = info.pointer_size;
            self.info = Some(info);
            if inline {
                self.stage = Stage::InlineEvents;
                self.current = "event";
            }
            return Ok(Step::Consumed(h.header_len + body_len));
        }
        if self.info.is_none() {
            // A FastSerialization file that is not a trace: .gcdump heap snapshots share the framing.
            let name = String::from_utf8_lossy(&buf[15..h.header_len - 1]);
            let what = if name.contains("HeapDump") || name.contains("MemoryGraph") {
                format!(
                    "a .gcdump heap snapshot (FastSerialization type '{name}'): it holds the \
                     heap's objects, not GC events; open it in the tab (its Heap tab) or read it \
                     with `gcscope heap` on the command line"
                )
            } else {
                format!("a FastSerialization file of type '{name}', not an EventPipe trace")
            };
            return Err(Error::new(base, ErrorKind::NotATrace(what)));
        }
        self.current = match h.kind {
            ObjectKind::EventBlock => "EventBlock",
            ObjectKind::MetadataBlock => "MetadataBlock",
            ObjectKind::StackBlock => "StackBlock",
            ObjectKind::SequencePointBlock => "SPBlock",
            _ => "object",
        };
        let (start, len, total) = match framing::peek_block_body(body, body_base)? {
            Peek::Ready(r) => r,
            Peek::NeedMore(n) => return Ok(Step::NeedMore(h.header_len + n)),
        };
        if self.info.is_none() {
            return Err(Error::malformed(base, "a block before the Trace object"));
        }
        let content = &body[start..start + len];
        let mut c = Cursor::new(content, body_base + start as u64);
        stats.blocks += 1;
        match h.kind {
            ObjectKind::EventBlock if self.version <= 3 => {
                self.read_netperf_block(&mut c, stats, sink)?
            }
            ObjectKind::EventBlock => self.read_event_block(&mut c, Dialect::V4, stats, sink)?,
            ObjectKind::MetadataBlock => self.read_event_block(&mut c, Dialect::V4, stats, sink)?,
            ObjectKind::StackBlock => {
                stats.stacks +=
                    stack::read_stack_block(&mut c, self.pointer_size, self.stacks.as_mut())? as u64
            }
            ObjectKind::SequencePointBlock => {
                self.flush(stats, sink);
                if let Some(t) = &mut self.stacks {
                    t.begin_region();
                }
                stats.sequence_points += 1;
                sequence_point::read_sequence_point_v4(&mut c, &mut self.seq)?;
            }
            // Unknown block-shaped objects are skipped: the framing says how long they are.
            _ => {}
        }
        Ok(Step::Consumed(h.header_len + total))
    }
}
