//! Provider and event names for ETL records, as TraceEvent names them where that is cheap.
//!
//! * The .NET runtime's providers (docs/reference/formats.md, "The .NET runtime providers in ETW")
//!   by GUID, their events by id through [`crate::clr::event_name`] (the same names as in EventPipe
//!   traces), except the ids TraceEvent has no C# template for, which over ETL it names from the
//!   runtime's manifest rather than TraceLog's EventPipe fallback: IncreaseMemoryPressure (200) is
//!   `GarbageCollection/IncreaseMemoryPressure` in the net.4.5.2 baselines, not `GC`.
//! * Kernel events of the system logger (SYSTEM/COMPACT/PERFINFO headers) by HookId: provider
//!   `Windows Kernel`, `Task/Opcode` with TraceEvent's task and opcode names for the groups that
//!   real captures carry, `Task/Opcode(N)` for other opcodes and `Group(0xNN)/Opcode(N)` for other
//!   groups.
//! * Every other provider by its GUID, each event `EventID(N)` (manifest events) or `Opcode(N)`
//!   (classic events): stable names a user can count and compare, without the manifests that
//!   TraceEvent reads from the OS or from the file's KernelTraceControl metadata events.

use super::guid::Guid;
use crate::clr::names::{PRIVATE_PROVIDER, RUNDOWN_PROVIDER, RUNTIME_PROVIDER, STRESS_PROVIDER};
use alloc::format;
use alloc::string::{String, ToString};

pub const RUNTIME_GUID: Guid = Guid::new(
    0xe13c0d23,
    0xccbc,
    0x4e12,
    [0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4],
);
pub const RUNDOWN_GUID: Guid = Guid::new(
    0xa669021c,
    0xc450,
    0x4609,
    [0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18],
);
pub const PRIVATE_GUID: Guid = Guid::new(
    0x763fd754,
    0x7086,
    0x4dfe,
    [0x95, 0xeb, 0xc0, 0x1a, 0x46, 0xfa, 0xf4, 0xca],
);
pub const STRESS_GUID: Guid = Guid::new(
    0xcc2bcbba,
    0x16b6,
    0x4cf3,
    [0x89, 0x90, 0xd7, 0x4c, 0x2e, 0x8a, 0xf5, 0x00],
);

/// The provider name events of this kernel-logger, manifest or classic source are counted under.
pub const KERNEL_PROVIDER: &str = "Windows Kernel";

/// The runtime provider a GUID stands for, if any.
pub fn runtime_provider(guid: &Guid) -> Option<&'static str> {
    Some(match *guid {
        RUNTIME_GUID => RUNTIME_PROVIDER,
        RUNDOWN_GUID => RUNDOWN_PROVIDER,
        PRIVATE_GUID => PRIVATE_PROVIDER,
        STRESS_GUID => STRESS_PROVIDER,
        _ => return None,
    })
}

/// The name of a manifest event of a runtime provider over ETL.
pub fn runtime_event_name(provider: &str, id: u32, version: u32) -> String {
    if provider == RUNTIME_PROVIDER {
        match id {
            200 => return "GarbageCollection/IncreaseMemoryPressure".to_string(),
            201 => return "GarbageCollection/DecreaseMemoryPressure".to_string(),
            _ => {}
        }
    }
    match crate::clr::event_name(provider, id, version) {
        Some(n) => n.to_string(),
        None => format!("EventID({id})"),
    }
}

/// Kernel groups (HookId >> 8): TraceEvent's task names.
const GROUPS: &[(u8, &str)] = &[
    (0x00, "EventTrace"),
    (0x01, "DiskIO"),
    (0x02, "Memory"),
    (0x03, "Process"),
    (0x04, "FileIO"),
    (0x05, "Thread"),
    (0x06, "TcpIp"),
    (0x07, "Job"),
    (0x08, "UdpIp"),
    (0x09, "Registry"),
    (0x0a, "DbgPrint"),
    (0x0b, "SystemConfig"),
    (0x0f, "PerfInfo"),
    (0x10, "Heap"),
    (0x11, "Object"),
    (0x12, "Power"),
    (0x14, "Image"),
    (0x15, "DPC"),
    (0x17, "CritSec"),
    (0x18, "StackWalk"),
    (0x1a, "ALPC"),
    (0x1b, "SplitIO"),
    (0x1c, "ThreadPool"),
];

