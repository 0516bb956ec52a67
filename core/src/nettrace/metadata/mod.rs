//! Event metadata: what each metadata id means (provider, event id, version, name), parsed from the
//! metadata payloads (V1-V5) or V6 metadata rows, and the TraceEvent-style name each id is shown under.
//!
//! Names are computed once per metadata id and stored here, so events borrow them (no per-event work).
//! Runtime providers carry no names in metadata: their names come from [`crate::clr::event_name`].
//! Managed EventSources name their events in metadata; TraceEvent then derives an opcode (explicit tag,
//! or implied by a `...Start`/`...Stop` suffix which is then stripped) and shows `Name/Opcode`.

use crate::bytes::Cursor;
use crate::error::{Error, Result};
use crate::filter::{Filter, Interest};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

mod parse;

pub use parse::{parse_payload, parse_payload_v1v2, parse_v6_row};

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
    /// The runtime's GCAllocationTick (see [`crate::clr::is_allocation_tick`]).
    pub alloc_tick: bool,
}

impl Metadata {
    /// Provider `provider`'s entry before its description is read: event 0, version 0, no names,
    /// delivered until [`MetadataStore::insert`] asks the filter.
    pub fn of_provider(provider: u32) -> Metadata {
        Metadata {
            provider,
            event_id: 0,
            version: 0,
            opcode: None,
            raw_name: String::new(),
            name: String::new(),
            payload_named: false,
            deliver: true,
            alloc_tick: false,
        }
    }
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
                    alloc_tick: m.alloc_tick,
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
        m.alloc_tick = crate::clr::is_allocation_tick(provider, m.event_id);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(provider: &str, id: u32, name: &str, opcode: Option<u8>) -> String {
        let mut s = MetadataStore::default();
        let p = s.intern_provider(provider);
        let m = Metadata {
            event_id: id,
            opcode,
            raw_name: name.to_string(),
            ..Metadata::of_provider(p)
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
