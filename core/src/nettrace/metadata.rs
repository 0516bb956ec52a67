//! Event metadata: what each metadata id means (provider, event id, version, name), parsed from the
//! metadata payloads (V1-V5) or V6 metadata rows, and the TraceEvent-style name each id is shown under.
//!
//! Names are computed once per metadata id and stored here, so events borrow them (no per-event work).
//! Runtime providers carry no names in metadata: their names come from [`crate::clr::event_name`].
//! Managed EventSources name their events in metadata; TraceEvent then derives an opcode (explicit tag,
//! or implied by a `...Start`/`...Stop` suffix which is then stripped) and shows `Name/Opcode`.

use crate::error::{Error, Result};
use crate::filter::{Filter, Interest};
use crate::read::Cursor;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

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
/// Dense id table limit; larger ids go to a map (ids are small counters in practice).
const DENSE_IDS: u32 = 1 << 16;

const OPCODE_START: u8 = 1;
const OPCODE_STOP: u8 = 2;

/// What one metadata id stands for.
#[derive(Debug, Clone)]
pub struct Metadata {
    pub provider: u32,
    pub event_id: u32,
    pub version: u32,
    pub opcode: Option<u8>,
    /// Name from the metadata itself (empty for runtime events).
    pub raw_name: String,
    /// The TraceEvent-style name events are reported under.
    pub name: String,
    /// The name depends on the payload (GCDynamicEvent): ask [`crate::clr::event_name_for`] per event.
    pub payload_named: bool,
    /// The consumer's [`Interest`] in these events is `Deliver` (see [`crate::filter`]).
    pub deliver: bool,
}

/// All metadata seen so far, plus interned provider names.
#[derive(Default)]
pub struct MetadataStore {
    providers: Vec<String>,
    provider_index: BTreeMap<String, u32>,
    entries: Vec<Metadata>,
    /// metadata id -> entry index + 1 (0 = unknown), for small ids.
    dense: Vec<u32>,
    sparse: BTreeMap<u32, u32>,
    /// The consumer's filter; none delivers everything.
    filter: Option<Box<Filter>>,
    /// Bumped by every change of what an id means (a definition, a flush of the ids).
    changes: u64,
}

/// What a part of the trace needs of the metadata to decode event blocks on its own
/// ([`crate::parts`]): which entry each id stands for, and per entry what the rows' decoding reads.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MetaView {
    entries: Vec<EntryView>,
    dense: Vec<u32>,
    sparse: BTreeMap<u32, u32>,
}

/// One entry of a [`MetaView`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EntryView {
    pub version: u32,
    pub deliver: bool,
    /// The event's name depends on its payload (see [`Metadata::payload_named`]).
    pub payload_named: bool,
    /// The runtime's GCAllocationTick: a part makes its [`crate::clr::gc::TickDigest`].
    pub alloc_tick: bool,
}

impl MetaView {
    /// Entry index for a metadata id.
    #[inline]
    pub fn lookup(&self, id: u32) -> Option<u32> {
        let i = if id < DENSE_IDS {
            match self.dense.get(id as usize) {
                Some(&i) if i != 0 => i - 1,
                _ => return None,
            }
        } else {
            *self.sparse.get(&id)?
        };
        // A view from elsewhere (a worker's message) is not trusted to be consistent.
        (i < self.entries.len() as u32).then_some(i)
    }

    #[inline]
    pub fn entry(&self, index: u32) -> Option<&EntryView> {
        self.entries.get(index as usize)
    }

