//! Test-only ETW **writer** (feature `encode`): .etl files laid out as docs/reference/formats.md,
//! "ETW .etl files", describes them, for large and hostile cases the shared files cannot give: a
//! logfile-header buffer, then per-processor buffers of EVENT_HEADER records (with extended items
//! when asked) and kernel SYSTEM records, each processor's buffer flushed when full, so buffers of
//! different processors interleave in the file as real sessions write them; optionally every buffer
//! after the first compressed with [`compress`] (MS-XCA Plain LZ77), as relogged files are.
//!
//! [`from_events`] relogs any trace's events (a generated NetTrace workload, for the benchmarks)
//! into an .etl, one process, the runtime provider's events under its ETW GUID.

use crate::etl::buffer::{FLAG_COMPRESSED, HEADER_LEN};
use crate::etl::guid::Guid;
use crate::etl::logfile::COMPRESSED_MODE;
use crate::etl::names;
use crate::event::Event;
use alloc::vec;
use alloc::vec::Vec;

/// How to write the file.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Bytes of each (uncompressed) buffer: 64 KiB like PerfView's and WPR's.
    pub buffer_size: u32,
    pub processors: u32,
    /// Compress every buffer after the first (EVENT_TRACE_COMPRESSED_MODE).
    pub compressed: bool,
    /// The logger's pointer size (the logfile header's).
    pub pointer_size: u8,
    pub perf_freq: i64,
    /// FILETIME of the session start.
    pub start_time: i64,
    /// FILETIME of the session end (0: not filled in).
    pub end_time: i64,
    /// FILETIME of the machine's boot.
    pub boot_time: i64,
    /// Timestamp of the logfile header record (the trace's time 0).
    pub header_timestamp: i64,
    pub events_lost: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            buffer_size: 64 * 1024,
            processors: 4,
            compressed: false,
            pointer_size: 8,
            perf_freq: 10_000_000,
            start_time: 133_232_283_966_946_549,
            end_time: 0,
            boot_time: 133_232_200_000_000_000,
            header_timestamp: 1_000_000,
            events_lost: 0,
        }
    }
}

/// One manifest event.
#[derive(Debug, Clone, Copy)]
pub struct EtlEvent<'a> {
    pub provider: Guid,
    pub id: u16,
    pub version: u8,
    pub opcode: u8,
    pub task: u16,
    pub process_id: u32,
    pub thread_id: u32,
    pub timestamp: i64,
    /// Record type 0x13 (64-bit payload) or 0x12 (32-bit).
    pub pointer_size: u8,
    /// Extended data items' data (each written as one item; empty: none).
    pub extended: &'a [&'a [u8]],
    pub payload: &'a [u8],
}

/// Streams an .etl file: [`drain`](EtlWriter::drain) takes what is written so far.
pub struct EtlWriter {
    opts: Options,
    out: Vec<u8>,
    /// Records of each processor's buffer being filled, and that buffer's first timestamp.
    open: Vec<(Vec<u8>, i64)>,
    buffers: u64,
}

impl EtlWriter {
    pub fn new(opts: Options) -> EtlWriter {
        let mut w = EtlWriter {
            opts,
            out: Vec::new(),
            open: (0..opts.processors.max(1))
                .map(|_| (Vec::new(), 0))
                .collect(),
            buffers: 0,
        };
        let header = w.logfile_header_record();
        w.write_buffer(0, opts.header_timestamp, &header, false);
        w
    }

