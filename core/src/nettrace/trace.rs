//! The Trace object (V1-V5) and the V6 TraceBlock: clock, pointer size, process facts.

use crate::bytes::Cursor;
use crate::error::{Error, Result};
use crate::event::TraceInfo;
use alloc::format;
use alloc::string::String;

/// Body size of the V3+ Trace object (no size prefix, no padding).
pub const TRACE_BODY_LEN: usize = 48;
/// V1/V2: a forward reference (i32) then SYSTEMTIME + QPC + frequency; pointer size is implied.
pub const TRACE_BODY_LEN_V1V2: usize = 36;

fn systemtime(c: &mut Cursor<'_>) -> Result<[u16; 7]> {
    let mut t = [0i16; 8];
    for v in &mut t {
        *v = c.i16("SYSTEMTIME")?;
    }
    // Year, Month, (DayOfWeek dropped), Day, Hour, Minute, Second, Milliseconds.
    Ok([
        t[0] as u16,
        t[1] as u16,
        t[3] as u16,
        t[4] as u16,
        t[5] as u16,
        t[6] as u16,
        t[7] as u16,
    ])
}

fn check_pointer_size(at: u64, p: i32) -> Result<u8> {
    match p {
        4 | 8 => Ok(p as u8),
        _ => Err(Error::malformed(
            at,
            format!("pointer size {p} (expected 4 or 8)"),
        )),
    }
}

/// Parses the Trace object body of format `version` (1-5).
pub fn read_trace_object(c: &mut Cursor<'_>, version: u32) -> Result<TraceInfo> {
    let mut info = TraceInfo {
        format: format_name(version),
        ..Default::default()
    };
    if version < 3 {
        let _forward_reference = c.i32("forward reference")?;
    }
    info.sync_time_utc = systemtime(c)?;
    info.sync_time_qpc = c.i64("sync time QPC")?;
    let at = c.offset();
    info.qpc_frequency = c.i64("QPC frequency")?;
    if info.qpc_frequency <= 0 {
        return Err(Error::malformed(
            at,
            format!("clock frequency {} is not positive", info.qpc_frequency),
        ));
    }
    if version >= 3 {
        let at = c.offset();
        info.pointer_size = check_pointer_size(at, c.i32("pointer size")?)?;
        info.process_id = c.u32("process id")?;
        info.processor_count = c.u32("processor count")?;
        info.expected_cpu_sampling_rate = c.u32("expected CPU sampling rate")?;
    } else {
        // .NET Core 2.0 only ran EventPipe on 64-bit Linux.
        info.pointer_size = 8;
        info.processor_count = 1;
    }
    Ok(info)
}

pub fn format_name(version: u32) -> String {
    match version {
        0..=3 => format!("netperf-v{version}"),
        v => format!("nettrace-v{v}"),
    }
}

/// V6 TraceBlock: SYSTEMTIME, i64 sync ticks, i64 frequency, i32 pointer size, then key/value strings.
pub fn read_trace_block_v6(c: &mut Cursor<'_>) -> Result<TraceInfo> {
    let mut info = TraceInfo {
        format: format_name(6),
        ..Default::default()
    };
    info.sync_time_utc = systemtime(c)?;
    info.sync_time_qpc = c.i64("sync time")?;
    let at = c.offset();
    info.qpc_frequency = c.i64("tick frequency")?;
    if info.qpc_frequency <= 0 {
        return Err(Error::malformed(
            at,
            format!("clock frequency {} is not positive", info.qpc_frequency),
        ));
    }
    let at = c.offset();
    info.pointer_size = check_pointer_size(at, c.i32("pointer size")?)?;
    let at = c.offset();
    let count = c.i32("key/value count")?;
    if count < 0 {
        return Err(Error::malformed(at, "negative key/value count"));
    }
    for _ in 0..count {
        let key = c.var_utf8("key")?;
        let value = c.var_utf8("value")?;
        let num = value.trim().parse::<u32>().ok();
        match (key.as_str(), num) {
            ("ProcessId", Some(v)) => info.process_id = v,
            ("HardwareThreadCount", Some(v)) => info.processor_count = v,
            ("ExpectedCPUSamplingRate", Some(v)) => info.expected_cpu_sampling_rate = v,
            _ => {}
        }
    }
    Ok(info)
}
