//! LTTng tracepoint names of the .NET runtime → the ETW/EventPipe provider, event id and version,
//! so the runtime's payload decoders ([`crate::clr`]) read LTTng events as they read ETW ones.
//!
//! The runtime's LTTng provider names each tracepoint `Provider:Symbol`, where `Provider` is
//! `DotNETRuntime`, `DotNETRuntimePrivate` or `DotNETRuntimeRundown` and `Symbol` is the event's
//! symbol in the runtime's manifest (ClrEtwAll.man), with the version as a `_V<n>` suffix
//! (`GCStart_V2` is GCStart, id 1, version 2; no suffix is version 0). The table below gives the
//! manifest id of each symbol without its suffix; the pairs are the ones TraceEvent's CTF mapping
//! lists (`ClrTraceEventParser` / `ClrPrivateTraceEventParser`). A tracepoint named `X_1` (lttng-ust
//! 2.7 split events of more than ten fields in two) is the second half of `X`, never an event of
//! its own: [`second_half_of`] names its first half.

use crate::clr::names::{PRIVATE_PROVIDER, RUNDOWN_PROVIDER, RUNTIME_PROVIDER};

/// The ETW identity of an LTTng tracepoint of the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mapped {
    pub provider: &'static str,
    pub event_id: u32,
    pub version: u32,
}

/// `DotNETRuntime:GCStart_V2` → (Microsoft-Windows-DotNETRuntime, 1, 2); None for a tracepoint
/// that is not one of the runtime's known events.
pub fn map(tracepoint: &str) -> Option<Mapped> {
    let (prefix, symbol) = tracepoint.split_once(':')?;
    let provider = provider(prefix)?;
    let (base, version) = split_version(symbol);
    let i = TABLE
        .binary_search_by(|&(p, b, _)| (p, b).cmp(&(prefix, base)))
        .ok()?;
    Some(Mapped {
        provider,
        event_id: TABLE[i].2,
        version,
    })
}

/// The ETW provider of an LTTng provider prefix.
pub fn provider(prefix: &str) -> Option<&'static str> {
    match prefix {
        "DotNETRuntime" => Some(RUNTIME_PROVIDER),
        "DotNETRuntimePrivate" => Some(PRIVATE_PROVIDER),
        "DotNETRuntimeRundown" => Some(RUNDOWN_PROVIDER),
        _ => None,
    }
}

/// For `P:X_1`, where `P:X` is a runtime tracepoint: `P:X`.
pub fn second_half_of(tracepoint: &str) -> Option<&str> {
    let first = tracepoint.strip_suffix("_1")?;
    map(first).map(|_| first)
}

/// `GCStart_V2` → (`GCStart`, 2); `GCStart` → (`GCStart`, 0).
fn split_version(symbol: &str) -> (&str, u32) {
    if let Some(i) = symbol.rfind("_V") {
        if let Ok(v) = symbol[i + 2..].parse::<u32>() {
            return (&symbol[..i], v);
        }
    }
    (symbol, 0)
}

