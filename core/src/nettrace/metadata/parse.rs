//! Reading metadata: the payloads that define a metadata id (V1-V5, with V1/V2's field lists and
//! V5's tags) and V6's metadata rows, into [`Metadata`]. The store that keeps them and the names
//! they are shown under are in the parent module.

use super::{Metadata, MetadataStore};
use crate::bytes::Cursor;
use crate::error::{Error, Result};
use alloc::format;
use alloc::string::{String, ToString};

/// Type code of a nested struct in V1 field lists.
const TYPE_OBJECT: i32 = 1;
/// Type code of an array (V2 params / V6).
const TYPE_ARRAY: u8 = 19;
const TYPE_FIXED_ARRAY: u8 = 22;
const TYPE_RELLOC: u8 = 24;
const TYPE_DATALOC: u8 = 25;
/// V5 metadata tag kinds.
const TAG_OPCODE: u8 = 1;
/// Nesting limit for struct fields: real events nest a level or two.
const MAX_NESTING: u32 = 16;

/// Parses a V3-V5 metadata payload (the payload of a metadata event). Only the header is required;
/// a malformed field list or tag area leaves the optional opcode unset rather than failing, the
/// way TraceEvent treats events whose fields it cannot read.
pub fn parse_payload(
    store: &mut MetadataStore,
    payload: &[u8],
    base: u64,
) -> Result<(u32, Metadata)> {
    let mut c = Cursor::new(payload, base);
    let id = c.u32("metadata id")?;
    let provider = c.utf16z("provider name")?;
    let provider = store.intern_provider(&provider);
    let mut m = Metadata::of_provider(provider);
    read_event_description(&mut c, &mut m)?;
    Ok((id, m))
}

/// The part shared by V1/V2 and V3-V5 payloads, after the provider name: event id, name, keywords,
/// version, level, fields, tags. A payload may legally stop after the event id/name or after the level.
fn read_event_description(c: &mut Cursor<'_>, m: &mut Metadata) -> Result<()> {
    if c.is_empty() {
        return Ok(());
    }
    m.event_id = c.u32("event id")?;
    if c.is_empty() {
        return Ok(());
    }
    m.raw_name = c.utf16z("event name")?;
    if c.remaining() < 16 {
        return Ok(());
    }
    let _keywords = c.u64("keywords")?;
    m.version = c.u32("event version")?;
    let _level = c.u32("level")?;
    // Fields and tags are optional; a failure here loses only the opcode tag.
    let mut rest = *c;
    if skip_v1_fields(&mut rest, 0).is_ok() {
        m.opcode = read_tags(&mut rest);
    }
    Ok(())
}

/// V1 field list: u32 count, each { i32 type, [u32 count + nested fields if Object], UTF-16 name }.
fn skip_v1_fields(c: &mut Cursor<'_>, depth: u32) -> Result<()> {
    if depth > MAX_NESTING {
        return Err(c.malformed("struct fields nested too deeply"));
    }
    if c.is_empty() {
        return Ok(());
    }
    let count = c.u32("field count")?;
    for _ in 0..count {
        let ty = c.i32("field type")?;
        if ty == TYPE_OBJECT {
            skip_v1_fields(c, depth + 1)?;
        }
        c.utf16z("field name")?;
    }
    Ok(())
}

/// V5 tags: { u32 length, u8 kind, payload }*. Returns the opcode tag if present.
fn read_tags(c: &mut Cursor<'_>) -> Option<u8> {
    let mut opcode = None;
    while c.remaining() >= 5 {
        let len = c.u32("tag length").ok()? as usize;
        let kind = c.u8("tag kind").ok()?;
        let body = c.bytes(len, "tag payload").ok()?;
        if kind == TAG_OPCODE {
            opcode = body.first().copied();
        }
    }
    opcode
}

/// V1/V2 metadata payload: [V1: provider GUID | V2: provider name], u32 event id, u32 version,
/// u32 length, then (if length > 0) the V3-style description starting at the event id.
pub fn parse_payload_v1v2(
    store: &mut MetadataStore,
    payload: &[u8],
    base: u64,
    format_version: u32,
) -> Result<Metadata> {
    let mut c = Cursor::new(payload, base);
    let provider = if format_version == 1 {
        let g = c.bytes(16, "provider guid")?;
        guid_provider_name(g)
    } else {
        c.utf16z("provider name")?
    };
    let provider = store.intern_provider(&provider);
    let mut m = Metadata::of_provider(provider);
    m.event_id = c.u32("event id")?;
    m.version = c.u32("event version")?;
    let len = c.u32("metadata length")?;
    if len > 0 {
        let (event_id, version) = (m.event_id, m.version);
        read_event_description(&mut c, &mut m)?;
        // The outer id and version are authoritative.
        m.event_id = event_id;
        m.version = version;
    }
    Ok(m)
}

