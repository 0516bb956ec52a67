//! The one place the model reads typed runtime events ([`crate::clr`]): each event becomes a
//! builder call with plain values. A new event version changes the clr layer, not this file.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::builder::{GlobalHistoryInput, HeapStatsInput, ModelBuilder, PerHeapInput};
use crate::clr::{self, ClrEvent};
use crate::event::Event;
use crate::sink::DecodeStats;

/// Generation records per heap we keep (gen0, gen1, gen2, LOH, POH).
const MAX_GENS: usize = 5;
/// GCGlobalHeapHistory phase slots we keep.
const MAX_TIMES: usize = 16;
/// Runtime/Start (runtime provider) and its rundown copy: RuntimeInformation.
const RUNTIME_INFORMATION: u32 = 187;
/// Microsoft-DotNETCore-EventPipe ProcessInfo.
const PROCESS_INFO: u32 = 1;

// The two process-describing events below are not GC events, so the clr layer does not decode
// them; their few fields are read here (bounds-checked) until it does.

/// A UTF-16LE NUL-terminated string at `at`; returns it and the offset after the NUL.
fn utf16z(p: &[u8], at: usize) -> Option<(String, usize)> {
    let mut units = Vec::new();
    let mut i = at;
    loop {
        let u = u16::from_le_bytes([*p.get(i)?, *p.get(i + 1)?]);
        i += 2;
        if u == 0 {
            break;
        }
        units.push(u);
    }
    Some((String::from_utf16_lossy(&units), i))
}

/// RuntimeInformation: u16 ClrInstanceID, Sku, Bcl{Major,Minor,Build,Qfe}, VM{Major,Minor,Build,Qfe},
/// u32 StartupFlags, u8 StartupMode, CommandLine, GUID, RuntimeDllPath. .NET 5+ put the product
/// version in the Bcl fields; .NET Core 3.x says 4.0.0.0 there, so take the version from the
/// runtime's directory (`.../Microsoft.NETCore.App/3.1.23/...`).
fn runtime_version(p: &[u8]) -> Option<String> {
    let w = |i: usize| Some(u16::from_le_bytes([*p.get(2 * i)?, *p.get(2 * i + 1)?]));
    let (bmaj, bmin, bbuild) = (w(2)?, w(3)?, w(4)?);
    let vm = format!("{}.{}.{}.{}", w(6)?, w(7)?, w(8)?, w(9)?);
    // Sku 1 is DesktopClr: .NET Framework, whose VM version is the CLR's (4.0.30319.x).
    if w(1)? == 1 {
        return Some(format!(".NET Framework (CLR {vm})"));
    }
    if bmaj >= 5 {
        return Some(format!("{bmaj}.{bmin}.{bbuild} (CoreCLR {vm})"));
    }
    let (_, after_cmd) = utf16z(p, 25)?;
    let (path, _) = utf16z(p, after_cmd + 16)?;
    let path = path.replace('\\', "/");
    let from_dir = path
        .split("Microsoft.NETCore.App/")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .filter(|v| !v.is_empty());
    Some(match from_dir {
        Some(v) => format!("{v} (CoreCLR {vm})"),
        None => format!("CoreCLR {vm}"),
    })
}

/// RuntimeInformation's StartupFlags (u32 after the ten u16 fields) and the runtime's major version
/// (the Bcl major on .NET 5+; .NET Core 3.x says 4 there and is taken as 3).
fn startup_flags(p: &[u8]) -> Option<(u32, Option<u32>, bool)> {
    let flags = u32::from_le_bytes(p.get(20..24)?.try_into().ok()?);
    // Sku 1 is DesktopClr (.NET Framework), whose BCL is 4.x as .NET Core 3.x's is: no .NET major.
    let framework = u16::from_le_bytes(p.get(2..4)?.try_into().ok()?) == 1;
    let bcl_major = u16::from_le_bytes(p.get(4..6)?.try_into().ok()?);
    let major = match bcl_major {
        _ if framework => None,
        0 => None,
        4 => Some(3),
        m => Some(u32::from(m)),
    };
    Some((flags, major, framework))
}

/// ProcessInfo: CommandLine, then (version 1) OSInformation and ArchInformation.
fn process_info(p: &[u8]) -> Option<(String, String, String)> {
    let (cmd, i) = utf16z(p, 0)?;
    let (os, arch) = match utf16z(p, i) {
        Some((os, j)) => (os, utf16z(p, j).map(|a| a.0).unwrap_or_default()),
        None => (String::new(), String::new()),
    };
    Some((cmd, os, arch))
}

pub(crate) fn dropped_events(stats: &DecodeStats) -> u64 {
    stats.dropped_events
}

