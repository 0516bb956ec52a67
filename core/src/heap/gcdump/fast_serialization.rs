//! FastSerialization, the stream format of a `.gcdump`: its tags, and a cursor over the whole
//! file that follows object and forward references and checks every count it reads against the
//! bytes left (docs/reference/formats.md, "Heap snapshots (.gcdump)").

use crate::error::{Error, Result};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The stream header: an i32 length (20), then the text.
pub(super) const HEADER: &[u8; 24] = b"\x14\x00\x00\x00!FastSerialization.1";
/// FastSerialization's tags.
pub(super) mod tag {
    pub const NULL_REFERENCE: u8 = 1;
    pub const OBJECT_REFERENCE: u8 = 2;
    pub const FORWARD_REFERENCE: u8 = 3;
    pub const BEGIN_OBJECT: u8 = 4;
    pub const BEGIN_PRIVATE_OBJECT: u8 = 5;
    pub const END_OBJECT: u8 = 6;
    pub const FORWARD_DEFINITION: u8 = 7;
    pub const BYTE: u8 = 8;
    pub const INT16: u8 = 9;
    pub const INT32: u8 = 10;
    pub const INT64: u8 = 11;
    pub const SKIP_REGION: u8 = 12;
    pub const STRING: u8 = 13;
    pub const BLOB: u8 = 14;
}

/// A serialized type: its name and versions, and where its definition starts.
#[derive(Clone)]
pub(super) struct TypeDef {
    pub(super) at: u64,
    pub(super) label: usize,
    pub(super) name: String,
    pub(super) version: i32,
    pub(super) min_reader: i32,
}

