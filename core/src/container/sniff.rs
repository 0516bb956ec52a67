//! Content sniffing: decide from the first bytes whether this is a trace, a zip, a gzip, or something else.

use crate::error::{Error, ErrorKind, Result};
use alloc::format;
use alloc::string::{String, ToString};

/// `Nettrace` magic of V4+ files.
pub const NETTRACE_MAGIC: &[u8; 8] = b"Nettrace";
/// The FastSerialization stream header of V1-V5 files: u32 length 20, then the text.
pub const FAST_SERIALIZATION: &[u8; 24] = b"\x14\x00\x00\x00!FastSerialization.1";
const ZIP_LOCAL: &[u8; 4] = b"PK\x03\x04";
const ZIP_EMPTY: &[u8; 4] = b"PK\x05\x06";
const GZIP: &[u8; 2] = b"\x1f\x8b";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A raw trace stream: nettrace / netperf, or an ETW .etl file.
    Trace,
    /// A `.gcdump` heap snapshot: not an event trace; [`crate::heap::Snapshot::read`] reads it.
    HeapSnapshot,
    Zip,
    Gzip,
}

/// `Ok(None)` means "need more bytes" (only when `eof` is false).
pub fn sniff(head: &[u8], eof: bool) -> Result<Option<Kind>> {
    if head.starts_with(GZIP) {
        return Ok(Some(Kind::Gzip));
    }
    if head.len() >= 4 && &head[..4] == ZIP_LOCAL {
        return Ok(Some(Kind::Zip));
    }
    if head.len() >= 4 && &head[..4] == ZIP_EMPTY {
        return Err(not_a_trace("an empty .zip archive"));
    }
    if head.starts_with(&FAST_SERIALIZATION[..8]) {
        match crate::heap::looks_like_gcdump(head) {
            Some(true) => return Ok(Some(Kind::HeapSnapshot)),
            None if !eof => return Ok(None),
            _ => {}
        }
    }
    if head.starts_with(NETTRACE_MAGIC)
        || head.starts_with(&FAST_SERIALIZATION[..8])
        || crate::etl::looks_like_etl(head)
    {
        return Ok(Some(Kind::Trace));
    }
    // Still a possible prefix of a magic we know: wait for more.
    let maybe = [
        &NETTRACE_MAGIC[..],
        &FAST_SERIALIZATION[..8],
        &ZIP_LOCAL[..],
        &ZIP_EMPTY[..],
        &GZIP[..],
    ]
    .iter()
    .any(|m| m.len() > head.len() && m.starts_with(head));
    if !eof && (maybe || head.len() < super::DESCRIBE_BYTES) {
        return Ok(None);
    }
    Err(not_a_trace(&describe(head)))
}

fn not_a_trace(what: &str) -> Error {
    Error::new(0, ErrorKind::NotATrace(what.to_string()))
}