/// Whether [`on_event`] (and so the model and the insights, which read the same typed events) can
/// use events of this provider and id, at any version: the process-describing events read here and
/// every event [`clr::decode`] has a layout for. The rest are only counted by the model, which
/// [`add_filtered`] does from the reader's stats.
pub(crate) fn wants(provider: &str, event_id: u32) -> bool {
    if provider == clr::names::EVENTPIPE_PROVIDER {
        return event_id == PROCESS_INFO;
    }
    if provider == crate::etl::names::KERNEL_PROVIDER {
        // The kernel's process events name the processes of a machine-wide trace.
        use crate::etl::names::hooks::*;
        return matches!(
            event_id as u16,
            PROCESS_START | PROCESS_STOP | PROCESS_DC_START | PROCESS_DC_STOP | PROCESS_DEFUNCT
        ) && event_id <= u16::MAX as u32;
    }
    if event_id == RUNTIME_INFORMATION
        && clr::names::is_runtime_provider(provider)
        && provider != clr::names::PRIVATE_PROVIDER
    {
        return true;
    }
    clr::has_layout(provider, event_id)
}

/// What [`on_event`] would have counted of the events a filtering reader skipped (the filter must
/// deliver at least what [`wants`] accepts): totals, runtime events, first and last event times.
pub(crate) fn add_filtered(b: &mut ModelBuilder, stats: &DecodeStats) {
    if stats.filtered_events == 0 {
        return;
    }
    let p = &mut b.process;
    p.events += stats.filtered_events;
    p.runtime_events += stats
        .filtered_by_provider
        .iter()
        .filter(|(provider, _)| clr::names::is_runtime_provider(provider))
        .map(|(_, n)| n)
        .sum::<u64>();
    p.first_event_ms = match (p.first_event_ms, stats.first_event_ms) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    p.last_event_ms = match (p.last_event_ms, stats.last_event_ms) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
}

/// Counts the event and reads the process-describing events. True when the event is a runtime
/// event left for [`clr::decode`]: then [`apply`] or [`on_payload_error`] (or nothing, when
/// decode has no layout for it) completes it.
pub(crate) fn begin(b: &mut ModelBuilder, e: &Event<'_>) -> bool {
    if let Some(t) = e.tick_batch() {
        on_tick_batch(b, t);
        return false;
    }
    let p = &mut b.process;
    p.events += 1;
    if p.first_event_ms.is_none() {
        p.first_event_ms = Some(e.time_ms);
    }
    p.last_event_ms = Some(p.last_event_ms.map_or(e.time_ms, |l| l.max(e.time_ms)));
    if e.provider == clr::names::EVENTPIPE_PROVIDER && e.event_id == PROCESS_INFO {
        if let Some((cmd, os, arch)) = process_info(e.payload) {
            b.on_process_info(cmd, os, arch);
        }
        return false;
    }
    if !clr::names::is_runtime_provider(e.provider) {
        return false;
    }
    p.runtime_events += 1;
    if e.event_id == RUNTIME_INFORMATION && e.provider != clr::names::PRIVATE_PROVIDER {
        if let Some(v) = runtime_version(e.payload) {
            b.on_runtime_version(v);
        }
        // ETW traces have no ProcessInfo event: the command line is RuntimeInformation's, after
        // ClrInstanceID, Sku, 8 version words, StartupFlags and StartupMode.
        if crate::event::is_machine_wide_format(&b.process.format) {
            if let Some((cmd, _)) = utf16z(e.payload, 25) {
                b.on_process_name(String::new(), cmd);
            }
        }
        if let Some((flags, major, framework)) = startup_flags(e.payload) {
            b.mode.on_runtime_information(flags, major, framework);
        }
        return false;
    }
    true
}

pub(crate) fn on_event(b: &mut ModelBuilder, e: &Event<'_>) {
    if !begin(b, e) {
        return;
    }
    let mut slot = None;
    if let Some((tick, _)) = tick_digest(e, &mut slot, |_| None) {
        apply_tick(b, tick);
        return;
    }
    // Matched in place, not moved out (see `gc::feed`).
    match &clr::decode(e) {
        None => {}
        Some(Ok(d)) => apply(b, e, d),
        Some(Err(err)) => on_payload_error(b, e, err),
    }
}

/// A GCAllocationTick's digest: the one it came with (a part of the file decoded it on another
/// thread), else one made now in `slot`. It reads the few fields the model and insights use, a third
/// of what decoding the whole payload costs, and ticks are most of a GC trace's events. None for
/// other events and for ticks it does not cover (damaged, or longer than their layout: those are
/// decoded whole, and the model notes the extra bytes). `known` is asked about the type name of a
/// digest made here (see [`clr::gc::TickDigest::of_known`]); its answer comes with the digest.
pub(crate) fn tick_digest<'a>(
    e: &Event<'a>,
    slot: &'a mut Option<(clr::gc::TickDigest, Option<u32>)>,
    known: impl FnOnce(&[u8]) -> Option<u32>,
) -> Option<(&'a clr::gc::TickDigest, Option<u32>)> {
    match e.tick() {
        Some(t) => Some((t, None)),
        None if clr::is_allocation_tick(e.provider, e.event_id) => {
            *slot = clr::gc::TickDigest::of_known(e.payload, e.version, e.pointer_size, known);
            slot.as_ref().map(|(d, seen)| (d, *seen))
        }
        None => None,
    }
}

