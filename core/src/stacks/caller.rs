//! Who started a GC: each GC's GCTriggered event, and the frame of its stack a user means by "the
//! caller" (the first one above the runtime's own). The GC table's Caller column in the tab and
//! `gcscope gcs --callers` both name a GC's caller with these rules.
//!
//! A GC's trigger is the last GCTriggered at or before its GCStart and after the previous GC's
//! start (PerfView's GCStats pairs them the same way): a GC with no trigger of its own (a
//! background GC's foreground GCs on older runtimes) has none, rather than the previous GC's.

use super::view::{Frame, Frames, SampleKind, StackSamples};
use super::{MISSING_STACK, NO_STACK};
use crate::stacks::methods::Unresolved;
use alloc::vec;
use alloc::vec::Vec;

/// Whether `module` (a module event's name or an image's file) is the runtime's own: its managed
/// core library (`System.Private.CoreLib`, .NET Framework's `mscorlib`) or its native engine
/// (`coreclr`, `libcoreclr.so`, Framework's `clr` and `mscorwks`), any path, extension or `.ni`.
pub fn is_runtime_module(module: &str) -> bool {
    let file = module.rsplit(['/', '\\']).next().unwrap_or(module);
    let lower = file.to_ascii_lowercase();
    let mut stem = lower.as_str();
    for ext in [".dll", ".so", ".dylib", ".ni", ".exe"] {
        stem = stem.strip_suffix(ext).unwrap_or(stem);
    }
    matches!(
        stem,
        "system.private.corelib" | "mscorlib" | "coreclr" | "libcoreclr" | "clr" | "mscorwks"
    )
}

/// Whether a frame is the runtime's own: in one of its modules ([`is_runtime_module`]), or
/// native code no method covers in a trace that names methods (the runtime's helpers and stubs,
/// such as the reflection call stub between `GC.Collect` and `MethodBaseInvoker`). An address
/// left unnamed because the trace has no method events or no rundown could be anyone's: it is not.
pub fn is_runtime_frame(f: &Frame) -> bool {
    match &f.module {
        Some(m) => is_runtime_module(m),
        None => f.method.is_none() && f.unresolved == Some(Unresolved::NotInAnyMethod),
    }
}

/// The caller of a stack (leaf first): its first frame above the runtime's own
/// ([`is_runtime_frame`]), so a `GC.Collect` reached through reflection, or an allocation in a
/// `List<T>` growing, names the application's method that made it. A stack that is the runtime's
/// throughout (a GC the core library induced) names its first named frame outside `System.GC`
/// (the library method that called it), else its leaf. None for no frames.
pub fn caller(frames: &[Frame]) -> Option<&Frame> {
    frames
        .iter()
        .find(|f| !is_runtime_frame(f))
        .or_else(|| {
            frames.iter().find(|f| {
                f.method
                    .as_deref()
                    .is_some_and(|m| !m.starts_with("System.GC."))
            })
        })
        .or_else(|| frames.first())
}

/// A GC's trigger caller, or why it has none.
#[derive(Debug, Clone, PartialEq)]
pub enum GcCaller {
    /// The trigger's stack: its [`caller`] and its leaf, and the GCTriggered's time.
    Frame {
        caller: Frame,
        leaf: Frame,
        at_ms: f64,
    },
    /// No GCTriggered between the previous GC's start and this one's.
    NoTrigger,
    /// The GCTriggered came without a stack, with a stack id the trace lacks, or with no frames.
    NoStack { at_ms: f64 },
}

/// Finds each GC's trigger as the GCs come in GCStart order (the model's settled rows), in one
/// pass over the triggers sorted by time.
pub struct TriggerMatcher {
    /// (time, stack id), by time; of equal times the later event last.
    triggers: Vec<(f64, u32)>,
    next: usize,
    /// The latest GC start so far, and the latest before it (GCs that start at one instant share
    /// the same "previous start").
    latest: Option<f64>,
    before: Option<f64>,
}

