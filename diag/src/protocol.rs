//! The diagnostics IPC's messages as bytes: the 20-byte header, the commands this client sends and
//! the replies it reads (docs/reference/formats.md, "Diagnostics IPC"). Pure functions over byte
//! slices, so every layout is tested without a runtime.

/// The header's magic: `DOTNET_IPC_V1` and its terminating NUL (14 bytes).
pub const MAGIC: &[u8; 14] = b"DOTNET_IPC_V1\0";
/// Magic, u16 size, u8 command set, u8 command id, u16 reserved.
pub const HEADER_LEN: usize = 20;

pub const SET_EVENTPIPE: u8 = 0x02;
pub const SET_PROCESS: u8 = 0x04;
pub const SET_SERVER: u8 = 0xFF;

pub const EVENTPIPE_STOP: u8 = 0x01;
pub const EVENTPIPE_COLLECT2: u8 = 0x03;
pub const EVENTPIPE_COLLECT3: u8 = 0x04;

pub const PROCESS_INFO: u8 = 0x00;
pub const PROCESS_INFO2: u8 = 0x04;
/// ResumeRuntime: a runtime suspended at startup (a `suspend` diagnostic port) goes on.
pub const PROCESS_RESUME: u8 = 0x01;

/// What a runtime writes first on each connection it opens to a tool (reverse connect): the
/// magic `ADVR_V1` and its NUL, the runtime instance's cookie (16 bytes), its pid (u64) and two
/// reserved bytes.
pub const ADVERTISE_MAGIC: &[u8; 8] = b"ADVR_V1\0";
pub const ADVERTISE_LEN: usize = 34;

/// A runtime's advertise message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advertise {
    /// The runtime instance's cookie, as hex (as [`ProcessInfo::cookie`]).
    pub cookie: String,
    pub pid: u64,
}

/// Reads an advertise message.
pub fn parse_advertise(b: &[u8; ADVERTISE_LEN]) -> Result<Advertise, String> {
    if &b[..8] != ADVERTISE_MAGIC {
        return Err("the runtime's connection does not start with the ADVR_V1 magic".into());
    }
    let mut c = Cursor::new(&b[8..]);
    let cookie = c
        .bytes(16, "runtime cookie")?
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let pid = c.u64("process id")?;
    Ok(Advertise { cookie, pid })
}

/// Reply ids (command set [`SET_SERVER`]).
pub const REPLY_OK: u8 = 0x00;
pub const REPLY_ERROR: u8 = 0xFF;

/// The runtime's error codes (an HRESULT in an error reply's payload).
pub const E_BAD_ENCODING: u32 = 0x8013_1384;
pub const E_UNKNOWN_COMMAND: u32 = 0x8013_1385;
pub const E_UNKNOWN_MAGIC: u32 = 0x8013_1386;
pub const E_NOT_SUPPORTED: u32 = 0x8013_1515;

/// EventPipe's serialization format for NetTrace (0 is the old NetPerf).
pub const FORMAT_NETTRACE: u32 = 1;

/// A message: header and payload, ready to write. `None` when the payload does not fit the
/// header's u16 size.
pub fn message(set: u8, id: u8, payload: &[u8]) -> Option<Vec<u8>> {
    let size = u16::try_from(HEADER_LEN + payload.len()).ok()?;
    let mut m = Vec::with_capacity(size as usize);
    m.extend_from_slice(MAGIC);
    m.extend_from_slice(&size.to_le_bytes());
    m.push(set);
    m.push(id);
    m.extend_from_slice(&0u16.to_le_bytes());
    m.extend_from_slice(payload);
    Some(m)
}

/// A reply's header: command set, id and the payload's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub set: u8,
    pub id: u8,
    pub payload_len: usize,
}

/// Reads a 20-byte header; `Err` says what is wrong with it.
pub fn parse_header(b: &[u8; HEADER_LEN]) -> Result<Header, String> {
    if &b[..14] != MAGIC {
        return Err("the reply does not start with the DOTNET_IPC_V1 magic".into());
    }
    let size = u16::from_le_bytes([b[14], b[15]]) as usize;
    let payload_len = size
        .checked_sub(HEADER_LEN)
        .ok_or_else(|| format!("the reply's size {size} is smaller than its header"))?;
    Ok(Header {
        set: b[16],
        id: b[17],
        payload_len,
    })
}

