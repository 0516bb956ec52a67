//! One error type for the whole crate: what went wrong and at which byte of the input.

use alloc::string::String;
use core::fmt;

/// A decoding error. `offset` is the byte offset in the *decoded trace stream* (after unzip/gunzip)
/// where the problem was found; for container errors it is the offset in the file as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub offset: u64,
    pub kind: ErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input is not a trace format we read; the string says what it looks like ("a PNG image").
    NotATrace(String),
    /// The input ended inside a structure (a trace cut off mid-write).
    Truncated { what: &'static str },
    /// A structure is malformed; the string says what was expected.
    Malformed(String),
    /// A version of the format we do not read.
    Unsupported(String),
}

pub type Result<T> = core::result::Result<T, Error>;

impl Error {
    pub fn new(offset: u64, kind: ErrorKind) -> Self {
        Error { offset, kind }
    }
    pub fn malformed(offset: u64, msg: impl Into<String>) -> Self {
        Error::new(offset, ErrorKind::Malformed(msg.into()))
    }
    pub fn truncated(offset: u64, what: &'static str) -> Self {
        Error::new(offset, ErrorKind::Truncated { what })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::NotATrace(what) => write!(f, "not a .NET trace file: {what}"),
            ErrorKind::Truncated { what } => {
                write!(f, "trace cut off at byte {} (inside {what})", self.offset)
            }
            ErrorKind::Malformed(msg) => {
                write!(f, "malformed trace at byte {}: {msg}", self.offset)
            }
            ErrorKind::Unsupported(msg) => write!(f, "unsupported at byte {}: {msg}", self.offset),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}
