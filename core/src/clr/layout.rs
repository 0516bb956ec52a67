//! How many payload bytes each decoded layout accounts for (see [`layout_len`]).

use super::gc::BulkKind;
use super::{ClrEvent, Utf16Str};

/// The payload size the decoded layout accounts for, from the manifest's field list (packed
/// fields, pointers of the trace's size, strings UTF-16 + NUL). A payload longer than this carries
/// fields of a newer version than the decoder knows (kept raw by the model; `core/tests/
/// clr_all_traces.rs` checks that every real payload is exactly this long). Exhaustive: a new variant
/// needs a rule here. `None` when the layout cannot say (a bulk event whose count disagrees with its
/// records).
pub fn layout_len(d: &ClrEvent<'_>, v: u32, pointer_size: u8) -> Option<usize> {
    let p = usize::from(pointer_size);
    let s16 = |s: &Utf16Str<'_>| s.0.len() + 2;
    Some(match d {
        ClrEvent::GcStart(_) => [8, 18, 26][v.min(2) as usize],
        ClrEvent::GcEnd(_) => [6, 10][v.min(1) as usize],
        ClrEvent::GcRestartEeEnd(_)
        | ClrEvent::GcRestartEeBegin(_)
        | ClrEvent::GcSuspendEeEnd(_)
        | ClrEvent::GcFinalizersBegin(_)
        | ClrEvent::GcCreateConcurrentThread(_)
        | ClrEvent::GcTerminateConcurrentThread(_) => [0, 2][v.min(1) as usize],
        ClrEvent::GcSuspendEeBegin(_) => [2, 10][v.min(1) as usize],
        ClrEvent::GcHeapStats(_) => [92, 94, 110][v.min(2) as usize],
        ClrEvent::GcCreateSegment(_) => [20, 22][v.min(1) as usize],
        ClrEvent::GcFreeSegment(_) => [8, 10][v.min(1) as usize],
        ClrEvent::GcFinalizersEnd(_) => [4, 6][v.min(1) as usize],
        ClrEvent::GcTriggered(_) => 6,
        ClrEvent::IncreaseMemoryPressure(_) | ClrEvent::DecreaseMemoryPressure(_) => 10,
        ClrEvent::GcMarkWithType(_) => 18,
        ClrEvent::GcGenerationRange(_) => 1 + p + 8 + 8 + 2,
        ClrEvent::SetGcHandle(_) => 2 * p + 4 + 4 + 8 + 2,
        ClrEvent::DestroyGcHandle(_) => p + 2,
        ClrEvent::PinPlugAtGcTime(_) => 3 * p + 2,
        ClrEvent::FinalizeObject(f) => 2 * p + 2 + f.type_name.as_ref().map_or(0, s16),
        ClrEvent::PinObjectAtGcTime(o) => 2 * p + 8 + s16(&o.type_name) + 2,
        ClrEvent::GcAllocationTick(a) => {
            let mut n = 8;
            if v >= 1 {
                n += 2;
            }
            if v >= 2 {
                n += 8 + p + s16(a.type_name.as_ref()?) + 4;
            }
            if v >= 3 {
                n += p;
            }
            if v >= 4 {
                n += 8;
            }
            n
        }
        ClrEvent::GcPerHeapHistory(h) => 2 + 6 * p + 5 * 4 + 4 + p + 4 + h.count as usize * 10 * p,
        ClrEvent::GcGlobalHeapHistory(h) => match v {
            0 => 28,
            1 => 30,
            2 => 38,
            3 => 46,
            _ => 50 + 4 * h.phase_times?.len(),
        },
        ClrEvent::GcSampledObjectAllocation(_) => 2 * p + 14,
        ClrEvent::AllocationSampled(a) => 6 + p + s16(&a.type_name) + p + 16,
        ClrEvent::BulkType(t) => {
            if t.types().count() != t.count as usize {
                return None;
            }
            6 + t.values_len()
        }
        ClrEvent::GcJoin(_) => [12, 14, 18][v.min(2) as usize],
        ClrEvent::GcMark(_) => 6,
        ClrEvent::GcLohCompact(c) => 4 + usize::from(c.count) * if p == 8 { 32 } else { 20 },
        ClrEvent::GcFitBucketInfo(f) => 14 + usize::from(f.count) * (8 + p),
        ClrEvent::GcSettingsRundown(_) => 50,
        ClrEvent::GcSettings(_) => [20, 22][v.min(1) as usize],
        ClrEvent::BgcPhase { .. } => 2,
        ClrEvent::BgcDrainMark(_) => 10,
        ClrEvent::BgcRevisit(_) => 22,
        ClrEvent::BgcOverflow(_) => [30, 34][v.min(1) as usize],
        ClrEvent::BgcAllocWaitBegin(_) | ClrEvent::BgcAllocWaitEnd(_) => 6,
        ClrEvent::GcFullNotify(_) => [8, 10][v.min(1) as usize],
        ClrEvent::Bgc1stSweepEnd(_) => 6,
        ClrEvent::GcDynamicEvent(g) => s16(&g.name) + 4 + g.data.len() + 2,
        ClrEvent::GcBulk(b) if b.kind == BulkKind::RootStaticVar => {
            let names: usize = b.static_vars().map(|s| 28 + s16(&s.field_name)).sum();
            if b.static_vars().count() != b.count as usize {
                return None;
            }
            b.kind.header_len() + names
        }
        ClrEvent::GcBulk(b) => b.kind.header_len() + b.count as usize * b.kind.stride(p as u8)?,
    })
}