/// A short guess at what a non-trace input is, for error messages.
pub fn describe(head: &[u8]) -> String {
    let starts = |m: &[u8]| head.starts_with(m);
    let what: &str = if head.is_empty() {
        "the file is empty"
    } else if starts(b"\x89PNG") {
        "looks like a PNG image"
    } else if starts(b"\xff\xd8\xff") {
        "looks like a JPEG image"
    } else if starts(b"GIF8") {
        "looks like a GIF image"
    } else if starts(b"%PDF") {
        "looks like a PDF document"
    } else if starts(b"\x7fELF") {
        "looks like an ELF executable"
    } else if starts(b"MZ") {
        "looks like a Windows executable or DLL"
    } else if starts(b"BZh") {
        "looks like a bzip2 archive (unpack it first)"
    } else if starts(b"\xfd7zXZ\x00") {
        "looks like an xz archive (unpack it first)"
    } else if starts(b"\x28\xb5\x2f\xfd") {
        "looks like a zstd archive (unpack it first)"
    } else if starts(b"7z\xbc\xaf\x27\x1c") {
        "looks like a 7-Zip archive (unpack it first)"
    } else if starts(b"Rar!") {
        "looks like a RAR archive (unpack it first)"
    } else if starts(b"\xd0\xcf\x11\xe0") {
        "looks like an OLE/Office document"
    } else if starts(b"\x00\x00\x00\x00") && head.len() >= 8 {
        "starts with zero bytes (an empty or corrupted file?)"
    } else {
        let text = head.iter().take(64).all(|&b| {
            b == b'\t' || b == b'\n' || b == b'\r' || (0x20..0x7f).contains(&b) || b >= 0x80
        });
        let first = head
            .iter()
            .copied()
            .find(|b| !b.is_ascii_whitespace() && *b != 0xef && *b != 0xbb && *b != 0xbf);
        let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
        if text && matches!(first, Some(b'{') | Some(b'[')) && has(b"speedscope") {
            "looks like a speedscope profile (JSON, e.g. from dotnet-trace --format speedscope): \
             it holds CPU stacks only, no GC events; open the .nettrace it was made from"
        } else if text && matches!(first, Some(b'{') | Some(b'[')) && has(b"traceEvents") {
            "looks like a Chrome trace (JSON, e.g. from dotnet-trace --format chromium), which has \
             no GC events; open the .nettrace it was made from"
        } else if text && matches!(first, Some(b'{') | Some(b'[')) {
            "looks like JSON text, not a trace; open the .nettrace file itself"
        } else if text && first == Some(b'<') {
            "looks like XML or HTML text"
        } else if text {
            "looks like plain text"
        } else {
            return format!(
                "unrecognised content (first bytes {:02x?})",
                &head[..head.len().min(8)]
            );
        }
    };
    what.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_traces_and_archives() {
        assert_eq!(
            sniff(b"Nettrace\x14\x00", false).unwrap(),
            Some(Kind::Trace)
        );
        // A FastSerialization header alone: a trace or a heap snapshot, told by the first object.
        assert_eq!(sniff(&FAST_SERIALIZATION[..], false).unwrap(), None);
        assert_eq!(
            sniff(&FAST_SERIALIZATION[..], true).unwrap(),
            Some(Kind::Trace)
        );
        let mut netperf = FAST_SERIALIZATION.to_vec();
        netperf.extend_from_slice(&[4, 4, 1, 4, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0]);
        netperf.extend_from_slice(b"Trace");
        netperf.extend_from_slice(&[6; 8]);
        assert_eq!(sniff(&netperf, false).unwrap(), Some(Kind::Trace));
        assert_eq!(sniff(b"PK\x03\x04rest", false).unwrap(), Some(Kind::Zip));
        assert_eq!(sniff(b"\x1f\x8b\x08", false).unwrap(), Some(Kind::Gzip));
        assert_eq!(sniff(b"Nett", false).unwrap(), None);
        // A heap snapshot: the header, then an object of type GCHeapDump.
        let mut gcdump = FAST_SERIALIZATION.to_vec();
        gcdump.extend_from_slice(&[4, 4, 1, 10, 0, 0, 0, 8, 0, 0, 0, 10, 0, 0, 0]);
        assert_eq!(
            sniff(&gcdump, false).unwrap(),
            None,
            "the type name is still to come"
        );
        gcdump.extend_from_slice(b"GCHeapDump");
        assert_eq!(sniff(&gcdump, false).unwrap(), Some(Kind::HeapSnapshot));
    }

    #[test]
    fn describes_what_is_not_a_trace() {
        let e = sniff(b"\x89PNG\r\n\x1a\n", true).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::NotATrace(ref s) if s.contains("PNG")));
        let e = sniff(b"  {\"a\": 1}", true).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::NotATrace(ref s) if s.contains("JSON")));
        // ETW files are traces now (the format is told apart by the reader).
        let mut etl = [0u8; 96];
        etl[74] = 2;
        etl[75] = 0xc0;
        assert_eq!(sniff(&etl, false).unwrap(), Some(Kind::Trace));
        let e = sniff(b"", true).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::NotATrace(ref s) if s.contains("empty")));
    }
}