    /// The first record: a SYSTEM record, HookId 0, whose payload is TRACE_LOGFILE_HEADER.
    fn logfile_header_record(&self) -> Vec<u8> {
        let o = &self.opts;
        let ptr = o.pointer_size as usize;
        let boot = (56 + 2 * ptr + 172 + 7) & !7;
        let mut p = vec![0u8; boot + 32];
        p[0..4].copy_from_slice(&o.buffer_size.to_le_bytes());
        p[12..16].copy_from_slice(&o.processors.to_le_bytes());
        let mode = if o.compressed { COMPRESSED_MODE } else { 0 } | 0x1;
        p[32..36].copy_from_slice(&mode.to_le_bytes());
        p[44..48].copy_from_slice(&(ptr as u32).to_le_bytes());
        p[16..24].copy_from_slice(&o.end_time.to_le_bytes());
        p[48..52].copy_from_slice(&o.events_lost.to_le_bytes());
        p[boot..boot + 8].copy_from_slice(&o.boot_time.to_le_bytes());
        p[boot + 8..boot + 16].copy_from_slice(&o.perf_freq.to_le_bytes());
        p[boot + 16..boot + 24].copy_from_slice(&o.start_time.to_le_bytes());
        p[boot + 24..boot + 28].copy_from_slice(&1u32.to_le_bytes());
        for u in "gcscope test session".encode_utf16().chain([0]) {
            p.extend_from_slice(&u.to_le_bytes());
        }
        system_record(0x02, 2, 0, 0, 0, o.header_timestamp, &p)
    }

    /// Adds a manifest event to processor `cpu`'s buffer.
    pub fn event(&mut self, cpu: u32, e: &EtlEvent<'_>) {
        let rec = event_record(e);
        self.record(cpu, e.timestamp, &rec);
    }

    /// Adds a kernel (system logger) event: a SYSTEM record with `hook` (group << 8 | opcode).
    #[allow(clippy::too_many_arguments)]
    pub fn kernel(
        &mut self,
        cpu: u32,
        hook: u16,
        version: u16,
        process_id: u32,
        thread_id: u32,
        timestamp: i64,
        payload: &[u8],
    ) {
        let kind = if self.opts.pointer_size == 8 {
            0x02
        } else {
            0x01
        };
        let rec = system_record(
            kind, version, hook, process_id, thread_id, timestamp, payload,
        );
        self.record(cpu, timestamp, &rec);
    }

    /// Adds record bytes as they are (hostile tests): padded to 8 in the buffer.
    pub fn record(&mut self, cpu: u32, timestamp: i64, rec: &[u8]) {
        let cpu = (cpu as usize) % self.open.len();
        let room = self.opts.buffer_size as usize - HEADER_LEN;
        let padded = (rec.len() + 7) & !7;
        assert!(
            padded <= room,
            "record of {} bytes does not fit a buffer",
            rec.len()
        );
        if self.open[cpu].0.len() + padded > room {
            self.flush_cpu(cpu);
        }
        let (buf, first) = &mut self.open[cpu];
        if buf.is_empty() {
            *first = timestamp;
        }
        buf.extend_from_slice(rec);
        buf.resize(buf.len() + padded - rec.len(), 0);
    }

    fn flush_cpu(&mut self, cpu: usize) {
        let (records, first) = core::mem::take(&mut self.open[cpu]);
        if !records.is_empty() {
            self.write_buffer(cpu as u8, first, &records, self.opts.compressed);
        }
    }

    /// One buffer: header, records (compressed or not), filler to the buffer size when plain.
    fn write_buffer(&mut self, cpu: u8, timestamp: i64, records: &[u8], compress_it: bool) {
        let offset = (HEADER_LEN + records.len()) as u32;
        let body = if compress_it {
            compress(records)
        } else {
            records.to_vec()
        };
        let size = if compress_it {
            (HEADER_LEN + body.len()) as u32
        } else {
            self.opts.buffer_size.max(offset)
        };
        let mut h = [0u8; HEADER_LEN];
        h[0..4].copy_from_slice(&size.to_le_bytes());
        h[4..8].copy_from_slice(&offset.to_le_bytes());
        h[8..12].copy_from_slice(&offset.to_le_bytes());
        h[0x10..0x18].copy_from_slice(&timestamp.to_le_bytes());
        h[0x18..0x20].copy_from_slice(&(self.buffers + 1).to_le_bytes());
        h[0x28] = cpu;
        h[0x2c..0x30].copy_from_slice(&3u32.to_le_bytes());
        h[0x30..0x34].copy_from_slice(&offset.to_le_bytes());
        let flag = if compress_it {
            FLAG_COMPRESSED | 0x1
        } else {
            0x1
        };
        h[0x34..0x36].copy_from_slice(&flag.to_le_bytes());
        self.out.extend_from_slice(&h);
        self.out.extend_from_slice(&body);
        if !compress_it {
            self.out.resize(
                self.out.len() + size as usize - HEADER_LEN - body.len(),
                0xff,
            );
        }
        self.buffers += 1;
    }

