//! A minimal, independent NetTrace writer for tests: builds V4 (FastSerialization) and V6 streams
//! byte by byte from the format documents (perfview NetTraceFormat_v5.md / NetTraceFormat.md), so
//! tests can make inputs the reference traces do not contain.
#![allow(dead_code)]

pub fn utf16z(s: &str) -> Vec<u8> {
    let mut v: Vec<u8> = s.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    v.extend_from_slice(&[0, 0]);
    v
}

pub fn varu(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

pub fn var_str(s: &str, out: &mut Vec<u8>) {
    varu(s.len() as u64, out);
    out.extend_from_slice(s.as_bytes());
}

/// One event as the writer sees it (thread ids are indices in V6).
#[derive(Clone, Copy, Debug)]
pub struct Ev<'a> {
    pub metadata_id: u32,
    pub sequence: u32,
    pub thread: u64,
    pub capture_thread: u64,
    pub processor: u32,
    pub stack_id: u32,
    pub timestamp: i64,
    pub label_list: u32,
    pub sorted: bool,
    pub payload: &'a [u8],
}

impl Default for Ev<'_> {
    fn default() -> Self {
        Ev {
            metadata_id: 1,
            sequence: 1,
            thread: 1,
            capture_thread: 1,
            processor: 0,
            stack_id: 0,
            timestamp: 0,
            label_list: 0,
            sorted: false,
            payload: &[],
        }
    }
}

/// Compressed event headers: every optional field is written (deltas against the previous event,
/// wrapping like the runtime's writer), so decoding exercises every flag.
pub fn compressed_events(events: &[Ev<'_>], v6: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let (mut seq, mut ts) = (0u32, 0i64);
    for e in events {
        let mut flags = 0x01 | 0x02 | 0x04 | 0x08 | 0x80;
        if e.sorted {
            flags |= 0x40;
        }
        if v6 && e.label_list != 0 {
            flags |= 0x10;
        }
        out.push(flags);
        varu(e.metadata_id as u64, &mut out);
        varu(
            e.sequence.wrapping_sub(seq).wrapping_sub(1) as u64,
            &mut out,
        );
        seq = e.sequence;
        varu(e.capture_thread, &mut out);
        varu(e.processor as u64, &mut out);
        varu(e.thread, &mut out);
        varu(e.stack_id as u64, &mut out);
        varu(e.timestamp.wrapping_sub(ts) as u64, &mut out);
        ts = e.timestamp;
        if v6 && e.label_list != 0 {
            varu(e.label_list as u64, &mut out);
        }
        varu(e.payload.len() as u64, &mut out);
        out.extend_from_slice(e.payload);
    }
    out
}

/// EventBlock / MetadataBlock content: 20-byte header then the event rows.
pub fn event_block_content(rows: &[u8], compressed: bool) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&20u16.to_le_bytes());
    out.extend_from_slice(&(compressed as u16).to_le_bytes());
    out.extend_from_slice(&0i64.to_le_bytes());
    out.extend_from_slice(&0i64.to_le_bytes());
    out.extend_from_slice(rows);
    out
}

/// V3-V5 metadata payload with no fields; `opcode` adds a V5 opcode tag.
pub fn metadata_payload(
    id: u32,
    provider: &str,
    event_id: u32,
    name: &str,
    version: u32,
    opcode: Option<u8>,
) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&id.to_le_bytes());
    p.extend_from_slice(&utf16z(provider));
    p.extend_from_slice(&event_id.to_le_bytes());
    p.extend_from_slice(&utf16z(name));
    p.extend_from_slice(&0u64.to_le_bytes()); // keywords
    p.extend_from_slice(&version.to_le_bytes());
    p.extend_from_slice(&4u32.to_le_bytes()); // level
    p.extend_from_slice(&0u32.to_le_bytes()); // field count
    if let Some(op) = opcode {
        p.extend_from_slice(&1u32.to_le_bytes());
        p.push(1);
        p.push(op);
    }
    p
}

