//! Addresses → methods: the method events a trace holds, as sorted address ranges.
//!
//! - The runtime's Method/LoadVerbose (143, JIT keyword) and the rundown provider's
//!   Method/DCStartVerbose (143) and Method/DCStopVerbose (144), which list every method with code
//!   (ReadyToRun methods included) when the session starts and ends, all share one layout:
//!   `u64 MethodID, u64 ModuleID, u64 MethodStartAddress, u32 MethodSize, u32 MethodToken,
//!   u32 MethodFlags`, then the UTF-16 strings MethodNamespace, MethodName, MethodSignature
//!   (version 1+: `u16 ClrInstanceID`; version 2: `u64 ReJITID`).
//! - Loader/ModuleLoad (152) and the rundown's Loader/ModuleDCStart/ModuleDCStop (153/154):
//!   `u64 ModuleID, u64 AssemblyID, u32 ModuleFlags, u32 Reserved1`, then the UTF-16 strings
//!   ModuleILPath and ModuleNativePath. They give a method's module its name; they carry no
//!   address range.
//!
//! - In an .etl, the kernel's Image/Load (0x140a) and Image/DCStart (0x1403), which list the
//!   native images (executables and DLLs) mapped in each process: `ImageBase` and `ImageSize`
//!   (pointers), then from version 2 four u32s and a pointer (ProcessId, checksum, time stamp,
//!   reserved; DefaultBase) and four reserved u32s before the UTF-16 FileName (version 1: two
//!   pointers then FileName after ProcessId; version 0: after ImageSize), as TraceEvent's
//!   ImageLoadTraceData reads it. An address in no method but in an image is named by the image
//!   and its offset ([`MethodMap::image`]), the way a native frame is shown without symbols.
//!   Images of every process are kept; where ranges overlap the innermost, then the latest, wins.
//!
//! A method's name is TraceEvent's FullMethodName: `Namespace.Name` and the signature's argument
//! list, from its `(` on. An address falls in the method whose range `[start, start + size)` holds
//! it; where ranges overlap, the one that starts last (the innermost) wins, and of ranges that start
//! at the same address, the one met last in the file. Ranges of size 0 hold no address and are
//! counted ([`MethodStats::empty_ranges`]). Identical ranges of one method (its JIT load and its
//! rundown) are kept once. Time is not looked at: a range reused by another method after an
//! unload names the later one.

use crate::clr::ids;
use crate::clr::names::{RUNDOWN_PROVIDER, RUNTIME_PROVIDER};
use crate::clr::payload::PayloadCursor;
use crate::event::Event;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

/// The provider an .etl's kernel events are delivered under (the ETW decoder's name for the
/// system logger, a layer above; tests/etl_stacks.rs reads images through it).
pub(crate) const KERNEL_PROVIDER: &str = "Windows Kernel";
/// HookIds of the kernel's image loads and Image/DCStart. The kernel logs an image load in the
/// image group or, for an image mapped into a process, in the process group with the image's
/// opcode (10) and payload; TraceEvent names both Image/Load.
pub(crate) const IMAGE_LOAD: u16 = 0x140a;
pub(crate) const IMAGE_LOAD_IN_PROCESS_GROUP: u16 = 0x030a;
pub(crate) const IMAGE_DC_START: u16 = 0x1403;

/// Whether a kernel event of `event_id` (its HookId) is one the methods read images from.
pub(crate) fn is_image_event(event_id: u32) -> bool {
    [IMAGE_LOAD, IMAGE_LOAD_IN_PROCESS_GROUP, IMAGE_DC_START]
        .iter()
        .any(|&h| u32::from(h) == event_id)
}

/// One method's code range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Range {
    start: u64,
    size: u32,
    /// Index into the names.
    name: u32,
    module_id: u64,
    /// Order met in the file (ties of equal starts go to the later).
    order: u32,
}

/// What the method events held, and what could not be used.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct MethodStats {
    /// Method/LoadVerbose events read.
    pub jit_loads: u64,
    /// Rundown Method/DCStartVerbose and DCStopVerbose events read.
    pub rundown_methods: u64,
    /// Module load and rundown events read.
    pub modules: u64,
    /// Method ranges of size 0 (they hold no address).
    pub empty_ranges: u64,
    /// Method ranges that overlap another method's.
    pub overlapping_ranges: u64,
    /// Method or module events whose payload does not fit the layout.
    pub bad_payloads: u64,
    /// Kernel image load and rundown events read (an .etl's native modules).
    pub images: u64,
}

/// One native image's address range.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Image {
    start: u64,
    size: u64,
    name: String,
    order: u32,
}