/// A cursor over the whole file that can jump (object references, forward references).
pub(super) struct Reader<'a> {
    pub(super) buf: &'a [u8],
    pub(super) pos: usize,
    /// Types defined so far, by the offset of their definition (object references point there).
    pub(super) types: Vec<TypeDef>,
    /// The forward-reference table from the trailer, once read.
    pub(super) forward: Option<Vec<u32>>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(buf: &'a [u8]) -> Self {
        Reader {
            buf,
            pos: 0,
            types: Vec::new(),
            forward: None,
        }
    }
    pub(super) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    pub(super) fn at(&self) -> u64 {
        self.pos as u64
    }
    pub(super) fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }
    pub(super) fn peek_i32(&self) -> i32 {
        match self.buf.get(self.pos..self.pos + 4) {
            Some(b) => i32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            None => 0,
        }
    }
    pub(super) fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(Error::truncated(self.at(), what));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub(super) fn skip(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }
    pub(super) fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.bytes(1, what)?[0])
    }
    pub(super) fn i32(&mut self, what: &'static str) -> Result<i32> {
        let b = self.bytes(4, what)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub(super) fn i64(&mut self, what: &'static str) -> Result<i64> {
        let b = self.bytes(8, what)?;
        Ok(i64::from_le_bytes([
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
        ]))
    }
    pub(super) fn u64(&mut self, what: &'static str) -> Result<u64> {
        self.i64(what).map(|v| v as u64)
    }
    pub(super) fn f32(&mut self, what: &'static str) -> Result<f32> {
        self.i32(what).map(|v| f32::from_bits(v as u32))
    }
    /// A non-negative i32 count of items of at least `min_item` bytes each, checked against the
    /// bytes left, so that no count the file claims allocates more than the file holds.
    pub(super) fn count(&mut self, min_item: usize, what: &'static str) -> Result<usize> {
        let at = self.at();
        let n = self.i32(what)?;
        if n < 0 {
            return Err(Error::malformed(at, format!("{what}: count {n}")));
        }
        let n = n as usize;
        if n.saturating_mul(min_item) > self.remaining() {
            return Err(Error::malformed(
                at,
                format!(
                    "{what}: {n} entries do not fit in the {} bytes left",
                    self.remaining()
                ),
            ));
        }
        Ok(n)
    }
    /// A string: an i32 count of UTF-16 units (-1: null), each unit written in 1-3 bytes
    /// (UTF-8's forms, surrogates one by one).
    pub(super) fn string(&mut self, what: &'static str) -> Result<Option<String>> {
        let at = self.at();
        let n = self.i32(what)?;
        if n == -1 {
            return Ok(None);
        }
        if n < 0 || n as usize > self.remaining() {
            return Err(Error::malformed(
                at,
                format!(
                    "{what}: a string of {n} characters in {} bytes",
                    self.remaining()
                ),
            ));
        }
        let mut units = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let b = self.u8(what)? as u16;
            let u = if b < 0x80 {
                b
            } else if b < 0xe0 {
                ((b & 0x1f) << 6) | (self.u8(what)? as u16 & 0x3f)
            } else {
                let b1 = self.u8(what)? as u16 & 0x3f;
                let b2 = self.u8(what)? as u16 & 0x3f;
                ((b & 0x0f) << 12) | (b1 << 6) | b2
            };
            units.push(u);
        }
        Ok(Some(String::from_utf16_lossy(&units)))
    }
    pub(super) fn goto(&mut self, label: usize, what: &'static str) -> Result<()> {
        if label > self.buf.len() {
            return Err(Error::malformed(
                self.at(),
                format!("{what}: a reference to byte {label}, past the end"),
            ));
        }
        self.pos = label;
        Ok(())
    }
    /// Reads a forward reference's index and resolves it through the trailer's table.
    pub(super) fn forward_reference(&mut self, what: &'static str) -> Result<usize> {
        let at = self.at();
        let index = self.i32(what)?;
        if self.forward.is_none() {
            self.forward = Some(self.forward_table()?);
        }
        let table = self.forward.as_deref().unwrap_or(&[]);
        match usize::try_from(index).ok().and_then(|i| table.get(i)) {
            Some(&label) => Ok(label as usize),
            None => Err(Error::malformed(
                at,
                format!(
                    "{what}: forward reference {index}, the table has {}",
                    table.len()
                ),
            )),
        }
    }
    /// The file's last 4 bytes locate the trailer, whose first field locates the forward
    /// reference table: a count and a label per reference.
    pub(super) fn forward_table(&self) -> Result<Vec<u32>> {
        let len = self.buf.len();
        if len < 4 {
            return Err(Error::truncated(len as u64, "trailer"));
        }
        let mut t = Reader::new(self.buf);
        t.pos = len - 4;
        let trailer = t.i32("trailer label")? as u32 as usize;
        t.goto(trailer, "trailer")?;
        let table = t.i32("forward reference table label")? as u32 as usize;
        t.goto(table, "forward reference table")?;
        let n = t.count(4, "forward reference table")?;
        let b = t.bytes(n * 4, "forward reference table")?;
        Ok(b.chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    /// The start of an object's definition (BeginObject, optionally after ForwardDefinition and its
    /// index) and its type; the object's fields follow.
    pub(super) fn object_start(&mut self, what: &'static str) -> Result<TypeDef> {
        match self.object_start_or_null(what)? {
            Some(t) => Ok(t),
            None => Err(Error::malformed(
                self.at() - 1,
                format!("{what}: a null reference"),
            )),
        }
    }
    pub(super) fn object_start_or_null(&mut self, what: &'static str) -> Result<Option<TypeDef>> {
        let at = self.at();
        let mut t = self.u8(what)?;
        if t == tag::NULL_REFERENCE {
            return Ok(None);
        }
        if t == tag::FORWARD_DEFINITION {
            self.i32(what)?;
            t = self.u8(what)?;
        }
        if t != tag::BEGIN_OBJECT && t != tag::BEGIN_PRIVATE_OBJECT {
            return Err(Error::malformed(
                at,
                format!("{what}: expected the start of an object, found tag {t}"),
            ));
        }
        let mut ty = self.type_ref(what)?;
        ty.at = at;
        Ok(Some(ty))
    }
    /// An object's type: a definition here, or a reference to one read before.
    pub(super) fn type_ref(&mut self, what: &'static str) -> Result<TypeDef> {
        let at = self.pos;
        let t = self.u8(what)?;
        match t {
            tag::OBJECT_REFERENCE => {
                let label = self.i32(what)? as u32 as usize;
                if let Some(d) = self.types.iter().find(|d| d.label == label) {
                    return Ok(d.clone());
                }
                // A type defined elsewhere in the file: read its definition there.
                let back = self.pos;
                self.goto(label, what)?;
                let t2 = self.u8(what)?;
                if t2 != tag::BEGIN_OBJECT && t2 != tag::BEGIN_PRIVATE_OBJECT {
                    return Err(Error::malformed(
                        label as u64,
                        format!("{what}: the type reference does not point at a type"),
                    ));
                }
                let d = self.type_definition(label, what)?;
                self.pos = back;
                Ok(d)
            }
            tag::BEGIN_OBJECT | tag::BEGIN_PRIVATE_OBJECT => self.type_definition(at, what),
            _ => Err(Error::malformed(
                at as u64,
                format!("{what}: expected a type, found tag {t}"),
            )),
        }
    }
    /// After the type's Begin tag: its own type (null: a type), version, minimum reader version,
    /// name, end.
    pub(super) fn type_definition(&mut self, label: usize, what: &'static str) -> Result<TypeDef> {
        let t = self.u8(what)?;
        if t != tag::NULL_REFERENCE {
            return Err(Error::malformed(
                self.at() - 1,
                format!("{what}: a type whose type is not a type (tag {t})"),
            ));
        }
        let version = self.i32("type version")?;
        let min_reader = self.i32("type minimum reader version")?;
        let name = self.string("type name")?.unwrap_or_default();
        self.end_object("type")?;
        let d = TypeDef {
            at: label as u64,
            label,
            name,
            version,
            min_reader,
        };
        if self.types.len() < 64 {
            self.types.push(d.clone());
        }
        Ok(d)
    }
    /// Skips the tagged fields a newer writer added, up to the object's EndObject tag.
    pub(super) fn end_object(&mut self, what: &'static str) -> Result<()> {
        loop {
            let at = self.at();
            let t = self.u8(what)?;
            match t {
                tag::END_OBJECT => return Ok(()),
                tag::BYTE => self.skip(1, what)?,
                tag::INT16 => self.skip(2, what)?,
                tag::INT32 | tag::FORWARD_DEFINITION | tag::FORWARD_REFERENCE => {
                    self.skip(4, what)?
                }
                tag::OBJECT_REFERENCE => self.skip(4, what)?,
                tag::INT64 => self.skip(8, what)?,
                tag::NULL_REFERENCE | tag::BEGIN_OBJECT | tag::BEGIN_PRIVATE_OBJECT => {}
                tag::STRING => {
                    self.string(what)?;
                }
                tag::BLOB => {
                    let n = self.count(1, what)?;
                    self.skip(n, what)?;
                }
                tag::SKIP_REGION => {
                    let end = self.forward_reference(what)?;
                    if end <= at as usize {
                        return Err(Error::malformed(
                            at,
                            format!("{what}: a skip region that ends before it starts"),
                        ));
                    }
                    self.goto(end, what)?;
                }
                _ => {
                    return Err(Error::malformed(
                        at,
                        format!("{what}: expected the object's end, found tag {t}"),
                    ))
                }
            }
        }
    }
}
