//! The events the workload writes, defined once in the trace's metadata, and the type names its
//! allocation ticks name.

use super::{KW_GC, KW_JIT, METHOD_LOAD_VERBOSE};
use crate::clr::ids::runtime as rt;
use crate::clr::names::{EVENTPIPE_PROVIDER, RUNTIME_PROVIDER, SAMPLE_PROFILER_PROVIDER};
use crate::encode::{EventDef, Field, NetTraceWriter};

pub(super) const TYPE_NAMES: &[&str] = &[
    "System.String",
    "System.Byte[]",
    "System.Collections.Generic.List`1[System.Int32]",
    "System.Text.StringBuilder",
    "MyApp.Orders.OrderLine",
    "System.Collections.Generic.Dictionary`2+Entry[System.String,System.Object][]",
    "System.Threading.Tasks.Task`1[System.Net.Http.HttpResponseMessage]",
    "MyApp.Json.JsonNode",
];

pub(super) const NAMESPACES: &[&str] = &[
    "MyApp.Orders.OrderService",
    "System.Text.Json.JsonSerializer",
    "System.Collections.Generic.Dictionary`2[System.__Canon,System.__Canon]",
    "Microsoft.AspNetCore.Routing.Matching.DfaMatcher",
    "System.Linq.Enumerable+SelectListIterator`2[System.Int32,System.__Canon]",
];

/// The metadata ids the workload uses.
pub(super) struct Ids {
    pub(super) sample: u32,
    pub(super) method_load: u32,
    pub(super) alloc_tick: u32,
    pub(super) triggered: u32,
    pub(super) suspend_begin: u32,
    pub(super) suspend_end: u32,
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) per_heap: u32,
    pub(super) global: u32,
    pub(super) heap_stats: u32,
    pub(super) restart_begin: u32,
    pub(super) restart_end: u32,
    pub(super) process_info: u32,
}

pub(super) fn define_all(w: &mut NetTraceWriter) -> Ids {
    let rtdef = |id: u32, version: u32, level: u32, keywords: u64, opcode: Option<u8>| EventDef {
        provider: RUNTIME_PROVIDER,
        event_id: id,
        version,
        level,
        keywords,
        opcode,
        ..Default::default()
    };
    let process_fields = [
        Field {
            type_code: 18,
            name: "CommandLine",
        },
        Field {
            type_code: 18,
            name: "OSInformation",
        },
        Field {
            type_code: 18,
            name: "ArchInformation",
        },
    ];
    let sample_fields = [Field {
        type_code: 9,
        name: "Type",
    }];
    Ids {
        process_info: w.define(&EventDef {
            provider: EVENTPIPE_PROVIDER,
            event_id: 1,
            name: "ProcessInfo",
            version: 1,
            fields: &process_fields,
            ..Default::default()
        }),
        sample: w.define(&EventDef {
            provider: SAMPLE_PROFILER_PROVIDER,
            event_id: 0,
            name: "ThreadSample",
            fields: &sample_fields,
            ..Default::default()
        }),
        method_load: w.define(&rtdef(METHOD_LOAD_VERBOSE, 2, 5, KW_JIT, Some(37))),
        alloc_tick: w.define(&rtdef(rt::GC_ALLOCATION_TICK, 4, 5, KW_GC, Some(11))),
        triggered: w.define(&rtdef(rt::GC_TRIGGERED, 0, 4, KW_GC, Some(35))),
        suspend_begin: w.define(&rtdef(rt::GC_SUSPEND_EE_BEGIN, 1, 4, KW_GC, Some(10))),
        suspend_end: w.define(&rtdef(rt::GC_SUSPEND_EE_END, 1, 4, KW_GC, Some(137))),
        start: w.define(&rtdef(rt::GC_START, 2, 4, KW_GC, Some(1))),
        end: w.define(&rtdef(rt::GC_END, 1, 4, KW_GC, Some(2))),
        per_heap: w.define(&rtdef(rt::GC_PER_HEAP_HISTORY, 3, 4, KW_GC, None)),
        global: w.define(&rtdef(rt::GC_GLOBAL_HEAP_HISTORY, 4, 4, KW_GC, None)),
        heap_stats: w.define(&rtdef(rt::GC_HEAP_STATS, 2, 4, KW_GC, Some(133))),
        restart_begin: w.define(&rtdef(rt::GC_RESTART_EE_BEGIN, 1, 4, KW_GC, Some(136))),
        restart_end: w.define(&rtdef(rt::GC_RESTART_EE_END, 1, 4, KW_GC, Some(132))),
    }
}