/// A string as the protocol writes it: u32 count of UTF-16 units including a terminating NUL, then
/// the units little-endian; the empty string is a count of 0 and nothing else.
pub fn put_string(out: &mut Vec<u8>, s: &str) {
    if s.is_empty() {
        out.extend_from_slice(&0u32.to_le_bytes());
        return;
    }
    let units: Vec<u16> = s.encode_utf16().chain(std::iter::once(0)).collect();
    out.extend_from_slice(&(units.len() as u32).to_le_bytes());
    for u in units {
        out.extend_from_slice(&u.to_le_bytes());
    }
}

/// A bounds-checked reader over a reply's payload.
pub struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Cursor { b, at: 0 }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len());
        let end = end.ok_or_else(|| {
            format!(
                "the reply ends inside its {what} (byte {} of {})",
                self.at,
                self.b.len()
            )
        })?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, String> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    pub fn u64(&mut self, what: &str) -> Result<u64, String> {
        let s = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(u64::from_le_bytes(a))
    }

    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        self.take(n, what)
    }

    /// A protocol string (see [`put_string`]); a missing NUL is tolerated, invalid UTF-16 replaced.
    pub fn string(&mut self, what: &str) -> Result<String, String> {
        let n = self.u32(what)? as usize;
        let raw = self.take(n.checked_mul(2).ok_or("string length overflows")?, what)?;
        let mut units: Vec<u16> = raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        if units.last() == Some(&0) {
            units.pop();
        }
        Ok(String::from_utf16_lossy(&units))
    }
}

/// One provider of a session: keywords, level (0-5), name and filter arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provider {
    pub name: String,
    pub keywords: u64,
    pub level: u32,
    pub filter: String,
}

/// What a session asks for; which CollectTracing version carries it is [`collect_payload`]'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionConfig {
    pub buffer_mb: u32,
    pub rundown: bool,
    /// Stacks with each event. CollectTracing2 has no field for it (the runtime always walks).
    pub stacks: bool,
    pub providers: Vec<Provider>,
}

/// The payload of CollectTracing `version` (2 or 3): u32 buffer MB, u32 format, bool rundown,
/// (3: bool stackwalk), u32 provider count, per provider u64 keywords, u32 level, string name,
/// string filter.
pub fn collect_payload(c: &SessionConfig, version: u8) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&c.buffer_mb.to_le_bytes());
    p.extend_from_slice(&FORMAT_NETTRACE.to_le_bytes());
    p.push(c.rundown as u8);
    if version >= 3 {
        p.push(c.stacks as u8);
    }
    p.extend_from_slice(&(c.providers.len() as u32).to_le_bytes());
    for pr in &c.providers {
        p.extend_from_slice(&pr.keywords.to_le_bytes());
        p.extend_from_slice(&pr.level.to_le_bytes());
        put_string(&mut p, &pr.name);
        put_string(&mut p, &pr.filter);
    }
    p
}

/// What ProcessInfo (and ProcessInfo2's two more strings) says of a process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessInfo {
    /// The pid as the runtime sees it (inside a container, its namespace's pid).
    pub pid: u64,
    /// The runtime instance's cookie (a GUID), as hex.
    pub cookie: String,
    pub command_line: String,
    pub os: String,
    pub arch: String,
    /// ProcessInfo2 only: the entry assembly's name.
    pub entry_assembly: Option<String>,
    /// ProcessInfo2 only: the runtime's product version (e.g. `8.0.30+...`).
    pub runtime_version: Option<String>,
}

/// Reads a ProcessInfo (`v2 == false`) or ProcessInfo2 reply's payload.
pub fn parse_process_info(payload: &[u8], v2: bool) -> Result<ProcessInfo, String> {
    let mut c = Cursor::new(payload);
    let pid = c.u64("process id")?;
    let cookie = c
        .bytes(16, "runtime cookie")?
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let command_line = c.string("command line")?;
    let os = c.string("OS")?;
    let arch = c.string("architecture")?;
    let (entry_assembly, runtime_version) = if v2 {
        (
            Some(c.string("entry assembly")?),
            Some(c.string("runtime version")?),
        )
    } else {
        (None, None)
    };
    Ok(ProcessInfo {
        pid,
        cookie,
        command_line,
        os,
        arch,
        entry_assembly,
        runtime_version,
    })
}