    /// Appends the view's bytes (see [`crate::parts::wire`]).
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        for e in &self.entries {
            out.extend_from_slice(&e.version.to_le_bytes());
            out.push(
                u8::from(e.deliver) | u8::from(e.payload_named) << 1 | u8::from(e.alloc_tick) << 2,
            );
        }
        out.extend_from_slice(&(self.dense.len() as u32).to_le_bytes());
        for d in &self.dense {
            out.extend_from_slice(&d.to_le_bytes());
        }
        out.extend_from_slice(&(self.sparse.len() as u32).to_le_bytes());
        for (id, i) in &self.sparse {
            out.extend_from_slice(&id.to_le_bytes());
            out.extend_from_slice(&i.to_le_bytes());
        }
    }

    /// Reads what [`encode`](Self::encode) wrote.
    pub fn decode(c: &mut Cursor<'_>) -> Result<MetaView> {
        let mut v = MetaView::default();
        for _ in 0..c.u32("entries")? {
            let version = c.u32("entry version")?;
            let flags = c.u8("entry flags")?;
            v.entries.push(EntryView {
                version,
                deliver: flags & 1 != 0,
                payload_named: flags & 2 != 0,
                alloc_tick: flags & 4 != 0,
            });
        }
        for _ in 0..c.u32("dense ids")? {
            v.dense.push(c.u32("dense id")?);
        }
        for _ in 0..c.u32("sparse ids")? {
            let id = c.u32("sparse id")?;
            v.sparse.insert(id, c.u32("sparse entry")?);
        }
        Ok(v)
    }
}

impl MetadataStore {
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entry index for a metadata id.
    #[inline]
    pub fn lookup(&self, id: u32) -> Option<u32> {
        if id < DENSE_IDS {
            match self.dense.get(id as usize) {
                Some(&i) if i != 0 => Some(i - 1),
                _ => None,
            }
        } else {
            self.sparse.get(&id).copied()
        }
    }

    #[inline]
    pub fn entry(&self, index: u32) -> &Metadata {
        &self.entries[index as usize]
    }

    #[inline]
    pub fn provider(&self, index: u32) -> &str {
        &self.providers[index as usize]
    }

    /// The ids and entries as a part of the trace needs them (see [`MetaView`]).
    pub fn view(&self) -> MetaView {
        MetaView {
            entries: self
                .entries
                .iter()
                .map(|m| EntryView {
                    version: m.version,
                    deliver: m.deliver,
                    payload_named: m.payload_named,
                    alloc_tick: crate::clr::is_allocation_tick(
                        self.provider(m.provider),
                        m.event_id,
                    ),
                })
                .collect(),
            dense: self.dense.clone(),
            sparse: self.sparse.clone(),
        }
    }

    /// Changes of what ids mean so far (definitions, flushes): equal counts, equal [`view`](Self::view)s.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// Sets the consumer's filter and decides again for the entries already defined.
    pub fn set_filter(&mut self, filter: Option<Box<Filter>>) {
        self.filter = filter;
        self.changes += 1;
        for i in 0..self.entries.len() {
            let m = &self.entries[i];
            let deliver = self.decide(m.provider, m.event_id, m.version);
            self.entries[i].deliver = deliver;
        }
    }

    fn decide(&self, provider: u32, event_id: u32, version: u32) -> bool {
        self.filter
            .as_ref()
            .is_none_or(|f| f(self.provider(provider), event_id, version) == Interest::Deliver)
    }

    /// Forgets every id (V6 sequence point with the flush-metadata flag). Entries stay allocated until
    /// `compact` because buffered events may still refer to them.
    pub fn clear_ids(&mut self) {
        self.changes += 1;
        self.dense.clear();
        self.sparse.clear();
    }

    pub fn intern_provider(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.provider_index.get(name) {
            return i;
        }
        let i = self.providers.len() as u32;
        self.providers.push(name.to_string());
        self.provider_index.insert(name.to_string(), i);
        i
    }

    /// Registers `id`. A redefinition is an error in V4/V5 (ids are trace-global); `allow_redefine`
    /// is for V6 (ids may be reused after a metadata flush) and V1/V2 (ids are stream offsets).
    pub fn insert(
        &mut self,
        id: u32,
        at: u64,
        mut m: Metadata,
        allow_redefine: bool,
    ) -> Result<u32> {
        if !allow_redefine && self.lookup(id).is_some() {
            return Err(Error::malformed(
                at,
                format!("metadata id {id} defined twice"),
            ));
        }
        let provider = self.provider(m.provider);
        m.name = display_name(provider, &m);
        m.payload_named = provider == crate::clr::names::RUNTIME_PROVIDER
            && m.event_id == crate::clr::ids::runtime::GC_DYNAMIC_EVENT;
        m.deliver = self.decide(m.provider, m.event_id, m.version);
        self.changes += 1;
        self.entries.push(m);
        let index = (self.entries.len() - 1) as u32;
        if id < DENSE_IDS {
            let i = id as usize;
            if self.dense.len() <= i {
                self.dense.resize(i + 1, 0);
            }
            self.dense[i] = index + 1;
        } else {
            self.sparse.insert(id, index);
        }
        Ok(index)
    }
}