/// V1 files name providers by GUID; map the runtime's to their names.
fn guid_provider_name(g: &[u8]) -> String {
    const KNOWN: &[([u8; 16], &str)] = &[
        // e13c0d23-ccbc-4e12-931b-d9cc2eee27e4
        (
            [
                0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e, 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee,
                0x27, 0xe4,
            ],
            crate::clr::names::RUNTIME_PROVIDER,
        ),
        // a669021c-c450-4609-a035-5af59af4df18
        (
            [
                0x1c, 0x02, 0x69, 0xa6, 0x50, 0xc4, 0x09, 0x46, 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4,
                0xdf, 0x18,
            ],
            crate::clr::names::RUNDOWN_PROVIDER,
        ),
        // 763fd754-7086-4dfe-95eb-c01a46faf4ca
        (
            [
                0x54, 0xd7, 0x3f, 0x76, 0x86, 0x70, 0xfe, 0x4d, 0x95, 0xeb, 0xc0, 0x1a, 0x46, 0xfa,
                0xf4, 0xca,
            ],
            crate::clr::names::PRIVATE_PROVIDER,
        ),
    ];
    for (guid, name) in KNOWN {
        if g == guid {
            return name.to_string();
        }
    }
    let d1 = u32::from_le_bytes([g[0], g[1], g[2], g[3]]);
    let d2 = u16::from_le_bytes([g[4], g[5]]);
    let d3 = u16::from_le_bytes([g[6], g[7]]);
    format!(
        "Provider({d1:08x}-{d2:04x}-{d3:04x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x})",
        g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]
    )
}

/// V6 metadata row (after its u16 RowSize): varuint id, string provider, varuint event id, string name,
/// field descriptions, optional metadata (opcode, version, ...). Returns the id.
pub fn parse_v6_row(store: &mut MetadataStore, row: &[u8], base: u64) -> Result<(u32, Metadata)> {
    let mut c = Cursor::new(row, base);
    let id = c.varu32("metadata id")?;
    let provider = c.var_utf8("provider name")?;
    let provider = store.intern_provider(&provider);
    let event_id = c.varu32("event id")?;
    let raw_name = c.var_utf8("event name")?;
    let mut m = Metadata {
        event_id,
        raw_name,
        ..Metadata::of_provider(provider)
    };
    skip_v6_fields(&mut c, 0)?;
    if c.remaining() >= 2 {
        let size = c.u16("optional metadata size")? as usize;
        let mut o = Cursor::new(
            c.bytes(size, "optional metadata")?,
            c.offset() - size as u64,
        );
        while !o.is_empty() {
            let at = o.offset();
            match o.u8("optional metadata kind")? {
                1 => m.opcode = Some(o.u8("opcode")?),
                3 => o.skip(8, "keywords")?,
                4 | 5 => {
                    o.var_utf8("text")?;
                }
                6 => {
                    o.var_utf8("key")?;
                    o.var_utf8("value")?;
                }
                7 => o.skip(16, "provider guid")?,
                8 => o.skip(1, "level")?,
                9 => m.version = o.u8("version")? as u32,
                k => {
                    return Err(Error::malformed(
                        at,
                        format!("unknown optional metadata kind {k}"),
                    ))
                }
            }
        }
    }
    Ok((id, m))
}

/// V6 field descriptions: u16 count, each { u16 size (excluding itself), ... } (skipped by size).
fn skip_v6_fields(c: &mut Cursor<'_>, depth: u32) -> Result<()> {
    if depth > MAX_NESTING {
        return Err(c.malformed("field descriptions nested too deeply"));
    }
    let count = c.u16("field count")?;
    for _ in 0..count {
        let size = c.u16("field size")? as usize;
        let mut f = Cursor::new(
            c.bytes(size, "field description")?,
            c.offset() - size as u64,
        );
        f.var_utf8("field name")?;
        check_v6_type(&mut f, depth)?;
    }
    Ok(())
}

/// Validates a V6 type description (the rest of the field's bytes are opaque).
fn check_v6_type(f: &mut Cursor<'_>, depth: u32) -> Result<()> {
    if depth > MAX_NESTING {
        return Err(f.malformed("types nested too deeply"));
    }
    let code = f.u8("type code")?;
    match code {
        TYPE_ARRAY | TYPE_RELLOC | TYPE_DATALOC => check_v6_type(f, depth + 1),
        TYPE_FIXED_ARRAY => {
            check_v6_type(f, depth + 1)?;
            f.u16("element count").map(|_| ())
        }
        1 => skip_v6_fields(f, depth + 1),
        _ => Ok(()),
    }
}
