//! One CTF trace of the archive (a `metadata` entry and its streams' folder): its parsed
//! metadata, and each event class's identity in the ETW terms the runtime's decoders use.

use super::entries::{inflate_capped, split_path, Entry};
use super::names;
use super::stream::{self, Names};
use super::tsdl::{self, Metadata, Type};
use crate::clr;
use crate::error::Result;
use crate::filter::{Filter, Interest};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Most bytes a `metadata` entry may inflate to (the metadata of the reference traces is well
/// under 1 MiB): the bound on what a deflate bomb in its place can cost.
const METADATA_CAP: usize = 64 << 20;

/// One event class's identity and what the consumer wants of it.
pub(super) struct Class {
    pub(super) provider: String,
    pub(super) name: String,
    pub(super) event_id: u32,
    pub(super) version: u32,
    pub(super) runtime: bool,
    pub(super) deliver: bool,
    /// Index of its `X_1` second half, if the metadata has one.
    pub(super) second_half: Option<usize>,
    /// This class is the second half of another.
    pub(super) is_half: bool,
}

pub(super) struct Trace {
    pub(super) md: Metadata,
    pub(super) names: Names,
    pub(super) index: Vec<(usize, u64, usize)>,
    pub(super) packed: Vec<bool>,
    pub(super) classes: Vec<Class>,
    pub(super) pointer_size: u8,
}

/// Parses a `metadata` entry; None for a trace that is not user space (the kernel's). The bytes
/// a deflated entry inflates to are added to `metadata_inflated`.
pub(super) fn load(
    m: &Entry,
    filter: Option<&Filter>,
    metadata_inflated: &mut u64,
) -> Result<Option<Trace>> {
    let inflated;
    let bytes = if m.deflated {
        inflated = inflate_capped(&m.bytes, METADATA_CAP)?;
        *metadata_inflated += inflated.len() as u64;
        &inflated[..]
    } else {
        &m.bytes[..]
    };
    let text = tsdl::depacketize(bytes)?;
    let md = tsdl::parse(&text)?;
    let ust = md
        .env("domain")
        .map_or(m.path.contains("ust/"), |d| d == "ust");
    if !ust {
        return Ok(None);
    }
    let (dir, _) = split_path(&m.path);
    let pointer_size = if dir.ends_with("32-bit") {
        4
    } else if dir.ends_with("64-bit") {
        8
    } else if md.env("architecture_bit_width") == Some("32") {
        4
    } else {
        8
    };
    let names = Names::of(&md);
    let index = stream::event_index(&md);
    let packed = md
        .events
        .iter()
        .map(|e| {
            e.fields.is_some_and(|f| match md.types.get(f as usize) {
                Some(Type::Struct { fields, .. }) => {
                    names.data.is_some() && fields.last().map(|l| l.0) == names.data
                }
                _ => false,
            })
        })
        .collect();
    let mut classes: Vec<Class> = md
        .events
        .iter()
        .map(|e| {
            let mapped = names::map(&e.name);
            let (provider, name, event_id, version, runtime) = match mapped {
                Some(m) => (
                    m.provider.to_string(),
                    clr::names::event_name(m.provider, m.event_id, m.version)
                        .map_or_else(|| e.name.clone(), |n| n.to_string()),
                    m.event_id,
                    m.version,
                    true,
                ),
                None => {
                    // Kept apart from the ETW providers (even for an unknown runtime
                    // tracepoint), so no decoder reads its CTF id as a manifest id.
                    let provider = e.name.split_once(':').map_or("LTTng", |p| p.0);
                    (
                        provider.to_string(),
                        e.name.clone(),
                        e.id.min(u32::MAX as u64) as u32,
                        0,
                        false,
                    )
                }
            };
            let deliver = match filter {
                Some(f) => f(&provider, event_id, version) == Interest::Deliver,
                None => true,
            };
            Class {
                provider,
                name,
                event_id,
                version,
                runtime,
                deliver,
                second_half: None,
                is_half: false,
            }
        })
        .collect();
    for (i, e) in md.events.iter().enumerate() {
        if let Some(first) = names::second_half_of(&e.name) {
            if let Some(f) = md.events.iter().position(|x| x.name == first) {
                classes[f].second_half = Some(i);
                classes[i].is_half = true;
            }
        }
    }
    Ok(Some(Trace {
        md,
        names,
        index,
        packed,
        classes,
        pointer_size,
    }))
}
