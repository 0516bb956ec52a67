//! The .zip entries of a CTF trace as the container hands them over: which entries belong to a
//! trace and which are passed over (the kernel trace's), and their bytes, held as stored (raw
//! deflate data where the .zip deflated them) until the archive ends.

use super::window::Source;
use super::{DEFLATE_TAG, ENTRY_MAGIC};
use crate::error::{Error, ErrorKind, Result};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub(super) struct Entry {
    pub(super) path: String,
    /// As given: the entry's contents, or its raw deflate data when `deflated`.
    pub(super) bytes: Vec<u8>,
    pub(super) deflated: bool,
    /// A kernel trace's entry: never read (it holds no runtime event), so not kept.
    pub(super) skipped: bool,
}

impl Entry {
    pub(super) fn source(&self) -> Source<'_> {
        if self.deflated {
            Source::Deflate(&self.bytes)
        } else {
            Source::Plain(&self.bytes)
        }
    }
}

/// A kernel trace's entry (a `kernel` folder of an LTTng session, outside any `ust` folder).
pub(super) fn is_kernel_entry(path: &str) -> bool {
    let (dir, _) = split_path(path);
    dir.split('/').any(|c| c == "kernel") && !dir.split('/').any(|c| c == "ust")
}

/// Raw deflate `raw`, whole, refusing to grow past `cap` bytes.
pub(super) fn inflate_capped(raw: &[u8], cap: usize) -> Result<Vec<u8>> {
    let mut inf = crate::inflate::Inflater::new();
    let mut out = Vec::new();
    let mut used = 0;
    while used < raw.len() {
        let end = (used + 1024).min(raw.len());
        let (n, done) = inf.feed(&raw[used..end], used as u64, &mut |d| {
            if out.len() + d.len() > cap {
                return Err(Error::new(
                    0,
                    ErrorKind::Unsupported(format!(
                        "CTF metadata larger than {} MiB inflated",
                        cap >> 20
                    )),
                ));
            }
            out.extend_from_slice(d);
            Ok(())
        })?;
        used += n;
        if done {
            return Ok(out);
        }
        if n == 0 {
            break;
        }
    }
    Err(Error::truncated(
        out.len() as u64,
        "the zip entry's deflate data",
    ))
}

/// The contents of a CTF entry as [`Decoder::begin_entry`] and [`Decoder::push`] were given it
/// (`header`, then `bytes`): its path and its bytes, inflated where they came deflated. For tools
/// that take a trace apart (the fuzzing seeds); inflating stops at `cap` bytes.
pub fn entry_contents(header: &[u8], bytes: &[u8], cap: usize) -> Result<(String, Vec<u8>)> {
    let rest = header.get(ENTRY_MAGIC.len()..).unwrap_or(&[]);
    match rest.strip_prefix(DEFLATE_TAG) {
        Some(name) => Ok((
            String::from_utf8_lossy(name).into_owned(),
            inflate_capped(bytes, cap)?,
        )),
        None => Ok((String::from_utf8_lossy(rest).into_owned(), bytes.to_vec())),
    }
}

/// `a/b/c` → (`a/b`, `c`).
pub(super) fn split_path(p: &str) -> (&str, &str) {
    match p.rfind('/') {
        Some(i) => (&p[..i], &p[i + 1..]),
        None => ("", p),
    }
}

/// `channel0_3`: a stream file, named `<channel>_<cpu>` (not its `.idx` index).
pub fn is_channel(base: &str) -> bool {
    base.rsplit_once('_').is_some_and(|(name, cpu)| {
        !name.is_empty()
            && !cpu.is_empty()
            && cpu.bytes().all(|b| b.is_ascii_digit())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    })
}

/// Whether a .zip entry is part of a CTF trace: a `metadata` file, or a stream file: LTTng's
/// default `channel*` name, or any `<channel>_<cpu>` in an LTTng domain folder (`ust/`,
/// `kernel/`). Told by name and folder names, not depth: the `lttngTrace/` level comes and goes.
/// The streams are taken before their metadata is seen (it may come later in the archive).
pub fn is_ctf_entry(path: &str) -> bool {
    let (dir, base) = split_path(path);
    let in_index = dir == "index" || dir.ends_with("/index");
    let in_domain = dir.split('/').any(|c| c == "ust" || c == "kernel");
    !in_index
        && (base == "metadata" || (is_channel(base) && (base.starts_with("channel") || in_domain)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_told_by_name() {
        assert!(is_ctf_entry(
            "a.trace/lttngTrace/x/ust/uid/1000/64-bit/metadata"
        ));
        assert!(is_ctf_entry("a/ust/uid/1000/64-bit/channel0_3"));
        assert!(!is_ctf_entry("a/ust/uid/1000/64-bit/index/channel0_3.idx"));
        assert!(!is_ctf_entry("a/perf.data"));
        assert!(!is_ctf_entry("a/perf_data.txt"));
        assert!(!is_ctf_entry("logs/run_1"));
        assert!(is_ctf_entry("a/ust/pid/app-1-2/64-bit/DotNETRuntime_0"));
        assert!(is_ctf_entry("metadata"));
    }
}
