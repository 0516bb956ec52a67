//! TraceEvent-style names (`Task/Opcode`) for the runtime's providers.
//!
//! EventPipe metadata of native runtime events carries no event name, so the name comes from the
//! event id. The names are the ones TraceEvent prints (and that appear in its baselines):
//! `ClrTraceEventParser`, `ClrRundownTraceEventParser` and `ClrPrivateTraceEventParser` templates,
//! named `Task/Opcode`, or just `Task` when the opcode is `Info` (0) or unnamed. TraceEvent's own
//! spellings are kept, typos included (`GC/DestoryGCHandle`, `Binding/LoopupAndProbingPhaseStart`).
//! Manifest events that TraceEvent has no template for get only the manifest's task display name
//! (TraceEvent names IncreaseMemoryPressure, id 200, just `GC`: see the 3.0 baseline).
//! Id 39 (GCDynamicEvent, .NET 7+; no other event ever used that id) is named as TraceEvent's
//! GCDynamicTraceEventParser names it when the payload is not recognised; see
//! [`crate::clr::event_name_for`] for the payload-aware name (`GC/CommittedUsage`).
//!
//! TraceEvent itself is not consistent for events it has no C# template for: with TraceLog (the
//! published baselines) IncreaseMemoryPressure is `GC`; a bare EventPipeEventSource (TraceEvent
//! 3.1.3, fixtures/traces/*.traceevent.json) prints `EventID(200)`, `EventID(201)`, `EventID(39)`
//! and, for the private BGC1stSweepEnd, `EventID(26)`. We follow the baselines.

/// Provider names as they appear in EventPipe metadata.
pub const RUNTIME_PROVIDER: &str = "Microsoft-Windows-DotNETRuntime";
pub const RUNDOWN_PROVIDER: &str = "Microsoft-Windows-DotNETRuntimeRundown";
pub const PRIVATE_PROVIDER: &str = "Microsoft-Windows-DotNETRuntimePrivate";
pub const STRESS_PROVIDER: &str = "Microsoft-Windows-DotNETRuntimeStress";
pub const SAMPLE_PROFILER_PROVIDER: &str = "Microsoft-DotNETCore-SampleProfiler";
pub const EVENTPIPE_PROVIDER: &str = "Microsoft-DotNETCore-EventPipe";

/// TraceEvent's name for a runtime-provider event, or `None` if the provider is not one of the
/// runtime's or the id is unknown. `version` is accepted for future use: no id of these providers
/// has ever changed its name between versions.
pub fn event_name(provider: &str, event_id: u32, version: u32) -> Option<&'static str> {
    let _ = version;
    let table: &[(u32, &'static str)] = match provider {
        RUNTIME_PROVIDER => RUNTIME,
        RUNDOWN_PROVIDER => RUNDOWN,
        PRIVATE_PROVIDER => PRIVATE,
        STRESS_PROVIDER => STRESS,
        SAMPLE_PROFILER_PROVIDER => SAMPLE_PROFILER,
        EVENTPIPE_PROVIDER => EVENTPIPE,
        _ => return None,
    };
    table
        .binary_search_by_key(&event_id, |&(id, _)| id)
        .ok()
        .map(|i| table[i].1)
}

/// True for the providers whose events are named by [`event_name`] rather than by metadata.
pub fn is_runtime_provider(provider: &str) -> bool {
    matches!(
        provider,
        RUNTIME_PROVIDER | RUNDOWN_PROVIDER | PRIVATE_PROVIDER | STRESS_PROVIDER
    )
}

/// Microsoft-DotNETCore-SampleProfiler.
const SAMPLE_PROFILER: &[(u32, &str)] = &[(0, "Thread/Sample")];

/// Microsoft-DotNETCore-EventPipe.
const EVENTPIPE: &[(u32, &str)] = &[(1, "ProcessInfo")];

/// Microsoft-Windows-DotNETRuntimeStress.
const STRESS: &[(u32, &str)] = &[(0, "StressLog/Start"), (1, "ClrStack/Walk")];

