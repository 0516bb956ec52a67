//! A part of an .etl file, decoded on its own ([`crate::parts`] splits the file and merges the parts
//! back). ETW buffers are framed and compressed independently, so a part decompresses and reads its
//! buffers with the same record loop as the sequential decoder ([`super::read_records`]), counting
//! record kinds in a catalog of its own. The merge adds that catalog to the decoder's
//! ([`super::catalog::Catalog::absorb`]) and hands each buffer's events to the merge window in file
//! order ([`super::Decoder::apply_buffer`]), as the sequential decoder would have.
//!
//! A buffer that cannot be read (a damaged header or compression stream) stops the part: the merge
//! decodes it, and everything after it, sequentially, which reports the error as always.

use super::buffer::{BufferHeader, HEADER_LEN};
use super::catalog::{Catalog, Key};
use super::interleave::{Held, HeldBuffer};
use super::{lz77, read_records, Counters};
use crate::clr::gc::{TickDigest, TypeIndex};
use crate::filter::Filter;
use crate::stacks::StackTable;
use alloc::boxed::Box;
use alloc::vec::Vec;

/// One buffer's events and counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BufferPiece {
    pub processor: u32,
    /// Its events: the next this many of [`EtlPart::events`] (entries of the part's catalog).
    pub events: u32,
    /// Its events' bytes: the length of its entry in [`EtlOutput::bytes`] (the wire format sends
    /// the entries as one run).
    pub bytes: u32,
    /// What reading it counted (`buffers` included).
    pub counters: Counters,
}

/// A part's result: one piece per buffer, in file order, until the part stopped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EtlOutput {
    pub buffers: Vec<BufferPiece>,
    pub events: Vec<Held>,
    /// Each buffer's events' payloads, one allocation per buffer: the merge moves it into its
    /// window as it is, where one run for the whole part would cost the merging thread a copy of
    /// every payload byte (docs/performance-log/journal.md, "Sixteen cores").
    pub bytes: Vec<Vec<u8>>,
    /// Each buffer's digests of the GCAllocationTicks it delivers ([`Held::tick`] indexes them),
    /// so the merging thread need not decode them (see [`TickDigest`]).
    pub ticks: Vec<Vec<TickDigest>>,
    /// The ticks' type names ([`TypeRef::part`](crate::clr::gc::TypeRef::part) of `ticks` index
    /// it), which the merge renumbers into its own table; None: the part does not intern them
    /// ([`Task::intern_types`](crate::parts::Task::intern_types)).
    pub types: Option<TypeIndex>,
    /// Every record kind the part's buffers hold, in order of first sight, with counts (see
    /// [`Catalog::absorb`]).
    pub catalog: Vec<(Key, u64)>,
    /// The buffer (index among the part's buffers) the part could not read: the merge decodes it
    /// and everything after it sequentially. None: every buffer is in `buffers`.
    pub stopped: Option<u32>,
    /// The stacks of the part's events ([`Held::stack`] are its ids), when kept
    /// ([`EtlPart::keep_stacks`]): the merge renumbers them into the reader's table, in the order
    /// of the events, so the ids are those of a sequential read ([`super::stackwalk`]).
    pub stacks: Option<StackTable>,
}

/// A part being decoded.
#[derive(Default)]
pub struct EtlPart {
    out: EtlOutput,
    catalog: Catalog,
    /// Decompressed records of the current buffer (reused).
    scratch: Vec<u8>,
    held: HeldBuffer,
}

impl EtlPart {
    /// A part whose catalog asks `filter` which events to keep (None: all), as the sequential
    /// decoder's does.
    pub fn new(filter: Option<Box<Filter>>) -> Self {
        let mut part = EtlPart::default();
        part.catalog.set_filter(filter);
        part
    }

    /// Reads the next buffer of the part (`bytes`: the whole buffer, header first). Returns false
    /// (and records nothing of it) if the part must stop here.
    pub fn decode_buffer(&mut self, bytes: &[u8]) -> bool {
        if self.out.stopped.is_some() {
            return false;
        }
        let ok = bytes.len() >= HEADER_LEN && self.read(bytes).is_some();
        if !ok {
            self.out.stopped = Some(self.out.buffers.len() as u32);
        }
        ok
    }

    /// Matches the buffers' stacks to their events ([`EtlOutput::stacks`]).
    pub fn keep_stacks(&mut self) {
        self.out.stacks.get_or_insert_with(StackTable::new);
    }

    /// Interns the ticks' type names ([`EtlOutput::types`]).
    pub fn intern_types(&mut self) {
        self.out.types.get_or_insert_with(TypeIndex::default);
    }

    pub fn finish(mut self) -> EtlOutput {
        self.out.catalog = self.catalog.counts();
        self.out
    }

    fn read(&mut self, bytes: &[u8]) -> Option<()> {
        let h = BufferHeader::parse(bytes, 0).ok()?;
        let body = bytes.get(HEADER_LEN..h.size as usize)?;
        let mut scratch = core::mem::take(&mut self.scratch);
        let records: &[u8] = if h.compressed() {
            match lz77::decompress(body, h.records_len(), &mut scratch) {
                Ok(true) => &scratch,
                _ => {
                    self.scratch = scratch;
                    return None;
                }
            }
        } else {
            &body[..h.records_len().min(body.len())]
        };
        let mut counters = Counters {
            buffers: 1,
            ..Default::default()
        };
        let mut held = core::mem::take(&mut self.held);
        held.events.clear();
        held.processor = h.processor as u32;
        read_records(
            &mut self.catalog,
            &mut counters,
            records,
            false,
            &mut held,
            self.out.stacks.as_mut(),
        );
        self.scratch = scratch;
        let mut ticks = Vec::new();
        for h in &mut held.events {
            let e = self.catalog.entry(h.entry);
            if !crate::clr::is_allocation_tick(self.catalog.provider(e.provider), e.event_id) {
                continue;
            }
            let payload = held
                .bytes
                .get(h.payload_start as usize..)
                .and_then(|p| p.get(..h.payload_len as usize));
            let digest = payload.and_then(|p| match self.out.types.as_mut() {
                Some(types) => TickDigest::of_interned(p, e.version, h.pointer_size, types),
                None => TickDigest::of(p, e.version, h.pointer_size),
            });
            if let Some(d) = digest {
                h.tick = ticks.len() as u32;
                ticks.push(d);
            }
        }
        self.out.buffers.push(BufferPiece {
            processor: held.processor,
            events: held.events.len() as u32,
            bytes: held.bytes.len() as u32,
            counters,
        });
        self.out.events.extend_from_slice(&held.events);
        self.out.bytes.push(core::mem::take(&mut held.bytes));
        self.out.ticks.push(ticks);
        self.held = held;
        Some(())
    }
}
