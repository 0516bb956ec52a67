//! `.zip` archives, streamed front to back through the local file headers (no central directory, so no
//! seeking). The first entry named `*.nettrace` / `*.netperf` / `*.etl` is the trace. When it is an
//! `.etl`, every `.etl` entry after it, whatever its name or folder, is offered as another file of the
//! same recording (PerfView's unmerged `X.kernel.etl` and `X.clrRundown.etl`, a Diagnostics Hub
//! session's `diaghub.kernel.1.etl` and `diaghub.user_paged.1.etl`), each after an empty chunk that
//! tells the reader a new file begins; the ETL decoder reads each one's logfile header and leaves out
//! a file of another recording (`etl::Decoder::left_out`). Other entries are skipped
//! (deflated ones are inflated and discarded, since with a data descriptor their size is only known at
//! the end). Stored and deflated entries are read; data descriptors (flag bit 3) and zip64 sizes are
//! handled. CRCs are not verified: damaged deflate data is still caught by the inflater, and damaged
//! trace bytes by the decoder.
//!
//! A reader made with [`ZipReader::gcdump`] looks for heap snapshots instead: it gives out the first
//! entry named `*.gcdump` (no CTF streams, no companions) and lists the `.gcdump` entries after it.

use crate::error::{Error, ErrorKind, Result};
use crate::inflate::Inflater;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

const LOCAL_HEADER: u32 = 0x0403_4b50;
const CENTRAL_HEADER: u32 = 0x0201_4b50;
const END_OF_CENTRAL: u32 = 0x0605_4b50;
const DATA_DESCRIPTOR: u32 = 0x0807_4b50;
const LOCAL_HEADER_LEN: usize = 30;
const FLAG_ENCRYPTED: u16 = 0x0001;
const FLAG_DESCRIPTOR: u16 = 0x0008;
const METHOD_STORED: u16 = 0;
const METHOD_DEFLATE: u16 = 8;
const ZIP64_EXTRA: u16 = 0x0001;

enum State {
    /// Collecting a local file header (fixed part, name, extra).
    Header(Vec<u8>),
    Stored {
        left: u64,
        selected: bool,
    },
    Deflated {
        inf: Inflater,
        left: Option<u64>,
        selected: bool,
    },
    /// Collecting a data descriptor after an entry with flag bit 3.
    Descriptor(Vec<u8>),
    /// The central directory began (or the entries after the trace could not be read): ignore the rest.
    Done,
}

/// Which entries are the ones to read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    /// `*.nettrace` / `*.netperf` / `*.etl` (and CTF streams).
    Trace,
    /// `*.gcdump`.
    HeapSnapshot,
}

pub struct ZipReader {
    state: State,
    target: Target,
    /// Whether the entry being read had a data descriptor.
    descriptor: bool,
    found: bool,
    names: Vec<String>,
    /// Which trace entry to read (0 = the first `*.nettrace` / `*.netperf`).
    want: usize,
    /// Names of the trace entries seen so far (all of them once the archive has been read).
    traces: Vec<String>,
    /// The chosen entry is an `.etl`: later `.etl` entries are its companions.
    etl_chosen: bool,
    /// The chosen entry and its companions, in the order their bytes are given out.
    members: Vec<String>,
    /// A companion entry starts: say so (an empty chunk) before its first bytes.
    boundary_pending: bool,
    /// The entries read are those of a CTF (LTTng) trace: every `metadata` and `channel*` entry,
    /// each announced by an empty chunk and a chunk naming it ([`crate::ctf::ENTRY_MAGIC`]).
    ctf: bool,
    /// The naming chunk of the CTF entry being read, until its first bytes go out.
    ctf_header: Option<Vec<u8>>,
}

