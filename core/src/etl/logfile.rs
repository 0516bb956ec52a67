//! TRACE_LOGFILE_HEADER: the payload of the first record of an .etl file (a SYSTEM record with
//! HookId 0, "Windows Kernel/EventTrace"; docs/reference/formats.md, "The logfile header"). It
//! holds the buffer size, processor count, log file mode (compressed or not), pointer size, lost
//! events and buffers, QPC frequency, start time and clock type.

use crate::error::{Error, Result};
use alloc::string::String;

/// EVENT_TRACE_COMPRESSED_MODE: the buffers after the first are Plain LZ77 streams.
pub const COMPRESSED_MODE: u32 = 0x0400_0000;

/// The logfile header's fields gcscope uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LogfileHeader {
    pub buffer_size: u32,
    pub processor_count: u32,
    pub log_file_mode: u32,
    pub pointer_size: u32,
    pub events_lost: u32,
    pub buffers_lost: u32,
    /// Ticks per second of the timestamps (QPC), before the clock-type correction.
    pub perf_freq: i64,
    /// Wall-clock start, as a Windows FILETIME (100 ns since 1601-01-01 UTC).
    pub start_time: i64,
    /// Wall-clock end (FILETIME), 0 when the logger did not fill it in.
    pub end_time: i64,
    /// When the machine booted (FILETIME): files of one recording share it.
    pub boot_time: i64,
    /// 1 QPC, 2 system time (then timestamps are 100 ns units), 3 CPU cycles.
    pub clock_type: u32,
}

impl LogfileHeader {
    /// Parses the payload (`p`, at stream offset `at`). The layout has two pointers (logger and file
    /// name) before the time-zone block, so the fields after it move with the pointer size.
    pub fn parse(p: &[u8], at: u64) -> Result<LogfileHeader> {
        let need = |n: usize| {
            if p.len() < n {
                Err(Error::malformed(
                    at,
                    alloc::format!(
                        "ETL logfile header of {} bytes (at least {n} expected)",
                        p.len()
                    ),
                ))
            } else {
                Ok(())
            }
        };
        need(56)?;
        let u32_at = |i: usize| u32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
        let i64_at = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&p[i..i + 8]);
            i64::from_le_bytes(b)
        };
        let pointer_size = u32_at(44);
        if pointer_size != 4 && pointer_size != 8 {
            return Err(Error::malformed(
                at + 44,
                alloc::format!("ETL logfile header: pointer size {pointer_size} (4 or 8 expected)"),
            ));
        }
        // Two name pointers and TIME_ZONE_INFORMATION (172 bytes), then 8-aligned LARGE_INTEGERs.
        let after_tz = 56 + 2 * pointer_size as usize + 172;
        let boot = (after_tz + 7) & !7;
        need(boot + 32)?;
        Ok(LogfileHeader {
            buffer_size: u32_at(0),
            processor_count: u32_at(12),
            log_file_mode: u32_at(32),
            pointer_size,
            events_lost: u32_at(48),
            perf_freq: i64_at(boot + 8),
            start_time: i64_at(boot + 16),
            end_time: i64_at(16),
            boot_time: i64_at(boot),
            clock_type: u32_at(boot + 24),
            buffers_lost: u32_at(boot + 28),
        })
    }

    /// Ticks per second of the event timestamps: system-time clocks tick in 100 ns whatever
    /// PerfFreq says (TraceEvent does the same).
    pub fn ticks_per_second(&self) -> i64 {
        if self.clock_type == 2 || self.perf_freq <= 0 {
            10_000_000
        } else {
            self.perf_freq
        }
    }

    /// Why a file with this header cannot be another file of the recording `self` heads (a
    /// companion in a .zip, such as a Diagnostics Hub session's kernel and user files), or None when
    /// it can: the same machine boot, clock and CPU count, and overlapping wall-clock spans (an end
    /// time of 0 is unknown and overlaps anything). Names are not evidence: collectors name their
    /// files freely.
    pub fn other_recording(&self, other: &LogfileHeader) -> Option<String> {
        if self.boot_time != other.boot_time {
            return Some(alloc::format!(
                "it comes from another boot of the machine (boot time {} against {})",
                other.boot_time,
                self.boot_time
            ));
        }
        if self.ticks_per_second() != other.ticks_per_second()
            || self.clock_type != other.clock_type
        {
            return Some(String::from("its clock differs from the first file's"));
        }
        if self.processor_count != other.processor_count || self.pointer_size != other.pointer_size
        {
            return Some(String::from(
                "it was recorded on a machine with other CPUs than the first file's",
            ));
        }
        let overlaps =
            |a: &LogfileHeader, b: &LogfileHeader| a.end_time == 0 || a.end_time >= b.start_time;
        if !(overlaps(self, other) && overlaps(other, self)) {
            return Some(String::from(
                "its recording does not overlap the first file's in time",
            ));
        }
        None
    }

    /// The start time as (year, month, day, hour, minute, second, millisecond), UTC.
    pub fn start_utc(&self) -> [u16; 7] {
        filetime_to_civil(self.start_time)
    }
}

/// FILETIME (100 ns since 1601-01-01) to a civil UTC date and time (11,644,473,600 s separate
/// 1601-01-01 from the Unix epoch).
fn filetime_to_civil(ft: i64) -> [u16; 7] {
    if ft <= 0 {
        return [0; 7];
    }
    crate::event::civil_utc(ft / 10_000 - 11_644_473_600_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filetime_dates() {
        // 1970-01-01 00:00:00 is FILETIME 116444736000000000.
        assert_eq!(
            filetime_to_civil(116_444_736_000_000_000),
            [1970, 1, 1, 0, 0, 0, 0]
        );
        // gcevents.etl's StartTime; TraceEvent prints 23/03/14 00:46:36.69...
        assert_eq!(
            filetime_to_civil(133_232_283_966_946_549),
            [2023, 3, 14, 0, 46, 36, 694]
        );
    }
}