/// SYSTEMTIME 2024-01-02 03:04:05.006 (a Tuesday).
pub fn systemtime() -> Vec<u8> {
    [2024i16, 1, 2, 2, 3, 4, 5, 6]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

/// A FastSerialization (V4/V5) stream.
pub struct V4 {
    pub buf: Vec<u8>,
    /// Stream offsets where each object starts (after the stream header).
    pub object_starts: Vec<usize>,
    /// Padding bytes written after each block's size field.
    pub pads: Vec<usize>,
}

impl V4 {
    pub fn new(sync_qpc: i64, freq: i64, pointer_size: i32) -> V4 {
        let mut w = V4 {
            buf: Vec::new(),
            object_starts: Vec::new(),
            pads: Vec::new(),
        };
        w.buf.extend_from_slice(b"Nettrace");
        w.buf.extend_from_slice(&20u32.to_le_bytes());
        w.buf.extend_from_slice(b"!FastSerialization.1");
        let mut body = systemtime();
        body.extend_from_slice(&sync_qpc.to_le_bytes());
        body.extend_from_slice(&freq.to_le_bytes());
        body.extend_from_slice(&pointer_size.to_le_bytes());
        body.extend_from_slice(&4242u32.to_le_bytes()); // process id
        body.extend_from_slice(&8u32.to_le_bytes()); // processors
        body.extend_from_slice(&1_000_000u32.to_le_bytes()); // sampling rate
        w.object("Trace", 4, 4, |_, out| out.extend_from_slice(&body));
        w
    }

    fn object(
        &mut self,
        name: &str,
        version: i32,
        min: i32,
        body: impl FnOnce(usize, &mut Vec<u8>),
    ) {
        self.object_starts.push(self.buf.len());
        self.buf.extend_from_slice(&[5, 5, 1]);
        self.buf.extend_from_slice(&version.to_le_bytes());
        self.buf.extend_from_slice(&min.to_le_bytes());
        self.buf
            .extend_from_slice(&(name.len() as i32).to_le_bytes());
        self.buf.extend_from_slice(name.as_bytes());
        self.buf.push(6);
        let at = self.buf.len();
        let mut b = Vec::new();
        body(at, &mut b);
        self.buf.extend_from_slice(&b);
        self.buf.push(6);
    }

    /// A block object: i32 size, zero padding to a 4-byte aligned stream offset, content.
    pub fn block(&mut self, name: &str, content: &[u8]) {
        let mut pads = std::mem::take(&mut self.pads);
        self.object(name, 2, 2, |at, out| {
            out.extend_from_slice(&(content.len() as i32).to_le_bytes());
            let pad = (4 - (at + 4) % 4) % 4;
            pads.push(pad);
            out.extend(std::iter::repeat_n(0u8, pad));
            out.extend_from_slice(content);
        });
        self.pads = pads;
    }

    pub fn metadata_block(&mut self, payloads: &[Vec<u8>]) {
        let mut rows = Vec::new();
        for p in payloads {
            // Metadata records as the runtime writes them: flags 0x02|0x80, seq delta 0xFFFFFFFF.
            rows.push(0x02 | 0x80);
            varu(0xFFFF_FFFF, &mut rows);
            varu(0, &mut rows);
            varu(0xFFFF_FFFF, &mut rows);
            varu(0, &mut rows);
            varu(p.len() as u64, &mut rows);
            rows.extend_from_slice(p);
        }
        self.block("MetadataBlock", &event_block_content(&rows, true));
    }

    pub fn event_block(&mut self, events: &[Ev<'_>]) {
        self.block(
            "EventBlock",
            &event_block_content(&compressed_events(events, false), true),
        );
    }

    pub fn sequence_point(&mut self, ts: i64, threads: &[(u64, u32)]) {
        let mut c = Vec::new();
        c.extend_from_slice(&ts.to_le_bytes());
        c.extend_from_slice(&(threads.len() as u32).to_le_bytes());
        for (t, s) in threads {
            c.extend_from_slice(&t.to_le_bytes());
            c.extend_from_slice(&s.to_le_bytes());
        }
        self.block("SPBlock", &c);
    }

    pub fn stack_block(&mut self, first: u32, stacks: &[&[u64]]) {
        let mut c = Vec::new();
        c.extend_from_slice(&first.to_le_bytes());
        c.extend_from_slice(&(stacks.len() as u32).to_le_bytes());
        for s in stacks {
            c.extend_from_slice(&((s.len() * 8) as u32).to_le_bytes());
            for ip in *s {
                c.extend_from_slice(&ip.to_le_bytes());
            }
        }
        self.block("StackBlock", &c);
    }

    pub fn end(&mut self) {
        self.buf.push(1);
    }
}

/// A V6 stream: header then `u32 (kind << 24 | size)` blocks, no padding.
pub struct V6 {
    pub buf: Vec<u8>,
    pub block_starts: Vec<usize>,
}

impl V6 {
    pub fn new(sync: i64, freq: i64, pointer_size: i32, kv: &[(&str, &str)]) -> V6 {
        let mut w = V6 {
            buf: Vec::new(),
            block_starts: Vec::new(),
        };
        w.buf.extend_from_slice(b"Nettrace");
        w.buf.extend_from_slice(&0u32.to_le_bytes());
        w.buf.extend_from_slice(&6u32.to_le_bytes());
        w.buf.extend_from_slice(&0u32.to_le_bytes());
        let mut c = systemtime();
        c.extend_from_slice(&sync.to_le_bytes());
        c.extend_from_slice(&freq.to_le_bytes());
        c.extend_from_slice(&pointer_size.to_le_bytes());
        c.extend_from_slice(&(kv.len() as i32).to_le_bytes());
        for (k, v) in kv {
            var_str(k, &mut c);
            var_str(v, &mut c);
        }
        w.block(1, &c);
        w
    }

    pub fn block(&mut self, kind: u8, content: &[u8]) {
        self.block_starts.push(self.buf.len());
        let word = (kind as u32) << 24 | content.len() as u32;
        self.buf.extend_from_slice(&word.to_le_bytes());
        self.buf.extend_from_slice(content);
    }

    /// One metadata row: id, provider, event id, name, no fields, optional metadata (version, opcode).
    pub fn metadata_row(
        id: u32,
        provider: &str,
        event_id: u32,
        name: &str,
        version: Option<u8>,
        opcode: Option<u8>,
    ) -> Vec<u8> {
        let mut r = Vec::new();
        varu(id as u64, &mut r);
        var_str(provider, &mut r);
        varu(event_id as u64, &mut r);
        var_str(name, &mut r);
        r.extend_from_slice(&0u16.to_le_bytes()); // field count
        let mut opt = Vec::new();
        if let Some(op) = opcode {
            opt.extend_from_slice(&[1, op]);
        }
        if let Some(v) = version {
            opt.extend_from_slice(&[9, v]);
        }
        r.extend_from_slice(&(opt.len() as u16).to_le_bytes());
        r.extend_from_slice(&opt);
        r
    }

    pub fn metadata_block(&mut self, rows: &[Vec<u8>]) {
        let mut c = Vec::new();
        c.extend_from_slice(&2u16.to_le_bytes()); // header size, excluding itself
        c.extend_from_slice(&[0xaa, 0xbb]); // opaque header bytes
        for r in rows {
            c.extend_from_slice(&(r.len() as u16).to_le_bytes());
            c.extend_from_slice(r);
        }
        self.block(3, &c);
    }

    pub fn thread_block(&mut self, threads: &[(u64, u64)]) {
        let mut c = Vec::new();
        for (index, os) in threads {
            let mut row = Vec::new();
            varu(*index, &mut row);
            row.push(1);
            var_str("worker", &mut row);
            row.push(3);
            varu(*os, &mut row);
            c.extend_from_slice(&(row.len() as u16).to_le_bytes());
            c.extend_from_slice(&row);
        }
        self.block(6, &c);
    }

    pub fn event_block(&mut self, events: &[Ev<'_>]) {
        self.block(
            2,
            &event_block_content(&compressed_events(events, true), true),
        );
    }

    pub fn sequence_point(&mut self, ts: i64, flags: u32, threads: &[(u64, u32)]) {
        let mut c = Vec::new();
        c.extend_from_slice(&ts.to_le_bytes());
        c.extend_from_slice(&flags.to_le_bytes());
        c.extend_from_slice(&(threads.len() as u32).to_le_bytes());
        for (t, s) in threads {
            varu(*t, &mut c);
            varu(*s as u64, &mut c);
        }
        self.block(4, &c);
    }

    pub fn end(&mut self) {
        self.block(0, &[]);
    }
}
