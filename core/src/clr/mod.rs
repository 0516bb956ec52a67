//! The .NET runtime's providers: TraceEvent-style event names ([`names`]), GC value maps
//! ([`enums`]) and typed GC payloads ([`gc`]), with [`decode`] dispatching an [`Event`] to the
//! right payload decoder by (provider, id, version).
//!
//! Runtime events carry no field descriptions in EventPipe metadata, so the layouts live here,
//! taken from the runtime's manifest (ClrEtwAll.man) and checked against real traces
//! (core/tests/clr_all_traces.rs: every payload byte accounted for; core/tests/first_gc_fields.rs:
//! every field of first events equal to TraceEvent's rendering).
//!
//! Adding an event or a version: the id goes in [`ids`], the layout in the `parse` of its struct
//! in the [`gc`] module of its family (fields of a new version appended after a `version >= N`
//! check; payloads are packed, pointers follow `Event::pointer_size`), the variant and dispatch
//! line here, and a size rule in clr_all_traces.rs's `expected_len`.

pub mod enums;
pub mod gc;
pub mod ids;
pub mod layout;
pub mod names;
pub mod payload;

pub use names::event_name;
pub use payload::{PayloadError, PayloadErrorKind, U32Array, Utf16Str};

use crate::event::Event;
use enums::GcRootKind;
use gc::*;
use names::{PRIVATE_PROVIDER, RUNDOWN_PROVIDER, RUNTIME_PROVIDER};
use payload::PResult;

