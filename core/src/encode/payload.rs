//! Payload builders for the runtime events the workload writes, laid out as
//! docs/reference/formats.md, "Runtime event payloads", and ClrEtwAll.man describe them (fields
//! packed, `win:Pointer` = the trace's pointer size, strings UTF-16LE with a NUL).

use alloc::vec::Vec;

/// Appends little-endian fields to a payload.
pub struct Payload {
    pub bytes: Vec<u8>,
    pointer_size: u8,
}

impl Payload {
    pub fn new(pointer_size: u8) -> Self {
        Payload {
            bytes: Vec::with_capacity(128),
            pointer_size,
        }
    }
    pub fn u8(mut self, v: u8) -> Self {
        self.bytes.push(v);
        self
    }
    pub fn u16(mut self, v: u16) -> Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn u32(mut self, v: u32) -> Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn u64(mut self, v: u64) -> Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn ptr(self, v: u64) -> Self {
        if self.pointer_size == 8 {
            self.u64(v)
        } else {
            self.u32(v as u32)
        }
    }
    pub fn utf16z(mut self, s: &str) -> Self {
        for u in s.encode_utf16() {
            self.bytes.extend_from_slice(&u.to_le_bytes());
        }
        self.bytes.extend_from_slice(&[0, 0]);
        self
    }
    pub fn done(self) -> Vec<u8> {
        self.bytes
    }
}

/// The ClrInstanceID the workload writes.
pub const CLR_INSTANCE: u16 = 9;

/// GCStart V2: Count, Depth, Reason, Type, ClrInstanceID, ClientSequenceNumber.
pub fn gc_start_v2(count: u32, depth: u32, reason: u32, gc_type: u32, client_seq: u64) -> Vec<u8> {
    Payload::new(8)
        .u32(count)
        .u32(depth)
        .u32(reason)
        .u32(gc_type)
        .u16(CLR_INSTANCE)
        .u64(client_seq)
        .done()
}

/// GCEnd V1: Count, Depth, ClrInstanceID.
pub fn gc_end_v1(count: u32, depth: u32) -> Vec<u8> {
    Payload::new(8)
        .u32(count)
        .u32(depth)
        .u16(CLR_INSTANCE)
        .done()
}

/// GCSuspendEEBegin V1: Reason, Count, ClrInstanceID.
pub fn suspend_ee_begin_v1(reason: u32, count: u32) -> Vec<u8> {
    Payload::new(8)
        .u32(reason)
        .u32(count)
        .u16(CLR_INSTANCE)
        .done()
}

/// GCSuspendEEEnd / GCRestartEEBegin / GCRestartEEEnd V1: just ClrInstanceID.
pub fn clr_instance_only() -> Vec<u8> {
    Payload::new(8).u16(CLR_INSTANCE).done()
}

/// GCTriggered V0: Reason, ClrInstanceID.
pub fn gc_triggered(reason: u32) -> Vec<u8> {
    Payload::new(8).u32(reason).u16(CLR_INSTANCE).done()
}

/// GCHeapStats V2 figures (gen0, gen1, gen2, LOH, POH).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeapStats {
    pub size: [u64; 5],
    pub promoted: [u64; 5],
    pub finalization_promoted_size: u64,
    pub finalization_promoted_count: u64,
    pub pinned_objects: u32,
    pub sync_blocks: u32,
    pub gc_handles: u32,
}

/// GCHeapStats V2: gens 0-3 size/promoted pairs, finalization, counts, ClrInstanceID, then POH.
pub fn heap_stats_v2(h: &HeapStats) -> Vec<u8> {
    let mut p = Payload::new(8);
    for g in 0..4 {
        p = p.u64(h.size[g]).u64(h.promoted[g]);
    }
    p.u64(h.finalization_promoted_size)
        .u64(h.finalization_promoted_count)
        .u32(h.pinned_objects)
        .u32(h.sync_blocks)
        .u32(h.gc_handles)
        .u16(CLR_INSTANCE)
        .u64(h.size[4])
        .u64(h.promoted[4])
        .done()
}

/// GCGlobalHeapHistory V4 fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GlobalHistory {
    pub final_youngest_desired: u64,
    pub num_heaps: i32,
    pub condemned_generation: u32,
    pub gen0_reduction_count: u32,
    pub reason: u32,
    pub global_mechanisms: u32,
    pub pause_mode: u32,
    pub memory_pressure: u32,
    pub condemn_reasons0: u32,
    pub condemn_reasons1: u32,
    pub phase_times: Vec<u32>,
}