/// What [`begin`] and [`apply_tick`] do with each tick of a batch (a reader for the GC model,
/// [`crate::ticks::Ticks::Batch`]), for all of them at once: the counts, the first and
/// latest times (the latest tick's time is the largest, as `max` over each would give), and the
/// running totals per allocation kind (saturating sums add up the same in one step).
fn on_tick_batch(b: &mut ModelBuilder, t: &crate::ticks::TickBatch) {
    if t.count == 0 {
        return;
    }
    let p = &mut b.process;
    p.events += t.count;
    if p.first_event_ms.is_none() {
        p.first_event_ms = Some(t.first_ms);
    }
    p.last_event_ms = Some(p.last_event_ms.map_or(t.latest_ms, |l| l.max(t.latest_ms)));
    // Ticks are the runtime provider's events.
    p.runtime_events += t.count;
    b.on_allocation_ticks(&t.bytes_by_kind);
    b.process.gc_events += t.count;
}

/// What [`apply`] does with a GCAllocationTick, from its digest (which is made only where the
/// payload decodes and fits its layout, so there is nothing else to note).
pub(crate) fn apply_tick(b: &mut ModelBuilder, tick: &clr::gc::TickDigest) {
    b.on_allocation_tick(tick.amount, tick.kind);
    b.process.gc_events += 1;
}

/// A runtime event whose payload [`clr::decode`] rejected: counted and noted.
pub(crate) fn on_payload_error(b: &mut ModelBuilder, e: &Event<'_>, err: &clr::PayloadError) {
    b.process.payload_errors += 1;
    b.note(format!("{} at {:.3} ms: {}", e.name, e.time_ms, err));
}

