//! Input formats shared by the fuzz targets and the seed writer (`examples/seeds.rs`), so seeds made
//! from real traces decode the way the targets read them, and the targets' bodies ([`targets`]).
//! Written against `super::`, not `crate::`, so core/tests/fuzz_regressions.rs can include this
//! file as a module.

pub mod targets;

use gcscope_core::clr::names::{
    EVENTPIPE_PROVIDER, PRIVATE_PROVIDER, RUNDOWN_PROVIDER, RUNTIME_PROVIDER,
};
use gcscope_core::event::{Event, TraceInfo};

/// Providers a record can name (its first byte, modulo the count).
pub const PROVIDERS: [&str; 5] = [
    RUNTIME_PROVIDER,
    PRIVATE_PROVIDER,
    RUNDOWN_PROVIDER,
    EVENTPIPE_PROVIDER,
    "Some-Other-Provider",
];

/// Bytes before a record's payload: provider, id (u16), version, pointer size, thread, time delta
/// (u16, microseconds), payload length (u16).
pub const RECORD_HEADER: usize = 10;

/// One runtime event as the payload and model targets see it.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    pub provider: &'a str,
    pub event_id: u32,
    pub version: u32,
    pub pointer_size: u8,
    pub thread: u64,
    pub delta_us: u32,
    pub payload: &'a [u8],
}

impl<'a> Record<'a> {
    pub fn event(&self, time_ms: f64) -> Event<'a> {
        Event {
            provider: self.provider,
            event_id: self.event_id,
            version: self.version,
            name: "",
            process_id: 1,
            timestamp: (time_ms * 10_000.0) as i64,
            time_ms,
            thread_id: self.thread,
            capture_thread_id: self.thread,
            sequence: 0,
            processor: 0,
            stack_id: 0,
            stack: 0,
            pointer_size: self.pointer_size,
            payload: self.payload,
            ticks: None,
        }
    }
}

/// Splits fuzz input into records; a short last record takes what is left.
pub fn records(mut data: &[u8]) -> impl Iterator<Item = Record<'_>> {
    core::iter::from_fn(move || {
        if data.len() < RECORD_HEADER {
            return None;
        }
        let h = &data[..RECORD_HEADER];
        let len = (u16::from_le_bytes([h[8], h[9]]) as usize).min(data.len() - RECORD_HEADER);
        let payload = &data[RECORD_HEADER..RECORD_HEADER + len];
        data = &data[RECORD_HEADER + len..];
        Some(Record {
            provider: PROVIDERS[h[0] as usize % PROVIDERS.len()],
            event_id: u16::from_le_bytes([h[1], h[2]]) as u32,
            version: h[3] as u32,
            // Mostly valid pointer sizes; the raw byte now and then.
            pointer_size: match h[4] {
                0..=127 => 8,
                128..=250 => 4,
                b => b,
            },
            thread: h[5] as u64,
            delta_us: u16::from_le_bytes([h[6], h[7]]) as u32,
            payload,
        })
    })
}

/// Writes a record in the format [`records`] reads (for seeds).
pub fn write_record(out: &mut Vec<u8>, ev: &Event<'_>, delta_us: u32) -> bool {
    let Some(p) = PROVIDERS.iter().position(|p| *p == ev.provider) else {
        return false;
    };
    if ev.event_id > u16::MAX as u32 || ev.version > 255 || ev.payload.len() > u16::MAX as usize {
        return false;
    }
    out.push(p as u8);
    out.extend_from_slice(&(ev.event_id as u16).to_le_bytes());
    out.push(ev.version as u8);
    out.push(if ev.pointer_size == 4 { 200 } else { 0 });
    out.push(ev.thread_id as u8);
    out.extend_from_slice(&(delta_us.min(u16::MAX as u32) as u16).to_le_bytes());
    out.extend_from_slice(&(ev.payload.len() as u16).to_le_bytes());
    out.extend_from_slice(ev.payload);
    true
}

/// Header facts for the model target.
pub fn info() -> TraceInfo {
    TraceInfo {
        format: "fuzz".into(),
        qpc_frequency: 10_000_000,
        pointer_size: 8,
        processor_count: 4,
        ..Default::default()
    }
}

/// Chunk sizes for feeding a container input: a small deterministic generator seeded by the input's
/// first two bytes, mixing 1-byte, small and large pieces.
pub struct Chunker(u32);

impl Chunker {
    pub fn new(seed: u16) -> Self {
        Chunker(seed as u32 | 1)
    }
    pub fn next_len(&mut self) -> usize {
        // xorshift32
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        match x % 8 {
            0 => 1,
            1..=3 => 1 + (x >> 8) as usize % 64,
            4..=6 => 1 + (x >> 8) as usize % 4096,
            _ => 1 + (x >> 8) as usize % 200_000,
        }
    }
}
