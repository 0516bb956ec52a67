//! The CTF (LTTng) reader without the .zip around it: the TSDL metadata parser and two per-CPU
//! streams merged by timestamp. Input: a u16 (LE) metadata length, the metadata (plain text or
//! packetized), a u16 length of the first stream, that stream, then the second stream. Whatever
//! the metadata declares, reading must end in an error or a result, never a panic, an endless
//! loop or memory beyond the input's few multiples.

use gcscope_core::ctf::{Decoder, ENTRY_MAGIC};

fn take<'a>(data: &mut &'a [u8]) -> &'a [u8] {
    if data.len() < 2 {
        return core::mem::take(data);
    }
    let n = (u16::from_le_bytes([data[0], data[1]]) as usize).min(data.len() - 2);
    let (a, b) = data[2..].split_at(n);
    *data = b;
    a
}

/// One execution: what the `ctf` fuzz target runs on each input.
pub fn run(input: &[u8]) {
    let mut data = input;
    let md = take(&mut data);
    let s0 = take(&mut data);
    let s1 = data;
    let mut d = Decoder::new();
    for (name, bytes) in [
        ("t/ust/uid/0/64-bit/channel0_0", s0),
        ("t/ust/uid/0/64-bit/metadata", md),
        ("t/ust/uid/0/64-bit/channel0_1", s1),
    ] {
        let mut h = ENTRY_MAGIC.to_vec();
        h.extend_from_slice(name.as_bytes());
        d.begin_entry(&h);
        let _ = d.push(bytes);
    }
    let mut last = i64::MIN;
    let _ = d.finish(&mut |_, e| {
        // Merged in time order.
        if e.provider != gcscope_core::ctf::PROCESS_NAME_PROVIDER {
            assert!(e.timestamp >= last);
            last = e.timestamp;
        }
    });
}
