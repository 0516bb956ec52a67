//! A NetTrace whose stacks and methods are known by construction, for the stacks tests: method
//! ranges (JIT loads and rundown, one nested in another, one empty), a module, stacks across two
//! sequence-point regions (so the file's ids restart), allocation ticks on every heap, induced and
//! allocation-triggered GCs, pinned and strong handles, an event whose stack id names no stack, and
//! one without a stack. [`Truth`] is what a reader must make of it.

use gcscope_core::clr::names::{RUNDOWN_PROVIDER, RUNTIME_PROVIDER};
use gcscope_core::encode::payload::{self, Payload};
use gcscope_core::encode::{EventDef, EventFields, Flavor, Header, NetTraceWriter};

pub const MAIN: &str = "App!App.Program.Main(class System.String[])";
pub const ALLOC_LARGE: &str = "App!App.Program.AllocLarge(int32)";
pub const OUTER: &str = "App!App.Outer()";
pub const INNER: &str = "App!App.Inner()";
pub const COLLECT: &str = "App!App.Program.Collect()";
pub const PIN: &str = "App!App.Program.Pin()";
/// A native address: in no method.
pub const NATIVE: u64 = 0x9999_0000;
/// The address of the empty method's range: in no method either.
pub const EMPTY_AT: u64 = 0x7000;

/// Stacks, leaf first.
pub const S_LOH: [u64; 2] = [0x1010, 0x2010];
pub const S_SOH: [u64; 3] = [0x5410, 0x5010, 0x2020];
pub const S_INDUCED: [u64; 3] = [NATIVE, 0x3010, 0x2030];
pub const S_PIN: [u64; 2] = [0x4010, 0x2040];
pub const S_ODD: [u64; 3] = [0x5800, EMPTY_AT, 0x2050];

/// What the trace holds, by construction.
pub struct Truth {
    pub loh_ticks: u64,
    pub loh_bytes_each: u64,
    pub soh_ticks_inner: u64,
    pub soh_ticks_odd: u64,
    pub soh_bytes_each: u64,
    pub poh_ticks: u64,
    pub induced: u64,
    pub alloc_triggered: u64,
    pub pinned: u64,
    pub missing: u64,
    pub without_stack: u64,
    /// Distinct stacks.
    pub distinct: usize,
}

pub const TRUTH: Truth = Truth {
    loh_ticks: 12,
    loh_bytes_each: 100_000,
    soh_ticks_inner: 5,
    soh_ticks_odd: 1,
    soh_bytes_each: 50_000,
    poh_ticks: 1,
    induced: 3,
    alloc_triggered: 1,
    pinned: 4,
    missing: 1,
    without_stack: 1,
    distinct: 5,
};

fn method(id: u64, start: u64, size: u32, ns: &str, name: &str, sig: &str) -> Vec<u8> {
    payload::method_load_verbose_v2(id, 1, start, size, 0x0600_0000 | id as u32, (ns, name, sig))
}

/// The trace's bytes.
pub fn trace(flavor: Flavor) -> Vec<u8> {
    let header = Header::default();
    let mut w = NetTraceWriter::new(flavor, &header);
    let def = |w: &mut NetTraceWriter, provider, event_id, version| {
        w.define(&EventDef {
            provider,
            event_id,
            version,
            level: 5,
            ..Default::default()
        })
    };
    let tick = def(&mut w, RUNTIME_PROVIDER, 10, 4);
    let triggered = def(&mut w, RUNTIME_PROVIDER, 35, 0);
    let handle = def(&mut w, RUNTIME_PROVIDER, 30, 0);
    let jit = def(&mut w, RUNTIME_PROVIDER, 143, 2);
    let dc_end = def(&mut w, RUNDOWN_PROVIDER, 144, 2);
    let module_dc_end = def(&mut w, RUNDOWN_PROVIDER, 154, 2);
    let mut t = header.sync_time_qpc + 1_000_000;
    let mut ev = |w: &mut NetTraceWriter, id: u32, stack: u32, p: &[u8]| {
        t += 1_000_000;
        w.event(
            &EventFields {
                metadata_id: id,
                thread_id: 0x100,
                capture_thread_id: 0x100,
                stack_id: stack,
                timestamp: t,
                sorted: true,
                ..Default::default()
            },
            p,
        );
        t
    };
    let alloc = |amount: u64, kind: u32, ty: &str| {
        payload::allocation_tick_v4(amount, kind, 0x7f00, ty, 0, 0x1_0000, amount, 8)
    };
    let pinned = Payload::new(8)
        .ptr(0x10)
        .ptr(0x20)
        .u32(3)
        .u32(0)
        .u64(1)
        .u16(9)
        .done();
    let strong = Payload::new(8)
        .ptr(0x10)
        .ptr(0x20)
        .u32(2)
        .u32(0)
        .u64(1)
        .u16(9)
        .done();
    // The nested method is JIT-compiled during the trace; the rest come from rundown at the end.
    let inner = method(5, 0x5400, 0x100, "App", "Inner", "instance void  ()");
    ev(&mut w, jit, 0, &inner);
    // Region 1.
    let loh = w.stack(1, &S_LOH);
    let soh = w.stack(2, &S_SOH);
    let induced = w.stack(3, &S_INDUCED);
    let pin = w.stack(4, &S_PIN);
    for _ in 0..10 {
        ev(&mut w, tick, loh, &alloc(100_000, 1, "System.Byte[]"));
    }
    for _ in 0..5 {
        ev(&mut w, tick, soh, &alloc(50_000, 0, "App.Node"));
    }
    for _ in 0..3 {
        ev(&mut w, triggered, induced, &payload::gc_triggered(1));
    }
    ev(&mut w, triggered, soh, &payload::gc_triggered(0));
    for _ in 0..4 {
        ev(&mut w, handle, pin, &pinned);
    }
    ev(&mut w, handle, pin, &strong);
    let last = ev(&mut w, handle, pin, &strong);
    w.sequence_point(last + 1);
    // Region 2: the file's ids start again, in another order.
    let odd = w.stack(5, &S_ODD);
    let loh = w.stack(1, &S_LOH);
    for _ in 0..2 {
        ev(&mut w, tick, loh, &alloc(100_000, 1, "System.Byte[]"));
    }
    ev(&mut w, tick, odd, &alloc(50_000, 0, "App.Node"));
    ev(&mut w, tick, 99, &alloc(8_000, 2, "System.Byte[]"));
    ev(&mut w, tick, 0, &alloc(50_000, 0, "App.Other"));
    // Rundown.
    let methods = [
        method(
            1,
            0x1000,
            0x100,
            "App.Program",
            "AllocLarge",
            "static void  (int32)",
        ),
        method(
            2,
            0x2000,
            0x200,
            "App.Program",
            "Main",
            "static void  (class System.String[])",
        ),
        method(3, 0x3000, 0x80, "App.Program", "Collect", "static void  ()"),
        method(4, 0x4000, 0x80, "App.Program", "Pin", "static void  ()"),
        method(6, 0x5000, 0x1000, "App", "Outer", "instance void  ()"),
        method(7, EMPTY_AT, 0, "App", "Empty", "instance void  ()"),
        inner,
    ];
    for m in &methods {
        ev(&mut w, dc_end, 0, m);
    }
    let module = Payload::new(8)
        .u64(1)
        .u64(2)
        .u32(0)
        .u32(0)
        .utf16z("/app/App.dll")
        .utf16z("")
        .u16(9)
        .done();
    ev(&mut w, module_dc_end, 0, &module);
    w.finish();
    let mut out = Vec::new();
    w.drain(&mut |b| out.extend_from_slice(b));
    out
}