/// Microsoft-Windows-DotNETRuntime, sorted by id.
const RUNTIME: &[(u32, &str)] = &[
    (1, "GC/Start"),
    (2, "GC/Stop"),
    (3, "GC/RestartEEStop"),
    (4, "GC/HeapStats"),
    (5, "GC/CreateSegment"),
    (6, "GC/FreeSegment"),
    (7, "GC/RestartEEStart"),
    (8, "GC/SuspendEEStop"),
    (9, "GC/SuspendEEStart"),
    (10, "GC/AllocationTick"),
    (11, "GC/CreateConcurrentThread"),
    (12, "GC/TerminateConcurrentThread"),
    (13, "GC/FinalizersStop"),
    (14, "GC/FinalizersStart"),
    (15, "Type/BulkType"),
    (16, "GC/BulkRootEdge"),
    (17, "GC/BulkRootConditionalWeakTableElementEdge"),
    (18, "GC/BulkNode"),
    (19, "GC/BulkEdge"),
    (20, "GC/SampledObjectAllocation"),
    (21, "GC/BulkSurvivingObjectRanges"),
    (22, "GC/BulkMovedObjectRanges"),
    (23, "GC/GenerationRange"),
    (25, "GC/MarkStackRoots"),
    (26, "GC/MarkFinalizeQueueRoots"),
    (27, "GC/MarkHandles"),
    (28, "GC/MarkCards"),
    (29, "GC/FinalizeObject"),
    (30, "GC/SetGCHandle"),
    (31, "GC/DestoryGCHandle"),
    (32, "GC/SampledObjectAllocation"),
    (33, "GC/PinObjectAtGCTime"),
    (34, "GC/PinPlugAtGCTime"),
    (35, "GC/Triggered"),
    (36, "GC/BulkRootCCW"),
    (37, "GC/BulkRCW"),
    (38, "GC/BulkRootStaticVar"),
    (39, "GC/DynamicTraceEvent"),
    (40, "WorkerThreadCreationV2"),
    (41, "WorkerThreadCreationV2"),
    (42, "WorkerThreadRetirementV2"),
    (43, "WorkerThreadRetirementV2"),
    (44, "IOThreadCreation/Start"),
    (45, "IOThreadCreation/Stop"),
    (46, "IOThreadRetirement/Start"),
    (47, "IOThreadRetirement/Stop"),
    (48, "ThreadpoolSuspensionV2"),
    (49, "ThreadpoolSuspensionV2"),
    (50, "ThreadPoolWorkerThread/Start"),
    (51, "ThreadPoolWorkerThread/Stop"),
    (52, "ThreadPoolWorkerThreadRetirement/Start"),
    (53, "ThreadPoolWorkerThreadRetirement/Stop"),
    (54, "ThreadPoolWorkerThreadAdjustment/Sample"),
    (55, "ThreadPoolWorkerThreadAdjustment/Adjustment"),
    (56, "ThreadPoolWorkerThreadAdjustment/Stats"),
    (57, "ThreadPoolWorkerThread/Wait"),
    (58, "YieldProcessorMeasurement"),
    (59, "ThreadPoolMinMaxThreads"),
    (60, "ThreadPoolWorkingThreadCount/Start"),
    (61, "ThreadPool/Enqueue"),
    (62, "ThreadPool/Dequeue"),
    (63, "ThreadPool/IOEnqueue"),
    (64, "ThreadPool/IODequeue"),
    (65, "ThreadPool/IOPack"),
    (70, "Thread/Creating"),
    (71, "Thread/Running"),
    (72, "Method/MethodDetails"),
    (73, "TypeLoad/Start"),
    (74, "TypeLoad/Stop"),
    (80, "Exception/Start"),
    (81, "Contention/Start"),
    (82, "ClrStack/Walk"),
    (83, "AppDomainResourceManagement/MemAllocated"),
    (84, "AppDomainResourceManagement/MemSurvived"),
    (85, "AppDomainResourceManagement/ThreadCreated"),
    (86, "AppDomainResourceManagement/ThreadTerminated"),
    (87, "AppDomainResourceManagement/DomainEnter"),
    (88, "ILStub/StubGenerated"),
    (89, "ILStub/StubCacheHit"),
    (90, "Contention/LockCreated"),
    (91, "Contention/Stop"),
    (135, "Method/DCStartCompleteV2"),
    (136, "Method/DCStopCompleteV2"),
    (137, "Method/DCStartV2"),
    (138, "Method/DCStopV2"),
    (139, "Method/DCStartVerboseV2"),
    (140, "Method/DCStopVerboseV2"),
    (141, "Method/Load"),
    (142, "Method/Unload"),
    (143, "Method/LoadVerbose"),
    (144, "Method/UnloadVerbose"),
    (145, "Method/JittingStarted"),
    (146, "Method/MemoryAllocatedForJitCode"),
    (149, "Loader/ModuleDCStartV2"),
    (150, "Loader/ModuleDCStopV2"),
    (151, "Loader/DomainModuleLoad"),
    (152, "Loader/ModuleLoad"),
    (153, "Loader/ModuleUnload"),
    (154, "Loader/AssemblyLoad"),
    (155, "Loader/AssemblyUnload"),
    (156, "Loader/AppDomainLoad"),
    (157, "Loader/AppDomainUnload"),
    (158, "ClrPerfTrack"),
    (159, "Method/R2RGetEntryPoint"),
    (160, "Method/R2RGetEntryPointStart"),
    (181, "StrongNameVerification/Start"),
    (182, "StrongNameVerification/Stop"),
    (183, "AuthenticodeVerification/Start"),
    (184, "AuthenticodeVerification/Stop"),
    (185, "Method/InliningSucceeded"),
    (186, "Method/InliningFailedAnsi"),
    (187, "Runtime/Start"),
    (188, "Method/TailCallSucceeded"),
    (189, "Method/TailCallFailedAnsi"),
    (190, "Method/ILToNativeMap"),
    (191, "Method/TailCallFailed"),
    (192, "Method/InliningFailed"),
    (200, "GC"),
    (201, "GC"),
    (202, "GC/MarkWithType"),
    (203, "GC/Join"),
    (204, "GC/PerHeapHistory"),
    (205, "GC/GlobalHeapHistory"),
    (206, "GC/GenAwareBegin"),
    (207, "GC/GenAwareEnd"),
    (208, "GC/LOHCompact"),
    (209, "GC/FitBucketInfo"),
    (240, "DebugIPCEvent"),
    (241, "DebugIPCEvent"),
    (242, "DebugExceptionProcessing"),
    (243, "DebugExceptionProcessing"),
    (250, "ExceptionCatch/Start"),
    (251, "ExceptionCatch/Stop"),
    (252, "ExceptionFinally/Start"),
    (253, "ExceptionFinally/Stop"),
    (254, "ExceptionFilter/Start"),
    (255, "ExceptionFilter/Stop"),
    (256, "Exception/Stop"),
    (260, "CodeSymbols/Start"),
    (270, "EventSourceEvent"),
    (280, "TieredCompilation/Settings"),
    (281, "TieredCompilation/Pause"),
    (282, "TieredCompilation/Resume"),
    (283, "TieredCompilation/BackgroundJitStart"),
    (284, "TieredCompilation/BackgroundJitStop"),
    (290, "AssemblyLoader/Start"),
    (291, "AssemblyLoader/Stop"),
    (292, "AssemblyLoader/ResolutionAttempted"),
    (
        293,
        "AssemblyLoader/AssemblyLoadContextResolvingHandlerInvoked",
    ),
    (294, "AssemblyLoader/AppDomainAssemblyResolveHandlerInvoked"),
    (295, "AssemblyLoader/AssemblyLoadFromResolveHandlerInvoked"),
    (296, "AssemblyLoader/KnownPathProbed"),
    (297, "JitInstrumentationData/InstrumentationData"),
    (298, "JitInstrumentationDataVerbose/InstrumentationData"),
    (300, "ExecutionCheckpoint/ExecutionCheckpoint"),
    (301, "WaitHandleWait/Start"),
    (302, "WaitHandleWait/Stop"),
    (303, "AllocationSampling"),
];
/// Microsoft-Windows-DotNETRuntimeRundown, sorted by id.
const RUNDOWN: &[(u32, &str)] = &[
    (0, "ClrStack/Walk"),
    (10, "GC/SettingsRundown"),
    (141, "Method/DCStart"),
    (142, "Method/DCStop"),
    (143, "Method/DCStartVerbose"),
    (144, "Method/DCStopVerbose"),
    (145, "Method/DCStartComplete"),
    (146, "Method/DCStopComplete"),
    (147, "Method/DCStartInit"),
    (148, "Method/DCStopInit"),
    (149, "Method/ILToNativeMapDCStart"),
    (150, "Method/ILToNativeMapDCStop"),
    (151, "Loader/DomainModuleDCStart"),
    (152, "Loader/DomainModuleDCStop"),
    (153, "Loader/ModuleDCStart"),
    (154, "Loader/ModuleDCStop"),
    (155, "Loader/AssemblyDCStart"),
    (156, "Loader/AssemblyDCStop"),
    (157, "Loader/AppDomainDCStart"),
    (158, "Loader/AppDomainDCStop"),
    (159, "Loader/ThreadDCStop"),
    (160, "ClrPerfTrack"),
    (161, "ClrPerfTrack"),
    (187, "Runtime/Start"),
    (188, "CodeSymbolsRundown/Start"),
    (280, "TieredCompilationRundown/SettingsDCStart"),
    (300, "ExecutionCheckpointRundown/ExecutionCheckpointDCEnd"),
];
/// Microsoft-Windows-DotNETRuntimePrivate, sorted by id.
const PRIVATE: &[(u32, &str)] = &[
    (1, "GC/Decision"),
    (2, "GC/Settings"),
    (3, "GC/Optimized"),
    (4, "GC/PerHeapHistory"),
    (5, "GC/GlobalHeapHistory"),
    (6, "GC/Join"),
    (7, "GC/MarkStackRoots"),
    (8, "GC/MarkFinalizeQueueRoots"),
    (9, "GC/MarkHandles"),
    (10, "GC/MarkCards"),
    (11, "GC/BGCStart"),
    (12, "GC/BGC1stNonCondStop"),
    (13, "GC/BGC1stConStop"),
    (14, "GC/BGC2ndNonConStart"),
    (15, "GC/BGC2ndNonConStop"),
    (16, "GC/BGC2ndConStart"),
    (17, "GC/BGC2ndConStop"),
    (18, "GC/BGCPlanStop"),
    (19, "GC/BGCSweepStop"),
    (20, "GC/BGCDrainMark"),
    (21, "GC/BGCRevisit"),
    (22, "GC/BGCOverflow"),
    (23, "GC/BGCAllocWaitStart"),
    (24, "GC/BGCAllocWaitStop"),
    (25, "GC/FullNotify"),
    (26, "GC"),
    (80, "Startup/EEStartupStart"),
    (81, "Startup/EEStartupStop"),
    (82, "Startup/EEConfigSetupStart"),
    (83, "Startup/EEConfigSetupStop"),
    (84, "Startup/LoadSystemBasesStart"),
    (85, "Startup/LoadSystemBasesStop"),
    (86, "Startup/ExecExeStart"),
    (87, "Startup/ExecExeStop"),
    (88, "Startup/MainStart"),
    (89, "Startup/MainStop"),
    (90, "Startup/ApplyPolicyStart"),
    (91, "Startup/ApplyPolicyStop"),
    (92, "Startup/LdLibShFolderStart"),
    (93, "Startup/LdLibShFolderStop"),
    (94, "Startup/PrestubWorkerStart"),
    (95, "Startup/PrestubWorkerStop"),
    (96, "Startup/GetInstallationStart"),
    (97, "Startup/GetInstallationStop"),
    (98, "Startup/OpenHModuleStart"),
    (99, "Startup/OpenHModuleStop"),
    (100, "Startup/ExplicitBindStart"),
    (101, "Startup/ExplicitBindStop"),
    (102, "Startup/ParseXmlStart"),
    (103, "Startup/ParseXmlStop"),
    (104, "Startup/InitDefaultDomainStart"),
    (105, "Startup/InitDefaultDomainStop"),
    (106, "Startup/InitSecurityStart"),
    (107, "Startup/InitSecurityStop"),
    (108, "Startup/AllowBindingRedirsStart"),
    (109, "Startup/AllowBindingRedirsStop"),
    (110, "Startup/EEConfigSyncStart"),
    (111, "Startup/EEConfigSyncStop"),
    (112, "Startup/BindingStart"),
    (113, "Startup/BindingStop"),
    (114, "Startup/LoaderCatchCallStart"),
    (115, "Startup/LoaderCatchCallStop"),
    (116, "Startup/FusionInitStart"),
    (117, "Startup/FusionInitStop"),
    (118, "Startup/FusionAppCtxStart"),
    (119, "Startup/FusionAppCtxStop"),
    (120, "Startup/Fusion2EEStart"),
    (121, "Startup/Fusion2EEStop"),
    (122, "Startup/SecurityCatchCallStart"),
    (123, "Startup/SecurityCatchCallStop"),
    (151, "ClrStack/Walk"),
    (158, "ClrPerfTrack/ModuleRangeLoad"),
    (159, "Binding/PolicyPhaseStart"),
    (160, "Binding/PolicyPhaseStop"),
    (161, "Binding/NgenPhaseStart"),
    (162, "Binding/NgenPhaseStop"),
    (163, "Binding/LoopupAndProbingPhaseStart"),
    (164, "Binding/LookupAndProbingPhaseStop"),
    (165, "Binding/LoaderPhaseStart"),
    (166, "Binding/LoaderPhaseStop"),
    (167, "Binding/PhaseStart"),
    (168, "Binding/PhaseStop"),
    (169, "Binding/DownloadPhaseStart"),
    (170, "Binding/DownloadPhaseStop"),
    (171, "Binding/LoaderAssemblyInitPhaseStart"),
    (172, "Binding/LoaderAssemblyInitPhaseStop"),
    (173, "Binding/LoaderMappingPhaseStart"),
    (174, "Binding/LoaderMappingPhaseStop"),
    (175, "Binding/LoaderDeliverEventPhaseStart"),
    (176, "Binding/LoaderDeliverEventsPhaseStop"),
    (177, "EvidenceGeneration/EvidenceGenerated"),
    (178, "Transparency/ModuleTransparencyComputationStart"),
    (179, "Transparency/ModuleTransparencyComputationStop"),
    (180, "Transparency/TypeTransparencyComputationStart"),
    (181, "Transparency/TypeTransparencyComputationStop"),
    (182, "Transparency/MethodTransparencyComputationStart"),
    (183, "Transparency/MethodTransparencyComputationStop"),
    (184, "Transparency/FieldTransparencyComputationStart"),
    (185, "Transparency/FieldTransparencyComputationStop"),
    (186, "Transparency/TokenTransparencyComputationStart"),
    (187, "Transparency/TokenTransparencyComputationStop"),
    (188, "NgenBinder/NgenBind"),
    (191, "FailFast"),
    (192, "GC/FinalizeObject"),
    (193, "GC/CCWRefCountChangeAnsi"),
    (194, "GC/SetGCHandle"),
    (195, "GC/DestroyGCHandle"),
    (196, "Binding/FusionMessage"),
    (197, "Binding"),
    (198, "GC/PinObjectAtGCTime"),
    (199, "GC/PinPlugAtGCTime"),
    (200, "GC/CCWRefCountChange"),
    (201, "ClrMulticoreJit/Common"),
    (202, "ClrMulticoreJit/MethodCodeReturned"),
    (300, "ThreadPoolWorkingThreadCount/Start"),
    (301, "ThreadPool/Enqueue"),
    (302, "ThreadPool/Dequeue"),
    (303, "ThreadPool/IOEnqueue"),
    (304, "ThreadPool/IODequeue"),
    (305, "ThreadPool/IOPack"),
    (310, "LoaderHeap/AllocRequest"),
    (400, "ClrDynamicTypeUsage/IInspectableRuntimeClassName"),
    (401, "ClrDynamicTypeUsage/WinRTUnbox"),
    (402, "ClrDynamicTypeUsage/CreateRCW"),
    (403, "ClrDynamicTypeUsage/RCWVariance"),
    (404, "ClrDynamicTypeUsage/RCWIEnumerableCasting"),
    (405, "ClrDynamicTypeUsage/CreateCCW"),
    (406, "ClrDynamicTypeUsage/CCWVariance"),
    (407, "ClrDynamicTypeUsage/ObjectVariantMarshallingToNative"),
    (408, "ClrDynamicTypeUsage/GetTypeFromGUID"),
    (409, "ClrDynamicTypeUsage/GetTypeFromProgID"),
    (410, "ClrDynamicTypeUsage/ConvertToCallbackEtw"),
    (411, "ClrDynamicTypeUsage/BeginCreateManagedReference"),
    (412, "ClrDynamicTypeUsage/EndCreateManagedReference"),
    (413, "ClrDynamicTypeUsage/ObjectVariantMarshallingToManaged"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_and_unique() {
        for t in [
            RUNTIME,
            RUNDOWN,
            PRIVATE,
            STRESS,
            SAMPLE_PROFILER,
            EVENTPIPE,
        ] {
            assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
        }
    }

    /// (provider, id, name) triples read off the TraceEvent baselines in
    /// /work/shared/traces/perfview (EventName attribute of the first event of each name), with
    /// the id taken from the runtime manifest (ClrEtwAll.man).
    #[test]
    fn names_from_baselines() {
        let rt = RUNTIME_PROVIDER;
        let cases: &[(&str, u32, &str)] = &[
            (rt, 1, "GC/Start"),
            (rt, 2, "GC/Stop"),
            (rt, 3, "GC/RestartEEStop"),
            (rt, 4, "GC/HeapStats"),
            (rt, 5, "GC/CreateSegment"),
            (rt, 7, "GC/RestartEEStart"),
            (rt, 8, "GC/SuspendEEStop"),
            (rt, 9, "GC/SuspendEEStart"),
            (rt, 10, "GC/AllocationTick"),
            (rt, 12, "GC/TerminateConcurrentThread"),
            (rt, 13, "GC/FinalizersStop"),
            (rt, 14, "GC/FinalizersStart"),
            (rt, 15, "Type/BulkType"),
            (rt, 21, "GC/BulkSurvivingObjectRanges"),
            (rt, 22, "GC/BulkMovedObjectRanges"),
            (rt, 23, "GC/GenerationRange"),
            (rt, 25, "GC/MarkStackRoots"),
            (rt, 26, "GC/MarkFinalizeQueueRoots"),
            (rt, 27, "GC/MarkHandles"),
            (rt, 28, "GC/MarkCards"),
            (rt, 29, "GC/FinalizeObject"),
            (rt, 33, "GC/PinObjectAtGCTime"),
            (rt, 35, "GC/Triggered"),
            (rt, 50, "ThreadPoolWorkerThread/Start"),
            (rt, 54, "ThreadPoolWorkerThreadAdjustment/Sample"),
            (rt, 55, "ThreadPoolWorkerThreadAdjustment/Adjustment"),
            (rt, 56, "ThreadPoolWorkerThreadAdjustment/Stats"),
            (rt, 57, "ThreadPoolWorkerThread/Wait"),
            (rt, 61, "ThreadPool/Enqueue"),
            (rt, 62, "ThreadPool/Dequeue"),
            (rt, 80, "Exception/Start"),
            (rt, 81, "Contention/Start"),
            (rt, 85, "AppDomainResourceManagement/ThreadCreated"),
            (rt, 91, "Contention/Stop"),
            (rt, 143, "Method/LoadVerbose"),
            (rt, 144, "Method/UnloadVerbose"),
            (rt, 145, "Method/JittingStarted"),
            (rt, 151, "Loader/DomainModuleLoad"),
            (rt, 152, "Loader/ModuleLoad"),
            (rt, 153, "Loader/ModuleUnload"),
            (rt, 154, "Loader/AssemblyLoad"),
            (rt, 155, "Loader/AssemblyUnload"),
            (rt, 156, "Loader/AppDomainLoad"),
            (rt, 157, "Loader/AppDomainUnload"),
            (rt, 159, "Method/R2RGetEntryPoint"),
            (rt, 187, "Runtime/Start"),
            (rt, 200, "GC"),
            (rt, 202, "GC/MarkWithType"),
            (rt, 204, "GC/PerHeapHistory"),
            (rt, 205, "GC/GlobalHeapHistory"),
            (rt, 208, "GC/LOHCompact"),
            (rt, 209, "GC/FitBucketInfo"),
            (RUNDOWN_PROVIDER, 10, "GC/SettingsRundown"),
            (RUNDOWN_PROVIDER, 146, "Method/DCStopComplete"),
            (RUNDOWN_PROVIDER, 148, "Method/DCStopInit"),
            (RUNDOWN_PROVIDER, 152, "Loader/DomainModuleDCStop"),
            (RUNDOWN_PROVIDER, 154, "Loader/ModuleDCStop"),
            (RUNDOWN_PROVIDER, 156, "Loader/AssemblyDCStop"),
            (RUNDOWN_PROVIDER, 158, "Loader/AppDomainDCStop"),
            (RUNDOWN_PROVIDER, 187, "Runtime/Start"),
            (
                RUNDOWN_PROVIDER,
                280,
                "TieredCompilationRundown/SettingsDCStart",
            ),
            (
                RUNDOWN_PROVIDER,
                300,
                "ExecutionCheckpointRundown/ExecutionCheckpointDCEnd",
            ),
            (PRIVATE_PROVIDER, 2, "GC/Settings"),
            (PRIVATE_PROVIDER, 4, "GC/PerHeapHistory"),
            (PRIVATE_PROVIDER, 5, "GC/GlobalHeapHistory"),
            (PRIVATE_PROVIDER, 7, "GC/MarkStackRoots"),
            (PRIVATE_PROVIDER, 10, "GC/MarkCards"),
            (PRIVATE_PROVIDER, 161, "Binding/NgenPhaseStart"),
            (
                PRIVATE_PROVIDER,
                171,
                "Binding/LoaderAssemblyInitPhaseStart",
            ),
            (
                PRIVATE_PROVIDER,
                176,
                "Binding/LoaderDeliverEventsPhaseStop",
            ),
            (PRIVATE_PROVIDER, 188, "NgenBinder/NgenBind"),
            (PRIVATE_PROVIDER, 196, "Binding/FusionMessage"),
            (PRIVATE_PROVIDER, 199, "GC/PinPlugAtGCTime"),
            (SAMPLE_PROFILER_PROVIDER, 0, "Thread/Sample"),
            (EVENTPIPE_PROVIDER, 1, "ProcessInfo"),
        ];
        for &(p, id, name) in cases {
            assert_eq!(event_name(p, id, 0), Some(name), "{p} id {id}");
        }
    }

    #[test]
    fn unknown_ids_and_providers() {
        assert_eq!(event_name(RUNTIME_PROVIDER, 24, 0), None);
        assert_eq!(event_name(RUNTIME_PROVIDER, 100_000, 0), None);
        assert_eq!(event_name("MyEventSource", 1, 0), None);
        assert_eq!(event_name(SAMPLE_PROFILER_PROVIDER, 1, 0), None);
    }

    #[test]
    fn dynamic_and_split_ids() {
        assert_eq!(
            event_name(RUNTIME_PROVIDER, 39, 0),
            Some("GC/DynamicTraceEvent")
        );
        assert_eq!(event_name(RUNTIME_PROVIDER, 19, 0), Some("GC/BulkEdge"));
        assert_eq!(
            event_name(RUNTIME_PROVIDER, 189, 0),
            Some("Method/TailCallFailedAnsi")
        );
        assert_eq!(
            event_name(RUNTIME_PROVIDER, 191, 0),
            Some("Method/TailCallFailed")
        );
        assert_eq!(
            event_name(RUNTIME_PROVIDER, 31, 0),
            Some("GC/DestoryGCHandle")
        );
        assert_eq!(event_name(RUNTIME_PROVIDER, 201, 0), Some("GC"));
        assert_eq!(event_name(PRIVATE_PROVIDER, 194, 0), Some("GC/SetGCHandle"));
    }
}
