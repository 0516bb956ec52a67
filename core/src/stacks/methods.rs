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
}

/// Collects the method and module events of one process ([`MethodMapBuilder::on_event`]).
#[derive(Debug, Default)]
pub struct MethodMapBuilder {
    ranges: Vec<Range>,
    names: Vec<String>,
    by_name: BTreeMap<String, u32>,
    modules: BTreeMap<u64, String>,
    stats: MethodStats,
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
            ..
        } = self;
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