impl ZipReader {
    /// Reads the `n`-th trace entry (0-based, in archive order) instead of the first.
    pub fn with_entry(n: usize) -> Self {
        ZipReader {
            state: State::Header(Vec::new()),
            target: Target::Trace,
            descriptor: false,
            found: false,
            names: Vec::new(),
            want: n,
            traces: Vec::new(),
            etl_chosen: false,
            members: Vec::new(),
            boundary_pending: false,
            ctf: false,
            ctf_header: None,
        }
    }

    /// Reads the first `*.gcdump` entry: a heap snapshot, not a trace.
    pub fn gcdump() -> Self {
        ZipReader {
            target: Target::HeapSnapshot,
            ..Self::with_entry(0)
        }
    }

    /// Whether the entry to read was found (its bytes given out, or being given out).
    pub fn found(&self) -> bool {
        self.found
    }

    /// Every entry's name seen so far, in archive order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Names of the trace entries (for [`ZipReader::gcdump`], the `.gcdump` entries) seen so far; after the last byte, all of them (the entries after the
    /// chosen one are skipped, not decoded, to list them).
    pub fn trace_entries(&self) -> &[String] {
        &self.traces
    }

    /// The entries whose bytes were given out: the chosen one, then its `.etl` companions.
    pub fn members(&self) -> &[String] {
        &self.members
    }

    pub fn push(
        &mut self,
        data: &[u8],
        base: u64,
        out: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        let r = self.push_entries(data, base, out);
        if r.is_err() && self.found && !self.in_trace() && !self.ctf {
            // The trace is complete: damage in the entries after it only cuts the list short.
            self.state = State::Done;
            return Ok(());
        }
        r
    }

    /// Whether the chosen trace entry is being read.
    fn in_trace(&self) -> bool {
        matches!(
            self.state,
            State::Stored { selected: true, .. } | State::Deflated { selected: true, .. }
        )
    }