/// (LTTng provider prefix, manifest symbol without its version suffix, event id), sorted.
const TABLE: &[(&str, &str, u32)] = &[
    ("DotNETRuntime", "AppDomainLoad", 156),
    ("DotNETRuntime", "AppDomainMemAllocated", 83),
    ("DotNETRuntime", "AppDomainMemSurvived", 84),
    ("DotNETRuntime", "AppDomainUnload", 157),
    ("DotNETRuntime", "AssemblyLoad", 154),
    ("DotNETRuntime", "AssemblyUnload", 155),
    ("DotNETRuntime", "AuthenticodeVerificationStart", 183),
    ("DotNETRuntime", "AuthenticodeVerificationStop", 184),
    ("DotNETRuntime", "BulkType", 15),
    ("DotNETRuntime", "CLRStackWalk", 82),
    ("DotNETRuntime", "CodeSymbols", 260),
    ("DotNETRuntime", "Contention", 81),
    ("DotNETRuntime", "ContentionStart", 81),
    ("DotNETRuntime", "ContentionStop", 91),
    ("DotNETRuntime", "DCEndCompleteV2", 136),
    ("DotNETRuntime", "DCStartCompleteV2", 135),
    ("DotNETRuntime", "DebugExceptionProcessingEnd", 243),
    ("DotNETRuntime", "DebugExceptionProcessingStart", 242),
    ("DotNETRuntime", "DebugIPCEventEnd", 241),
    ("DotNETRuntime", "DebugIPCEventStart", 240),
    ("DotNETRuntime", "DecreaseMemoryPressure", 201),
    ("DotNETRuntime", "DestroyGCHandle", 31),
    ("DotNETRuntime", "DomainModuleLoad", 151),
    ("DotNETRuntime", "EventSource", 270),
    ("DotNETRuntime", "ExceptionCatchStart", 250),
    ("DotNETRuntime", "ExceptionCatchStop", 251),
    ("DotNETRuntime", "ExceptionFilterStart", 254),
    ("DotNETRuntime", "ExceptionFilterStop", 255),
    ("DotNETRuntime", "ExceptionFinallyStart", 252),
    ("DotNETRuntime", "ExceptionFinallyStop", 253),
    ("DotNETRuntime", "ExceptionThrown", 80),
    ("DotNETRuntime", "ExceptionThrownStop", 256),
    ("DotNETRuntime", "FinalizeObject", 29),
    ("DotNETRuntime", "GCAllocationTick", 10),
    ("DotNETRuntime", "GCBulkEdge", 19),
    ("DotNETRuntime", "GCBulkMovedObjectRanges", 22),
    ("DotNETRuntime", "GCBulkNode", 18),
    ("DotNETRuntime", "GCBulkRCW", 37),
    ("DotNETRuntime", "GCBulkRootCCW", 36),
    (
        "DotNETRuntime",
        "GCBulkRootConditionalWeakTableElementEdge",
        17,
    ),
    ("DotNETRuntime", "GCBulkRootEdge", 16),
    ("DotNETRuntime", "GCBulkRootStaticVar", 38),
    ("DotNETRuntime", "GCBulkSurvivingObjectRanges", 21),
    ("DotNETRuntime", "GCCreateConcurrentThread", 11),
    ("DotNETRuntime", "GCCreateSegment", 5),
    ("DotNETRuntime", "GCEnd", 2),
    ("DotNETRuntime", "GCFinalizersBegin", 14),
    ("DotNETRuntime", "GCFinalizersEnd", 13),
    ("DotNETRuntime", "GCFreeSegment", 6),
    ("DotNETRuntime", "GCGenerationRange", 23),
    ("DotNETRuntime", "GCGlobalHeapHistory", 205),
    ("DotNETRuntime", "GCHeapStats", 4),
    ("DotNETRuntime", "GCJoin", 203),
    ("DotNETRuntime", "GCMarkFinalizeQueueRoots", 26),
    ("DotNETRuntime", "GCMarkHandles", 27),
    ("DotNETRuntime", "GCMarkOlderGenerationRoots", 28),
    ("DotNETRuntime", "GCMarkStackRoots", 25),
    ("DotNETRuntime", "GCMarkWithType", 202),
    ("DotNETRuntime", "GCPerHeapHistory", 204),
    ("DotNETRuntime", "GCRestartEEBegin", 7),
    ("DotNETRuntime", "GCRestartEEEnd", 3),
    ("DotNETRuntime", "GCSampledObjectAllocationHigh", 20),
    ("DotNETRuntime", "GCSampledObjectAllocationLow", 32),
    ("DotNETRuntime", "GCStart", 1),
    ("DotNETRuntime", "GCSuspendEEBegin", 9),
    ("DotNETRuntime", "GCSuspendEEEnd", 8),
    ("DotNETRuntime", "GCTerminateConcurrentThread", 12),
    ("DotNETRuntime", "GCTriggered", 35),
    ("DotNETRuntime", "ILStubCacheHit", 89),
    ("DotNETRuntime", "ILStubGenerated", 88),
    ("DotNETRuntime", "IOThreadCreate", 44),
    ("DotNETRuntime", "IOThreadRetire", 46),
    ("DotNETRuntime", "IOThreadTerminate", 45),
    ("DotNETRuntime", "IOThreadUnretire", 47),
    ("DotNETRuntime", "IncreaseMemoryPressure", 200),
    ("DotNETRuntime", "LockCreated", 90),
    ("DotNETRuntime", "MethodDCEndV2", 138),
    ("DotNETRuntime", "MethodDCEndVerboseV2", 140),
    ("DotNETRuntime", "MethodDCStartV2", 137),
    ("DotNETRuntime", "MethodDCStartVerboseV2", 139),
    ("DotNETRuntime", "MethodILToNativeMap", 190),
    ("DotNETRuntime", "MethodJitInliningFailed", 186),
    ("DotNETRuntime", "MethodJitInliningSucceeded", 185),
    ("DotNETRuntime", "MethodJitTailCallFailed", 189),
    ("DotNETRuntime", "MethodJitTailCallSucceeded", 188),
    ("DotNETRuntime", "MethodJittingStarted", 145),
    ("DotNETRuntime", "MethodLoad", 141),
    ("DotNETRuntime", "MethodLoadVerbose", 143),
    ("DotNETRuntime", "MethodUnload", 142),
    ("DotNETRuntime", "MethodUnloadVerbose", 144),
    ("DotNETRuntime", "ModuleDCEndV2", 150),
    ("DotNETRuntime", "ModuleDCStartV2", 149),
    ("DotNETRuntime", "ModuleLoad", 152),
    ("DotNETRuntime", "ModuleRangeLoad", 158),
    ("DotNETRuntime", "ModuleUnload", 153),
    ("DotNETRuntime", "PinObjectAtGCTime", 33),
    ("DotNETRuntime", "RuntimeInformationStart", 187),
    ("DotNETRuntime", "SetGCHandle", 30),
    ("DotNETRuntime", "StrongNameVerificationStart", 181),
    ("DotNETRuntime", "StrongNameVerificationStop", 182),
    ("DotNETRuntime", "ThreadCreated", 85),
    ("DotNETRuntime", "ThreadCreating", 70),
    ("DotNETRuntime", "ThreadDomainEnter", 87),
    ("DotNETRuntime", "ThreadPoolDequeue", 62),
    ("DotNETRuntime", "ThreadPoolEnqueue", 61),
    ("DotNETRuntime", "ThreadPoolIODequeue", 64),
    ("DotNETRuntime", "ThreadPoolIOEnqueue", 63),
    ("DotNETRuntime", "ThreadPoolIOPack", 65),
    (
        "DotNETRuntime",
        "ThreadPoolWorkerThreadAdjustmentAdjustment",
        55,
    ),
    (
        "DotNETRuntime",
        "ThreadPoolWorkerThreadAdjustmentSample",
        54,
    ),
    ("DotNETRuntime", "ThreadPoolWorkerThreadAdjustmentStats", 56),
    ("DotNETRuntime", "ThreadPoolWorkerThreadRetirementStart", 52),
    ("DotNETRuntime", "ThreadPoolWorkerThreadRetirementStop", 53),
    ("DotNETRuntime", "ThreadPoolWorkerThreadStart", 50),
    ("DotNETRuntime", "ThreadPoolWorkerThreadStop", 51),
    ("DotNETRuntime", "ThreadPoolWorkerThreadWait", 57),
    ("DotNETRuntime", "ThreadPoolWorkingThreadCount", 60),
    ("DotNETRuntime", "ThreadRunning", 71),
    ("DotNETRuntime", "ThreadTerminated", 86),
    ("DotNETRuntime", "ThreadpoolSuspensionResumeThread", 49),
    ("DotNETRuntime", "ThreadpoolSuspensionSuspendThread", 48),
    ("DotNETRuntime", "TieredCompilationBackgroundJitStart", 283),
    ("DotNETRuntime", "TieredCompilationBackgroundJitStop", 284),
    ("DotNETRuntime", "TieredCompilationPause", 281),
    ("DotNETRuntime", "TieredCompilationResume", 282),
    ("DotNETRuntime", "TieredCompilationSettings", 280),
    ("DotNETRuntime", "WorkerThreadCreate", 40),
    ("DotNETRuntime", "WorkerThreadRetire", 42),
    ("DotNETRuntime", "WorkerThreadTerminate", 41),
    ("DotNETRuntime", "WorkerThreadUnretire", 43),
    ("DotNETRuntimePrivate", "AllocRequest", 310),
    ("DotNETRuntimePrivate", "AllowBindingRedirs", 108),
    ("DotNETRuntimePrivate", "AllowBindingRedirsEnd", 109),
    ("DotNETRuntimePrivate", "ApplyPolicyEnd", 91),
    ("DotNETRuntimePrivate", "ApplyPolicyStart", 90),
    ("DotNETRuntimePrivate", "BGC1stConEnd", 13),
    ("DotNETRuntimePrivate", "BGC1stNonConEnd", 12),
    ("DotNETRuntimePrivate", "BGC2ndConBegin", 16),
    ("DotNETRuntimePrivate", "BGC2ndConEnd", 17),
    ("DotNETRuntimePrivate", "BGC2ndNonConBegin", 14),
    ("DotNETRuntimePrivate", "BGC2ndNonConEnd", 15),
    ("DotNETRuntimePrivate", "BGCAllocWaitBegin", 23),
    ("DotNETRuntimePrivate", "BGCAllocWaitEnd", 24),
    ("DotNETRuntimePrivate", "BGCBegin", 11),
    ("DotNETRuntimePrivate", "BGCDrainMark", 20),
    ("DotNETRuntimePrivate", "BGCOverflow", 22),
    ("DotNETRuntimePrivate", "BGCPlanEnd", 18),
    ("DotNETRuntimePrivate", "BGCRevisit", 21),
    ("DotNETRuntimePrivate", "BGCSweepEnd", 19),
    ("DotNETRuntimePrivate", "BeginCreateManagedReference", 411),
    ("DotNETRuntimePrivate", "BindingDownloadPhaseEnd", 170),
    ("DotNETRuntimePrivate", "BindingDownloadPhaseStart", 169),
    (
        "DotNETRuntimePrivate",
        "BindingLookupAndProbingPhaseEnd",
        164,
    ),
    (
        "DotNETRuntimePrivate",
        "BindingLookupAndProbingPhaseStart",
        163,
    ),
    ("DotNETRuntimePrivate", "BindingNgenPhaseEnd", 162),
    ("DotNETRuntimePrivate", "BindingNgenPhaseStart", 161),
    ("DotNETRuntimePrivate", "BindingPhaseEnd", 168),
    ("DotNETRuntimePrivate", "BindingPhaseStart", 167),
    ("DotNETRuntimePrivate", "BindingPolicyPhaseEnd", 160),
    ("DotNETRuntimePrivate", "BindingPolicyPhaseStart", 159),
    ("DotNETRuntimePrivate", "CCWRefCountChange", 193),
    ("DotNETRuntimePrivate", "CCWVariance", 406),
    ("DotNETRuntimePrivate", "CLRStackWalkPrivate", 151),
    ("DotNETRuntimePrivate", "ConvertToCallbackEtw", 410),
    ("DotNETRuntimePrivate", "CreateCCW", 405),
    ("DotNETRuntimePrivate", "CreateRCW", 402),
    ("DotNETRuntimePrivate", "EEConfigSetup", 82),
    ("DotNETRuntimePrivate", "EEConfigSetupEnd", 83),
    ("DotNETRuntimePrivate", "EEConfigSync", 110),
    ("DotNETRuntimePrivate", "EEConfigSyncEnd", 111),
    ("DotNETRuntimePrivate", "EEStartupEnd", 81),
    ("DotNETRuntimePrivate", "EEStartupStart", 80),
    ("DotNETRuntimePrivate", "EndCreateManagedReference", 412),
    ("DotNETRuntimePrivate", "EvidenceGenerated", 177),
    ("DotNETRuntimePrivate", "ExecExe", 86),
    ("DotNETRuntimePrivate", "ExecExeEnd", 87),
    ("DotNETRuntimePrivate", "ExplicitBindEnd", 101),
    ("DotNETRuntimePrivate", "ExplicitBindStart", 100),
    ("DotNETRuntimePrivate", "FailFast", 191),
    (
        "DotNETRuntimePrivate",
        "FieldTransparencyComputationEnd",
        185,
    ),
    (
        "DotNETRuntimePrivate",
        "FieldTransparencyComputationStart",
        184,
    ),
    ("DotNETRuntimePrivate", "Fusion2EE", 120),
    ("DotNETRuntimePrivate", "Fusion2EEEnd", 121),
    ("DotNETRuntimePrivate", "FusionAppCtx", 118),
    ("DotNETRuntimePrivate", "FusionAppCtxEnd", 119),
    ("DotNETRuntimePrivate", "FusionBinding", 112),
    ("DotNETRuntimePrivate", "FusionBindingEnd", 113),
    ("DotNETRuntimePrivate", "FusionErrorCodeEvent", 197),
    ("DotNETRuntimePrivate", "FusionInit", 116),
    ("DotNETRuntimePrivate", "FusionInitEnd", 117),
    ("DotNETRuntimePrivate", "FusionMessageEvent", 196),
    ("DotNETRuntimePrivate", "GCDecision", 1),
    ("DotNETRuntimePrivate", "GCFullNotify", 25),
    ("DotNETRuntimePrivate", "GCGlobalHeapHistory", 5),
    ("DotNETRuntimePrivate", "GCJoin", 6),
    ("DotNETRuntimePrivate", "GCOptimized", 3),
    ("DotNETRuntimePrivate", "GCPerHeapHistory", 4),
    ("DotNETRuntimePrivate", "GCSettings", 2),
    ("DotNETRuntimePrivate", "GetInstallationEnd", 97),
    ("DotNETRuntimePrivate", "GetInstallationStart", 96),
    ("DotNETRuntimePrivate", "GetTypeFromGUID", 408),
    ("DotNETRuntimePrivate", "GetTypeFromProgID", 409),
    ("DotNETRuntimePrivate", "IInspectableRuntimeClassName", 400),
    ("DotNETRuntimePrivate", "InitDefaultDomain", 104),
    ("DotNETRuntimePrivate", "InitDefaultDomainEnd", 105),
    ("DotNETRuntimePrivate", "InitSecurity", 106),
    ("DotNETRuntimePrivate", "InitSecurityEnd", 107),
    ("DotNETRuntimePrivate", "LdLibShFolder", 92),
    ("DotNETRuntimePrivate", "LdLibShFolderEnd", 93),
    ("DotNETRuntimePrivate", "LdSysBases", 84),
    ("DotNETRuntimePrivate", "LdSysBasesEnd", 85),
    ("DotNETRuntimePrivate", "LoaderAssemblyInitPhaseEnd", 172),
    ("DotNETRuntimePrivate", "LoaderAssemblyInitPhaseStart", 171),
    ("DotNETRuntimePrivate", "LoaderCatchCall", 114),
    ("DotNETRuntimePrivate", "LoaderCatchCallEnd", 115),
    ("DotNETRuntimePrivate", "LoaderDeliverEventsPhaseEnd", 176),
    ("DotNETRuntimePrivate", "LoaderDeliverEventsPhaseStart", 175),
    ("DotNETRuntimePrivate", "LoaderMappingPhaseEnd", 174),
    ("DotNETRuntimePrivate", "LoaderMappingPhaseStart", 173),
    ("DotNETRuntimePrivate", "LoaderPhaseEnd", 166),
    ("DotNETRuntimePrivate", "LoaderPhaseStart", 165),
    ("DotNETRuntimePrivate", "Main", 88),
    ("DotNETRuntimePrivate", "MainEnd", 89),
    (
        "DotNETRuntimePrivate",
        "MethodTransparencyComputationEnd",
        183,
    ),
    (
        "DotNETRuntimePrivate",
        "MethodTransparencyComputationStart",
        182,
    ),
    ("DotNETRuntimePrivate", "ModuleRangeLoadPrivate", 158),
    (
        "DotNETRuntimePrivate",
        "ModuleTransparencyComputationEnd",
        179,
    ),
    (
        "DotNETRuntimePrivate",
        "ModuleTransparencyComputationStart",
        178,
    ),
    ("DotNETRuntimePrivate", "MulticoreJit", 201),
    (
        "DotNETRuntimePrivate",
        "MulticoreJitMethodCodeReturned",
        202,
    ),
    ("DotNETRuntimePrivate", "NgenBindEvent", 188),
    (
        "DotNETRuntimePrivate",
        "ObjectVariantMarshallingToManaged",
        413,
    ),
    (
        "DotNETRuntimePrivate",
        "ObjectVariantMarshallingToNative",
        407,
    ),
    ("DotNETRuntimePrivate", "OpenHModule", 98),
    ("DotNETRuntimePrivate", "OpenHModuleEnd", 99),
    ("DotNETRuntimePrivate", "ParseXml", 102),
    ("DotNETRuntimePrivate", "ParseXmlEnd", 103),
    ("DotNETRuntimePrivate", "PinPlugAtGCTime", 199),
    ("DotNETRuntimePrivate", "PrestubWorker", 94),
    ("DotNETRuntimePrivate", "PrestubWorkerEnd", 95),
    ("DotNETRuntimePrivate", "PrvDestroyGCHandle", 195),
    ("DotNETRuntimePrivate", "PrvFinalizeObject", 192),
    ("DotNETRuntimePrivate", "PrvGCMarkCards", 10),
    ("DotNETRuntimePrivate", "PrvGCMarkFinalizeQueueRoots", 8),
    ("DotNETRuntimePrivate", "PrvGCMarkHandles", 9),
    ("DotNETRuntimePrivate", "PrvGCMarkStackRoots", 7),
    ("DotNETRuntimePrivate", "PrvSetGCHandle", 194),
    ("DotNETRuntimePrivate", "RCWIEnumerableCasting", 404),
    ("DotNETRuntimePrivate", "RCWVariance", 403),
    ("DotNETRuntimePrivate", "SecurityCatchCall", 122),
    ("DotNETRuntimePrivate", "SecurityCatchCallEnd", 123),
    (
        "DotNETRuntimePrivate",
        "TokenTransparencyComputationEnd",
        187,
    ),
    (
        "DotNETRuntimePrivate",
        "TokenTransparencyComputationStart",
        186,
    ),
    (
        "DotNETRuntimePrivate",
        "TypeTransparencyComputationEnd",
        181,
    ),
    (
        "DotNETRuntimePrivate",
        "TypeTransparencyComputationStart",
        180,
    ),
    ("DotNETRuntimePrivate", "WinRTUnbox", 401),
    (
        "DotNETRuntimeRundown",
        "TieredCompilationSettingsDCStart",
        280,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_for_binary_search() {
        assert!(TABLE
            .windows(2)
            .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)));
    }

    #[test]
    fn gc_events_map_to_their_manifest_ids() {
        let m = |n| map(n).map(|m| (m.provider, m.event_id, m.version));
        assert_eq!(
            m("DotNETRuntime:GCStart_V2"),
            Some((RUNTIME_PROVIDER, 1, 2))
        );
        assert_eq!(
            m("DotNETRuntime:GCHeapStats_V1"),
            Some((RUNTIME_PROVIDER, 4, 1))
        );
        assert_eq!(
            m("DotNETRuntime:GCPerHeapHistory_V3"),
            Some((RUNTIME_PROVIDER, 204, 3))
        );
        assert_eq!(
            m("DotNETRuntime:GCGlobalHeapHistory_V2"),
            Some((RUNTIME_PROVIDER, 205, 2))
        );
        assert_eq!(
            m("DotNETRuntime:GCSuspendEEBegin_V1"),
            Some((RUNTIME_PROVIDER, 9, 1))
        );
        assert_eq!(
            m("DotNETRuntimePrivate:PinPlugAtGCTime"),
            Some((PRIVATE_PROVIDER, 199, 0))
        );
        assert_eq!(m("DotNETRuntime:NoSuchEvent"), None);
        assert_eq!(m("lttng_ust_statedump:start"), None);
        assert_eq!(
            second_half_of("DotNETRuntime:GCPerHeapHistory_V3_1"),
            Some("DotNETRuntime:GCPerHeapHistory_V3")
        );
        assert_eq!(second_half_of("DotNETRuntime:GCStart_V1"), None);
    }
}