    /// The bytes written so far (whole buffers).
    pub fn drain(&mut self) -> Vec<u8> {
        core::mem::take(&mut self.out)
    }

    /// Flushes every processor's buffer (lowest processor first) and returns the rest of the file.
    pub fn finish(mut self) -> Vec<u8> {
        for cpu in 0..self.open.len() {
            self.flush_cpu(cpu);
        }
        self.out
    }
}

/// A SYSTEM record (32-byte header): version, type, marker 0xC0, size, HookId, ids, timestamp.
fn system_record(
    kind: u8,
    version: u16,
    hook: u16,
    process_id: u32,
    thread_id: u32,
    timestamp: i64,
    payload: &[u8],
) -> Vec<u8> {
    let size = 32 + payload.len();
    let mut r = Vec::with_capacity(size);
    r.extend_from_slice(&version.to_le_bytes());
    r.push(kind);
    r.push(0xc0);
    r.extend_from_slice(&(size as u16).to_le_bytes());
    r.extend_from_slice(&hook.to_le_bytes());
    r.extend_from_slice(&thread_id.to_le_bytes());
    r.extend_from_slice(&process_id.to_le_bytes());
    r.extend_from_slice(&timestamp.to_le_bytes());
    r.extend_from_slice(&[0; 8]);
    r.extend_from_slice(payload);
    r
}

/// An EVENT_HEADER record (80 bytes, extended items, payload).
fn event_record(e: &EtlEvent<'_>) -> Vec<u8> {
    let mut items = Vec::new();
    for (i, data) in e.extended.iter().enumerate() {
        let last = i + 1 == e.extended.len();
        let len = (8 + data.len() + 7) & !7;
        items.extend_from_slice(&(len as u16).to_le_bytes());
        items.extend_from_slice(&5u16.to_le_bytes());
        items.extend_from_slice(&(!last as u16).to_le_bytes());
        items.extend_from_slice(&(data.len() as u16).to_le_bytes());
        items.extend_from_slice(data);
        items.resize(items.len() + len - 8 - data.len(), 0);
    }
    let size = 80 + items.len() + e.payload.len();
    let mut r = Vec::with_capacity(size);
    r.extend_from_slice(&(size as u16).to_le_bytes());
    r.push(if e.pointer_size == 4 { 0x12 } else { 0x13 });
    r.push(0xc0);
    let flags: u16 = if e.extended.is_empty() { 0 } else { 1 };
    r.extend_from_slice(&flags.to_le_bytes());
    r.extend_from_slice(&0u16.to_le_bytes());
    r.extend_from_slice(&e.thread_id.to_le_bytes());
    r.extend_from_slice(&e.process_id.to_le_bytes());
    r.extend_from_slice(&e.timestamp.to_le_bytes());
    let g = e.provider;
    r.extend_from_slice(&g.data1.to_le_bytes());
    r.extend_from_slice(&g.data2.to_le_bytes());
    r.extend_from_slice(&g.data3.to_le_bytes());
    r.extend_from_slice(&g.data4);
    r.extend_from_slice(&e.id.to_le_bytes());
    r.extend_from_slice(&[e.version, 0, 4, e.opcode]);
    r.extend_from_slice(&e.task.to_le_bytes());
    r.extend_from_slice(&1u64.to_le_bytes());
    r.extend_from_slice(&[0; 8]);
    r.extend_from_slice(&[0; 16]);
    r.extend_from_slice(&items);
    r.extend_from_slice(e.payload);
    r
}