/// Collects the method and module events of one process ([`MethodMapBuilder::on_event`]).
#[derive(Debug, Default)]
pub struct MethodMapBuilder {
    ranges: Vec<Range>,
    names: Vec<String>,
    by_name: BTreeMap<String, u32>,
    modules: BTreeMap<u64, String>,
    stats: MethodStats,
    images: Vec<Image>,
}

/// Where an address fell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// In a method's code.
    Method {
        name: &'a str,
        /// The method's module, where a module event named it: the file name without its
        /// directory and extension (TraceEvent's module name).
        module: Option<&'a str>,
    },
    /// In no method of the trace's method events.
    Unresolved(Unresolved),
}

/// Why an address names no method. The text ([`Unresolved::reason`]) says what to capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Unresolved {
    /// The trace has no method events at all.
    NoMethodEvents,
    /// The trace has JIT events but no rundown: methods compiled before the session, and
    /// ReadyToRun code, are named only by rundown.
    NoRundown,
    /// The trace has rundown, and no method covers the address: native code (the runtime, the
    /// OS, a native library) or a stub.
    NotInAnyMethod,
}

impl Unresolved {
    pub fn reason(self) -> &'static str {
        match self {
            Unresolved::NoMethodEvents => {
                "the trace has no method events: capture with the rundown provider \
                 (Microsoft-Windows-DotNETRuntimeRundown, which dotnet-trace enables by default) \
                 and the runtime's JIT keyword (0x10)"
            }
            Unresolved::NoRundown => {
                "the trace has no rundown: capture with the rundown provider \
                 (Microsoft-Windows-DotNETRuntimeRundown, which dotnet-trace requests when the \
                 session ends and DOTNET_EventPipeRundown=0 turns off) so methods compiled \
                 before the trace and ReadyToRun code are named"
            }
            Unresolved::NotInAnyMethod => {
                "no managed method covers this address: native code (the runtime, the OS or a \
                 native library) or a stub"
            }
        }
    }
}

/// The methods of a trace, for looking addresses up ([`MethodMap::lookup`]).
#[derive(Debug, Clone, Default)]
pub struct MethodMap {
    /// Sorted by (start, order), identical ranges of one method kept once, empty ones left out.
    ranges: Vec<Range>,
    /// `max_end[i]`: the largest end of `ranges[..=i]`, so a lookup stops walking back once no
    /// earlier range can reach the address.
    max_end: Vec<u64>,
    names: Vec<String>,
    modules: BTreeMap<u64, String>,
    stats: MethodStats,
    /// Sorted by (start, order); `image_reach[i]`: the largest end of `images[..=i]`.
    images: Vec<Image>,
    image_reach: Vec<u64>,
}

/// A module path's name as TraceEvent shows it: the file name, without directory and extension.
fn module_name(path: &str) -> String {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = match file.rfind('.') {
        Some(i) if i > 0 => &file[..i],
        _ => file,
    };
    String::from(stem)
}