/// TraceEvent's standard opcode names (its `TraceEventOpcode` enum); others print as numbers.
fn opcode_name(op: u8) -> Option<&'static str> {
    Some(match op {
        1 => "Start",
        2 => "Stop",
        3 => "DataCollectionStart",
        4 => "DataCollectionStop",
        5 => "Extension",
        6 => "Reply",
        7 => "Resume",
        8 => "Suspend",
        9 => "Transfer",
        _ => return None,
    })
}

/// The name an event is reported under.
pub fn display_name(provider: &str, m: &Metadata) -> String {
    if let Some(n) = crate::clr::event_name(provider, m.event_id, m.version) {
        return n.to_string();
    }
    if m.raw_name.is_empty() {
        // TraceEvent's fallback for events it has no name for.
        return format!("EventID({})", m.event_id);
    }
    let mut name = m.raw_name.as_str();
    let ends_with = |s: &str, suffix: &str| {
        s.len() >= suffix.len()
            && s.is_char_boundary(s.len() - suffix.len())
            && s[s.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    };
    let opcode = m.opcode.unwrap_or(if ends_with(name, "Start") {
        OPCODE_START
    } else if ends_with(name, "Stop") {
        OPCODE_STOP
    } else {
        0
    });
    if opcode == OPCODE_START && ends_with(name, "Start") {
        name = &name[..name.len() - 5];
    } else if opcode == OPCODE_STOP && ends_with(name, "Stop") {
        name = &name[..name.len() - 4];
    }
    match opcode {
        0 => name.to_string(),
        op => match opcode_name(op) {
            Some(o) => format!("{name}/{o}"),
            None => format!("{name}/{op}"),
        },
    }
}

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
    let mut m = Metadata {
        provider,
        event_id: 0,
        version: 0,
        opcode: None,
        raw_name: String::new(),
        name: String::new(),
        payload_named: false,
        deliver: true,
    };
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
    let mut m = Metadata {
        provider,
        event_id: 0,
        version: 0,
        opcode: None,
        raw_name: String::new(),
        name: String::new(),
        payload_named: false,
        deliver: true,
    };
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
        provider,
        event_id,
        version: 0,
        opcode: None,
        raw_name,
        name: String::new(),
        payload_named: false,
        deliver: true,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(provider: &str, id: u32, name: &str, opcode: Option<u8>) -> String {
        let mut s = MetadataStore::default();
        let p = s.intern_provider(provider);
        let m = Metadata {
            provider: p,
            event_id: id,
            version: 0,
            opcode,
            raw_name: name.to_string(),
            name: String::new(),
            payload_named: false,
            deliver: true,
        };
        display_name(provider, &m)
    }

    #[test]
    fn managed_names_follow_traceevent() {
        assert_eq!(
            meta("TestEventSource0", 3, "TestEvent3", Some(24)),
            "TestEvent3/24"
        );
        assert_eq!(meta("MySource", 1, "TestEvent1", None), "TestEvent1");
        assert_eq!(
            meta("TestEventSource", 1, "RequestStart", None),
            "Request/Start"
        );
        assert_eq!(
            meta("TestEventSource", 2, "RequestStop", Some(2)),
            "Request/Stop"
        );
        assert_eq!(meta("X", 2, "Thing", Some(0)), "Thing");
        assert_eq!(meta("X", 2, "", None), "EventID(2)");
    }

    #[test]
    fn runtime_names_come_from_the_table() {
        assert_eq!(
            meta("Microsoft-Windows-DotNETRuntime", 1, "", None),
            "GC/Start"
        );
    }
}