/// Relogs one trace's events into an .etl: each event an EVENT_HEADER record of its provider's ETW
/// GUID (events of other providers are left out), its thread's processor `thread % processors`,
/// timestamps as they are (`header_timestamp` should be the source's time 0).
pub struct Relogger {
    pub writer: EtlWriter,
    pub process_id: u32,
    pub events: u64,
}

impl Relogger {
    pub fn new(opts: Options, process_id: u32) -> Relogger {
        Relogger {
            writer: EtlWriter::new(opts),
            process_id,
            events: 0,
        }
    }

    pub fn event(&mut self, e: &Event<'_>) {
        let provider = match e.provider {
            crate::clr::names::RUNTIME_PROVIDER => names::RUNTIME_GUID,
            crate::clr::names::RUNDOWN_PROVIDER => names::RUNDOWN_GUID,
            crate::clr::names::PRIVATE_PROVIDER => names::PRIVATE_GUID,
            _ => return,
        };
        let cpu = (e.thread_id % self.writer.open.len() as u64) as u32;
        self.writer.event(
            cpu,
            &EtlEvent {
                provider,
                id: e.event_id as u16,
                version: e.version as u8,
                opcode: 0,
                task: 0,
                process_id: self.process_id,
                thread_id: e.thread_id as u32,
                timestamp: e.timestamp,
                pointer_size: e.pointer_size,
                extended: &[],
                payload: e.payload,
            },
        );
        self.events += 1;
    }
}

/// The payload of a kernel Process/Start or Process/DCStart record, version 4 (Windows 8 and
/// later), without a SID: UniqueProcessKey, ProcessId, ParentId, SessionId, ExitStatus,
/// DirectoryTableBase, Flags, the (empty) SID, the image file name (ANSI) and the command line
/// (UTF-16), the pointer-sized fields `pointer_size` wide.
pub fn process_payload(
    pointer_size: u8,
    process_id: u32,
    parent_id: u32,
    image: &str,
    command_line: &str,
) -> Vec<u8> {
    let ptr = vec![0u8; pointer_size as usize];
    let mut p = ptr.clone();
    for v in [process_id, parent_id, 1, 259] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    p.extend_from_slice(&ptr);
    p.extend_from_slice(&0u32.to_le_bytes()); // flags
    p.extend_from_slice(&0u32.to_le_bytes()); // no SID
    p.extend_from_slice(image.as_bytes());
    p.push(0);
    for u in command_line.encode_utf16().chain([0]) {
        p.extend_from_slice(&u.to_le_bytes());
    }
    p
}

/// Convenience: relogs `events` into a whole file in memory.
pub fn from_events<'a>(
    opts: Options,
    process_id: u32,
    events: impl IntoIterator<Item = Event<'a>>,
) -> Vec<u8> {
    let mut r = Relogger::new(opts, process_id);
    let mut out = Vec::new();
    for e in events {
        r.event(&e);
        out.extend(r.writer.drain());
    }
    out.extend(r.writer.finish());
    out
}