impl TriggerMatcher {
    /// The GCTriggered samples of `samples`, of one process where `process_id` says.
    pub fn new(samples: &StackSamples, process_id: Option<u32>) -> Self {
        let triggers = samples
            .samples
            .iter()
            .filter(|s| matches!(s.kind, SampleKind::Triggered { .. }))
            .filter(|s| process_id.is_none_or(|p| s.process_id == p))
            .map(|s| (s.time_ms, s.stack))
            .collect();
        Self::from_triggers(triggers)
    }

    /// Over (time, stack id) pairs in any order.
    pub fn from_triggers(mut triggers: Vec<(f64, u32)>) -> Self {
        // A stable sort keeps equal times in event order, so the last of them is the later event.
        triggers.sort_by(|a, b| a.0.total_cmp(&b.0));
        TriggerMatcher {
            triggers,
            next: 0,
            latest: None,
            before: None,
        }
    }

    /// The process ids of the triggers' samples in `samples`, each once.
    pub fn processes(samples: &StackSamples) -> Vec<u32> {
        let mut pids: Vec<u32> = samples
            .samples
            .iter()
            .filter(|s| matches!(s.kind, SampleKind::Triggered { .. }))
            .map(|s| s.process_id)
            .collect();
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    /// The trigger (time, stack id) of the GC that starts at `start_ms`; GCs must come in start
    /// order (equal starts allowed).
    pub fn next(&mut self, start_ms: f64) -> Option<(f64, u32)> {
        let (index, _) = self.next_index(start_ms)?;
        self.triggers.get(index).copied()
    }

    fn next_index(&mut self, start: f64) -> Option<(usize, f64)> {
        if self.latest.is_none_or(|l| l < start) {
            self.before = self.latest;
            self.latest = Some(start);
        }
        while self
            .triggers
            .get(self.next)
            .is_some_and(|&(t, _)| t <= start)
        {
            self.next += 1;
        }
        let k = self.next.checked_sub(1)?;
        let t = self.triggers[k].0;
        self.before.is_none_or(|a| t > a).then_some((k, t))
    }

    /// The caller of the GC that starts at `start_ms` ([`Self::next`], named by `frames`).
    pub fn caller(&mut self, start_ms: f64, frames: &Frames<'_>) -> GcCaller {
        let Some((at_ms, stack)) = self.next(start_ms) else {
            return GcCaller::NoTrigger;
        };
        if stack == NO_STACK || stack == MISSING_STACK {
            return GcCaller::NoStack { at_ms };
        }
        let fs = frames.frames(stack);
        match (caller(&fs), fs.first()) {
            (Some(c), Some(leaf)) => GcCaller::Frame {
                caller: c.clone(),
                leaf: leaf.clone(),
                at_ms,
            },
            _ => GcCaller::NoStack { at_ms },
        }
    }
}

/// For each GC start in `starts` (any order), the index in `triggers` (times, any order) of its
/// trigger ([`TriggerMatcher`]'s rule), in one pass over both sorted.
pub fn match_triggers(triggers: &[f64], starts: &[f64]) -> Vec<Option<usize>> {
    // The trigger's index rides in the stack id's place.
    let m: Vec<(f64, u32)> = triggers
        .iter()
        .enumerate()
        .map(|(i, &t)| (t, i as u32))
        .collect();
    let mut matcher = TriggerMatcher::from_triggers(m);
    let mut g: Vec<usize> = (0..starts.len()).collect();
    g.sort_by(|&a, &b| starts[a].total_cmp(&starts[b]));
    let mut out = vec![None; starts.len()];
    for gi in g {
        out[gi] = matcher.next(starts[gi]).map(|(_, i)| i as usize);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(module: &str, method: &str) -> Frame {
        Frame {
            address: 0x1000,
            method: Some(method.into()),
            module: Some(module.into()),
            unresolved: None,
            offset: None,
        }
    }

    fn unnamed(address: u64, why: Unresolved) -> Frame {
        Frame {
            address,
            method: None,
            module: None,
            unresolved: Some(why),
            offset: None,
        }
    }

    #[test]
    fn the_caller_is_the_first_frame_above_the_runtime() {
        let collect = named("System.Private.CoreLib", "System.GC.Collect(int32)");
        let invoke = named(
            "System.Private.CoreLib",
            "System.Reflection.MethodBaseInvoker.InvokeWithFewArgs()",
        );
        let app = named("Workloads", "Rt.CallGC()");
        // GC.Collect through reflection: the stub between them is native, no method covers it.
        let stub = unnamed(0x7f00, Unresolved::NotInAnyMethod);
        let s = [collect.clone(), stub.clone(), invoke.clone(), app.clone()];
        assert_eq!(caller(&s), Some(&app));
        // An allocating method calls the runtime's helper: the method itself.
        let s = [stub.clone(), app.clone(), invoke.clone()];
        assert_eq!(caller(&s), Some(&app));
        // The runtime throughout: the first method outside System.GC, else the leaf.
        let s = [collect.clone(), stub.clone(), invoke.clone()];
        assert_eq!(caller(&s), Some(&invoke));
        let s = [collect.clone(), stub.clone()];
        assert_eq!(caller(&s), Some(&collect));
        // No rundown: an unnamed address could be anyone's, so it is the caller.
        let bare = unnamed(0x42, Unresolved::NoRundown);
        let s = [bare.clone(), app.clone()];
        assert_eq!(caller(&s), Some(&bare));
        assert_eq!(caller(&[]), None);
    }

    #[test]
    fn runtime_modules_by_any_spelling() {
        for m in [
            "System.Private.CoreLib",
            "System.Private.CoreLib.dll",
            "C:\\Windows\\Microsoft.NET\\Framework64\\v4.0.30319\\mscorlib.ni.dll",
            "/usr/share/dotnet/shared/Microsoft.NETCore.App/9.0.0/libcoreclr.so",
            "coreclr.dll",
            "clr.dll",
        ] {
            assert!(is_runtime_module(m), "{m}");
        }
        for m in ["Workloads", "System.Linq.dll", "ntdll.dll", "libclrjit.so"] {
            assert!(!is_runtime_module(m), "{m}");
        }
        // An ETL image frame of coreclr.dll is the runtime's; of the application's, not.
        let mut f = unnamed(0x9, Unresolved::NotInAnyMethod);
        f.module = Some("coreclr.dll".into());
        f.offset = Some(0x10);
        assert!(is_runtime_frame(&f));
        f.module = Some("app.exe".into());
        assert!(!is_runtime_frame(&f));
    }

    /// The rule from its words, one GC at a time: the latest trigger at or before the GC's start
    /// and after the previous GC's start (the tab's GC detail asks for one GC's trigger so). The
    /// oracle for the one-pass matching.
    fn brute(triggers: &[f64], starts: &[f64]) -> Vec<Option<f64>> {
        starts
            .iter()
            .map(|&s| {
                let after = starts.iter().copied().filter(|&t| t < s).reduce(f64::max);
                triggers
                    .iter()
                    .copied()
                    .filter(|&t| t <= s && after.is_none_or(|a| t > a))
                    .reduce(f64::max)
            })
            .collect()
    }

    #[test]
    fn one_pass_matching_is_the_detail_panels_rule() {
        // A small generator (xorshift), times on a coarse grid so ties happen: equal GC starts,
        // triggers at a GC's start, several triggers between two GCs, GCs with none.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for _ in 0..500 {
            let triggers: Vec<f64> = (0..next(12)).map(|_| next(30) as f64).collect();
            let starts: Vec<f64> = (0..next(10)).map(|_| next(30) as f64).collect();
            let got: Vec<Option<f64>> = match_triggers(&triggers, &starts)
                .into_iter()
                .map(|i| i.map(|i| triggers[i]))
                .collect();
            assert_eq!(got, brute(&triggers, &starts), "{triggers:?} {starts:?}");
        }
        // By hand: GC at 10 takes the trigger at 9 (not 3); GC at 20 has none after 10.
        assert_eq!(
            match_triggers(&[3.0, 9.0, 25.0], &[20.0, 10.0, 30.0]),
            [None, Some(1), Some(2)]
        );
    }
}