impl MethodMapBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads `ev` if it is a method or module event (any other event is ignored).
    pub fn on_event(&mut self, ev: &Event<'_>) {
        let (jit, rundown) = (
            ev.provider == RUNTIME_PROVIDER,
            ev.provider == RUNDOWN_PROVIDER,
        );
        let method = (jit && ev.event_id == ids::runtime::METHOD_LOAD_VERBOSE)
            || (rundown
                && matches!(
                    ev.event_id,
                    ids::rundown::METHOD_DC_START_VERBOSE | ids::rundown::METHOD_DC_END_VERBOSE
                ));
        let module = (jit && ev.event_id == ids::runtime::MODULE_LOAD)
            || (rundown
                && matches!(
                    ev.event_id,
                    ids::rundown::MODULE_DC_START | ids::rundown::MODULE_DC_END
                ));
        if method {
            if self.method(ev.payload).is_none() {
                self.stats.bad_payloads += 1;
            } else if jit {
                self.stats.jit_loads += 1;
            } else {
                self.stats.rundown_methods += 1;
            }
        } else if ev.provider == KERNEL_PROVIDER && is_image_event(ev.event_id) {
            if self
                .image(ev.payload, ev.version, ev.pointer_size)
                .is_none()
            {
                self.stats.bad_payloads += 1;
            } else {
                self.stats.images += 1;
            }
        } else if module {
            if self.module(ev.payload).is_none() {
                self.stats.bad_payloads += 1;
            } else {
                self.stats.modules += 1;
            }
        }
    }

    /// Adds a method by hand (tests, and traces whose methods come from elsewhere).
    pub fn add_method(&mut self, start: u64, size: u32, full_name: &str, module_id: u64) {
        let name = match self.by_name.get(full_name) {
            Some(&i) => i,
            None => {
                let i = self.names.len() as u32;
                self.names.push(String::from(full_name));
                self.by_name.insert(String::from(full_name), i);
                i
            }
        };
        let order = self.ranges.len() as u32;
        self.ranges.push(Range {
            start,
            size,
            name,
            module_id,
            order,
        });
    }

    /// Adds a native image by hand (tests): `path`'s file name names the addresses
    /// `[start, start + size)` that no method covers.
    pub fn add_image(&mut self, start: u64, size: u64, path: &str) {
        let order = self.images.len() as u32;
        self.images.push(Image {
            start,
            size,
            name: module_name(path),
            order,
        });
    }

    fn image(&mut self, p: &[u8], version: u32, pointer_size: u8) -> Option<()> {
        let ptr = usize::from(pointer_size);
        if ptr != 4 && ptr != 8 {
            return None;
        }
        let host = |offset: usize, pointers: usize| offset + (ptr - 4) * pointers;
        let pointer = |at: usize| -> Option<u64> {
            let b = p.get(at..at + ptr)?;
            let mut v = [0u8; 8];
            v[..ptr].copy_from_slice(b);
            Some(u64::from_le_bytes(v))
        };
        let base = pointer(0)?;
        let size = pointer(ptr)?;
        let name_at = match version {
            0 => host(8, 1),
            1 => host(12, 2),
            _ => host(44, 3),
        };
        let units: Vec<u16> = p
            .get(name_at..)?
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&u| u != 0)
            .collect();
        let path = String::from_utf16_lossy(&units);
        self.add_image(base, size, &path);
        Some(())
    }

    /// Names module `module_id` by its path (tests).
    pub fn add_module(&mut self, module_id: u64, path: &str) {
        self.modules.insert(module_id, module_name(path));
    }

    fn method(&mut self, payload: &[u8]) -> Option<()> {
        // Fixed-size fields: pointer size does not matter (every field is a u64 or u32).
        let mut r = PayloadCursor::new(payload, 8).ok()?;
        let _method_id = r.u64("MethodID").ok()?;
        let module_id = r.u64("ModuleID").ok()?;
        let start = r.u64("MethodStartAddress").ok()?;
        let size = r.u32("MethodSize").ok()?;
        let _token = r.u32("MethodToken").ok()?;
        let _flags = r.u32("MethodFlags").ok()?;
        let namespace = r.utf16z("MethodNamespace").ok()?;
        let name = r.utf16z("MethodName").ok()?;
        let signature = r.utf16z("MethodSignature").ok()?;
        let mut full = namespace.to_string_lossy();
        full.push('.');
        full.extend(name.chars());
        let sig = signature.to_string_lossy();
        if let Some(i) = sig.find('(') {
            full.push_str(&sig[i..]);
        }
        self.add_method(start, size, &full, module_id);
        Some(())
    }

    fn module(&mut self, payload: &[u8]) -> Option<()> {
        let mut r = PayloadCursor::new(payload, 8).ok()?;
        let module_id = r.u64("ModuleID").ok()?;
        let _assembly = r.u64("AssemblyID").ok()?;
        let _flags = r.u32("ModuleFlags").ok()?;
        let _reserved = r.u32("Reserved1").ok()?;
        let il = r.utf16z("ModuleILPath").ok()?.to_string_lossy();
        let native = r.utf16z("ModuleNativePath").ok()?.to_string_lossy();
        let path = if il.is_empty() { native } else { il };
        self.add_module(module_id, &path);
        Some(())
    }

    /// The map, ranges sorted.
    pub fn finish(self) -> MethodMap {
        let MethodMapBuilder {
            mut ranges,
            names,
            modules,
            mut stats,
            mut images,
            ..
        } = self;
        images.retain(|i| i.size > 0);
        images.sort_by_key(|i| (i.start, i.order));
        // An image listed again (its load and its rundown): the last met stays.
        images.dedup_by(|later, kept| {
            let same = later.start == kept.start && later.size == kept.size;
            if same {
                core::mem::swap(later, kept);
            }
            same
        });
        let mut image_reach = Vec::with_capacity(images.len());
        let mut reach = 0u64;
        for i in &images {
            reach = reach.max(i.start.saturating_add(i.size));
            image_reach.push(reach);
        }
        stats.empty_ranges = ranges.iter().filter(|r| r.size == 0).count() as u64;
        ranges.retain(|r| r.size > 0);
        ranges.sort_by_key(|r| (r.start, r.order));
        // One method's identical ranges (JIT load, DCStart, DCEnd): the last met stays.
        let mut kept: Vec<Range> = Vec::with_capacity(ranges.len());
        for r in ranges {
            match kept.last_mut() {
                Some(k) if k.start == r.start && k.size == r.size && k.name == r.name => *k = r,
                _ => kept.push(r),
            }
        }
        let mut max_end = Vec::with_capacity(kept.len());
        let mut reach = 0u64;
        for r in &kept {
            let end = r.start.saturating_add(u64::from(r.size));
            if r.start < reach {
                stats.overlapping_ranges += 1;
            }
            reach = reach.max(end);
            max_end.push(reach);
        }
        MethodMap {
            ranges: kept,
            max_end,
            names,
            modules,
            stats,
            images,
            image_reach,
        }
    }
}