pub fn global_heap_history_v4(h: &GlobalHistory) -> Vec<u8> {
    let mut p = Payload::new(8)
        .u64(h.final_youngest_desired)
        .u32(h.num_heaps as u32)
        .u32(h.condemned_generation)
        .u32(h.gen0_reduction_count)
        .u32(h.reason)
        .u32(h.global_mechanisms)
        .u16(CLR_INSTANCE)
        .u32(h.pause_mode)
        .u32(h.memory_pressure)
        .u32(h.condemn_reasons0)
        .u32(h.condemn_reasons1)
        .u32(h.phase_times.len() as u32);
    for &t in &h.phase_times {
        p = p.u32(t);
    }
    p.done()
}

/// One generation record of GCPerHeapHistory V3, in payload order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GenData {
    pub size_before: u64,
    pub free_list_before: u64,
    pub free_obj_before: u64,
    pub size_after: u64,
    pub free_list_after: u64,
    pub free_obj_after: u64,
    pub in_bytes: u64,
    pub pinned_surv: u64,
    pub non_pinned_surv: u64,
    pub new_allocation: u64,
}

/// GCPerHeapHistory V3 fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PerHeapHistory {
    pub free_list_allocated: u64,
    pub free_list_rejected: u64,
    pub end_of_seg_allocated: u64,
    pub condemned_allocated: u64,
    pub pinned_allocated: u64,
    pub pinned_allocated_advance: u64,
    pub running_free_list_efficiency: u32,
    pub condemn_reasons0: u32,
    pub condemn_reasons1: u32,
    pub compact_mechanisms: u32,
    pub expand_mechanisms: u32,
    pub heap_index: u32,
    pub extra_gen0_commit: u64,
    pub generations: Vec<GenData>,
}

/// GCPerHeapHistory V3: ClrInstanceID first, pointer-sized figures, then Count generation records.
pub fn per_heap_history_v3(h: &PerHeapHistory, pointer_size: u8) -> Vec<u8> {
    let mut p = Payload::new(pointer_size)
        .u16(CLR_INSTANCE)
        .ptr(h.free_list_allocated)
        .ptr(h.free_list_rejected)
        .ptr(h.end_of_seg_allocated)
        .ptr(h.condemned_allocated)
        .ptr(h.pinned_allocated)
        .ptr(h.pinned_allocated_advance)
        .u32(h.running_free_list_efficiency)
        .u32(h.condemn_reasons0)
        .u32(h.condemn_reasons1)
        .u32(h.compact_mechanisms)
        .u32(h.expand_mechanisms)
        .u32(h.heap_index)
        .ptr(h.extra_gen0_commit)
        .u32(h.generations.len() as u32);
    for g in &h.generations {
        for v in [
            g.size_before,
            g.free_list_before,
            g.free_obj_before,
            g.size_after,
            g.free_list_after,
            g.free_obj_after,
            g.in_bytes,
            g.pinned_surv,
            g.non_pinned_surv,
            g.new_allocation,
        ] {
            p = p.ptr(v);
        }
    }
    p.done()
}

/// GCAllocationTick V4: u32 amount (truncated), kind, ClrInstanceID, u64 amount, TypeID, TypeName,
/// HeapIndex, Address, ObjectSize.
#[allow(clippy::too_many_arguments)]
pub fn allocation_tick_v4(
    amount: u64,
    kind: u32,
    type_id: u64,
    type_name: &str,
    heap_index: u32,
    address: u64,
    object_size: u64,
    pointer_size: u8,
) -> Vec<u8> {
    Payload::new(pointer_size)
        .u32(amount as u32)
        .u32(kind)
        .u16(CLR_INSTANCE)
        .u64(amount)
        .ptr(type_id)
        .utf16z(type_name)
        .u32(heap_index)
        .ptr(address)
        .u64(object_size)
        .done()
}

/// MethodLoadVerbose V2 (id 143): MethodID, ModuleID, MethodStartAddress, MethodSize, MethodToken,
/// MethodFlags, Namespace, Name, Signature, ClrInstanceID, ReJITID.
pub fn method_load_verbose_v2(
    method_id: u64,
    module_id: u64,
    start: u64,
    size: u32,
    token: u32,
    names: (&str, &str, &str),
) -> Vec<u8> {
    Payload::new(8)
        .u64(method_id)
        .u64(module_id)
        .u64(start)
        .u32(size)
        .u32(token)
        .u32(0)
        .utf16z(names.0)
        .utf16z(names.1)
        .utf16z(names.2)
        .u16(CLR_INSTANCE)
        .u64(0)
        .done()
}

/// SampleProfiler ThreadSample: u32 Type (1 External, 2 Managed).
pub fn thread_sample(kind: u32) -> Vec<u8> {
    kind.to_le_bytes().to_vec()
}

/// EventPipe ProcessInfo V1: CommandLine, OSInformation, ArchInformation.
pub fn process_info(command_line: &str, os: &str, arch: &str) -> Vec<u8> {
    Payload::new(8)
        .utf16z(command_line)
        .utf16z(os)
        .utf16z(arch)
        .done()
}