/// The name of an error code, for messages.
pub fn error_name(code: u32) -> &'static str {
    match code {
        E_BAD_ENCODING => "BAD_ENCODING",
        E_UNKNOWN_COMMAND => "UNKNOWN_COMMAND",
        E_UNKNOWN_MAGIC => "UNKNOWN_MAGIC",
        E_NOT_SUPPORTED => "NOT_SUPPORTED",
        0x8000_4005 => "E_FAIL",
        _ => "an error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_bytes_by_hand() {
        let m = message(SET_EVENTPIPE, EVENTPIPE_STOP, &7u64.to_le_bytes()).unwrap();
        let mut want = b"DOTNET_IPC_V1\0".to_vec();
        want.extend_from_slice(&[28, 0, 2, 1, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(m, want);
        let h: [u8; 20] = m[..20].try_into().unwrap();
        assert_eq!(
            parse_header(&h),
            Ok(Header {
                set: 2,
                id: 1,
                payload_len: 8
            })
        );
        assert!(message(2, 3, &vec![0; 70_000]).is_none());
    }

    #[test]
    fn bad_headers_are_errors() {
        let mut h = [0u8; 20];
        assert!(parse_header(&h).is_err());
        h[..14].copy_from_slice(MAGIC);
        h[14] = 4; // size 4 < 20
        assert!(parse_header(&h).is_err());
    }

    #[test]
    fn strings_count_utf16_units_with_the_nul() {
        let mut out = Vec::new();
        put_string(&mut out, "Ab");
        assert_eq!(out, [3, 0, 0, 0, b'A', 0, b'b', 0, 0, 0]);
        let mut empty = Vec::new();
        put_string(&mut empty, "");
        assert_eq!(empty, [0, 0, 0, 0]);
        let mut c = Cursor::new(&out);
        assert_eq!(c.string("s").unwrap(), "Ab");
        assert!(Cursor::new(&[9, 0, 0, 0, 1]).string("s").is_err());
    }

    #[test]
    fn collect_payload_layouts() {
        let c = SessionConfig {
            buffer_mb: 256,
            rundown: false,
            stacks: true,
            providers: vec![Provider {
                name: "P".into(),
                keywords: 1,
                level: 4,
                filter: String::new(),
            }],
        };
        let v2 = collect_payload(&c, 2);
        let mut want = vec![0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0];
        want.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0]);
        want.extend_from_slice(&[2, 0, 0, 0, b'P', 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(v2, want);
        let v3 = collect_payload(&c, 3);
        assert_eq!(v3.len(), v2.len() + 1);
        assert_eq!(&v3[..10], &[0, 1, 0, 0, 1, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn advertise_from_raw_bytes() {
        let mut b = [0u8; ADVERTISE_LEN];
        b[..8].copy_from_slice(b"ADVR_V1\0");
        b[8..24].copy_from_slice(&[0x5a; 16]);
        b[24..32].copy_from_slice(&4242u64.to_le_bytes());
        let a = parse_advertise(&b).unwrap();
        assert_eq!((a.pid, a.cookie.as_str()), (4242, "5a".repeat(16).as_str()));
        b[0] = b'X';
        assert!(parse_advertise(&b).is_err());
    }

    #[test]
    fn process_info_from_raw_bytes() {
        let mut p = 4242u64.to_le_bytes().to_vec();
        p.extend_from_slice(&[0xab; 16]);
        for s in ["app --x", "Linux", "x64", "app", "8.0.30"] {
            put_string(&mut p, s);
        }
        let i = parse_process_info(&p, true).unwrap();
        assert_eq!(i.pid, 4242);
        assert_eq!(i.cookie, "ab".repeat(16));
        assert_eq!(i.command_line, "app --x");
        assert_eq!(i.runtime_version.as_deref(), Some("8.0.30"));
        let v1 = parse_process_info(&p, false).unwrap();
        assert_eq!(v1.arch, "x64");
        assert!(parse_process_info(&p[..30], false).is_err());
    }
}