impl MethodMap {
    pub fn stats(&self) -> &MethodStats {
        &self.stats
    }

    /// Distinct method ranges.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The native image (an .etl's kernel image events) that holds `address`, and the address's
    /// offset in it: its name is the image's file name without directory and extension. The
    /// innermost image wins, then the latest met.
    pub fn image(&self, address: u64) -> Option<(&str, u64)> {
        let mut i = self.images.partition_point(|r| r.start <= address);
        while i > 0 {
            i -= 1;
            if self.image_reach[i] <= address {
                break;
            }
            let r = &self.images[i];
            if address - r.start < r.size {
                return Some((r.name.as_str(), address - r.start));
            }
        }
        None
    }

    /// The method whose code holds `address` (see the module docs for overlaps), or why none.
    pub fn lookup(&self, address: u64) -> Lookup<'_> {
        // The last range that starts at or before the address, then back while one could reach it.
        let mut i = self.ranges.partition_point(|r| r.start <= address);
        while i > 0 {
            i -= 1;
            if self.max_end[i] <= address {
                break;
            }
            let r = &self.ranges[i];
            if address - r.start < u64::from(r.size) {
                return Lookup::Method {
                    name: self.names.get(r.name as usize).map_or("", String::as_str),
                    module: self.modules.get(&r.module_id).map(String::as_str),
                };
            }
        }
        Lookup::Unresolved(if self.stats.jit_loads + self.stats.rundown_methods == 0 {
            if self.ranges.is_empty() {
                Unresolved::NoMethodEvents
            } else {
                Unresolved::NotInAnyMethod
            }
        } else if self.stats.rundown_methods == 0 {
            Unresolved::NoRundown
        } else {
            Unresolved::NotInAnyMethod
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(ranges: &[(u64, u32, &str)]) -> MethodMap {
        let mut b = MethodMapBuilder::new();
        for &(s, n, name) in ranges {
            b.add_method(s, n, name, 0);
        }
        b.finish()
    }

    fn name(m: &MethodMap, a: u64) -> Option<&str> {
        match m.lookup(a) {
            Lookup::Method { name, .. } => Some(name),
            Lookup::Unresolved(_) => None,
        }
    }

    #[test]
    fn ranges_are_half_open_and_gaps_stay_unresolved() {
        let m = map(&[(0x100, 0x10, "A"), (0x200, 0x10, "B")]);
        assert_eq!(name(&m, 0xff), None);
        assert_eq!(name(&m, 0x100), Some("A"));
        assert_eq!(name(&m, 0x10f), Some("A"));
        assert_eq!(name(&m, 0x110), None);
        assert_eq!(name(&m, 0x205), Some("B"));
        assert_eq!(name(&m, u64::MAX), None);
    }

    #[test]
    fn overlaps_go_to_the_innermost_then_the_latest() {
        // Outer 0x100..0x200 holds inner 0x140..0x150; C and D start at the same address.
        let m = map(&[
            (0x100, 0x100, "Outer"),
            (0x140, 0x10, "Inner"),
            (0x300, 0x10, "C"),
            (0x300, 0x10, "D"),
            (0x400, 0, "Empty"),
        ]);
        assert_eq!(name(&m, 0x145), Some("Inner"));
        // Past the inner range, the outer one still holds the address.
        assert_eq!(name(&m, 0x160), Some("Outer"));
        assert_eq!(name(&m, 0x305), Some("D"));
        assert_eq!(name(&m, 0x400), None);
        assert_eq!(m.stats().empty_ranges, 1);
        assert_eq!(m.stats().overlapping_ranges, 2);
    }

    #[test]
    fn module_names_drop_directory_and_extension() {
        assert_eq!(
            module_name("/usr/share/dotnet/System.Private.CoreLib.dll"),
            "System.Private.CoreLib"
        );
        assert_eq!(module_name("C:\\app\\App.dll"), "App");
        assert_eq!(module_name("noext"), "noext");
    }
}