/// Opcode names per group where they differ from the generic ones below.
const OPCODES: &[(u8, u8, &str)] = &[
    (0x00, 5, "Extension"),
    (0x00, 8, "RundownComplete"),
    (0x00, 32, "EndExtension"),
    (0x01, 10, "Read"),
    (0x01, 11, "Write"),
    (0x01, 12, "ReadInit"),
    (0x01, 13, "WriteInit"),
    (0x01, 14, "FlushBuffers"),
    (0x01, 15, "FlushInit"),
    (0x02, 32, "HardFault"),
    (0x03, 32, "PerfCtr"),
    (0x03, 33, "PerfCtrRundown"),
    (0x03, 39, "Defunct"),
    (0x05, 36, "CSwitch"),
    (0x05, 50, "ReadyThread"),
    (0x05, 72, "SetName"),
    (0x06, 10, "Send"),
    (0x06, 11, "Recv"),
    (0x06, 12, "Connect"),
    (0x06, 13, "Disconnect"),
    (0x06, 15, "Accept"),
    (0x06, 26, "SendIPV6"),
    (0x06, 27, "RecvIPV6"),
    (0x08, 10, "Send"),
    (0x08, 11, "Recv"),
    (0x08, 26, "SendIPV6"),
    (0x08, 27, "RecvIPV6"),
    // The machine's configuration, logged at the start of a kernel session; opcodes 18, 28 and
    // the others TraceEvent leaves unnamed stay `Opcode(N)`.
    (0x0b, 10, "CPU"),
    (0x0b, 11, "PhyDisk"),
    (0x0b, 12, "LogDisk"),
    (0x0b, 13, "NIC"),
    (0x0b, 15, "Services"),
    (0x0b, 16, "Power"),
    (0x0b, 17, "Network"),
    (0x0b, 22, "PnP"),
    (0x0b, 23, "IDEChannel"),
    (0x0b, 25, "Platform"),
    (0x0f, 46, "Sample"),
    (0x0f, 73, "CollectionStart"),
    (0x0f, 74, "CollectionEnd"),
    (0x14, 2, "Unload"),
    (0x14, 10, "Load"),
    (0x14, 33, "KernelBase"),
];

/// The name of a kernel event (`Process/Start`); the logfile header (HookId 0) is `EventTrace`.
pub fn kernel_event_name(hook: u16) -> String {
    let (group, opcode) = ((hook >> 8) as u8, hook as u8);
    let Some(&(_, task)) = GROUPS.iter().find(|(g, _)| *g == group) else {
        return format!("Group({group:#04x})/Opcode({opcode})");
    };
    if hook == 0 {
        return task.to_string();
    }
    if hook == crate::stacks::methods::IMAGE_LOAD_IN_PROCESS_GROUP {
        return "Image/Load".to_string();
    }
    let name = OPCODES
        .iter()
        .find(|(g, o, _)| *g == group && *o == opcode)
        .map(|(_, _, n)| *n)
        .or(match opcode {
            1 => Some("Start"),
            2 => Some("Stop"),
            3 => Some("DCStart"),
            4 => Some("DCStop"),
            _ => None,
        });
    match name {
        Some(n) => format!("{task}/{n}"),
        None => format!("{task}/Opcode({opcode})"),
    }
}

/// HookId of the kernel's process events (group 3): start, end, and the rundown ones.
pub mod hooks {
    pub const PROCESS_START: u16 = 0x0301;
    pub const PROCESS_STOP: u16 = 0x0302;
    pub const PROCESS_DC_START: u16 = 0x0303;
    pub const PROCESS_DC_STOP: u16 = 0x0304;
    pub const PROCESS_DEFUNCT: u16 = 0x0327;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_names() {
        assert_eq!(kernel_event_name(0), "EventTrace");
        assert_eq!(kernel_event_name(0x0301), "Process/Start");
        assert_eq!(kernel_event_name(0x0327), "Process/Defunct");
        assert_eq!(kernel_event_name(0x0f2e), "PerfInfo/Sample");
        assert_eq!(kernel_event_name(0x140a), "Image/Load");
        assert_eq!(kernel_event_name(0x030a), "Image/Load");
        assert_eq!(kernel_event_name(0x1402), "Image/Unload");
        assert_eq!(kernel_event_name(0x0b16), "SystemConfig/PnP");
        assert_eq!(kernel_event_name(0x0b12), "SystemConfig/Opcode(18)");
        assert_eq!(kernel_event_name(0x0363), "Process/Opcode(99)");
        assert_eq!(kernel_event_name(0x4201), "Group(0x42)/Opcode(1)");
    }

    #[test]
    fn runtime_names() {
        assert_eq!(runtime_provider(&RUNTIME_GUID), Some(RUNTIME_PROVIDER));
        assert_eq!(runtime_event_name(RUNTIME_PROVIDER, 1, 2), "GC/Start");
        assert_eq!(
            runtime_event_name(RUNTIME_PROVIDER, 200, 0),
            "GarbageCollection/IncreaseMemoryPressure"
        );
        assert_eq!(
            runtime_event_name(PRIVATE_PROVIDER, 4, 0),
            "GC/PerHeapHistory"
        );
        assert_eq!(runtime_event_name(RUNTIME_PROVIDER, 24, 0), "EventID(24)");
    }
}