/// A runtime event [`begin`] accepted, decoded.
pub(crate) fn apply(b: &mut ModelBuilder, e: &Event<'_>, decoded: &ClrEvent<'_>) {
    let (ms, th) = (e.time_ms, e.thread_id);
    let used = match decoded {
        ClrEvent::GcSuspendEeBegin(s) => {
            b.on_suspend_begin(ms, th, s.reason.raw());
            true
        }
        ClrEvent::GcSuspendEeEnd(_) => {
            b.on_suspend_end(ms, th);
            true
        }
        ClrEvent::GcStart(s) => {
            let gc_type = s.gc_type.map_or(0, |t| t.raw());
            b.on_gc_start(
                ms,
                th,
                s.count,
                s.depth.unwrap_or(0),
                s.reason.raw(),
                gc_type,
            );
            true
        }
        ClrEvent::GcEnd(s) => {
            b.on_gc_end(ms, th, s.count, s.depth);
            true
        }
        ClrEvent::GcRestartEeEnd(_) => {
            b.on_restart_end(ms, th);
            true
        }
        ClrEvent::GcHeapStats(h) => {
            let mut size = [0u64; 5];
            let mut promoted = [0u64; 5];
            size[..4].copy_from_slice(&h.generation_size);
            promoted[..4].copy_from_slice(&h.total_promoted_size);
            size[4] = h.poh_size.unwrap_or(0);
            promoted[4] = h.poh_promoted_size.unwrap_or(0);
            b.on_heap_stats(
                ms,
                &HeapStatsInput {
                    generation_size: size,
                    promoted_size: promoted,
                    has_poh: h.poh_size.is_some(),
                    finalization_promoted_size: h.finalization_promoted_size,
                    finalization_promoted_count: h.finalization_promoted_count,
                    pinned_object_count: h.pinned_object_count,
                    sync_block_count: h.sink_block_count,
                    gc_handle_count: h.gc_handle_count,
                },
            );
            true
        }
        ClrEvent::GcGlobalHeapHistory(h) => {
            let mut times = [0u32; MAX_TIMES];
            let mut n = 0;
            if let Some(t) = &h.phase_times {
                for (slot, v) in times.iter_mut().zip(t.iter()) {
                    *slot = v;
                    n += 1;
                }
            }
            b.on_global_history(
                ms,
                &GlobalHistoryInput {
                    final_youngest_desired: h.final_youngest_desired,
                    num_heaps: h.num_heaps as i32,
                    condemned_generation: h.condemned_generation,
                    gen0_reduction_count: h.gen0_reduction_count,
                    reason: h.reason.raw(),
                    global_mechanisms: h.global_mechanisms.0,
                    pause_mode: h.pause_mode.map(|m| m.raw()),
                    memory_pressure: h.memory_pressure,
                    condemn_reasons: h.condemn_reasons.map(|c| (c.reasons0, c.reasons1)),
                    times: &times[..n],
                },
            );
            true
        }
        ClrEvent::GcPerHeapHistory(h) => {
            let mut gens = [[0u64; 10]; MAX_GENS];
            let mut n = 0;
            for (slot, g) in gens.iter_mut().zip(h.generations()) {
                *slot = [
                    g.size_before,
                    g.free_list_space_before,
                    g.free_obj_space_before,
                    g.size_after,
                    g.free_list_space_after,
                    g.free_obj_space_after,
                    g.in_bytes,
                    g.pinned_surv,
                    g.non_pinned_surv,
                    g.new_allocation,
                ];
                n += 1;
            }
            b.on_per_heap_history(
                ms,
                &PerHeapInput {
                    heap_index: h.heap_index,
                    free_list_allocated: h.free_list_allocated,
                    free_list_rejected: h.free_list_rejected,
                    end_of_seg_allocated: h.end_of_seg_allocated,
                    condemned_allocated: h.condemned_allocated,
                    pinned_allocated: h.pinned_allocated,
                    pinned_allocated_advance: h.pinned_allocated_advance,
                    running_free_list_efficiency: h.running_free_list_efficiency,
                    condemn_reasons0: h.condemn_reasons.reasons0,
                    condemn_reasons1: h.condemn_reasons.reasons1,
                    compact_mechanisms: h.compact_mechanisms,
                    expand_mechanisms: h.expand_mechanisms,
                    extra_gen0_commit: h.extra_gen0_commit,
                    generations: &gens[..n],
                },
            );
            true
        }
        ClrEvent::GcAllocationTick(a) => {
            b.on_allocation_tick(a.amount(), a.kind.raw());
            true
        }
        ClrEvent::SetGcHandle(s) => {
            b.on_set_handle(ms, s.handle_id, s.object_id, s.kind.raw(), s.generation);
            true
        }
        ClrEvent::DestroyGcHandle(d) => {
            b.on_destroy_handle(ms, d.handle_id);
            true
        }
        ClrEvent::PinObjectAtGcTime(pin) => {
            let name = pin.type_name.to_string_lossy();
            b.on_pin_object(ms, pin.handle_id, pin.object_id, pin.object_size, name);
            true
        }
        ClrEvent::PinPlugAtGcTime(plug) => {
            b.on_pin_plug(ms, plug.plug_start, plug.plug_end, plug.gap_before_size);
            true
        }
        ClrEvent::GcBulk(bulk) if bulk.kind == clr::gc::BulkKind::Node => {
            // Only marks its GC: the walk's figures are the heap snapshot's, not the model's, so
            // the event does not count among the model's GC events.
            b.on_heap_walk();
            false
        }
        ClrEvent::GcMarkWithType(m) => {
            b.on_mark(m.root_kind.raw(), m.bytes);
            true
        }
        ClrEvent::BgcAllocWaitBegin(w) => {
            let bgc = b.current_bgc_number();
            b.alloc_waits.on_begin(ms, th, w.reason.raw(), bgc);
            true
        }
        ClrEvent::BgcAllocWaitEnd(_) => {
            b.alloc_waits.on_end(ms, th);
            true
        }
        // A GC event, counted as one; which GC a history belongs to does not depend on the
        // thread these name (see `ModelBuilder::global_history_target`).
        ClrEvent::BgcPhase { .. } => true,
        ClrEvent::GcSettingsRundown(s) => {
            b.on_gc_settings(s.hard_limit, s.bit_settings);
            true
        }
        ClrEvent::GcSettings(s) => {
            b.mode.on_framework_settings(s.server_gc, s.segment_size);
            true
        }
        // Only server GC fires GCJoin (its heaps' threads synchronise).
        ClrEvent::GcJoin(_) => {
            b.mode.on_join();
            true
        }
        ClrEvent::GcCreateSegment(c) => {
            b.mode.on_segment(c.segment_type.raw(), c.size);
            true
        }
        ClrEvent::GcDynamicEvent(d) => {
            let datas = b.datas.on_dynamic(ms, d);
            if datas {
                b.mode.on_datas_event();
            }
            datas
        }
        _ => false,
    };
    if used {
        b.process.gc_events += 1;
        // A newer runtime's fields past the layout we know: kept raw (a note), not dropped.
        if let Some(n) = clr::layout::layout_len(decoded, e.version, e.pointer_size) {
            if let Some(extra) = e.payload.get(n..).filter(|x| !x.is_empty()) {
                b.on_extra_payload(e.name, e.version, n, extra);
            }
        }
    }
}