/// [MS-XCA] Plain LZ77 compression, greedy, for tests and benchmarks (the decoder is what the
/// product uses; this only has to produce valid streams, and compress ETW records about as well).
pub fn compress(input: &[u8]) -> Vec<u8> {
    const HASH_BITS: u32 = 13;
    const MAX_OFFSET: usize = 1 << 13;
    let mut out = Vec::with_capacity(input.len() / 2 + 8);
    let mut table = vec![usize::MAX; 1 << HASH_BITS];
    let mut flag_at = 0usize;
    let mut flags = 0u32;
    let mut count = 32u32;
    let mut half_byte_at: Option<usize> = None;
    let hash = |b: &[u8]| {
        let v = u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16;
        (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
    };
    let mut i = 0;
    while i < input.len() {
        if count == 32 {
            if i > 0 {
                out[flag_at..flag_at + 4].copy_from_slice(&flags.to_le_bytes());
            }
            flag_at = out.len();
            out.extend_from_slice(&[0; 4]);
            flags = 0;
            count = 0;
        }
        let mut len = 0;
        let mut offset = 0;
        if i + 3 <= input.len() {
            let h = hash(&input[i..]);
            let cand = table[h];
            table[h] = i;
            if cand != usize::MAX && i - cand <= MAX_OFFSET {
                let max = input.len() - i;
                let mut l = 0;
                while l < max && input[cand + l] == input[i + l] {
                    l += 1;
                }
                if l >= 3 {
                    len = l;
                    offset = i - cand;
                }
            }
        }
        if len == 0 {
            out.push(input[i]);
            i += 1;
        } else {
            flags |= 1 << (31 - count);
            let m = len - 3;
            let token = ((offset - 1) << 3) as u16 | m.min(7) as u16;
            out.extend_from_slice(&token.to_le_bytes());
            if m >= 7 {
                let m2 = m - 7;
                let nibble = m2.min(15) as u8;
                match half_byte_at.take() {
                    None => {
                        half_byte_at = Some(out.len());
                        out.push(nibble);
                    }
                    Some(at) => out[at] |= nibble << 4,
                }
                if m2 >= 15 {
                    let m3 = m2 - 15;
                    if m3 < 255 {
                        out.push(m3 as u8);
                    } else {
                        out.push(255);
                        if m <= 0xffff {
                            out.extend_from_slice(&(m as u16).to_le_bytes());
                        } else {
                            out.extend_from_slice(&0u16.to_le_bytes());
                            out.extend_from_slice(&(m as u32).to_le_bytes());
                        }
                    }
                }
            }
            // Index a few positions inside the match so later data finds it.
            for k in i + 1..(i + len).min(input.len().saturating_sub(2)).min(i + 8) {
                table[hash(&input[k..])] = k;
            }
            i += len;
        }
        count += 1;
    }
    if !out.is_empty() {
        out[flag_at..flag_at + 4].copy_from_slice(&flags.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etl::lz77::decompress;

    /// The payload reads back (kernel::parse_process, itself checked against the real files'
    /// names in tests/etl_model.rs) with both pointer sizes.
    #[test]
    fn process_payload_reads_back() {
        for ptr in [4u8, 8] {
            let p = process_payload(
                ptr,
                5012,
                4,
                "C:\\Apps\\Shop.Api.exe",
                "Shop.Api.exe --port 80",
            );
            let e = crate::etl::kernel::parse_process(&p, 4, ptr).unwrap();
            assert_eq!((e.process_id, e.parent_id), (5012, 4));
            assert_eq!(e.name, "Shop.Api");
            assert_eq!(e.command_line, "Shop.Api.exe --port 80");
        }
    }

    #[test]
    fn compress_round_trips() {
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut data = Vec::new();
        for round in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 4 {
                0 => data.push(x as u8),
                1 => data.extend_from_slice(&round.to_le_bytes()),
                2 => data.extend(core::iter::repeat_n(b'z', (x % 700) as usize)),
                _ => {
                    let back = (x as usize % 5000).min(data.len());
                    let start = data.len() - back;
                    let take = back.min(40);
                    let copy: Vec<u8> = data[start..start + take].to_vec();
                    data.extend_from_slice(&copy);
                }
            }
        }
        // A run long enough for the 32-bit length form too.
        data.extend(core::iter::repeat_n(7u8, 70_000));
        for input in [&data[..], &data[..1], &[][..], &data[..33]] {
            let c = compress(input);
            let mut out = Vec::new();
            assert!(decompress(&c, input.len(), &mut out).unwrap());
            assert_eq!(out, input);
        }
    }
}
