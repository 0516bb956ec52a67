//! What each kind of ETL record is called, and whether the consumer wants it: one entry per
//! (source, version), named once ([`super::names`]) and asked of the consumer's filter once, then
//! found again per record through a map with a one-entry cache (records of one kind come in runs).
//! Every record is counted here, delivered or skipped.

use super::guid::Guid;
use super::names;
use super::record::Source;
use crate::filter::{EventCount, Filter, Interest};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// A record kind's key: source kind tag, GUID, id/opcode/hook, version.
pub type Key = (u8, Guid, u16, u8);

pub struct Entry {
    /// Interned provider index.
    pub provider: u32,
    pub event_id: u32,
    pub version: u32,
    pub name: String,
    pub deliver: bool,
    /// The provider is one of the runtime's (`clr::names::is_runtime_provider`).
    pub runtime: bool,
    /// Records seen, delivered or skipped.
    pub count: u64,
}

#[derive(Default)]
pub struct Catalog {
    providers: Vec<String>,
    entries: Vec<Entry>,
    index: BTreeMap<Key, u32>,
    /// Each entry's key, in entry order.
    keys: Vec<Key>,
    last: Option<(Key, u32)>,
    filter: Option<Box<Filter>>,
    /// Skipped records per provider index.
    skipped_per_provider: Vec<u64>,
}

impl Catalog {
    pub fn set_filter(&mut self, filter: Option<Box<Filter>>) {
        self.filter = filter;
    }

    pub fn entry(&self, i: u32) -> &Entry {
        &self.entries[i as usize]
    }

    pub fn provider(&self, i: u32) -> &str {
        &self.providers[i as usize]
    }

    /// The entry of a record (created on first sight); counts the record.
    #[inline]
    pub fn lookup(&mut self, source: &Source, version: u8) -> u32 {
        let key = key(source, version);
        let i = match self.last {
            Some((k, i)) if k == key => i,
            _ => {
                let i = match self.index.get(&key) {
                    Some(&i) => i,
                    None => self.define(source, version, key),
                };
                self.last = Some((key, i));
                i
            }
        };
        let e = &mut self.entries[i as usize];
        e.count += 1;
        if !e.deliver {
            let p = e.provider as usize;
            if p >= self.skipped_per_provider.len() {
                self.skipped_per_provider.resize(p + 1, 0);
            }
            self.skipped_per_provider[p] += 1;
        }
        i
    }

    fn define(&mut self, source: &Source, version: u8, key: Key) -> u32 {
        let version32 = version as u32;
        let (provider, event_id, name): (String, u32, String) = match *source {
            Source::Provider { guid, id, .. } => match names::runtime_provider(&guid) {
                Some(p) => (
                    p.to_string(),
                    id as u32,
                    names::runtime_event_name(p, id as u32, version32),
                ),
                None => (guid.to_string(), id as u32, format!("EventID({id})")),
            },
            Source::Kernel { hook } => (
                names::KERNEL_PROVIDER.to_string(),
                hook as u32,
                names::kernel_event_name(hook),
            ),
            Source::Class { guid, opcode } => {
                (guid.to_string(), opcode as u32, format!("Opcode({opcode})"))
            }
            Source::Instance => ("InstanceEvents".to_string(), 0, "Instance".to_string()),
        };
        let deliver = self
            .filter
            .as_ref()
            .is_none_or(|f| f(&provider, event_id, version32) == Interest::Deliver);
        let p = match self.providers.iter().position(|x| *x == provider) {
            Some(p) => p as u32,
            None => {
                self.providers.push(provider);
                (self.providers.len() - 1) as u32
            }
        };
        self.entries.push(Entry {
            provider: p,
            event_id,
            version: version32,
            name,
            deliver,
            runtime: crate::clr::names::is_runtime_provider(&self.providers[p as usize]),
            count: 0,
        });
        let i = (self.entries.len() - 1) as u32;
        self.index.insert(key, i);
        self.keys.push(key);
        i
    }

    /// Entries defined so far.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Each entry's key and count, in entry order (what [`absorb`](Self::absorb) takes).
    pub fn counts(&self) -> Vec<(Key, u64)> {
        self.keys
            .iter()
            .zip(&self.entries)
            .map(|(&k, e)| (k, e.count))
            .collect()
    }

    /// Adds what a part's own catalog counted (its [`counts`](Self::counts), see [`super::part`]):
    /// its entries, defined here in the part's order of first sight where they are new (the order
    /// the sequential decoder would have defined them in, the part's records coming after every
    /// record counted here), and their counts. Returns the index here of each of the part's entries.
    pub fn absorb(&mut self, part: &[(Key, u64)]) -> Vec<u32> {
        let mut to = Vec::with_capacity(part.len());
        for &(key, count) in part {
            let i = match self.index.get(&key) {
                Some(&i) => i,
                None => self.define(&source_of(key), key.3, key),
            };
            let mine = &mut self.entries[i as usize];
            mine.count += count;
            if !mine.deliver && count > 0 {
                let p = mine.provider as usize;
                if p >= self.skipped_per_provider.len() {
                    self.skipped_per_provider.resize(p + 1, 0);
                }
                self.skipped_per_provider[p] += count;
            }
            to.push(i);
        }
        to
    }

    /// Records seen per provider, id and name, sorted by them.
    pub fn event_counts(&self) -> Vec<EventCount<'_>> {
        let mut by_key: BTreeMap<(&str, &str, u32), u64> = BTreeMap::new();
        for e in self.entries.iter().filter(|e| e.count > 0) {
            *by_key
                .entry((self.provider(e.provider), e.name.as_str(), e.event_id))
                .or_insert(0) += e.count;
        }
        crate::filter::count_lines(by_key)
    }

    /// Skipped records per provider name, in order of first sight.
    pub fn skipped_by_provider(&self) -> impl Iterator<Item = (&str, u64)> {
        self.skipped_per_provider
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(i, &n)| (self.providers[i].as_str(), n))
    }
}

/// The source a key was made from, as far as naming it reads it (a provider event's opcode is not
/// part of its name).
fn source_of(key: Key) -> Source {
    let (kind, guid, n, _) = key;
    match kind {
        0 => Source::Provider {
            guid,
            id: n,
            opcode: 0,
        },
        1 => Source::Class {
            guid,
            opcode: n as u8,
        },
        2 => Source::Kernel { hook: n },
        _ => Source::Instance,
    }
}

fn key(source: &Source, version: u8) -> Key {
    match *source {
        Source::Provider { guid, id, .. } => (0, guid, id, version),
        Source::Class { guid, opcode } => (1, guid, opcode as u16, version),
        Source::Kernel { hook } => (2, Guid::default(), hook, version),
        Source::Instance => (3, Guid::default(), 0, version),
    }
}
