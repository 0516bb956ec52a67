//! The CTF 1.8 metadata: TSDL text (plain, or cut into metadata packets) → the types the streams
//! need. Only what LTTng writes is parsed: type aliases, the `trace`, `env`, `clock`, `stream` and
//! `event` blocks, named structs/enums/variants, integers, floating point, strings, arrays,
//! sequences, structs, enums and variants. Other top-level blocks (LTTng's `callsite`) are skipped
//! whole. Every error names the byte offset in the metadata text (after depacketizing).
//!
//! Bounds: the text, the number of types and the nesting depth are capped, so hostile metadata
//! cannot make the parser take memory out of proportion to its own size.

use alloc::string::String;
use alloc::vec::Vec;

mod lex;
mod packets;
mod parse;

pub use packets::{depacketize, METADATA_PACKET_MAGIC};
pub use parse::parse;

/// The deepest type nesting read (structs in structs in arrays...).
const MAX_DEPTH: usize = 32;
/// The most types one metadata may declare: far above LTTng's (a few thousand).
const MAX_TYPES: usize = 1 << 18;

/// A type of the metadata, by index into [`Metadata::types`].
pub type TypeId = u32;

#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    Int(Int),
    /// IEEE 754 value of `bits` bits (32 or 64 in practice).
    Float {
        bits: u32,
        align: u32,
        big_endian: bool,
    },
    /// NUL-terminated UTF-8 (or ASCII) string, byte-aligned.
    Str,
    Struct {
        fields: Vec<(u32, TypeId)>,
        align: u32,
    },
    Array {
        elem: TypeId,
        len: u64,
    },
    /// The length is the value of the field named `len` (its last path component) decoded before.
    Sequence {
        elem: TypeId,
        len: u32,
    },
    Enum {
        base: Int,
        /// (label name id, low, high), inclusive.
        labels: Vec<(u32, i64, i64)>,
    },
    /// Picks its option by the label of the enum field named `tag` decoded before.
    Variant {
        tag: u32,
        options: Vec<(u32, TypeId)>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Int {
    pub size: u32,
    pub align: u32,
    pub signed: bool,
    pub big_endian: bool,
    /// `map = clock.X.value`: the value is (some low bits of) the clock.
    pub clock: bool,
    /// `encoding = UTF8/ASCII`: an array of these is text.
    pub text: bool,
}

/// One event class of a stream.
#[derive(Debug, Clone)]
pub struct EventDecl {
    pub name: String,
    pub id: u64,
    pub stream_id: u64,
    pub context: Option<TypeId>,
    pub fields: Option<TypeId>,
}

#[derive(Debug, Clone, Default)]
pub struct StreamDecl {
    pub id: u64,
    pub packet_context: Option<TypeId>,
    pub event_header: Option<TypeId>,
    pub event_context: Option<TypeId>,
}

#[derive(Debug, Clone, Default)]
pub struct Clock {
    pub name: String,
    pub freq: u64,
    /// Offset from the epoch, in seconds plus clock cycles.
    pub offset_s: i64,
    pub offset: i64,
}

/// The parsed metadata.
#[derive(Debug, Clone, Default)]
pub struct Metadata {
    pub types: Vec<Type>,
    /// Interned identifiers (field names, enum labels).
    pub names: Vec<String>,
    pub big_endian: bool,
    pub packet_header: Option<TypeId>,
    pub streams: Vec<StreamDecl>,
    pub events: Vec<EventDecl>,
    pub clocks: Vec<Clock>,
    /// `env` entries, as text.
    pub env: Vec<(String, String)>,
}

impl Metadata {
    /// The interned id of `name`, if any field or label is so named.
    pub fn name_id(&self, name: &str) -> Option<u32> {
        self.names.iter().position(|n| n == name).map(|i| i as u32)
    }

    pub fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", |s| s.as_str())
    }

    pub fn env(&self, key: &str) -> Option<&str> {
        self.env
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Alignment in bits of a type (structs: their widest member's or the declared one).
pub fn align_of(types: &[Type], t: TypeId, depth: usize) -> u32 {
    if depth > MAX_DEPTH {
        return 8;
    }
    match types.get(t as usize) {
        Some(Type::Int(i)) => i.align,
        Some(Type::Enum { base, .. }) => base.align,
        Some(Type::Float { align, .. }) => *align,
        Some(Type::Str) => 8,
        Some(Type::Struct { align, .. }) => *align,
        Some(Type::Array { elem, .. }) | Some(Type::Sequence { elem, .. }) => {
            align_of(types, *elem, depth + 1)
        }
        Some(Type::Variant { options, .. }) => options
            .iter()
            .map(|&(_, o)| align_of(types, o, depth + 1))
            .max()
            .unwrap_or(1),
        None => 1,
    }
}