/// A decoded GC-related runtime event. Variants borrow strings and arrays from the payload.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "event")]
pub enum ClrEvent<'a> {
    /// id 1, GC/Start.
    GcStart(GcStart),
    /// id 2, GC/Stop.
    GcEnd(GcEnd),
    /// id 3, GC/RestartEEStop.
    GcRestartEeEnd(GcNoUserData),
    /// id 4, GC/HeapStats.
    GcHeapStats(GcHeapStats),
    /// id 5, GC/CreateSegment.
    GcCreateSegment(GcCreateSegment),
    /// id 6, GC/FreeSegment.
    GcFreeSegment(GcFreeSegment),
    /// id 7, GC/RestartEEStart.
    GcRestartEeBegin(GcNoUserData),
    /// id 8, GC/SuspendEEStop.
    GcSuspendEeEnd(GcNoUserData),
    /// id 9, GC/SuspendEEStart.
    GcSuspendEeBegin(GcSuspendEeBegin),
    /// id 10, GC/AllocationTick.
    GcAllocationTick(GcAllocationTick<'a>),
    /// ids 20 / 32, GC/SampledObjectAllocation (High / Low keyword).
    GcSampledObjectAllocation(GcSampledObjectAllocation),
    /// id 303, AllocationSampling (.NET 10).
    AllocationSampled(AllocationSampled<'a>),
    /// id 11, GC/CreateConcurrentThread.
    GcCreateConcurrentThread(GcNoUserData),
    /// id 12, GC/TerminateConcurrentThread.
    GcTerminateConcurrentThread(GcNoUserData),
    /// id 13, GC/FinalizersStop.
    GcFinalizersEnd(GcFinalizersEnd),
    /// id 14, GC/FinalizersStart.
    GcFinalizersBegin(GcNoUserData),
    /// id 15, Type/BulkType.
    BulkType(BulkType<'a>),
    /// ids 16-19, 21, 22, 36-38: GC/Bulk*; [`GcBulk::kind`] says which.
    GcBulk(GcBulk<'a>),
    /// id 23, GC/GenerationRange.
    GcGenerationRange(GcGenerationRange),
    /// ids 25-28 (runtime) and 7-10 (private): GC/MarkStackRoots ... GC/MarkCards.
    GcMark(GcMark),
    /// id 29, GC/FinalizeObject (and private id 192, which adds the type name).
    FinalizeObject(GcFinalizeObject<'a>),
    /// id 30, GC/SetGCHandle (and private id 194).
    SetGcHandle(SetGcHandle),
    /// id 31, GC/DestoryGCHandle (and private id 195).
    DestroyGcHandle(DestroyGcHandle),
    /// id 33, GC/PinObjectAtGCTime.
    PinObjectAtGcTime(PinObjectAtGcTime<'a>),
    /// id 35, GC/Triggered.
    GcTriggered(GcTriggered),
    /// id 39, GC/DynamicTraceEvent.
    GcDynamicEvent(GcDynamicEvent<'a>),
    /// id 200.
    IncreaseMemoryPressure(MemoryPressure),
    /// id 201.
    DecreaseMemoryPressure(MemoryPressure),
    /// id 202, GC/MarkWithType.
    GcMarkWithType(GcMarkWithType),
    /// id 203, GC/Join (and private id 6).
    GcJoin(GcJoin),
    /// id 204, GC/PerHeapHistory (and private id 4, the .NET Framework layout).
    GcPerHeapHistory(GcPerHeapHistory<'a>),
    /// id 205, GC/GlobalHeapHistory (and private id 5, versions 0/1).
    GcGlobalHeapHistory(GcGlobalHeapHistory<'a>),
    /// id 208, GC/LOHCompact.
    GcLohCompact(GcLohCompact<'a>),
    /// id 209, GC/FitBucketInfo.
    GcFitBucketInfo(GcFitBucketInfo<'a>),
    /// Rundown id 10, GC/SettingsRundown.
    GcSettingsRundown(GcSettingsRundown),
    /// Private id 2, GC/Settings (.NET Framework, at the GC's start).
    GcSettings(GcSettings),
    /// Private ids 11-19: background GC phase markers.
    BgcPhase { phase: BgcPhase, data: GcNoUserData },
    /// Private id 20.
    BgcDrainMark(BgcDrainMark),
    /// Private id 21.
    BgcRevisit(BgcRevisit),
    /// Private id 22.
    BgcOverflow(BgcOverflow),
    /// Private id 23.
    BgcAllocWaitBegin(BgcAllocWait),
    /// Private id 24.
    BgcAllocWaitEnd(BgcAllocWait),
    /// Private id 25.
    GcFullNotify(GcFullNotify),
    /// Private id 26.
    Bgc1stSweepEnd(Bgc1stSweepEnd),
    /// Private id 199, GC/PinPlugAtGCTime.
    PinPlugAtGcTime(PinPlugAtGcTime),
}

/// The background-GC phase markers of the private provider (ids 11-19).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum BgcPhase {
    /// 11, GC/BGCStart.
    Begin,
    /// 12, GC/BGC1stNonCondStop.
    FirstNonConcurrentEnd,
    /// 13, GC/BGC1stConStop.
    FirstConcurrentEnd,
    /// 14, GC/BGC2ndNonConStart.
    SecondNonConcurrentBegin,
    /// 15, GC/BGC2ndNonConStop.
    SecondNonConcurrentEnd,
    /// 16, GC/BGC2ndConStart.
    SecondConcurrentBegin,
    /// 17, GC/BGC2ndConStop.
    SecondConcurrentEnd,
    /// 18, GC/BGCPlanStop.
    PlanEnd,
    /// 19, GC/BGCSweepStop.
    SweepEnd,
}

/// The event's TraceEvent-style name like [`event_name`], except that GCDynamicEvent (id 39) is
/// named by its payload as current TraceEvent names the ones it decodes: `GC/<Name>` for a known
/// name (`GC/CommittedUsage`, `GC/SizeAdaptationTuning`, ...) whose blob fits its layout, else
/// `GC/DynamicTraceEvent`. TraceEvent 3.1.3 counts all of them as one event, `EventID(39)`: the
/// per-(provider, id, version) counts are unchanged by these names.
pub fn event_name_for(ev: &Event<'_>) -> Option<&'static str> {
    if ev.provider == RUNTIME_PROVIDER && ev.event_id == ids::runtime::GC_DYNAMIC_EVENT {
        if let Ok(d) = GcDynamicEvent::parse(ev.payload, ev.version, ev.pointer_size) {
            let kind = d.kind();
            if d.payload().is_ok() {
                return Some(kind.event_name());
            }
        }
    }
    event_name(ev.provider, ev.event_id, ev.version)
}

/// Whether [`decode`] reads events of `provider` and `event_id` as GCAllocationTick (any version):
/// the events a [`gc::TickDigest`] may stand for.
pub fn is_allocation_tick(provider: &str, event_id: u32) -> bool {
    event_id == ids::runtime::GC_ALLOCATION_TICK && provider == RUNTIME_PROVIDER
}

/// Decodes a GC-related runtime event. `None` if the event is not one of the runtime's GC events
/// we decode (other providers, other ids, versions whose layout we do not know).
pub fn decode<'a>(ev: &Event<'a>) -> Option<Result<ClrEvent<'a>, PayloadError>> {
    let (p, v, ptr) = (ev.payload, ev.version, ev.pointer_size);
    match ev.provider {
        RUNTIME_PROVIDER => decode_runtime(ev.event_id, p, v, ptr),
        PRIVATE_PROVIDER => decode_private(ev.event_id, p, v, ptr),
        RUNDOWN_PROVIDER => match ev.event_id {
            ids::rundown::GC_SETTINGS_RUNDOWN => {
                Some(GcSettingsRundown::parse(p, v, ptr).map(ClrEvent::GcSettingsRundown))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether [`decode`] has a layout for events of `provider` and `event_id`, at some version: it
/// returns `Some` for those (`Ok`, or `Err` for a payload that does not fit) and `None` for every
/// other event. Keep in step with the dispatch below (the `has_layout_agrees_with_decode` test
/// checks every id).
pub fn has_layout(provider: &str, event_id: u32) -> bool {
    match provider {
        RUNTIME_PROVIDER => {
            use ids::runtime::*;
            matches!(
                event_id,
                GC_START..=GC_GENERATION_RANGE
                    | GC_MARK_STACK_ROOTS..=PIN_OBJECT_AT_GC_TIME
                    | GC_TRIGGERED..=GC_DYNAMIC_EVENT
                    | INCREASE_MEMORY_PRESSURE..=GC_GLOBAL_HEAP_HISTORY
                    | GC_LOH_COMPACT
                    | GC_FIT_BUCKET_INFO
                    | ALLOCATION_SAMPLED
            )
        }
        PRIVATE_PROVIDER => {
            use ids::private::*;
            matches!(
                event_id,
                GC_SETTINGS | GC_PER_HEAP_HISTORY
                    ..=BGC_1ST_SWEEP_END
                        | PRV_FINALIZE_OBJECT
                        | PRV_SET_GC_HANDLE
                        | PRV_DESTROY_GC_HANDLE
                        | PIN_PLUG_AT_GC_TIME
            )
        }
        RUNDOWN_PROVIDER => event_id == ids::rundown::GC_SETTINGS_RUNDOWN,
        _ => false,
    }
}

fn wrap<'a, T>(r: PResult<T>, f: fn(T) -> ClrEvent<'a>) -> Option<PResult<ClrEvent<'a>>> {
    Some(r.map(f))
}

fn decode_runtime<'a>(id: u32, p: &'a [u8], v: u32, ptr: u8) -> Option<PResult<ClrEvent<'a>>> {
    use ids::runtime::*;
    let bulk = |kind| Some(GcBulk::parse(p, kind, ptr).map(ClrEvent::GcBulk));
    let mark = |kind| Some(GcMark::parse(p, kind, v, ptr).map(ClrEvent::GcMark));
    match id {
        GC_START => wrap(GcStart::parse(p, v, ptr), ClrEvent::GcStart),
        GC_END => wrap(GcEnd::parse(p, v, ptr), ClrEvent::GcEnd),
        GC_RESTART_EE_END => wrap(GcNoUserData::parse(p, v, ptr), ClrEvent::GcRestartEeEnd),
        GC_HEAP_STATS => wrap(GcHeapStats::parse(p, v, ptr), ClrEvent::GcHeapStats),
        GC_CREATE_SEGMENT => wrap(GcCreateSegment::parse(p, v, ptr), ClrEvent::GcCreateSegment),
        GC_FREE_SEGMENT => wrap(GcFreeSegment::parse(p, v, ptr), ClrEvent::GcFreeSegment),
        GC_RESTART_EE_BEGIN => wrap(GcNoUserData::parse(p, v, ptr), ClrEvent::GcRestartEeBegin),
        GC_SUSPEND_EE_END => wrap(GcNoUserData::parse(p, v, ptr), ClrEvent::GcSuspendEeEnd),
        GC_SUSPEND_EE_BEGIN => wrap(
            GcSuspendEeBegin::parse(p, v, ptr),
            ClrEvent::GcSuspendEeBegin,
        ),
        GC_ALLOCATION_TICK => wrap(
            GcAllocationTick::parse(p, v, ptr),
            ClrEvent::GcAllocationTick,
        ),
        GC_CREATE_CONCURRENT_THREAD => wrap(
            GcNoUserData::parse(p, v, ptr),
            ClrEvent::GcCreateConcurrentThread,
        ),
        GC_TERMINATE_CONCURRENT_THREAD => wrap(
            GcNoUserData::parse(p, v, ptr),
            ClrEvent::GcTerminateConcurrentThread,
        ),
        GC_FINALIZERS_END => wrap(GcFinalizersEnd::parse(p, v, ptr), ClrEvent::GcFinalizersEnd),
        GC_FINALIZERS_BEGIN => wrap(GcNoUserData::parse(p, v, ptr), ClrEvent::GcFinalizersBegin),
        BULK_TYPE => wrap(BulkType::parse(p, v, ptr), ClrEvent::BulkType),
        GC_BULK_ROOT_EDGE => bulk(BulkKind::RootEdge),
        GC_BULK_ROOT_CWT_ELEMENT_EDGE => bulk(BulkKind::RootConditionalWeakTableElementEdge),
        GC_BULK_NODE => bulk(BulkKind::Node),
        GC_BULK_EDGE => bulk(BulkKind::Edge),
        GC_BULK_SURVIVING_OBJECT_RANGES => bulk(BulkKind::SurvivingObjectRanges),
        GC_BULK_MOVED_OBJECT_RANGES => bulk(BulkKind::MovedObjectRanges),
        GC_BULK_ROOT_CCW => bulk(BulkKind::RootCcw),
        GC_BULK_RCW => bulk(BulkKind::Rcw),
        GC_BULK_ROOT_STATIC_VAR => bulk(BulkKind::RootStaticVar),
        GC_SAMPLED_OBJECT_ALLOCATION_HIGH | GC_SAMPLED_OBJECT_ALLOCATION_LOW => wrap(
            GcSampledObjectAllocation::parse(p, v, ptr),
            ClrEvent::GcSampledObjectAllocation,
        ),
        ALLOCATION_SAMPLED => wrap(
            AllocationSampled::parse(p, v, ptr),
            ClrEvent::AllocationSampled,
        ),
        GC_GENERATION_RANGE => wrap(
            GcGenerationRange::parse(p, v, ptr),
            ClrEvent::GcGenerationRange,
        ),
        GC_MARK_STACK_ROOTS => mark(GcRootKind::Stack),
        GC_MARK_FINALIZE_QUEUE_ROOTS => mark(GcRootKind::Finalizer),
        GC_MARK_HANDLES => mark(GcRootKind::Handle),
        GC_MARK_OLDER_GENERATION_ROOTS => mark(GcRootKind::Older),
        FINALIZE_OBJECT => wrap(
            GcFinalizeObject::parse(p, false, v, ptr),
            ClrEvent::FinalizeObject,
        ),
        SET_GC_HANDLE => wrap(SetGcHandle::parse(p, v, ptr), ClrEvent::SetGcHandle),
        DESTROY_GC_HANDLE => wrap(DestroyGcHandle::parse(p, v, ptr), ClrEvent::DestroyGcHandle),
        PIN_OBJECT_AT_GC_TIME => wrap(
            PinObjectAtGcTime::parse(p, v, ptr),
            ClrEvent::PinObjectAtGcTime,
        ),
        GC_TRIGGERED => wrap(GcTriggered::parse(p, v, ptr), ClrEvent::GcTriggered),
        GC_DYNAMIC_EVENT => wrap(GcDynamicEvent::parse(p, v, ptr), ClrEvent::GcDynamicEvent),
        INCREASE_MEMORY_PRESSURE => wrap(
            MemoryPressure::parse(p, v, ptr),
            ClrEvent::IncreaseMemoryPressure,
        ),
        DECREASE_MEMORY_PRESSURE => wrap(
            MemoryPressure::parse(p, v, ptr),
            ClrEvent::DecreaseMemoryPressure,
        ),
        GC_MARK_WITH_TYPE => wrap(GcMarkWithType::parse(p, v, ptr), ClrEvent::GcMarkWithType),
        GC_JOIN => wrap(GcJoin::parse(p, v, ptr), ClrEvent::GcJoin),
        // Only version 3 exists in this provider; older layouts were the private provider's.
        GC_PER_HEAP_HISTORY if v >= 3 => wrap(
            GcPerHeapHistory::parse(p, v, ptr),
            ClrEvent::GcPerHeapHistory,
        ),
        GC_GLOBAL_HEAP_HISTORY => wrap(
            GcGlobalHeapHistory::parse(p, v, ptr),
            ClrEvent::GcGlobalHeapHistory,
        ),
        GC_LOH_COMPACT => wrap(GcLohCompact::parse(p, v, ptr), ClrEvent::GcLohCompact),
        GC_FIT_BUCKET_INFO => wrap(GcFitBucketInfo::parse(p, v, ptr), ClrEvent::GcFitBucketInfo),
        _ => None,
    }
}

fn decode_private<'a>(id: u32, p: &'a [u8], v: u32, ptr: u8) -> Option<PResult<ClrEvent<'a>>> {
    use ids::private::*;
    // The private provider's GCNoUserData template has ClrInstanceID from version 0 on.
    let phase = |phase| {
        Some(GcNoUserData::parse(p, v.max(1), ptr).map(|data| ClrEvent::BgcPhase { phase, data }))
    };
    let mark = |kind| Some(GcMark::parse(p, kind, v, ptr).map(ClrEvent::GcMark));
    match id {
        GC_SETTINGS => wrap(GcSettings::parse(p, v, ptr), ClrEvent::GcSettings),
        GC_PER_HEAP_HISTORY => wrap(
            GcPerHeapHistory::parse_framework(p, v, ptr),
            ClrEvent::GcPerHeapHistory,
        ),
        GC_GLOBAL_HEAP_HISTORY => wrap(
            GcGlobalHeapHistory::parse(p, v, ptr),
            ClrEvent::GcGlobalHeapHistory,
        ),
        GC_JOIN => wrap(GcJoin::parse(p, v, ptr), ClrEvent::GcJoin),
        GC_MARK_STACK_ROOTS => mark(GcRootKind::Stack),
        GC_MARK_FINALIZE_QUEUE_ROOTS => mark(GcRootKind::Finalizer),
        GC_MARK_HANDLES => mark(GcRootKind::Handle),
        GC_MARK_CARDS => mark(GcRootKind::Older),
        BGC_BEGIN => phase(BgcPhase::Begin),
        BGC_1ST_NON_CON_END => phase(BgcPhase::FirstNonConcurrentEnd),
        BGC_1ST_CON_END => phase(BgcPhase::FirstConcurrentEnd),
        BGC_2ND_NON_CON_BEGIN => phase(BgcPhase::SecondNonConcurrentBegin),
        BGC_2ND_NON_CON_END => phase(BgcPhase::SecondNonConcurrentEnd),
        BGC_2ND_CON_BEGIN => phase(BgcPhase::SecondConcurrentBegin),
        BGC_2ND_CON_END => phase(BgcPhase::SecondConcurrentEnd),
        BGC_PLAN_END => phase(BgcPhase::PlanEnd),
        BGC_SWEEP_END => phase(BgcPhase::SweepEnd),
        BGC_DRAIN_MARK => wrap(BgcDrainMark::parse(p, v, ptr), ClrEvent::BgcDrainMark),
        BGC_REVISIT => wrap(BgcRevisit::parse(p, v, ptr), ClrEvent::BgcRevisit),
        BGC_OVERFLOW => wrap(BgcOverflow::parse(p, v, ptr), ClrEvent::BgcOverflow),
        BGC_ALLOC_WAIT_BEGIN => wrap(BgcAllocWait::parse(p, v, ptr), ClrEvent::BgcAllocWaitBegin),
        BGC_ALLOC_WAIT_END => wrap(BgcAllocWait::parse(p, v, ptr), ClrEvent::BgcAllocWaitEnd),
        GC_FULL_NOTIFY => wrap(GcFullNotify::parse(p, v, ptr), ClrEvent::GcFullNotify),
        BGC_1ST_SWEEP_END => wrap(Bgc1stSweepEnd::parse(p, v, ptr), ClrEvent::Bgc1stSweepEnd),
        PRV_FINALIZE_OBJECT => wrap(
            GcFinalizeObject::parse(p, true, v, ptr),
            ClrEvent::FinalizeObject,
        ),
        PRV_SET_GC_HANDLE => wrap(SetGcHandle::parse(p, v, ptr), ClrEvent::SetGcHandle),
        PRV_DESTROY_GC_HANDLE => wrap(DestroyGcHandle::parse(p, v, ptr), ClrEvent::DestroyGcHandle),
        PIN_PLUG_AT_GC_TIME => wrap(PinPlugAtGcTime::parse(p, v, ptr), ClrEvent::PinPlugAtGcTime),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event<'a>(provider: &'a str, id: u32, version: u32, payload: &'a [u8]) -> Event<'a> {
        Event {
            provider,
            event_id: id,
            version,
            pointer_size: 8,
            payload,
            ..Event::default()
        }
    }

    #[test]
    fn dispatch() {
        let t = [1u8, 0, 0, 0, 3, 0];
        match decode(&event(RUNTIME_PROVIDER, 35, 0, &t)) {
            Some(Ok(ClrEvent::GcTriggered(g))) => {
                assert_eq!(g.reason, enums::GcReason::Induced);
                assert_eq!(g.clr_instance_id, 3);
            }
            other => panic!("{other:?}"),
        }
        // Not a GC event / other provider / unknown id.
        assert!(decode(&event(RUNTIME_PROVIDER, 80, 1, &t)).is_none());
        assert!(decode(&event("MyEventSource", 35, 0, &t)).is_none());
        assert!(decode(&event(RUNTIME_PROVIDER, 204, 2, &t)).is_none());
        // Private phase marker and PinPlug.
        assert!(decode(&event(PRIVATE_PROVIDER, 11, 0, &[]))
            .unwrap()
            .is_err());
        assert!(matches!(
            decode(&event(PRIVATE_PROVIDER, 11, 0, &[3, 0])),
            Some(Ok(ClrEvent::BgcPhase {
                phase: BgcPhase::Begin,
                ..
            }))
        ));
        // Too short: Err with the payload offset.
        match decode(&event(RUNTIME_PROVIDER, 35, 0, &t[..5])) {
            Some(Err(e)) => assert_eq!(e.offset, 4),
            other => panic!("{other:?}"),
        }
        // Mark event kinds come from the id.
        match decode(&event(RUNTIME_PROVIDER, 27, 0, &[1, 0, 0, 0, 3, 0])) {
            Some(Ok(ClrEvent::GcMark(m))) => assert_eq!(m.root_kind, GcRootKind::Handle),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn has_layout_agrees_with_decode() {
        let providers = [
            RUNTIME_PROVIDER,
            PRIVATE_PROVIDER,
            RUNDOWN_PROVIDER,
            names::EVENTPIPE_PROVIDER,
            "Microsoft-Windows-DotNETRuntimeStress",
            "MyEventSource",
        ];
        let mut with_layout = 0;
        for provider in providers {
            for id in 0..=1000u32 {
                let decodes = (0..=12u32).any(|v| {
                    [&[][..], &[0u8; 64][..]]
                        .iter()
                        .any(|p| decode(&event(provider, id, v, p)).is_some())
                });
                assert_eq!(has_layout(provider, id), decodes, "{provider} {id}");
                with_layout += decodes as u32;
            }
        }
        // Every id constant of the decoded events (ids.rs) and no other.
        assert_eq!(with_layout, 46 + 28 + 1);
    }

    #[test]
    fn json_shape() {
        let start = [7u8, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0];
        let e = decode(&event(RUNTIME_PROVIDER, 1, 1, &start))
            .unwrap()
            .unwrap();
        let j = serde_json::to_value(&e).unwrap();
        assert_eq!(
            j,
            serde_json::json!({"event": "GcStart", "count": 7, "depth": 2, "reason": "Induced",
                "gc_type": "NonConcurrentGC", "clr_instance_id": 3, "client_sequence_number": null})
        );
        // Unknown enum values serialize as numbers.
        let t = [99u8, 0, 0, 0, 3, 0];
        let e = decode(&event(RUNTIME_PROVIDER, 35, 0, &t))
            .unwrap()
            .unwrap();
        assert_eq!(serde_json::to_value(&e).unwrap()["reason"], 99);
        // PerHeapHistory lists its generation records; x86, one generation.
        // ClrInstanceID, 6 ptr, 6 u32, ExtraGen0Commit ptr: Count at 54.
        let mut p = alloc::vec![0u8; 2 + 6 * 4 + 6 * 4 + 4];
        p.extend_from_slice(&1u32.to_le_bytes());
        for v in 1..=10u32 {
            p.extend_from_slice(&v.to_le_bytes());
        }
        let mut ev = event(RUNTIME_PROVIDER, 204, 3, &p);
        ev.pointer_size = 4;
        let j = serde_json::to_value(decode(&ev).unwrap().unwrap()).unwrap();
        assert_eq!(j["count"], 1);
        assert_eq!(j["generations"][0]["size_before"], 1);
        assert_eq!(j["generations"][0]["new_allocation"], 10);
    }

    #[test]
    fn dynamic_event_names() {
        let mut p: alloc::vec::Vec<u8> = "CommittedUsage"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        p.extend_from_slice(&[0, 0]);
        p.extend_from_slice(&42u32.to_le_bytes());
        p.extend_from_slice(&[0; 42]);
        p.extend_from_slice(&[0, 0]);
        let ev = event(RUNTIME_PROVIDER, 39, 0, &p);
        assert_eq!(event_name_for(&ev), Some("GC/CommittedUsage"));
        let other = event(RUNTIME_PROVIDER, 39, 0, &[b'X', 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(event_name_for(&other), Some("GC/DynamicTraceEvent"));
        assert_eq!(
            event_name_for(&event(RUNTIME_PROVIDER, 1, 2, &[])),
            Some("GC/Start")
        );
    }

    /// Every decoder must return (not panic) on every prefix of a valid payload and on garbage.
    #[test]
    fn no_panics_on_truncation_or_garbage() {
        // Pseudo-random bytes, all-zero (zero counts) and all-0xFF (huge counts and sizes).
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let random: alloc::vec::Vec<u8> = (0..600)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for garbage in [random, alloc::vec![0u8; 600], alloc::vec![0xFFu8; 600]] {
            walk_all(&garbage);
        }
    }

    fn walk_all(garbage: &[u8]) {
        let providers = [RUNTIME_PROVIDER, PRIVATE_PROVIDER, RUNDOWN_PROVIDER];
        for provider in providers {
            for id in 0..=310u32 {
                for version in 0..=5u32 {
                    for ptr in [4u8, 8] {
                        for len in [0usize, 1, 2, 5, 9, 17, 30, 50, 90, 200, 600] {
                            let mut ev = event(provider, id, version, &garbage[..len]);
                            ev.pointer_size = ptr;
                            let _ = event_name_for(&ev);
                            if let Some(Ok(e)) = decode(&ev) {
                                // Walk lazily decoded parts too.
                                match e {
                                    ClrEvent::GcBulk(b) => {
                                        let _ = b.moved_ranges().count();
                                        let _ = b.surviving_ranges().count();
                                        let _ = b.root_edges().count();
                                        let _ = b.nodes().count();
                                        let _ = b.edges().count();
                                        let _ = b.cwt_edges().count();
                                        let _ = b.root_ccws().count();
                                        let _ = b.rcws().count();
                                        let _ = b.static_vars().count();
                                    }
                                    ClrEvent::BulkType(t) => {
                                        let _ = t.types().count();
                                    }
                                    ClrEvent::GcPerHeapHistory(h) => {
                                        let _ = h.generations().count();
                                    }
                                    ClrEvent::GcLohCompact(c) => {
                                        let _ = c.heaps().count();
                                    }
                                    ClrEvent::GcFitBucketInfo(f) => {
                                        let _ = f.buckets().count();
                                    }
                                    ClrEvent::GcDynamicEvent(d) => {
                                        let _ = d.payload();
                                    }
                                    _ => {}
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
