//! The kernel's process events (Windows Kernel/Process/Start, Stop, DCStart, DCStop, Defunct),
//! which name every process of a machine-wide trace. Payload layout by version, as TraceEvent's
//! ProcessTraceData reads it (offsets move by one or two pointers with the pointer size):
//! UniqueProcessKey (pointer, version 2+), ProcessId, ParentId, SessionId, ExitStatus,
//! DirectoryTableBase (pointer, version 3+), Flags (version 4+), the user's SID (4 zero bytes, or a
//! TOKEN_USER of two pointers followed by the SID), the image file name (8-bit, NUL-terminated)
//! and, from version 2, the command line (UTF-16, NUL-terminated).

use alloc::string::String;
use alloc::vec::Vec;

/// What a process event says about its process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessEvent {
    pub process_id: u32,
    pub parent_id: u32,
    /// The image's file name without directory or extension, as TraceEvent's process names are.
    pub name: String,
    pub command_line: String,
}

/// Reads a process event's payload; `None` when it is too short for its version.
pub fn parse_process(p: &[u8], version: u32, pointer_size: u8) -> Option<ProcessEvent> {
    if version < 1 {
        return None;
    }
    let ptr = pointer_size as usize;
    let host = |offset: usize, pointers: usize| offset + (ptr - 4) * pointers;
    let u32_at = |i: usize| Some(u32::from_le_bytes(p.get(i..i + 4)?.try_into().ok()?));
    let process_id = u32_at(host(4, 1))?;
    let parent_id = u32_at(host(8, 1))?;
    let sid_at = if version >= 4 {
        host(28, 2)
    } else if version >= 3 {
        host(24, 2)
    } else {
        host(20, 1)
    };
    let image_at = if u32_at(sid_at)? == 0 {
        sid_at + 4
    } else {
        let token = host(8, 2);
        let authorities = *p.get(sid_at + token + 1)? as usize;
        sid_at + token + 8 + 4 * authorities
    };
    let rest = p.get(image_at..)?;
    let image_len = rest.iter().position(|&b| b == 0)?;
    let image = String::from_utf8_lossy(&rest[..image_len]);
    let mut command_line = String::new();
    if version >= 2 {
        let units: Vec<u16> = rest[image_len + 1..]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&u| u != 0)
            .collect();
        command_line = String::from_utf16_lossy(&units);
    }
    Some(ProcessEvent {
        process_id,
        parent_id,
        name: short_name(&image),
        command_line,
    })
}

/// `\Device\HarddiskVolume2\Windows\System32\svchost.exe` → `svchost`.
fn short_name(path: &str) -> String {
    let file = path.rsplit('\\').next().unwrap_or(path);
    let stem = match file.rfind('.') {
        Some(i) if i > 0 => &file[..i],
        _ => file,
    };
    String::from(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version4_64bit_without_sid() {
        // key(8) pid ppid session exit dtb(8) flags, SID 0, image, command line.
        let mut p = alloc::vec![0u8; 8];
        for v in [1234u32, 99, 1, 0] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        p.extend_from_slice(&[0; 8]);
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(b"Test.x64.exe\0");
        for u in "Test.x64.exe -a".encode_utf16().chain([0]) {
            p.extend_from_slice(&u.to_le_bytes());
        }
        let e = parse_process(&p, 4, 8).unwrap();
        assert_eq!(e.process_id, 1234);
        assert_eq!(e.parent_id, 99);
        assert_eq!(e.name, "Test.x64");
        assert_eq!(e.command_line, "Test.x64.exe -a");
        assert!(parse_process(&p[..30], 4, 8).is_none());
    }
}