    fn push_entries(
        &mut self,
        mut data: &[u8],
        mut base: u64,
        out: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut skip = |_: &[u8]| -> Result<()> { Ok(()) };
        while !data.is_empty() {
            match &mut self.state {
                State::Done => return Ok(()),
                State::Header(h) => {
                    let hstart = base - h.len() as u64;
                    let need = if h.len() < LOCAL_HEADER_LEN {
                        LOCAL_HEADER_LEN
                    } else {
                        LOCAL_HEADER_LEN + le16(h, 26) as usize + le16(h, 28) as usize
                    };
                    if h.len() >= 4 {
                        let sig = le32(h, 0);
                        if sig == CENTRAL_HEADER || sig == END_OF_CENTRAL {
                            return self.end_of_entries(hstart);
                        }
                        if sig != LOCAL_HEADER {
                            return Err(Error::malformed(
                                hstart,
                                format!("zip: expected a local file header, found {sig:#010x}"),
                            ));
                        }
                    }
                    let take = (need - h.len()).min(data.len());
                    // While the signature is still unknown take at most 4 bytes, so it is checked first.
                    let take = if h.len() < 4 {
                        take.min(4 - h.len())
                    } else {
                        take
                    };
                    h.extend_from_slice(&data[..take]);
                    data = &data[take..];
                    base += take as u64;
                    if h.len() >= LOCAL_HEADER_LEN
                        && h.len() == LOCAL_HEADER_LEN + le16(h, 26) as usize + le16(h, 28) as usize
                    {
                        let h = core::mem::take(h);
                        self.start_entry(&h, hstart)?;
                    }
                }
                State::Stored { left, selected } => {
                    let take = (*left).min(data.len() as u64) as usize;
                    if *selected {
                        if self.boundary_pending {
                            self.boundary_pending = false;
                            out(&[])?;
                        }
                        if let Some(h) = self.ctf_header.take() {
                            out(&[])?;
                            out(&h)?;
                        }
                        out(&data[..take])?;
                    }
                    *left -= take as u64;
                    data = &data[take..];
                    base += take as u64;
                    if *left == 0 {
                        self.end_entry();
                    }
                }
                State::Deflated {
                    inf,
                    left,
                    selected,
                } => {
                    let avail = match left {
                        Some(l) => (*l).min(data.len() as u64) as usize,
                        None => data.len(),
                    };
                    if *selected && self.boundary_pending {
                        self.boundary_pending = false;
                        out(&[])?;
                    }
                    if *selected {
                        if let Some(h) = self.ctf_header.take() {
                            out(&[])?;
                            out(&h)?;
                        }
                    }
                    let sink: &mut dyn FnMut(&[u8]) -> Result<()> =
                        if *selected { out } else { &mut skip };
                    let (used, end) = inf.feed(&data[..avail], base, sink)?;
                    if let Some(l) = left {
                        *l -= used as u64;
                        if *l == 0 && !end {
                            return Err(Error::malformed(
                                base + used as u64,
                                "zip: deflate data ends before its stream end",
                            ));
                        }
                    }
                    data = &data[used..];
                    base += used as u64;
                    if end {
                        if let Some(l) = left {
                            // Skip what the header said beyond the deflate stream (should be nothing).
                            let extra = (*l).min(data.len() as u64) as usize;
                            data = &data[extra..];
                            base += extra as u64;
                        }
                        self.end_entry();
                    } else if used == 0 && avail > 0 {
                        return Err(Error::malformed(
                            base,
                            "zip: deflate stream makes no progress",
                        ));
                    }
                }
                State::Descriptor(d) => {
                    // Signature (optional) + CRC + sizes (4 or 8 bytes each). Decide the length once the
                    // next header's signature is visible: 12/16 bytes normally, 20/24 with zip64.
                    d.push(data[0]);
                    data = &data[1..];
                    base += 1;
                    let off = if d.len() >= 4 && le32(d, 0) == DATA_DESCRIPTOR {
                        4
                    } else {
                        0
                    };
                    for len in [off + 12, off + 20] {
                        if d.len() == len + 4 {
                            let sig = le32(d, len);
                            if sig == LOCAL_HEADER || sig == CENTRAL_HEADER || sig == END_OF_CENTRAL
                            {
                                let next = d[len..].to_vec();
                                self.state = State::Header(next);
                                break;
                            }
                        }
                    }
                    if let State::Descriptor(d) = &self.state {
                        if d.len() > off + 24 {
                            return Err(Error::malformed(base, "zip: unreadable data descriptor"));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn start_entry(&mut self, h: &[u8], hstart: u64) -> Result<()> {
        let flags = le16(h, 6);
        let method = le16(h, 8);
        let mut csize = le32(h, 18) as u64;
        let name_len = le16(h, 26) as usize;
        let name =
            String::from_utf8_lossy(&h[LOCAL_HEADER_LEN..LOCAL_HEADER_LEN + name_len]).into_owned();
        let extra = &h[LOCAL_HEADER_LEN + name_len..];
        if csize == 0xffff_ffff {
            csize = zip64_csize(extra)
                .ok_or_else(|| Error::malformed(hstart, "zip: zip64 entry without a zip64 size"))?;
        }
        let is_trace = match self.target {
            Target::Trace => is_trace_name(&name),
            Target::HeapSnapshot => is_gcdump_name(&name),
        };
        let companion = self.found && self.etl_chosen && is_trace && is_etl_name(&name);
        // A CTF trace is every `metadata` and `channel*` entry of the archive (unless a trace file
        // came first): its streams may come before their metadata, and each folder is one trace.
        let ctf = self.target == Target::Trace
            && !is_trace
            && (self.ctf || !self.found)
            && crate::ctf::is_ctf_entry(&name);
        let selected =
            ctf || companion || (is_trace && !self.found && self.traces.len() == self.want);
        // A deflated CTF entry whose compressed size is known goes out as it is stored (raw
        // deflate, tagged): the CTF reader holds every entry until the archive ends, so holding
        // them compressed bounds its memory by the archive's size, and it inflates each stream
        // a piece at a time as the merge reads it.
        let ctf_raw = ctf && method == METHOD_DEFLATE && csize > 0;
        if ctf {
            self.ctf = true;
            let mut h = crate::ctf::ENTRY_MAGIC.to_vec();
            if ctf_raw {
                h.extend_from_slice(crate::ctf::DEFLATE_TAG);
            }
            h.extend_from_slice(name.as_bytes());
            self.ctf_header = Some(h);
        } else {
            self.ctf_header = None;
        }
        if selected && !companion && !ctf {
            self.etl_chosen = is_etl_name(&name);
        }
        if selected && !ctf {
            self.members.push(name.clone());
        }
        self.boundary_pending = companion;
        // A companion is part of the chosen trace, not another one to offer.
        if is_trace && !companion {
            self.traces.push(name.clone());
        }
        self.names.push(name.clone());
        if selected && flags & FLAG_ENCRYPTED != 0 {
            return Err(Error::new(
                hstart,
                ErrorKind::Unsupported(format!("zip entry '{name}' is encrypted")),
            ));
        }
        self.found |= selected;
        self.descriptor = flags & FLAG_DESCRIPTOR != 0;
        let known = if self.descriptor && csize == 0 {
            None
        } else {
            Some(csize)
        };
        self.state = match method {
            // Entries we do not read are skipped by size when it is known (no inflating).
            _ if !selected && known.is_some_and(|l| l > 0) => State::Stored {
                left: known.unwrap_or(0),
                selected: false,
            },
            _ if ctf_raw => State::Stored {
                left: csize,
                selected: true,
            },
            METHOD_STORED => match known {
                Some(left) if left > 0 => State::Stored { left, selected },
                Some(_) => {
                    self.end_entry();
                    return Ok(());
                }
                None => {
                    return Err(Error::new(
                        hstart,
                        ErrorKind::Unsupported(format!("zip entry '{name}' is stored with its size only in a data descriptor; re-zip it")),
                    ))
                }
            },
            METHOD_DEFLATE => State::Deflated { inf: Inflater::new(), left: known, selected },
            m if selected => {
                return Err(Error::new(
                    hstart,
                    ErrorKind::Unsupported(format!("zip entry '{name}' uses compression method {m}; only stored and deflate are read")),
                ))
            }
            _ => match known {
                Some(left) if left > 0 => State::Stored { left, selected: false },
                _ => return Err(Error::new(hstart, ErrorKind::Unsupported(format!("cannot skip zip entry '{name}'")))),
            },
        };
        Ok(())
    }

    fn end_entry(&mut self) {
        // After the trace entry the rest is still walked (cheaply) to list the other trace entries.
        self.state = if self.descriptor {
            State::Descriptor(Vec::new())
        } else {
            State::Header(Vec::new())
        };
    }

    fn end_of_entries(&mut self, at: u64) -> Result<()> {
        self.state = State::Done;
        if self.found {
            return Ok(());
        }
        Err(Error::new(
            at,
            ErrorKind::NotATrace(self.no_trace_message()),
        ))
    }

    fn no_trace_message(&self) -> String {
        if self.target == Target::HeapSnapshot {
            return self.no_gcdump_message();
        }
        if !self.traces.is_empty() {
            return format!(
                "the .zip holds {} trace(s) ({}); there is no trace number {}",
                self.traces.len(),
                self.traces.join(", "),
                self.want + 1
            );
        }
        if self.names.is_empty() {
            return "a .zip archive with no entries".to_string();
        }
        let base = |n: &String| n.rsplit('/').next().unwrap_or(n).to_ascii_lowercase();
        if self.names.iter().any(|n| base(n).starts_with("perf.data")) {
            return "a perfcollect .zip with only perf's CPU samples (perf.data) and no LTTng \
                    trace, so no .NET runtime events: run perfcollect with -gccollectonly (or \
                    with LTTng installed and DOTNET_EnableEventLog=1 set for the process), or \
                    capture with dotnet-trace (dotnet-trace collect --profile gc-collect)"
                .to_string();
        }
        if self.names.iter().any(|n| base(n).ends_with(".gcdump")) {
            // The words of `HEAP_SNAPSHOT_MESSAGE`, which the page looks for to open the file in
            // its heap worker (that unwraps the .zip).
            return "a .gcdump heap snapshot (FastSerialization type 'GCHeapDump') in a .zip: it \
                    holds the heap's objects, not GC events; open it in the tab (its Heap tab) or \
                    read it with `gcscope heap` on the command line"
                .to_string();
        }
        format!(
            "a .zip archive without a .nettrace, .netperf or .etl entry (it holds: {})",
            self.listed_names()
        )
    }

    /// A .zip without a `.gcdump` entry (what it holds instead, the first few names).
    fn no_gcdump_message(&self) -> String {
        if self.names.is_empty() {
            return "a .zip archive with no entries".to_string();
        }
        format!(
            "a .zip archive without a .gcdump heap snapshot or a trace (.nettrace, .netperf, \
             .etl) in it (it holds: {})",
            self.listed_names()
        )
    }

    /// The first entries' names, for messages.
    fn listed_names(&self) -> String {
        const SHOWN: usize = 10;
        let mut list = self.names[..self.names.len().min(SHOWN)].join(", ");
        if self.names.len() > SHOWN {
            list.push_str(&format!(" and {} more", self.names.len() - SHOWN));
        }
        list
    }

    pub fn finish(&mut self, end: u64) -> Result<()> {
        match &self.state {
            State::Done => Ok(()),
            State::Stored { selected: true, .. } | State::Deflated { selected: true, .. } => {
                Err(Error::truncated(
                    end,
                    match self.target {
                        Target::Trace => "compressed trace inside the .zip",
                        Target::HeapSnapshot => "the .gcdump entry of the .zip",
                    },
                ))
            }
            _ if self.found => Ok(()),
            State::Header(h)
                if h.is_empty()
                    || (h.len() >= 4 && matches!(le32(h, 0), CENTRAL_HEADER | END_OF_CENTRAL)) =>
            {
                Err(Error::new(
                    end,
                    ErrorKind::NotATrace(self.no_trace_message()),
                ))
            }
            _ => Err(Error::truncated(end, "zip archive")),
        }
    }
}

/// `*.etl`, any case.
fn is_etl_name(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".etl")
}

/// `*.gcdump`, any case, except macOS resource-fork twins.
fn is_gcdump_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let base = lower.rsplit('/').next().unwrap_or(&lower);
    base.ends_with(".gcdump") && !base.starts_with("._") && !lower.starts_with("__macosx/")
}

/// `*.nettrace` / `*.netperf` / `*.etl`, except macOS resource-fork twins (`__MACOSX/._x.nettrace`).
pub(super) fn is_trace_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let base = lower.rsplit('/').next().unwrap_or(&lower);
    (base.ends_with(".nettrace") || base.ends_with(".netperf") || base.ends_with(".etl"))
        && !base.starts_with("._")
        && !lower.starts_with("__macosx/")
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Compressed size from a zip64 extended-information extra field (uncompressed size comes first).
fn zip64_csize(mut extra: &[u8]) -> Option<u64> {
    while extra.len() >= 4 {
        let id = le16(extra, 0);
        let len = le16(extra, 2) as usize;
        let body = extra.get(4..4 + len)?;
        if id == ZIP64_EXTRA && body.len() >= 16 {
            return Some(u64::from_le_bytes(body[8..16].try_into().ok()?));
        }
        extra = &extra[4 + len..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::is_trace_name;

    #[test]
    fn trace_entries_are_chosen_by_name() {
        assert!(is_trace_name("trace.nettrace"));
        assert!(is_trace_name("dir/App.NETPERF"));
        assert!(!is_trace_name("__MACOSX/._trace.nettrace"));
        assert!(!is_trace_name("dir/._trace.nettrace"));
        assert!(!is_trace_name("trace.nettrace.txt"));
        assert!(!is_trace_name("nettrace/"));
    }
}
